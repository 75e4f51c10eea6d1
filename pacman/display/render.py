"""Draws a `Scene` onto a pygame surface: the one renderer of the window, viewer and export.

Imported only by the pygame-based display modules (never by the engine), and usable without
any window: drawing goes to plain surfaces and fonts need only `pygame.font`, so pictures can
be made on a server with no display at all.

Design notes:

* The maze never changes during a game, so the walls are rendered once per renderer into a
  background surface; each frame is that background plus food, capsules, agents and text.
  The live window draws after every move and the viewer up to 60 times a second, so a frame
  must be cheap.
* A renderer has one fixed cell size. A window that is resized gets a new renderer whose
  cells fit it (crisp shapes at any size) rather than a blurry scaled copy of the old picture.
* Colours and sizes are facts of the arcade game and of the course's viewer (yellow Pacman,
  four coloured ghosts, blue when scared, white when the fright is ending); the shapes are
  drawn from those facts with pygame's primitives.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

# Keep pygame's import banner out of game output (it would pollute piped/recorded logs).
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from pacman.actions import VECTORS
from pacman.display.palette import (
    BACKGROUND,
    BLINK_THRESHOLD,
    CAPSULE_COLOR,
    EYE_WHITE,
    FOOD_COLOR,
    GHOST_COLORS,
    HELP_KEY,
    OTHER_TONE,
    PACMAN_COLOR,
    PUPIL_COLOR,
    SCARED_BLINK_COLOR,
    SCARED_BLINK_FACE,
    SCARED_COLOR,
    SCARED_FACE,
    STATUS_BACKGROUND,
    STATUS_TEXT,
    TONES,
    WALL_COLOR,
    WALL_EDGE,
    Color,
)
from pacman.display.scene import Point, Pose, Scene, StatusRoom, StatusRow, mouth_degrees
from pacman.layout import Layout

#: Pixels per board cell at zoom 1.
CELL_SIZE = 30
#: The smallest cell drawn: a tiny zoom or window still shows something.
MIN_CELL = 4

def ghost_body_color(index: int, scared_timer: int) -> Color:
    """The body colour of ghost `index` (1-based agent index) with that scared timer.

    The scared timer drops by one each time that ghost moves, so its parity alternates on
    every move: that gives the end-of-fright blinking without any clock of our own, and a
    replay looks the same at any speed and in an exported picture.
    """
    if scared_timer <= 0:
        return GHOST_COLORS[(index - 1) % len(GHOST_COLORS)]
    if scared_timer < BLINK_THRESHOLD and scared_timer % 2 == 0:
        return SCARED_BLINK_COLOR
    return SCARED_COLOR


def tone(name: str) -> Color:
    return TONES.get(name.lower(), OTHER_TONE) if name else STATUS_TEXT


def status_row_height(cell: int) -> int:
    """One status line scales with the board, but stays readable on a tiny one."""
    return max(16, round(cell * 0.9))


def status_margin(cell: int) -> int:
    """Pixels around each text of a status line (and between two of them)."""
    return max(4, cell // 4)


def canvas_size(layout: Layout, cell: int, status_rows: int, width: int = 0) -> tuple[int, int]:
    """The picture: the board and its status lines, at least `width` wide (the board is then
    centred, the status lines take the whole width)."""
    return (max(layout.width * cell, width),
            layout.height * cell + status_rows * status_row_height(cell))


def status_need(cell: int, room: StatusRoom) -> int:
    """The width (pixels) every text of `room` needs at this cell size: on each line, the
    widest left, centre and right texts side by side, a margin around each.

    A picture this wide shows every status text whole, whatever the move (the renderer
    shortens a text only in a picture narrower than this).
    """
    if not any(any(texts) for line in room.lines for texts in line):
        return 0
    font = _font(_status_font_size(cell))
    margin = status_margin(cell)
    need = 0
    for line in room.lines:
        widths = [max((font.size(t)[0] for t in texts if t), default=0) for texts in line]
        shown = [w for w in widths if w]
        need = max(need, sum(shown) + (len(shown) + 1) * margin)
    return need


def picture_width(layout: Layout, cell: int, room: StatusRoom) -> int:
    """The width of a game's pictures at this cell size: the board's, or what its status
    needs if that is more (a small board, long team names)."""
    return max(layout.width * cell, status_need(cell, room))


def fit_cell(
    layout: Layout, status_rows: int, size: tuple[int, int], room: StatusRoom | None = None
) -> int:
    """The largest cell size whose picture (board and status texts whole) fits in `size`
    (pixels), at least `MIN_CELL`."""
    room = room or StatusRoom()
    width, height = size
    cell = max(MIN_CELL, min(width // max(1, layout.width), height // max(1, layout.height)))
    # Measuring every text of a long game at each candidate size would be slow: the few widest
    # at the first size stand for them all, and the size found is checked against every text.
    shortlist = _widest(room, cell)
    for candidates in (shortlist, room):
        while cell > MIN_CELL:
            w, h = canvas_size(layout, cell, status_rows, status_need(cell, candidates))
            if w <= width and h <= height:
                break
            cell -= 1
    return cell


def _widest(room: StatusRoom, cell: int, keep: int = 3) -> StatusRoom:
    """`room` with only the `keep` widest texts of each part, as measured at `cell`."""
    font = _font(_status_font_size(cell))

    def top(texts: frozenset[str]) -> frozenset[str]:
        return frozenset(sorted(texts, key=lambda t: font.size(t)[0])[-keep:])

    return StatusRoom(tuple((top(a), top(b), top(c)) for a, b, c in room.lines))


def zoom_cell(zoom: float) -> int:
    return max(MIN_CELL, round(CELL_SIZE * zoom))


def _status_font_size(cell: int) -> int:
    return round(status_row_height(cell) * 0.85)


def _font(size: int) -> pygame.font.Font:
    """pygame's bundled font (the same on every machine, so pictures are reproducible)."""
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame.font.Font(None, max(8, size))


