"""A collected folder is a tournament's submissions: `tournament validate` loads every
collected team (a bare course file without team.yaml, a team with its team.yaml) in its
sandbox, and a short `tournament run` plays them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.collect_helpers import agent, make_zip, write
from tests.test_tournament_run import ACCEPT, SECRET, UNAVAILABLE, tournament
from tournament.collect import collect

pytestmark = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")


def test_validate_and_run_on_a_collected_folder(tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    make_zip(uploads.mkdir() or uploads / "alpha.zip",
             {"alpha/multiAgents.py": agent("alpha"), "__MACOSX/alpha/._multiAgents.py": b"\0"})
    write(uploads / "beta" / "team.yaml", b"name: Beta\nagent: my.py:TestAgent\n")
    write(uploads / "beta" / "my.py", agent("beta"))
    result = collect([uploads], tmp_path / "teams")
    assert result.new == ["alpha", "beta"]
    (tmp_path / "cup.secret").write_text(SECRET)
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: Collected cup
        seed: 3
        secret_file: cup.secret
        sandbox: {{accept_missing: [{ACCEPT}]}}
        entrants:
          submissions: teams
        grid:
          layouts: [testClassic]
          depths: [1]
          ghosts: [{{agent: RandomGhost, count: 1}}]
          max_moves: 100
        games_per_cell: 1
        workers: 1
        output: out
        """))
    checked = tournament("validate", str(config))
    assert "alpha: ok, sandboxed" in checked.stdout
    assert "beta: ok, sandboxed" in checked.stdout
    ran = tournament("run", str(config))
    assert "Traceback" not in ran.stdout + ran.stderr
    board = (tmp_path / "out" / "leaderboard.csv").read_text()
    assert "alpha" in board and "beta" in board


def test_games_after_the_deadline_are_on_seeds_no_earlier_run_played(tmp_path: Path) -> None:
    """Found by the seventh hostile review: results are published every night until the
    deadline, and a game's draws follow from its seed, the secret and the team's files. A team
    could submit versions differing by a comment, watch a fresh draw each night, then submit
    again the bytes of its luckiest version and get those games back for its marks. Once the
    submissions are collected after their deadline, the games are played on seeds of their
    own: every game is played again, on draws no one was shown."""
    import datetime as dt
    import sqlite3

    from tournament.config import load_config

    uploads = tmp_path / "uploads"
    write(uploads / "alpha" / "multiAgents.py", agent("alpha"))
    (tmp_path / "cup.secret").write_text(SECRET)
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: Final cup
        seed: 3
        secret_file: cup.secret
        sandbox: {{accept_missing: [{ACCEPT}]}}
        entrants:
          submissions: teams
          agent: TestAgent
        grid:
          layouts: [testClassic]
          depths: [1]
          ghosts: [{{agent: RandomGhost, count: 1}}]
          max_moves: 100
        games_per_cell: 2
        workers: 1
        output: out
        """))
    now = dt.datetime.now(dt.timezone.utc)
    deadline = now + dt.timedelta(days=1)

    def night(clock: dt.datetime, until: dt.datetime = deadline) -> dict[str, tuple[int, str]]:
        """Collect as of `clock`, run; each game's (seed, submission hash)."""
        collect([uploads], tmp_path / "teams", deadline=until, clock=lambda: clock)
        tournament("run", str(config))
        with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
            return {gid: (seed, sub) for gid, seed, sub in db.execute(
                "SELECT game_id, seed, submission_hash FROM games")}

    before = night(now)
    assert load_config(config).seed_epoch == ""
    after = night(now + dt.timedelta(days=2))
    assert load_config(config).seed_epoch == deadline.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert set(after) == set(before)
    for gid, (seed, submission) in after.items():
        assert submission == before[gid][1]  # the same files...
        assert seed != before[gid][0]  # ...on another game
    # A deadline moved later gives seeds of its own again once it has passed too.
    later = deadline + dt.timedelta(days=3)
    extended = night(now + dt.timedelta(days=5), later)
    assert {gid: s for gid, (s, _) in extended.items()}.keys() == set(before)
    assert all(s not in (before[g][0], after[g][0]) for g, (s, _) in extended.items())
