"""A replay as the list of its states, so any move can be shown exactly, forwards or back.

Re-simulating from the start to step back one move would make stepping backwards cost the
whole game; keeping every state (a few small tuples each, shared layout) costs little and
makes "the state at move k" a list look-up: `timeline.states[k]`. The states come from
`pacman.replay.simulate`, the same re-simulation `--check` trusts, so what the viewer and the
exported pictures show is what the engine computes, never a drawing-side approximation.

No pygame here: the viewer, the export and their tests share this.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pacman import replay as replays
from pacman.actions import Directions
from pacman.display.scene import (
    Scene,
    StatusRoom,
    StatusRow,
    describe_agents,
    facing,
    nearer,
    outcome_label,
    poses,
    shown_agent,
    tween,
)
from pacman.files import read_text_bounded
from pacman.outcomes import ENDINGS
from pacman.replay import Mismatch, Replay, ReplayError
from pacman.state import GameState


class ReplayMismatch(ReplayError):
    """The replay stops reproducing (a tampered or foreign file): its pictures would lie."""


@dataclass(frozen=True)
class Timeline:
    """Every state of one replayed game, with what a status bar and banner say about it."""

    replay: Replay
    #: `states[k]` is the state after k moves; `states[0]` the start.
    states: tuple[GameState, ...]
    #: Pacman's mouth direction at each state (his last real direction; West at the start).
    facings: tuple[str, ...]
    #: Pacman's moves that changed his cell up to each state: the chewing phase of still frames.
    chews: tuple[int, ...]
    #: The first move that does not reproduce, if any; the states stop before it.
    mismatch: Mismatch | None = None
    #: Agent references from the file (provenance; absent in a minimal replay).
    agents: tuple[str, ...] = ()
    culprit: int | None = None
    name: str = ""

    @property
    def total(self) -> int:
        """Moves that can be shown (all of the replay's, unless it stops matching)."""
        return len(self.states) - 1

    @property
    def outcome(self) -> str:
        """The recorded outcome, else what the final state says; `mismatch` if it diverged."""
        if self.mismatch is not None:
            return "mismatch"
        final = self.states[-1]
        if self.replay.outcome is not None:
            return self.replay.outcome
        if final.isWin():
            return "win"
        if final.isLose():
            return "loss"
        return "stopped"

    def banner(self) -> str:
        if self.mismatch is not None:
            return f"REPLAY DIVERGES AT MOVE {self.mismatch.move}"
        culprit = self.culprit if self.outcome not in ENDINGS else None
        return outcome_label(self.outcome, culprit)

    def last_move(self, index: int) -> str:
        """Who made the move that led to state `index`, e.g. `ghost 2 West`."""
        if index <= 0:
            return ""
        agent, action = self.replay.actions[index - 1]
        return f"{'Pacman' if agent == 0 else f'ghost {agent}'} {action}"

    def status(self, index: int, note: str = "", where: str = "") -> tuple[StatusRow, ...]:
        """Two status lines for state `index`: score, move and playback `note`; agents, outcome
        (at the end) and layout with `where` (the game's place in a list)."""
        state = self.states[index]
        score = int(state.getScore())
        move = f"move {index}/{self.total}"
        last = self.last_move(index)
        if last:
            move += f" ({last})"
        layout = self.replay.layout.name + (f"  {where}" if where else "")
        at_end = index == self.total
        return (
            StatusRow(f"Score: {score}", move, note),
            StatusRow(
                describe_agents(self.agents),
                self.banner() if at_end else "",
                layout,
                centre_tone=self.outcome if at_end else "",
            ),
        )

    def status_room(self, notes: Sequence[str] = ("",), where: str = "") -> StatusRoom:
        """Every status text this game shows (at any move, with any of the playback `notes`),
        for a picture made wide enough for all of them."""
        frames = [self.status(index, where=where) for index in range(self.total + 1)]
        frames += [(StatusRow(right=note),) for note in notes]
        return StatusRoom.of(frames)

    def scene(
        self,
        index: int,
        progress: float = 0.0,
        note: str = "",
        where: str = "",
        overlay: tuple[str, ...] = (),
    ) -> Scene:
        """The picture at state `index`, or `progress` (0..1) of the way to the next state."""
        index = max(0, min(index, self.total))
        if progress > 0 and index < self.total:
            before, after = self.states[index], self.states[index + 1]
            moved = self.chews[index + 1] != self.chews[index]
            return Scene(
                state=nearer(before, after, progress),
                poses=tween(before, after, progress),
                facing=self.facings[index + 1],
                chew=self.chews[index] + (progress if moved else 0.0),
                status=self.status(index + (progress >= 0.5), note, where),
                overlay=overlay,
            )
        at_end = index == self.total
        return Scene(
            state=self.states[index],
            poses=poses(self.states[index]),
            facing=self.facings[index],
            chew=float(self.chews[index]),
            status=self.status(index, note, where),
            banner=self.banner() if at_end else "",
            banner_tone=self.outcome if at_end else "",
            overlay=overlay,
        )

    def require_exact(self) -> Timeline:
        """Itself, or ReplayMismatch when the replay stops reproducing (for exported pictures)."""
        if self.mismatch is not None:
            raise ReplayMismatch(f"{self.name}: the replay stops matching at {self.mismatch}")
        return self


def from_replay(
    replay: Replay, agents: Sequence[str] = (), culprit: int | None = None, name: str = ""
) -> Timeline:
    """Re-simulate once and keep every state (stopping at the first move that does not match)."""
    start = replay.initial_state()
    states = [start]
    facings = [Directions.WEST]
    chews = [0]
    mismatch: Mismatch | None = None
    for _, agent, _, after in replays.simulate(replay):
        if isinstance(after, Mismatch):
            mismatch = after
            break
        before = states[-1]
        states.append(after)
        if agent == 0:
            direction = after.agents[0][1]
            facings.append(facing(facings[-1], direction))
            chews.append(chews[-1] + (after.agents[0][0] != before.agents[0][0]))
        else:
            facings.append(facings[-1])
            chews.append(chews[-1])
    return Timeline(
        replay=replay,
        states=tuple(states),
        facings=tuple(facings),
        chews=tuple(chews),
        mismatch=mismatch,
        agents=tuple(agents),
        culprit=culprit,
        name=name,
    )


def load_timeline(path: Path) -> Timeline:
    """Read and re-simulate a replay file; ReplayError (naming the file) if it is not one."""
    replay = replays.load(path)
    agents, culprit = _provenance(path)
    return from_replay(replay, agents, culprit, name=str(path))


def _provenance(path: Path) -> tuple[tuple[str, ...], int | None]:
    """The optional `agents` and `culprit` keys, which `Replay` does not keep.

    The file has just been read and validated by `replay.load`; anything odd in these
    optional keys is ignored rather than refused, as the format says of keys it does not need.
    """
    try:
        # Read the way `replay.load` reads it: a regular file, size-capped (FileProblem is a
        # ValueError).
        raw: Any = json.loads(read_text_bounded(path, replays.MAX_BYTES))
    except (OSError, ValueError, RecursionError):
        return (), None
    if not isinstance(raw, dict):
        return (), None
    agents = raw.get("agents")
    names = (
        tuple(shown_agent(a) for a in agents)
        if isinstance(agents, list) and all(isinstance(a, str) for a in agents)
        else ()
    )
    culprit = raw.get("culprit")
    return names, culprit if type(culprit) is int else None
