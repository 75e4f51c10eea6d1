"""A warm process that forks sandboxes, so starting one costs a fork, not a Python start-up.

Starting Python and importing the engine takes about 60 ms of CPU; a tournament pays it for
every agent of every game. The zygote pays it once per referee process: it is started with
`python -I`, imports everything a sandbox needs, and then only ever forks. It never runs team
code itself, and holds nothing a sandbox should not see (it has no state of the referee's).
In particular it starts with an environment of its own (`ZYGOTE_ENVIRONMENT`), not the
organizer's: the strings the kernel copies onto a new process's stack stay readable in every
fork, whatever `os.environ` says later, so secrets must never be there in the first place.

The referee talks to it over a Unix socket pair (SOCK_SEQPACKET, one message per packet):
`spawn` hands it the sandbox's pipe and log descriptors (SCM_RIGHTS), the working folder and
the environment; it answers with the new process's pid, and later tells how that process
ended (the zygote is its parent, so only it can wait for it). If the zygote dies, the next
sandbox starts a new one.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pacman
from pacman import compiled

PACKAGE_ROOT = Path(pacman.__file__).resolve().parent.parent
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from pacman.sandbox.zygote import serve; serve(int(sys.argv[2]))"
)
PR_SET_PDEATHSIG = 1


#: The zygote's whole environment: nothing of the organizer's (tokens, keys, passwords). Its
#: sandboxes run the engine's Python sources even where the compiled build is (`pacman.compiled`):
#: a team's code meets the course API exactly as the sources define it, and has the same speed
#: whichever build the organizer runs, so a tournament's results do not depend on it.
ZYGOTE_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", compiled.PURE_VARIABLE: "1"}
#: Variables passed on where set, because an interpreter may need them to start.
PASSED_ON = ("LD_LIBRARY_PATH",)


def zygote_environment() -> dict[str, str]:
    env = dict(ZYGOTE_ENVIRONMENT)
    for name in PASSED_ON:
        if name in os.environ:
            env[name] = os.environ[name]
    return env


class ZygoteGone(RuntimeError):
    """The zygote process is not there any more."""


# --- the zygote's side -------------------------------------------------------------------------


def serve(fd: int) -> None:
    """Fork a sandbox per request until the referee goes away."""
    from pacman.sandbox import child, confine

    child.warm_up()
    confine.libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # Not dumpable: a process of the same user cannot trace it or read its memory through
    # /proc, should an agent ever run without the layers that hide it.
    confine.libc().prctl(confine.PR_SET_DUMPABLE, 0, 0, 0, 0)
    sock = socket.socket(fileno=fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    while True:
        try:
            ready, _, _ = select.select([fd, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in ready:
            os.read(wake_r, 512)
        _reap(sock)
        if fd not in ready:
            continue
        data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
        if not data:
            os._exit(0)
        request = json.loads(data)
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.close(wake_r)
            os.close(wake_w)
            sock.close()
            _become_sandbox(request, fds)
        for passed in fds:
            os.close(passed)
        sock.send(json.dumps({"op": "spawned", "pid": pid}).encode())


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        try:
            sock.send(json.dumps({"op": "exit", "pid": pid, "status": code}).encode())
        except OSError:
            os._exit(0)


def _become_sandbox(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: the descriptors, folder and environment of a fresh sandbox."""
    from pacman.sandbox import child, confine

    try:
        to_child, from_child, log = fds
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(null)
        os.close(log)
        os.chdir(request["cwd"])
        # The sandbox must write its own uid and gid maps, which needs a dumpable process;
        # its keeper becomes undumpable again once the namespaces are made.
        confine.libc().prctl(confine.PR_SET_DUMPABLE, 1, 0, 0, 0)
        os.environ.clear()
        os.environ.update(request["env"])
        child.main(to_child, from_child)
    except BaseException:
        os._exit(70)
    os._exit(0)


# --- the referee's side ------------------------------------------------------------------------


class Zygote:
    """The referee's handle on its zygote."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.owner = os.getpid()
        self.exits: dict[int, int] = {}
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", BOOT, str(PACKAGE_ROOT), str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=zygote_environment(),
        )
        theirs.close()
        self.sock = ours

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None

    def spawn(self, fds: list[int], cwd: str, env: dict[str, str], timeout: float) -> int:
        """Fork a sandbox with `fds` = (requests in, answers out, log); its pid."""
        request = json.dumps({"op": "spawn", "cwd": cwd, "env": env}).encode()
        try:
            socket.send_fds(self.sock, [request], fds)
        except OSError as exc:
            raise ZygoteGone(str(exc)) from exc
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline)
            if message is None:
                raise ZygoteGone(f"no answer within {timeout}s")
            if message["op"] == "spawned":
                return int(message["pid"])

    def wait(self, pid: int, timeout: float) -> int | None:
        """How `pid` ended (a negative number is the signal that ended it), or None."""
        deadline = time.monotonic() + timeout
        while pid not in self.exits:
            try:
                if self._receive(deadline) is None:
                    return None
            except ZygoteGone:
                return None
        return self.exits.pop(pid)

    def forget(self, pid: int) -> None:
        self.exits.pop(pid, None)

    def _receive(self, deadline: float) -> dict[str, Any] | None:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.sock], [], [], left)[0]:
            return None
        try:
            data = self.sock.recv(1 << 16)
        except OSError as exc:
            raise ZygoteGone(str(exc)) from exc
        if not data:
            raise ZygoteGone("the zygote closed its socket")
        message: dict[str, Any] = json.loads(data)
        if message["op"] == "exit":
            self.exits[int(message["pid"])] = int(message["status"])
        return message

    def close(self) -> None:
        self.sock.close()
        self.proc.kill()
        self.proc.wait()


_local = threading.local()


def zygote() -> Zygote:
    """This thread's zygote, started (again) when needed.

    One per thread: threads of one process (a Dask worker's) must not share a socket whose
    replies they would read for each other. A forked child gets its own, too.
    """
    current: Zygote | None = getattr(_local, "zygote", None)
    if current is None or not current.alive():
        if current is not None and current.owner == os.getpid():
            current.close()
        current = _local.zygote = Zygote()
    return current


def discard_zygote() -> None:
    """Forget this thread's zygote (after it stopped answering): the next one is new, so a
    late reply to an old request can never be taken for the answer to a new one."""
    current: Zygote | None = getattr(_local, "zygote", None)
    _local.zygote = None
    if current is not None and current.owner == os.getpid():
        current.close()
