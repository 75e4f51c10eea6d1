"""The course's `Grid`: a 2-D boolean array indexed `grid[x][y]`, y counted from the bottom.

Student code reads walls and food through it (`grid[x][y]`, `asList()`, `count()`), and some
copies it and writes into the copy. The engine itself never reads a Grid on its hot path: it
keeps food as a bitmask and walls as neighbour tables. So a Grid handed out by a game state is
a *read-only view* (columns are tuples) built on demand, and `copy()` gives a mutable one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class Grid:
    """A width x height boolean array; `grid[x][y]` with (0, 0) at the bottom left."""

    __slots__ = ("_mask", "data", "height", "width")

    def __init__(
        self,
        width: int,
        height: int,
        initialValue: bool = False,
        bitRepresentation: object = None,
    ) -> None:
        if bitRepresentation is not None:
            raise NotImplementedError("packed-bit grids are not supported; build from a mask")
        self.width = width
        self.height = height
        self.data: list[list[bool]] | list[tuple[bool, ...]] = [
            [initialValue] * height for _ in range(width)
        ]
        self._mask: int | None = None

    @classmethod
    def from_mask(cls, width: int, height: int, mask: int) -> Grid:
        """A read-only grid whose cell (x, y) is bit `x * height + y` of `mask`.

        Columns are materialised lazily: evaluation functions mostly call `asList()` or
        `count()`, which read the mask directly and cost nothing per cell.
        """
        grid = cls.__new__(cls)
        grid.width = width
        grid.height = height
        grid.data = []
        grid._mask = mask
        return grid

    @classmethod
    def from_columns(cls, columns: Sequence[Sequence[bool]], readonly: bool = True) -> Grid:
        grid = cls.__new__(cls)
        grid.width = len(columns)
        grid.height = len(columns[0]) if columns else 0
        grid.data = [tuple(c) for c in columns] if readonly else [list(c) for c in columns]
        grid._mask = None
        return grid

    def _columns(self) -> list[list[bool]] | list[tuple[bool, ...]]:
        if self._mask is not None and not self.data:
            mask, h = self._mask, self.height
            bits = format(mask, f"0{self.width * h}b")[::-1] if self.width * h else ""
            self.data = [
                tuple(c == "1" for c in bits[x * h : (x + 1) * h]) for x in range(self.width)
            ]
        return self.data

    def __getitem__(self, i: int) -> Sequence[bool]:
        return self._columns()[i]

    def __setitem__(self, key: int, item: list[bool]) -> None:
        self._writable()[key] = item

    def _writable(self) -> list[list[bool]]:
        cols = self._columns()
        if cols and isinstance(cols[0], tuple):
            raise TypeError(
                "this grid is a read-only view of a game state; call .copy() to get one "
                "you may change"
            )
        return cols  # type: ignore[return-value]

    def __str__(self) -> str:
        cols = self._columns()
        rows = [
            "".join("T" if cols[x][y] else "F" for x in range(self.width))
            for y in range(self.height)
        ]
        rows.reverse()
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Grid({self.width}x{self.height})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        if self._mask is not None and other._mask is not None and not self.data:
            return self._mask == other._mask and self.height == other.height
        return [list(c) for c in self._columns()] == [list(c) for c in other._columns()]

    def __hash__(self) -> int:
        return hash(self.as_mask())

    def as_mask(self) -> int:
        """The grid as an int, bit `x * height + y` set where the cell is true."""
        if self._mask is not None:
            return self._mask
        mask, h = 0, self.height
        for x, col in enumerate(self._columns()):
            for y, v in enumerate(col):
                if v:
                    mask |= 1 << (x * h + y)
        return mask

    def copy(self) -> Grid:
        """A mutable copy, as the course's `Grid.copy()` gives."""
        return Grid.from_columns(self._columns(), readonly=False)

    def deepCopy(self) -> Grid:
        return self.copy()

    def shallowCopy(self) -> Grid:
        return self.copy()

    def count(self, item: bool = True) -> int:
        if self._mask is not None and not self.data and item is True:
            return self._mask.bit_count()
        return sum(list(col).count(item) for col in self._columns())

    def asList(self, key: bool = True) -> list[tuple[int, int]]:
        """Cells equal to `key`, ordered by x then y (the course's order)."""
        if self._mask is not None and not self.data and key is True:
            return mask_to_positions(self._mask, self.height)
        return [
            (x, y)
            for x, col in enumerate(self._columns())
            for y, v in enumerate(col)
            if v == key
        ]


def mask_to_positions(mask: int, height: int) -> list[tuple[int, int]]:
    """Set bits of a cell mask as (x, y), in ascending bit order: by x, then y."""
    out = []
    while mask:
        low = mask & -mask
        idx = low.bit_length() - 1
        out.append(divmod(idx, height))
        mask ^= low
    return out


def positions_to_mask(positions: Iterable[tuple[int, int]], height: int) -> int:
    mask = 0
    for x, y in positions:
        mask |= 1 << (x * height + y)
    return mask
