"""Team snapshots (`tournament.bundles`): what a run hashes is what it plays, on any machine."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pacman.teamfolder import TeamFolderError, team_digest
from tournament.bundles import Bundle, TeamCache

REPO = Path(__file__).parent.parent


def team(root: Path) -> Path:
    folder = root / "alpha"
    shutil.copytree(REPO / "submissions" / "example-team", folder)
    (folder / "__pycache__").mkdir(exist_ok=True)
    (folder / "__pycache__" / "junk.pyc").write_bytes(b"not code")
    (folder / "data").mkdir()
    (folder / "data" / "weights.txt").write_text("1 2 3\n")
    return folder


def test_a_snapshot_is_the_team_under_its_digest_and_travels_as_bytes(tmp_path: Path) -> None:
    folder = team(tmp_path)
    cache = TeamCache(tmp_path / "organizer")
    snapshot = cache.snapshot(folder)
    digest = team_digest(folder)
    assert snapshot == f"{digest}/alpha"  # the very digest the run's hash is made of
    copy = cache.folder(snapshot)
    assert copy.name == "alpha" and team_digest(copy) == digest  # __pycache__ included
    bundle = cache.pack(snapshot)
    assert {rel for rel, _ in bundle.files} >= {"alpha/data/weights.txt",
                                                "alpha/__pycache__/junk.pyc"}
    # On another machine: unpacked into a cache of its own, checked, then the same team.
    worker = TeamCache(tmp_path / "worker")
    unpacked = worker.unpack(bundle)
    assert unpacked.name == "alpha" and team_digest(unpacked) == digest
    assert worker.unpack(bundle) == unpacked  # already there: kept as it is
    # The team changes its folder afterwards: the snapshot does not.
    (folder / "data" / "weights.txt").write_text("changed\n")
    assert team_digest(cache.folder(snapshot)) == digest
    assert cache.snapshot(folder) != snapshot


def test_a_snapshot_damaged_in_a_workers_cache_is_unpacked_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's cache lives across runs: a snapshot damaged on disk there is found by the
    next worker process that is sent it, and replaced, rather than failing every game of
    its team on that worker, run after run (found by this change's review)."""
    from tournament import bundles

    folder = team(tmp_path)
    cache = TeamCache(tmp_path / "organizer")
    bundle = cache.pack(cache.snapshot(folder))
    worker = TeamCache(tmp_path / "worker")
    weights = worker.unpack(bundle) / "data" / "weights.txt"
    weights.chmod(0o644)
    weights.write_text("damaged\n")
    monkeypatch.setattr(bundles, "_CHECKED", set())  # the next worker process
    unpacked = worker.unpack(bundle)
    assert (unpacked / "data" / "weights.txt").read_text() == "1 2 3\n"
    assert team_digest(unpacked) == bundle.id.partition("/")[0]
    (unpacked / "data" / "weights.txt").unlink()  # gone: the same
    monkeypatch.setattr(bundles, "_CHECKED", set())
    assert (worker.unpack(bundle) / "data" / "weights.txt").read_text() == "1 2 3\n"


def test_a_bundle_whose_files_are_not_its_digest_is_refused(tmp_path: Path) -> None:
    cache = TeamCache(tmp_path / "organizer")
    bundle = cache.pack(cache.snapshot(team(tmp_path)))
    worker = TeamCache(tmp_path / "worker")
    altered = Bundle(bundle.id, (*bundle.files[:-1], (bundle.files[-1][0], b"evil")))
    with pytest.raises(ValueError, match="its files hash to"):
        worker.unpack(altered)
    for bad in ("../escape.py", "/etc/passwd", "alpha/../../x.py", "lonely.py",
                "beta/agent.py"):
        with pytest.raises(ValueError, match="refused path"):
            worker.unpack(Bundle(bundle.id, ((bad, b"x"),)))
    digest = bundle.id.partition("/")[0]
    for bad_id in ("../../tmp", f"{digest}/..", f"{digest}/a/b", f"{digest}/"):
        with pytest.raises(ValueError, match="not a snapshot id"):
            worker.unpack(Bundle(bad_id, bundle.files))
    assert not worker.has(bundle.id) and os.listdir(worker.root) == []  # nothing kept
    assert not (tmp_path / "escape.py").exists()


