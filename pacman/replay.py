"""Versioned JSON replays: write one from a GameResult, read one back, re-simulate and check it.

A replay stores what it takes to re-simulate the game (layout text, rules, ghost count, the
action sequence) plus what the re-simulation must reproduce (the score after every move, the
outcome, and a short hash of the state after every move). The format is documented in
docs/replay-format.md.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pacman.actions import is_direction
from pacman.describe import clean
from pacman.files import FileProblem, read_text_bounded, write_atomic
from pacman.game import GameResult
from pacman.identity import platform_id
from pacman.layout import Layout, LayoutError, parse_layout
from pacman.outcomes import ENDINGS
from pacman.rules import RULESETS
from pacman.state import GameState

FORMAT = "pacman-replay"
VERSION = 1
#: The largest replay file read (a replay may come from anyone: a student sending a game).
#: A move takes about 35 bytes, so this holds games of about 950,000 moves (a tournament's
#: default limit is 3,000). Read, a replay takes about 11 times its size in memory (its moves
#: become Python lists; 13.5 MB took 148 MB), so this bounds that at about 370 MB.
MAX_BYTES = 32 * 1024 * 1024
#: The most moves a game may be set to last (`grid.max_moves`, `--max-moves`), so that its
#: replay can always be read back: a move takes at most about 40 bytes (its action, score and
#: hash), which leaves room within MAX_BYTES for the largest layout's text.
MAX_MOVES = 500_000


#: An outcome a replay may name: a word of lower-case letters and underscores (`win`,
#: `move_limit`, `stopped`...), never text to print as it came.
OUTCOME_NAME = re.compile(r"[a-z_]{1,40}")
#: A state digest as `state_hash` writes it (12 hex digits; up to 64 read): a replay may come
#: from anyone, and a check prints its digests (a "digest" of terminal escapes drew a fake
#: "OK" over the MISMATCH line, the twelfth hostile review).
STATE_HASH = re.compile(r"[0-9a-f]{1,64}")
#: The longest layout name a replay keeps.
NAME_LIMIT = 100


class ReplayError(ValueError):
    """A replay file that cannot be read; the message names the file and the key at fault."""


@dataclass(frozen=True)
class Replay:
    layout: Layout
    rules: str
    num_ghosts: int
    actions: tuple[tuple[int, str], ...]
    scores: tuple[int, ...]
    outcome: str | None = None
    hashes: tuple[str, ...] | None = None
    #: The failing agent's index and what it did (optional keys; for failures only).
    culprit: int | None = None
    message: str = ""

    def initial_state(self) -> GameState:
        return GameState.initial(self.layout, self.num_ghosts, self.rules)


#: Food bitmasks from this one up are written in hex in `state_hash`: Python writes at most
#: 4,300 decimal digits of an int (its default `sys.get_int_max_str_digits()`), and a layout
#: may have 65,536 cells. Below it, the decimal text every replay so far was hashed with.
DECIMAL_LIMIT = 10 ** 4300


def state_hash(state: GameState) -> str:
    """A short digest of a state's dynamic part, stable across processes and machines.

    A food bitmask too wide for Python's decimal text is written in hex (the eighth hostile
    review: on a 130 x 130 layout every kept game's replay raised, and the game became the
    platform's failure, a team's own crashes included)."""
    food = state._food
    text = repr((
        [(float(p[0]), float(p[1]), d, t) for p, d, t in state._agents],
        food if food < DECIMAL_LIMIT else f"0x{food:x}",
        state._caps,
        state._score,
    ))
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def to_json(result: GameResult, layout: Layout) -> dict[str, Any]:
    replay_hashes = []
    state = GameState.initial(layout, result.num_ghosts, result.ruleset)
    for index, action in result.actions:
        state = state.generateSuccessor(index, action)
        replay_hashes.append(state_hash(state))
    return {
        "format": FORMAT,
        "version": VERSION,
        "platform": f"pacman-arena {platform_id()}",
        "layout": {"name": layout.name, "text": layout.text},
        "rules": result.ruleset,
        "num_ghosts": result.num_ghosts,
        "seed": result.seed,
        "agents": result.agents,
        "outcome": result.outcome,
        "culprit": result.culprit,
        "message": result.message,
        "score": result.score,
        "actions": [[i, a] for i, a in result.actions],
        "scores": result.scores,
        "hashes": replay_hashes,
    }


def write(result: GameResult, layout: Layout, path: Path) -> Path:
    """Write atomically: a reader never sees half a replay."""
    return write_atomic(path, dumps(result, layout))


def dumps(result: GameResult, layout: Layout) -> str:
    """The replay as the compact JSON text a replay file holds."""
    return json.dumps(to_json(result, layout), separators=(",", ":"))


def load(path: Path) -> Replay:
    """A replay file, checked key by key. Only a regular file of at most MAX_BYTES is read
    (a fifo or a device would block or never end)."""
    try:
        raw = json.loads(read_text_bounded(path, MAX_BYTES))
    except FileProblem as exc:
        raise ReplayError(str(exc)) from None
    except (ValueError, RecursionError) as exc:  # ValueError: also a number too long to read
        raise ReplayError(f"{path}: not a JSON replay: {exc}") from None
    return from_json(raw, str(path))


def from_json(raw: Any, where: str = "<replay>") -> Replay:
    def bad(key: str, expected: str) -> ReplayError:
        return ReplayError(f"{where}: key {key!r}: expected {expected}")

    if not isinstance(raw, dict):
        raise ReplayError(f"{where}: expected a JSON object")
    if raw.get("format") != FORMAT:
        raise bad("format", f'"{FORMAT}"')
    if type(raw.get("version")) is not int or raw["version"] != VERSION:
        raise bad("version", f"{VERSION} (this platform reads version {VERSION})")
    lay = raw.get("layout")
    if not isinstance(lay, dict) or not isinstance(lay.get("text"), str):
        raise bad("layout", 'an object {"name": ..., "text": ...}')
    # A replay may come from anyone: its texts are cleaned as they are read (a terminal
    # escape in them would reach the organizer's terminal).
    name = clean(lay["name"], NAME_LIMIT) if isinstance(lay.get("name"), str) else "replay"
    try:
        layout = parse_layout(lay["text"], name=str(name), source=f"{where} (layout.text)")
    except LayoutError as exc:
        raise ReplayError(str(exc)) from exc
    rules = raw.get("rules", "classic")
    if not isinstance(rules, str) or rules not in RULESETS:
        raise bad("rules", f"one of {', '.join(RULESETS)}")
    num_ghosts = raw.get("num_ghosts")
    if type(num_ghosts) is not int or not 0 <= num_ghosts <= layout.numGhosts:
        raise bad("num_ghosts", f"an integer from 0 to {layout.numGhosts} (the layout's ghosts)")
    actions_raw = raw.get("actions")
    if not isinstance(actions_raw, list):
        raise bad("actions", "a list of [agent_index, action]")
    if len(actions_raw) > MAX_MOVES:
        # Within MAX_BYTES a game of Stops runs to 1.7 million moves, which the window and
        # the exports (a state a move) would hold in gigabytes: no game played lasts longer.
        raise bad("actions", f"at most {MAX_MOVES:,} moves (the longest game played), got "
                  f"{len(actions_raw):,}")
    actions = []
    for i, item in enumerate(actions_raw):
        if (
            not isinstance(item, list)
            or len(item) != 2
            or type(item[0]) is not int
            or not isinstance(item[1], str)
        ):
            raise bad(f"actions[{i}]", '[agent_index, "Action"]')
        actions.append((item[0], item[1]))
    scores_raw = raw.get("scores")
    if not isinstance(scores_raw, list) or not all(type(s) is int for s in scores_raw):
        raise bad("scores", "a list of integers, the score after each move")
    if len(scores_raw) != len(actions):
        raise bad("scores", f"one score per action ({len(actions)}), got {len(scores_raw)}")
    outcome = raw.get("outcome")
    if outcome is not None and not (isinstance(outcome, str) and OUTCOME_NAME.fullmatch(outcome)):
        raise bad("outcome", "an outcome's name such as win, loss or move_limit")
    hashes = raw.get("hashes")
    if hashes is not None and (
        not isinstance(hashes, list) or len(hashes) != len(actions)
        or not all(isinstance(h, str) and STATE_HASH.fullmatch(h) for h in hashes)
    ):
        raise bad("hashes", "a list of state digests (hex digits, as `state_hash` writes "
                  "them), one per action")
    culprit = raw.get("culprit")
    if culprit is not None and (type(culprit) is not int or not 0 <= culprit <= num_ghosts):
        raise bad("culprit", f"null or an agent index from 0 to {num_ghosts}")
    message = raw.get("message")
    if message is not None and not isinstance(message, str):
        raise bad("message", "null or a string")
    return Replay(
        layout=layout,
        rules=rules,
        num_ghosts=num_ghosts,
        actions=tuple(actions),
        scores=tuple(scores_raw),
        outcome=outcome,
        hashes=tuple(hashes) if hashes is not None else None,
        culprit=culprit,
        message=clean(message) if message else "",
    )


@dataclass(frozen=True)
class Mismatch:
    """The first move where re-simulation disagrees with the replay."""

    move: int
    agent: int
    action: str
    expected: str
    actual: str

    def __str__(self) -> str:
        return (
            f"move {self.move}: agent {self.agent} played {self.action!r}: "
            f"expected {self.expected}, got {self.actual}"
        )


def simulate(replay: Replay) -> Iterator[tuple[int, int, str, GameState | Mismatch]]:
    """Re-play the actions: (move, agent, action, state after it), or a Mismatch and stop."""
    state = replay.initial_state()
    n = state.getNumAgents()
    for move, (agent, action) in enumerate(replay.actions):
        if state.isTerminal():
            yield move, agent, action, Mismatch(
                move, agent, action, "the game to go on", "it had already ended"
            )
            return
        if agent != move % n:
            yield move, agent, action, Mismatch(
                move, agent, action, f"agent {move % n} to move", f"agent {agent}"
            )
            return
        legal = state.getLegalActions(agent)
        if not is_direction(action) or action not in legal:
            yield move, agent, action, Mismatch(
                move, agent, action, f"a legal action ({', '.join(legal)})", "an illegal one"
            )
            return
        state = state.generateSuccessor(agent, action)
        if int(state.getScore()) != replay.scores[move]:
            yield move, agent, action, Mismatch(
                move, agent, action,
                f"score {replay.scores[move]}", f"score {int(state.getScore())}",
            )
            return
        if replay.hashes is not None and state_hash(state) != replay.hashes[move]:
            yield move, agent, action, Mismatch(
                move, agent, action, f"state {replay.hashes[move]}", f"state {state_hash(state)}"
            )
            return
        yield move, agent, action, state


def check(replay: Replay) -> Mismatch | None:
    """None when every move reproduces; else the first difference (score, state or outcome)."""
    state = replay.initial_state()
    last = (0, 0, "")
    for move, agent, action, after in simulate(replay):
        if isinstance(after, Mismatch):
            return after
        state = after
        last = (move, agent, action)
    if replay.outcome in ENDINGS:
        actual = "win" if state.isWin() else "loss" if state.isLose() else "move_limit"
        if actual != replay.outcome:
            return Mismatch(last[0], last[1], last[2], f"outcome {replay.outcome}",
                            f"outcome {actual}")
    elif replay.outcome is not None and state.isTerminal():
        # A failure outcome (crash, timeout...), or `stopped` (its window closed, Ctrl-C),
        # means the game stopped before its end.
        actual = "win" if state.isWin() else "loss"
        return Mismatch(last[0], last[1], last[2], f"outcome {replay.outcome}",
                        f"outcome {actual}")
    return None
