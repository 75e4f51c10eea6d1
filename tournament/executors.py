"""Where games are played: local worker processes by default, a Dask cluster when configured.

Both take the same tasks, made one at a time as they are needed (`tournament.runner.
iter_tasks`): only a bounded number of games is in flight at once (the pool's `workers`; on
Dask `in_flight`, by default twice the cluster's worker threads), so the organizer's memory
does not grow with the number of games. Each finished game's output goes, with its task, to a
callback in the organizer's process, which checks and keeps it at once
(`tournament.outputs`). Nothing taken from the schedule may be lost on the way, whatever
fails between taking a game and storing it (a worker killed, the callback raising, Ctrl-C): a
`Ledger` holds every task of a run in exactly one place (to play, in flight, done) and the
executors move tasks only through it. A worker process that dies takes only the game it was
playing with it: that game goes back to be played again, up to `RETRIES` times, then is
recorded as the platform's failure (`infra_error`), never as the agent's. Whatever is in
flight when a run stops early is not stored, so the next `tournament run` plays it.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import queue
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

from pacman.limits import longest_game
from pacman.outcomes import INFRA_ERROR
from tournament.bundles import Bundle, TeamCache, default_cache, snapshot_digest, worker_cache
from tournament.config import ClusterConfig
from tournament.runner import GameOutput, GameTask, make_row, play_task, worker_environment

#: Plays of one game after its worker died, before it is recorded as an infrastructure error.
RETRIES = 2
#: Seconds a worker gets to exit by itself at the end of a run before it is killed.
RETIRE_LIMIT = 5.0
#: A local game's deadline: this many times the longest its agents' limits allow
#: (`pacman.limits.longest_game`), plus `DEADLINE_SLACK` seconds for the referee's own work on
#: a loaded machine. Past it the game cannot be playing by the rules (an in-process built-in
#: whose move never returns, which the handle times only when it does; a stuck referee), so
#: its worker is ended and the game charged with a death, as if the worker had died.
DEADLINE_FACTOR = 2.0
DEADLINE_SLACK = 60.0

#: The organizer's callback: a task and what its worker sent back (or the ledger's row for a
#: game the platform failed).
OnResult = Callable[[GameTask, GameOutput], None]
#: What a worker does with a task: play it from the team snapshots in the cache and return
#: its output. Tests pass their own (a module-level function, so that it can be sent to a
#: worker process).
Play = Callable[[GameTask, TeamCache], GameOutput]
#: A task's deadline in seconds from when a worker takes it (None: none).
Deadline = Callable[[GameTask], float | None]


def overdue(seconds: float) -> str:
    """The cause of a game held past its deadline, as its `infra_error` row words it."""
    return (f"its worker held it past its deadline ({seconds:g} s, beyond what its agents' "
            "limits allow) and was ended")


def game_deadline(task: GameTask) -> float | None:
    """How long a local worker may hold `task` (pure): `DEADLINE_FACTOR` times the longest its
    agents' limits allow, plus `DEADLINE_SLACK`; None when its limits leave a game unbounded
    (no hard limit per move nor per game), which then has no deadline. A game with a
    built-in is not bounded by the per-game total, which holds the teams alone
    (`pacman.game.GameSpec.builtin_totals`)."""
    totals = not any(ref is not None and ref.builtin and not ref.team
                     for ref in (task.pacman, task.ghost))
    longest = longest_game(task.limits, task.max_moves, 1 + task.game.cell.num_ghosts, totals)
    return None if longest is None else DEADLINE_FACTOR * longest + DEADLINE_SLACK


class Executor(Protocol):
    def run(self, tasks: Iterable[GameTask], on_result: OnResult) -> None: ...


class Ledger:
    """Where each task of a run is: to play (`todo`: put back, then not yet made), `in_flight`,
    or `done` (its row stored).

    Every task is in exactly one of the three. A task leaves `in_flight` only when its row has
    been stored (`stored`) or when it goes back to be played (`put_back`, `died`); an executor
    that leaves its loop by an exception calls `put_back_all`, so nothing is ever in none. The
    tasks not yet taken stay in their iterator: they are made as they are taken.
    """

    def __init__(self, tasks: Iterable[GameTask]) -> None:
        self._fresh: Iterator[GameTask] = iter(tasks)
        #: Tasks put back, played before any fresh one.
        self.again: deque[GameTask] = deque()
        self.in_flight: dict[str, GameTask] = {}
        self.done: set[str] = set()
        self.deaths: Counter[str] = Counter()

    @property
    def todo(self) -> bool:
        """Whether a task is left to take (making the next one if need be)."""
        if not self.again:
            task = next(self._fresh, None)
            if task is None:
                return False
            self.again.append(task)
        return True

    @property
    def finished(self) -> bool:
        return not self.todo and not self.in_flight

    def take(self) -> GameTask:
        """The next task to play, now in flight."""
        if not self.todo:
            raise IndexError("no task left to take")
        task = self.again.popleft()
        gid = task.game.game_id
        if gid in self.in_flight or gid in self.done:
            self.again.appendleft(task)
            raise ValueError(f"a game is scheduled twice: {gid}")
        self.in_flight[gid] = task
        return task

    def stored(self, task: GameTask) -> None:
        """`task`'s row is stored: it is done."""
        gid = task.game.game_id
        del self.in_flight[gid]
        self.done.add(gid)

    def put_back(self, task: GameTask) -> None:
        """`task` did not run (its worker was gone before it got it): play it next, uncharged."""
        del self.in_flight[task.game.game_id]
        self.again.appendleft(task)

    def died(self, task: GameTask) -> bool:
        """The worker playing `task` died. Charge the death to it and put it back to be played
        again; after `RETRIES` replays keep it in flight instead and return True: the caller
        stores it as an `infra_error` (`death_output`) and then calls `stored`."""
        gid = task.game.game_id
        if gid not in self.in_flight:
            raise KeyError(gid)
        self.deaths[gid] += 1
        if self.deaths[gid] > RETRIES:
            return True
        self.put_back(task)
        return False

    def death_output(self, task: GameTask, cause: str = "its worker process died") -> GameOutput:
        """The `infra_error` output of a task that died more than `RETRIES` times."""
        return GameOutput(task.key, make_row(task, None, None, INFRA_ERROR,
                                             f"{cause} {self.deaths[task.game.game_id]} "
                                             "times"))

    def put_back_all(self) -> None:
        """Leaving early: whatever is in flight goes back (not stored, so played next run)."""
        for task in list(self.in_flight.values()):
            self.put_back(task)