def test_a_folder_that_is_no_team_folder_is_its_own_problem(tmp_path: Path) -> None:
    folder = team(tmp_path)
    (folder / "link.py").symlink_to("/etc/passwd")
    cache = TeamCache(tmp_path / "cache")
    with pytest.raises(TeamFolderError, match="symbolic link"):
        cache.snapshot(folder)
    assert [p.name for p in cache.root.iterdir()] == []  # no partial snapshot left


def test_a_baseline_file_travels_alone(tmp_path: Path) -> None:
    cache = TeamCache(tmp_path / "cache")
    (tmp_path / "staff").mkdir()
    (tmp_path / "staff" / "staff.py").write_text("class Staff: pass\n")
    (tmp_path / "staff" / "secret-notes.txt").write_text("not for the workers\n")
    snapshot = cache.snapshot_file(tmp_path / "staff" / "staff.py")
    assert [p.name for p in cache.folder(snapshot).iterdir()] == ["staff.py"]
    os.mkfifo(tmp_path / "staff" / "fifo.py")
    with pytest.raises(TeamFolderError, match="not a regular file"):
        cache.snapshot_file(tmp_path / "staff" / "fifo.py")  # refused, never waited on


def test_a_cache_others_can_write_to_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)
    with pytest.raises(PermissionError, match="no one else can write"):
        TeamCache(shared)


def test_messages_name_the_teams_folder_not_a_workers_cache(tmp_path: Path) -> None:
    from tournament.runner import Snapshots

    folder = team(tmp_path)
    snapshots = Snapshots(TeamCache(tmp_path / "organizer"))
    snap = snapshots.of_folder(folder)
    elsewhere = f"/var/dask/w1/pacman-arena-teams/{snap.id}/multiAgents.py"
    text = (f'File "{elsewhere}", line 3: SyntaxError; and {snap.id[:16]} stays; '
            f"{snap.id}: no class")
    assert snapshots.localize(text) == (f'File "{folder}/multiAgents.py", line 3: '
                                        f"SyntaxError; and {snap.id[:16]} stays; "
                                        f"{snap.id}: no class")  # no folder before it: kept
    # An option's path keeps its option's name (`features=<path>`).
    assert snapshots.localize(f"features={elsewhere}:phi: failed") == (
        f"features={folder}/multiAgents.py:phi: failed")


def test_two_teams_with_the_same_files_are_two_snapshots(tmp_path: Path) -> None:
    first = team(tmp_path)
    twin = tmp_path / "beta"
    shutil.copytree(first, twin)
    cache = TeamCache(tmp_path / "cache")
    a, b = cache.snapshot(first), cache.snapshot(twin)
    assert a.partition("/")[0] == b.partition("/")[0] and a != b  # same files, two names
    assert (cache.folder(a).name, cache.folder(b).name) == ("alpha", "beta")
    worker = TeamCache(tmp_path / "worker")
    assert worker.unpack(cache.pack(b)).name == "beta"
    assert worker.unpack(cache.pack(a)).name == "alpha"


def test_a_run_killed_before_removing_its_cache_leaves_it_to_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dead run's cache is swept by the next run, but only a run of the same pid namespace
    can tell: found by the seventh hostile review, a run under `unshare` (or in a container)
    sharing TMPDIR took a live run's pid for dead, deleted its snapshots, and its later games
    failed."""
    import subprocess
    import sys
    import tempfile

    from pacman.sandbox.owners import INITIAL_PID_NAMESPACE, pid_namespace

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    pid = int(dead.stdout)
    own = pid_namespace()
    other = "4026532000" if own != "4026532000" else "1"
    left = tmp_path / f"pacman-arena-run-{pid}-{own}-abc"
    elsewhere = tmp_path / f"pacman-arena-run-{pid}-{other}-abc"  # a pid we cannot see
    older = tmp_path / f"pacman-arena-run-{pid}-abc"  # named before namespaces were
    for folder in (left, elsewhere, older):
        folder.mkdir()
    mine = TeamCache.temporary()  # the next run sweeps the dead one's
    assert mine.root.name.startswith(f"pacman-arena-run-{os.getpid()}-{own}-")
    assert not left.exists() and mine.root.exists()
    assert elsewhere.exists()
    assert older.exists() == (own != INITIAL_PID_NAMESPACE)
    other_run = TeamCache.temporary()
    assert mine.root.exists()  # a live run's cache is kept
    mine.remove()
    other_run.remove()
