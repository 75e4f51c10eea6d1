"""Displays are plug-ins: the engine calls them through `Display` and never imports pygame.

`make_display` imports a pygame module only when a window is asked for (a test pins that
`import pacman.game` and friends leave pygame unloaded).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TextIO

from pacman.state import GameState


class WindowClosed(Exception):
    """The person closed the window (or pressed Escape): the batch stops cleanly."""


class WindowUnavailable(RuntimeError):
    """No window can be opened here (no display, SDL cannot start its video driver).

    Defined here, not beside pygame, so callers can catch it without importing pygame.
    """


class Display(Protocol):
    """What a game loop tells a display: the agents' names, the start, every applied move,
    the end; and what it asks: whether something must be kept alive while an agent thinks."""

    def name_agents(self, names: Sequence[str]) -> None:
        """The agents' names for people (Pacman first), before `initialize`."""

    def initialize(self, state: GameState) -> None: ...

    def update(self, state: GameState, moved: int, action: str) -> None: ...

    def finish(self, state: GameState, outcome: str) -> None: ...

    def while_thinking(self) -> Callable[[], None] | None:
        """What the game runner calls about every 30 ms while an agent thinks (a window's
        event pump), or None when nothing needs it (trusted agents then think on the
        runner's own thread)."""


class NullDisplay:
    """Headless play (`-q`): nothing is drawn."""

    def name_agents(self, names: Sequence[str]) -> None:
        pass

    def while_thinking(self) -> Callable[[], None] | None:
        return None

    def initialize(self, state: GameState) -> None:
        pass

    def update(self, state: GameState, moved: int, action: str) -> None:
        pass

    def finish(self, state: GameState, outcome: str) -> None:
        pass


def make_display(
    kind: str, zoom: float = 1.0, frame_time: float = 0.1, out: TextIO | None = None
) -> Display:
    """`quiet`, `text` (the board printed on `out`, stdout by default) or `window` (pygame).

    A window raises WindowUnavailable at once where none can be shown (no display: SDL fell
    back on its own to a driver that draws nowhere), rather than playing an invisible game.
    Choosing such a driver on purpose (`SDL_VIDEODRIVER=dummy`, as the tests do) is respected.
    """
    if kind == "quiet":
        return NullDisplay()
    if kind == "text":
        from pacman.display.text import TextDisplay

        return TextDisplay(frame_time=frame_time, out=out)
    if kind == "window":
        from pacman.display.pygame_display import PygameDisplay
        from pacman.display.window import init_video

        init_video(visible=True)
        return PygameDisplay(zoom=zoom, frame_time=frame_time)
    raise ValueError(f"unknown display {kind!r}; expected quiet, text or window")
