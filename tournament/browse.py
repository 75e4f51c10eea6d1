"""Finding a tournament's games to watch: the logic of `tournament replay`, without I/O.

A tournament of a few thousand games is only useful to watch if the game in question can be
found in seconds: "alpha's timeouts on mediumClassic", "the game the organizer was asked
about". These functions select and describe rows of the results table (`Store.frame()`); the
command prints them and opens the viewer. Keeping them free of the command line, the
console and the window means the selection rules are tested on a hand-made table. All are
pure except `replay_of` and `replays_of`, which look whether replay files exist.

A replay file exists only for games played while the config's `record.replays` policy kept
it (`failures` by default), so every game listed says whether it can be watched, and games
without one can be re-created under a separate name (`recreated_replay`) that cannot be
mistaken for what the run itself wrote.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final, Literal, NamedTuple, TypeAlias

import pandas as pd  # type: ignore[import-untyped, unused-ignore]

from pacman.outcomes import FAILURES, OUTCOMES

#: `--outcome failed`: any agent failure (Pacman's or a ghost's), whatever its kind.
FAILED = "failed"
OUTCOME_CHOICES = (*OUTCOMES, FAILED)
#: `--depth default`: the cells where agents search to their own default depth.
DEFAULT_DEPTH: Final = "default"
Depth: TypeAlias = int | Literal["default"]
#: Messages longer than this are cut in the table; the full text is in the results.
MESSAGE_WIDTH = 60
#: Where re-created replays go, beside (never inside) the run's own `replays/` folder.
RECREATED_FOLDER = "recreated-replays"


def filter_games(results: Any, team: str | None = None, layout: str | None = None,
                 depth: Depth | None = None, outcome: str | None = None,
                 game: str | None = None) -> Any:
    """The rows matching every filter given, in entrant, cell, then game order.

    Game order is by index, not by id: ids sort as text, which would put game 10 before
    game 7 and scatter a cell's games in the table.
    """
    keep = pd.Series(True, index=results.index)
    if team is not None:
        # A team's games on either side: as Pacman, or as the ghost entrant of a match game.
        mine = results["entrant"] == team
        if "ghost_entrant" in results.columns:
            mine |= results["ghost_entrant"] == team
        keep &= mine
    if layout is not None:
        keep &= results["layout"] == layout
    if depth is not None:
        depths = pd.to_numeric(results["depth"], errors="coerce")
        keep &= depths.isna() if depth == DEFAULT_DEPTH else depths == depth
    if outcome == FAILED:
        keep &= results["outcome"].isin(FAILURES)
    elif outcome is not None:
        keep &= results["outcome"] == outcome
    if game is not None:
        keep &= results["game_id"] == game
    chosen = results[keep]
    order = ["entrant", "cell", "game_index", "game_id"]
    return chosen.sort_values(order, kind="mergesort").reset_index(drop=True)


# --- checking the filters -----------------------------------------------------------------------

def parse_depth(text: str) -> Depth | None:
    """`--depth` as given: a whole number or `default`; None when it is neither."""
    if text.strip().lower() == DEFAULT_DEPTH:
        return DEFAULT_DEPTH
    try:
        return int(text)
    except ValueError:
        return None


def unknown_choice(option: str, what: str, value: str, known: Iterable[str],
                   list_known: bool = True) -> str | None:
    """None when `value` is one of `known`, else a message with the nearest names.

    The known names are listed too, in the order given (unless there may be thousands, as
    for game ids): a near miss is not always a typo, and the organizer then sees what the
    tournament holds.
    """
    names = list(dict.fromkeys(known))
    if value in names:
        return None
    same_case = [n for n in names if n.lower() == value.lower()]
    close = same_case or difflib.get_close_matches(value, names, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    listing = ""
    if list_known:
        listing = f"; {what}s here: {', '.join(names)}" if names else f"; there are no {what}s"
    return f"{option}: unknown {what} {value!r}{hint}{listing}"


def filter_problems(*, entrants: Iterable[str], layouts: Iterable[str],
                    depths: Iterable[int | None], game_ids: Iterable[str],
                    team: str | None = None, layout: str | None = None,
                    depth: str | None = None, outcome: str | None = None,
                    game: str | None = None) -> list[str]:
    """Every filter value that names nothing in the tournament, each with a hint.

    A misspelt filter would otherwise match nothing and read as "no such games", which is a
    different and wrong answer; so unknown values are errors, reported all at once.
    """
    problems = []
    if team is not None:
        problems.append(unknown_choice("--team", "entrant", team, sorted(entrants)))
    if layout is not None:
        problems.append(unknown_choice("--layout", "layout", layout, sorted(layouts)))
    if depth is not None:
        grid_depths = sorted(set(depths), key=lambda d: (d is not None, d or 0))
        names = [DEFAULT_DEPTH if d is None else str(d) for d in grid_depths]
        parsed = parse_depth(depth)
        if parsed is None:
            problems.append(f"--depth: expected a whole number or {DEFAULT_DEPTH!r}, got "
                            f"{depth!r}; depths here: {', '.join(names)}")
        else:
            problems.append(unknown_choice("--depth", "depth", str(parsed), names))
    if outcome is not None:
        problems.append(unknown_choice("--outcome", "outcome", outcome, OUTCOME_CHOICES))
    if game is not None:
        message = unknown_choice("--game", "game", game, game_ids, list_known=False)
        if message is not None:
            message += (" among the stored games of the current submissions"
                        " (see `tournament status`)")
        problems.append(message)
    return [p for p in problems if p is not None]


# --- replay files -------------------------------------------------------------------------------

class Replay(NamedTuple):
    """Whether a game can be watched: the file to open (None if none) and a word for the table."""

    file: Path | None
    status: str


def recreated_replay(output: Path, row: dict[str, Any]) -> Path:
    """Where a re-created replay of a stored game (its results `row`) lives.

    Everything that decides the game besides its id is in the name: the Pacman's submission
    hash and the seed as they are, the ghost team's hash and the platform that played it
    (`pacman.identity`) as a digest, so a file re-created for one version of a team, or by
    the code before an update, is never shown for a later game with the same id. It is kept
    apart from `replays/` because an entrant may well be called `recreated`.
    """
    entrant, _, rest = str(row["game_id"]).partition("@")
    cell, _, index = rest.partition("#")
    others = "|".join("" if _missing(row.get(key)) else str(row[key])
                      for key in ("ghost_hash", "version"))
    played = hashlib.sha256(others.encode("utf-8", "backslashreplace")).hexdigest()[:12]
    return Path(output, RECREATED_FOLDER, entrant, *cell.split("/"),
                f"{index}-{row['submission_hash']}-{int(row['seed'])}-{played}.json")


def replay_of(row: dict[str, Any], output: Path) -> Replay:
    """The replay to watch for one results row: the one the run wrote, else a re-created one.

    A relative path in the results is relative to the output folder (as in the report). A
    file named in the results but deleted since is `missing`, not silently `no`.
    """
    recorded = row.get("replay")
    status = "no"
    if not _missing(recorded) and str(recorded).strip():
        path = Path(str(recorded))
        path = path if path.is_absolute() else output / path
        if path.is_file():
            return Replay(path, "yes")
        status = "missing"
    if not _missing(row.get("submission_hash")) and not _missing(row.get("seed")):
        again = recreated_replay(output, row)
        if again.is_file():
            return Replay(again, "re-created")
    return Replay(None, status)


def replays_of(games: Any, output: Path) -> list[Replay]:
    """`replay_of` for every row of `games`, in row order (reads only file existence)."""
    return [replay_of(row, output) for row in games.to_dict("records")]


def pick_problem(replays: Sequence[Replay], pick: int | None) -> str | None:
    """Why `--pick` cannot open the viewer, if it cannot. `pick` counts from 1, as the table."""
    if pick is None:
        return None
    if not 1 <= pick <= len(replays):
        return (f"--pick: expected a number from the table, 1 to {len(replays)}, got {pick}"
                if replays else "--pick: no game matches the filters")
    if replays[pick - 1].file is None:
        return f"--pick: game {pick} has no replay file to watch (the table's replay column)"
    return None


def viewer_start(replays: Sequence[Replay], pick: int | None) -> tuple[list[Path], int]:
    """The files the viewer walks through (n/p) and where it starts.

    Only games with a file are passed, so n/p never stops on a game that cannot be shown;
    `pick` (a table number, already checked by `pick_problem`) becomes an index into them.
    Without `pick` the viewer starts at the first watchable game.
    """
    files = [r.file for r in replays if r.file is not None]
    if pick is None:
        return files, 0
    return files, sum(r.file is not None for r in replays[:pick - 1])


# --- table text ---------------------------------------------------------------------------------

def outcome_label(outcome: str, culprit: Any) -> str:
    """The outcome, naming the ghost when a ghost (not the entrant's Pacman) failed."""
    if outcome in FAILURES and not _missing(culprit) and int(culprit) != 0:
        return f"{outcome} (ghost {int(culprit)})"
    return outcome


def depth_label(depth: Any) -> str:
    return DEFAULT_DEPTH if _missing(depth) else str(int(depth))


def short_message(message: Any, width: int = MESSAGE_WIDTH) -> str:
    """A message on one line, cut to `width`: the table is for finding games, not reading."""
    if _missing(message):
        return ""
    text = " ".join(str(message).split())
    return text if len(text) <= width else text[:width - 3] + "..."


def _missing(value: Any) -> bool:
    return value is None or (not isinstance(value, str) and bool(pd.isna(value)))
