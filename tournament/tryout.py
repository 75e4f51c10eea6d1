"""Every entrant tried once, before the tournament: one short game each (`tournament validate`).

A Pacman entrant plays the grid's first ghosts, a ghost team the built-in `RIVAL`, on
`LAYOUT`, for at most `MOVES` moves, under the tournament's limits and sandbox, so that a team
that would fail in the tournament (a file that does not compile, a missing module, a start-up
too slow, a crash) fails here first. Each game is its own sandbox, so up to `workers` are
tried at once, in threads of this process (each thread has its own zygote, see
`pacman.sandbox.zygote`); the rows come back in the config's order whatever order the games
end in. What becomes of each try is a `tournament.validation.ValidationRow`.

A config that switches the start-up or the hard move limit off gets `pacman.limits.BACKSTOP`
here, so that one team stuck for ever cannot stop the validation of the others.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from pacman.describe import clean
from pacman.display import NullDisplay
from pacman.game import GameSpec, play
from pacman.layout import Layout, load_layout
from pacman.limits import Limits, with_backstop
from pacman.loader import AgentRef, SubmissionError, resolve
from pacman.outcomes import GHOSTS, INFRA_ERROR, PACMAN
from pacman.sandbox.process import Placement
from tournament.config import Entrant, TournamentConfig
from tournament.schedule import Cell, MatchCell, agent_args, cells, match_cells
from tournament.validation import FAILED, ValidationRow, game_row, one_line, resolution_row

#: The short game: a small board, a few moves, one ghost.
LAYOUT = "testClassic"
MOVES = 40
GHOSTS_PLAYED = 1
#: The built-in Pacman a ghost team is tried against.
RIVAL = "GreedyAgent"
#: The ghosts a Pacman is tried against when the grid has none (a tournament of matches only).
DEFAULT_GHOST = "RandomGhost"
#: Seconds between the main thread's looks at a Ctrl-C while it waits for a row.
WAKE = 0.2


@dataclass(frozen=True)
class Trial:
    """One entrant's side to try."""

    entrant: Entrant
    side: str

    @property
    def folder(self) -> Path | None:
        return self.entrant.folder


def trials(config: TournamentConfig) -> list[Trial]:
    """What to try, in the order the table shows: the Pacman entrants, then the ghost ones."""
    return ([Trial(e, PACMAN) for e in config.entrants]
            + [Trial(e, GHOSTS) for e in config.ghost_entrants])


@dataclass(frozen=True)
class Setup:
    """What every try shares: the board, the opponents, the limits and how to word things."""

    layout: Layout
    #: The grid's first ghosts, for a Pacman entrant.
    ghost: AgentRef
    #: The built-in Pacman, for a ghost entrant.
    rival: AgentRef
    #: The cell whose depth a Pacman entrant is built with.
    cell: Cell | MatchCell
    #: The config's folder: relative references resolve from it.
    base: Path | None
    limits: Limits
    seed: int
    #: The sandbox layers the run's check found: a sandbox with fewer is refused (as in runs).
    layers: tuple[str, ...]
    #: Rewrites the organizer's folders in every text of a row.
    redact: Callable[[str], str]

    @classmethod
    def of(cls, config: TournamentConfig, layers: Sequence[str],
           redact: Callable[[str], str]) -> Setup:
        fixed = cells(config)
        cell = (fixed or match_cells(config))[0]
        ghost = fixed[0].ghost if fixed else DEFAULT_GHOST
        return cls(load_layout(LAYOUT), resolve(ghost, kind="ghost"),
                   resolve(RIVAL, kind="pacman"), cell,
                   config.source.parent if config.source else None,
                   with_backstop(config.limits), config.seed, tuple(layers), redact)

    def describe(self) -> str:
        """What the short games are, for the command's first line."""
        return (f"one short game per entrant on {self.layout.name}: a Pacman against "
                f"{self.ghost.name}, a ghost team against the built-in {self.rival.name}")


class _Stoppable(NullDisplay):
    """No display, but a hook the referee calls while it waits for an agent: once `stop` is
    set it raises, so a game in progress ends at once (its sandboxes closed) as a stopped
    game (`pacman.game.GameStopped`)."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def while_thinking(self) -> Callable[[], None]:
        return self._check

    def _check(self) -> None:
        if self.stop.is_set():
            raise KeyboardInterrupt("the validation was stopped")


def try_one(trial: Trial, setup: Setup, stop: threading.Event | None = None) -> ValidationRow:
    """Resolve the entrant's side and play its short game; whatever goes wrong is its row.

    A game stopped through `stop` raises `GameStopped` (a KeyboardInterrupt)."""
    entrant, side = trial.entrant, trial.side
    folder = trial.folder.name if trial.folder is not None else ""
    kind = "pacman" if side == PACMAN else "ghost"
    ref_text = str(trial.folder) if trial.folder is not None else entrant.ref
    args = agent_args(entrant, setup.cell) if side == PACMAN else entrant.args
    try:
        ref = resolve(ref_text, args, kind=kind, cwd=setup.base,
                      folder_agent=entrant.folder_agent)
    except SubmissionError as exc:
        return resolution_row(entrant.name, side, trial.folder, exc, setup.redact)
    pacman, ghosts = (ref, setup.ghost) if side == PACMAN else (setup.rival, ref)
    spec = GameSpec(setup.layout, pacman, ghosts, num_ghosts=GHOSTS_PLAYED, seed=setup.seed,
                    max_moves=MOVES, limits=setup.limits, builtin_totals=False)
    display = _Stoppable(stop) if stop is not None else None
    try:
        result = play(spec, display, placement=Placement(expected=setup.layers or None))
    except Exception as exc:  # the platform's own failure, never this team's
        message = one_line(setup.redact(f"the platform failed while trying it: "
                                        f"{type(exc).__name__}: {clean(str(exc))}"), 300)
        return ValidationRow(entrant.name, side, folder, FAILED, INFRA_ERROR, "", message)
    return game_row(entrant.name, side, folder, result, setup.redact)


def try_all(todo: Sequence[Trial], setup: Setup,
            workers: int) -> Generator[ValidationRow, None, None]:
    """Each trial's row, in the order of `todo`, with up to `workers` games at once.

    Closing the iterator early (Ctrl-C in the caller) stops the games in progress, which
    close their sandboxes, drops those not started, and returns once every thread is done.
    Callers close it explicitly (`contextlib.closing`): a generator left to the garbage
    collector may be closed only after the interpreter's exit has begun waiting for the
    pool's threads, which a game that never ends would hold for ever.
    """
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="validate")
    futures: list[Future[ValidationRow]] = []
    try:
        futures = [pool.submit(try_one, trial, setup, stop) for trial in todo]
        for future in futures:
            while not future.done():
                # In slices: a Ctrl-C the kernel hands to a game's thread only sets a flag
                # that the main thread reads when it wakes (Python runs signal handlers
                # there), and a wait without a timeout would never wake.
                wait([future], timeout=WAKE)
            yield future.result()
    finally:
        stop.set()
        for future in futures:
            future.cancel()
        pool.shutdown(wait=True)
