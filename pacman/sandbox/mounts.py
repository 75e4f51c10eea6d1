"""The mounts layer: the agent's file system is a minimal read-only root and a small scratch.

In a private mount namespace (unshared by the sandbox's keeper), the agent process builds a
new root on an empty tmpfs: the interpreter, the engine and the system libraries bound
read-only (no setuid, and no devices except /dev/null, /dev/zero and /dev/urandom), its own
team folder as a read-only copy of exactly the files its submission hash covers, made by the
referee (`View.team`), and its working folder as a tmpfs of its own whose size and number of
files are capped. Then it pivots into that root and detaches the old one. What it cannot
see it cannot open, stat, watch, chmod or fill: another team's folder, the results database,
/etc, /proc, /tmp and every other sandbox's scratch are simply not there, and its scratch
space is memory that its cgroup counts, gone when its game ends. Paths stay those of the
host, so tracebacks, `__file__` and the team's imports read as they do outside. Inside the
bound folders, some are covered (`View.hidden`): the engine's package by an allow list of its
sources (`process.engine_view`: no baseline, search or game code, which a team must not play
as its own, and no compiled build or cache, which holds that code too), the organizer's side
beside it, and, when a folder is bound as it is (the `pacman` command on a folder that is no
team folder), its `__pycache__`, whose compiled files must never stand in for its sources.

Every path is bound at its real location (a symlink on the way, such as /lib -> usr/lib, is
recreated as a symlink), so the same names resolve inside and outside.
"""

from __future__ import annotations

import ctypes
import os
import platform
import re
import struct
from dataclasses import dataclass

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
MOUNT_ATTR_RDONLY = 1
MOUNT_ATTR_NOSUID = 2
MOUNT_ATTR_NODEV = 4
MOUNT_ATTR_NOEXEC = 8
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
_MOUNT_SETATTR = 442
#: statvfs flags of a mount -> mount(2) flags, carried over when remounting read-only (the
#: kernel refuses to drop flags locked by a less privileged namespace).
_KEEP_FLAGS = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
               os.ST_NOATIME: 1024, os.ST_NODIRATIME: 2048, os.ST_RELATIME: 1 << 21}
#: Device nodes an agent may use (written to, for /dev/null).
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")
#: The new root's own tmpfs: only mount points, then read-only.
ROOT_OPTIONS = "size=1m,nr_inodes=4096,mode=0755"


class MountsUnavailable(Exception):
    """The kernel refused a step before anything changed for the process; the message names
    it. The agent may go on without this layer (its namespace's half-built mounts are private
    and out of its view)."""


class MountsBroken(RuntimeError):
    """A step after the pivot failed: the process's view is neither the old nor the new one,
    so the sandbox must not go on (its start fails, as the platform's failure)."""


@dataclass(frozen=True)
class View:
    """The file system an agent sees."""

    #: An empty folder on the host on which the new root is built.
    root: str
    #: Bound read-only (folders or files).
    read_paths: tuple[str, ...]
    #: The agent's working folder: a tmpfs of this many bytes and files.
    scratch: str
    scratch_bytes: int
    scratch_files: int
    #: Owner of the scratch (the per-slot uid when that layer is on), else the caller.
    owner: int | None = None
    #: Folders inside the bound ones that the agent must not see: each becomes an empty
    #: read-only folder but for the files kept, paths relative to it (the engine's package
    #: shows its allowed sources only; the organizer's side and the team's own
    #: `__pycache__` show nothing).
    hidden: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The agent's own folder, shown as `team_source` (a copy of its hashed files only, see
    #: `pacman.teamfolder.team_digest`) bound there read-only, when `team` is not ''.
    team: str = ""
    team_source: str = ""


def _libc() -> ctypes.CDLL:
    lib = ctypes.CDLL(None, use_errno=True)
    lib.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                          ctypes.c_char_p]
    lib.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.syscall.restype = ctypes.c_long
    return lib


def _mount(lib: ctypes.CDLL, source: str | None, target: str, fstype: str | None,
           flags: int, data: str | None, what: str) -> None:
    if lib.mount(None if source is None else source.encode(), target.encode(),
                 None if fstype is None else fstype.encode(), flags,
                 None if data is None else data.encode()) != 0:
        raise MountsUnavailable(f"mounts: {what} {target}: {os.strerror(ctypes.get_errno())}")


def _set_attributes(lib: ctypes.CDLL, path: str, attrs: int, recursive: bool) -> None:
    """Add mount attributes to `path` (and the mounts below it); nothing else changes."""
    attr = struct.pack("QQQQ", attrs, 0, 0, 0)
    buf = ctypes.create_string_buffer(attr, len(attr))
    flags = AT_RECURSIVE if recursive else 0
    result = lib.syscall(_MOUNT_SETATTR, ctypes.c_int(AT_FDCWD), path.encode(),
                         ctypes.c_uint(flags), buf, ctypes.c_size_t(len(attr)))
    if result == 0:
        return
    # Kernels before 5.12: a bind remount of each mount, carrying the flags it already has
    # (a remount changes one mount, so `recursive` means every mount at or below `path`).
    # (Only a recursive one reads /proc: after the pivot there is none in the view.)
    points = [path]
    if recursive:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
            points = mounts_under(fh.read(), path) or [path]
    for point in points:
        keep = 0
        vfs = os.statvfs(point)
        for st_flag, ms_flag in _KEEP_FLAGS.items():
            if vfs.f_flag & st_flag:
                keep |= ms_flag
        wanted = keep | MS_BIND | MS_REMOUNT
        wanted |= MS_RDONLY if attrs & MOUNT_ATTR_RDONLY else 0
        wanted |= MS_NOSUID if attrs & MOUNT_ATTR_NOSUID else 0
        wanted |= MS_NODEV if attrs & MOUNT_ATTR_NODEV else 0
        _mount(lib, None, point, None, wanted, None, "read-only remount of")


