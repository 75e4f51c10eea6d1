"""The viewer's controls as a pure state machine: commands in, a new `ViewerModel` out.

Drawing, timing and pygame events stay outside: the window turns a key into a command name
(`"forward"`, `"pause"`, ...), `ViewerModel.handle` says what the viewer should now show, and
`ViewerModel.tick` advances playback by elapsed time. So every rule of the controls (what
space does at the end, where an arrow stops while playing, that speed has bounds) is a pure
function a test can check without a window, and the window code only reacts to differences
(another list position means: load that game).

No pygame here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

Command = Literal[
    "pause", "forward", "back", "start", "end", "faster", "slower",
    "restart", "next", "previous", "help", "quit",
]
COMMANDS: tuple[Command, ...] = (
    "pause", "forward", "back", "start", "end", "faster", "slower",
    "restart", "next", "previous", "help", "quit",
)

#: Playback speeds, as multiples of the normal rate (one move per frame time).
SPEEDS: tuple[float, ...] = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
NORMAL_SPEED = SPEEDS.index(1.0)

#: Below this a frame time counts as this: "as fast as possible" still has a finite rate.
MIN_FRAME_TIME = 0.001

#: The help box of the replay viewer (one line per control).
REPLAY_HELP: tuple[str, ...] = (
    "space       pause / resume (at the end: play again)",
    "right/left  one move forward / back (pauses)",
    "Home/End    first / last move",
    "+ / -       faster / slower",
    "r           restart",
    "n / p       next / previous game",
    "h           this help",
    "q / Esc     close",
)

#: The help box of a live game: only what makes sense while agents are playing.
LIVE_HELP: tuple[str, ...] = (
    "space       pause / resume",
    "+ / -       faster / slower",
    "h           this help",
    "Esc         close (stops the games)",
    "arrows, WASD  steer KeyboardAgent (q: stop)",
)


def speed_label(level: int) -> str:
    """`1x`, `4x`, `1/8x`: how a status bar shows a speed level."""
    speed = SPEEDS[level]
    return f"{speed:g}x" if speed >= 1 else f"1/{round(1 / speed)}x"


@dataclass(frozen=True)
class ViewerModel:
    """What the replay viewer shows and how it plays, independent of any window.

    The picture is state `index`, or `progress` (0..1) of the way to state `index + 1`
    while playing. Reaching the last state pauses, so the end stays on screen.
    """

    #: Moves in the current game (its states are 0..total); 0 until a game is loaded.
    total: int
    index: int = 0
    progress: float = 0.0
    paused: bool = False
    speed_level: int = NORMAL_SPEED
    help: bool = False
    #: Which game of the list is shown, and how many there are.
    position: int = 0
    count: int = 1
    closed: bool = False

    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_level]

    @property
    def at_end(self) -> bool:
        return self.index >= self.total

    def handle(self, command: str) -> ViewerModel:
        """The model after one command (unknown names are a programming error)."""
        if command == "pause":
            if self.paused and self.at_end:
                return replace(self, index=0, progress=0.0, paused=False)
            if self.paused:
                return replace(self, paused=False)
            # Pausing mid-slide shows the nearer whole state: a paused picture is always exact.
            return self._at(round(self.index + self.progress), paused=True)
        if command == "forward":
            return self._at(math.floor(self.index + self.progress) + 1, paused=True)
        if command == "back":
            return self._at(math.ceil(self.index + self.progress) - 1, paused=True)
        if command == "start":
            return self._at(0, paused=self.paused)
        if command == "end":
            return self._at(self.total, paused=True)
        if command == "faster":
            return replace(self, speed_level=min(self.speed_level + 1, len(SPEEDS) - 1))
        if command == "slower":
            return replace(self, speed_level=max(self.speed_level - 1, 0))
        if command == "restart":
            return self._at(0, paused=False)
        if command in ("next", "previous"):
            position = self.position + (1 if command == "next" else -1)
            if not 0 <= position < self.count:
                return self
            # The new game's length is known only once it is loaded (see `loaded`).
            return replace(self, position=position, total=0, index=0, progress=0.0,
                           paused=False)
        if command == "help":
            return replace(self, help=not self.help)
        if command == "quit":
            return replace(self, closed=True)
        raise ValueError(f"unknown viewer command {command!r}; expected one of {COMMANDS}")

    def loaded(self, total: int) -> ViewerModel:
        """A game of `total` moves is now shown, from its start (playing)."""
        return replace(self, total=total, index=0, progress=0.0, paused=False)

    def tick(self, seconds: float, frame_time: float) -> ViewerModel:
        """Playback after `seconds` more: `speed / frame_time` moves per second.

        Several moves may pass in one tick (high speeds, a slow frame): the index jumps and
        the picture stays in step with the clock rather than falling behind it.
        """
        if self.paused or self.closed or seconds <= 0:
            return self
        if self.at_end:
            return replace(self, index=self.total, progress=0.0, paused=True)
        rate = self.speed / max(frame_time, MIN_FRAME_TIME)
        position = self.index + self.progress + seconds * rate
        if position >= self.total:
            return replace(self, index=self.total, progress=0.0, paused=True)
        index = math.floor(position)
        return replace(self, index=index, progress=position - index)

    def _at(self, index: int, paused: bool) -> ViewerModel:
        return replace(self, index=max(0, min(index, self.total)), progress=0.0, paused=paused)

    def note(self) -> str:
        """The playback state for the status bar: `paused 1x`, `playing 4x`."""
        if self.paused and self.at_end and self.total > 0:
            return playback_note("end", self.speed_level)
        return playback_note("paused" if self.paused else "playing", self.speed_level)


def playback_note(word: str, level: int) -> str:
    """`playing 4x  h: help`: the viewer's playback state as its status bar shows it."""
    return f"{word} {speed_label(level)}  h: help"


#: Every playback note the viewer may show (its picture is made wide enough for each).
NOTES: tuple[str, ...] = tuple(
    playback_note(word, level) for word in ("playing", "paused", "end")
    for level in range(len(SPEEDS))
)
