import os
from pathlib import Path

import pytest

from tests.browser import browser_page, chromium  # noqa: F401  (the browser tests' fixtures)

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

ROOT = Path(__file__).resolve().parent.parent
TEST_AGENTS = ROOT / "tests" / "agents" / "multiAgents.py"


@pytest.fixture
def test_agents() -> Path:
    return TEST_AGENTS


def replay_states(path: Path) -> list:
    """A replay re-simulated by the engine alone (state k follows k moves), independently of
    the viewer and the exporter that the tests check against it."""
    from pacman import replay as replays

    replay = replays.load(path)
    state = replay.initial_state()
    states = [state]
    for agent, action in replay.actions:
        state = state.generateSuccessor(agent, action)
        states.append(state)
    return states


def assert_status_whole(placed: list, rows: tuple, width: int) -> None:
    """Every text of the status `rows` was drawn whole (no ellipsis), inside a picture `width`
    pixels wide, and no two texts of a line overlap. `placed` is what the renderer drew:
    (text, rect) pairs."""
    wanted = sorted(t for row in rows for t in (row.left, row.centre, row.right) if t)
    assert sorted(text for text, _ in placed) == wanted
    for text, rect in placed:
        assert rect.left >= 0 and rect.right <= width, (text, rect, width)
    for i, (a, ra) in enumerate(placed):
        for b, rb in placed[i + 1:]:
            if ra.centery == rb.centery:
                assert not ra.colliderect(rb), (a, b)