def mounts_under(mountinfo: str, path: str) -> list[str]:
    """The mount points at or below `path` in the text of /proc/self/mountinfo (its fifth
    field, octal escapes undone), outermost first. Pure."""
    inside = path.rstrip("/") + "/"
    points = set()
    for line in mountinfo.splitlines():
        fields = line.split(" ")
        if len(fields) > 4:
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            if point == path or point.startswith(inside):
                points.add(point)
    return sorted(points, key=lambda p: (p.count("/"), p))


def _inside(root: str, path: str) -> str:
    return root + path if path != "/" else root


def _make_point(root: str, path: str, is_dir: bool) -> None:
    target = _inside(root, path)
    os.makedirs(target if is_dir else os.path.dirname(target), exist_ok=True)
    if not is_dir and not os.path.exists(target):
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))


def _link_aliases(root: str, path: str) -> str:
    """Recreate, inside `root`, every symlink met on the way to `path`; its real location."""
    parts = [p for p in path.split("/") if p]
    current = "/"
    for part in parts:
        step = os.path.join(current, part)
        if os.path.islink(step):
            target = os.readlink(step)
            inside = _inside(root, step)
            if not os.path.lexists(inside):
                os.makedirs(os.path.dirname(inside), exist_ok=True)
                os.symlink(target, inside)
            step = os.path.realpath(step)
        current = step
    return os.path.realpath(path)


def bind_plan(read_paths: tuple[str, ...]) -> list[str]:
    """The real paths to bind, outermost first, leaving out those inside another (a bind is
    recursive, so they are visible already). Pure apart from resolving links."""
    real = sorted({os.path.realpath(p) for p in read_paths if os.path.lexists(p)},
                  key=lambda p: (p.count("/"), p))
    chosen: list[str] = []
    for path in real:
        if not any(path == c or path.startswith(c.rstrip("/") + "/") for c in chosen):
            chosen.append(path)
    return chosen


def _hide(lib: ctypes.CDLL, root: str, folder: str, keep: tuple[str, ...]) -> None:
    """Cover `folder` (as bound inside `root`) with an empty read-only tmpfs, then bind back
    the files of `keep` (paths relative to it, in subfolders too) from the original: an
    allow list of what is seen there."""
    real = os.path.realpath(folder)
    target = _inside(root, real)
    if not os.path.isdir(target):
        return
    _mount(lib, "tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
           f"size=64k,nr_inodes={64 + 2 * len(keep)},mode=0755", "hiding")
    for name in keep:
        source = os.path.join(real, name)
        # Only the regular file itself, reached through no link.
        if os.path.realpath(source) == source and os.path.isfile(source):
            _make_point(root, os.path.join(real, name), False)
            _mount(lib, source, os.path.join(target, name), None, MS_BIND, None, "binding")
    # The cover and every file bound on it, read-only in one call.
    _set_attributes(lib, target, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                    True)


def enter(view: View) -> None:
    """Build the agent's root and move into it. Must run in a fresh mount namespace."""
    lib = _libc()
    machine = platform.machine()
    if machine not in _PIVOT_ROOT:
        raise MountsUnavailable(f"mounts: no pivot_root number for {machine}")
    # Nothing done below may propagate back to the host's mounts.
    _mount(lib, None, "/", None, MS_REC | MS_PRIVATE, None, "making private")
    root = view.root
    _mount(lib, "tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, ROOT_OPTIONS, "a tmpfs on")
    for path in view.read_paths:
        if os.path.lexists(path):
            _link_aliases(root, path)
    bound = tuple(p for p in view.read_paths if not view.team or p != view.team)
    for path in bind_plan(bound):
        _make_point(root, path, os.path.isdir(path))
        target = _inside(root, path)
        _mount(lib, path, target, None, MS_BIND | MS_REC, None, "binding")
        _set_attributes(lib, target, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                        recursive=True)
    for device in DEVICES:
        if os.path.exists(device):
            _make_point(root, device, False)
            target = _inside(root, device)
            _mount(lib, device, target, None, MS_BIND, None, "binding")
            _set_attributes(lib, target, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, False)
    if view.team:
        # The team's view: a copy of its hashed files only, made by the referee.
        _make_point(root, view.team, True)
        target = _inside(root, view.team)
        _mount(lib, view.team_source, target, None, MS_BIND, None, "binding")
        _set_attributes(lib, target, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV
                        | MOUNT_ATTR_NOEXEC, False)
    for folder, keep in view.hidden:
        _hide(lib, root, folder, keep)
    scratch = _inside(root, view.scratch)
    os.makedirs(scratch, exist_ok=True)
    options = f"size={view.scratch_bytes},nr_inodes={view.scratch_files},mode=0700"
    if view.owner is not None:
        options += f",uid={view.owner},gid={view.owner}"
    _mount(lib, "tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options,
           "the scratch tmpfs on")
    # pivot_root(".", "."): the old root ends up stacked on the new one and is detached.
    os.chdir(root)
    if lib.syscall(_PIVOT_ROOT[machine], b".", b".") != 0:
        raise MountsUnavailable(f"mounts: pivot_root: {os.strerror(ctypes.get_errno())}")
    try:
        if lib.umount2(b".", MNT_DETACH) != 0:
            raise MountsUnavailable(f"detaching the old root: {os.strerror(ctypes.get_errno())}")
        os.chdir("/")
        _set_attributes(lib, "/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                        False)
        os.chdir(view.scratch)
    except (MountsUnavailable, OSError) as exc:
        raise MountsBroken(f"mounts: after the pivot: {exc}") from exc
