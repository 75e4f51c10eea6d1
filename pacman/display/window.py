"""The OS window shared by the live display and the replay viewer: open, resize, show, close.

It knows nothing of games: it shows a finished canvas centred on a black window (so a window
resized to another shape letterboxes instead of stretching), and tells its owner the size to
fit when the person resizes it. The owner then makes a renderer for that size.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from pacman.display import WindowUnavailable
from pacman.display.palette import BACKGROUND
from pacman.display.render import canvas_size, fit_cell, status_need, zoom_cell
from pacman.display.scene import StatusRoom
from pacman.layout import Layout

#: The share of the desktop a new window may take (room for panels and title bars).
DESKTOP_SHARE = (0.95, 0.9)


#: SDL drivers that draw nowhere: fine when asked for (tests), a trap when SDL falls back to them.
INVISIBLE_DRIVERS = frozenset({"offscreen", "dummy"})


def init_video(visible: bool = False) -> None:
    """Initialise only what a window needs (not audio: it can fail or stall on servers).

    WindowUnavailable when SDL has no video device (a server, an SSH session without X). With
    `visible`, also when SDL fell back on its own to a driver that shows nothing: a viewer
    nobody can see would wait forever for a key. Choosing such a driver on purpose
    (`SDL_VIDEODRIVER=dummy`, as the tests do) is respected.
    """
    if not pygame.display.get_init():
        try:
            pygame.display.init()
        except pygame.error as exc:
            raise WindowUnavailable(
                f"cannot open a window: no display here (SDL: {exc})"
            ) from exc
    if visible and not os.environ.get("SDL_VIDEODRIVER"):
        driver = pygame.display.get_driver()
        if driver in INVISIBLE_DRIVERS:
            pygame.display.quit()
            raise WindowUnavailable(
                f"cannot open a window: no display here (SDL fell back to its {driver!r} "
                "driver, which shows nothing)"
            )
    if not pygame.font.get_init():
        pygame.font.init()


def first_cell(layout: Layout, status_rows: int, zoom: float, room: StatusRoom) -> int:
    """The cell size `-z` asks for, shrunk if the picture (board and every status text of
    `room`) would not fit on the desktop.

    Call after `init_video` (the desktop size is known only then).
    """
    cell = zoom_cell(zoom)
    desktops = pygame.display.get_desktop_sizes() if pygame.display.get_init() else []
    if desktops:
        dw, dh = desktops[0]
        space = (int(dw * DESKTOP_SHARE[0]), int(dh * DESKTOP_SHARE[1]))
        w, h = canvas_size(layout, cell, status_rows, status_need(cell, room))
        if w > space[0] or h > space[1]:
            cell = fit_cell(layout, status_rows, space, room)
    return cell


class Window:
    """A resizable pygame window that shows canvases (drawing happens elsewhere)."""

    def __init__(self) -> None:
        self._surface: pygame.Surface | None = None

    @property
    def is_open(self) -> bool:
        return self._surface is not None and pygame.display.get_init()

    def open(self, size: tuple[int, int], caption: str) -> None:
        """Open the window at `size`, or resize the open one (no flicker if the size is kept)."""
        init_video()
        current = pygame.display.get_surface()
        if self._surface is None or current is None or current.get_size() != size:
            try:
                self._surface = pygame.display.set_mode(size, pygame.RESIZABLE)
            except pygame.error as exc:
                raise WindowUnavailable(f"cannot open a window: {exc}") from exc
        else:
            self._surface = current
        pygame.display.set_caption(caption)

    def resized(self, size: tuple[int, int]) -> tuple[int, int]:
        """Follow a VIDEORESIZE: the window's new size (at least a few pixels each way)."""
        size = (max(32, size[0]), max(32, size[1]))
        if self.is_open:
            current = pygame.display.get_surface()
            if current is None or current.get_size() != size:
                self._surface = pygame.display.set_mode(size, pygame.RESIZABLE)
            else:
                self._surface = current
        return size

    def size(self) -> tuple[int, int]:
        return self._surface.get_size() if self._surface is not None else (0, 0)

    def show(self, canvas: pygame.Surface) -> None:
        """Put a finished canvas on screen, centred (black bars where the shapes differ)."""
        if not self.is_open:
            return
        surface = pygame.display.get_surface()
        if surface is None:
            return
        self._surface = surface
        if surface.get_size() != canvas.get_size():
            surface.fill(BACKGROUND)
        surface.blit(canvas, canvas.get_rect(center=surface.get_rect().center))
        pygame.display.flip()

    def close(self) -> None:
        """Close the window but keep pygame usable: the next game re-opens it."""
        self._surface = None
        if pygame.display.get_init():
            pygame.display.quit()
