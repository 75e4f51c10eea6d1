"""A live game stopped from outside (Escape, the window's close button, Ctrl-C): what the
`pacman` command says, keeps and exits with. Run as the command runs, in a subprocess with
SDL's dummy video driver; the stop comes from the agent itself at a chosen move, so it lands
at the same point whatever the machine's load."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from pacman import replay as replays
from tests.commands import PACMAN
from tests.test_tournament_run import ctrl_c_for_children

# An in-process agent (--no-sandbox: it shares the window's event queue and the process's
# signals) that stops its own game during its `at`-th move: by posting the key or the close
# event the window reads after that move, or by sending itself SIGINT (Ctrl-C), also from
# inside code run by exec() (see tests/commands.py for why that case is here).
STOPPER = '''
import os
import signal

import pygame
from game import Agent


class StopAt(Agent):
    def __init__(self, index=0, at="3", how="escape"):
        self.index = index
        self.at = int(at)
        self.how = how
        self.moves = 0

    def getAction(self, state):
        self.moves += 1
        if self.moves == self.at:
            if self.how == "escape":
                pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE))
            elif self.how == "close":
                pygame.event.post(pygame.event.Event(pygame.QUIT))
            elif self.how == "ctrl-c":
                os.kill(os.getpid(), signal.SIGINT)
            else:
                # Ctrl-C inside code run by exec() from a string (as namedtuple and dataclass
                # build their methods): the KeyboardInterrupt leaves the exec, then the
                # command catches it, as for any Ctrl-C.
                exec("os.kill(os.getpid(), signal.SIGINT)\\nwhile True:\\n    pass")
        return [a for a in state.getLegalActions(0) if a != "Stop"][0]
'''

#: The reason each way of stopping gives, and how many moves it leaves in the replay at
#: Pacman's 3rd move with 2 ghosts: the window reads Escape or the close event once that move
#: is applied (2 rounds of 3 moves, and his); Ctrl-C interrupts the move itself.
WAYS = {
    "escape": ("Escape was pressed", 7),
    "close": ("the window was closed", 7),
    "ctrl-c": ("Ctrl-C was pressed", 6),
    "ctrl-c-in-exec": ("Ctrl-C was pressed", 6),
}


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command as a terminal runs it: with Python's Ctrl-C handling even when the tests
    run as a background job (which ignores SIGINT, and the child would inherit that)."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    with ctrl_c_for_children():
        return subprocess.run([*PACMAN, *args], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("how", sorted(WAYS))
def test_a_stopped_live_game_is_reported_kept_and_exits_130(tmp_path: Path, how: str) -> None:
    (tmp_path / "stopper.py").write_text(STOPPER)
    proc = run(tmp_path, "-l", "mediumClassic", "-p", "stopper.py:StopAt", "--no-sandbox",
               "-a", f"at=3,how={how}", "-k", "2", "-n", "3", "--frameTime", "0",
               "--seed", "5", "--record-dir", "rec")
    reason, moves = WAYS[how]
    assert proc.returncode == 130, proc.stderr
    assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == ["mediumClassic-5-000.json"]
    path = tmp_path / "rec" / "mediumClassic-5-000.json"
    raw = json.loads(path.read_text())
    assert raw["outcome"] == "stopped" and raw["message"] == reason
    score = raw["scores"][-1]
    assert raw["score"] == score
    lines = proc.stdout.splitlines()
    # One line says it, then the course's summary of what was played: one game, cut short.
    assert lines[0] == f"Game stopped ({reason}) after {moves} moves. Score: {score}"
    assert lines[1] == "Recorded: rec/mediumClassic-5-000.json"
    assert f"Scores:        {float(score)}" in lines
    assert "Win Rate:      0/1 (0.00)" in lines
    assert "Record:        Stopped" in lines
    assert len(raw["actions"]) == moves and raw["actions"][-1][0] == (0 if moves == 7 else 2)
    replay = replays.load(path)
    assert replays.check(replay) is None  # what was played reproduces
    check = run(tmp_path, "--replay", str(path), "-q", "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    watched = run(tmp_path, "--replay", str(path), "-q")
    assert watched.returncode == 0
    assert watched.stdout.strip() == f"Replayed {moves} moves: stopped. Score: {score}"


def test_a_stopped_game_in_json(tmp_path: Path) -> None:
    """`--json` says it too, and exits 130."""
    (tmp_path / "stopper.py").write_text(STOPPER)
    proc = run(tmp_path, "-l", "mediumClassic", "-p", "stopper.py:StopAt", "--no-sandbox",
               "-a", "at=2,how=escape", "-k", "2", "--frameTime", "0", "--seed", "5", "--json")
    assert proc.returncode == 130, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["stopped"] is True
    assert [g["outcome"] for g in summary["games"]] == ["stopped"]
    assert summary["games"][0]["moves"] == 4


def test_a_stopped_replay_is_shown_to_the_stop(tmp_path: Path) -> None:
    """The viewer plays a stopped game to where it stopped and says so."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from pacman.display.timeline import load_timeline

    (tmp_path / "stopper.py").write_text(STOPPER)
    run(tmp_path, "-l", "mediumClassic", "-p", "stopper.py:StopAt", "--no-sandbox",
        "-a", "at=3,how=escape", "-k", "2", "--frameTime", "0", "--seed", "5",
        "--record-dir", "rec")
    timeline = load_timeline(tmp_path / "rec" / "mediumClassic-5-000.json")
    assert timeline.total == 7 and timeline.outcome == "stopped"
    assert timeline.banner() == "STOPPED"
    assert timeline.status(7)[1].centre == "STOPPED"
