"""A team's files as data that travels: what a worker needs of the organizer's folders.

On a cluster without a shared file system a worker cannot read the organizer's team folders,
and a team that edits its folder during a run must not have half its games played with one
version and half with another. So a run takes a snapshot of each team once, before any game:
the very bytes `pacman.teamfolder.team_digest` hashes, copied into a `TeamCache` folder named
after that digest. The run's submission hash is the snapshot's, the agent is resolved from
the snapshot, and every game plays the snapshot: what is hashed, resolved, played and stored
is one version of the team, whatever happens to its folder meanwhile.

A game task names its snapshots by digest (`tournament.runner.GameTask`); how they reach a
worker is the executor's business: the local pool's workers read the organizer's cache (same
machine), a Dask worker gets each snapshot once as a `Bundle` (the files as bytes) and
unpacks it into a cache of its own. A worker checks a bundle's digest before it plays from
it. Every path in a task is relative to a cache (`<digest>/<folder name>/...`), so the same
task plays on any machine.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pacman.files import read_at_most
from pacman.teamfolder import MAX_BYTES, TeamFolderError, team_digest, team_files


@dataclass(frozen=True)
class Bundle:
    """A snapshot's files as bytes: '/'-separated paths under the snapshot's folder (the
    first part is the team folder's name)."""

    digest: str
    files: tuple[tuple[str, bytes], ...]

    @property
    def size(self) -> int:
        return sum(len(data) for _, data in self.files)


class TeamCache:
    """A folder of snapshots, `<root>/<digest>/<folder name>/`, each written once, whole
    (made beside it and renamed into place), and never changed afterwards."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.lstat(root)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            # Anyone who could write here could put other files under a snapshot's name.
            raise PermissionError(f"{root}: a team cache must be a folder of this user's "
                                  "that no one else can write to")

    @classmethod
    def temporary(cls) -> TeamCache:
        """A new private cache under TMPDIR (the caller removes it with `remove`)."""
        return cls(Path(tempfile.mkdtemp(prefix="pacman-arena-teams-")))

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def has(self, digest: str) -> bool:
        return _safe_digest(digest) and (self.root / digest).is_dir()

    def folder(self, digest: str) -> Path:
        """The snapshot's team folder (`<root>/<digest>/<name>`)."""
        if not self.has(digest):
            raise KeyError(f"no snapshot {digest[:16]} in {self.root}")
        (name,) = os.listdir(self.root / digest)
        return self.root / digest / name

    # --- the organizer's side -----------------------------------------------------------------

    def snapshot(self, folder: Path) -> str:
        """Copy the team folder's files into the cache; their digest (TeamFolderError when the
        folder is no team folder: a link, a fifo, too many files...)."""
        scratch = Path(tempfile.mkdtemp(prefix=".taking-", dir=self.root))
        try:
            inside = scratch / _name_of(folder)
            inside.mkdir()
            digest = team_digest(folder, copy_to=inside, whole=True)
            return self._settle(scratch, digest)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def snapshot_file(self, path: Path) -> str:
        """A baseline given as one file: a snapshot holding that file alone, in a folder named
        as its own."""
        scratch = Path(tempfile.mkdtemp(prefix=".taking-", dir=self.root))
        try:
            inside = scratch / _name_of(path.parent)
            inside.mkdir()
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise TeamFolderError(f"{path}: not a regular file")
                data = read_at_most(fd, MAX_BYTES)
            finally:
                os.close(fd)
            if len(data) > MAX_BYTES:
                raise TeamFolderError(f"{path}: more than {MAX_BYTES} bytes")
            (inside / path.name).write_bytes(data)
            digest = team_digest(inside)
            return self._settle(scratch, digest)
        except OSError as exc:
            raise TeamFolderError(f"{path}: cannot be read: {exc.strerror or exc}") from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def pack(self, digest: str) -> Bundle:
        """The snapshot as bytes, to send to a worker on another machine."""
        folder = self.folder(digest)
        files = tuple((f"{folder.name}/{rel}", (folder / rel).read_bytes())
                      for rel in team_files(folder))
        return Bundle(digest, files)

    # --- a worker's side --------------------------------------------------------------------

    def unpack(self, bundle: Bundle) -> Path:
        """Write `bundle` into the cache unless it is there; its team folder. Raises
        ValueError when its files are not what its digest says (nothing is kept then)."""
        if self.has(bundle.digest):
            return self.folder(bundle.digest)
        if not _safe_digest(bundle.digest):
            raise ValueError(f"not a snapshot digest: {bundle.digest[:80]!r}")
        scratch = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=self.root))
        try:
            names = set()
            for rel, data in bundle.files:
                parts = PurePosixPath(rel).parts
                if (len(parts) < 2 or rel.startswith("/") or any(p in ("", ".", "..")
                                                                 for p in parts)):
                    raise ValueError(f"bundle {bundle.digest[:16]}: refused path {rel[:80]!r}")
                names.add(parts[0])
                target = scratch.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                os.chmod(target, 0o444)
            if len(names) != 1:
                raise ValueError(f"bundle {bundle.digest[:16]}: expected one folder, "
                                 f"found {len(names)}")
            (name,) = names
            try:
                found = team_digest(scratch / name)
            except TeamFolderError as exc:
                raise ValueError(f"bundle {bundle.digest[:16]}: {exc}") from None
            if found != bundle.digest:
                raise ValueError(f"bundle {bundle.digest[:16]}: its files hash to "
                                 f"{found[:16]}")
            self._settle(scratch, found)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return self.folder(bundle.digest)

    def _settle(self, scratch: Path, digest: str) -> str:
        """Move a finished snapshot into place (another thread or process may have put the
        same one there first: then it is already right)."""
        if not self.has(digest):
            try:
                os.rename(scratch, self.root / digest)
            except OSError:
                if not self.has(digest):
                    raise
        return digest


def default_cache() -> TeamCache:
    """This user's cache under TMPDIR, for games played outside a run (tests, `recreate`):
    snapshots are named by their content, so sharing it between processes is safe."""
    return TeamCache(Path(tempfile.gettempdir()) / f"pacman-arena-teams-{os.getuid()}")


def worker_cache() -> TeamCache:
    """A Dask worker's cache: in its own local directory when it has one."""
    try:
        from distributed import get_worker

        return TeamCache(Path(get_worker().local_directory) / "pacman-arena-teams")
    except (ImportError, ValueError):
        return default_cache()


def _name_of(folder: Path) -> str:
    """The folder's own name (the team's name where no team.yaml gives one)."""
    return Path(os.path.abspath(folder)).name or "team"


def _safe_digest(digest: str) -> bool:
    return len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)
