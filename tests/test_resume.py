"""The resume plan (`tournament.resume.plan`): pure, from the schedule and the store's hashes."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import textwrap
from pathlib import Path

from pacman.identity import platform_id
from tests.commands import TOURNAMENT
from tournament.resume import SETTINGS_META, Hashes, changed_settings, plan, platforms_words
from tournament.schedule import Cell, MatchCell, ScheduledGame
from tournament.store import StoredGame

REPO = Path(__file__).resolve().parents[1]
#: The platform the stored games of these tests were played by: this one.
P = platform_id()


def games(*ids: str) -> list[ScheduledGame]:
    cell = Cell("testClassic", 1, "RandomGhost", 1, "classic")
    return [ScheduledGame(gid, gid.partition("@")[0], cell, 0, 7) for gid in ids]


def test_each_game_is_done_missing_stale_or_to_retry() -> None:
    scheduled = games("a@x#0", "a@y#0", "b@x#0", "b@y#0", "c@x#0", "c@y#0")
    stored = {
        "a@x#0": StoredGame("ha", "", "win", 7, P),          # done
        "a@y#0": StoredGame("ha", "", "infra_error", 7, P),  # the platform failed it: again
        "b@x#0": StoredGame("old", "", "loss", 7, P),        # another submission: stale
        "c@x#0": StoredGame("hc", "", "crash", 7, P),        # the entrant's own failure: done
        "z@x#0": StoredGame("hz", "", "win", 7, P),          # no longer scheduled: not in it
        "c@y#0": StoredGame("hc", "", "win", 8, P),          # another seed: stale
    }
    split = plan(scheduled, stored, Hashes({"a": "ha", "b": "hb", "c": "hc"}, {}))
    assert [g.game_id for g in split.done] == ["a@x#0", "c@x#0"]
    assert [g.game_id for g in split.infra] == ["a@y#0"]
    assert [g.game_id for g in split.stale] == ["b@x#0", "c@y#0"]
    assert [g.game_id for g in split.missing] == ["b@y#0"]
    assert [g.game_id for g in split.todo] == ["b@y#0", "b@x#0", "c@y#0", "a@y#0"]
    assert split.total == len(scheduled)
    assert sorted(g.game_id for g in split.current) == ["a@x#0", "a@y#0", "c@x#0"]


def test_a_match_game_is_stale_when_either_side_changed() -> None:
    cell = MatchCell("testClassic", None, 2, "classic")
    scheduled = [ScheduledGame(f"{p}~{g}@{cell.key}#0", p, cell, 0, 7, ghost_entrant=g)
                 for p, g in (("a", "x"), ("a", "y"), ("b", "x"))]
    hashes = Hashes({"a": "ha", "b": "hb"}, {"x": "hx", "y": "hy", "a": "not a's Pacman"})
    stored = {
        scheduled[0].game_id: StoredGame("ha", "hx", "win", 7, P),    # both sides as they are now
        scheduled[1].game_id: StoredGame("ha", "old", "win", 7, P),   # the ghost team changed
        scheduled[2].game_id: StoredGame("old", "hx", "loss", 7, P),  # the Pacman changed
    }
    split = plan(scheduled, stored, hashes)
    assert split.done == scheduled[:1]
    assert split.stale == scheduled[1:]
    counts = split.counts()
    assert counts["x", "ghosts"] == {"done": 1, "missing": 0, "stale": 1, "infra": 0}
    assert counts["a", "pacman"] == {"done": 1, "missing": 0, "stale": 1, "infra": 0}
    assert ("a", "ghosts") not in counts  # a ghost entrant of that name played no game



def test_a_game_another_platform_played_is_stale() -> None:
    """Found by the fourteenth hostile review: the platform's identity was a release name
    that an update of the checkout kept, so games the old code played stayed counted beside
    the new code's. A game another platform played (`pacman.identity`) is stale, whatever
    its submissions, and the plan says which platforms played how many."""
    scheduled = games("a@x#0", "a@y#0", "b@x#0")
    stored = {
        "a@x#0": StoredGame("ha", "", "win", 7, P),
        "a@y#0": StoredGame("ha", "", "win", 7, "0.1.0"),
        "b@x#0": StoredGame("hb", "", "loss", 7, "0.1.0+0123456789ab"),
    }
    split = plan(scheduled, stored, Hashes({"a": "ha", "b": "hb"}, {}))
    assert [g.game_id for g in split.done] == ["a@x#0"]
    assert [g.game_id for g in split.stale] == ["a@y#0", "b@x#0"]
    assert split.other_platforms == {"0.1.0": 1, "0.1.0+0123456789ab": 1}
    assert platforms_words(split.other_platforms) == (
        f"2 stored games were played by another version of the platform (0.1.0, "
        f"0.1.0+0123456789ab) than this one ({P})")
    alone = plan(scheduled[:1], stored, Hashes({"a": "ha"}, {}))
    assert alone.other_platforms == {} and platforms_words(alone.other_platforms) is None


def one_baseline(layouts: str, ghost: str, max_moves: int, games: int) -> str:
    """A config of the greedy baseline on `layouts` against one `ghost`, into `out`."""
    return textwrap.dedent(f"""\
        name: settings
        seed: 3
        entrants:
          baselines: [{{name: greedy, agent: GreedyAgent}}]
        grid:
          layouts: {layouts}
          depths: [1]
          ghosts: [{{agent: "{ghost}", count: 1}}]
          max_moves: {max_moves}
        games_per_cell: {games}
        workers: 1
        output: out
        """)


def run_config(config: Path) -> subprocess.CompletedProcess[str]:
    """`tournament run` of `config`, in its folder."""
    return subprocess.run([*TOURNAMENT, "run", str(config)],
                          capture_output=True, text=True, timeout=300, cwd=config.parent)


def test_only_a_setting_both_sides_know_can_change() -> None:
    stored = {"max_moves": "400", "layout a": "1f", "layout b": "2e"}
    assert changed_settings(stored, {"max_moves": "400", "layout a": "1f", "layout c": "9"}) == []
    assert changed_settings(stored, {"max_moves": "5", "layout a": "00", "layout b": "2e"}) == [
        "max_moves", "layout a"]


def test_a_folder_never_mixes_games_of_other_settings(tmp_path: Path) -> None:
    """A stored game is done when its cell, submissions and seed match: the move limit, the
    agents' limits and the layout's text are not in its row. Changed under stored games, they
    would have been counted as the new settings' games; `run` refuses instead, naming them,
    and leaves the store as it was. A layout added to the grid is no change."""
    shutil.copy(REPO / "layouts" / "testClassic.lay", tmp_path / "mine.lay")
    config = tmp_path / "t.yaml"

    def write(max_moves: int, layouts: str) -> None:
        config.write_text(one_baseline(layouts, "RandomGhost", max_moves, 2))

    def run() -> subprocess.CompletedProcess[str]:
        return run_config(config)

    write(300, "[mine.lay]")
    assert run().returncode == 0
    store = tmp_path / "out" / "results.sqlite"
    before = store.read_bytes()
    write(5, "[mine.lay]")
    refused = run()
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert (f"{tmp_path / 'out' / 'results.sqlite'}: its stored games were played with other "
            "settings: max_moves (300, now 5);") in refused.stderr
    assert "Traceback" not in refused.stderr
    assert store.read_bytes() == before
    # Reading commands only read, but say so: their tables count those games as the config's.
    for command in ("status", "leaderboard"):
        shown = subprocess.run([*TOURNAMENT, command, str(config)],
                               capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert shown.returncode == 0, shown.stdout + shown.stderr
        assert ("warning: " + str(store) + ": its stored games were played with other settings: "
                "max_moves (300, now 5);") in " ".join(shown.stdout.split()), shown.stdout
    assert store.read_bytes() == before
    write(300, "[mine.lay]")
    (tmp_path / "mine.lay").write_text(
        (tmp_path / "mine.lay").read_text().replace("%. .%", "%.  %"))
    refused = run()
    assert refused.returncode == 2 and "layout mine (its file changed)" in refused.stderr
    shutil.copy(REPO / "layouts" / "testClassic.lay", tmp_path / "mine.lay")
    write(300, "[mine.lay, minimaxClassic]")
    added = run()
    assert added.returncode == 0, added.stdout + added.stderr
    assert "2 already stored" in added.stdout


def test_games_of_an_earlier_platform_are_played_again(tmp_path: Path) -> None:
    """After an update of the platform's code (a `git pull` for a rules or sandbox fix), the
    stored games of the old code are not counted: the reading commands say so, and a run
    plays them again, recording this platform."""
    config = tmp_path / "t.yaml"
    config.write_text(one_baseline("[testClassic]", "RandomGhost", 300, 2))
    assert run_config(config).returncode == 0
    store = tmp_path / "out" / "results.sqlite"
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        db.execute("UPDATE games SET version = '0.1.0'")
    shown = subprocess.run([*TOURNAMENT, "leaderboard", str(config)],
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert (f"warning: 2 stored games were played by another version of the platform (0.1.0) "
            f"than this one ({P}) (not counted here); tournament run {config} plays them "
            "again") in " ".join(shown.stdout.split()), shown.stdout
    reported = subprocess.run([*TOURNAMENT, "report", str(config)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert reported.returncode == 0, reported.stdout + reported.stderr
    assert "warning: 2 stored games were played by another version" in reported.stdout
    # Marks are never zeros "with its current files" for every team: refused, nothing written.
    (tmp_path / "wins.yaml").write_text(
        "criteria: [{name: wins, kind: wins, thresholds: [{at: 1, points: 1}]}]\n")
    marked = subprocess.run([*TOURNAMENT, "marks", str(config), "--scheme",
                             str(tmp_path / "wins.yaml")],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert marked.returncode == 2, marked.stdout + marked.stderr
    assert ("2 stored games were played by another version of the platform (0.1.0) than this "
            f"one ({P}): they count for no one until tournament run {config} plays them "
            "again; mark then") in " ".join(marked.stderr.split())
    assert not (tmp_path / "out" / "marks.csv").exists()
    again = run_config(config)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "0 already stored, 2 to play (2 stale, 0 to retry)" in again.stdout
    assert (f"2 stored games were played by another version of the platform (0.1.0) than "
            f"this one ({P}): they are played again") in " ".join(again.stdout.split())
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT DISTINCT version FROM games").fetchall() == [(P,)]


GHOST_FILE = """\
from game import Agent

