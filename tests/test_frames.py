"""Frame files for the report's player (pacman/frames.py): exact, compact, safe in a page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pacman import frames as framing
from pacman import replay as replays
from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import resolve
from pacman.replay import ReplayError
from tests.conftest import replay_states

HOSTILE = "</script><script>alert(1)</script>&amp;\u2028\u2029<!--"


def recorded(tmp_path: Path, layout: str, pacman: str, seed: int,
             max_moves: int | None = None) -> Path:
    lay = load_layout(layout)
    result = play(GameSpec(lay, resolve(pacman), resolve("RandomGhost", kind="ghost"),
                           seed=seed, max_moves=max_moves))
    return replays.write(result, lay, tmp_path / f"{layout}-{seed}.json")


@pytest.fixture(scope="module")
def small_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return recorded(tmp_path_factory.mktemp("frames"), "smallClassic", "GreedyAgent", 0)


@pytest.fixture(scope="module")
def capsule_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game on mediumClassic in which Pacman eats a capsule and scared ghosts move on
    half cells."""
    return recorded(tmp_path_factory.mktemp("frames"), "mediumClassic", "GreedyAgent", 4, 600)


def read_script(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    prefix, suffix = f"{framing.CALLBACK}(", ");\n"
    assert text.startswith(prefix) and text.endswith(suffix)
    data: dict[str, Any] = json.loads(text[len(prefix):-len(suffix)])
    return data


def test_every_frame_is_the_resimulated_state(capsule_game: Path, tmp_path: Path) -> None:
    states = replay_states(capsule_game)
    replay = replays.load(capsule_game)
    target = tmp_path / "games" / "g.js"
    framing.write_frames(capsule_game, target, ["Team A", "Ghost 1", "Ghost 2"], "g@1#0")
    data = read_script(target)
    assert (data["format"], data["version"], data["game"]) == (framing.FORMAT, 1, "g@1#0")
    assert data["rules"] == "classic"
    assert data["agents"] == [{"name": "Team A", "kind": "pacman"},
                              {"name": "Ghost 1", "kind": "ghost"},
                              {"name": "Ghost 2", "kind": "ghost"}]
    layout = replay.layout
    assert data["layout"]["name"] == "mediumClassic"
    assert (data["layout"]["width"], data["layout"]["height"]) == (layout.width, layout.height)
    assert data["outcome"] == replay.outcome
    directions = data["directions"]
    frames = data["frames"]
    assert len(frames) == len(states) == len(replay.actions) + 1

    half_cells = scared_frames = 0
    food = set(layout.food_cells)
    capsules = set(layout.capsules)
    rows = data["layout"]["rows"]
    for x in range(layout.width):
        for y in range(layout.height):
            char = rows[layout.height - 1 - y][x]
            expected = ("%" if (x, y) in layout.wall_cells else "o" if (x, y) in capsules
                        else "." if (x, y) in food else " ")
            assert char == expected, (x, y)
    for k, (frame, state) in enumerate(zip(frames, states)):
        assert all(type(n) is int for n in frame)
        assert frame[0] == state.getScore()
        if k == 0:
            assert frame[1:4] == [-1, -1, -1]
        else:
            agent, action = replay.actions[k - 1]
            assert (frame[1], directions[frame[2]]) == (agent, action)
            before, after = states[k - 1], state
            eaten_food = set(before.getFood().asList()) - set(after.getFood().asList())
            eaten_caps = set(before.getCapsules()) - set(after.getCapsules())
            eaten = eaten_food | eaten_caps
            if eaten:
                ((x, y),) = eaten
                assert frame[3] == x + y * layout.width
            else:
                assert frame[3] == -1
        for i, (pos, direction, scared) in enumerate(state.agents):
            at = framing.FRAME_HEAD + framing.AGENT_FIELDS * i
            x2, y2, code, timer = frame[at:at + framing.AGENT_FIELDS]
            assert (x2 / 2, y2 / 2) == (pos[0], pos[1])
            assert (directions[code], timer) == (direction, scared)
            half_cells += x2 % 2 + y2 % 2
            scared_frames += timer > 0
    # The game exercised what a frame must say: a capsule, scared ghosts, half cells.
    assert any(frame[3] == x + y * layout.width for frame in frames for x, y in capsules)
    assert scared_frames and half_cells


def test_a_thousand_moves_fit_well_under_100_kb(tmp_path: Path) -> None:
    path = recorded(tmp_path, "mediumClassic", "ExpectimaxAgent", 1, max_moves=1000)
    replay = replays.load(path)
    assert len(replay.actions) == 1000
    text = framing.script_text(framing.frames_of(replay, ["P", "G", "G"], "long"))
    assert len(text.encode()) < 60_000


def test_a_replay_that_does_not_reproduce_names_the_move(small_game: Path,
                                                         tmp_path: Path) -> None:
    raw = json.loads(small_game.read_text())
    raw["scores"][4] += 100
    raw.pop("hashes")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    target = tmp_path / "bad.js"
    with pytest.raises(ReplayError, match=r"bad\.json.*does not reproduce.*move 4"):
        framing.write_frames(bad, target, ["P", "G", "G"], "g")
    assert not target.exists()
    raw = json.loads(small_game.read_text())
    raw["outcome"] = "win"
    with pytest.raises(ReplayError, match="outcome win"):
        framing.frames_of(replays.from_json(raw), ["P", "G", "G"], "g")


def test_a_file_that_is_no_replay_is_a_replay_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    with pytest.raises(ReplayError, match=r"junk\.json"):
        framing.write_frames(junk, tmp_path / "junk.js", ["P"], "g")
    with pytest.raises(ReplayError, match=r"missing\.json"):
        framing.write_frames(tmp_path / "missing.json", tmp_path / "m.js", ["P"], "g")


def test_names_must_name_every_agent(small_game: Path) -> None:
    replay = replays.load(small_game)
    with pytest.raises(ValueError, match="expected 3 agent names"):
        framing.frames_of(replay, ["P", "G"], "g")


def test_hostile_names_and_messages_cannot_leave_the_script(small_game: Path,
                                                            tmp_path: Path) -> None:
    raw = json.loads(small_game.read_text())
    # The first 20 moves, stopped by a ghost's crash with a hostile message.
    cut = 20
    raw.update(actions=raw["actions"][:cut], scores=raw["scores"][:cut],
               hashes=raw["hashes"][:cut], outcome="crash", culprit=2,
               message=HOSTILE * 40,
               agents=["/home/organizer/secret/multiAgents.py:Agent"] * 3)
    path = tmp_path / "crash.json"
    path.write_text(json.dumps(raw))
    target = tmp_path / "crash.js"
    framing.write_frames(path, target, [HOSTILE, "Ghost", "Bad " + HOSTILE], HOSTILE)
    text = target.read_text(encoding="utf-8")
    assert text.isascii()
    for unsafe in ("<", ">", "&", "\u2028", "\u2029"):
        assert unsafe not in text
    assert "/home/organizer" not in text
    data = read_script(target)
    assert data["game"] == HOSTILE
    assert data["agents"][0]["name"] == HOSTILE
    assert (data["outcome"], data["culprit"], data["culprit_agent"]) == (
        "crash", "Bad " + HOSTILE, 2)
    assert len(data["message"]) == framing.MESSAGE_LIMIT
    assert data["message"].startswith(HOSTILE) and data["message"].endswith("\u2026")
    assert len(data["frames"]) == cut + 1


def test_a_culprit_that_is_no_agent_is_refused(small_game: Path) -> None:
    raw = json.loads(small_game.read_text())
    raw["culprit"] = 7
    with pytest.raises(ReplayError, match="'culprit'"):
        replays.from_json(raw)
    raw["culprit"], raw["message"] = None, 12
    with pytest.raises(ReplayError, match="'message'"):
        replays.from_json(raw)