# --- the local pool ----------------------------------------------------------------------------

def _serve(conn: Connection, quiet: bool, organizer: int, play: Play, first: GameTask,
           cache: TeamCache) -> None:
    """A worker process: play `first`, send its output, then play each task the organizer
    sends until it closes the pipe. Ctrl-C is the organizer's to handle (it kills its
    workers). The team snapshots are the organizer's (`cache`, on this machine)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if quiet:
        worker_environment()
    threading.Thread(target=_watch, args=(organizer,), daemon=True).start()
    task = first
    while True:
        conn.send(play(task, cache))
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
    #: When (`time.monotonic`) the worker must have sent the task's output (None: no limit).
    due: float | None = None

    @classmethod
    def start(cls, context: BaseContext, slot: int, quiet: bool, play: Play,
              task: GameTask, cache: TeamCache, due: float | None = None) -> _Worker:
        ours, theirs = context.Pipe()
        process = context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(theirs, quiet, os.getpid(), play, task, cache),
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
        return cls(process, ours, task, due)

    def give(self, task: GameTask, due: float | None = None) -> bool:
        """Hand `task` over, to be done by `due`; False when the worker is already gone (it
        did not get it)."""
        try:
            self.conn.send(task)
        except OSError:
            return False
        self.task, self.due = task, due
        return True

    def receive(self) -> GameOutput | None:
        """The output the worker sent, or None when it died (before or while sending)."""
        try:
            output: GameOutput = self.conn.recv()
        except (EOFError, OSError):
            return None
        return output

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
    """`workers` processes on this machine (each game's sandboxes take uid slots of their
    own machine-wide: `pacman.sandbox.slots`).

    Each worker plays one game at a time, so `workers` games are in flight. The organizer
    hands out games one by one, waits for an output or a death, keeps the output, and
    replaces a dead worker by a fresh one. The workers read the team snapshots from the
    organizer's `cache` (the same machine).
    """

    def __init__(self, workers: int, quiet: bool = True, play: Play = play_task,
                 cache: TeamCache | None = None, deadline: Deadline = game_deadline) -> None:
        self.workers = max(1, workers)
        self.quiet = quiet
        self.play = play
        self.cache = cache
        self.deadline = deadline

    def _due(self, task: GameTask) -> float | None:
        seconds = self.deadline(task)
        return None if seconds is None else time.monotonic() + seconds

    def run(self, tasks: Iterable[GameTask], on_result: OnResult) -> None:
        ledger = Ledger(tasks)
        context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
        workers: dict[int, _Worker] = {}
        try:
            while not ledger.finished:
                self._staff(ledger, workers, context)
                self._settle(ledger, workers, on_result, _events(workers, _next_due(workers)))
                self._expire(ledger, workers, on_result)
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
                workers[slot] = _Worker.start(context, slot, self.quiet, self.play, task,
                                              self.cache or default_cache(), self._due(task))
            elif not worker.give(task, self._due(task)):
                ledger.put_back(task)  # it died idle; a fresh worker takes the slot next time
                worker.stop()
                del workers[slot]

    def _settle(self, ledger: Ledger, workers: dict[int, _Worker], on_result: OnResult,
                ready: list[Any]) -> None:
        """Keep the outputs that arrived and bury the workers that died.

        A worker sends nothing unasked, so its pipe is readable only with the output of the
        task it holds, or at its end (EOF). An output that arrived just before its worker died
        is kept, and its game is not charged with the death.
        """
        for slot, worker in list(workers.items()):
            dead = worker.process.sentinel in ready
            if worker.conn not in ready and not dead:
                continue
            if worker.task is not None and worker.conn.poll():
                output = worker.receive()
                if output is None:
                    dead = True
                else:
                    played, worker.task = worker.task, None
                    on_result(played, output)
                    ledger.stored(played)
            elif worker.conn in ready:
                dead = True  # an idle worker's pipe ended
            if dead:
                del workers[slot]
                worker.stop()
                task = worker.task
                if task is not None and ledger.died(task):
                    on_result(task, ledger.death_output(task))
                    ledger.stored(task)

    def _expire(self, ledger: Ledger, workers: dict[int, _Worker], on_result: OnResult) -> None:
        """End the workers that hold a task past its deadline, and charge each task with a
        death, as `_settle` does for a worker that died (its output, had it come, would have
        been read first)."""
        now = time.monotonic()
        for slot, worker in list(workers.items()):
            task = worker.task
            if task is None or worker.due is None or now < worker.due:
                continue
            del workers[slot]
            worker.stop()
            if ledger.died(task):
                on_result(task, ledger.death_output(task, overdue(self.deadline(task) or 0.0)))
                ledger.stored(task)


def _next_due(workers: dict[int, _Worker]) -> float | None:
    """Seconds until the first deadline of the tasks the workers hold (None: no deadline)."""
    due = [w.due for w in workers.values() if w.task is not None and w.due is not None]
    return None if not due else max(0.0, min(due) - time.monotonic())


def _events(workers: dict[int, _Worker], timeout: float | None = None) -> list[Any]:
    """Wait until a worker sent something (a row or EOF) or ended."""
    objects: list[Any] = []
    for worker in workers.values():
        objects += [worker.conn, worker.process.sentinel]
    return wait(objects, timeout) if objects else []


# --- Dask --------------------------------------------------------------------------------------

class ClusterError(RuntimeError):
    """The cluster cannot play the run: unreachable, or without workers for too long. The
    message is one line for the organizer."""


@dataclass(frozen=True)
class Ended:
    """What a Dask worker sends back for a game it could not finish: its game process held it
    past its `deadline` seconds (`overdue` True) or died; the organizer charges the game with
    a death, as the local pool does."""

    overdue: bool
    deadline: float


def _on_worker(play: Play, deadline: float | None, task: GameTask,
               *bundles: Bundle) -> GameOutput | Ended:
    """A game on a Dask worker: the task's team snapshots (sent once per worker, as Dask
    moves data) unpacked into the worker's own cache, checked against their digests, then
    played from there. Nothing is written outside the worker's folders.

    A game with a deadline is played in a process of the worker thread's own (`_GameProcess`,
    kept for its next games), ended at the deadline: a Dask task runs in a thread, and a
    thread whose game never ends (an in-process agent's move, a stuck referee) cannot be
    stopped, so the run would wait on it for ever."""
    if [bundle.id for bundle in bundles] != list(task.bundles):
        # Not the snapshots the game names (a scheduler that mixed up two runs' data, say):
        # the platform's failure (`dask: ...`), never a game played without its team's files.
        raise ValueError(f"the game {task.key[:16]} names team snapshots "
                         f"{[s[:16] for s in task.bundles]}, but was sent "
                         f"{[b.id[:16] for b in bundles]}")
    cache = worker_cache()
    for bundle in bundles:
        cache.unpack(bundle)
    # Its sandboxes at their memory limits must fit beside the worker's other games (the
    # eighteenth hostile review: 16 threads x 2 sandboxes x 2 GiB on a 32 GiB machine); the
    # deadline runs from when it starts.
    with _MEMORY.held(game_memory_mib(task), worker_memory_mib()):
        if deadline is None:
            output: GameOutput | Ended = play(task, cache)
        else:
            process = getattr(_threads, "process", None)
            if process is None or not process.alive():
                process = _threads.process = _GameProcess()
            output = process.play(play, task, cache, deadline)
            if isinstance(output, Ended):
                process.stop()
                _threads.process = None
    if isinstance(output, GameOutput) and output.row["outcome"] == INFRA_ERROR:
        # Perhaps a snapshot damaged in this worker's cache (which lives across runs): the
        # next game that is sent it checks it, and unpacks it again if need be.
        for bundle in bundles:
            cache.recheck(bundle.id)
    return output


@dataclass(frozen=True)
class _Raised:
    """What a `_GameProcess`'s `play` raised, as text: raised again in the worker thread, so
    the game fails on Dask as it would have there (`dask: ...` after its retries)."""

    text: str


#: Per Dask worker thread: its `_GameProcess` (`process`), once it played a game.
_threads = threading.local()


def game_memory_mib(task: GameTask) -> int:
    """What a game's sandboxes may hold at their memory limits, in MiB (0: no limit to count,
    or nothing sandboxed)."""
    from pacman.game import sandboxed

    if task.limits.memory_mb is None:
        return 0
    refs = [ref for ref in (task.pacman, task.ghost) if ref is not None]
    return task.limits.memory_mb * sum(sandboxed(ref, None) for ref in refs)


def worker_memory_mib() -> int | None:
    """The memory a worker's games may hold together: the machine's room for sandboxes
    (`pacman.sandbox.cgroup.memory_room_mib`) less the platform's reserve (None: unknown)."""
    from pacman.sandbox.cgroup import memory_room_mib
    from tournament.runner import MEMORY_RESERVE_MIB

    room = memory_room_mib()
    return None if room is None else max(0, room - MEMORY_RESERVE_MIB)


