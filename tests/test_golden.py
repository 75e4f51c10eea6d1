"""Golden transcripts: fixed seeds and agents, the exact actions and scores pinned.

Any change to the rules, the ghosts' sampling, seeding or move order shows here. When such a
change is intended, regenerate with `PACMAN_UPDATE_GOLDEN=1 pytest tests/test_golden.py` and
explain the change in the commit.
"""

import json
import os
from pathlib import Path

import pytest

from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import resolve

GOLDEN = Path(__file__).parent / "golden" / "transcripts"

CASES = [
    # name, layout, pacman, ghost, num_ghosts, seed, ruleset
    ("greedy-small-random", "smallClassic", "GreedyAgent", "RandomGhost", None, 1, "classic"),
    ("greedy-medium-directional", "mediumClassic", "GreedyAgent", "DirectionalGhost", None, 2,
     "classic"),
    ("random-capsule-directional", "capsuleClassic", "RandomAgent", "DirectionalGhost", None, 3,
     "classic"),
    ("leftturn-tricky-random", "trickyClassic", "LeftTurnAgent", "RandomGhost", 2, 4, "classic"),
    ("random-power-cs221", "powerClassic", "RandomAgent", "RandomGhost", None, 5, "cs221"),
    ("greedy-open-one-ghost", "openClassic", "GreedyAgent", "RandomGhost", 1, 6, "classic"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_golden_transcript(case):
    name, layout, pacman, ghost, k, seed, rules = case
    result = play(GameSpec(load_layout(layout), resolve(pacman), resolve(ghost, kind="ghost"),
                           num_ghosts=k, seed=seed, ruleset=rules))
    got = {
        "outcome": result.outcome,
        "score": result.score,
        "actions": [f"{i}{a[0]}" for i, a in result.actions],
        "scores": result.scores,
    }
    path = GOLDEN / f"{name}.json"
    if os.environ.get("PACMAN_UPDATE_GOLDEN"):
        path.write_text(json.dumps(got, separators=(",", ":")) + "\n")
    expected = json.loads(path.read_text())
    assert got["actions"] == expected["actions"]
    assert got["scores"] == expected["scores"]
    assert (got["outcome"], got["score"]) == (expected["outcome"], expected["score"])
