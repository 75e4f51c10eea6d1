"""Head-to-head matches end to end: `tournament run` plays every Pacman entrant against every
ghost entrant (teams' ghosts sandboxed, one process per team), a ghost team's failure costs
the ghost side the game, ratings and a crosstable are written and shown, a run resumes, and
a changed ghost team makes only its games stale."""

from __future__ import annotations

import csv
import dataclasses
import shutil
import sqlite3
import textwrap
from pathlib import Path

import pytest

from pacman.outcomes import pacman_points
from tests.test_sandbox_zoo import UNAVAILABLE
from tests.test_tournament_run import ACCEPT, LIMITS, REPO, SECRET, tournament

pytestmark = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")

CRASHING_GHOST = '''\
from game import Agent


class CrashingGhost(Agent):
    """A course-style ghost that prints, then raises at its 3rd move."""

    def __init__(self, index):
        self.index = index
        self.moves = 0

    def getAction(self, state):
        self.moves += 1
        print("ghost", self.index, "move", self.moves)
        if self.moves == 3:
            raise RuntimeError("the ghost team broke")
        return state.getLegalActions(self.index)[0]
'''


def make_league(root: Path, games: int = 2) -> Path:
    """Teams `alpha` (the example team: a Pacman and a ghost) and `crash` (a ghost only),
    the baselines `greedy` (Pacman), `random` and `abg` (ghost teams)."""
    subs = root / "submissions"
    shutil.copytree(REPO / "submissions" / "example-team", subs / "alpha")
    (subs / "crash").mkdir(parents=True)
    (subs / "crash" / "ghosts.py").write_text(CRASHING_GHOST)
    (subs / "crash" / "team.yaml").write_text("name: Crash\nghost: ghosts.py:CrashingGhost\n")
    (root / "cup.secret").write_text(SECRET)
    config = root / "league.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: Test league
        seed: 5
        secret_file: cup.secret
        sandbox: {{accept_missing: [{ACCEPT}]}}
        entrants:
          submissions: submissions
          baselines:
            - {{name: greedy, agent: GreedyAgent}}
          ghost_baselines:
            - {{name: random, agent: RandomGhost}}
            - {{name: abg, agent: AlphaBetaGhost, args: {{depth: 1}}}}
        grid:
          layouts: [smallClassic]
          ghosts: []
          max_moves: 200
        matches:
          games: {games}
          anchor: random
        limits: {LIMITS}
        workers: 2
        output: out
        record: {{replays: failures}}
        """))
    return config


def games_of(config: Path) -> list[dict[str, object]]:
    with sqlite3.connect(config.parent / "out" / "results.sqlite") as conn:
        conn.row_factory = sqlite3.Row
        found = [dict(r) for r in conn.execute("SELECT * FROM games ORDER BY game_id")]
    conn.close()
    return found


def test_a_league_is_played_rated_and_resumed(tmp_path: Path) -> None:
    config = make_league(tmp_path)
    out = tournament("run", str(config)).stdout
    games = games_of(config)
    # Every Pacman entrant (alpha, greedy) met every ghost entrant (alpha, crash, random, abg),
    # but a team never meets itself (its ghosts could throw games to its own Pacman).
    pairs = {(g["entrant"], g["ghost_entrant"]) for g in games}
    assert pairs == {(p, g) for p in ("alpha", "greedy") for g in ("alpha", "crash", "random",
                                                                    "abg")} - {("alpha", "alpha")}
    assert len(games) == 7 * 2
    assert all(g["game_id"] == f"{g['entrant']}~{g['ghost_entrant']}@{g['cell']}#"
                               f"{g['game_index']}" for g in games)
    # Common seeds: every pairing plays the same seeds in the cell.
    assert len({(g["game_index"], g["seed"]) for g in games}) == 2
    # The crashing ghost team forfeits each game: its ghost is the culprit, Pacman gets it.
    crashed = [g for g in games if g["ghost_entrant"] == "crash"]
    assert {(g["outcome"], g["culprit"] is not None and g["culprit"] >= 1) for g in crashed} == {
        ("crash", True)}
    assert all(pacman_points(str(g["outcome"]), g["culprit"]) == 1.0  # type: ignore[arg-type]
               for g in crashed)
    assert all("the ghost team broke" in str(g["message"]) for g in crashed)
    # Its replay names both sides as the tournament does: entrant (class), never a path.
    import json
    kept = json.loads(Path(str(crashed[0]["replay"])).read_text())
    pacman_name = f"{crashed[0]['entrant']} ("
    assert kept["agents"][0].startswith(pacman_name), kept["agents"]
    assert set(kept["agents"][1:]) == {"crash (CrashingGhost)"}, kept["agents"]
    # The team's ghosts played sandboxed; both hashes are stored for resuming.
    team = [g for g in games if g["ghost_entrant"] == "alpha"]
    assert team and all(g["ghost_hash"] for g in team)
    # What the ghost team printed is kept in a log of its own beside the game's replay.
    logs = list((tmp_path / "out" / "logs").rglob("*.ghosts.log"))
    assert logs and "ghost 1 move 1" in logs[0].read_text()

    # Ratings and crosstable: written, shown, anchored at random.
    assert "ratings (Elo, random (ghosts) = 0" in " ".join(out.split())
    with open(tmp_path / "out" / "ratings.csv", newline="") as fh:
        ratings = {(r["entrant"], r["side"]): r for r in csv.DictReader(fh)}
    assert set(ratings) == {("alpha", "pacman"), ("greedy", "pacman"), ("alpha", "ghosts"),
                            ("crash", "ghosts"), ("random", "ghosts"), ("abg", "ghosts")}
    assert float(ratings["random", "ghosts"]["rating"]) == 0.0
    # A team that forfeits every game rates below the ghost teams that played.
    assert float(ratings["crash", "ghosts"]["rating"]) < float(ratings["abg", "ghosts"]["rating"])
    with open(tmp_path / "out" / "crosstable.csv", newline="") as fh:
        cross = {(r["entrant"], r["ghost_entrant"]): r for r in csv.DictReader(fh)}
    assert float(cross["greedy", "crash"]["points_rate"]) == 1.0

    # A second run plays nothing; the report shows ratings and the crosstable.
    again = tournament("run", str(config)).stdout
    assert "0 to play" in again
    tournament("report", str(config))
    page = (tmp_path / "out" / "report" / "index.html").read_text()
    assert "Ratings" in page and "Crosstable" in page

    # A changed ghost team: only the games it played are stale.
    with open(tmp_path / "submissions" / "crash" / "ghosts.py", "a") as fh:
        fh.write("\n# a new version\n")
    out = tournament("run", str(config)).stdout
    assert f"{len(crashed)} to play ({len(crashed)} stale" in out


def test_a_config_with_matches_but_no_ghost_entrant_exits_2_before_any_game(
        tmp_path: Path) -> None:
    config = make_league(tmp_path)
    dropped = ("ghost_baselines", "RandomGhost", "AlphaBetaGhost", "anchor")
    config.write_text("".join(line for line in config.read_text().splitlines(True)
                              if not any(word in line for word in dropped)))
    shutil.rmtree(tmp_path / "submissions" / "crash")
    (tmp_path / "submissions" / "alpha" / "team.yaml").write_text(
        "agent: multiAgents.py:ExampleExpectimaxAgent\n")
    result = tournament("run", str(config), check=False)
    assert result.returncode == 2
    assert "matches" in result.stderr + result.stdout
    assert not (tmp_path / "out" / "results.sqlite").exists()


def test_a_game_neither_side_can_load_counts_for_nobody(tmp_path: Path) -> None:
    from pacman.layout import PROJECT_LAYOUTS
    from pacman.limits import Limits
    from pacman.loader import AgentRef
    from tournament.runner import GameTask, play_task
    from tournament.schedule import MatchCell, ScheduledGame

    cell = MatchCell("testClassic", None, 1, "classic")
    game = ScheduledGame(f"p~g@{cell.key}#0", "p", cell, 0, 1, ghost_entrant="g")
    task = GameTask(game=game, pacman=None, problem="no agent.py", ghost=AgentRef("g", ""),
                    args=(), submission_hash="hp", layout_name="testClassic",
                    layout_text=(PROJECT_LAYOUTS / "testClassic.lay").read_text(),
                    max_moves=10, limits=Limits(), replays="none",
                    ghost_entrant="g", ghost_hash="hg", ghost_problem="no ghosts.py")
    row = play_task(task).row
    assert (row["outcome"], row["culprit"]) == ("load_error", None)
    assert "no agent.py" in row["message"] and "no ghosts.py" in row["message"]
    assert pacman_points(row["outcome"], row["culprit"]) is None  # no side gains
    # One side alone failing costs that side the game.
    only_ghosts = play_task(dataclasses.replace(task, pacman=AgentRef("GreedyAgent",
                                                                      "pacman.agents.simple",
                                                                      builtin=True))).row
    assert (only_ghosts["outcome"], only_ghosts["culprit"]) == ("load_error", 1)
    assert pacman_points(only_ghosts["outcome"], only_ghosts["culprit"]) == 1.0
