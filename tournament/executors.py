"""Where games are played: a local process pool by default, a Dask cluster when configured.

Both take the same tasks and hand each finished row to a callback in the organizer's process,
which stores it at once. A worker process that dies (killed, out of memory) takes only the
games it was playing with it: those are played again in a fresh pool, up to `RETRIES` times,
then recorded as the platform's failure (`infra_error`), never as the agent's.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from pacman.game import INFRA_ERROR
from tournament.runner import GameTask, make_row, play_task, worker_environment

#: Plays of one game after its worker died, before it is recorded as an infrastructure error.
RETRIES = 2

OnResult = Callable[[dict[str, Any]], None]


class Executor(Protocol):
    def run(self, tasks: list[GameTask], on_result: OnResult) -> None: ...


_slot: int = 0


def _init_worker(counter: Any, quiet: bool, organizer: int) -> None:
    """Give each worker process its own sandbox uid slot, silence in-process prints, and
    make it end when the organizer's process is gone (killed with SIGKILL, say)."""
    global _slot
    with counter.get_lock():
        _slot = counter.value
        counter.value += 1
    if quiet:
        worker_environment()
    threading.Thread(target=_watch, args=(organizer,), daemon=True).start()


def _watch(organizer: int) -> None:
    """Exit as soon as the organizer is gone; the game in progress and its sandboxes (which
    die with their parent) go with it, and the next run plays that game again."""
    while True:
        time.sleep(0.5)
        try:
            os.kill(organizer, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass


def _play(task: GameTask) -> dict[str, Any]:
    return play_task(task, slot=_slot)


class LocalExecutor:
    """A pool of `workers` processes on this machine (each game runs its own sandboxes)."""

    def __init__(self, workers: int, quiet: bool = True) -> None:
        self.workers = max(1, workers)
        self.quiet = quiet

    def run(self, tasks: list[GameTask], on_result: OnResult) -> None:
        pending = list(tasks)
        deaths: dict[str, int] = {}
        while pending:
            pending = self._round(pending, on_result, deaths)

    def _round(self, tasks: list[GameTask], on_result: OnResult,
               deaths: dict[str, int]) -> list[GameTask]:
        """Play `tasks` in one pool; return those to play again after a worker died."""
        context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
        counter = context.Value("i", 0)
        retry: list[GameTask] = []
        queue: Iterator[GameTask] = iter(tasks)
        with ProcessPoolExecutor(self.workers, mp_context=context, initializer=_init_worker,
                                 initargs=(counter, self.quiet, os.getpid())) as pool:
            running: dict[Future[dict[str, Any]], GameTask] = {}

            def submit_next() -> bool:
                task = next(queue, None)
                if task is None:
                    return False
                running[pool.submit(_play, task)] = task
                return True

            try:
                # Keep the pool just full: tasks not yet submitted survive a broken pool.
                for _ in range(self.workers * 2):
                    if not submit_next():
                        break
                while running:
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in done:
                        task = running.pop(future)
                        try:
                            row = future.result()
                        except BrokenProcessPool:
                            retry.append(task)
                            continue
                        on_result(row)
                        submit_next()
            except BrokenProcessPool:
                retry.extend(running.values())
                _terminate(pool)
            except BaseException:
                for future in running:
                    future.cancel()
                _terminate(pool)
                raise
            if retry:
                retry.extend(running.values())
                retry.extend(queue)
                # Python 3.11's pool waits forever for the surviving workers of a broken
                # pool (they block on its queue): end them here.
                _terminate(pool)
        again = []
        for task in dict.fromkeys(retry):
            gid = task.game.game_id
            deaths[gid] = deaths.get(gid, 0) + 1
            if deaths[gid] > RETRIES:
                on_result(make_row(task, None, None, INFRA_ERROR,
                               f"its worker process died {deaths[gid]} times"))
            else:
                again.append(task)
        return again


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop at once (Ctrl-C): kill the workers; their sandboxes die with them."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, AttributeError):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


class DaskExecutor:
    """The same tasks on a Dask cluster (`scheduler: tcp://host:8786` in the config).

    Every worker machine needs this project installed (same version) and the submissions and
    layouts at the same paths, e.g. on a shared file system. Dask runs tasks in threads: that
    is safe because file agents play in sandboxes and built-in agents draw from random
    streams of their own, never from the global one other threads may use.
    """

    def __init__(self, address: str) -> None:
        self.address = address

    def run(self, tasks: list[GameTask], on_result: OnResult) -> None:
        try:
            from dask.distributed import Client, as_completed
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise RuntimeError("the config names a Dask scheduler, but dask.distributed is not "
                               "installed: pip install 'dask[distributed]'") from exc
        with Client(self.address) as client:
            futures = {client.submit(play_task, task, key=f"game-{task.game.game_id}",
                                     pure=False, retries=RETRIES): task for task in tasks}
            for future in as_completed(futures):
                task = futures[future]
                try:
                    row = future.result()
                except Exception as exc:
                    row = make_row(task, None, None, INFRA_ERROR,
                                   f"dask: {type(exc).__name__}: {exc}")
                on_result(row)
