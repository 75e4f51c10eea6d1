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
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pacman.actions import action_name
from pacman.describe import safe_text
from pacman.display import Display, NullDisplay, WindowClosed
from pacman.handles import (
    AgentFault,
    AgentHandle,
    AgentTiming,
    InfraFailure,
    InProcessAgent,
    InProcessHandle,
    given_agents,
)
from pacman.layout import Layout
from pacman.limits import UNTIMED, Limits, builtin_limits
from pacman.loader import AgentRef, describe_signature, options_refused
from pacman.outcomes import FAILURES, INFRA_ERROR, STOPPED
from pacman.problems import MOVE, REGISTER, START, Detail
from pacman.rules import IllegalMove
from pacman.sandbox.process import Placement, SandboxedHandle
from pacman.seeds import stream_seed
from pacman.state import GameState

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


class GameStopped(KeyboardInterrupt):
    """Someone stopped the game from outside: its window was closed (Escape, the close
    button) or Ctrl-C was pressed. Raised out of `play` with the game as far as it went.

    `result` is the game so far, outcome `stopped` and the reason as its message; or the whole
    game, with its own outcome, when the stop came while its end was shown. A KeyboardInterrupt,
    so whatever stops on Ctrl-C (a tournament's workers, a batch) stops on it as before.
    """

    def __init__(self, reason: str, result: GameResult) -> None:
        super().__init__(reason)
        self.reason = reason
        self.result = result


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
    #: Whether the platform's own built-ins (no team's files in them) are held to the game's
    #: totals (`game_total`, `cpu_seconds`) too. The `pacman` command holds everyone to the
    #: limits it is given; a tournament says no: its totals are sized for the teams, and a
    #: built-in's time is its own per-move option, so a baseline that searches on a clock
    #: forfeited once the teams' total ran out (the seventeenth hostile review: a team that
    #: only fled won by the baseline ghost's timeout).
    builtin_totals: bool = True


def sandboxed(ref: AgentRef, sandbox: bool | None) -> bool:
    """Whether `ref` plays in a sandbox given `GameSpec.sandbox`: agents from files do unless
    told otherwise, and so does a built-in that plays with files (`team`: a tuning's feature
    function, whose crash, endless loop or death must be that game's typed failure blamed on
    Pacman, not a worker's) or on the sources (`on_sources`, a clock-bound baseline in a
    tournament); other built-ins (and agents named by module) are trusted and play
    in-process."""
    return ((ref.path is not None or bool(ref.builtin and (ref.team or ref.on_sources)))
            and sandbox is not False)


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
    #: For a failure: the stage of the game it happened in (`pacman.problems.STAGES`: while
    #: building the agents, registering them, a move), and what the failing agent's
    #: exception told beyond the outcome (`pacman.problems.Detail`), when known.
    stage: str = ""
    detail: Detail | None = None
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
        agents=[r.shown for r in refs],
        outcome="",
        score=0,
        moves=0,
        timing=[AgentTiming() for _ in range(n)],
        logs=["" for _ in range(n)],
        sandbox=[[] for _ in range(n)],
    )
    random.seed(stream_seed(spec.seed, spec.secret, "agents"))
    display.name_agents([ref.shown for ref in refs])
    idle = display.while_thinking()

    def fail(kind: str, index: int | None, message: str, trace: str = "",
             cause: BaseException | None = None, stage: str = MOVE,
             detail: Detail | None = None) -> None:
        result.outcome = kind
        result.culprit = index
        result.message = message[:MESSAGE_LIMIT]
        result.trace = trace or (result.message if cause is not None else "")
        result.stage = stage
        result.detail = detail
        if not catch:
            raise AgentFailure(kind, index, result.message, result.trace) from cause

    def faulted(fault: AgentFault, handle: AgentHandle, stage: str = MOVE) -> None:
        index = handle.indices[0] if fault.index is None else fault.index
        fail(fault.kind, index, fault.message, fault.trace, fault.__cause__, stage,
             fault.detail)

    handles: list[AgentHandle] = []
    try:
        if agents is not None:
            handles.append(InProcessHandle(given_agents(agents), spec.limits, idle))
        else:
            handles += _handles(spec, refs, placement, on_output, idle)
        by_index = {i: h for h in handles for i in h.indices}

        def each(step: Callable[[AgentHandle], object], stage: str) -> None:
            """`step` on every handle in turn, stopping at the first failure (recorded as
            one of `stage`)."""
            for handle in handles:
                try:
                    step(handle)
                except AgentFault as fault:
                    faulted(fault, handle, stage)
                    return
                except InfraFailure as exc:
                    fail(INFRA_ERROR, None,
                         f"the sandbox of agent {handle.indices[0]} failed: {exc}", stage=stage)
                    return

        each(lambda handle: handle.start(), START)
        if not result.outcome:
            display.initialize(state)
            each(lambda handle: handle.register(state), REGISTER)
        started = not result.outcome
        if started:
            _run(spec, state, by_index, display, result, fail, faulted)
        state = result.final_state or state
        result.final_state = state
        result.score = int(state.getScore())
        if not result.outcome:
            result.outcome = "win" if state.isWin() else "loss" if state.isLose() else "move_limit"
        # The course calls final() on every agent once a game is over; a game that never
        # started (an agent failed to load or register) has nothing to report to them.
        for handle in handles if started else []:
            try:
                handle.final(state)
            except AgentFault as fault:
                index = handle.indices[0] if fault.index is None else fault.index
                if not catch:
                    raise AgentFailure("crash", index, fault.message) from fault.__cause__
                # The outcome stands, and no culprit is set: the message names whose final()
                # it was, or a ghost team's words could read as Pacman's failure (the
                # seventeenth hostile review).
                who = "Pacman" if index == 0 else f"ghost {index}"
                result.message = result.message or f"{who} after the game: {fault.message}"
    except AgentFailure as failure:
        failure.result = result
        raise
    except (WindowClosed, KeyboardInterrupt) as stop:
        raise GameStopped(_reason(stop), _cut_short(result, _reason(stop))) from stop
    finally:
        # Every handle is closed, whatever closing or recording another one raised.
        problem: BaseException | None = None
        for handle in handles:
            try:
                handle.close()
                for i in handle.indices:
                    record = handle.record(i)
                    result.timing[i] = record.timing
                    result.logs[i] = record.log
                    result.sandbox[i] = record.layers
            except BaseException as exc:
                problem = problem or exc
        if problem is not None:
            raise problem
    try:
        display.finish(state, result.outcome)
    except WindowClosed as stop:
        raise GameStopped(_reason(stop), result) from stop
    return result