class RandomGhost(Agent):
    def __init__(self, index):
        self.index = index

    def getAction(self, state):
        return state.getLegalActions(self.index)[{pick}]
"""


def test_a_grid_ghost_is_recorded_as_its_cells_name_it(tmp_path: Path) -> None:
    """A cell's key names the ghost's class only (`testClassic/d1/RandomGhost1/classic`), so
    a stored game of `gA/ghosts.py:RandomGhost` has the id of one of `gB/ghosts.py:RandomGhost`
    or of the built-in RandomGhost. The settings record is keyed the same way: another
    file's class of that name, or a file's class in place of the built-in, is a change
    `run` refuses (exit 2, nothing played); the same code from another file is none."""
    import pytest

    from tests.test_tournament_run import ACCEPT, UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    for name, pick in (("gA", 0), ("gB", -1), ("gC", 0)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "ghosts.py").write_text(GHOST_FILE.format(pick=pick))
    config = tmp_path / "t.yaml"

    def run(ghost: str) -> subprocess.CompletedProcess[str]:
        config.write_text(one_baseline("[testClassic]", ghost, 30, 1)
                          + (f"sandbox: {{accept_missing: [{ACCEPT}]}}\n" if ACCEPT else ""))
        return run_config(config)

    assert run("RandomGhost").returncode == 0
    store = tmp_path / "out" / "results.sqlite"
    before = store.read_bytes()
    refused = run("gA/ghosts.py:RandomGhost")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "ghost RandomGhost (the built-in, now a file's)" in refused.stderr
    assert store.read_bytes() == before
    shutil.rmtree(tmp_path / "out")
    assert run("gA/ghosts.py:RandomGhost").returncode == 0
    before = store.read_bytes()
    refused = run("gB/ghosts.py:RandomGhost")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "ghost RandomGhost (its file changed)" in refused.stderr
    assert store.read_bytes() == before
    # A record written before ghosts were keyed so held the file's path: read as today's.
    with contextlib.closing(sqlite3.connect(store)) as conn, conn:
        (text,), = conn.execute("SELECT value FROM meta WHERE key = ?", (SETTINGS_META,))
        record = json.loads(text)
        record[f"ghost {tmp_path / 'gA' / 'ghosts.py'}:RandomGhost"] = record.pop(
            "ghost RandomGhost")
        conn.execute("UPDATE meta SET value = ? WHERE key = ?",
                     (json.dumps(record, sort_keys=True), SETTINGS_META))
    refused = run("gB/ghosts.py:RandomGhost")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "ghost RandomGhost (its file changed)" in refused.stderr
    refused = run("RandomGhost")
    assert refused.returncode == 2 and "ghost RandomGhost (a file's, now the built-in)" in \
        refused.stderr
    same = run("gC/ghosts.py:RandomGhost")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "1 already stored" in same.stdout


def test_a_damaged_settings_record_is_an_error_naming_the_store(tmp_path: Path) -> None:
    import pytest

    from tournament.config import load_config
    from tournament.resume import SETTINGS_META, SettingsChanged, check_settings
    from tournament.store import Store

    config_file = tmp_path / "t.yaml"
    config_file.write_text("name: s\nentrants:\n  baselines: [{name: greedy, agent: GreedyAgent}]\n"
                           "grid:\n  layouts: [testClassic]\noutput: out\n")
    config = load_config(config_file)
    store = Store(tmp_path / "results.sqlite")
    check_settings(config, store, "here")  # the first run records them
    assert "max_moves" in store.meta(SETTINGS_META)  # type: ignore[operator]
    store.set_meta(SETTINGS_META, "[not a mapping")
    with pytest.raises(SettingsChanged, match=r"here: its record of the settings .* is damaged"):
        check_settings(config, store, "here")
    store.close()


def test_one_class_name_from_two_files_is_recorded_as_both(tmp_path: Path) -> None:
    """Two grid settings may name one class from two files (other counts: other cells); the
    record's key, the class name, holds both files, so an edit of either is a change."""
    from tournament.config import load_config
    from tournament.resume import changed_settings, game_settings

    for name in ("gA", "gB"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "ghosts.py").write_text(GHOST_FILE.format(pick=0))
    config = tmp_path / "t.yaml"
    config.write_text(one_baseline("[testClassic]", "gA/ghosts.py:RandomGhost", 30, 1).replace(
        'ghosts: [{agent: "gA/ghosts.py:RandomGhost", count: 1}]',
        'ghosts: [{agent: "gA/ghosts.py:RandomGhost", count: 1}, '
        '{agent: "gB/ghosts.py:RandomGhost", count: 2}]'))
    before = game_settings(load_config(config))
    for name in ("gA", "gB"):
        (tmp_path / name / "ghosts.py").write_text(GHOST_FILE.format(pick=-1))
        now = game_settings(load_config(config))
        assert changed_settings(before, now) == ["ghost RandomGhost"], name
        before = now


def test_a_layouts_digest_is_recorded_as_earlier_versions_recorded_it(tmp_path: Path) -> None:
    """The review of change 22: the settings' digests were lengthened with the teams'
    submission hashes, and every store of an earlier version was refused as played on
    "changed" layouts. They cover the organizer's own files, which no team chooses, and keep
    the form earlier versions stored: 16 digits of the file's SHA-256."""
    import hashlib

    from pacman.layout import load_layout
    from tournament.config import load_config
    from tournament.resume import game_settings

    config = tmp_path / "t.yaml"
    config.write_text(one_baseline("[testClassic]", "RandomGhost", 30, 1))
    text = load_layout("testClassic").text.encode()
    recorded = game_settings(load_config(config))
    assert recorded["layout testClassic"] == hashlib.sha256(text).hexdigest()[:16]
