"""A clock for tests of searches with a time budget."""

from __future__ import annotations


class Ticking:
    """A clock that moves on by one millisecond each time it is read: a search's time then
    depends only on how often it looks at the clock, never on the machine's load."""

    TICK = 0.001

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += self.TICK
        return self.now
