"""Sandbox uid slots, taken machine-wide: two sandboxes alive at once never share one.

A sandboxed agent plays as a uid of its own (`confine.FIRST_SLOT_UID + 8 * slot + index`),
so that the host's file permissions and signals keep it from every other agent. That holds
only if no two sandboxes alive at once have the same slot, whatever process started them: the
local pool's workers, a Dask worker's threads, several Dask worker processes on one node, a
second tournament or a `pacman` game beside them. A counter in one process cannot see the
others, so a slot is held as an abstract unix socket named after it: binding the name is
atomic for the whole machine (every process of one network namespace), and the kernel frees
it when the holder closes it or dies, so a killed worker never leaks its slot.
"""

from __future__ import annotations

import errno
import os
import socket
import threading

#: How many slots there are: uids `FIRST_SLOT_UID` to `FIRST_SLOT_UID + 8 * SLOTS - 1`
#: (61000 to 65095), below the 65534 of `nobody`.
SLOTS = 512
_PREFIX = "pacman-arena-slot-"


class NoSlot(RuntimeError):
    """Every slot is held: more sandboxes alive on this machine than `SLOTS`."""


class Slot:
    """One held slot (`number`), until `release`."""

    def __init__(self, number: int, held: socket.socket) -> None:
        self.number = number
        self._held: socket.socket | None = held
        self._lock = threading.Lock()

    def release(self) -> None:
        """Give the slot back (idempotent)."""
        with self._lock:
            held, self._held = self._held, None
        if held is not None:
            held.close()


def take(start: int = 0) -> Slot:
    """The first free slot from `start` on (wrapping around), held until released.

    `start` spreads the search (a worker may pass its own number) but never decides the slot:
    only the socket's name does.
    """
    for step in range(SLOTS):
        number = (start + step) % SLOTS
        held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        try:
            held.bind(f"\0{_PREFIX}{number}")
        except OSError as exc:
            held.close()
            if exc.errno == errno.EADDRINUSE:
                continue
            raise
        return Slot(number, held)
    raise NoSlot(f"all {SLOTS} sandbox slots of this machine are in use (pid {os.getpid()})")
