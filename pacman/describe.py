"""Text for things agent code made, which may refuse to be printed or be enormous.

Shared by the game runner and the sandbox's child, which must not import the runner.
"""

from __future__ import annotations

#: Control characters an agent's text may not carry to a terminal or a file (all but \t, \n).
_CONTROL = {c: None for c in range(32) if c not in (9, 10)} | {127: None} | {
    c: None for c in range(0x80, 0xA0)}


def clean(text: str, limit: int | None = None) -> str:
    """Agent-made text made safe to print and store: valid UTF-8, no terminal escapes.

    A lone surrogate would crash an encoder; an escape sequence could rewrite the organizer's
    terminal. Both are replaced here, once, where the text enters the referee.
    """
    text = text.encode("utf-8", "replace").decode("utf-8").translate(_CONTROL)
    return text if limit is None or len(text) <= limit else text[:limit]


def safe_text(obj: object, use_repr: bool = True) -> str:
    """repr()/str() of something an agent made, which may raise or be enormous."""
    try:
        text = clean(repr(obj) if use_repr else str(obj))
    except BaseException:
        text = f"<{type(obj).__name__} that cannot be printed>"
    return text if len(text) <= 80 else text[:77] + "..."


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {safe_text(exc, use_repr=False)}"


__all__ = ["clean", "describe", "safe_text"]
