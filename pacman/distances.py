"""Maze distances on a layout, computed once per layout and shared by every search.

An evaluation function runs at every leaf of every search, so it cannot afford a breadth-first
search per call. The table here runs one BFS per source cell, lazily, and keeps the result:
the distances from that cell, and the open cells grouped by distance as bitmasks (rings), so
"the nearest food" is the first ring that shares a bit with the state's food mask.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from pacman.actions import Position, nearest_point
from pacman.layout import Cell, Layout


class MazeDistances:
    """Shortest-path lengths between open cells of one layout."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._height = layout.height
        self._from: dict[Cell, dict[Cell, int]] = {}
        self._rings: dict[Cell, tuple[tuple[int, int], ...]] = {}

    def _bfs(self, source: Cell) -> dict[Cell, int]:
        dist = {source: 0}
        queue = deque([source])
        neighbours = self.layout.neighbours
        while queue:
            cell = queue.popleft()
            d = dist[cell] + 1
            for _, nxt in neighbours[cell]:
                if nxt not in dist:
                    dist[nxt] = d
                    queue.append(nxt)
        return dist

    def from_cell(self, source: Cell) -> dict[Cell, int]:
        """Distances from an open cell to every cell reachable from it."""
        table = self._from.get(source)
        if table is None:
            if source not in self.layout.neighbours:
                raise ValueError(f"{source} is not an open cell of layout {self.layout.name}")
            table = self._from[source] = self._bfs(source)
        return table

    def between(self, a: Position, b: Position) -> float:
        """Distance between two positions; agents between cells count from the nearest one.

        Unreachable pairs are infinitely far.
        """
        return self.from_cell(nearest_point(a)).get(nearest_point(b), float("inf"))

    def nearest_food(self, source: Cell, food_mask: int) -> int | None:
        """Distance to the closest food in `food_mask` (a state's `food_mask`), None if none."""
        rings = self._rings.get(source)
        if rings is None:
            rings = self._rings[source] = self._rings_of(source)
        for d, ring in rings:
            if food_mask & ring:
                return d
        return None

    def _rings_of(self, source: Cell) -> tuple[tuple[int, int], ...]:
        """(distance, mask of the cells at that distance), nearest first: one test per
        distance rather than one per cell."""
        h = self._height
        masks: dict[int, int] = {}
        for (x, y), d in self.from_cell(source).items():
            masks[d] = masks.get(d, 0) | 1 << (x * h + y)
        return tuple(sorted(masks.items()))


@lru_cache(maxsize=32)
def maze_distances(layout: Layout) -> MazeDistances:
    """The shared table of a layout (layouts compare by identity, so each is one key)."""
    return MazeDistances(layout)
