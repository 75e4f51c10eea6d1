"""A team's games as its report page lists them: every game, from the team's own view.

"What happened to us" is the question a team brings to its page, so each game says what it
gave the team (won, lost, a draw by the move limit, failed, not scored), on whichever side
the team played it: as Pacman in every game of its own, and as the ghost team in the match
games where it is the ghost entrant. The default order puts what needs a look first: the
team's own failures, then its losses, draws and the games nobody scored, then its wins;
within each, in cell and game order (game ids sort as text, which would put game 10 before
game 7).

Pure: rows of the results table in, plain records out. The report adds what needs the file
system (which replays exist, the agents' logs) and renders them.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from typing import Any

import pandas as pd  # type: ignore[import-untyped, unused-ignore]

from pacman.outcomes import FAILURES, GHOSTS, INFRA_ERROR, PACMAN, pacman_points, side_of

#: What a game gave the team, in the default order of its page (first shown first).
RESULTS = ("failed", "lost", "draw", "not scored", "opponent failed", "won")


@dataclass(frozen=True)
class TeamGame:
    """One game of a team's page, as the team sees it."""

    game_id: str
    #: The side the team played: `pacman.outcomes.PACMAN` or `GHOSTS`.
    side: str
    layout: str
    #: The grid's depth, or None where agents searched to their own default.
    depth: int | None
    #: `fixed` for a game against the grid's built-in ghosts, `match` for a head-to-head game
    #: (the statistics and the heat map count only the first kind).
    format: str
    #: Who the team played against: the ghosts (`2 RandomGhost`, or a ghost team's name) when
    #: it was Pacman, the Pacman entrant when it was the ghost team.
    opponent: str
    seed: int
    #: The game's index in its cell (0-based).
    index: int
    #: The stored outcome, from Pacman's side as the results hold it (`win`, `timeout`...).
    outcome: str
    #: What the game gave the team: one of `RESULTS`.
    result: str
    score: int
    moves: int
    #: The team's longest move in seconds when it was Pacman (the results time Pacman only).
    longest_move: float | None
    #: The index of the agent to blame for a failure, or None.
    culprit: int | None
    message: str
    trace: str
    #: The results' replay path (relative to the output folder, or absolute), or None.
    replay: str | None
    #: The names of the game's agents in index order, as people read them: Pacman's entrant,
    #: then each ghost (the ghost team's name, or the built-in ghost class).
    agents: tuple[str, ...]

    @property
    def failed_here(self) -> bool:
        """Whether the team is to blame for this game's failure (its own agent failed)."""
        return self.culprit is not None and side_of(self.culprit) == self.side

    @property
    def culprit_name(self) -> str:
        """The failing agent as a person reads it ('' when no agent is to blame)."""
        if self.culprit is None or not 0 <= self.culprit < len(self.agents):
            return ""
        if self.culprit == 0:
            return f"{self.agents[0]} (Pacman)"
        return f"{self.agents[self.culprit]} (ghost {self.culprit})"

    @property
    def order(self) -> int:
        """The game's place in the page's default order of results."""
        return RESULTS.index(self.result)


def team_games(results: Any, name: str) -> list[TeamGame]:
    """Every game of `name` in `results`, in the page's default order."""
    if len(results) == 0:
        return []
    is_pacman = results["entrant"] == name
    is_ghosts = (results["ghost_entrant"].fillna("").astype(str) == name
                 if "ghost_entrant" in results.columns else pd.Series(False, index=results.index))
    mine = results[is_pacman | is_ghosts]
    mine = mine.sort_values(["cell", "game_index", "game_id"], kind="mergesort")
    games = [_game(row, PACMAN if row["entrant"] == name else GHOSTS)
             for row in mine.to_dict("records")]
    return sorted(games, key=lambda game: game.order)  # stable: cell and game order within


def _game(row: dict[str, Any], side: str) -> TeamGame:
    culprit = _int(row.get("culprit"))
    outcome = str(row["outcome"])
    ghost_entrant = _text(row.get("ghost_entrant"))
    if side == PACMAN:
        opponent = ghost_entrant or f"{_int(row.get('num_ghosts')) or 0} {row['ghost']}"
    else:
        opponent = str(row["entrant"])
    return TeamGame(
        game_id=str(row["game_id"]),
        side=side,
        layout=str(row["layout"]),
        depth=_int(row.get("depth")),
        opponent=opponent,
        format="match" if ghost_entrant else "fixed",
        seed=int(row["seed"]),
        index=int(row["game_index"]),
        outcome=outcome,
        result=result_for(outcome, culprit, side),
        score=int(row["score"]),
        moves=int(row["moves"]),
        longest_move=_float(row.get("wall_max")) if side == PACMAN else None,
        culprit=culprit,
        message=_text(row.get("message")),
        trace=_text(row.get("trace")),
        replay=_text(row.get("replay")) or None,
        agents=agent_names(row),
    )


def agent_names(row: dict[str, Any]) -> tuple[str, ...]:
    """A game's agents in index order as people read them, never a file path: the Pacman
    entrant, then each ghost as its ghost team's name or the built-in ghost's class."""
    ghost_entrant = _text(row.get("ghost_entrant"))
    num_ghosts = _int(row.get("num_ghosts")) or 0
    ghost = ghost_entrant or str(row["ghost"])
    return (str(row["entrant"]), *([ghost] * num_ghosts))


def result_for(outcome: str, culprit: int | None, side: str) -> str:
    """What a game gave `side`: a failure of its own agent is `failed` (whatever the points
    say, the team wants to see it first); otherwise the points decide (a match's rules, which
    fixed-format games share: a move limit is a draw); an opponent's failure, which gives the
    team the points of a match game but no win on the leaderboard, says so."""
    if outcome in FAILURES and culprit is not None and side_of(culprit) == side:
        return "failed"
    points = None if outcome == INFRA_ERROR else pacman_points(outcome, culprit)
    if points is None:
        return "not scored"
    if outcome in FAILURES:
        return "opponent failed"
    mine = points if side == PACMAN else 1 - points
    return "won" if mine == 1 else "lost" if mine == 0 else "draw"


def frames_name(game_id: str) -> str:
    """The file name of a game's frames in the site: readable, safe on every file system and
    in a URL, and distinct for distinct ids (a hash of the id, since two ids can clean to the
    same text)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", game_id).strip("-.")[:80] or "game"
    digest = hashlib.blake2b(game_id.encode(), digest_size=5).hexdigest()
    return f"{cleaned}-{digest}.js"


def _int(value: Any) -> int | None:
    if value is None or isinstance(value, str):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else int(number)


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)
