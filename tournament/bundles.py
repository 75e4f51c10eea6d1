"""A team's files as data that travels: what a worker needs of the organizer's folders.

On a cluster without a shared file system a worker cannot read the organizer's team folders,
and a team that edits its folder during a run must not have half its games played with one
version and half with another. So a run takes a snapshot of each team once, before any game:
the very bytes `pacman.teamfolder.team_digest` hashes, copied into a `TeamCache` folder named
after that digest and the folder's name. The run's submission hash is the snapshot's, the
agent is resolved from the snapshot, and every game plays the snapshot: what is hashed,
resolved, played and stored is one version of the team, whatever happens to its folder
meanwhile.

A game task names its snapshots by id, `<digest>/<name>` (`tournament.runner.GameTask`); how
they reach a worker is the executor's business: the local pool's workers read the organizer's
cache (same machine), a Dask worker gets each snapshot once as a `Bundle` (the files as bytes)
and unpacks it into a cache of its own. A worker checks a bundle's digest before it plays
from it. Every path in a task is relative to a cache (`<digest>/<folder name>/...`), so the
same task plays on any machine.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pacman.files import read_at_most
from pacman.sandbox.owners import alive, owner_tag, stale
from pacman.teamfolder import MAX_BYTES, TeamFolderError, team_digest, team_files


@dataclass(frozen=True)
class Bundle:
    """A snapshot's files as bytes: '/'-separated paths under the snapshot's folder (the
    first part is the team folder's name). `id` is the snapshot's (`<digest>/<name>`)."""

    id: str
    files: tuple[tuple[str, bytes], ...]

    @property
    def size(self) -> int:
        return sum(len(data) for _, data in self.files)


class TeamCache:
    """A folder of snapshots, `<root>/<digest>/<folder name>/`, each written once, whole
    (made beside it and renamed into place), and never changed afterwards. A snapshot's id is
    `<digest>/<folder name>`: two teams with the same files are two snapshots, each with its
    own name."""

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
        """A new private cache under TMPDIR for one run (the caller removes it with `remove`;
        a run killed before it could is swept by the next one)."""
        _sweep(Path(tempfile.gettempdir()))
        return cls(Path(tempfile.mkdtemp(prefix=f"{RUN_PREFIX}{owner_tag()}-")))

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def has(self, snapshot: str) -> bool:
        return _safe_id(snapshot) and (self.root / snapshot).is_dir()

    def folder(self, snapshot: str) -> Path:
        """The snapshot's team folder (`<root>/<digest>/<name>`)."""
        if not self.has(snapshot):
            raise KeyError(f"no snapshot {snapshot[:16]} in {self.root}")
        return self.root / snapshot

    # --- the organizer's side -----------------------------------------------------------------

    def snapshot(self, folder: Path) -> str:
        """Copy the team folder's files into the cache; the snapshot's id (TeamFolderError
        when the folder is no team folder: a link, a fifo, too many files...)."""
        scratch = Path(tempfile.mkdtemp(prefix=".taking-", dir=self.root))
        try:
            inside = scratch / _name_of(folder)
            inside.mkdir()
            digest = team_digest(folder, copy_to=inside, whole=True)
            return self._settle(inside, digest)
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
            return self._settle(inside, team_digest(inside))
        except OSError as exc:
            raise TeamFolderError(f"{path}: cannot be read: {exc.strerror or exc}") from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def pack(self, snapshot: str) -> Bundle:
        """The snapshot as bytes, to send to a worker on another machine."""
        folder = self.folder(snapshot)
        files = tuple((f"{folder.name}/{rel}", (folder / rel).read_bytes())
                      for rel in team_files(folder))
        return Bundle(snapshot, files)

    # --- a worker's side --------------------------------------------------------------------

    def unpack(self, bundle: Bundle) -> Path:
        """Write `bundle` into the cache unless it is there; its team folder. Raises
        ValueError when its files are not what its id says (nothing is kept then).

        A snapshot already there (a worker's cache lives across runs) is checked against its
        digest once per process before it is trusted: one damaged on disk would otherwise
        make every game of its team on this worker the platform's failure, run after run.
        A damaged one is replaced by the bundle's files."""
        key = (str(self.root), bundle.id)
        if self.has(bundle.id):
            if key in _CHECKED:
                return self.folder(bundle.id)
            try:
                intact = team_digest(self.folder(bundle.id)) == bundle.id.partition("/")[0]
            except TeamFolderError:
                intact = False
            if intact:
                _CHECKED.add(key)
                return self.folder(bundle.id)
            shutil.rmtree(self.root / bundle.id, ignore_errors=True)
        if not _safe_id(bundle.id):
            raise ValueError(f"not a snapshot id: {bundle.id[:80]!r}")
        digest, name = bundle.id.split("/")
        scratch = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=self.root))
        try:
            for rel, data in bundle.files:
                parts = PurePosixPath(rel).parts
                if (len(parts) < 2 or rel.startswith("/") or parts[0] != name
                        or any(p in ("", ".", "..") for p in parts)):
                    raise ValueError(f"bundle {digest[:16]}: refused path {rel[:80]!r}")
                target = scratch.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                os.chmod(target, 0o444)
            try:
                found = team_digest(scratch / name)
            except TeamFolderError as exc:
                raise ValueError(f"bundle {digest[:16]}: {exc}") from None
            if found != digest:
                raise ValueError(f"bundle {digest[:16]}: its files hash to {found[:16]}")
            self._settle(scratch / name, found)
            _CHECKED.add(key)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return self.folder(bundle.id)

    def recheck(self, snapshot: str) -> None:
        """Check `snapshot` against its digest again the next time it is unpacked: a game
        that found it damaged was the platform's failure, and its next try must not be."""
        _CHECKED.discard((str(self.root), snapshot))

    def _settle(self, made: Path, digest: str) -> str:
        """Move a finished snapshot folder into place (another thread or process may have put
        the same one there first: then it is already right); its id."""
        snapshot = f"{digest}/{made.name}"
        if not self.has(snapshot):
            (self.root / digest).mkdir(exist_ok=True)
            try:
                os.rename(made, self.root / snapshot)
            except OSError:
                if not self.has(snapshot):
                    raise
        return snapshot


