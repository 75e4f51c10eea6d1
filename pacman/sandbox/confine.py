"""Confinement layers a sandboxed agent's process applies to itself before any team code runs.

Each layer is independent and reported by name: where the kernel lacks a feature, the layer
says why it is missing and the others still apply. `STOPS` says what each one stops, in the
order the child applies them (the cgroup is made by the referee, from outside).

This module only uses the standard library and ctypes: it runs in the child before the
engine's own modules are needed.
"""

from __future__ import annotations

import ctypes
import os
import platform
import resource
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: What each layer stops, in the order they are applied; `pacman sandbox-check` and the
#: README's table say the same.
STOPS: dict[str, str] = {
    "namespaces": "new user, network, PID, IPC, UTS and mount namespaces: no network at all, "
                  "no other process in sight (the agent is process 1 of its own), no shared "
                  "IPC, not even the host's name",
    "mounts": "a minimal read-only root (interpreter, engine, libraries, its own team folder) "
              "and a size-capped tmpfs scratch: nothing else of the host exists for it, so it "
              "cannot read, stat, watch, chmod or fill it",
    "rlimits": "address space, CPU seconds, file size, open files, no core dumps",
    "landlock": "the kernel refuses opening anything outside the interpreter, the engine, "
                "its team folder (read) and its scratch (write); TCP too",
    "uid": "a uid of its own per worker slot: the host's file permissions apply to it",
    "capabilities": "every capability dropped, even inside its namespaces",
    "seccomp": "an allow list of system calls: no sockets, processes, programs, metadata "
               "changes (chmod, chown, times, xattrs), links, pipes, memfd, inotify, locks, "
               "tracing; everything not listed is refused",
    "cgroup": "resident memory (scratch and shared memory included), process and thread "
              "count, a one-CPU share, and every process killed when the game ends",
}
LAYERS = tuple(STOPS)

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
#: The host name an agent sees (its own UTS namespace): not the organizer's machine's.
HOSTNAME = "sandbox"
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_THREAD = 0x00010000

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_SET_DUMPABLE = 4
SECCOMP_MODE_FILTER = 2

#: First uid of the per-slot uids (slot n plays as FIRST_SLOT_UID + n).
FIRST_SLOT_UID = 61000

_libc: ctypes.CDLL | None = None


def prof_clock(pid: int) -> int:
    """The clock id of process `pid`'s profiling CPU clock (user and system time, counted
    by ticks: the clock RLIMIT_CPU is checked against): Linux's MAKE_PROCESS_CPUCLOCK(pid,
    CPUCLOCK_PROF). Read by the referee and by the keeper. Pure."""
    return (~pid) << 3


def libc() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
        _libc.prctl.restype = ctypes.c_int
    return _libc


class LayerUnavailable(Exception):
    """A layer the kernel or the situation does not allow; the message says which and why."""


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise LayerUnavailable(f"{what}: {os.strerror(err)}")
    return result


