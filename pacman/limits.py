"""The limits an agent plays under, as one value shared by the game runner, the sandbox, the CLI
and tournaments.

The defaults are the course contest's: 15 s to start (import, construction and
`registerInitialState`), 1 s per move with 3 warnings allowed, and a hard 3 s per move at
which the agent's process is killed. The referee measures every limit itself; nothing the agent
reports is trusted for enforcement.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

#: What each field means, for `--help`, the tournament config docs and error messages.
DESCRIPTIONS = {
    "startup": "seconds for import, construction and registerInitialState together",
    "move_soft": "seconds per move before a warning",
    "move_warnings": "moves over move_soft that are forgiven; one more is a timeout",
    "move_hard": "seconds per move at which the agent is killed (a timeout)",
    "game_total": "seconds of thinking per game, all moves together",
    "memory_mb": "address space (and, where cgroups allow, resident memory) in MiB",
    "cpu_seconds": "CPU seconds per game, enforced by the kernel (RLIMIT_CPU)",
    "output_kb": "KiB of printed output kept in the agent's log; the rest is dropped",
    "processes": "processes and threads the agent's user may run (RLIMIT_NPROC, pids cgroup)",
    "scratch_mb": "MiB of the agent's scratch folder (a tmpfs of its own, at most 64 files "
                  "per MiB), counted as its memory",
}
#: Limits counted in whole numbers (the others are seconds), with their least value. A
#: sandbox is two processes before the agent starts one (its keeper and the agent): with one,
#: no sandbox could start, and every game would be the platform's failure, played again.
COUNTS = {"move_warnings": 0, "output_kb": 0, "processes": 2, "memory_mb": 64, "scratch_mb": 1}
#: Limits in seconds that the kernel enforces in whole seconds only (RLIMIT_CPU).
WHOLE_SECONDS = ("cpu_seconds",)
#: Limits that always apply (the others may be None, switched off).
ALWAYS = ("move_warnings", "output_kb", "processes", "scratch_mb")
#: Files per MiB of scratch space (tmpfs inodes).
SCRATCH_FILES_PER_MB = 64


@dataclass(frozen=True)
class Limits:
    """Per-agent, per-game limits. `None` switches a time or memory limit off."""

    startup: float | None = 15.0
    move_soft: float | None = 1.0
    move_warnings: int = 3
    move_hard: float | None = 3.0
    game_total: float | None = None
    memory_mb: int | None = 2048
    cpu_seconds: float | None = None
    output_kb: int = 64
    processes: int = 64
    scratch_mb: int = 64

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name not in ALWAYS:
                continue
            problem = limit_problem(f.name, value)
            if problem:
                raise ValueError(f"{f.name}: {problem}")

    def with_changes(self, **changes: Any) -> Limits:
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def limit_problem(name: str, value: object) -> str:
    """Why `value` is not acceptable for the limit `name` ('' when it is)."""
    if name in COUNTS:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected a whole number, got {value!r}"
        # Below 64 MiB the interpreter itself cannot run, so no agent could.
        low = COUNTS[name]
        if value < low:
            return f"expected at least {low}, got {value}"
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected a number of seconds, got {value!r}"
    if not (math.isfinite(value) and value > 0):
        return f"expected a positive number of seconds, got {value!r}"
    if name in WHOLE_SECONDS and value != int(value):
        # Rounded, 2.4 s killed an agent at 2 s while its message said 2.4 (the fifteenth
        # hostile review); rounded up, it would allow more than it says.
        return (f"expected a whole number of seconds (the kernel counts CPU time in whole "
                f"seconds), got {value!r}")
    return ""


#: No time limits at all (the course engine without `-c`); memory and output stay capped.
UNTIMED = Limits(startup=None, move_soft=None, move_hard=None)


class TimeKeeper:
    """Applies a `Limits` to one agent's moves as they are timed; pure bookkeeping.

    The referee measures each move; `account` says whether that move broke a limit (and why),
    `allowed` how long the next move may take before the agent is killed.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.total = 0.0
        self.warnings = 0
        self.startup = 0.0

    def startup_left(self) -> float | None:
        if self.limits.startup is None:
            return None
        return max(0.0, self.limits.startup - self.startup)

    def account_startup(self, wall: float) -> str | None:
        self.startup += wall
        if self.limits.startup is not None and self.startup > self.limits.startup:
            return f"start-up took {self.startup:.3f}s (limit {self.limits.startup}s)"
        return None

    def allowed(self) -> float | None:
        """Seconds the next move may take before it is cut off (None: no limit)."""
        bounds = []
        if self.limits.move_hard is not None:
            bounds.append(self.limits.move_hard)
        if self.limits.game_total is not None:
            bounds.append(max(0.0, self.limits.game_total - self.total))
        return min(bounds) if bounds else None

    def cut_off(self, move: int) -> str:
        """Why a move stopped at `allowed()` seconds was killed: which limit bound it."""
        allowed = self.allowed()
        lim = self.limits
        if allowed is None:
            return f"move {move} did not end"
        if lim.game_total is not None and (lim.move_hard is None or allowed != lim.move_hard):
            return (f"move {move} was killed when thinking time reached {lim.game_total}s "
                    f"(limit {lim.game_total}s per game)")
        return f"move {move} took more than {allowed:.3f}s; killed"

    def account(self, wall: float, move: int) -> str | None:
        """Record a move that took `wall` seconds; the failure message if it broke a limit."""
        self.total += wall
        lim = self.limits
        if lim.move_hard is not None and wall > lim.move_hard:
            return f"move {move} took {wall:.3f}s (hard limit {lim.move_hard}s)"
        if lim.game_total is not None and self.total > lim.game_total:
            return (f"thinking time reached {self.total:.3f}s at move {move} "
                    f"(limit {lim.game_total}s per game)")
        if lim.move_soft is not None and wall > lim.move_soft:
            self.warnings += 1
            if self.warnings > lim.move_warnings:
                return (f"move {move} took {wall:.3f}s: {self.warnings} moves over the "
                        f"{lim.move_soft}s limit ({lim.move_warnings} forgiven)")
        return None