def _reason(stop: BaseException) -> str:
    """Why a game was stopped from outside, for people: `Escape was pressed`."""
    if isinstance(stop, GameStopped):
        return stop.reason
    if isinstance(stop, WindowClosed):
        return str(stop)
    return "Ctrl-C was pressed"


def _cut_short(result: GameResult, reason: str) -> GameResult:
    """The game so far, once it was stopped from outside (an ending already reached stands)."""
    if not result.outcome:
        result.outcome = STOPPED
        result.message = reason
        result.moves = len(result.actions)
        result.score = result.scores[-1] if result.scores else 0
    return result


def _handles(
    spec: GameSpec,
    refs: list[AgentRef],
    placement: Placement | None,
    on_output: Callable[[int, str], None] | None,
    idle: Callable[[], None] | None,
) -> list[AgentHandle]:
    """The game's handles, not started yet, one per side: Pacman's, and one for every ghost
    (a ghost team is one sandbox process, or one in-process handle). Agents from files play
    sandboxed by default, the others (built-ins, module-named agents, `--no-sandbox`)
    in-process, built-ins with random streams of their own, course code with its side's own
    state of the global `random`."""
    ghost_rng = random.Random(stream_seed(spec.seed, spec.secret, "ghosts"))
    n = len(refs)
    handles: list[AgentHandle] = []
    for side in ((0,), tuple(range(1, n))):
        if not side:
            continue
        ref = refs[side[0]]
        # Pacman's stream is where the global one starts; a side's starts at its first index.
        labels = ("agents", side[0]) if side[0] else ("agents",)
        seed = stream_seed(spec.seed, spec.secret, *labels)
        limits = spec.limits
        if ref.builtin and not ref.team and not spec.builtin_totals:
            limits = builtin_limits(limits)
        if sandboxed(ref, spec.sandbox):
            handles.append(SandboxedHandle(ref, side, spec.layout, n - 1, spec.ruleset, seed,
                                           limits, placement, on_output, idle))
            continue
        local = {}
        for i in side:
            rng: Any = None
            if ref.builtin:
                # Built-ins draw from streams of their own (Pacman's starts where the global
                # one would): a game is then the same even where other threads use `random`.
                rng = ghost_rng if i > 0 else random.Random(seed)
            local[i] = InProcessAgent(
                build=functools.partial(ref.build, i),
                options=functools.partial(_options, ref, i),
                rng=rng,
                think_in_thread=ref.builtin and ref.name != "KeyboardAgent",
                label=ref.shown,
                root=ref.team or (str(Path(ref.path).parent) if ref.path else ""),
            )
        handles.append(InProcessHandle(local, limits, idle,
                                       None if ref.builtin else seed))
    return handles


def _options(ref: AgentRef, index: int) -> str | None:
    """The agent's options, when a `TypeError` building it was its options' (None: its
    constructor's own code raised it, `pacman.loader.options_refused`)."""
    cls = ref.load_class()
    refused = options_refused(cls, index, dict(ref.args))
    return describe_signature(cls) if refused else None


def _run(
    spec: GameSpec,
    state: GameState,
    handles: dict[int, AgentHandle],
    display: Display,
    result: GameResult,
    fail: Any,
    faulted: Any,
) -> None:
    """The move loop: ask, check, apply, record, until the game ends or the limit is hit."""
    n = len(handles)
    actions = result.actions
    scores = result.scores
    index = 0
    moves = 0
    limit = spec.max_moves if spec.max_moves is not None else math.inf
    while not state.isTerminal() and moves < limit:
        handle = handles[index]
        try:
            action = handle.act(index, state, moves)
        except AgentFault as fault:
            faulted(fault, handle)
            break
        except InfraFailure as exc:
            fail(INFRA_ERROR, None, f"the sandbox of agent {index} failed: {exc}")
            break
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
