"""A team whose files changed after its games were played is never silently dropped: its
games are outdated (stale), no table counts them, and `run` (at its end), `status`,
`leaderboard` and the report say so, naming the team and how many games."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.site import Page
from tests.test_matches_run import make_league
from tests.test_sandbox_zoo import UNAVAILABLE
from tests.test_tournament_run import REPO, make_tournament, tournament

pytestmark = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")

#: `tournament run` whose team file (the last argument) changes once every game is played,
#: before the run shows its results: as if the team had changed it while the run played.
CHANGED_AT_THE_END = textwrap.dedent("""\
    import sys
    import tournament.cli as cli

    show = cli.show_results
    changed = sys.argv.pop()

    def change_then_show(*args, **kwargs):
        with open(changed, "a") as fh:
            fh.write("# a new version, written while the run played\\n")
        return show(*args, **kwargs)

    cli.show_results = change_then_show
    cli.main()
    """)


def test_a_team_changed_during_the_run_is_named_at_its_end_and_everywhere_after(
        tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {"alpha": "example", "beta": "example"}, games=1,
                             layouts="[testClassic]")
    changed = tmp_path / "submissions" / "beta" / "multiAgents.py"
    ran = subprocess.run([sys.executable, "-c", CHANGED_AT_THE_END, "run", str(config),
                          str(changed)], capture_output=True, text=True, timeout=600, cwd=REPO)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ("warning: team beta's files changed during the run: its 1 game was played with "
            "the files as they were and is now outdated; run again to play the new files"
            ) in ran.stdout
    assert "alpha's files" not in ran.stdout

    for command in ("status", "leaderboard"):
        shown = tournament(command, str(config)).stdout
        assert ("warning: team beta: 1 game stored for an earlier version of its files and "
                "none for the current ones (not counted here); tournament run "
                f"{config} plays the current ones") in shown, shown
        assert "team alpha:" not in shown

    tournament("report", str(config))
    index = Page(tmp_path / "out" / "report" / "index.html")
    assert ("Games stored for an earlier version of these entrants' files, not counted here: "
            "beta (1).") in index.words()
    assert "team-beta.html" in index.links
    assert "No games yet" not in index.words()
    page = Page(tmp_path / "out" / "report" / "team-beta.html").words()
    # The command as the organizer typed it, the config's folder named as such (the report is
    # published: no organizer path in it).
    assert ("1 game is stored for an earlier version of this team's files; "
            f"tournament run <config folder>/{config.name} plays the current ones.") in page
    assert "earlier version" not in (tmp_path / "out" / "report" / "team-alpha.html").read_text()

    # Played again, nothing is outdated any more.
    again = tournament("run", str(config)).stdout
    assert "1 to play (1 stale" in again and "outdated" not in again
    assert "earlier version" not in tournament("status", str(config)).stdout
    tournament("report", str(config))
    assert "earlier version" not in (tmp_path / "out" / "report" / "index.html").read_text()


def test_a_changed_ghost_team_is_the_one_named_not_its_opponents(tmp_path: Path) -> None:
    """A match game is outdated for the side whose files changed: the ghost team, not the
    Pacman entrants that met it (their own files did not change)."""
    config = make_league(tmp_path, games=1)
    tournament("run", str(config))
    with open(tmp_path / "submissions" / "crash" / "ghosts.py", "a") as fh:
        fh.write("# a new version\n")
    shown = tournament("status", str(config)).stdout
    warnings = [line for line in shown.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: ghost team crash: 2 games stored for an earlier version of its files and "
        f"none for the current ones (not counted here); tournament run {config} plays the "
        "current ones"], shown
