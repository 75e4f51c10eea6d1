"""Text for things agent code made, which may refuse to be printed or be enormous.

Shared by the game runner and the sandbox's referee side, which must not import the runner.
An agent chooses its exception's text (and, in a sandbox, can write any answer itself), so
whatever it says is shown as a quotation inside the platform's own sentence, never as the
sentence: `getAction raised ValueError: "lost my way"`. A message cannot then pass for the
platform's verdict or for the course's summary lines.
"""

from __future__ import annotations

import json
import re

#: Control characters an agent's text may not carry to a terminal or a file (all but \t, \n).
_CONTROL = {c: None for c in range(32) if c not in (9, 10)} | {127: None} | {
    c: None for c in range(0x80, 0xA0)} | {
    # Bidirectional controls: they reorder what a terminal, a report or a spreadsheet shows
    # (a message that reads backwards, a name that looks like another).
    c: None for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def clean(text: str, limit: int | None = None) -> str:
    """Agent-made text made safe to print and store: valid UTF-8, no terminal escapes, no
    bidirectional controls.

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


_TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,79}")
#: Longest quotation of an agent's own text inside a message.
QUOTE_LIMIT = 200


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """An agent's text as one quoted line: cleaned, shortened, with quotes and line breaks
    escaped, so that it cannot close its quotation or start a line of its own."""
    text = clean(text)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return json.dumps(text, ensure_ascii=False)


def type_name(name: object) -> str:
    """An exception class's name as an agent made it: shown only if it looks like a name."""
    if isinstance(name, str) and _TYPE_NAME.fullmatch(name):
        return name
    return "an exception with an unprintable name"


def describe_parts(kind: object, text: object) -> str:
    """`Type: "text"` from an exception's type name and text (both the agent's)."""
    return f"{type_name(kind)}: {quote(text if isinstance(text, str) else '')}"


def exception_text(exc: BaseException) -> str:
    """str() of an agent's exception, which may raise or be enormous."""
    try:
        text = str(exc)
    except BaseException:
        return "<an exception that cannot be printed>"
    return text[:2000]


def describe(exc: BaseException) -> str:
    """`Type: "text"` for an exception an agent raised."""
    try:
        name = type(exc).__name__
    except BaseException:
        name = ""
    return describe_parts(name, exception_text(exc))


__all__ = ["clean", "describe", "describe_parts", "exception_text", "quote", "safe_text",
           "type_name"]
