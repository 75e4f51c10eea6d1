"""Reading a file someone else controls: a regular file, never a link or a device, bounded.

The platform reads files it did not write: a team's `team.yaml` and sources, an organizer's
config, a replay a student sends. `Path.read_text` on such a path follows a symbolic link to
another team's file, blocks for ever on a named pipe, and reads `/dev/zero` until memory runs
out. Everything here opens without following a final link (when asked), without blocking
(`O_NONBLOCK`, so a fifo opens at once and is then refused), checks with `fstat` on the open
descriptor that it is a regular file (so what is checked is what is read), and reads at most
a cap. Problems are `FileProblem`s, whose message names the file.

Writing is the other half: `write_atomic` is how the platform writes a file someone may be
reading (a replay, a table): a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


class FileProblem(ValueError):
    """A file that cannot be read as asked; the message names it and says why."""


def kind_of(mode: int) -> str:
    """What a file's mode says it is, in words for error messages."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (fifo)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISREG(mode):
        return "a regular file"
    return "a special file"


@contextmanager
def open_regular(path: Path, follow_links: bool = True) -> Iterator[tuple[int, os.stat_result]]:
    """An open descriptor of `path` and its `fstat`, if it is a regular file; closed after.

    `follow_links=False` refuses a path whose last part is a symbolic link (`O_NOFOLLOW`).
    Opening never blocks (a fifo with no writer would), and the descriptor is switched back to
    blocking reads once it is known to be a regular file.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow_links and os.path.islink(path):
            raise FileProblem(f"{path}: is a symbolic link; expected a regular file") from None
        if exc.errno == errno.ENOENT:
            raise FileProblem(f"{path}: no such file") from None
        raise FileProblem(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte in the name
        raise FileProblem(f"{path!r}: not a usable file name: {exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(f"{path}: is {kind_of(info.st_mode)}; expected a regular file")
        os.set_blocking(fd, True)
        yield fd, info
    finally:
        os.close(fd)


def read_bounded(path: Path, limit: int, follow_links: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, else a FileProblem saying so.

    The size is checked on what is read, not only on `st_size`, so a file that grows while it
    is read is refused too.
    """
    with open_regular(path, follow_links) as (fd, info):
        if info.st_size > limit:
            raise FileProblem(f"{path}: {info.st_size} bytes, more than the {limit} allowed")
        data = read_at_most(fd, limit)
        if len(data) > limit:
            raise FileProblem(f"{path}: more than the {limit} bytes allowed")
        return data


def read_at_most(fd: int, limit: int) -> bytes:
    """What `fd` holds, read until its end or until `limit` + 1 bytes (so that a caller can
    tell a file over its limit, however it grows while read)."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_text_bounded(path: Path, limit: int, follow_links: bool = True) -> str:
    """`read_bounded` decoded as UTF-8; a byte that is not UTF-8 is a FileProblem."""
    data = read_bounded(path, limit, follow_links)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"{path}: not UTF-8 text (byte {exc.start})") from None


def in_the_way(folder: Path) -> Path | None:
    """What stops `folder` from being made or used as a folder: the nearest of it and the
    folders above it that exists and is not a folder (None when nothing does), for messages
    that name the file in the way rather than the system's "File exists"."""
    for path in (folder, *folder.parents):
        if path.exists():
            return None if path.is_dir() else path
    return None


def printable_name(name: str) -> bool:
    """Whether a file name is text that can be shown: valid UTF-8, no control characters.

    Names come from the file system as `str` with undecodable bytes smuggled in as lone
    surrogates; those, and control characters (a newline, a terminal escape), would break a
    message, a log line or a terminal that shows the name.
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return not any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in name)


def show_name(name: str) -> str:
    """A file name for a message: as is when printable, else its repr (escapes visible)."""
    return name if printable_name(name) else ascii(name)


def write_atomic(path: Path, content: str | Callable[[TextIO], None],
                 newline: str | None = None) -> Path:
    """Write `content` (text, or a function that writes to the open file) to `path`
    atomically: a temporary file beside it, then a rename. The file gets the permissions any
    file the user makes gets (mkstemp's are private). Its folder is made when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}-",
                                     suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            if isinstance(content, str):
                fh.write(content)
            else:
                content(fh)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