class MemorySlots:
    """The games a Dask worker plays at once, bounded by memory: each holds what its sandboxes
    may use at their limits until it ends, and a game waits while it would not fit beside the
    others (a game larger than the whole room plays alone). Games start in the order they
    asked, so a large one is never passed for ever by small ones that keep arriving. A local
    pool needs none: its number of workers is bounded so up front
    (`tournament.cli.memory_bounded`), while a Dask worker's threads are its operator's
    choice."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._line: deque[int] = deque()
        self._tickets = itertools.count()
        self.used = 0

    @property
    def waiting(self) -> int:
        """Games waiting for room (tests read it)."""
        with self._changed:
            return len(self._line)

    @contextlib.contextmanager
    def held(self, need: int, room: int | None) -> Iterator[None]:
        if room is None or need <= 0:
            yield
            return
        with self._changed:
            ticket = next(self._tickets)
            self._line.append(ticket)
            try:
                self._changed.wait_for(lambda: self._line[0] == ticket and (
                    self.used == 0 or self.used + need <= room))
            finally:
                self._line.remove(ticket)
                self._changed.notify_all()  # the next in line may fit now
            self.used += need
        try:
            yield
        finally:
            with self._changed:
                self.used -= need
                self._changed.notify_all()


#: This worker process's bound (`MemorySlots`).
_MEMORY = MemorySlots()


class _GameProcess:
    """A process that plays a Dask worker thread's games, one at a time, as the pool's workers
    do (`_serve`): started with the interpreter itself (a Dask worker is a daemonic process,
    which `multiprocessing` lets have no children), in a session of its own, talking over two
    pipes of its own; it exits when the worker does (`_watch`)."""

    def __init__(self) -> None:
        child_reads, parent_writes = os.pipe()
        parent_reads, child_writes = os.pipe()
        command = ("from tournament.executors import _play_games; "
                   f"_play_games({child_reads}, {child_writes})")
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", command], pass_fds=(child_reads, child_writes),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
        except BaseException:
            for fd in (parent_writes, parent_reads):
                os.close(fd)
            raise
        finally:
            os.close(child_reads)
            os.close(child_writes)
        self.out = Connection(parent_writes, readable=False)
        self.back = Connection(parent_reads, writable=False)
        # The worker's import path first, as `multiprocessing` gives its children: a game's
        # `play` may come from any module the worker can import.
        with contextlib.suppress(OSError):
            self.out.send(list(sys.path))

    def alive(self) -> bool:
        return self.process.poll() is None

    def play(self, play: Play, task: GameTask, cache: TeamCache,
             deadline: float) -> GameOutput | Ended:
        """The game's output, or how it ended without one: `deadline` seconds passed first, or
        the process died (its pipe ended)."""
        try:
            self.out.send((play, task, cache))
            if not self.back.poll(deadline):
                return Ended(True, deadline)
            output: GameOutput | _Raised = self.back.recv()
        except (EOFError, OSError):
            return Ended(False, deadline)
        if isinstance(output, _Raised):
            raise RuntimeError(output.text)
        return output

    def stop(self) -> None:
        """Kill the process and its session (its sandboxes die with it), and wait for it."""
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.out.close()
        self.back.close()


def _play_games(source: int, sink: int) -> None:
    """A `_GameProcess`: play each game the worker thread sends, send back its output, until
    the pipe ends; exit as soon as the worker is gone."""
    threading.Thread(target=_watch, args=(os.getppid(),), daemon=True).start()
    requests = Connection(source, writable=False)
    outputs = Connection(sink, readable=False)
    try:
        sys.path[:] = requests.recv()
    except EOFError:
        return
    while True:
        try:
            play, task, cache = requests.recv()
        except EOFError:
            return
        try:
            output: GameOutput | _Raised = play(task, cache)
        except Exception as exc:
            output = _Raised(f"{type(exc).__name__}: {exc}")
        outputs.send(output)


def _version() -> str:
    """The platform a worker runs (`pacman.identity`; sent to workers by
    `DaskExecutor.versions`)."""
    from pacman.identity import platform_id

    return platform_id()


#: Seconds between the organizer's looks at the cluster while it waits for games.
TICK = 1.0
#: Seconds between two "waiting for workers" lines.
WAITING_EVERY = 30.0


@dataclass
class _Waiting:
    """Since when the cluster has had no worker (None: it has some), and when that was last
    said."""

    since: float | None = None
    said: float = 0.0


class DaskExecutor:
    """The same tasks on a Dask cluster (`scheduler: tcp://host:8786` in the config).

    Every worker machine needs this project installed (the same version: a row played by
    another version is not stored as a result) and nothing of the organizer's: each game's
    team snapshots travel to the worker as data, once per worker (`tournament.bundles`), and
    each game's output travels back. Dask runs tasks in threads: that is safe because file
    agents play in sandboxes (each taking a uid slot of its own machine-wide) and built-in
    agents draw from random streams of their own, never from the global one.

    At most `in_flight` games are submitted at once. Task keys are the tasks' content
    (`GameTask.key`), so two tournaments on one cluster never share one unless they ask for
    the same game. A Dask worker that dies has its tasks run again elsewhere by the
    scheduler, up to the cluster's `distributed.scheduler.allowed-failures`; past that the
    game's future fails (`KilledWorker`) and is stored as `infra_error`. A future the cluster
    loses (cancelled) is submitted again, charged as a death in the ledger. A game with a
    deadline (`game_deadline`) is played in a process of its worker thread's own, ended at
    the deadline (`_on_worker`), and then charged with a death, as in the local pool.
    """

    def __init__(self, address: str, settings: ClusterConfig | None = None,
                 play: Play = play_task, cache: TeamCache | None = None,
                 say: Callable[[str], None] | None = None,
                 deadline: Deadline = game_deadline) -> None:
        self.address = address
        self.deadline = deadline
        self.settings = settings or ClusterConfig()
        self.play = play
        #: Where the organizer's snapshots are (None: the default cache, looked at only
        #: when a game needs one).
        self.cache = cache
        self.say = say or (lambda line: None)
        self.client: Any = None
        #: When the workers were last counted, and what was found (`_threads_lately`).
        self._census: tuple[float, tuple[int, int]] | None = None

    def connect(self) -> None:
        """Reach the scheduler, or raise ClusterError saying why in one line."""
        if self.client is not None:
            return
        try:
            from dask.distributed import Client
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise ClusterError("the config names a Dask scheduler, but dask.distributed is not "
                               "installed: pip install 'dask[distributed]'") from exc
        timeout = self.settings.connect_timeout
        try:
            self.client = Client(self.address, timeout=f"{timeout}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ClusterError(f"scheduler: cannot reach the Dask scheduler at {self.address} "
                               f"within {timeout:g} s ({reason[:200]}); is it running, and is "
                               "the address right? (cluster: {connect_timeout: ...} waits "
                               "longer)") from None

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close()
            self.client = None

    def threads(self) -> tuple[int, int]:
        """(workers, worker threads) connected now (one round trip to the scheduler)."""
        try:
            nthreads: dict[str, int] = self.client.nthreads()
        except (OSError, TimeoutError) as exc:
            raise self._lost(type(exc).__name__) from None
        return len(nthreads), sum(nthreads.values())

    def _threads_lately(self) -> tuple[int, int]:
        """`threads`, asked of the scheduler at most once per `TICK`: the run's loop turns
        once per batch of finished games, and asking at every turn cost more than the games
        (two round trips per turn halved the throughput of short games)."""
        now = time.monotonic()
        if self._census is None or now - self._census[0] >= TICK:
            self._census = (now, self.threads())
        return self._census[1]

    def addresses(self) -> list[str]:
        """The scheduler's own address (where it listens, as it reports it) and each
        connected worker's."""
        try:
            info: dict[str, Any] = self.client.scheduler_info()
            workers: dict[str, int] = self.client.nthreads()
        except (OSError, TimeoutError) as exc:
            raise self._lost(type(exc).__name__) from None
        return [str(info.get("address", "")), *workers]

    def versions(self) -> dict[str, str]:
        """Each connected worker's platform version."""
        found: dict[str, str] = self.client.run(_version)
        return found

    def run(self, tasks: Iterable[GameTask], on_result: OnResult) -> None:
        self.connect()
        ledger = Ledger(tasks)
        futures: dict[Any, GameTask] = {}
        bundles: dict[str, Any] = {}
        arrived: queue.SimpleQueue[Any] = queue.SimpleQueue()
        waiting = _Waiting()
        tries = itertools.count()
        #: Names the run's scattered snapshots: Dask keeps one value per name on a cluster,
        #: so two runs (or a tune) that named theirs alike would play each other's files.
        run_token = secrets.token_hex(8)
        #: Per game, how often it was put back because its team's files were lost with a
        #: worker: past `RETRIES` that counts as a death (a team whose files kill the
        #: workers that fetch them must not loop for ever).
        lost_files: Counter[str] = Counter()

        def submit() -> bool:
            """Submit the next task; False when its team's files could not be sent (the
            worker chosen died meanwhile): it is put back, uncharged, for the next round."""
            task = ledger.take()
            for snapshot in task.bundles:
                held = bundles.get(snapshot)
                if held is None or held.status != "finished":
                    # First use, or every worker holding it died: (again) from the cache.
                    name = (f"pacman-team-{run_token}-{snapshot_digest(snapshot)[:16]}-"
                            f"{next(tries)}")
                    try:
                        cache = self.cache or default_cache()
                        bundles[snapshot] = self.client.scatter(
                            {name: cache.pack(snapshot)})[name]
                    except OSError:  # CommClosedError: that worker is gone
                        ledger.put_back(task)
                        return False
            deaths = ledger.deaths[task.game.game_id]
            key = task.key if not deaths else f"{task.key}-again-{deaths}-{next(tries)}"
            future = self.client.submit(_on_worker, self.play, self.deadline(task), task,
                                        *[bundles[d] for d in task.bundles], key=key,
                                        pure=False, retries=RETRIES)
            futures[future] = task
            future.add_done_callback(arrived.put)
            return True

        try:
            while not ledger.finished:
                limit = self._limit()
                while ledger.todo and len(futures) < limit and submit():
                    pass
                ready = [f for f in self._ready(arrived, waiting) if f in futures]
                finished = {f.key: f for f in ready if f.status == "finished"}
                # One round trip for all of them; a result whose worker died since it
                # finished is missing here and is played again, as a lost one.
                try:
                    outputs = (self.client.gather(finished, errors="skip") if finished else {})
                except (OSError, TimeoutError) as exc:
                    raise self._lost(type(exc).__name__) from None
                for future in ready:
                    task = futures.pop(future)
                    output = outputs.get(future.key)
                    if isinstance(output, Ended):
                        if ledger.died(task):
                            on_result(task, ledger.death_output(
                                task, overdue(output.deadline) if output.overdue
                                else "its game process died"))
                            ledger.stored(task)
                    elif output is not None:
                        on_result(task, output)
                        ledger.stored(task)
                    elif (any(bundles[d].status != "finished" for d in task.bundles)
                          and lost_files[task.game.game_id] < RETRIES):
                        # The worker holding its only copy of a team's files died: not this
                        # game's fault (uncharged, a few times); the files are sent again.
                        lost_files[task.game.game_id] += 1
                        ledger.put_back(task)
                    elif future.status in ("cancelled", "finished", "lost"):
                        if ledger.died(task):  # lost by the cluster: play it again
                            on_result(task, ledger.death_output(task, "the cluster lost it"))
                            ledger.stored(task)
                    else:
                        on_result(task, GameOutput(task.key, make_row(
                            task, None, None, INFRA_ERROR, f"dask: {_failure(future)}"[:300])))
                        ledger.stored(task)
        finally:
            if futures:
                with contextlib.suppress(Exception):
                    self.client.cancel(list(futures))
            ledger.put_back_all()
            self.close()

    def _lost(self, why: str) -> ClusterError:
        """The one line for a scheduler gone in the middle of a run."""
        return ClusterError(f"lost the Dask scheduler at {self.address} ({why}); start it "
                            "again and run again: the games stored so far are kept")

    def _limit(self) -> int:
        """How many games may be submitted at once now: none while no worker is connected
        (sending a team's files needs one), else `in_flight`, or twice the threads."""
        workers, threads = self._threads_lately()
        if not workers:
            return 0
        if self.settings.in_flight is not None:
            return self.settings.in_flight
        return max(2, 2 * threads)

    def _ready(self, arrived: queue.SimpleQueue[Any], waiting: _Waiting) -> list[Any]:
        """The futures finished since the last call (waiting up to `TICK` for one); meanwhile,
        say when the cluster has no worker, and give up after `worker_wait` seconds."""
        ready = []
        try:
            ready.append(arrived.get(timeout=TICK))
            while True:
                ready.append(arrived.get_nowait())
        except queue.Empty:
            pass
        now = time.monotonic()
        if self.client.status not in ("running", "connecting"):
            raise self._lost(f"the connection is {self.client.status}")
        if self._threads_lately()[0]:
            waiting.since = None
            return ready
        if waiting.since is None:
            waiting.since = waiting.said = now
            self.say(f"waiting for workers: none is connected to the Dask scheduler at "
                     f"{self.address} (the run stops after {self.settings.worker_wait:g} s "
                     "without one)")
        elif now - waiting.since > self.settings.worker_wait:
            raise ClusterError(f"no Dask worker connected to {self.address} for "
                               f"{self.settings.worker_wait:g} s; start workers (`dask worker "
                               f"{self.address}`) and run again: the games stored so far are "
                               "kept")
        elif now - waiting.said >= WAITING_EVERY:
            waiting.said = now
            self.say(f"still waiting for workers at {self.address}: none for "
                     f"{now - waiting.since:.0f} s")
        return ready


def _failure(future: Any) -> str:
    """What a failed future says (KilledWorker, or what the task raised)."""
    try:
        exc = future.exception()
    except Exception as raised:  # whatever the cluster says instead
        exc = raised
    return f"{type(exc).__name__}: {exc}"
