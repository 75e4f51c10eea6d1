"""The organizer's whole loop, as cron runs it: `tournaments/nightly.sh` collects a Canvas
export (two students of one team, a late upload, a bare course file, a file that does not
compile, a hostile archive), validates, runs, reports and marks; run again on the same export
it plays nothing; after a new upload only that team's games are played again."""

from __future__ import annotations

import csv
import fcntl
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.collect_helpers import everything_under, make_zip, when, zip_bytes
from tests.test_tournament_run import ACCEPT, REPO, SECRET, UNAVAILABLE

pytestmark = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")

SCRIPT = REPO / "tournaments" / "nightly.sh"
#: A course-style multiAgents.py (several agent classes, util.lookup for evalFn, `better`).
COURSE_FILE = (REPO / "tests" / "agents" / "multiAgents.py").read_bytes()


def course_file(tag: str) -> bytes:
    """The course file with a comment of its own, so that each upload has its own bytes."""
    return f"# {tag}\n".encode() + COURSE_FILE


def canvas_export(path: Path, extra: dict[str, tuple[bytes, str]] | None = None) -> Path:
    """Canvas's "Download submissions" zip: flat `<name>[_LATE]_<user id>_<submission id>_<file>`
    names, each dated when it was uploaded."""
    uploads: dict[str, tuple[bytes, str]] = {
        "lovelaceada_101_9001_multiAgents.py": (course_file("ada"), "2024-03-01 09:00"),
        "hoppergrace_102_9005_multiAgents.py": (course_file("grace"), "2024-03-01 10:00"),
        "turingalan_103_9002_multiAgents.py": (course_file("alan"), "2024-03-01 08:00"),
        "turingalan_LATE_103_9010_multiAgents.py": (course_file("alan late"),
                                                    "2024-03-02 08:00"),
        "rokenbob_104_9003_multiAgents.py": (b"def broken(:\n", "2024-03-01 08:30"),
        "malmallory_105_9004_submission.zip": (
            zip_bytes(path.parent, {"../../escaped.py": b"print('out')\n"}), "2024-03-01 07:00"),
        **(extra or {}),
    }
    make_zip(path, {name: data for name, (data, _) in uploads.items()},
             times={name: when(moment) for name, (_, moment) in uploads.items()})
    return path


def course(root: Path) -> dict[str, str]:
    """The organizer's folder: the export, the mapping, the config, the scheme; the settings
    nightly.sh reads from the environment."""
    (root / "exports").mkdir(parents=True)
    canvas_export(root / "exports" / "canvas.zip")
    (root / "teams.csv").write_text(textwrap.dedent("""\
        student,team,name
        101,rocket,Ada Lovelace
        102,rocket,Grace Hopper
        103,alan,Alan Turing
        104,broken,Bob Roken
        105,mallory,Mallory Malory
        """))
    (root / "course.secret").write_text(SECRET)
    (root / "course.yaml").write_text(textwrap.dedent(f"""\
        name: Nightly course
        seed: 11
        secret_file: course.secret
        sandbox: {{accept_missing: [{ACCEPT}]}}
        entrants:
          submissions: submissions
          agent: MinimaxAgent          # what a bare multiAgents.py plays
          args: {{evalFn: better}}
        grid:
          layouts: [testClassic]
          depths: [1]
          ghosts: [{{agent: RandomGhost, count: 1}}]
          max_moves: 100
        games_per_cell: 3
        workers: 2
        limits: {{startup: 60, move_soft: 10, move_hard: 30}}
        output: out
        record: {{replays: all}}
        """))
    (root / "marks.yaml").write_text(textwrap.dedent("""\
        name: Nightly marks
        criteria:
          - name: loads
            kind: no_failures
            points: 1
          - name: wins
            kind: wins
            thresholds: [{at: 1, points: 1}, {at: 3, points: 2}]
        late: {per: day, fraction: 0.1}
        """))
    wrapper = root / "tournament-command"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tournament "$@"\n')
    wrapper.chmod(0o755)
    return {"SOURCES": "exports/canvas.zip", "INTO": "submissions",
            "COLLECT_OPTIONS": "--mapping teams.csv --deadline 2024-03-01T12:00:00Z",
            "TOURNAMENT": str(wrapper)}


