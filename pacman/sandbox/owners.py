"""Which referee owns a sandbox's leftovers, so that a sweep removes only those of dead ones.

A referee names its sandboxes' scratch folders and cgroups after itself, so that a later
referee can remove what a killed one (SIGKILL, a worker ended by its watchdog) left behind.
A pid alone does not name a process across pid namespaces: a Dask worker in a container
(or a simulated node of the tests, `unshare --pid`) sees the host's cgroup tree, and maybe
its temporary folder, yet pid 4821 of the host is no process of its own namespace. Judged by
its pid alone, every live sandbox of another namespace looked dead to it and was swept, its
processes killed: a game stored as `infra_error` on a busy machine. So the owner is the pid
*and* the pid namespace (the inode of `/proc/self/ns/pid`), and a sweep judges only the
leftovers of its own namespace. Names from before this (a pid only) are judged only in the
initial pid namespace, where their pids were taken.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache

#: The inode of the initial pid namespace (the kernel's PROC_PID_INIT_INO).
INITIAL_PID_NAMESPACE = "4026531836"


@lru_cache(maxsize=1)
def _namespace_of(pid: int) -> str:
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "0"  # no /proc: one namespace as far as this process can tell


def pid_namespace() -> str:
    """This process's pid namespace as text (its inode), cached per process."""
    return _namespace_of(os.getpid())


def owner_tag() -> str:
    """`<pid>-<pid namespace>`: how a referee signs the leftovers its sandboxes may leave."""
    return f"{os.getpid()}-{pid_namespace()}"


def alive(pid: int) -> bool:
    """Whether a process of this pid namespace has this pid (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stale(pid: str, namespace: str | None, alive: Callable[[int], bool]) -> bool:
    """Whether leftovers signed by (`pid`, `namespace`) belong to a referee that is gone:
    only one of this pid namespace can be judged (None: an old name without one, judged in
    the initial namespace only)."""
    if not pid.isdigit():
        return False
    own = pid_namespace()
    if namespace is None:
        return own == INITIAL_PID_NAMESPACE and not alive(int(pid))
    return namespace == own and not alive(int(pid))
