"""One command at a time plays games into an output folder.

Two `tournament run`s on one folder would both play every missing game (each sees the other's
games as missing until they are stored), and a `replay --recreate` beside a run would play
games again too. So every command that plays games takes `<output>/.lock` first, with
`fcntl.flock`: the kernel releases it when the holder's last descriptor closes, so a holder
killed even with SIGKILL leaves no stale lock behind, and no one has to judge whether a pid
is still alive. The file holds one line saying who holds it (command, pid, host, user,
since when, UTC), which a second command shows in its refusal; the line of a holder that
died stays in the file until the next holder overwrites it, and means nothing without the
lock. A command that made the folder and leaves it empty removes the file (`discard`).
"""

from __future__ import annotations

import datetime
import errno
import fcntl
import getpass
import os
import socket
from pathlib import Path

#: The lock's file name in the output folder.
LOCK_FILE = ".lock"
#: Tries at taking the lock while other commands remove its file or folder as they end.
_ATTEMPTS = 100
#: Longest holder line read back (it is ours, but the folder may hold anything).
_LINE_LIMIT = 1000

#: Folders this process holds: descriptor per folder, kept open until the process ends.
_held: dict[Path, int] = {}


class LockHeld(Exception):
    """Another process holds the folder; the message names the folder and the holder."""


def holder_line(command: str) -> str:
    """Who takes the lock, as the file keeps it: `tournament run t.yaml (pid 41, host h,
    user u, since 2025-01-31T12:00:00Z)`."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # a uid without a name (a container)
        user = str(os.getuid())
    since = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (f"{' '.join(command.split())} (pid {os.getpid()}, host {socket.gethostname()}, "
            f"user {user}, since {since})")


def acquire(folder: Path, command: str) -> Path:
    """Take the lock of `folder` (made if missing) for this process, until it ends, and write
    who holds it; return the lock file. Taken again by the same process, it is already held.

    Raises LockHeld when another process holds it, OSError when the folder or the file
    cannot be made or opened.
    """
    folder = folder.resolve()
    path = folder / LOCK_FILE
    if folder in _held:
        return path
    for _ in range(_ATTEMPTS):
        # Each time: a holder that made the folder and stored nothing removes it as it ends.
        folder.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except FileNotFoundError:
            continue  # the folder went between the two steps
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, _LINE_LIMIT, 0).decode("utf-8", "replace").strip()
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            from pacman.describe import clean

            who = clean(holder.splitlines()[0]) if holder else "a process that has not said who"
            raise LockHeld(f"{folder} is in use by {who}; wait until it ends, or stop it, and "
                           "run this again") from None
        if _still_there(fd, path):
            break
        # The holder we waited on removed the file (`discard`) before letting go: this lock
        # is on a file no one else will open, so take the one at the path now.
        os.close(fd)
    else:
        raise OSError(errno.EAGAIN, f"{path} kept being removed while it was being taken")
    line = (holder_line(command) + "\n").encode("utf-8", "replace")
    os.ftruncate(fd, 0)
    os.pwrite(fd, line, 0)
    _held[folder] = fd
    return path


def _still_there(fd: int, path: Path) -> bool:
    """Whether `path` still names the file open as `fd`."""
    try:
        named = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def discard(folder: Path) -> None:
    """Remove the lock file of `folder`, which this process holds, and give the lock back:
    for a command that made the folder and leaves nothing in it. Removed while held, so a
    process that opened the file meanwhile sees, once it has the lock, that the path no
    longer names its file, and takes a new one (`acquire`)."""
    folder = folder.resolve()
    if folder in _held:
        (folder / LOCK_FILE).unlink(missing_ok=True)
    release(folder)


def release(folder: Path) -> None:
    """Give the lock of `folder` back before this process ends (tests; a command simply
    ends). The holder line stays: without the lock it means nothing."""
    fd = _held.pop(folder.resolve(), None)
    if fd is not None:
        os.close(fd)  # closing the last descriptor releases the flock
