"""Agent handles: the one interface through which the game runner talks to agents.

A game's agents are played through handles, whoever runs them: `InProcessHandle` wraps agent
objects in the referee's own process (built-ins, course code with `--no-sandbox`, the
objects a test or the keyboard hands to `play`), and the sandbox's handle
(`pacman.sandbox.process.SandboxedHandle`) talks to a confined child process. A handle may
serve several agent indices: a ghost team is one handle, so one sandbox process, for every
ghost of the game.

What a handle promises the runner:
- its calls raise `AgentFault` for whatever the agent did wrong (with the index of the agent
  whose call failed), `InfraFailure` for the platform's own failure before any agent code ran,
  and nothing else except what stops the game from outside (Ctrl-C, a closed window);
- it enforces its limits itself (time, memory) and records, per index it serves, what the
  game result shows (`AgentRecord`: timing, CPU, printed output, sandbox layers);
- `close()` releases everything it holds whatever happened, and may be called twice.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pacman.describe import describe
from pacman.limits import Limits, TimeKeeper
from pacman.problems import Detail, detail_of
from pacman.state import GameState

#: What agent code may raise without stopping the referee. SystemExit is included because the
#: course's `util.raiseNotDefined()` exits; KeyboardInterrupt is not (Ctrl-C stops the batch).
AGENT_ERRORS = (Exception, SystemExit, GeneratorExit)


class AgentFault(Exception):
    """The agent failed: `kind` is an outcome (load_error, crash, timeout, memory, ...).

    `index` is the agent whose call failed (None: the handle's first index, as when a team
    fails to load before any of its agents acted). An in-process agent's own exception is the
    `__cause__`; a sandboxed one's traceback arrives as text in `trace`. `detail` is what its
    exception told beyond the outcome (`pacman.problems.Detail`: a syntax error's place, a
    missing module's name), when known.
    """

    def __init__(self, kind: str, message: str, trace: str = "",
                 index: int | None = None, detail: Detail | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.trace = trace
        self.index = index
        self.detail = detail


class InfraFailure(RuntimeError):
    """The platform could not run an agent (before any of its code ran): never its fault."""


@dataclass
class AgentTiming:
    """An agent's thinking time over a game, in seconds of wall-clock time.

    `cpu` is the agent's own CPU time where it runs in a process of its own (the sandbox
    measures it there); for an agent playing inside the referee's process it is None.
    """

    moves: int = 0
    wall: float = 0.0
    wall_max: float = 0.0
    cpu: float | None = None
    #: Largest CPU time of one move, as the sandbox harness measured it (None in-process).
    cpu_max: float | None = None
    #: Moves over the soft per-move limit.
    warnings: int = 0

    def add(self, wall: float) -> None:
        self.moves += 1
        self.wall += wall
        if wall > self.wall_max:
            self.wall_max = wall


@dataclass
class AgentRecord:
    """What a handle recorded about one agent index over a game."""

    timing: AgentTiming = field(default_factory=AgentTiming)
    #: What it printed (sandboxed agents only, capped by `limits.output_kb`).
    log: str = ""
    #: The sandbox layers that were active (empty: it played in-process).
    layers: list[str] = field(default_factory=list)


class AgentHandle(Protocol):
    """One or several agents of a game, as the runner sees them (see the module docstring)."""

    #: The agent indices this handle plays, in order.
    indices: tuple[int, ...]

    def start(self) -> None:
        """Build the agents (import, construct), within the start-up limit."""

    def register(self, state: GameState) -> None:
        """`registerInitialState(state)` on each agent that has it, in index order."""

    def act(self, index: int, state: GameState, move: int) -> Any:
        """Agent `index`'s action in `state`; `move` is the game's move number."""

    def final(self, state: GameState) -> None:
        """`final(state)` on each agent that has it; failures there cost nothing."""

    def close(self) -> None:
        """Release everything; after it `record` is complete."""

    def record(self, index: int) -> AgentRecord:
        """What was recorded about agent `index`."""


def exception_trace(exc: BaseException) -> str:
    """An in-process agent's traceback as text, bounded (its exception can be anything)."""
    try:
        return "".join(traceback.format_exception(exc)[-12:])[-4000:]
    except BaseException:
        return ""


@dataclass
class InProcessAgent:
    """One agent object of an in-process handle, with how it is built."""

    #: Builds the agent (None: `agent` is given ready-made).
    build: Callable[[], Any] | None = None
    agent: Any = None
    #: Why building it failed with a TypeError: the options it takes (for the message), or
    #: None when the call fitted them and the constructor's own code raised it.
    options: Callable[[], str | None] | None = None
    #: A random stream of its own (built-in agents), given once built.
    rng: Any = None
    #: Trusted code may think in a thread while a window stays responsive.
    think_in_thread: bool = False
    label: str = ""
    #: The folder the places a failure names are relative to (its team's, or its file's).
    root: str = ""


