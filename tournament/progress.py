"""Progress of a run as lines, for when no one watches a terminal (a log file, cron, a pipe).

A progress bar redraws one line in place, which a log file cannot show: a five-minute run
would print nothing until its end. So off a terminal `tournament run` prints a line at every
tenth of the games and at least every `EVERY` seconds, even when no game finishes (a run on
a cluster that waits for workers, games of four minutes each): games done, rate, time left.
`line` and `due` are pure; `ProgressLines` holds the clock and the ticker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: The longest silence, in seconds, between two progress lines.
EVERY = 30.0
#: A line at every this fraction of the games.
STEP = 0.1


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def line(done: int, total: int, failures: int, elapsed: float) -> str:
    """`progress: 120/240 games (50%), 2.3 games/s, 52s left, 3 failures, 52s so far`."""
    share = done / total if total else 1.0
    parts = [f"progress: {done}/{total} games ({share:.0%})"]
    if done and elapsed > 0:
        rate = done / elapsed
        parts.append(f"{rate:.2f} games/s" if rate < 10 else f"{rate:.0f} games/s")
        parts.append(f"{_duration((total - done) / rate)} left")
    else:
        parts.append("no game finished yet")
    parts.append(f"{failures} failures")
    parts.append(f"{_duration(elapsed)} so far")
    return ", ".join(parts)


def due(done: int, total: int, last_done: int, since_last: float) -> bool:
    """Whether a line is due: `done` reached another tenth of `total` since the last line
    (at `last_done`), the run is complete, or `EVERY` seconds have passed."""
    if since_last >= EVERY:
        return True
    if done == last_done:
        return False
    if done >= total:
        return True
    step = max(1, int(total * STEP))
    return done // step > last_done // step


class ProgressLines:
    """Prints progress lines through `say` as games finish (`advance`) and, from a ticker
    thread, whenever `EVERY` seconds pass without one; `stop` ends the ticker."""

    def __init__(self, total: int, say: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.say = say
        self.clock = clock
        self.start = clock()
        self.done = self.failures = 0
        self._last_done = 0
        self._last_time = self.start
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="progress-lines", daemon=True)

    def __enter__(self) -> ProgressLines:
        self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        self._ticker.join()

    def advance(self, failed: bool) -> None:
        with self._lock:
            self.done += 1
            self.failures += failed
        self._maybe_say()

    def stored(self, count: int) -> None:
        """`count` games of the total were found stored (a resumed `tournament tune`, which
        learns what it plays as it goes): they are not played, so they leave the total and
        the estimate of the time left."""
        with self._lock:
            self.total = max(self.done, self.total - count)

    def _tick(self) -> None:
        while not self._stopped.wait(1.0):
            self._maybe_say()

    def _maybe_say(self) -> None:
        with self._lock:
            now = self.clock()
            if not due(self.done, self.total, self._last_done, now - self._last_time):
                return
            self._last_done, self._last_time = self.done, now
            text = line(self.done, self.total, self.failures, now - self.start)
        self.say(text)