def nightly(root: Path, settings: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **settings, "CONFIG": "course.yaml", "SCHEME": "marks.yaml"}
    return subprocess.run(["sh", str(SCRIPT)], cwd=root, env=env, capture_output=True,
                          text=True, timeout=900)


def games(root: Path) -> dict[str, tuple[int, str]]:
    """Every stored game: id -> (its run, its outcome)."""
    with sqlite3.connect(root / "out" / "results.sqlite") as db:
        return {gid: (run, outcome) for gid, run, outcome in
                db.execute("SELECT game_id, run_id, outcome FROM games")}


def marks(root: Path) -> list[dict[str, str]]:
    with open(root / "out" / "marks.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_nightly_loop_collects_plays_publishes_and_marks(tmp_path: Path) -> None:
    root = tmp_path / "course"
    settings = course(root)
    first = nightly(root, settings)
    assert first.returncode == 0, first.stdout + first.stderr
    steps = [line.split(": ", 1)[1] for line in first.stdout.splitlines()
             if line.startswith("== ") and " UTC: " in line]
    assert [s.split()[0] for s in steps] == ["collect", "validate", "run", "report", "marks",
                                             "done"]
    # Collected: one team of two students (Grace's newer upload), the bare file of Alan (his
    # late one set aside), the broken file; the hostile archive refused, nothing outside.
    subs = root / "submissions"
    assert sorted(p.name for p in subs.iterdir() if not p.name.startswith(".")) == [
        "alan", "broken", "manifest.csv", "manifest.json", "rocket"]
    assert (subs / "rocket" / "multiAgents.py").read_bytes() == course_file("grace")
    assert (subs / "alan" / "multiAgents.py").read_bytes() == course_file("alan")
    assert not (tmp_path / "escaped.py").exists()
    assert not any(name.endswith("escaped.py") for name in everything_under(tmp_path))
    manifest = json.loads((subs / "manifest.json").read_text())
    rocket = next(t for t in manifest["teams"] if t["team"] == "rocket")
    assert [m["id"] for m in rocket["members"]] == ["101", "102"]
    statuses = {(e["team"], e["status"]) for e in manifest["entries"]}
    assert {("alan", "late"), ("rocket", "superseded"), ("mallory", "refused")} <= statuses

    # Validated: the broken file is named with its line; it still played (and lost) its games.
    with open(root / "out" / "validation.csv", newline="", encoding="utf-8") as fh:
        checked = {row["entrant"]: row for row in csv.DictReader(fh)}
    assert checked["broken"]["kind"] == "syntax_error"
    assert checked["broken"]["where"] == "multiAgents.py:1"
    assert checked["rocket"]["status"] == checked["alan"]["status"] == "ok"
    played = games(root)
    assert len(played) == 9 and {run for run, _ in played.values()} == {1}
    assert {o for g, (_, o) in played.items() if g.startswith("broken@")} == {"load_error"}

    # Published: the team page says where its games come from and when its files changed.
    report = root / "out" / "report"
    page = (report / "team-rocket.html").read_text()
    assert "run 1" in page and "Files and runs" in page
    assert (report / "validation.html").is_file()
    # The broken team's games have nothing to watch, and its page says why in those words.
    assert "nothing to watch: the agent never loaded" in (report / "team-broken.html").read_text()
    assert str(tmp_path) not in page

    # Marked: a row per student through the mapping; the broken team gets 0 with a reason.
    rows = {row["student_id"]: row for row in marks(root)}
    assert set(rows) == {"101", "102", "103", "104", "105"}
    assert rows["101"]["mark"] == rows["102"]["mark"]
    assert float(rows["104"]["mark"]) == 0 and "load" in rows["104"]["reason"]
    # Mallory's only submission was refused: a row all the same, saying why.
    assert float(rows["105"]["mark"]) == 0 and rows["105"]["reason"].startswith(
        "no submission collected: refused: ") and "leaves the folder" in rows["105"]["reason"]

    # The same export again: nothing collected anew, nothing played, the same marks.
    before = marks(root)
    second = nightly(root, settings)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "9 games; 9 already stored, 0 to play" in second.stdout
    assert games(root) == played
    assert marks(root) == before

    # Alan uploads again before the deadline: only his games are played again, as run 3.
    canvas_export(root / "exports" / "canvas.zip", extra={
        "turingalan_103_9008_multiAgents.py": (course_file("alan again"), "2024-03-01 11:00")})
    third = nightly(root, settings)
    after = games(root)
    assert {g for g in after if after[g][0] == 3} == {g for g in after if g.startswith("alan@")}
    assert all(after[g] == played[g] for g in after if not g.startswith("alan@"))
    assert (subs / "alan" / "multiAgents.py").read_bytes() == course_file("alan again")
    # The deadline (2024) has passed and Alan's files changed after seed 11's draws were out:
    # the marks are refused (a team that can still hand in could re-roll), the rest is done.
    assert third.returncode == 2, third.stdout + third.stderr
    assert "== marks exited 2" in third.stdout
    assert "team alan's files changed on" in third.stderr and "COLLECT=no" in third.stderr

    # The way to marks (docs/marks.md): freeze the submissions, change the seed; every game
    # is played again on draws no one has seen, and the marks are written.
    (root / "course.yaml").write_text(
        (root / "course.yaml").read_text().replace("seed: 11", "seed: 12"))
    (root / "out" / "marks.csv").unlink()
    fourth = nightly(root, {**settings, "COLLECT": "no"})
    assert fourth.returncode == 0, fourth.stdout + fourth.stderr
    assert {run for run, _ in games(root).values()} == {4}
    assert {row["student_id"] for row in marks(root)} == {"101", "102", "103", "104", "105"}


def test_by_default_every_export_and_list_in_exports_is_a_source(tmp_path: Path) -> None:
    """The README's course folder: exports/ holds the LMS's zip and a repository list. Read as
    one source, exports/ was a plain folder whose entry canvas.zip was one team's upload (the
    whole class's files, or refused) and repos.csv a refusal; by default each is a source."""
    root = tmp_path / "course"
    settings = course(root)
    del settings["SOURCES"]
    (root / "exports" / "repos.csv").write_text("team,url,ref,members\n")
    # Only the collect step matters here: the others are stood in for by `true`.
    stand_in = root / "collect-only"
    stand_in.write_text(f'#!/bin/sh\n[ "$1" = collect ] || exit 0\n'
                        f'exec "{sys.executable}" -m tournament "$@"\n')
    stand_in.chmod(0o755)
    result = nightly(root, {**settings, "TOURNAMENT": str(stand_in)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in (root / "submissions").iterdir()
                  if not p.name.startswith(".")) == [
        "alan", "broken", "manifest.csv", "manifest.json", "rocket"]


def test_a_bad_setting_stops_the_loop_at_its_step(tmp_path: Path) -> None:
    root = tmp_path / "course"
    settings = course(root)
    settings["COLLECT_OPTIONS"] = "--mapping teams.csv --deadline tomorrow"
    result = nightly(root, settings)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "== collect exited 2" in result.stdout and "--deadline" in result.stderr
    assert "validate" not in result.stdout.split("== collect exited 2")[1]
    assert not (root / "out").exists()


def test_a_second_loop_in_the_same_folder_stops_at_once(tmp_path: Path) -> None:
    root = tmp_path / "course"
    settings = course(root)
    with open(root / ".nightly.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # yesterday's loop, still running
        result = nightly(root, settings)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "another nightly loop runs" in result.stderr
    assert not (root / "submissions").exists() and not (root / "out").exists()


def test_frozen_submissions_are_not_collected(tmp_path: Path) -> None:
    """COLLECT=no, for the marks' final seed (docs/marks.md): the loop plays, reports and
    marks the folder as it is, and never runs collect, so no team can change its files."""
    root = tmp_path / "course"
    settings = course(root)
    calls = root / "calls"
    stand_in = root / "record-only"
    stand_in.write_text(f'#!/bin/sh\necho "$1" >> "{calls}"\n')
    stand_in.chmod(0o755)
    result = nightly(root, {**settings, "TOURNAMENT": str(stand_in), "COLLECT": "no"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "collect skipped (COLLECT=no)" in result.stdout
    assert calls.read_text().split() == ["validate", "run", "report", "marks"]