#: (cache root, snapshot id) of the snapshots this process unpacked or found intact.
_CHECKED: set[tuple[str, str]] = set()

#: A run's own cache: `<TMPDIR>/pacman-arena-run-<pid>-<pid namespace>-<random>`
#: (`pacman.sandbox.owners.owner_tag`).
RUN_PREFIX = "pacman-arena-run-"
#: The shared caches' folder name (`<TMPDIR>/pacman-arena-teams-<uid>`, or in a Dask worker's
#: local directory): `tournament.privacy` finds snapshot paths by these names.
TEAMS_FOLDER = "pacman-arena-teams"


def _sweep(tmp: Path) -> None:
    """Remove the run caches of this user's runs that were killed before removing theirs.

    Only runs of this pid namespace can be judged: a run in a container or under `unshare`
    that shares TMPDIR has a pid this one cannot see, and taking it for dead deleted its live
    snapshots (the seventh hostile review). A cache named without a namespace (before this
    rule) is judged in the initial namespace only."""
    for entry in tmp.glob(f"{RUN_PREFIX}*"):
        pid, _, rest = entry.name[len(RUN_PREFIX):].partition("-")
        namespace, _, random = rest.partition("-")
        try:
            if entry.lstat().st_uid != os.getuid():
                continue
            if stale(pid, namespace if random and namespace.isdigit() else None, alive):
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue


def default_cache() -> TeamCache:
    """This user's cache under TMPDIR, for games played outside a run (tests, `recreate`):
    snapshots are named by their content, so sharing it between processes is safe."""
    return TeamCache(Path(tempfile.gettempdir()) / f"{TEAMS_FOLDER}-{os.getuid()}")


def worker_cache() -> TeamCache:
    """A Dask worker's cache: in its own local directory when it has one."""
    try:
        from distributed import get_worker

        return TeamCache(Path(get_worker().local_directory) / TEAMS_FOLDER)
    except (ImportError, ValueError):
        return default_cache()


def _name_of(folder: Path) -> str:
    """The folder's own name (the team's name where no team.yaml gives one)."""
    return Path(os.path.abspath(folder)).name or "team"


def snapshot_digest(snapshot: str) -> str:
    """The content digest of a snapshot id (`<digest>/<name>`)."""
    return snapshot.partition("/")[0]


def _safe_id(snapshot: str) -> bool:
    """`<64 hex digits>/<one plain name>`: nothing that leaves the cache."""
    digest, _, name = snapshot.partition("/")
    return (len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)
            and name not in ("", ".", "..") and "/" not in name and "\0" not in name)
