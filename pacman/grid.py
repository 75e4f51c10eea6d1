"""The course's `Grid`: a 2-D boolean array indexed `grid[x][y]`, y counted from the bottom.

Student code reads walls and food through it (`grid[x][y]`, `asList()`, `count()`, `.data`),
and some copies it (`copy()`, `copy.deepcopy`, `pickle`) and writes into the copy, or marks
cells in the food grid a state handed out. The engine itself never reads a Grid on its hot
path: it keeps food as a bitmask and walls as neighbour tables. So a grid is built from a
bitmask, its columns materialised only when indexed. The food grid a state hands out is a
fresh grid of its own, writable as the course's is (writing into it changes no state); the
walls grid is one *read-only view* shared by every state of a layout. Every copy is writable.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Columns = list[list[bool]] | tuple[tuple[bool, ...], ...]


class Grid:
    """A width x height boolean array; `grid[x][y]` with (0, 0) at the bottom left."""

    __slots__ = ("_cols", "_frozen", "_mask", "height", "width")
    _cols: Columns | None
    _frozen: bool
    _mask: int | None
    width: int
    height: int

    def __init__(
        self,
        width: int,
        height: int,
        initialValue: bool = False,
        bitRepresentation: object = None,
    ) -> None:
        if bitRepresentation is not None:
            raise NotImplementedError("packed-bit grids are not supported; use Grid.from_mask")
        _init(self, width, height, [[initialValue] * height for _ in range(width)], None, False)

    @classmethod
    def from_mask(cls, width: int, height: int, mask: int, readonly: bool = True) -> Grid:
        """A grid whose cell (x, y) is bit `x * height + y` of `mask` (read-only unless said)."""
        grid = cls.__new__(cls)
        _init(grid, width, height, None, mask, readonly)
        return grid

    @classmethod
    def from_columns(cls, columns: Sequence[Sequence[bool]], readonly: bool = True) -> Grid:
        grid = cls.__new__(cls)
        width, height = len(columns), len(columns[0]) if columns else 0
        cols: Columns = (
            tuple(tuple(c) for c in columns) if readonly else [list(c) for c in columns]
        )
        _init(grid, width, height, cols, None, readonly)
        return grid

    def __setattr__(self, name: str, value: object) -> None:
        if self._frozen:
            raise TypeError("this grid is a read-only view; call .copy() for one you may change")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise TypeError("grid attributes cannot be deleted")

    @property
    def data(self) -> Columns:
        """The columns, `data[x][y]` (tuples in a read-only view, lists otherwise).

        A writable grid built from a mask forgets the mask once its columns exist: writes go
        into the columns, so from then on they are the grid."""
        if self._cols is None:
            mask, h, w = self._mask or 0, self.height, self.width
            bits = format(mask, f"0{w * h}b")[::-1] if w * h else ""
            cells = [[c == "1" for c in bits[x * h : (x + 1) * h]] for x in range(w)]
            set_ = object.__setattr__
            if self._frozen:
                set_(self, "_cols", tuple(tuple(c) for c in cells))
            else:
                set_(self, "_cols", cells)
                set_(self, "_mask", None)
        assert self._cols is not None
        return self._cols

    def __getitem__(self, i: int) -> Sequence[bool]:
        return self.data[i]

    def __setitem__(self, key: int, item: list[bool]) -> None:
        if self._frozen:
            raise TypeError("this grid is a read-only view; call .copy() for one you may change")
        self.data[key] = item  # type: ignore[index]

    def __str__(self) -> str:
        cols = self.data
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
        return (self.width, self.height, self.as_mask()) == (
            other.width, other.height, other.as_mask()
        )

    def __hash__(self) -> int:
        return hash(self.as_mask())

    def as_mask(self) -> int:
        """The grid as an int, bit `x * height + y` set where the cell is true."""
        if self._mask is not None:
            return self._mask
        return positions_to_mask(
            ((x, y) for x, col in enumerate(self.data) for y, v in enumerate(col) if v),
            self.height,
        )

    def copy(self) -> Grid:
        """A mutable copy, as the course's `Grid.copy()` gives: of the columns as they are
        when they exist (a student's grid may hold numbers or strings, as the course's own
        code stores; a copy per search node must stay a list copy), else of the mask."""
        if self._cols is not None:
            return Grid.from_columns(self._cols, readonly=False)
        return Grid.from_mask(self.width, self.height, self._mask or 0, readonly=False)

    def __reduce__(self) -> tuple[object, ...]:
        """`copy.copy`, `copy.deepcopy` and `pickle` give a writable copy, as the course's
        plain object does (rebuilt slot by slot, a view's guard refused the copy's first
        store, and every student agent that deep-copied its food grid crashed). A deep copy
        copies the cells' values too, as deep copies do."""
        if self._cols is not None:
            return (_from_columns, ([list(c) for c in self._cols],))
        return (_writable, (self.width, self.height, self._mask or 0))

    def deepCopy(self) -> Grid:
        return self.copy()

    def shallowCopy(self) -> Grid:
        return self.copy()

    def count(self, item: bool = True) -> int:
        if self._mask is not None:
            ones = self._mask.bit_count()
            return ones if item is True else self.width * self.height - ones
        return sum(list(col).count(item) for col in self.data)

    def asList(self, key: bool = True) -> list[tuple[int, int]]:
        """Cells equal to `key`, ordered by x then y (the course's order)."""
        if self._mask is not None and key is True:
            return mask_to_positions(self._mask, self.height)
        return [(x, y) for x, col in enumerate(self.data) for y, v in enumerate(col) if v == key]


def _from_columns(columns: list[list[object]]) -> Grid:
    """A writable grid of these columns (a copy or an unpickled grid that had columns)."""
    return Grid.from_columns(columns, readonly=False)  # type: ignore[arg-type]


def _writable(width: int, height: int, mask: int) -> Grid:
    """A writable grid of `mask` (what a copy or an unpickled grid is)."""
    return Grid.from_mask(width, height, mask, readonly=False)


def _init(
    grid: Grid, width: int, height: int, cols: Columns | None, mask: int | None, frozen: bool
) -> None:
    set_ = object.__setattr__
    set_(grid, "_frozen", False)
    set_(grid, "width", width)
    set_(grid, "height", height)
    set_(grid, "_cols", cols)
    set_(grid, "_mask", mask)
    set_(grid, "_frozen", frozen)


def mask_to_positions(mask: int, height: int) -> list[tuple[int, int]]:
    """Set bits of a cell mask as (x, y), in ascending bit order: by x, then y."""
    out = []
    while mask:
        low = mask & -mask
        out.append(divmod(low.bit_length() - 1, height))
        mask ^= low
    return out


def positions_to_mask(positions: Iterable[tuple[int, int]], height: int) -> int:
    mask = 0
    for x, y in positions:
        mask |= 1 << (x * height + y)
    return mask
