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