class InProcessHandle:
    """Agents in the referee's own process: their methods are called if present, their time is
    the wall clock around each call, checked against the limits when the call returns.

    Course code draws from the global `random`. With `random_seed`, the handle keeps a state
    of that stream of its own, swapped in around every call into its agents: the two sides of
    a game, each in a handle of its own, then draw from independent streams, so nothing one
    side does with `random` changes the other's draws (as with sandboxes, one process each).
    """

    def __init__(self, agents: dict[int, InProcessAgent], limits: Limits,
                 idle: Callable[[], None] | None = None,
                 random_seed: int | None = None) -> None:
        self.indices = tuple(sorted(agents))
        self._agents = agents
        self._keepers = {i: TimeKeeper(limits) for i in self.indices}
        self._records = {i: AgentRecord() for i in self.indices}
        self._idle = idle
        self._random = None if random_seed is None else random.Random(random_seed).getstate()

    @contextlib.contextmanager
    def _own_random(self) -> Iterator[None]:
        if self._random is None:
            yield
            return
        random.setstate(self._random)
        try:
            yield
        finally:
            self._random = random.getstate()

    def start(self) -> None:
        with self._own_random():
            self._start()

    def _start(self) -> None:
        for i in self.indices:
            entry = self._agents[i]
            if entry.build is None:
                continue
            t0 = time.perf_counter()
            try:
                entry.agent = entry.build()
            except TypeError as exc:
                try:
                    params = entry.options() if entry.options else "unknown"
                except Exception:
                    params = "unknown"
                said = "" if params is None else f" (its options: {params})"
                raise AgentFault("load_error", f"{entry.label}: {describe(exc)}{said}",
                                 exception_trace(exc), i, detail_of(exc, entry.root)) from exc
            except AGENT_ERRORS as exc:
                raise AgentFault("load_error", f"{entry.label}: {describe(exc)}",
                                 exception_trace(exc), i, detail_of(exc, entry.root)) from exc
            self._keepers[i].account_startup(time.perf_counter() - t0)
            if entry.rng is not None:
                entry.agent.rng = entry.rng

    def register(self, state: GameState) -> None:
        with self._own_random():
            self._register(state)

    def _register(self, state: GameState) -> None:
        for i in self.indices:
            hook = getattr(self._agents[i].agent, "registerInitialState", None)
            if hook is None:
                continue
            t0 = time.perf_counter()
            self._call(i, "registerInitialState", hook, state, root=self._agents[i].root)
            over = self._keepers[i].account_startup(time.perf_counter() - t0)
            if over:
                raise AgentFault("timeout", over, index=i)

    def act(self, index: int, state: GameState, move: int) -> Any:
        entry = self._agents[index]
        record = self._records[index]
        keeper = self._keepers[index]
        t0 = time.perf_counter()
        with self._own_random():
            if self._idle is not None and entry.think_in_thread:
                action = self._call(index, "getAction", _think_beside, entry.agent, state,
                                    self._idle, root=entry.root)
            else:
                action = self._call(index, "getAction", entry.agent.getAction, state,
                                    root=entry.root)
        wall = time.perf_counter() - t0
        record.timing.add(wall)
        over = keeper.account(wall, move)
        record.timing.warnings = keeper.warnings
        if over:
            raise AgentFault("timeout", over, index=index)
        return action

    def final(self, state: GameState) -> None:
        """The course calls final() on every agent once a game is over; an exception there
        is the agent's crash (the game's outcome stands: see `pacman.game`)."""
        first: AgentFault | None = None
        for i in self.indices:
            hook = getattr(self._agents[i].agent, "final", None)
            if hook is not None:
                try:
                    with self._own_random():
                        self._call(i, "final()", hook, state)
                except AgentFault as fault:
                    first = first or fault
        if first is not None:
            raise first

    def close(self) -> None:
        pass

    def record(self, index: int) -> AgentRecord:
        return self._records[index]

    @staticmethod
    def _call(index: int, what: str, fn: Callable[..., Any], *args: Any, root: str = "") -> Any:
        """Call into agent code: its exception is its fault (the window's closing, raised by
        the idle hook while it thinks in a thread, is not)."""
        from pacman.display import WindowClosed

        try:
            return fn(*args)
        except WindowClosed:
            raise
        except AGENT_ERRORS as exc:
            raise AgentFault("crash", f"{what} raised {describe(exc)}", exception_trace(exc),
                             index, detail_of(exc, root)) from exc


def _think_beside(agent: Any, state: GameState, idle: Callable[[], None]) -> Any:
    """A trusted agent's move computed in a thread while the window's events are pumped.

    Only built-in agents ask for it (`think_in_thread`): course code may rely on being on the
    main thread (signal-based timers), and sandboxed agents think in their own process.
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["action"] = agent.getAction(state)
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, name="agent-thinking", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.03)
        if worker.is_alive():
            idle()
    if "error" in box:
        raise box["error"]
    return box["action"]


def given_agents(agents: Sequence[Any]) -> dict[int, InProcessAgent]:
    """Ready-made agent objects (`play(agents=...)`: tests, the keyboard), by index."""
    return {i: InProcessAgent(agent=agent, label=type(agent).__name__)
            for i, agent in enumerate(agents)}
