"""Where games are played: local worker processes by default, a Dask cluster when configured.

Both take the same tasks and hand each finished row to a callback in the organizer's process,
which stores it at once. Nothing taken from the schedule may be lost on the way, whatever
fails between taking a game and storing it (a worker killed, the callback raising, Ctrl-C): a
`Ledger` holds every task of a run in exactly one place (to play, in flight, done) and the
executors move tasks only through it. A worker process that dies takes only the game it was
playing with it: that game goes back to be played again, up to `RETRIES` times, then is
recorded as the platform's failure (`infra_error`), never as the agent's. Whatever is in
flight when a run stops early is not stored, so the next `tournament run` plays it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

from pacman.outcomes import INFRA_ERROR
from tournament.results import GameRow
from tournament.runner import GameTask, make_row, play_task, worker_environment

#: Plays of one game after its worker died, before it is recorded as an infrastructure error.
RETRIES = 2
#: Seconds a worker gets to exit by itself at the end of a run before it is killed.
RETIRE_LIMIT = 5.0

OnResult = Callable[[GameRow], None]
#: What a worker does with a task: play it with a sandbox uid slot and return its row. Tests
#: pass their own (a module-level function, so that it can be sent to a worker process).
Play = Callable[[GameTask, int], GameRow]


class Executor(Protocol):
    def run(self, tasks: list[GameTask], on_result: OnResult) -> None: ...


class Ledger:
    """Where each task of a run is: to play (`todo`), `in_flight`, or `done` (its row stored).

    Every task is in exactly one of the three. A task leaves `in_flight` only when its row has
    been stored (`stored`) or when it goes back to be played (`put_back`, `died`); an executor
    that leaves its loop by an exception calls `put_back_all`, so nothing is ever in none.
    """

    def __init__(self, tasks: Iterable[GameTask]) -> None:
        self.todo: deque[GameTask] = deque(tasks)
        self.in_flight: dict[str, GameTask] = {}
        self.done: set[str] = set()
        self.deaths: Counter[str] = Counter()
        if len({t.game.game_id for t in self.todo}) < len(self.todo):
            raise ValueError("a game is scheduled twice: "
                             f"{Counter(t.game.game_id for t in self.todo).most_common(1)[0][0]}")

    @property
    def finished(self) -> bool:
        return not self.todo and not self.in_flight

    def take(self) -> GameTask:
        """The next task to play, now in flight."""
        task = self.todo.popleft()
        self.in_flight[task.game.game_id] = task
        return task

    def stored(self, task: GameTask) -> None:
        """`task`'s row is stored: it is done."""
        gid = task.game.game_id
        del self.in_flight[gid]
        self.done.add(gid)

    def put_back(self, task: GameTask) -> None:
        """`task` did not run (its worker was gone before it got it): play it next, uncharged."""
        del self.in_flight[task.game.game_id]
        self.todo.appendleft(task)

    def died(self, task: GameTask) -> bool:
        """The worker playing `task` died. Charge the death to it and put it back to be played
        again; after `RETRIES` replays keep it in flight instead and return True: the caller
        stores it as an `infra_error` (`death_row`) and then calls `stored`."""
        gid = task.game.game_id
        if gid not in self.in_flight:
            raise KeyError(gid)
        self.deaths[gid] += 1
        if self.deaths[gid] > RETRIES:
            return True
        self.put_back(task)
        return False

    def death_row(self, task: GameTask, cause: str = "its worker process died") -> GameRow:
        """The `infra_error` row of a task that died more than `RETRIES` times."""
        return make_row(task, None, None, INFRA_ERROR,
                        f"{cause} {self.deaths[task.game.game_id]} times")

    def put_back_all(self) -> None:
        """Leaving early: whatever is in flight goes back (not stored, so played next run)."""
        for task in list(self.in_flight.values()):
            self.put_back(task)


# --- the local pool ----------------------------------------------------------------------------

