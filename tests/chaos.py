"""Killing workers on purpose, for the tests that prove no game is lost when workers die.

`Chaos` is a worker's play function (the `play` hook of the executors) that dies at points
a seeded plan chooses: the plan says, for each game and each attempt at it, whether that
attempt dies and where (before the game, during it, or after it before the row is returned).
An attempt the plan dooms always dies, whatever the timing, so the number of deaths per game
and the expected result of every game follow from the plan alone. Attempts are counted with
files, since each one may run in a different process.

`pool_workers` finds the worker processes of a local pool (children of the forkserver that
a process started), for tests that kill them from outside at arbitrary moments.
"""

from __future__ import annotations

import os
import random
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tournament.bundles import TeamCache
from tournament.runner import GameOutput, GameTask, play_task

POINTS = ("before", "during", "after")


@dataclass(frozen=True)
class Chaos:
    """Play a task, unless the plan (seed, chance) dooms this attempt at it."""

    seed: int
    folder: str
    chance: float

    def plan(self, game_id: str, attempt: int) -> str | None:
        """Where attempt `attempt` (0, 1, ...) at `game_id` dies, or None if it lives."""
        rng = random.Random(f"{self.seed}/{game_id}/{attempt}")
        return rng.choice(POINTS) if rng.random() < self.chance else None

    def deaths(self, game_id: str, limit: int) -> int:
        """How many attempts in a row the plan dooms from the first (at most `limit`)."""
        count = 0
        while count < limit and self.plan(game_id, count) is not None:
            count += 1
        return count

    def attempts(self, game_id: str) -> int:
        """How many attempts at `game_id` have started so far (in any process)."""
        prefix = quote(game_id, safe="") + "."
        return sum(1 for p in Path(self.folder).iterdir() if p.name.startswith(prefix))

    def __call__(self, task: GameTask, cache: TeamCache) -> GameOutput:
        game_id = task.game.game_id
        attempt = self._count(game_id)
        point = self.plan(game_id, attempt)
        if point == "before":
            _die()
        if point == "during":
            delay = random.Random(f"{self.seed}/{game_id}/{attempt}/when").uniform(0, 0.05)
            threading.Timer(delay, _die).start()
        output = play_task(task, cache)
        if point is not None:  # "after", or "during" with a game shorter than the delay
            _die()
        return output

    def _count(self, game_id: str) -> int:
        name = quote(game_id, safe="")
        attempt = 0
        while True:
            try:
                os.close(os.open(Path(self.folder, f"{name}.{attempt}"),
                                 os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                attempt += 1
                continue
            return attempt


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process we can see."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            # Bytes: a process's name is whatever it chose, not always UTF-8 (hostile agents
            # of other tests running on this machine name their threads so).
            stat = Path(f"/proc/{entry}/stat").read_bytes().rpartition(b")")[2].split()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            parent = int(stat[1])
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
        found[int(entry)] = (parent, cmdline.decode(errors="replace"))
    return found


def pool_workers(organizer: int) -> list[int]:
    """The local pool's worker processes of `organizer`: children of the forkserver that
    `organizer` started (not its zygote's sandboxes, also grandchildren)."""
    table = processes()
    forkservers = {pid for pid, (ppid, cmd) in table.items()
                   if ppid == organizer and "forkserver" in cmd}
    return sorted(pid for pid, (ppid, _) in table.items() if ppid in forkservers)
