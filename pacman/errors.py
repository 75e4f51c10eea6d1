"""Exceptions of the state API that are kept out of the compiled modules.

The compiled build (`pacman.fastbuild`) compiles `pacman.state` with mypyc, which cannot
compile a subclass of `RuntimeError`; defined here, in a module that stays Python, the class is
the same one in either build. `pacman.state` re-exports it.
"""

from __future__ import annotations


class TerminalStateError(RuntimeError):
    """`generateSuccessor` was called on a won or lost state."""
