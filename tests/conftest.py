import os
from pathlib import Path

import pytest

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


# Headless Chromium for the browser tests (the fixtures live in tests/browser.py).
from tests.browser import browser_page, chromium  # noqa: E402, F401
