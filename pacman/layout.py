"""`.lay` text into an immutable Layout, with the tables the rules need computed once.

The format (RULES.md): `%` wall, `.` food, `o` capsule, `P` Pacman, `G` ghost, `1`-`4` ghost
with an explicit order, space empty; lines stripped; x from the left, y from the bottom.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from pacman.actions import ACTION_ORDER, VECTORS
from pacman.grid import Grid, positions_to_mask

Cell = tuple[int, int]

_KNOWN = set("%.oPG1234 ")

#: The largest board accepted (the largest classic layout is 28 x 27). Per-cell tables grow
#: with the area and food bitmasks with it, so an unbounded file could exhaust memory.
MAX_SIDE = 256

#: Where layouts are looked up by name: the current folder's `layouts/`, then the project's.
PROJECT_LAYOUTS = Path(__file__).resolve().parent.parent / "layouts"


class LayoutError(ValueError):
    """A layout that cannot be found or parsed; the message names file, line and column."""


@dataclass(frozen=True, eq=False)
class Layout:
    """The static part of a game: shared, never copied, by every state of every game on it."""

    name: str
    text: str
    width: int
    height: int
    wall_cells: frozenset[Cell]
    capsules: tuple[Cell, ...]
    #: (is_pacman, position) of every agent in agent order (Pacman first), as the course has it.
    agentPositions: tuple[tuple[bool, Cell], ...]
    #: open cell -> ((direction, next cell), ...) in the reference's legal-action order;
    #: Stop (to the cell itself) included.
    neighbours: dict[Cell, tuple[tuple[str, Cell], ...]] = field(repr=False)
    walls: Grid = field(repr=False)
    food: Grid = field(repr=False)
    #: The food as a bitmask, bit `x * height + y`: a start state's food.
    food_mask: int = 0

    @property
    def numGhosts(self) -> int:
        return sum(1 for is_pacman, _ in self.agentPositions if not is_pacman)

    def getNumGhosts(self) -> int:
        return self.numGhosts

    def isWall(self, pos: Cell) -> bool:
        return pos in self.wall_cells

    @property
    def food_cells(self) -> list[Cell]:
        """Food positions at the start, by x then y."""
        return self.food.asList()

    def __str__(self) -> str:
        return self.text


def parse_layout(text: str, name: str = "<layout>", source: str | None = None) -> Layout:
    """Parse layout text; `source` (a file path) is what error messages name."""
    where = source or name
    # Split on newlines only: str.splitlines() would also split on form feeds and other
    # separators inside a row and report a confusing width.
    raw_lines = [line.rstrip("\r") for line in text.split("\n")]
    # Blank lines at either end are harmless; one inside the grid is an error below.
    first = 0
    while first < len(raw_lines) and not raw_lines[first].strip():
        first += 1
    last = len(raw_lines)
    while last > first and not raw_lines[last - 1].strip():
        last -= 1
    if first == last:
        raise LayoutError(f"{where}: the layout is empty")

    rows: list[str] = []
    for lineno in range(first, last):
        raw = raw_lines[lineno]
        row = raw.strip()
        indent = len(raw) - len(raw.lstrip())
        if not row:
            raise LayoutError(f"{where}:{lineno + 1}: blank line inside the layout")
        for col, ch in enumerate(row):
            if ch not in _KNOWN:
                raise LayoutError(
                    f"{where}:{lineno + 1}:{indent + col + 1}: unknown character {ch!r} "
                    "(expected one of '%', '.', 'o', 'P', 'G', '1'-'4' or space)"
                )
        rows.append(row)

    width = len(rows[0])
    for i, row in enumerate(rows):
        lineno = first + i + 1
        indent = len(raw_lines[first + i]) - len(raw_lines[first + i].lstrip())
        if len(row) < width:
            raise LayoutError(
                f"{where}:{lineno}:{indent + len(row) + 1}: row has {len(row)} cells, "
                f"expected {width} (the width of the first row)"
            )
        extra = row[width:]
        if extra.strip("%"):
            # The reference ignores cells past the first row's width; the classic files only
            # ever put walls there, so anything else is a mistake worth reporting.
            col = width + next(j for j, c in enumerate(extra) if c != "%")
            raise LayoutError(
                f"{where}:{lineno}:{indent + col + 1}: row is longer than the first row "
                f"({len(row)} > {width} cells) and the extra cells are not walls"
            )
    height = len(rows)
    if width > MAX_SIDE or height > MAX_SIDE:
        raise LayoutError(
            f"{where}: the layout is {width} x {height} cells; at most {MAX_SIDE} x {MAX_SIDE} "
            "are accepted"
        )

    def column(x: int, y: int) -> int:
        """1-based column in the file of cell (x, y), counting the row's indentation."""
        raw = raw_lines[first + height - 1 - y]
        return len(raw) - len(raw.lstrip()) + x + 1

    walls: set[Cell] = set()
    food: list[Cell] = []
    capsules: list[Cell] = []
    agents: list[tuple[int, Cell]] = []
    for y in range(height):
        row = rows[height - 1 - y]
        for x in range(width):
            ch = row[x]
            if ch == "%":
                walls.add((x, y))
            elif ch == ".":
                food.append((x, y))
            elif ch == "o":
                capsules.append((x, y))
            elif ch == "P":
                agents.append((0, (x, y)))
            elif ch == "G":
                agents.append((1, (x, y)))
            elif ch in "1234":
                agents.append((int(ch), (x, y)))

    pacmen = [pos for kind, pos in agents if kind == 0]
    if len(pacmen) != 1:
        what = "no Pacman ('P')" if not pacmen else f"{len(pacmen)} Pacmen ('P'), expected one"
        raise LayoutError(f"{where}: {what}")
    # An open border cell would let an agent step off the board.
    border = [(x, y) for y in (0, height - 1) for x in range(width)]
    border += [(x, y) for x in (0, width - 1) for y in range(1, height - 1)]
    for x, y in border:
        if (x, y) not in walls:
            lineno = first + (height - 1 - y) + 1
            raise LayoutError(
                f"{where}:{lineno}:{column(x, y)}: the border of the layout must be walls"
            )

    agents.sort()
    neighbours: dict[Cell, tuple[tuple[str, Cell], ...]] = {}
    for x in range(width):
        for y in range(height):
            if (x, y) in walls:
                continue
            steps = []
            for d in ACTION_ORDER:
                dx, dy = VECTORS[d]
                nxt = (x + dx, y + dy)
                if nxt not in walls:
                    steps.append((d, nxt))
            neighbours[(x, y)] = tuple(steps)
    for _, (x, y) in agents:
        if len(neighbours[(x, y)]) == 1:  # only Stop: ghosts could never move
            lineno = first + (height - 1 - y) + 1
            raise LayoutError(
                f"{where}:{lineno}:{column(x, y)}: this agent is walled in (no open neighbour)"
            )

    def grid(cells: set[Cell] | list[Cell]) -> Grid:
        return Grid.from_mask(width, height, positions_to_mask(cells, height))

    return Layout(
        name=name,
        text="\n".join(rows),
        width=width,
        height=height,
        wall_cells=frozenset(walls),
        capsules=tuple(capsules),
        agentPositions=tuple((kind == 0, pos) for kind, pos in agents),
        neighbours=neighbours,
        walls=grid(walls),
        food=grid(food),
        food_mask=positions_to_mask(food, height),
    )


