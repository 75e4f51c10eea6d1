"""Reference transcripts: games played by the UC Berkeley CS188 engine, re-simulated here.

Each JSON file in tests/golden/reference/ holds a game's action sequence and the score the
Berkeley reference engine (http://ai.berkeley.edu) showed after every single move. Our engine
must reproduce every one of those scores, and the game's outcome, move for move.
See tests/golden/reference/README.md for how they were measured.
"""

import dataclasses
import subprocess
from pathlib import Path

import pytest

from pacman import replay as replays
from tests.commands import PACMAN

REFERENCE = Path(__file__).parent / "golden" / "reference"
FILES = sorted(REFERENCE.glob("*.json"))
ROOT = Path(__file__).resolve().parent.parent


def test_reference_transcripts_present():
    assert len(FILES) >= 40
    layouts = {replays.load(p).layout.name for p in FILES}
    assert len(layouts) == 11


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_reference_transcript_reproduces(path):
    replay = replays.load(path)
    assert replay.actions, "an empty transcript proves nothing"
    assert len(replay.scores) == len(replay.actions)
    assert replays.check(replay) is None


@pytest.mark.parametrize("name", ["powerClassic-1.json", "testClassic-1.json"])
def test_reference_transcript_cli_check(name):
    path = REFERENCE / name
    proc = subprocess.run(
        [*PACMAN, "--replay", str(path), "-q", "--check"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


def test_corrupted_score_is_reported_at_its_move():
    replay = replays.load(REFERENCE / "mediumClassic-1.json")
    move = len(replay.scores) // 2
    scores = list(replay.scores)
    scores[move] += 1
    bad = dataclasses.replace(replay, scores=tuple(scores))
    mismatch = replays.check(bad)
    assert mismatch is not None
    assert mismatch.move == move
    assert mismatch.agent == replay.actions[move][0]
    assert mismatch.action == replay.actions[move][1]
    assert mismatch.expected == f"score {scores[move]}"
    assert mismatch.actual == f"score {replay.scores[move]}"


def test_corrupted_outcome_is_reported():
    replay = replays.load(REFERENCE / "testClassic-1.json")
    assert replay.outcome == "win"
    mismatch = replays.check(dataclasses.replace(replay, outcome="loss"))
    assert mismatch is not None
    assert mismatch.move == len(replay.actions) - 1
