"""`play(spec) -> GameResult`: one game, every agent failure turned into data.

A game is determined by its spec: the layout, the agents, the ruleset, the limits and one
seed. From the seed come two streams: one `random.Random` for the built-in ghosts, and the
global `random` stream that course code uses (seeded at the start of the game). Each game gets
fresh agent instances, so the same spec gives the same game whatever was played before it,
with one caveat: a course file is imported once per process, so state an agent keeps at module
or class level carries over between games played in one process (sandboxed play, one process
per game, removes that).
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pacman.actions import action_name
from pacman.describe import describe, safe_text
from pacman.display import Display, NullDisplay, WindowClosed
from pacman.layout import Layout
from pacman.loader import AgentRef, describe_signature
from pacman.outcomes import FAILURES, INFRA_ERROR
from pacman.rules import IllegalMove
from pacman.sandbox.limits import UNTIMED, Limits, TimeKeeper
from pacman.sandbox.process import AgentFault, Placement, SandboxedAgent, SandboxError
from pacman.state import GameState

#: What agent code may raise without stopping the referee. SystemExit is included because the
#: course's `util.raiseNotDefined()` exits; KeyboardInterrupt is not (Ctrl-C stops the batch).
AGENT_ERRORS = (Exception, SystemExit, GeneratorExit)
#: Longest message kept from an agent's failure (its exception text can be anything).
MESSAGE_LIMIT = 300


class AgentFailure(Exception):
    """Raised out of `play(catch=False)` when an agent fails; the agent's own exception, if
    any, is the `__cause__`. Anything else escaping `play` is the platform's own error."""

    def __init__(self, kind: str, culprit: int | None, message: str, trace: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.culprit = culprit
        #: The agent's traceback as text, when it ran in a sandbox (no exception object).
        self.trace = trace
        #: The game so far (its logs included), filled in as the failure leaves `play`.
        self.result: GameResult | None = None


def stream_seed(spec: GameSpec, *labels: object) -> int:
    """The seed of one of the game's random streams: from its seed and, when it has one, its
    secret (without a secret, what `derive_seed(seed, *labels)` gives, as before)."""
    return derive_seed(spec.seed, *labels, *((spec.secret,) if spec.secret else ()))


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed from a parent seed and labels; stable across Python versions and runs."""
    text = ":".join([str(seed), *map(str, labels)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


@dataclass(frozen=True)
class GameSpec:
    layout: Layout
    pacman: AgentRef
    ghost: AgentRef
    num_ghosts: int | None = None
    seed: int = 0
    ruleset: str = "classic"
    #: Moves of all agents together after which the game ends as `move_limit`; None: no limit,
    #: as in the course engine (tournaments set one in their config).
    max_moves: int | None = None
    #: Time, memory and output limits of every agent (built-ins in-process get the time ones,
    #: checked when a move returns; sandboxed agents get all of them, enforced by killing).
    limits: Limits = UNTIMED
    #: Keys every random stream of the game (the ghosts', the agents'): without it they follow
    #: from `seed` alone, so anyone who knows the seed knows every ghost move to come. A
    #: tournament keeps one secret per results folder (`tournament.secret`), so that an agent
    #: that can guess its game's seed (seeds come from the config) still cannot predict them.
    secret: str = ""
    #: Run agents loaded from files in a sandbox: True, False, or None for the default (yes).
    #: Built-in agents (and any named by module rather than file) are trusted and play
    #: in-process.
    sandbox: bool | None = None


def sandboxed(ref: AgentRef, sandbox: bool | None) -> bool:
    """Whether `ref` plays in a sandbox given `GameSpec.sandbox`: agents from files do unless
    told otherwise; built-ins (and agents named by module) are trusted and play in-process."""
    return ref.path is not None and sandbox is not False


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
class GameResult:
    layout: str
    seed: int
    ruleset: str
    num_ghosts: int
    agents: list[str]
    outcome: str
    score: int
    #: Moves applied, all agents together.
    moves: int
    culprit: int | None = None
    message: str = ""
    trace: str = ""
    actions: list[tuple[int, str]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    timing: list[AgentTiming] = field(default_factory=list)
    #: Per agent: what it printed (sandboxed agents only, capped by `limits.output_kb`).
    logs: list[str] = field(default_factory=list)
    #: Per agent: the sandbox layers that were active (empty: it played in-process).
    sandbox: list[list[str]] = field(default_factory=list)
    final_state: GameState | None = field(default=None, repr=False, compare=False)

    @property
    def win(self) -> bool:
        return self.outcome == "win"

    @property
    def failed(self) -> bool:
        return self.outcome in FAILURES

    @property
    def scored(self) -> bool:
        """False for a game the platform failed to run: it counts for nobody."""
        return self.outcome != INFRA_ERROR


def play(
    spec: GameSpec,
    display: Display | None = None,
    catch: bool = True,
    agents: list[Any] | None = None,
    placement: Placement | None = None,
    on_output: Callable[[int, str], None] | None = None,
) -> GameResult:
    """Play one game. With `catch` (the default) nothing an agent does escapes as an exception.

    `agents` overrides building them from the spec (tests and the keyboard use it);
    `placement` says where sandboxes live and which uid slot they take (one per worker);
    `on_output(index, text)` receives what a sandboxed agent prints as it prints it (it is in
    `logs` at the end either way).
    Every sandbox the game started is gone when this returns, whatever happened.
    """
    display = display or NullDisplay()
    state = GameState.initial(spec.layout, spec.num_ghosts, spec.ruleset)
    n = state.getNumAgents()
    refs = [spec.pacman] + [spec.ghost] * (n - 1)
    result = GameResult(
        layout=spec.layout.name,
        seed=spec.seed,
        ruleset=spec.ruleset,
        num_ghosts=n - 1,
        agents=[r.label for r in refs],
        outcome="",
        score=0,
        moves=0,
        timing=[AgentTiming() for _ in range(n)],
        logs=["" for _ in range(n)],
        sandbox=[[] for _ in range(n)],
    )
    random.seed(stream_seed(spec, "agents"))
    keepers = [TimeKeeper(spec.limits) for _ in range(n)]
    name_agents = getattr(display, "name_agents", None)
    if name_agents is not None:
        name_agents([ref.name for ref in refs])

    def fail(kind: str, index: int | None, message: str, exc: BaseException | None = None,
             trace: str = "") -> None:
        result.outcome = kind
        result.culprit = index
        result.message = message[:MESSAGE_LIMIT]
        result.trace = trace
        if exc is not None:
            try:
                result.trace = "".join(traceback.format_exception(exc)[-12:])[-4000:]
            except BaseException:
                result.trace = result.message
        if not catch:
            raise AgentFailure(kind, index, result.message, result.trace) from exc

    built: list[Any] = []
    try:
        if agents is not None:
            built = list(agents)
        else:
            _build(spec, refs, n, placement, keepers, fail, built, on_output)
        if not result.outcome:
            display.initialize(state)
            _register(built, state, keepers, fail)
        started = not result.outcome
        if started:
            _run(spec, state, built, keepers, display, result, fail)
        state = result.final_state or state
        result.final_state = state
        result.score = int(state.getScore())
        if not result.outcome:
            result.outcome = "win" if state.isWin() else "loss" if state.isLose() else "move_limit"
        # The course calls final() on every agent once a game is over; a game that never
        # started (an agent failed to load or register) has nothing to report to them.
        for i, agent in enumerate(built if started else []):
            hook = getattr(agent, "final", None)
            if hook is not None:
                try:
                    hook(state)
                except AGENT_ERRORS as exc:
                    if not catch:
                        raise AgentFailure("crash", i, f"final() raised {describe(exc)}") from exc
                    result.message = result.message or f"final() raised {describe(exc)}"
    except AgentFailure as failure:
        failure.result = result
        raise
    finally:
        # Every sandbox is closed, whatever closing or recording another one raised.
        problem: BaseException | None = None
        for i, agent in enumerate(built):
            if isinstance(agent, SandboxedAgent):
                try:
                    agent.close()
                    _record_sandbox(result, i, agent)
                except BaseException as exc:
                    problem = problem or exc
        if problem is not None:
            raise problem
    display.finish(state, result.outcome)
    return result


def _build(
    spec: GameSpec,
    refs: list[AgentRef],
    n: int,
    placement: Placement | None,
    keepers: list[TimeKeeper],
    fail: Any,
    built: list[Any],
    on_output: Callable[[int, str], None] | None,
) -> None:
    """Fresh agents for one game, appended to `built` as they come (so that the caller closes
    the sandboxes already started, whatever happens to a later one): built-ins in-process,
    file agents in sandboxes by default.

    Stops at the first agent that cannot be built (the game is then lost before it starts).
    """
    ghost_rng = random.Random(stream_seed(spec, "ghosts"))
    for i, ref in enumerate(refs):
        if sandboxed(ref, spec.sandbox):
            seed = stream_seed(spec, "agents") if i == 0 else stream_seed(spec, "agents", i)
            try:
                agent = SandboxedAgent.launch(ref, i, spec.layout, n - 1, spec.ruleset, seed,
                                              spec.limits, placement)
            except AgentFault as fault:
                fail(fault.kind, i, f"{ref.label}: {fault.message}", trace=fault.trace)
                break
            except SandboxError as exc:
                fail(INFRA_ERROR, None, f"the sandbox of agent {i} failed: {exc}")
                break
            # Time spent importing and building counts against the start-up limit.
            keepers[i] = agent.keeper
            built.append(agent)
            if on_output is not None:
                agent.process.on_output = functools.partial(on_output, i)
            continue
        t0 = time.perf_counter()
        try:
            agent = ref.build(i)
        except TypeError as exc:
            try:
                params = describe_signature(ref.load_class())
            except Exception:
                params = "unknown"
            fail("load_error", i, f"{ref.label}: {describe(exc)} (its options: {params})", exc)
            break
        except AGENT_ERRORS as exc:
            fail("load_error", i, f"{ref.label}: {describe(exc)}", exc)
            break
        keepers[i].account_startup(time.perf_counter() - t0)
        if ref.builtin:
            # Built-ins draw from streams of their own (Pacman's starts where the global one
            # would): a game is then the same even where other threads use `random`.
            agent.rng = ghost_rng if i > 0 else random.Random(stream_seed(spec, "agents"))
            # Trusted code may think in a thread while a window stays responsive.
            agent.think_in_thread = ref.name != "KeyboardAgent"
        built.append(agent)


def _register(built: list[Any], state: GameState, keepers: list[TimeKeeper], fail: Any) -> None:
    for i, agent in enumerate(built):
        hook = getattr(agent, "registerInitialState", None)
        if hook is None:
            continue
        t0 = time.perf_counter()
        try:
            hook(state)
        except BaseException as exc:
            if _failed(exc, i, "registerInitialState", fail):
                return
            raise
        if not isinstance(agent, SandboxedAgent):
            over = keepers[i].account_startup(time.perf_counter() - t0)
            if over:
                fail("timeout", i, over)
                return


def _failed(
    exc: BaseException,
    index: int,
    what: str,
    fail: Any,
    timing: AgentTiming | None = None,
    keeper: TimeKeeper | None = None,
    t0: float = 0.0,
) -> bool:
    """Record `exc`, raised by a call into agent `index`, as the failure it is; False when it
    is none (Ctrl-C, a closed window: the caller re-raises those).

    Whom a failure blames: an `AgentFault` is the sandbox's verdict on the agent (a move it
    ended still counts in the agent's times); a `SandboxError` is the platform's own (nobody);
    anything else the agent's in-process code raised is its crash. `fail` may raise.
    """
    if isinstance(exc, WindowClosed):
        return False
    if isinstance(exc, AgentFault):
        if timing is not None and keeper is not None:
            timing.add(time.perf_counter() - t0)
            timing.warnings = keeper.warnings
        fail(exc.kind, index, exc.message, trace=exc.trace)
    elif isinstance(exc, SandboxError):
        fail(INFRA_ERROR, None, f"the sandbox of agent {index} failed: {exc}")
    elif isinstance(exc, AGENT_ERRORS):
        fail("crash", index, f"{what} raised {describe(exc)}", exc)
    else:
        return False
    return True


def _think_beside(agent: Any, state: GameState, idle: Any) -> Any:
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


def _record_sandbox(result: GameResult, index: int, agent: SandboxedAgent) -> None:
    process = agent.process
    timing = result.timing[index]
    timing.cpu = process.cpu.total
    timing.cpu_max = process.cpu.move_max if process.cpu.moves else None
    result.logs[index] = process.log
    result.sandbox[index] = sorted(process.active)


def _run(
    spec: GameSpec,
    state: GameState,
    agents: list[Any],
    keepers: list[TimeKeeper],
    display: Display,
    result: GameResult,
    fail: Any,
) -> None:
    """The move loop: ask, check, apply, record, until the game ends or the limit is hit."""
    n = len(agents)
    idle = getattr(display, "idle", None)
    for agent in agents:
        if isinstance(agent, SandboxedAgent):
            agent.process.on_wait = idle
    actions = result.actions
    scores = result.scores
    timing = result.timing
    perf = time.perf_counter
    index = 0
    moves = 0
    limit = spec.max_moves if spec.max_moves is not None else math.inf
    while not state.isTerminal() and moves < limit:
        agent = agents[index]
        t0 = perf()
        try:
            if idle is not None and getattr(agent, "think_in_thread", False):
                action = _think_beside(agent, state, idle)
            else:
                action = agent.getAction(state)
        except BaseException as exc:
            if _failed(exc, index, "getAction", fail, timing[index], keepers[index], t0):
                break
            raise
        wall = perf() - t0
        timing[index].add(wall)
        if not getattr(agent, "enforces_limits", False):
            over = keepers[index].account(wall, moves)
            if over:
                timing[index].warnings = keepers[index].warnings
                fail("timeout", index, over)
                break
        timing[index].warnings = keepers[index].warnings
        name = action_name(action)
        try:
            if name is None:
                raise IllegalMove(action)
            state = state.generateSuccessor(index, name)
        except IllegalMove:
            legal = ", ".join(state.getLegalActions(index))
            who = "Pacman" if index == 0 else f"ghost {index}"
            fail("illegal_action", index,
                 f"{who} returned {safe_text(action)} at move {moves}; legal: {legal}")
            break
        moves += 1
        actions.append((index, name))
        scores.append(state._score)
        display.update(state, index, name)
        index += 1
        if index == n:
            index = 0
    result.moves = moves
    result.final_state = state
