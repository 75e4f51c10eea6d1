"""What a team is: the regular files in its folder, and nothing reached through anything else.

A team's folder is untrusted input, and so is every name in it. A symbolic link there (a file
or a folder, wherever it points) would let a team import, play or be hashed as another
team's code under its own name; a hard link shares another path's bytes the same way, and no
mount namespace can hide it; a named pipe blocks whoever reads it for ever; a device or a
socket is no source at all; a name with a newline or a terminal escape breaks every message
that shows it. So the platform's own side (resolving a team, hashing it, validating it) looks
at a team folder only through `team_files`, which walks it without following anything and
refuses, with an error naming the entry, any of:
- a symbolic link, anywhere in the folder, or the team folder itself being one;
- a hard link (a regular file with more than one name);
- a named pipe, socket or device;
- a name that is not printable UTF-8;
- compiled code that runs in place of a source: a `.pyc` outside `__pycache__` (Python
  imports it when no source stands beside it) or a native extension module (`.so`): what
  plays must be the source the team submitted, that a reviewer or a plagiarism check reads;
- more than `MAX_FILES` entries or `MAX_BYTES` bytes in all (the hash reads every byte);
- a path more than `MAX_DEPTH` folders deep or longer than `MAX_PATH` bytes (every file is
  reached one folder at a time, and copied beneath a sandbox's own folder).

Every file counts for the hash, `__pycache__` included, but a sandbox never reads a team's
`__pycache__` (the team's modules are compiled from their sources only,
`pacman.loader.SourceOnlyLoader`), so a
compiled file there cannot stand in for the source beside it. The platform never writes into
a team's folder (see `pacman.loader.load_file`). With the mounts layer, a sandbox sees its team
folder as a copy of `team_files` (but `__pycache__`) and nothing else, so what it can read of
its folder is what `team_digest` covers (`pacman.sandbox.mounts`).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pacman.files import kind_of, printable_name, read_at_most, show_name

#: The most entries (files and folders) a team folder may hold.
MAX_FILES = 5000
#: The most bytes a team folder's files may hold together.
MAX_BYTES = 256 * 1024 * 1024
#: The most folders a path inside a team folder may go through, and its longest length in
#: bytes (as the kernel counts it, UTF-8).
MAX_DEPTH = 32
MAX_PATH = 1024


class TeamFolderError(ValueError):
    """A team folder that holds something a team may not; the message names the entry."""


#: The unit a file system allocates in (a copy's file of one byte takes one of these).
BLOCK = 4096


def team_size(folder: Path) -> tuple[int, int]:
    """What a copy of the team for a sandbox needs on disk: bytes (each file's rounded up to
    whole blocks, and a block per file and folder besides: 5,000 one-byte files take some 40
    MiB, not 5 kB) and inodes (one per file and folder). TeamFolderError as `team_files`."""
    files, _, sizes = _list_team(folder)
    folders = {rel.rpartition("/")[0] for rel in files}
    space = sum(-(-size // BLOCK) * BLOCK + BLOCK for size in sizes) + BLOCK * len(folders)
    return space, len(files) + len(folders)


def team_files(folder: Path) -> list[str]:
    """The team's files, as sorted '/'-separated paths relative to `folder`.

    Raises TeamFolderError naming the first entry that is not a plain file or folder (see the
    module's docstring). No file is opened and no link is followed: every folder is listed
    from a descriptor reached one name at a time from the team folder's own (`_descend`), so
    a subfolder swapped for a link while it is listed fails, never lists another folder.
    """
    return _list_team(folder)[0]


def _list_team(folder: Path) -> tuple[list[str], int, list[int]]:
    """`team_files`, the bytes its files hold together, and each file's size."""
    try:
        top = os.lstat(folder)
    except OSError as exc:
        raise TeamFolderError(f"{folder}: cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte in the name
        raise TeamFolderError(f"{folder!r}: not a usable folder name: {exc}") from None
    if stat.S_ISLNK(top.st_mode):
        raise TeamFolderError(
            f"{folder}: the team folder is a symbolic link (to {os.readlink(folder)}); a team "
            "is the files in its own folder, so give the folder itself"
        )
    if not stat.S_ISDIR(top.st_mode):
        raise TeamFolderError(f"{folder}: is {kind_of(top.st_mode)}, not a team folder")
    files: list[str] = []
    sizes: list[int] = []
    entries = 0
    total = 0
    pending = [""]
    top_fd = _open_top(folder)
    try:
        while pending:
            relative = pending.pop()
            for name, info in _listing(top_fd, folder, relative):
                rel = f"{relative}/{name}" if relative else name
                entries += 1
                if entries > MAX_FILES:
                    raise TeamFolderError(
                        f"{folder}: more than {MAX_FILES} files and folders; a team folder "
                        "holds its agent's sources and data")
                if len(os.fsencode(rel)) > MAX_PATH or rel.count("/") >= MAX_DEPTH:
                    raise TeamFolderError(
                        f"{folder}: the path {show_name(rel[:80])}... is longer than "
                        f"{MAX_PATH} bytes or deeper than {MAX_DEPTH} folders")
                if stat.S_ISDIR(info.st_mode):
                    pending.append(rel)
                    continue
                problem = _entry_problem(info) or _compiled_problem(rel)
                if problem:
                    raise TeamFolderError(f"{folder / rel}: {problem}")
                total += info.st_size
                if total > MAX_BYTES:
                    raise TeamFolderError(f"{folder}: its files hold more than {_MIB} MiB")
                files.append(rel)
                sizes.append(info.st_size)
    finally:
        os.close(top_fd)
    order = sorted(range(len(files)), key=files.__getitem__)
    return [files[i] for i in order], total, [sizes[i] for i in order]


#: MAX_BYTES in MiB, for messages.
_MIB = MAX_BYTES // (1024 * 1024)


def _open_top(folder: Path) -> int:
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise TeamFolderError(f"{folder}: cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte in the name
        raise TeamFolderError(f"{folder!r}: not a usable folder name: {exc}") from None


def _descend(top: int, folder: Path, parts: list[str]) -> int:
    """A descriptor of the team's folder `parts` (`top` itself for []), reached from `top` one
    name at a time, through no link: a folder swapped for a link on the way fails here."""
    current = top
    try:
        for part in parts:
            step = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                           dir_fd=current)
            if current != top:
                os.close(current)
            current = step
    except OSError as exc:
        if current != top:
            os.close(current)
        raise TeamFolderError(
            f"{folder / '/'.join(parts)}: cannot be read as the team's own folder: "
            f"{exc.strerror or exc} (it changed while it was read, or it is reached through "
            "a symbolic link)") from None
    return current


def _listing(top: int, folder: Path, relative: str) -> list[tuple[str, os.stat_result]]:
    """The names in the team's folder `relative`, sorted, each with its `lstat`, read from a
    descriptor of that folder."""
    where = _descend(top, folder, relative.split("/") if relative else [])
    found: list[tuple[str, os.stat_result]] = []
    try:
        names = []
        with os.scandir(where) as listing:
            for entry in listing:  # no more than the caller can accept, however many there are
                names.append(entry.name)
                if len(names) > MAX_FILES:
                    break
        for name in sorted(names):
            rel = f"{relative}/{name}" if relative else name
            if not printable_name(name):
                raise TeamFolderError(
                    f"{folder}: the name {show_name(rel)} is not printable text (a control "
                    "character or bytes that are not UTF-8); rename it")
            try:
                found.append((name, os.stat(name, dir_fd=where, follow_symlinks=False)))
            except OSError as exc:
                raise TeamFolderError(
                    f"{folder / rel}: cannot be read: {exc.strerror or exc}") from None
    except OSError as exc:
        raise TeamFolderError(
            f"{folder / relative}: cannot be read: {exc.strerror or exc}") from None
    finally:
        if where != top:
            os.close(where)
    return found


def _entry_problem(info: os.stat_result) -> str:
    """Why an entry that is not a folder cannot be a team's file; '' when it can."""
    if stat.S_ISLNK(info.st_mode):
        return ("is a symbolic link; a team's files must be its own, so replace it with the "
                "file itself (symbolic links are refused wherever they point)")
    if not stat.S_ISREG(info.st_mode):
        return f"is {kind_of(info.st_mode)}; a team folder holds only regular files and folders"
    if info.st_nlink > 1:
        return (f"is a hard link ({info.st_nlink} names for the same file, so its bytes are "
                "shared with another path); replace it with a copy (a local `git clone` "
                "makes these in .git: clone with --no-hardlinks, or leave .git out)")
    return ""


#: Suffixes of modules Python imports without a source: native extensions and bytecode.
_NATIVE = (*importlib.machinery.EXTENSION_SUFFIXES, ".so", ".pyd", ".dylib")
_BYTECODE = (".pyc", ".pyo")


def _compiled_problem(rel: str) -> str:
    """Why a file would run as code that is not the team's source; '' when it would not."""
    parts = rel.split("/")
    if "__pycache__" in parts[:-1]:
        return ""  # never read in a sandbox
    name = parts[-1]
    if name.endswith(_BYTECODE):
        return ("is compiled Python outside __pycache__, which Python imports in place of a "
                "source; submit the .py file instead")
    if name.endswith(_NATIVE):
        return ("is a native extension module (compiled code); a team submits Python "
                "sources only")
    return ""


def team_digest(folder: Path, copy_to: Path | None = None, whole: bool = False) -> str:
    """SHA-256 over the team's files, each by name and bytes, in `team_files` order.

    Every file is opened beneath one descriptor of the team folder, one name at a time and
    never through a symbolic link (a folder on the way swapped for a link after the listing
    fails, it never leads elsewhere), and checked to be the regular file with one name that
    was listed (a file swapped for a fifo is refused, never waited on).

    With `copy_to` (an empty folder), the very bytes hashed are also written there, but for
    `__pycache__`, as a team's view for a sandbox (`pacman.sandbox.process`): every file mode
    0444, every folder 0755 (the referee removes it; the view is bound read-only), every time
    0, no extended attribute, no folder that holds no file, so nothing the hash does not cover
    is in the copy. With `whole`, `__pycache__` is copied too: the copy is then a team folder
    of the same digest (a tournament's snapshot of the team, `tournament.bundles`).
    """
    files = team_files(folder)
    digest = hashlib.sha256()
    top = _open_top(folder)
    made: set[Path] = set()
    read = 0
    try:
        for rel in files:
            digest.update(os.fsencode(rel) + b"\0")
            target = None
            if copy_to is not None and (whole or "__pycache__" not in rel.split("/")[:-1]):
                target = copy_to / rel
                for parent in reversed(target.relative_to(copy_to).parents[:-1]):
                    if copy_to / parent not in made:
                        (copy_to / parent).mkdir(exist_ok=True)
                        made.add(copy_to / parent)
            file_digest = hashlib.sha256()
            with _open_beneath(top, folder, rel) as source:
                out = None if target is None else os.open(
                    target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
                try:
                    while chunk := os.read(source, 1 << 20):
                        read += len(chunk)
                        if read > MAX_BYTES:  # it grew since it was listed
                            raise TeamFolderError(
                                f"{folder}: its files hold more than {_MIB} MiB (they grew "
                                "while they were read)")
                        file_digest.update(chunk)
                        if out is not None:
                            _write_all(out, chunk)
                finally:
                    if out is not None:
                        os.close(out)
            if target is not None:
                os.chmod(target, 0o444)
                os.utime(target, ns=(0, 0))
            digest.update(file_digest.digest())
    finally:
        os.close(top)
    for made_folder in sorted(made, key=lambda p: len(p.parts), reverse=True):
        os.chmod(made_folder, 0o755)
        os.utime(made_folder, ns=(0, 0))
    return digest.hexdigest()


def read_team_file(folder: Path, rel: str, limit: int) -> bytes:
    """The bytes of the team's file `rel` (at most `limit`), read as `team_digest` reads: from
    the folder's descriptor one name at a time, through no link, so a file or folder swapped
    for a link after the folder was checked is refused, never read elsewhere."""
    top = _open_top(folder)
    try:
        with _open_beneath(top, folder, rel) as fd:
            data = read_at_most(fd, limit)
    finally:
        os.close(top)
    if len(data) > limit:
        raise TeamFolderError(f"{folder / rel}: more than the {limit} bytes allowed")
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


@contextmanager
def _open_beneath(top: int, folder: Path, rel: str) -> Iterator[int]:
    """`rel` opened from the folder descriptor `top`, one name at a time, following no link."""
    parts = rel.split("/")
    parent = _descend(top, folder, parts[:-1])
    try:
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=parent)
    except OSError as exc:
        raise TeamFolderError(
            f"{folder / rel}: cannot be read as the team's own file: "
            f"{exc.strerror or exc} (it changed since the folder was listed, or it is a "
            "symbolic link)") from None
    finally:
        if parent != top:
            os.close(parent)
    try:
        info = os.fstat(fd)
        problem = _entry_problem(info)
        if problem:
            raise TeamFolderError(f"{folder / rel}: {problem}")
        os.set_blocking(fd, True)
        yield fd
    finally:
        os.close(fd)