@dataclass(frozen=True)
class Plan:
    """What the child confines itself with; built by the referee, sent as plain data."""

    workdir: str
    read_paths: tuple[str, ...]
    #: An empty host folder on which the mounts layer builds the agent's root.
    root: str = ""
    scratch_bytes: int = 64 * 1024 * 1024
    scratch_files: int = 4096
    #: Folders the mounts layer covers, each with the file names it keeps (see `mounts`).
    hidden: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The agent's folder, shown by the mounts layer as `team_source`, a copy of its hashed
    #: files only (see `mounts.View.team`); '' when it is bound as it is.
    team: str = ""
    team_source: str = ""
    memory_bytes: int | None = None
    cpu_seconds: int | None = None
    file_bytes: int = 64 * 1024 * 1024
    open_files: int = 256
    processes: int = 64
    uid: int | None = None
    layers: tuple[str, ...] = LAYERS

    def cpu_limit(self) -> int | None:
        """The CPU seconds at which the kernel signals the agent (RLIMIT_CPU's soft limit),
        None when the plan sets none."""
        if self.cpu_seconds is None or "rlimits" not in self.layers:
            return None
        return max(1, self.cpu_seconds)

    def to_json(self) -> dict[str, object]:
        return {
            "workdir": self.workdir,
            "read_paths": list(self.read_paths),
            "root": self.root,
            "scratch_bytes": self.scratch_bytes,
            "scratch_files": self.scratch_files,
            "hidden": [[folder, list(keep)] for folder, keep in self.hidden],
            "team": self.team,
            "team_source": self.team_source,
            "memory_bytes": self.memory_bytes,
            "cpu_seconds": self.cpu_seconds,
            "file_bytes": self.file_bytes,
            "open_files": self.open_files,
            "processes": self.processes,
            "uid": self.uid,
            "layers": list(self.layers),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Plan:
        return cls(
            workdir=str(data["workdir"]),
            read_paths=tuple(str(p) for p in data["read_paths"]),  # type: ignore[attr-defined]
            root=str(data["root"]),
            scratch_bytes=int(data["scratch_bytes"]),  # type: ignore[call-overload]
            scratch_files=int(data["scratch_files"]),  # type: ignore[call-overload]
            hidden=tuple((str(folder), tuple(str(n) for n in keep))
                         for folder, keep in data["hidden"]),  # type: ignore[attr-defined]
            team=str(data["team"]),
            team_source=str(data["team_source"]),
            memory_bytes=data["memory_bytes"],  # type: ignore[arg-type]
            cpu_seconds=data["cpu_seconds"],  # type: ignore[arg-type]
            file_bytes=int(data["file_bytes"]),  # type: ignore[call-overload]
            open_files=int(data["open_files"]),  # type: ignore[call-overload]
            processes=int(data["processes"]),  # type: ignore[call-overload]
            uid=data["uid"],  # type: ignore[arg-type]
            layers=tuple(str(x) for x in data["layers"]),  # type: ignore[attr-defined]
        )


@dataclass
class Report:
    """Which layers are on, and why the others are not."""

    active: list[str] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)

    def run(self, name: str, plan: Plan, action: object) -> bool:
        if name not in plan.layers:
            self.missing[name] = "switched off"
            return False
        try:
            action()  # type: ignore[operator]
        except (LayerUnavailable, OSError, ValueError) as exc:
            self.missing[name] = str(exc)
            return False
        self.active.append(name)
        return True


# --- namespaces --------------------------------------------------------------------------------


def unshare_namespaces(as_root: bool, with_user: bool, mount: bool) -> None:
    """New network, PID and IPC namespaces (and a user namespace unless `with_user` is off,
    and a mount namespace for the mounts layer when `mount`).

    The PID namespace takes effect for the caller's next child: the caller must fork, and the
    child becomes process 1 of the namespace.
    """
    flags = (CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
             | (CLONE_NEWNS if mount else 0))
    if with_user:
        flags |= CLONE_NEWUSER
    elif not as_root:
        raise LayerUnavailable("namespaces: need root or user namespaces")
    uid, gid = os.geteuid(), os.getegid()
    _check(libc().unshare(flags), "namespaces: unshare")
    if with_user:
        # Map our own ids to themselves: file ownership looks as it did, and nothing else is
        # mapped, so no other user's files can be owned inside.
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    name = HOSTNAME.encode()
    _check(libc().sethostname(name, len(name)), "namespaces: sethostname")


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w") as fh:
            fh.write(text)
    except OSError as exc:
        raise LayerUnavailable(f"namespaces: writing {path}: {exc.strerror}") from exc


# --- rlimits -------------------------------------------------------------------------------------


def apply_rlimits(plan: Plan) -> None:
    def cap(which: int, value: int) -> None:
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cap(resource.RLIMIT_FSIZE, plan.file_bytes)
    cap(resource.RLIMIT_NOFILE, plan.open_files)
    if plan.memory_bytes is not None:
        cap(resource.RLIMIT_AS, plan.memory_bytes)
    soft = plan.cpu_limit()
    if soft is not None:
        # The soft limit sends SIGXCPU (which ends the process); the hard one SIGKILL after it.
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))
    if os.geteuid() != 0 or (plan.uid is not None and "uid" in plan.layers):
        # RLIMIT_NPROC counts every process of the real uid, so it only bounds a fork bomb
        # where the uid is the agent's own (a slot uid); root ignores it anyway.
        cap(resource.RLIMIT_NPROC, plan.processes)


