"""Text for things agent code made, which may refuse to be printed or be enormous.

Shared by the game runner and the sandbox's child, which must not import the runner.
"""

from __future__ import annotations


def safe_text(obj: object, use_repr: bool = True) -> str:
    """repr()/str() of something an agent made, which may raise or be enormous."""
    try:
        text = repr(obj) if use_repr else str(obj)
    except BaseException:
        text = f"<{type(obj).__name__} that cannot be printed>"
    return text if len(text) <= 80 else text[:77] + "..."


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {safe_text(exc, use_repr=False)}"


__all__ = ["describe", "safe_text"]