class Renderer:
    """Draws scenes of one layout at one cell size; a new size means a new renderer.

    Fonts are made here, so a renderer must not outlive `pygame.quit()` (make a new one).
    """

    def __init__(self, layout: Layout, cell: int, status_rows: int = 1, width: int = 0) -> None:
        """`width`: the picture's least width (what the status texts need, or the window's);
        the board is centred in it."""
        if cell < 1:
            raise ValueError(f"cell size must be positive, got {cell}")
        self.layout = layout
        self.cell = cell
        self.status_rows = status_rows
        self.row_height = status_row_height(cell)
        self.board_height = layout.height * cell
        self.size = canvas_size(layout, cell, status_rows, width)
        #: Where the board starts from the left (it is centred in a wider picture).
        self.left = (self.size[0] - layout.width * cell) // 2
        self._font = _font(_status_font_size(cell))
        self._banner_fonts = [_font(round(cell * 1.6)), _font(round(cell * 1.0)), self._font]
        self._background: pygame.Surface | None = None
        #: The status texts last drawn, each with where it went (tests check none was cut).
        self.status_placed: list[tuple[str, pygame.Rect]] = []
        #: Where the last banner went (None: the last frame had none, or no room for it).
        self.banner_placed: pygame.Rect | None = None

    def new_canvas(self) -> pygame.Surface:
        return pygame.Surface(self.size)

    # --- geometry ---------------------------------------------------------------------------

    def center(self, pos: Sequence[float]) -> Point:
        """Float pixel centre of a board position; y is flipped (the board counts from below)."""
        return (self.left + (pos[0] + 0.5) * self.cell,
                (self.layout.height - 1 - pos[1] + 0.5) * self.cell)

    def cell_center(self, pos: Sequence[float]) -> tuple[int, int]:
        """Whole-pixel centre of board position `pos` (fractions land between cell centres)."""
        px, py = self.center(pos)
        return (int(px), int(py))

    # --- whole frames -----------------------------------------------------------------------

    def draw(self, canvas: pygame.Surface, scene: Scene) -> None:
        """Compose one frame on `canvas` (of this renderer's size)."""
        self.banner_placed = None
        if self.left:
            canvas.fill(BACKGROUND)
        canvas.blit(self._walls(), (self.left, 0))
        state = scene.state
        food_radius = max(1, round(self.cell * 0.1))
        for pos in state.getFood().asList():
            pygame.draw.circle(canvas, FOOD_COLOR, self._round(pos), food_radius)
        capsule_radius = max(2, round(self.cell * 0.25))
        for pos in state.getCapsules():
            pygame.draw.circle(canvas, CAPSULE_COLOR, self._round(pos), capsule_radius)
        if scene.poses:
            self._draw_pacman(canvas, scene.poses[0].pos, scene.facing, scene.chew)
        # Ghosts last: when a ghost catches Pacman the catcher should be visible on top.
        for index, pose in enumerate(scene.poses[1:], start=1):
            self._draw_ghost(canvas, index, pose)
        self._draw_status(canvas, scene.status)
        if scene.banner:
            self._draw_banner(canvas, scene.banner, tone(scene.banner_tone or "other"),
                              scene.poses)
        if scene.overlay:
            self._draw_help(canvas, scene.overlay)

    def draw_message(self, canvas: pygame.Surface, lines: Sequence[str]) -> None:
        """A frame with only text (a game that cannot be shown, and why)."""
        canvas.fill(BACKGROUND)
        self._draw_help(canvas, tuple(lines))

    # --- parts --------------------------------------------------------------------------------

    def _on_board(self, pos: Sequence[float]) -> Point:
        """`center` on the board's own surface (the walls), whose left edge is the board's."""
        cx, cy = self.center(pos)
        return (cx - self.left, cy)

    def _round(self, pos: Sequence[float]) -> tuple[int, int]:
        cx, cy = self.center(pos)
        return (round(cx), round(cy))

    def _walls(self) -> pygame.Surface:
        """The maze as tubes with a bright outline, drawn once per renderer.

        Each wall cell is a disc joined by bars to its wall neighbours, so corners come out
        rounded and thin walls look like the arcade's. Drawing the shapes twice - first wide in
        the edge colour, then narrower in the body colour - leaves exactly the outline of their
        union. Where four wall cells form a square the gap between the bars is filled, so thick
        walls look solid instead of like rings.
        """
        if self._background is not None:
            return self._background
        surface = pygame.Surface((self.layout.width * self.cell, self.board_height))
        surface.fill(BACKGROUND)
        walls = self.layout.wall_cells
        outer = self.cell * 0.6
        edge = max(1.0, self.cell * 0.08)
        for color, width, fill_squares in (
            (WALL_EDGE, outer, False),
            (WALL_COLOR, outer - 2 * edge, True),
        ):
            radius = max(1, round(width / 2))
            for x, y in walls:
                cx, cy = self._on_board((x, y))
                pygame.draw.circle(surface, color, (round(cx), round(cy)), radius)
                if (x + 1, y) in walls:
                    nx, _ = self._on_board((x + 1, y))
                    rect = pygame.Rect(round(cx), round(cy - width / 2), 0, 0)
                    rect.width = round(nx) - round(cx) + 1
                    rect.height = round(width)
                    pygame.draw.rect(surface, color, rect)
                if (x, y + 1) in walls:
                    _, ny = self._on_board((x, y + 1))
                    rect = pygame.Rect(round(cx - width / 2), round(ny), 0, 0)
                    rect.width = round(width)
                    rect.height = round(cy) - round(ny) + 1
                    pygame.draw.rect(surface, color, rect)
                if fill_squares and {(x + 1, y), (x, y + 1), (x + 1, y + 1)} <= walls:
                    nx, ny = self._on_board((x + 1, y + 1))
                    rect = pygame.Rect(round(cx), round(ny), 0, 0)
                    rect.width = round(nx) - round(cx) + 1
                    rect.height = round(cy) - round(ny) + 1
                    pygame.draw.rect(surface, color, rect)
        self._background = surface
        return surface

    def _draw_pacman(self, canvas: pygame.Surface, pos: Point, facing: str, chew: float) -> None:
        """A yellow disc with a wedge-shaped mouth towards where he last went."""
        dx, dy = VECTORS.get(facing, (-1, 0))
        if (dx, dy) == (0, 0):
            dx = -1
        # Screen y grows downwards, board y upwards.
        facing_angle = math.atan2(-dy, dx)
        cx, cy = self.center(pos)
        radius = self.cell * 0.45
        mouth = math.radians(mouth_degrees(chew))
        # The mouth's corner sits a little in front of the centre, so the centre is solid yellow
        # (a test, and anyone checking a picture, can find him by his centre pixel).
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

    def _draw_ghost(self, canvas: pygame.Surface, index: int, pose: Pose) -> None:
        """A domed body with a ragged hem; eyes look where it goes, or a frightened face."""
        c = self.cell
        cx, cy = self.center(pose.pos)
        r = c * 0.42
        dome_y = cy - c * 0.08
        hem_y = cy + c * 0.42
        body_color = ghost_body_color(index, pose.scared)
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

        if pose.scared > 0:
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

        dx, dy = VECTORS.get(pose.direction, (0, 0))
        eye_r = max(2, round(c * 0.11))
        pupil_r = max(1, round(c * 0.055))
        look = c * 0.05
        for side in (-1, 1):
            ex, ey = cx + side * c * 0.16, cy - c * 0.12
            # The whites lean a little, the pupils more: the ghost looks where it is heading.
            white = (round(ex + dx * look * 0.4), round(ey - dy * look * 0.4))
            pygame.draw.circle(canvas, EYE_WHITE, white, eye_r)
            pupil = (round(ex + dx * look), round(ey - dy * look))
            pygame.draw.circle(canvas, PUPIL_COLOR, pupil, pupil_r)

    def _draw_status(self, canvas: pygame.Surface, rows: Sequence[StatusRow]) -> None:
        """Lines of text under the board, across the whole picture (see `status_line`)."""
        width = canvas.get_width()
        top = self.board_height
        canvas.fill(STATUS_BACKGROUND, pygame.Rect(0, top, width, canvas.get_height() - top))
        font = self._font
        margin = status_margin(self.cell)
        self.status_placed = []
        for i, row in enumerate(rows[: self.status_rows]):
            mid = top + i * self.row_height + self.row_height // 2
            for text, x, color in status_line(font, row, width, margin):
                label = font.render(text, True, color)
                rect = label.get_rect(midleft=(x, mid))
                canvas.blit(label, rect)
                self.status_placed.append((text, rect))

    def _draw_banner(
        self, canvas: pygame.Surface, text: str, color: Color, agents: Sequence[Pose]
    ) -> None:
        """A big word over the board, readable from across the room, where it hides no agent.

        The banner is shaded, but a ghost under it is still hard to see, and the end is when
        people look at who caught whom: so it goes in the band nearest the board's middle that
        no agent touches, in the largest of its fonts that finds one (on minimaxClassic, the
        top wall). Where every band is taken, it is left out: the status line under the board
        says the outcome too, in the same colour.
        """
        self.banner_placed = None
        width = canvas.get_width()
        margin = status_margin(self.cell)
        taken = [self._agent_box(pose.pos) for pose in agents]
        middle = self.board_height // 2
        for font in self._banner_fonts:
            shown = fit_text(font, text, width - 4 * margin)
            if not shown:
                continue
            banner = font.render(shown, True, color)
            box = banner.get_rect().inflate(margin * 2, margin)
            box.centerx = width // 2
            tops = sorted(range(0, self.board_height - box.height + 1),
                          key=lambda top: abs(top + box.height // 2 - middle))
            for top in tops:
                box.top = top
                if box.collidelist(taken) < 0:
                    shade = pygame.Surface(box.size, pygame.SRCALPHA)
                    shade.fill((0, 0, 0, 170))
                    canvas.blit(shade, box)
                    canvas.blit(banner, banner.get_rect(center=box.center))
                    self.banner_placed = box.copy()
                    return

    def _agent_box(self, pos: Sequence[float]) -> pygame.Rect:
        """The square an agent is drawn in (a little more than its cell's width)."""
        cx, cy = self.center(pos)
        half = self.cell / 2
        return pygame.Rect(math.floor(cx - half), math.floor(cy - half),
                           math.ceil(2 * half) + 1, math.ceil(2 * half) + 1)

    def _draw_help(self, canvas: pygame.Surface, lines: Sequence[str]) -> None:
        """A shaded box of `key  what it does` lines, the keys in a column of their own."""
        font = self._font
        margin = max(6, self.cell // 3)
        pairs = [_split_help(line) for line in lines]
        key_width = max((font.size(k)[0] for k, _ in pairs), default=0)
        gap = margin if key_width else 0
        text_room = canvas.get_width() - 4 * margin - key_width - gap
        line_height = font.get_linesize()
        box = pygame.Rect(0, 0, 0, 0)
        box.width = min(
            canvas.get_width() - 2 * margin,
            2 * margin + key_width + gap + max((font.size(t)[0] for _, t in pairs), default=0),
        )
        box.height = 2 * margin + line_height * len(pairs)
        box.center = (canvas.get_width() // 2, min(self.board_height, canvas.get_height()) // 2)
        box.top = max(0, box.top)
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 215))
        canvas.blit(shade, box)
        pygame.draw.rect(canvas, WALL_EDGE, box, 1)
        for i, (key, what) in enumerate(pairs):
            y = box.top + margin + i * line_height
            if key:
                canvas.blit(font.render(key, True, HELP_KEY), (box.left + margin, y))
            what = fit_text(font, what, text_room)
            if what:
                x = box.left + margin + key_width + gap
                canvas.blit(font.render(what, True, STATUS_TEXT), (x, y))


def fit_text(font: pygame.font.Font, text: str, width: int) -> str:
    """`text`, shortened with an ellipsis until it is at most `width` pixels wide."""
    if width <= 0:
        return ""
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "...")[0] > width:
        text = text[:-1]
    return text + "..." if text else ""


def status_line(
    font: pygame.font.Font, row: StatusRow, width: int, margin: int
) -> list[tuple[str, int, Color]]:
    """Where one status line's texts go in a picture `width` wide: (text, left x, colour).

    Left text flush left, right text flush right, the centre text in the middle of the
    picture, or in the middle of the room between the two when the middle is taken. A picture
    as wide as `status_need` says shows every text whole; a narrower one (a window shrunk
    below it) shortens them with an ellipsis: the left text first, then the centre (move,
    outcome), the right (layout, playback) last but to a third of the width.
    """
    def size(text: str) -> int:
        return font.size(text)[0] if text else 0

    right = row.right
    centre = row.centre
    left = row.left
    shown = [t for t in (left, centre, right) if t]
    if sum(size(t) for t in shown) + (len(shown) + 1) * margin > width:
        right = fit_text(font, right, width // 3) if right else ""
        room = width - 2 * margin - (size(right) + margin if right else 0)
        centre = fit_text(font, centre, room - (2 * margin if left else 0)) if centre else ""
        room -= size(centre) + margin if centre else 0
        left = fit_text(font, left, room) if left else ""
    placed: list[tuple[str, int, Color]] = []
    left_end = margin
    if left:
        placed.append((left, margin, STATUS_TEXT))
        left_end = margin + size(left) + margin
    right_start = width - margin
    if right:
        right_start = width - margin - size(right)
        placed.append((right, right_start, STATUS_TEXT))
        right_start -= margin
    if centre:
        w = size(centre)
        x = width // 2 - w // 2
        if x < left_end or x + w > right_start:
            x = left_end + max(0, (right_start - left_end - w) // 2)
        placed.append((centre, x, tone(row.centre_tone)))
    return placed


def _split_help(line: str) -> tuple[str, str]:
    """`"space   pause"` -> (`space`, `pause`): a help line's key, then what it does.

    A line with no run of two spaces is plain text (no key column).
    """
    key, sep, what = line.partition("  ")
    if not sep:
        return "", line
    return key.strip(), what.strip()
