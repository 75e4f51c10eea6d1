"""What the referee and a sandboxed agent say to each other: one JSON array per line.

The referee sends the layout once; after that a state travels as its dynamic parts only (agent
positions, facings and timers, the food bitmask, capsules, score, status, the ghosts eaten
since Pacman's last move), a few dozen bytes.
The child answers with plain data. The referee never unpickles anything: an answer is parsed
as JSON from at most `ANSWER_LIMIT` bytes and checked field by field, so a child that writes
garbage on the channel is caught as a protocol error and blamed, never trusted.

Referee -> child:  ["init", {...}] (with the agent indices it plays: Pacman's, or every
                   ghost of a ghost team), then [op, seq, ...]: ["load", seq, {...}, seed]
                   (builds one agent per index), ["register", seq, STATE, index],
                   ["move", seq, STATE, index], ["final", seq, STATE, index]
Child -> referee:  ["pid", n]  ["ready", active, missing], then answers repeating the request's
                   seq (a random number per request, so no answer can be written ahead):
                   ["ok", seq, ...]  ["action", seq, name or null, description, cpu]
                   ["error", seq, kind, exception type, exception text, trace, detail]
                   (detail: `pacman.problems.Detail.to_wire`, which the referee checks and
                   may go without)

The agent's code runs in the child and can write on the answer pipe itself, so every answer is
checked for its shape, its seq and, for errors, a kind the child may report for that request
(`CHILD_FAULTS`), unless the referee's own clock or the kernel's CPU count says it ran out of
time: an agent can at worst fail itself, never choose another outcome, nor pick a kinder name
for a timeout.
"""

from __future__ import annotations

import json
from typing import Any

from pacman.state import GameState, _make

#: Longest line the referee reads from a child (an error with its trace fits).
ANSWER_LIMIT = 64 * 1024
#: The failures a child may report about its agent, by request: a `load_error` only while
#: loading, a crash or memory error only after it. Anything else it says is a protocol error;
#: and the referee's own measures (time, CPU) come before any kind the child reports.
CHILD_FAULTS: dict[str, tuple[str, ...]] = {
    "load": ("load_error",),
    "register": ("crash", "memory"),
    "move": ("crash", "memory"),
    "final": ("crash", "memory"),
}


class ProtocolError(ValueError):
    """A child said something that is not a well-formed answer."""


def encode(message: list[Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> list[Any]:
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ProtocolError(f"not JSON: {line[:60]!r}") from exc
    if not isinstance(message, list) or not message or not isinstance(message[0], str):
        raise ProtocolError(f"not a message: {line[:60]!r}")
    return message


def state_fields(state: GameState) -> list[Any]:
    """The dynamic parts of a state, as JSON-ready lists (positions keep int or float)."""
    return [
        [[list(pos), facing, timer] for pos, facing, timer in state._agents],
        format(state._food, "x"),  # hex: a big board's bitmask is too long for a JSON int
        state._nfood,
        [list(c) for c in state._caps],
        state._score,
        state._status,
        state._eaten,
    ]


def state_from_fields(template: GameState, data: list[Any]) -> GameState:
    """A state on `template`'s board from `state_fields` output (trusted: referee-made)."""
    agents, food, nfood, caps, score, status, eaten = data
    return _make(
        template._board,
        tuple(((a[0][0], a[0][1]), a[1], a[2]) for a in agents),
        int(food, 16),
        nfood,
        tuple((c[0], c[1]) for c in caps),
        score,
        status,
        eaten,
    )
