"""The seccomp layer: a default-deny allow list of system calls, compiled by libseccomp.

An agent computes: it reads its own files, allocates memory, runs threads, keeps time and
writes to its scratch folder. Everything else (sockets of any kind, new processes, running
programs, file metadata such as modes, owners, times and extended attributes, links, pipes,
anonymous memory files, file change notifications, locks, tracing, mounts, namespaces, keys,
BPF, io_uring, shared futexes, page cache advice...) is denied with EPERM. An allow list,
unlike a list of forbidden calls, also denies the calls nobody thought of and those a future
kernel adds.

The filter is built with libseccomp (`libseccomp.so.2`, in every Debian and Ubuntu install:
apt itself depends on it) through a thin ctypes binding: the library knows every
architecture's system call numbers and compiles the rules, including the argument checks,
into BPF. The zygote loads the library before it forks; each sandbox compiles its program
(it names the process's own pid) and installs it with one prctl. Calls from another
architecture's ABI (x32, i386 through int 0x80) kill the process.

Pure module: only the standard library and ctypes, usable before the engine is imported.
"""

from __future__ import annotations

import ctypes
import errno
import os
from dataclasses import dataclass

#: Calls allowed whatever their arguments, by purpose.
ALLOWED: dict[str, tuple[str, ...]] = {
    "memory": ("brk", "mmap", "munmap", "mremap", "mprotect", "msync", "mbind"),
    "files": (
        "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
        "preadv2", "pwritev2", "lseek", "close", "close_range", "open", "openat", "creat",
        "stat", "fstat", "lstat", "newfstatat", "statx", "access", "faccessat", "faccessat2",
        "getdents", "getdents64", "readlink", "readlinkat", "getcwd", "chdir", "fchdir",
        "dup", "dup2", "dup3", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename",
        "renameat", "renameat2", "ftruncate", "truncate", "fsync", "fdatasync", "umask",
        "sendfile", "copy_file_range",
    ),
    "time": (
        "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep",
        "clock_nanosleep", "alarm", "setitimer", "getitimer",
    ),
    "signals": (
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend",
        "rt_sigtimedwait", "sigaltstack", "pause", "restart_syscall",
    ),
    "identity": (
        "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getgroups",
        "getresuid", "getresgid", "getpgrp", "getpgid", "getsid", "uname", "getrlimit",
        "getrusage", "times", "getpriority", "getcpu", "sched_getaffinity",
        "sched_yield", "sched_getparam", "sched_getscheduler", "arch_prctl",
    ),
    "threads": (
        "set_tid_address", "set_robust_list", "get_robust_list", "rseq", "exit", "exit_group",
    ),
    "waiting": (
        "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl",
        "epoll_wait", "epoll_pwait", "epoll_pwait2",
    ),
    "randomness": ("getrandom",),
}

CLONE_THREAD = 0x00010000
#: Stands for the sandboxed process's own pid in `ARGUMENTS` (known only when it installs).
SELF = -1
#: Calls allowed only with some arguments: name -> (argument index, allowed values, mask).
ARGUMENTS: dict[str, tuple[int, tuple[int, ...], int]] = {
    # Signals to itself only (raise() and abort() use tgkill): without a PID namespace
    # another process of the same user (its keeper, in its process group) would be in reach.
    "kill": (0, (SELF,), 0xFFFFFFFF),
    "tgkill": (0, (SELF,), 0xFFFFFFFF),
    # Threads, never processes: clone with CLONE_THREAD set.
    "clone": (0, (CLONE_THREAD,), CLONE_THREAD),
    # Descriptor flags and duplication only: no locks (a channel between sandboxes through a
    # shared read-only file), leases, directory notifications, pipe sizes or seals.
    # F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC.
    "fcntl": (1, (0, 1, 2, 3, 4, 1030), 0xFFFFFFFF),
    # Is it a terminal, its size, bytes waiting, close-on-exec and non-blocking flags.
    # TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX.
    "ioctl": (1, (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451), 0xFFFFFFFF),
    # A thread's name (PR_SET_NAME, PR_GET_NAME) and glibc's names for its memory areas.
    "prctl": (0, (15, 16, 0x53564D41), 0xFFFFFFFF),
    # Private futexes only (FUTEX_PRIVATE_FLAG set: keyed by the process's own memory, which
    # is what threads use): a shared futex on a file both map (even read-only) would be a
    # channel between two sandboxes.
    "futex": (1, (128,), 128),
    # Advice about its own memory; not the kinds that evict shared pages of a file from the
    # page cache (MADV_COLD, MADV_PAGEOUT, MADV_REMOVE), which another sandbox could time.
    # MADV_NORMAL, RANDOM, SEQUENTIAL, WILLNEED, DONTNEED, FREE, HUGEPAGE, NOHUGEPAGE.
    "madvise": (2, (0, 1, 2, 3, 4, 8, 14, 15), 0xFFFFFFFF),
}
#: Calls allowed only when every condition holds: name -> ((argument index, mask, value), ...).
ALL_OF: dict[str, tuple[tuple[int, int, int], ...]] = {
    # Reading its own limits only (pid 0, no new limit): setting them would let it raise its
    # CPU soft limit to the hard one, and lowering the referee's (same user) fail it.
    "prlimit64": ((0, 0xFFFFFFFF, 0), (2, 0xFFFFFFFFFFFFFFFF, 0)),
}
#: Calls that fail with ENOSYS, so that the C library falls back to an older call the list
#: checks (glibc starts threads with clone3 and falls back to clone only on ENOSYS).
UNSUPPORTED = ("clone3",)

SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_FLTATR_ACT_BADARCH = 2
SCMP_FLTATR_CTL_NNP = 3
SCMP_CMP_MASKED_EQ = 7
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


def errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


#: What every call outside the list gets.
DEFAULT_ACTION = errno_action(errno.EPERM)


class SeccompUnavailable(Exception):
    """libseccomp is missing or refused the filter; the message says which."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


@dataclass(frozen=True)
class Program:
    """A compiled filter: BPF instructions as raw bytes (8 bytes each)."""

    code: bytes

    @property
    def length(self) -> int:
        return len(self.code) // 8

    def instructions(self) -> list[tuple[int, int, int, int]]:
        """(code, jt, jf, k) per instruction, for tests that read the program."""
        out = []
        for i in range(0, len(self.code), 8):
            chunk = self.code[i:i + 8]
            out.append((int.from_bytes(chunk[0:2], "little"), chunk[2], chunk[3],
                        int.from_bytes(chunk[4:8], "little")))
        return out


_lib: ctypes.CDLL | None = None


def _library() -> ctypes.CDLL:
    """libseccomp, loaded once per process (by the zygote, before it forks sandboxes)."""
    global _lib
    if _lib is not None:
        return _lib
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(
            "libseccomp is not installed (Debian/Ubuntu: apt install libseccomp2)") from exc
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(_ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    _lib = lib
    return lib


def _check(result: int, what: str) -> None:
    if result < 0:
        raise SeccompUnavailable(f"libseccomp: {what}: {os.strerror(-result)}")


def compile_program(pid: int) -> Program:
    """The filter for process `pid` (as it sees itself), compiled for this machine."""
    lib = _library()
    ctx = lib.seccomp_init(DEFAULT_ACTION)
    if not ctx:
        raise SeccompUnavailable("libseccomp: seccomp_init failed")
    try:
        _check(lib.seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
               "bad-architecture action")
        for names in ALLOWED.values():
            for name in names:
                _add(lib, ctx, SCMP_ACT_ALLOW, name, ())
        for name, (arg, values, mask) in ARGUMENTS.items():
            for value in values:
                value = pid if value == SELF else value
                _add(lib, ctx, SCMP_ACT_ALLOW, name, ((arg, mask, value),))
        for name, conditions in ALL_OF.items():
            _add(lib, ctx, SCMP_ACT_ALLOW, name, conditions)
        for name in UNSUPPORTED:
            _add(lib, ctx, errno_action(errno.ENOSYS), name, ())
        # A pipe rather than a file: this runs where the file system may already be gone.
        # The program (a few KiB) fits in the pipe's buffer.
        read_end, write_end = os.pipe()
        try:
            _check(lib.seccomp_export_bpf(ctx, write_end), "export")
            os.close(write_end)
            write_end = -1
            chunks = []
            while chunk := os.read(read_end, 1 << 16):
                chunks.append(chunk)
            code = b"".join(chunks)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
    finally:
        lib.seccomp_release(ctx)
    if not code or len(code) % 8:
        raise SeccompUnavailable("libseccomp: exported an empty or malformed program")
    return Program(code)


def _add(lib: ctypes.CDLL, ctx: int, action: int, name: str,
         conditions: tuple[tuple[int, int, int], ...]) -> None:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr == -1:  # a name this libseccomp does not know at all
        raise SeccompUnavailable(f"libseccomp does not know the system call {name}")
    cmps = (_ArgCmp * max(1, len(conditions)))()
    for i, (arg, mask, value) in enumerate(conditions):
        cmps[i] = _ArgCmp(arg, SCMP_CMP_MASKED_EQ, mask, value)
    # A call this architecture lacks (open on aarch64) resolves to a negative pseudo number
    # that libseccomp accepts and leaves out of the program.
    _check(lib.seccomp_rule_add_array(ctx, action, nr, len(conditions), cmps), f"rule {name}")


_compiled: dict[int, Program] = {}


def program_for(pid: int) -> Program:
    """The program for `pid`, compiled once per pid: the zygote compiles the one for pid 1
    (every agent in its own PID namespace) before it forks, so most starts reuse it."""
    if pid not in _compiled:
        _compiled[pid] = compile_program(pid)
    return _compiled[pid]


def install(prog: Program) -> None:
    """Confine the calling process (and the threads it starts later) with `prog`."""

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buf = ctypes.create_string_buffer(prog.code, len(prog.code))
    fprog = SockFprog(prog.length, ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SeccompUnavailable("seccomp: cannot set no_new_privs")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise SeccompUnavailable(f"seccomp: install: {os.strerror(ctypes.get_errno())}")


def allowed_names() -> set[str]:
    """Every call the list allows in some form (for the documentation and the tests)."""
    names = {name for group in ALLOWED.values() for name in group}
    return names | set(ARGUMENTS) | set(ALL_OF)

