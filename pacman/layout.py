"""`.lay` text into an immutable Layout, with the tables the rules need computed once.

The format (RULES.md): `%` wall, `.` food, `o` capsule, `P` Pacman, `G` ghost, `1`-`4` ghost
with an explicit order, space empty; lines stripped; x from the left, y from the bottom. Any
other character is read as empty space, as the course engine reads it, and reported in the
layout's `warnings` (file, line, column), since it is most likely a typo.

Names are looked up where the course looks (`load_layout`): `layouts/NAME.lay`, then
`NAME.lay`, in the current folder and up to three folders above it, then among the layouts
shipped with the project.
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

#: How many parent folders the course's `getLayout` also searches (its `back=2` recursion
#: tries the current folder and three above it).
PARENT_LEVELS = 3

#: The layouts shipped with the project: searched last, after the course's places.
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
    #: What was read leniently, one line per unknown character (`file:line:column: ...`).
    warnings: tuple[str, ...] = ()
    #: The file it was read from ('' when parsed from text), so that a summary can say which
    #: `smallClassic` was played when a course folder has a layout of that name.
    source: str = ""

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
    #: unknown character -> (line, column of its first occurrence, occurrences)
    unknown: dict[str, tuple[int, int, int]] = {}
    for lineno in range(first, last):
        raw = raw_lines[lineno]
        row = raw.strip()
        indent = len(raw) - len(raw.lstrip())
        if not row:
            raise LayoutError(f"{where}:{lineno + 1}: blank line inside the layout")
        for col, ch in enumerate(row):
            if ch not in _KNOWN:
                line, at, count = unknown.get(ch, (lineno + 1, indent + col + 1, 0))
                unknown[ch] = (line, at, count + 1)
        rows.append(row)
    warnings = tuple(
        f"{where}:{line}:{at}: unknown character {ch!r} read as empty space, as the course "
        f"engine reads it{f' ({count} times)' if count > 1 else ''} (expected one of '%', '.', "
        "'o', 'P', 'G', '1'-'4' or space)"
        for ch, (line, at, count) in unknown.items()
    )

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
        warnings=warnings,
        source=source or "",
    )


def is_project_layout(layout: Layout) -> bool:
    """Whether the layout is one of the project's own files (not a course folder's)."""
    return Path(layout.source).parent == PROJECT_LAYOUTS if layout.source else False


def available_layouts(search: list[Path] | None = None) -> list[str]:
    """Names of the `.lay` files in the search folders (for "did you mean")."""
    names: set[str] = set()
    for folder in search or default_search_path():
        if folder.is_dir():
            names.update(p.stem for p in folder.glob("*.lay"))
    return sorted(names)


def default_search_path(cwd: Path | None = None) -> list[Path]:
    """The folders a layout name is looked up in, in order: as the course's `getLayout`
    (`layouts/`, then the folder itself, from `cwd` up `PARENT_LEVELS` parents), then the
    project's layouts."""
    here = cwd or Path.cwd()
    folders: list[Path] = []
    for level in [here, *here.parents][: PARENT_LEVELS + 1]:
        folders += [level / "layouts", level]
    return [*folders, PROJECT_LAYOUTS]


def load_layout(ref: str, search: list[Path] | None = None) -> Layout:
    """A layout by name (`smallClassic`, looked up in the `search` folders, by default the
    course's places then the project's) or by path to a `.lay` file.

    `ref` may end in `.lay` or not, and may have folders in it (`mine/maze`): each search
    folder is tried with `ref` under it, as the course tries `layouts/` + name, then name.
    """
    try:
        return _find(ref, search)
    except OSError as exc:  # a name too long for the file system, an unreadable folder...
        raise LayoutError(f"{ref[:80]}: cannot look up this layout: {exc.strerror or exc}") from exc


def _find(ref: str, search: list[Path] | None) -> Layout:
    path = Path(ref)
    file_name = path if path.suffix == ".lay" else path.with_name(f"{path.name}.lay")
    if path.is_absolute():
        if path.is_file():
            return _read(path, path.stem)
        raise LayoutError(f"{ref}: no such layout file")
    for folder in search or default_search_path():
        candidate = folder / file_name
        if candidate.is_file():
            return _read(candidate, candidate.stem)
    if path.parent != Path("."):
        raise LayoutError(f"{ref}: no such layout file")
    names = available_layouts(search)
    stem = file_name.stem
    close = difflib.get_close_matches(stem, names, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise LayoutError(f"unknown layout {ref!r}{hint}; available: {', '.join(names)}")


def _read(path: Path, name: str) -> Layout:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LayoutError(f"{path}: cannot read the layout: {exc}") from exc
    return parse_layout(text, name=name, source=str(path))