# --- landlock -----------------------------------------------------------------------------------

_LL_CREATE = 444
_LL_ADD_RULE = 445
_LL_RESTRICT = 446
_LL_VERSION = 1
_LL_PATH_BENEATH = 1

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13
FS_TRUNCATE = 1 << 14
FS_IOCTL_DEV = 1 << 15
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX = 1 << 0
SCOPE_SIGNAL = 1 << 1


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when it has none."""
    result = libc().syscall(_LL_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(_LL_VERSION))
    return max(0, int(result))


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def apply_landlock(read_paths: tuple[str, ...], write_paths: tuple[str, ...]) -> None:
    """Only `read_paths` (read, execute) and `write_paths` (everything) stay reachable."""
    abi = landlock_abi()
    if abi < 1:
        raise LayerUnavailable("landlock: not supported by this kernel")
    handled = _fs_rights(abi)
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL if abi >= 6 else 0
    if abi >= 6:
        attr = struct.pack("QQQ", handled, net, scoped)
    elif abi >= 4:
        attr = struct.pack("QQ", handled, net)
    else:
        attr = struct.pack("Q", handled)
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = _check(
        libc().syscall(_LL_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
        "landlock: create ruleset",
    )
    try:
        file_rights = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE
        if abi >= 3:
            file_rights |= FS_TRUNCATE
        read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
        for paths, rights in ((read_paths, read), (write_paths, handled)):
            for path in paths:
                _allow(fd, path, rights, file_rights)
        if libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise LayerUnavailable("landlock: cannot set no_new_privs")
        _check(libc().syscall(_LL_RESTRICT, fd, ctypes.c_uint32(0)), "landlock: restrict_self")
    finally:
        os.close(fd)


def _allow(ruleset: int, path: str, rights: int, file_rights: int) -> None:
    try:
        pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this machine lacks (no /lib64, say) needs no rule
    try:
        if not os.path.isdir(path):
            rights &= file_rights
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, pfd), 12)
        _check(
            libc().syscall(_LL_ADD_RULE, ruleset, ctypes.c_int(_LL_PATH_BENEATH), rule,
                           ctypes.c_uint32(0)),
            f"landlock: rule for {path}",
        )
    finally:
        os.close(pfd)


# --- uid -------------------------------------------------------------------------------------


def world_readable(path: str) -> bool:
    """Whether another user could read `path`: every folder above it searchable by others."""
    p = Path(path).resolve()
    for part in [p, *p.parents]:
        try:
            mode = part.stat().st_mode
        except OSError:
            return False
        # The path itself must be readable (and listable); the folders above, searchable.
        needed = 0o001 if part != p else 0o005 if part.is_dir() else 0o004
        if mode & needed != needed:
            return False
    return True


def uid_problem() -> str:
    """Why a separate uid per slot cannot be used here ('' when it can)."""
    if os.geteuid() != 0:
        return "the referee does not run as root, so it cannot switch uids"
    for path in {sys.executable, sys.prefix, sys.base_prefix}:
        if not world_readable(path):
            return f"{path} is not readable by other users"
    return ""


def switch_uid(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


# --- capabilities ------------------------------------------------------------------------------

_CAPSET = {"x86_64": 126, "aarch64": 91}


def drop_capabilities() -> None:
    nr = _CAPSET.get(platform.machine())
    if nr is None:
        raise LayerUnavailable(f"capabilities: unknown machine {platform.machine()}")
    header = ctypes.create_string_buffer(struct.pack("Ii", 0x20080522, 0), 8)
    data = ctypes.create_string_buffer(bytes(24), 24)  # two empty (eff, perm, inh) sets
    _check(libc().syscall(nr, header, data), "capabilities: capset")


# --- seccomp -----------------------------------------------------------------------------------


def apply_seccomp() -> None:
    """Install the allow list (see `seccomp.py`) for this process and its future threads."""
    from pacman.sandbox import seccomp

    try:
        seccomp.install(seccomp.program_for(os.getpid()))
    except seccomp.SeccompUnavailable as exc:
        raise LayerUnavailable(str(exc)) from exc
