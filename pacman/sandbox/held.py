"""A process held by pidfd: signals that reach it or nothing.

The referee signals processes it is not the parent of: the agent (its keeper's child) and the
keeper (the zygote's child), and a cgroup's members when it is removed. Their parents reap
them the moment they end, after which the kernel may give the pid to any process of the
machine, so a signal sent by pid could stop or kill an innocent one. A pidfd names the
process itself: once it has ended, a signal through it fails instead. Held only while the
process is known to be the one meant (just spawned, or just listed in its cgroup and found
there still).

Where no pidfd can be had for a process that has not ended (a kernel before 5.3, a container
whose seccomp profile refuses the call, no descriptor left), it is signalled by pid, as
before pidfds: losing hold of a live agent (never paused, never killed) would be far worse
than the small chance of a reused pid.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal


class HeldProcess:
    """Process `pid`, held from now on (`gone` if it already ended)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        #: None once closed, when it had already ended when taken, or when no pidfd could
        #: be had (`by_pid`).
        self.fd: int | None = None
        #: Signalled by pid: no pidfd could be had, yet it had not ended (see the module).
        self.by_pid = False
        try:
            self.fd = os.pidfd_open(pid)
        except OSError as exc:
            self.by_pid = exc.errno != errno.ESRCH

    def gone(self) -> bool:
        """Whether it has ended (its pidfd polls readable from its exit on), so that its pid
        may be another process's. Without a pidfd: never when signalled by pid (nothing
        tells), always once closed or when it had ended before it was taken."""
        if self.fd is None:
            return not self.by_pid
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        return bool(poller.poll(0))

    def signal(self, sig: int) -> None:
        """Send `sig` to it and to no other process; nothing once it has ended."""
        with contextlib.suppress(OSError):
            if self.fd is not None:
                signal.pidfd_send_signal(self.fd, sig)
            elif self.by_pid:
                os.kill(self.pid, sig)

    def close(self) -> None:
        """Let go of it: no signal is sent from now on."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.fd = None
        self.by_pid = False