def available_layouts(search: list[Path] | None = None) -> list[str]:
    names: set[str] = set()
    for folder in search or default_search_path():
        if folder.is_dir():
            names.update(p.stem for p in folder.glob("*.lay"))
    return sorted(names)


def default_search_path() -> list[Path]:
    return [Path.cwd() / "layouts", PROJECT_LAYOUTS]


def load_layout(ref: str, search: list[Path] | None = None) -> Layout:
    """A layout by name (`smallClassic`, looked up in `layouts/`) or by path to a `.lay` file."""
    try:
        return _find(ref, search)
    except OSError as exc:  # a name too long for the file system, an unreadable folder...
        raise LayoutError(f"{ref[:80]}: cannot look up this layout: {exc.strerror or exc}") from exc


def _find(ref: str, search: list[Path] | None) -> Layout:
    path = Path(ref)
    if path.suffix == ".lay" or path.parent != Path("."):
        if path.is_file():
            return _read(path, path.stem)
        if path.parent != Path("."):
            raise LayoutError(f"{ref}: no such layout file")
    stem = path.stem if path.suffix == ".lay" else ref
    for folder in search or default_search_path():
        candidate = folder / f"{stem}.lay"
        if candidate.is_file():
            return _read(candidate, stem)
    names = available_layouts(search)
    close = difflib.get_close_matches(stem, names, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise LayoutError(f"unknown layout {ref!r}{hint}; available: {', '.join(names)}")


def _read(path: Path, name: str) -> Layout:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LayoutError(f"{path}: cannot read the layout: {exc}") from exc
    return parse_layout(text, name=name, source=str(path))
