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
    digest = cache.snapshot(folder)
    assert digest == team_digest(folder)  # the very digest the run's hash is made of
    copy = cache.folder(digest)
    assert copy.name == "alpha" and team_digest(copy) == digest  # __pycache__ included
    bundle = cache.pack(digest)
    assert {rel for rel, _ in bundle.files} >= {"alpha/data/weights.txt",
                                                "alpha/__pycache__/junk.pyc"}
    # On another machine: unpacked into a cache of its own, checked, then the same team.
    worker = TeamCache(tmp_path / "worker")
    unpacked = worker.unpack(bundle)
    assert unpacked.name == "alpha" and team_digest(unpacked) == digest
    assert worker.unpack(bundle) == unpacked  # already there: kept as it is
    # The team changes its folder afterwards: the snapshot does not.
    (folder / "data" / "weights.txt").write_text("changed\n")
    assert team_digest(cache.folder(digest)) == digest
    assert cache.snapshot(folder) != digest


def test_a_bundle_whose_files_are_not_its_digest_is_refused(tmp_path: Path) -> None:
    cache = TeamCache(tmp_path / "organizer")
    bundle = cache.pack(cache.snapshot(team(tmp_path)))
    worker = TeamCache(tmp_path / "worker")
    altered = Bundle(bundle.digest, (*bundle.files[:-1], (bundle.files[-1][0], b"evil")))
    with pytest.raises(ValueError, match="its files hash to"):
        worker.unpack(altered)
    for bad in ("../escape.py", "/etc/passwd", "alpha/../../x.py", "lonely.py"):
        with pytest.raises(ValueError, match="refused path"):
            worker.unpack(Bundle(bundle.digest, ((bad, b"x"),)))
    with pytest.raises(ValueError, match="not a snapshot digest"):
        worker.unpack(Bundle("../../tmp", bundle.files))
    assert not worker.has(bundle.digest) and os.listdir(worker.root) == []  # nothing kept
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
    digest = cache.snapshot_file(tmp_path / "staff" / "staff.py")
    assert [p.name for p in cache.folder(digest).iterdir()] == ["staff.py"]
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
    elsewhere = f"/var/dask/w1/pacman-arena-teams/{snap.digest}/alpha/multiAgents.py"
    text = f'File "{elsewhere}", line 3: SyntaxError; and {snap.digest[:16]} stays'
    assert snapshots.localize(text) == (f'File "{folder}/multiAgents.py", line 3: '
                                        f"SyntaxError; and {snap.digest[:16]} stays")