def longest_game(limits: Limits, max_moves: int, agents: int,
                 totals: bool = True) -> float | None:
    """The most thinking time a game of `agents` agents can take when each uses its limits
    to the full (pure): its start-up, then every one of the `max_moves` moves (all agents
    together) at the hard limit, or each agent's per-game total if that is less. None when
    some of it is unbounded (no start-up limit, or neither a hard limit nor a total).
    `totals` False: the game's built-ins play under `builtin_limits` (a tournament's), so
    the total bounds the teams alone, and the built-ins' moves the backstop's hard limit."""
    if limits.startup is None:
        return None
    start = agents * limits.startup
    if limits.move_hard is not None:
        hard = max_moves * limits.move_hard
        if limits.game_total is None or not totals:
            return start + hard
        return start + min(hard, agents * limits.game_total)
    if limits.game_total is None:
        return None
    if totals:
        return start + agents * limits.game_total
    return start + agents * limits.game_total + max_moves * BACKSTOP["move_hard"]


def builtin_limits(limits: Limits) -> Limits:
    """The limits a tournament holds the platform's built-ins to: not the game's totals
    (`game_total`, `cpu_seconds`), which are sized for the teams, while a built-in's time is
    its own per-move option (one that searches on a clock spends it every move, and
    forfeited partway: the seventeenth hostile review); where the game total was all that
    bounded a move, the backstop's hard limit instead, so that no game goes unbounded."""
    hard = limits.move_hard
    if hard is None and limits.game_total is not None:
        hard = BACKSTOP["move_hard"]
    return limits.with_changes(game_total=None, cpu_seconds=None, move_hard=hard)


#: The course contest's limits (the defaults of `Limits`), for `--contest-limits`.
CONTEST = Limits()

#: The hard limits where a batch must go on and none is given (`tournament
#: validate` with a config that switches them off): an agent stuck in its start-up or in a
#: move is stopped rather than stopping everyone.
BACKSTOP = {"startup": 60.0, "move_hard": 30.0}


def with_backstop(limits: Limits) -> Limits:
    """`limits` with each `BACKSTOP` limit that is switched off set to the backstop's."""
    return limits.with_changes(**{name: value for name, value in BACKSTOP.items()
                                  if getattr(limits, name) is None})
