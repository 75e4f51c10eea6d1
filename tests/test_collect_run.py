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
