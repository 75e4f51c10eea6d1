"""`Decision`, what a search returns, in a module of its own.

It lives apart from `pacman.search.core` so that the compiled build (`pacman.fastbuild`) can
compile the searches: mypyc cannot compile a generic dataclass, and this one stays Python, the
same class in either build.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

A = TypeVar("A", bound=Hashable)


@dataclass(frozen=True)
class Decision(Generic[A]):
    """The value of the root and the first action that reaches it (None at a terminal root)."""

    value: float
    action: A | None
