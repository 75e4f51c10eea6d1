"""The replay viewer: watch recorded games, pause, step back and forth, go through a list.

`watch(paths, index)` is the one entry point (`pacman --replay FILE`, `tournament replay`).

Design notes:

* Three parts, each testable alone: a `Timeline` (every state of the game, re-simulated
  once, so the picture at move k is `states[k]` and stepping back is exact), a pure
  `ViewerModel` (which move, paused, speed, which game of the list: commands in, new model
  out) and this module, which only turns pygame events into commands, advances the model by
  the clock and draws what the model says.
* The loop draws at most `FPS` times a second and sleeps in between, whether playing or
  paused: the window answers at once and an idle viewer costs almost no CPU.
* A game of the list that cannot be read is shown as a message, not an exception: one bad
  file must not close the window on the others. Only the first game must load (a caller
  asking to watch a missing file gets `ReplayError` before any window opens).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from pacman.display.controls import NOTES, REPLAY_HELP, ViewerModel
from pacman.display.render import Renderer, fit_cell, picture_width
from pacman.display.scene import Scene, StatusRoom
from pacman.display.timeline import Timeline, load_timeline
from pacman.display.window import Window, first_cell, init_video
from pacman.layout import Layout, parse_layout
from pacman.replay import ReplayError
from pacman.state import GameState

#: Highest redraw rate; also how often events are read.
FPS = 60
#: Status lines under the board: score, move, playback; agents, outcome, layout.
STATUS_ROWS = 2
#: Key repeat while an arrow is held (ms before repeating, ms between repeats): scrubbing.
KEY_REPEAT = (300, 40)

KEY_COMMANDS: dict[int, str] = {
    pygame.K_SPACE: "pause",
    pygame.K_RIGHT: "forward",
    pygame.K_LEFT: "back",
    pygame.K_HOME: "start",
    pygame.K_END: "end",
    pygame.K_PLUS: "faster",
    pygame.K_EQUALS: "faster",
    pygame.K_KP_PLUS: "faster",
    pygame.K_MINUS: "slower",
    pygame.K_KP_MINUS: "slower",
    pygame.K_r: "restart",
    pygame.K_n: "next",
    pygame.K_p: "previous",
    pygame.K_h: "help",
    pygame.K_q: "quit",
    pygame.K_ESCAPE: "quit",
}

#: What a game that cannot be read is drawn on (its layout is unknown).
_BLANK_LAYOUT = "%%%%%%%%%%%%%%%%%%%%\n%P                 %\n%%%%%%%%%%%%%%%%%%%%"


def command_for(event: pygame.event.Event) -> str | None:
    """The viewer command a pygame event means, if any (window close is `quit`)."""
    if event.type == pygame.QUIT:
        return "quit"
    if event.type == pygame.KEYDOWN:
        return KEY_COMMANDS.get(event.key)
    return None


class ReplayViewer:
    """A window on a list of replay files; `run()` until closed, or drive it with `frame()`."""

    def __init__(
        self,
        paths: Sequence[Path],
        index: int = 0,
        zoom: float = 1.0,
        frame_time: float = 0.1,
    ) -> None:
        if not paths:
            raise ValueError("no replay to watch")
        if not 0 <= index < len(paths):
            raise ValueError(f"index {index} is outside the list of {len(paths)} replays")
        if zoom <= 0:
            raise ValueError(f"zoom must be positive, got {zoom}")
        if frame_time < 0:
            raise ValueError(f"frame_time must be >= 0, got {frame_time}")
        self.paths = list(paths)
        self.zoom = zoom
        self.frame_time = frame_time
        # The first game must load: an error here is the caller's to report.
        first = load_timeline(self.paths[index])
        self.timeline: Timeline | None = first
        self.error: str | None = None
        self.model = ViewerModel(total=first.total, position=index, count=len(self.paths))
        self._loaded = index
        self._window = Window()
        self._renderer: Renderer | None = None
        self._canvas: pygame.Surface | None = None
        self._clock: pygame.time.Clock | None = None
        self._dirty = True

    # --- lifecycle ----------------------------------------------------------------------------

    def open(self) -> None:
        """Open the window on the current game."""
        init_video(visible=True)
        pygame.key.set_repeat(*KEY_REPEAT)
        self._clock = pygame.time.Clock()
        self._fit_new_game(first=True)
        self.render()

    def run(self) -> None:
        """Show, play and react until the window is closed."""
        self.open()
        assert self._clock is not None
        try:
            self._clock.tick()
            while not self.model.closed:
                self.frame(self._clock.tick(FPS) / 1000.0)
        finally:
            self.close()

    def close(self) -> None:
        if pygame.display.get_init():
            pygame.key.set_repeat()
        self._window.close()
        # Fonts belong to the renderer; a reopened viewer makes new ones.
        self._renderer = None

    def frame(self, seconds: float) -> bool:
        """One turn of the loop: events, `seconds` of playback, a picture. False once closed."""
        before = self.model
        self.handle_events()
        if self.model.closed:
            return False
        self.model = self.model.tick(seconds, self.frame_time)
        # A paused, untouched viewer draws nothing: idle costs no CPU beyond reading events.
        if self._dirty or self.model != before or not self.model.paused:
            self.render()
        return True

    # --- events and commands -------------------------------------------------------------------

    def handle_events(self) -> None:
        for event in pygame.event.get():
            if event.type == pygame.VIDEORESIZE:
                self._resize((event.w, event.h))
                continue
            command = command_for(event)
            if command is not None:
                self.command(command)
            if self.model.closed:
                return

    def command(self, command: str) -> None:
        """Apply one command (as a key would), loading another game if the model moved."""
        self.model = self.model.handle(command)
        if self.model.position != self._loaded:
            self._load(self.model.position)

    def _load(self, position: int) -> None:
        path = self.paths[position]
        self._loaded = position
        try:
            self.timeline = load_timeline(path)
            self.error = None
            total = self.timeline.total
        except ReplayError as exc:
            self.timeline = None
            self.error = str(exc)
            total = 0
        self.model = self.model.loaded(total)
        if self._window.is_open:
            self._fit_new_game(first=False)

    # --- drawing ------------------------------------------------------------------------------

    def _layout(self) -> Layout:
        if self.timeline is not None:
            return self.timeline.replay.layout
        return parse_layout(_BLANK_LAYOUT, name="unreadable replay")

    def _room(self) -> StatusRoom:
        """Every status text the current game may show (a picture wide enough for them)."""
        if self.timeline is None:
            return StatusRoom()
        return self.timeline.status_room(NOTES, self._where())

    def _fit_new_game(self, first: bool) -> None:
        """A renderer for the current game: `-z`'s size first, then the window's size."""
        layout = self._layout()
        room = self._room()
        if first or not self._window.is_open:
            cell = first_cell(layout, STATUS_ROWS, self.zoom, room)
            width = picture_width(layout, cell, room)
            self._renderer = Renderer(layout, cell, STATUS_ROWS, width)
            self._window.open(self._renderer.size, self._caption())
        else:
            # Another game of the list: keep the window the person arranged, fit the board.
            self._renderer = self._fitting(self._window.size())
            pygame.display.set_caption(self._caption())
        self._canvas = self._renderer.new_canvas()
        self._dirty = True

    def _fitting(self, size: tuple[int, int]) -> Renderer:
        """A renderer whose picture fills a window of `size` across (the status lines take
        its whole width) with the largest board that leaves every status text whole."""
        layout = self._layout()
        cell = fit_cell(layout, STATUS_ROWS, size, self._room())
        return Renderer(layout, cell, STATUS_ROWS, width=size[0])

    def _resize(self, size: tuple[int, int]) -> None:
        self._renderer = self._fitting(self._window.resized(size))
        self._canvas = self._renderer.new_canvas()
        self._dirty = True

    def _where(self) -> str:
        """The game's place in the list, for the status bar (nothing for a single game)."""
        model = self.model
        return f"{model.position + 1}/{model.count}" if model.count > 1 else ""

    def _caption(self) -> str:
        path = self.paths[self.model.position]
        where = f" ({self.model.position + 1}/{self.model.count})" if self.model.count > 1 else ""
        return f"Pacman replay - {path.name}{where}"

    def scene(self) -> Scene | None:
        """What the model says to show now (None for a game that cannot be read)."""
        if self.timeline is None:
            return None
        model = self.model
        return self.timeline.scene(
            model.index,
            0.0 if model.paused else model.progress,
            note=model.note(),
            where=self._where(),
            overlay=REPLAY_HELP if model.help else (),
        )

    def render(self) -> None:
        if self._renderer is None or self._canvas is None:
            return
        scene = self.scene()
        if scene is None:
            lines = [f"Cannot show game {self.model.position + 1}/{self.model.count}:",
                     self.error or "", "n / p: next / previous game   q: close"]
            self._renderer.draw_message(self._canvas, lines)
        else:
            self._renderer.draw(self._canvas, scene)
        self._window.show(self._canvas)
        self._dirty = False

    # --- for tests and tools ------------------------------------------------------------------

    def state(self) -> GameState | None:
        """The state shown (exactly, when paused): `timeline.states[model.index]`."""
        if self.timeline is None:
            return None
        return self.timeline.states[self.model.index]

    def surface(self) -> pygame.Surface:
        if self._canvas is None:
            raise RuntimeError("the viewer is not open")
        return self._canvas

    def cell_center(self, pos: Sequence[float]) -> tuple[int, int]:
        if self._renderer is None:
            raise RuntimeError("the viewer is not open")
        return self._renderer.cell_center(pos)

    @property
    def cell(self) -> int:
        """Pixels per board cell now (changes when the window is resized)."""
        if self._renderer is None:
            raise RuntimeError("the viewer is not open")
        return self._renderer.cell

    def status_placed(self) -> list[tuple[str, pygame.Rect]]:
        """The status texts last drawn, each with its place on the picture."""
        if self._renderer is None:
            raise RuntimeError("the viewer is not open")
        return self._renderer.status_placed


def watch(
    paths: Sequence[Path], index: int = 0, zoom: float = 1.0, frame_time: float = 0.1
) -> None:
    """Open the viewer on `paths[index]`; n/p go along the list. Returns when it is closed.

    `frame_time` is seconds per move (one agent's action) at normal speed. Raises
    `ReplayError` if `paths[index]` is not a readable replay (before opening any window).
    """
    ReplayViewer(paths, index, zoom, frame_time).run()
