"""What the searches return (`Decision`, `AnytimeResult`), in a module of their own.

They live apart from `pacman.search.core` and `pacman.search.anytime` so that the compiled
build (`pacman.fastbuild`) can compile the searches: mypyc cannot compile a generic dataclass,
and these stay Python, the same classes in either build.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:  # core imports this module: at run time the annotation stays a string
    from pacman.search.core import SearchStats

A = TypeVar("A", bound=Hashable)


@dataclass(frozen=True)
class Decision(Generic[A]):
    """The value of the root and the first action that reaches it (None at a terminal root)."""

    value: float
    action: A | None


@dataclass(frozen=True)
class AnytimeResult(Generic[A]):
    """The answer of an anytime search's deepest completed iteration (`pacman.search.anytime`)."""

    action: A | None
    value: float
    #: Plies of the deepest completed iteration (0: none completed).
    depth: int
    #: The whole game tree was searched: deeper iterations change nothing.
    complete: bool
    stats: SearchStats
