"""One team folder never stops a tournament: whatever its content (an agent that does not
compile and no team.yaml, nothing to play, a name that cannot be an entrant's, files that
cannot be read, a folder that vanishes between reading the config and playing), `validate`,
`run`, `status`, `leaderboard` and `report` go on, and that team's games are its own
`load_error` (culprit 0 for a Pacman, a ghost index for a ghost team)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.commands import TOURNAMENT
from tests.test_matches_run import make_league
from tests.test_sandbox_zoo import UNAVAILABLE
from tests.test_tournament_run import REPO, make_tournament, tournament, validate_then_run_naming
from tournament.config import load_config, team_entrant_name

pytestmark = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")


def outcomes(config: Path) -> dict[str, list[tuple[str, int | None, str]]]:
    """entrant -> [(outcome, culprit, message)] of its stored games (Pacman side)."""
    found: dict[str, list[tuple[str, int | None, str]]] = {}
    with sqlite3.connect(config.parent / "out" / "results.sqlite") as conn:
        for entrant, outcome, culprit, message in conn.execute(
                "SELECT entrant, outcome, culprit, message FROM games ORDER BY game_id"):
            found.setdefault(entrant, []).append((outcome, culprit, message))
    return found


def test_team_folders_that_hold_no_playable_team_lose_their_games_and_the_others_play(
        tmp_path: Path) -> None:
    """The review's case (a multiAgents.py with a syntax error and no team.yaml) and folders
    with nothing to play: each is its team's load_error in `run`, FAILED in `validate`, and
    `status`, `leaderboard` and `report` work."""
    config = make_tournament(tmp_path, {"alpha": "example"}, games=1, layouts="[testClassic]")
    subs = tmp_path / "submissions"
    (subs / "syntax").mkdir()
    (subs / "syntax" / "multiAgents.py").write_text("class BrokenAgent(:\n    pass\n")
    (subs / "notes").mkdir()
    (subs / "notes" / "README.txt").write_text("our agent is coming\n")
    (subs / "empty").mkdir()
    broken = {
        "syntax": f"{subs / 'syntax'}: cannot tell which agent to play",
        "notes": f"{subs / 'notes'}: no team.yaml and no *gents.py or submission.py",
        "empty": f"{subs / 'empty'}: no team.yaml and no *gents.py or submission.py",
    }

    kinds = {"syntax": "syntax_error", "notes": "no_agent_file", "empty": "no_agent_file"}
    validate_then_run_naming(config, broken, kinds)
    found = outcomes(config)
    for name, problem in broken.items():
        assert [(o, c) for o, c, _ in found[name]] == [("load_error", 0)]
        assert found[name][0][2].startswith(problem)
    assert found["alpha"][0][0] in ("win", "loss", "move_limit")
    assert found["greedy"][0][0] in ("win", "loss", "move_limit")
    for command in ("status", "leaderboard", "report"):
        shown = tournament(command, str(config))
        assert "syntax" in shown.stdout or command == "report", shown.stdout


def test_a_folder_name_that_cannot_be_an_entrants_plays_under_a_name_made_from_it(
        tmp_path: Path) -> None:
    """A space, an accent or a terminal escape in a folder's name: the team plays, under a
    name that fits game ids and file names, and the escape never reaches the terminal."""
    config = make_tournament(tmp_path, {"alpha": "example"}, games=1, layouts="[testClassic]")
    subs = tmp_path / "submissions"
    odd = ["José García", "red\x1b[31mteam"]
    for name in odd:
        shutil.copytree(REPO / "submissions" / "example-team", subs / name)
    names = [team_entrant_name(n) for n in odd]
    assert names[0].startswith("Jos__Garc_a-") and names[1].startswith("red__31mteam-")
    assert {e.name: e.folder for e in load_config(config).entrants if e.kind == "team"} == {
        "alpha": subs / "alpha", names[0]: subs / odd[0], names[1]: subs / odd[1]}

    ran = tournament("run", str(config))
    assert "\x1b" not in ran.stdout + ran.stderr
    assert f"warning: the team folder 'José García' plays as {names[0]}" in ran.stdout
    found = outcomes(config)
    for name in names:
        assert found[name][0][0] in ("win", "loss", "move_limit")
    checked = tournament("validate", str(config))  # another process, the same names
    assert "\x1b" not in checked.stdout + checked.stderr
    assert f"{names[1]}: ok, sandboxed" in checked.stdout

    # A folder named as a baseline of its side (the config's `greedy`): it plays too, under
    # a name of its own, and the baseline keeps its games.
    shutil.copytree(REPO / "submissions" / "example-team", subs / "greedy")
    clash = team_entrant_name("greedy", {"greedy"})
    again = tournament("run", str(config))
    assert f"warning: the team folder 'greedy' plays as {clash}: a baseline of its side has " \
           "that name" in again.stdout
    after = outcomes(config)
    assert after[clash][0][0] in ("win", "loss", "move_limit")
    assert after["greedy"] == found["greedy"]


@pytest.mark.skipif(shutil.which("setpriv") is None and os.geteuid() == 0,
                    reason="root reads any file; setpriv is needed to drop that power")
def test_a_team_folder_that_cannot_be_read_is_that_teams_load_error(tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {"alpha": "example"}, games=1, layouts="[testClassic]")
    locked = tmp_path / "submissions" / "locked"
    shutil.copytree(REPO / "submissions" / "example-team", locked)
    locked.chmod(0)
    # Root reads anything: the command runs without the capabilities that let it.
    drop = (["setpriv", "--inh-caps=-dac_override,-dac_read_search",
             "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else [])
    try:
        for command in ("run", "status", "leaderboard"):
            result = subprocess.run([*drop, *TOURNAMENT, command,
                                     str(config)], capture_output=True, text=True,
                                    timeout=600, cwd=REPO)
            assert result.returncode == 0, result.stdout + result.stderr
            assert "Traceback" not in result.stderr
        assert f"warning: team locked cannot play, so its games are recorded as its " \
               f"load_error: {locked}: cannot be read: Permission denied" in \
               subprocess.run([*drop, *TOURNAMENT, "run", str(config)],
                              capture_output=True, text=True, timeout=600, cwd=REPO).stdout
    finally:
        locked.chmod(0o755)
    found = outcomes(config)
    assert [(o, c) for o, c, _ in found["locked"]] == [("load_error", 0)]
    assert found["alpha"][0][0] in ("win", "loss", "move_limit")


#: `tournament` with a config whose given team folder is removed right after the config was
#: read: the folder vanishes between reading the config and playing.
VANISHING = textwrap.dedent("""\
    import shutil, sys
    import tournament.cli as cli

    read = cli.load_config
    folder = sys.argv.pop()

    def load_then_remove(path):
        config = read(path)
        shutil.rmtree(folder)
        return config

    cli.load_config = load_then_remove
    cli.main()
    """)


def test_a_team_folder_that_vanishes_after_the_config_was_read_is_its_load_error(
        tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {"alpha": "example", "gone": "example"}, games=1,
                             layouts="[testClassic]")
    gone = tmp_path / "submissions" / "gone"
    result = subprocess.run([sys.executable, "-c", VANISHING, "run", str(config), str(gone)],
                            capture_output=True, text=True, timeout=600, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not gone.exists()
    found = outcomes(config)
    assert [(o, c) for o, c, _ in found["gone"]] == [("load_error", 0)]
    assert str(gone) in found["gone"][0][2]
    assert found["alpha"][0][0] in ("win", "loss", "move_limit")


def test_a_ghost_team_folder_that_vanishes_forfeits_its_games_as_the_ghost_side(
        tmp_path: Path) -> None:
    config = make_league(tmp_path, games=1)
    gone = tmp_path / "submissions" / "crash"  # a ghost-only team
    result = subprocess.run([sys.executable, "-c", VANISHING, "run", str(config), str(gone)],
                            capture_output=True, text=True, timeout=600, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as conn:
        games = list(conn.execute("SELECT entrant, outcome, culprit FROM games "
                                  "WHERE ghost_entrant = 'crash'"))
        others = list(conn.execute("SELECT outcome FROM games WHERE ghost_entrant != 'crash'"))
    assert games and {(o, c) for _, o, c in games} == {("load_error", 1)}
    assert others and "load_error" not in {o for (o,) in others}
