"""A replay as the per-move frames the report's in-page player draws (docs/frames-format.md).

The browser player must show exactly what the engine computed, forwards and back, without a
second copy of the rules in JavaScript. So Python re-simulates the replay once (the same
`pacman.replay.simulate` that `--check` trusts, through `pacman.display.timeline`) and writes
every state as a few integers; the player only draws them.

Design notes:

* Compact: a frame is one flat array of integers (score, who moved, the action, the cell
  eaten, then position, direction and scared timer of every agent). Positions are stored
  doubled, since a scared ghost moves half a cell at a time. A 1,000-move game with two ghosts
  is about 45 KB.
* Exact: every frame holds the whole dynamic state the picture needs, and what was eaten
  (food and capsules only ever disappear, so "eaten at frame k" tells the player what any
  frame shows). A replay that does not reproduce is refused, naming the move: a picture must
  not show a game that did not happen.
* A frame file is a script, `pacmanArenaFrames(<json>);`, because a page opened from
  `file://` may not `fetch()` a neighbouring file but may load a script. Its JSON is made safe
  inside a script element: no `<`, `>` or `&` and nothing outside ASCII appears literally,
  so no team name or message can close the script or start markup.
* Names shown are the caller's (the agents' display names); the replay's own `agents` field
  is never read here, since it may hold an organizer's paths.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pacman import replay as replays
from pacman.display.palette import web_palette
from pacman.display.timeline import from_replay
from pacman.files import write_atomic
from pacman.layout import Layout
from pacman.replay import Replay, ReplayError
from pacman.state import GameState

FORMAT = "pacman-arena-frames"
VERSION = 1
#: The function a frame file calls with its data (the player defines it).
CALLBACK = "pacmanArenaFrames"
#: The global `assets/palette.js` sets (the player reads it).
PALETTE_GLOBAL = "pacmanArenaPalette"
#: Direction codes: a frame's directions and actions are indices into this tuple.
DIRECTIONS: tuple[str, ...] = ("North", "South", "East", "West", "Stop")
#: Numbers before the agents' in each frame: score, agent who moved, action, cell eaten.
FRAME_HEAD = 4
#: Numbers per agent in a frame: doubled x, doubled y, direction code, scared timer.
AGENT_FIELDS = 4
#: Longest failure message kept (characters); longer ones end with an ellipsis.
MESSAGE_LIMIT = 500

_CODE = {name: code for code, name in enumerate(DIRECTIONS)}
#: What may not appear literally in a script element's text (JSON escapes of their own).
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def frames_of(replay: Replay, names: Sequence[str], game: str,
              redact: Callable[[str], str] = str) -> dict[str, Any]:
    """The frame data of a replay: layout, rules, agents, one frame per state, the end.

    `names` are the agents' display names, Pacman first (one per agent in play); `game` is the
    game's id, so a page can tell that a frame file is the one it asked for. `redact` is
    applied to the texts the replay itself holds (the failure message and the layout's name),
    which may name the organizer's folders (`tournament.privacy.Redactor`). Raises
    `ReplayError` naming the move when the replay does not reproduce, and ValueError when
    `names` does not name every agent.
    """
    agents = 1 + replay.num_ghosts
    if len(names) != agents or not all(isinstance(n, str) for n in names):
        raise ValueError(f"expected {agents} agent names (Pacman, then each ghost), got {names!r}")
    mismatch = replays.check(replay)
    if mismatch is not None:
        raise ReplayError(f"game {game}: the replay does not reproduce: {mismatch}")
    timeline = from_replay(replay)
    layout = replay.layout
    frames = [_frame(timeline.states[0], None, None, None)]
    for (agent, action), before, after in zip(
        replay.actions, timeline.states, timeline.states[1:]
    ):
        frames.append(_frame(after, agent, action, _eaten(layout, before, after)))
    culprit = replay.culprit
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "layout": {
            "name": redact(layout.name),
            "width": layout.width,
            "height": layout.height,
            "rows": _rows(replay),
        },
        "rules": replay.rules,
        "directions": list(DIRECTIONS),
        "agents": [
            {"name": name, "kind": "pacman" if index == 0 else "ghost"}
            for index, name in enumerate(names)
        ],
        "frames": frames,
        "outcome": timeline.outcome,
        "culprit": names[culprit] if culprit is not None else None,
        "culprit_agent": culprit,
        "message": _bounded(redact(replay.message)),
    }


def script_text(data: dict[str, Any]) -> str:
    """`pacmanArenaFrames(<json>);` with the JSON safe inside an HTML script element."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    for char, escape in _SCRIPT_UNSAFE.items():
        text = text.replace(char, escape)
    return f"{CALLBACK}({text});\n"


def palette_script() -> str:
    """`assets/palette.js`: the board's colours and shape rules for the player, from
    `pacman.display.palette` (the pygame renderer's), so that both draw alike from one home."""
    text = json.dumps(web_palette(), ensure_ascii=True, separators=(",", ":"))
    return f"window.{PALETTE_GLOBAL} = {text};\n"


def write_frames(replay_path: Path, target: Path, names: Sequence[str], game: str,
                 redact: Callable[[str], str] = str) -> None:
    """Read a replay file and write its frame file to `target` atomically (`redact` as in
    `frames_of`).

    Raises `ReplayError` (naming the file) for a file that is not a replay or does not
    reproduce.
    """
    replay = replays.load(replay_path)
    try:
        data = frames_of(replay, names, game, redact)
    except ReplayError as exc:
        raise ReplayError(f"{replay_path}: {exc}") from None
    write_atomic(target, script_text(data))


def _rows(replay: Replay) -> list[str]:
    """The board at the start, top row first as in a `.lay` file: `%` wall, `.` food,
    `o` capsule, space for the rest (agents are in the frames)."""
    layout = replay.layout
    capsules = set(layout.capsules)
    food = set(layout.food_cells)
    rows = []
    for y in range(layout.height - 1, -1, -1):
        row = []
        for x in range(layout.width):
            cell = (x, y)
            row.append(
                "%" if cell in layout.wall_cells
                else "o" if cell in capsules
                else "." if cell in food
                else " "
            )
        rows.append("".join(row))
    return rows


def _frame(
    state: GameState, agent: int | None, action: str | None, eaten: int | None
) -> list[int]:
    frame = [
        int(state.getScore()),
        -1 if agent is None else agent,
        -1 if action is None else _CODE[action],
        -1 if eaten is None else eaten,
    ]
    for (x, y), direction, scared in state.agents:
        frame += [_doubled(x), _doubled(y), _CODE[direction], int(scared)]
    return frame


def _doubled(value: float) -> int:
    """A coordinate times two, exactly (agents stand on whole or half cells)."""
    doubled = value * 2
    if doubled != int(doubled):
        raise ValueError(f"an agent at {value}: not on a whole or half cell")
    return int(doubled)


def _eaten(layout: Layout, before: GameState, after: GameState) -> int | None:
    """The cell (`x + y * width`) whose food or capsule this move ate, if any.

    Only Pacman eats, and only on the cell he moves to, so a move eats at most one cell.
    """
    gone = before.food_mask & ~after.food_mask
    cells = [(bit // layout.height, bit % layout.height)
             for bit in range(gone.bit_length()) if gone >> bit & 1]
    cells += sorted(set(before.getCapsules()) - set(after.getCapsules()))
    if not cells:
        return None
    if len(cells) > 1:
        raise ValueError(f"one move ate {len(cells)} cells {cells}: at most one expected")
    x, y = cells[0]
    return x + y * layout.width


def _bounded(message: str) -> str:
    return message if len(message) <= MESSAGE_LIMIT else message[: MESSAGE_LIMIT - 1] + "\u2026"
