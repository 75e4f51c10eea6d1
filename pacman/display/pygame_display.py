"""`-w`-style window display drawn with pygame.

This is the only module of the engine that imports pygame: `pacman.display.make_display`
imports it lazily, so headless play (tournaments, autograders) never loads SDL.

Design notes (the *why* behind the code):

* Everything is drawn into an off-screen canvas which is then copied to the window. The
  canvas outlives the window, so tests (and a caller that wants a screenshot) can still read
  the final picture after `finish` has closed the window, and drawing never depends on the
  video driver.
* The maze never changes during a game, so the walls are rendered once per `initialize` into
  a background surface; each frame is that background plus food, capsules, agents and the
  status bar. `update` runs after every single agent move, so a frame must be cheap.
* The window must never freeze: events are pumped on every call and also *during* the
  per-round pause, otherwise the OS marks the window as not responding and key taps made
  during the pause would be lost by the keyboard agent.
* Held keys are tracked from KEYDOWN/KEYUP events rather than `pygame.key.get_pressed()`,
  because the latter misses a key that went down and up between two pumps (a quick tap) and
  is unreliable with posted events; the keyboard agent reads them from `pacman.display.keys`.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence

# Keep pygame's import banner out of game output (it would pollute piped/recorded logs).
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from pacman.actions import VECTORS, Directions
from pacman.display import WindowClosed, keys
from pacman.state import GameState

Color = tuple[int, int, int]
Point = tuple[float, float]

#: Pixels per board cell at zoom 1.
CELL_SIZE = 30

BACKGROUND: Color = (0, 0, 0)
#: The body of a wall tube (what a wall cell's centre shows).
WALL_COLOR: Color = (20, 30, 125)
#: The bright outline around wall tubes.
WALL_EDGE: Color = (70, 110, 255)
FOOD_COLOR: Color = (255, 255, 255)
CAPSULE_COLOR: Color = (255, 255, 255)
PACMAN_COLOR: Color = (255, 230, 40)
#: One colour per ghost (agent 1 takes the first, ...); cycled if a layout has more ghosts.
GHOST_COLORS: tuple[Color, ...] = (
    (230, 30, 30),  # red
    (255, 150, 210),  # pink
    (255, 160, 20),  # orange
    (60, 210, 90),  # green
    (170, 80, 230),  # purple
    (150, 90, 40),  # brown
)
SCARED_COLOR: Color = (35, 45, 230)
#: The colour a scared ghost flashes when its fright is about to end.
SCARED_BLINK_COLOR: Color = (240, 240, 255)
SCARED_FACE: Color = (255, 200, 160)
SCARED_BLINK_FACE: Color = (230, 20, 20)
EYE_WHITE: Color = (255, 255, 255)
PUPIL_COLOR: Color = (20, 20, 90)
STATUS_BACKGROUND: Color = (15, 15, 15)
STATUS_TEXT: Color = (255, 255, 255)
OUTCOME_COLORS: dict[str, Color] = {"win": (90, 230, 90), "loss": (240, 70, 70)}

#: A scared ghost starts blinking when its timer falls below this (its last few moves).
BLINK_THRESHOLD = 8
#: Longest time `finish` leaves the final board on screen.
FINISH_LINGER = 1.0
#: How long one wait step of the event-pumping pause sleeps (seconds): small enough that the
#: window reacts at once, large enough not to spin a CPU core.
PUMP_INTERVAL = 0.01

_ARROWS: dict[int, str] = {
    pygame.K_LEFT: "Left",
    pygame.K_RIGHT: "Right",
    pygame.K_UP: "Up",
    pygame.K_DOWN: "Down",
}

#: Pacman's mouth half-openings (degrees): it alternates each Pacman move, a chewing animation.
_MOUTH_ANGLES = (35.0, 12.0)


def key_name(key: int) -> str:
    """The name the keyboard agent understands for a pygame key code.

    Arrows get the capitalised names the course's keyboard agent uses; letters are lowercase
    whatever the shift state (the key code of a letter is its lowercase ASCII); anything else
    falls back to pygame's own name ('space', 'return', '1', ...).
    """
    if key in _ARROWS:
        return _ARROWS[key]
    if pygame.K_a <= key <= pygame.K_z:
        return chr(key)
    if key == pygame.K_SPACE:
        return "space"
    return pygame.key.name(key) or f"key{key}"


def ghost_body_color(index: int, scared_timer: int) -> Color:
    """The body colour of ghost `index` (1-based agent index) with that scared timer.

    The scared timer drops by one each time that ghost moves, so its parity alternates on
    every move: that gives the end-of-fright blinking without any clock of our own, and a
    replay looks the same at any speed.
    """
    if scared_timer <= 0:
        return GHOST_COLORS[(index - 1) % len(GHOST_COLORS)]
    if scared_timer < BLINK_THRESHOLD and scared_timer % 2 == 0:
        return SCARED_BLINK_COLOR
    return SCARED_COLOR


class PygameDisplay:
    """A pygame window showing the game; implements `pacman.display.Display`."""

    def __init__(self, zoom: float = 1.0, frame_time: float = 0.1) -> None:
        if zoom <= 0:
            raise ValueError(f"zoom must be positive, got {zoom}")
        if frame_time < 0:
            raise ValueError(f"frame_time must be >= 0, got {frame_time}")
        self.zoom = zoom
        self.frame_time = frame_time
        # Cells are at least a few pixels wide so that a tiny zoom still shows something.
        self.cell = max(4, round(CELL_SIZE * zoom))
        self.status_height = max(16, round(self.cell * 1.1))
        self._window: pygame.Surface | None = None
        self._canvas: pygame.Surface | None = None
        self._background: pygame.Surface | None = None
        self._font: pygame.font.Font | None = None
        self._big_font: pygame.font.Font | None = None
        self._board_height = 0
        self._layout_name = ""
        self._held: set[str] = set()
        self._pacman_facing = Directions.WEST
        self._chew = 0

    # --- the Display protocol -----------------------------------------------------------------

    def initialize(self, state: GameState) -> None:
        """Open (or re-open / resize) the window for a new game and draw its first position."""
        layout = state.layout
        self._board_height = layout.height
        self._layout_name = layout.name
        self._pacman_facing = Directions.WEST
        self._chew = 0
        # A key held while the previous window closed never sends its KEYUP to us.
        self._held.clear()
        size = (layout.width * self.cell, layout.height * self.cell + self.status_height)
        self._open_window(size)
        pygame.display.set_caption(f"Pacman - {layout.name}")
        self._canvas = pygame.Surface(size)
        self._background = self._render_walls(state, size)
        self._pump()
        self._draw(state, outcome=None)

    def update(self, state: GameState, moved: int, action: str) -> None:
        """Redraw after one agent's move; pause `frame_time` after each Pacman move."""
        if self._window is None or self._canvas is None:
            # Called without a window (e.g. after `finish`): start one rather than crash.
            self.initialize(state)
        self._pump()
        if moved == 0:
            self._chew += 1
        self._draw(state, outcome=None)
        if moved == 0 and self.frame_time > 0:
            self._wait(self.frame_time)

    def finish(self, state: GameState, outcome: str) -> None:
        """Show the final position and the outcome for a moment, then close the window."""
        if self._window is None or self._canvas is None:
            self.initialize(state)
        self._pump()
        self._draw(state, outcome=outcome)
        linger = min(FINISH_LINGER, self.frame_time * 10)
        if linger > 0:
            self._wait(linger)
        self._close_window()

    # --- for tests and tools ----------------------------------------------------------------------

    def surface(self) -> pygame.Surface:
        """The picture last drawn (still readable after the window has closed)."""
        if self._canvas is None:
            raise RuntimeError("nothing drawn yet: call initialize(state) first")
        return self._canvas

    def cell_center(self, pos: Sequence[float]) -> tuple[int, int]:
        """Pixel coordinates of board position `pos` (x from the left, y from the bottom).

        Fractional positions (half-speed scared ghosts) map to points between cell centres.
        """
        px, py = self._center(pos)
        return (int(px), int(py))

    # --- window and events --------------------------------------------------------------------

    def _open_window(self, size: tuple[int, int]) -> None:
        """Initialise only the modules we need (not audio: it can fail or stall on servers)."""
        if not pygame.display.get_init():
            pygame.display.init()
            self._window = None
        if not pygame.font.get_init():
            pygame.font.init()
            self._font = None
        if self._window is None or self._window.get_size() != size:
            self._window = pygame.display.set_mode(size)
        if self._font is None:
            self._font = pygame.font.Font(None, max(12, round(self.status_height * 0.75)))
            self._big_font = pygame.font.Font(None, max(16, round(self.cell * 1.6)))

    def _close_window(self) -> None:
        """Close the window but keep pygame usable: the next game's `initialize` re-opens it."""
        self._window = None
        self._held.clear()
        keys.publish(frozenset(), set())
        if pygame.display.get_init():
            pygame.display.quit()

    def _quit(self) -> None:
        """Shut pygame down completely before reporting that the person closed the window."""
        self._close_window()
        self._font = None
        self._big_font = None
        pygame.quit()

    def _pump(self) -> None:
        """Handle pending events: close requests, and held/pressed keys for the keyboard agent."""
        if not pygame.display.get_init():
            return
        pressed: set[str] = set()
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self._quit()
                raise WindowClosed("the window was closed")
            if event.type == pygame.KEYDOWN:
                if event.key == pygame.K_ESCAPE:
                    self._quit()
                    raise WindowClosed("Escape was pressed")
                name = key_name(event.key)
                self._held.add(name)
                pressed.add(name)
            elif event.type == pygame.KEYUP:
                self._held.discard(key_name(event.key))
            elif event.type == pygame.WINDOWFOCUSLOST:
                # Keys released while another window has the focus never send KEYUP here.
                self._held.clear()
        keys.publish(frozenset(self._held), pressed)

    def _wait(self, seconds: float) -> None:
        """Pause while keeping the window responsive (and catching key taps)."""
        deadline = time.monotonic() + seconds
        while True:
            self._pump()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            time.sleep(min(PUMP_INTERVAL, remaining))

    # --- drawing ------------------------------------------------------------------------------

    def _center(self, pos: Sequence[float]) -> Point:
        """Float pixel centre of a board position; y is flipped (the board counts from below)."""
        x, y = pos[0], pos[1]
        return ((x + 0.5) * self.cell, (self._board_height - 1 - y + 0.5) * self.cell)

    def _render_walls(self, state: GameState, size: tuple[int, int]) -> pygame.Surface:
        """The maze as tubes with a bright outline, drawn once per game.

        Each wall cell is a disc joined by bars to its wall neighbours, so corners come out
        rounded and thin walls look like the arcade's. Drawing the shapes twice - first wide in
        the edge colour, then narrower in the body colour - leaves exactly the outline of their
        union. Where four wall cells form a square the gap between the bars is filled, so thick
        walls look solid instead of like rings.
        """
        surface = pygame.Surface(size)
        surface.fill(BACKGROUND)
        walls = state.layout.wall_cells
        outer = self.cell * 0.6
        edge = max(1.0, self.cell * 0.08)
        for color, width, fill_squares in (
            (WALL_EDGE, outer, False),
            (WALL_COLOR, outer - 2 * edge, True),
        ):
            radius = max(1, round(width / 2))
            for x, y in walls:
                cx, cy = self._center((x, y))
                pygame.draw.circle(surface, color, (round(cx), round(cy)), radius)
                if (x + 1, y) in walls:
                    nx, _ = self._center((x + 1, y))
                    rect = pygame.Rect(round(cx), round(cy - width / 2), 0, 0)
                    rect.width = round(nx) - round(cx) + 1
                    rect.height = round(width)
                    pygame.draw.rect(surface, color, rect)
                if (x, y + 1) in walls:
                    _, ny = self._center((x, y + 1))
                    rect = pygame.Rect(round(cx - width / 2), round(ny), 0, 0)
                    rect.width = round(width)
                    rect.height = round(cy) - round(ny) + 1
                    pygame.draw.rect(surface, color, rect)
                if fill_squares and {(x + 1, y), (x, y + 1), (x + 1, y + 1)} <= walls:
                    nx, ny = self._center((x + 1, y + 1))
                    rect = pygame.Rect(round(cx), round(ny), 0, 0)
                    rect.width = round(nx) - round(cx) + 1
                    rect.height = round(cy) - round(ny) + 1
                    pygame.draw.rect(surface, color, rect)
        return surface

    def _draw(self, state: GameState, outcome: str | None) -> None:
        """Compose one frame on the canvas and show it."""
        canvas, background = self._canvas, self._background
        assert canvas is not None and background is not None
        canvas.blit(background, (0, 0))
        food_radius = max(2, round(self.cell * 0.1))
        for pos in state.getFood().asList():
            cx, cy = self._center(pos)
            pygame.draw.circle(canvas, FOOD_COLOR, (round(cx), round(cy)), food_radius)
        capsule_radius = max(3, round(self.cell * 0.25))
        for pos in state.getCapsules():
            cx, cy = self._center(pos)
            pygame.draw.circle(canvas, CAPSULE_COLOR, (round(cx), round(cy)), capsule_radius)
        pacman = state.getPacmanState()
        if pacman.configuration is not None:
            self._draw_pacman(canvas, pacman.configuration.pos, pacman.configuration.direction)
        # Ghosts last: when a ghost catches Pacman the catcher should be visible on top.
        for index, ghost in enumerate(state.getGhostStates(), start=1):
            if ghost.configuration is not None:
                self._draw_ghost(
                    canvas,
                    index,
                    ghost.configuration.pos,
                    ghost.configuration.direction,
                    ghost.scaredTimer,
                )
        self._draw_status(canvas, state, outcome)
        if self._window is not None and pygame.display.get_init():
            self._window.blit(canvas, (0, 0))
            pygame.display.flip()

    def _draw_pacman(self, canvas: pygame.Surface, pos: Point, direction: str) -> None:
        """A yellow disc with a wedge-shaped mouth towards his last real direction."""
        if direction in VECTORS and direction != Directions.STOP:
            self._pacman_facing = direction
        dx, dy = VECTORS[self._pacman_facing]
        # Screen y grows downwards, board y upwards.
        facing_angle = math.atan2(-dy, dx)
        cx, cy = self._center(pos)
        radius = self.cell * 0.45
        mouth = math.radians(_MOUTH_ANGLES[self._chew % len(_MOUTH_ANGLES)])
        # The mouth's corner sits a little in front of the centre, so the centre is solid yellow.
        apex = (
            cx + math.cos(facing_angle) * radius * 0.15,
            cy + math.sin(facing_angle) * radius * 0.15,
        )
        steps = 36
        sweep = 2 * math.pi - 2 * mouth
        points: list[Point] = [apex]
        for i in range(steps + 1):
            angle = facing_angle + mouth + sweep * i / steps
            points.append((cx + math.cos(angle) * radius, cy + math.sin(angle) * radius))
        pygame.draw.polygon(canvas, PACMAN_COLOR, points)
        pygame.draw.aalines(canvas, PACMAN_COLOR, True, points)

    def _draw_ghost(
        self,
        canvas: pygame.Surface,
        index: int,
        pos: Point,
        direction: str,
        scared_timer: int,
    ) -> None:
        """A domed body with a ragged hem; eyes look where it goes, or a frightened face."""
        c = self.cell
        cx, cy = self._center(pos)
        r = c * 0.42
        dome_y = cy - c * 0.08
        hem_y = cy + c * 0.42
        body_color = ghost_body_color(index, scared_timer)
        points: list[Point] = []
        steps = 16
        for i in range(steps + 1):
            theta = math.pi - math.pi * i / steps
            points.append((cx + r * math.cos(theta), dome_y - r * math.sin(theta)))
        points.append((cx + r, hem_y))
        teeth = 6
        for k in range(1, teeth + 1):
            x = cx + r - k * (2 * r / teeth)
            points.append((x, hem_y - (c * 0.13 if k % 2 else 0.0)))
        pygame.draw.polygon(canvas, body_color, points)
        pygame.draw.aalines(canvas, body_color, True, points)

        if scared_timer > 0:
            blinking = body_color == SCARED_BLINK_COLOR
            face = SCARED_BLINK_FACE if blinking else SCARED_FACE
            eye_r = max(1, round(c * 0.06))
            for side in (-1, 1):
                eye = (round(cx + side * c * 0.14), round(cy - c * 0.12))
                pygame.draw.circle(canvas, face, eye, eye_r)
            # A wobbly frightened mouth.
            mouth: list[Point] = []
            for k in range(7):
                x = cx - c * 0.24 + k * c * 0.08
                mouth.append((x, cy + c * 0.16 + (c * 0.04 if k % 2 else -c * 0.04)))
            pygame.draw.lines(canvas, face, False, mouth, max(1, round(c * 0.04)))
            return

        dx, dy = VECTORS.get(direction, (0, 0))
        eye_r = max(2, round(c * 0.11))
        pupil_r = max(1, round(c * 0.055))
        look = c * 0.05
        for side in (-1, 1):
            ex, ey = cx + side * c * 0.16, cy - c * 0.12
            pygame.draw.circle(canvas, EYE_WHITE, (round(ex), round(ey)), eye_r)
            pupil = (round(ex + dx * look), round(ey - dy * look))
            pygame.draw.circle(canvas, PUPIL_COLOR, pupil, pupil_r)

    def _draw_status(self, canvas: pygame.Surface, state: GameState, outcome: str | None) -> None:
        """Score on the left, layout name on the right, the outcome in the middle at the end."""
        font = self._font
        width = canvas.get_width()
        top = self._board_height * self.cell
        canvas.fill(STATUS_BACKGROUND, pygame.Rect(0, top, width, self.status_height))
        if font is None:
            return
        score = state.getScore()
        score_text = f"Score: {int(score) if score == int(score) else score}"
        margin = max(4, self.cell // 4)
        mid = top + self.status_height // 2
        left = font.render(score_text, True, STATUS_TEXT)
        canvas.blit(left, left.get_rect(midleft=(margin, mid)))
        right = font.render(self._layout_name, True, STATUS_TEXT)
        right_rect = right.get_rect(midright=(width - margin, mid))
        if right_rect.left > left.get_rect(midleft=(margin, mid)).right + margin:
            canvas.blit(right, right_rect)
        if outcome is None:
            return
        color = OUTCOME_COLORS.get(outcome.lower(), STATUS_TEXT)
        label = font.render(outcome.upper(), True, color)
        label_rect = label.get_rect(center=(width // 2, mid))
        if label_rect.left > left.get_rect(midleft=(margin, mid)).right + margin:
            canvas.blit(label, label_rect)
        # Also a banner over the board, readable from across the room.
        if self._big_font is not None:
            banner = self._big_font.render(outcome.upper(), True, color)
            box = banner.get_rect(center=(width // 2, top // 2)).inflate(margin * 2, margin)
            shade = pygame.Surface(box.size, pygame.SRCALPHA)
            shade.fill((0, 0, 0, 170))
            canvas.blit(shade, box)
            canvas.blit(banner, banner.get_rect(center=box.center))