def _serve(conn: Connection, slot: int, quiet: bool, organizer: int, play: Play,
           first: GameTask) -> None:
    """A worker process: play `first`, send its row, then play each task the organizer sends
    until it closes the pipe. Ctrl-C is the organizer's to handle (it kills its workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if quiet:
        worker_environment()
    threading.Thread(target=_watch, args=(organizer,), daemon=True).start()
    task = first
    while True:
        conn.send(play(task, slot))
        try:
            task = conn.recv()
        except EOFError:  # the run is over
            return


def _watch(organizer: int) -> None:
    """Exit as soon as the organizer is gone (killed with SIGKILL, say); the game in progress
    and its sandboxes (which die with their parent) go with it, and the next run plays that
    game again."""
    while True:
        time.sleep(0.5)
        try:
            os.kill(organizer, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass


@dataclass(eq=False)
class _Worker:
    """One worker process, its end of the pipe, and the task it holds (None when idle).

    A worker holds a task from the moment it is handed over: it is born with its first one, so
    a worker that dies at any point (even while starting) is charged to a game, and a run
    whose workers cannot start at all ends after `RETRIES` replays of each game.
    """

    process: BaseProcess
    conn: Connection
    task: GameTask | None = field(default=None)

    @classmethod
    def start(cls, context: BaseContext, slot: int, quiet: bool, play: Play,
              task: GameTask) -> _Worker:
        ours, theirs = context.Pipe()
        process = context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(theirs, slot, quiet, os.getpid(), play, task),
            # Daemonic: a worker never outlives its organizer (the sandbox starts its processes
            # with fork and subprocess, which a daemonic process may do).
            name=f"tournament-worker-{slot}", daemon=True)
        try:
            process.start()
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()  # only the worker holds its end: its death is an EOF here
        return cls(process, ours, task)

    def give(self, task: GameTask) -> bool:
        """Hand `task` over; False when the worker is already gone (it did not get it)."""
        try:
            self.conn.send(task)
        except OSError:
            return False
        self.task = task
        return True

    def receive(self) -> GameRow | None:
        """The row the worker sent, or None when it died (before or while sending)."""
        try:
            row: GameRow = self.conn.recv()
        except (EOFError, OSError):
            return None
        return row

    def stop(self, grace: float = 0.0) -> None:
        """End the process (at once, or after `grace` seconds to exit by itself once its pipe
        is closed) and free its resources; its sandboxes die with it."""
        self.conn.close()
        if grace > 0:
            self.process.join(grace)
        if self.process.exitcode is None:
            with contextlib.suppress(OSError):
                self.process.kill()
            self.process.join()
        with contextlib.suppress(ValueError):
            self.process.close()


class LocalExecutor:
    """`workers` processes on this machine, each with its own sandbox uid slot.

    Each worker plays one game at a time. The organizer hands out games one by one, waits for
    a row or a death, stores the row, and replaces a dead worker by a fresh one in its slot.
    """

    def __init__(self, workers: int, quiet: bool = True, play: Play = play_task) -> None:
        self.workers = max(1, workers)
        self.quiet = quiet
        self.play = play

    def run(self, tasks: list[GameTask], on_result: OnResult) -> None:
        ledger = Ledger(tasks)
        context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
        workers: dict[int, _Worker] = {}
        try:
            while not ledger.finished:
                self._staff(ledger, workers, context)
                self._settle(ledger, workers, on_result, _events(workers))
        except KeyboardInterrupt:
            # Stop promptly, but keep the games that finished: rows already in the pipes.
            self._settle(ledger, workers, on_result, _events(workers, timeout=0))
            raise
        finally:
            grace = RETIRE_LIMIT if ledger.finished else 0.0
            for worker in workers.values():
                worker.stop(grace)
            ledger.put_back_all()

    def _staff(self, ledger: Ledger, workers: dict[int, _Worker], context: BaseContext) -> None:
        """Give every free slot a task: an idle worker gets the next one, an empty slot a new
        worker born with it."""
        for slot in range(self.workers):
            if not ledger.todo:
                return
            worker = workers.get(slot)
            if worker is not None and worker.task is not None:
                continue
            task = ledger.take()
            if worker is None:
                workers[slot] = _Worker.start(context, slot, self.quiet, self.play, task)
            elif not worker.give(task):
                ledger.put_back(task)  # it died idle; a fresh worker takes the slot next time
                worker.stop()
                del workers[slot]

    def _settle(self, ledger: Ledger, workers: dict[int, _Worker], on_result: OnResult,
                ready: list[Any]) -> None:
        """Store the rows that arrived and bury the workers that died.

        A worker sends nothing unasked, so its pipe is readable only with the row of the task
        it holds, or at its end (EOF). A row that arrived just before its worker died is
        stored, and its game is not charged with the death.
        """
        for slot, worker in list(workers.items()):
            dead = worker.process.sentinel in ready
            if worker.conn not in ready and not dead:
                continue
            if worker.task is not None and worker.conn.poll():
                row = worker.receive()
                if row is None:
                    dead = True
                else:
                    played, worker.task = worker.task, None
                    on_result(row)
                    ledger.stored(played)
            elif worker.conn in ready:
                dead = True  # an idle worker's pipe ended
            if dead:
                del workers[slot]
                worker.stop()
                task = worker.task
                if task is not None and ledger.died(task):
                    on_result(ledger.death_row(task))
                    ledger.stored(task)


def _events(workers: dict[int, _Worker], timeout: float | None = None) -> list[Any]:
    """Wait until a worker sent something (a row or EOF) or ended."""
    objects: list[Any] = []
    for worker in workers.values():
        objects += [worker.conn, worker.process.sentinel]
    return wait(objects, timeout) if objects else []


# --- Dask --------------------------------------------------------------------------------------

class DaskExecutor:
    """The same tasks on a Dask cluster (`scheduler: tcp://host:8786` in the config).

    Every worker machine needs this project installed (same version) and the submissions and
    layouts at the same paths, e.g. on a shared file system. Dask runs tasks in threads: that
    is safe because file agents play in sandboxes and built-in agents draw from random
    streams of their own, never from the global one other threads may use.

    A Dask worker that dies has its tasks run again elsewhere by the scheduler, up to the
    cluster's `distributed.scheduler.allowed-failures`; past that the game's future fails
    (`KilledWorker`) and is stored as `infra_error`. A future the cluster loses (cancelled) is
    submitted again, charged as a death in the ledger.
    """

    def __init__(self, address: str, play: Play = play_task) -> None:
        self.address = address
        self.play = play

    def run(self, tasks: list[GameTask], on_result: OnResult) -> None:
        try:
            from dask.distributed import Client, as_completed
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise RuntimeError("the config names a Dask scheduler, but dask.distributed is not "
                               "installed: pip install 'dask[distributed]'") from exc
        ledger = Ledger(tasks)
        with Client(self.address) as client:
            futures: dict[Any, GameTask] = {}

            def submit() -> Any:
                task = ledger.take()
                gid = task.game.game_id
                tries = ledger.deaths[gid]
                key = f"game-{gid}" if not tries else f"game-{gid}-again-{tries}"
                future = client.submit(self.play, task, 0, key=key, pure=False, retries=RETRIES)
                futures[future] = task
                return future

            try:
                while ledger.todo:
                    submit()
                finished = as_completed(list(futures))
                for future in finished:
                    task = futures.pop(future)
                    if future.status == "cancelled":  # lost by the cluster: play it again
                        if not ledger.died(task):
                            finished.add(submit())
                            continue
                        row = ledger.death_row(task, "the cluster lost it")
                    else:
                        try:
                            row = future.result()
                        except Exception as exc:  # KilledWorker, or a task that raised
                            row = make_row(task, None, None, INFRA_ERROR,
                                           f"dask: {type(exc).__name__}: {exc}"[:300])
                    on_result(row)
                    ledger.stored(task)
            finally:
                if futures:
                    with contextlib.suppress(Exception):
                        client.cancel(list(futures))
                ledger.put_back_all()
