"""The optional compiled build (`pacman.fastbuild`, `pacman.compiled`).

These tests run in both builds. `make test` runs them on the sources; `make test-fast` builds
the compiled modules and runs them (with the other tests of the rules, the course API, the
searches and the baselines) on it, with PACMAN_ARENA_EXPECT_COMPILED=1 so that a build that
silently did not load fails. The tests that compare the two builds skip without a build.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pacman import compiled, fastbuild
from pacman.layout import load_layout
from pacman.state import GameState
from tests.conftest import ROOT

EXPECT_COMPILED = os.environ.get("PACMAN_ARENA_EXPECT_COMPILED", "") not in ("", "0")
BUILT = bool(compiled.compiled_files()) and not compiled.problem()
needs_build = pytest.mark.skipif(not BUILT, reason="no compiled build (make test-fast)")


def test_the_build_that_should_run_runs() -> None:
    running = compiled.running()
    if EXPECT_COMPILED:
        assert all(running.values()), running
    elif not BUILT or compiled.pure_asked():
        assert not any(running.values()), running
    else:
        assert all(running.values()), running


def test_positions_keep_their_types() -> None:
    """Pacman's coordinates are ints and a ghost's floats, as in the course engine (compiled
    code would store a `float` as a C double: `Position` says int | float)."""
    s = GameState.initial(load_layout("smallClassic"), 2)
    assert {type(c) for c in s.getPacmanPosition()} == {int}
    for _ in range(6):
        for agent in range(s.getNumAgents()):
            s = s.generateSuccessor(agent, s.getLegalActions(agent)[0])
    assert {type(c) for c in s.getPacmanPosition()} == {int}
    assert {type(c) for c in s.getPacmanState().getPosition() or ()} == {int}
    assert {type(c) for p in s.getGhostPositions() for c in p} == {float}
    assert str(s.getPacmanState().configuration) == (
        f"(x={s.getPacmanPosition()[0]},y={s.getPacmanPosition()[1]}), "
        f"{s.getPacmanState().getDirection()}")
    assert repr(s.getPacmanState()) == str(s.getPacmanState())


def test_a_state_refuses_every_change() -> None:
    s = GameState.initial(load_layout("smallClassic"), 2)
    for name in ("_score", "_board", "new_attribute"):
        with pytest.raises(AttributeError):
            setattr(s, name, 5)
        with pytest.raises(AttributeError):
            delattr(s, name)
    assert s.getScore() == 0


@pytest.mark.parametrize("action", [None, 3, ["East"], "east", b"East"])
def test_anything_but_a_legal_move_is_an_illegal_move(action: object) -> None:
    from pacman.rules import IllegalMove

    s = GameState.initial(load_layout("smallClassic"), 2)
    for agent in (0, 1):
        with pytest.raises(IllegalMove):
            s.generateSuccessor(agent, action)


def fingerprint_of(pure: bool) -> str:
    """`fastbuild.fingerprint()` in a fresh process, with the sources or with the build."""
    env = {k: v for k, v in os.environ.items() if k != compiled.PURE_VARIABLE}
    if pure:
        env[compiled.PURE_VARIABLE] = "1"
    code = ("from pacman import compiled, fastbuild; "
            "print(all(compiled.running().values()), fastbuild.fingerprint())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env).stdout.split()
    assert out[0] == str(not pure)  # the build asked for is the one that played
    return out[1]


@needs_build
def test_both_builds_play_the_same_games() -> None:
    assert fingerprint_of(pure=True) == fingerprint_of(pure=False)


@needs_build
def test_the_variable_plays_the_sources_and_status_says_so() -> None:
    env = {**os.environ, compiled.PURE_VARIABLE: "1"}
    status = subprocess.run([sys.executable, "-m", "pacman.fastbuild", "status"],
                            capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    assert status.stdout.count("Python source") == len(compiled.MODULES)
    assert f"{compiled.PURE_VARIABLE} is set" in status.stdout
    env.pop(compiled.PURE_VARIABLE)
    status = subprocess.run([sys.executable, "-m", "pacman.fastbuild", "status"],
                            capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    assert status.stdout.count("compiled") == len(compiled.MODULES)


# --- when a build is set aside, on a tree made in the test ------------------------------------


def fake_build(root: Path, modules: tuple[str, ...] = compiled.MODULES) -> None:
    """Sources, empty stand-ins for their compiled files and the record of a build."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for module in compiled.MODULES:
        path = compiled.source(module, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {module}\n")
    for module in modules:
        path = compiled.source(module, root)
        path.with_name(path.stem + suffix).write_bytes(b"")
    record = {"sources": {m: compiled.digest(compiled.source(m, root))
                          for m in compiled.MODULES}}
    (root / "pacman" / compiled.RECORD.name).write_text(json.dumps(record))


def test_no_build_is_no_problem(tmp_path: Path) -> None:
    assert compiled.compiled_files(tmp_path) == []
    assert compiled.problem(tmp_path) == ""


def test_a_build_that_matches_its_sources_is_used(tmp_path: Path) -> None:
    fake_build(tmp_path)
    assert len(compiled.compiled_files(tmp_path)) == len(compiled.MODULES)
    assert compiled.problem(tmp_path) == ""


def test_a_changed_source_sets_the_build_aside(tmp_path: Path) -> None:
    fake_build(tmp_path)
    compiled.source("pacman.agents.evaluation", tmp_path).write_text("# edited\n")
    assert compiled.problem(tmp_path) == "pacman/agents/evaluation.py changed since it was compiled"


def test_a_build_without_its_record_or_a_module_is_set_aside(tmp_path: Path) -> None:
    fake_build(tmp_path, compiled.MODULES[:-1])
    assert compiled.problem(tmp_path) == f"it lacks {compiled.MODULES[-1]}"
    fake_build(tmp_path)
    (tmp_path / "pacman" / compiled.RECORD.name).write_text("{not json")
    assert "missing or unreadable" in compiled.problem(tmp_path)
    (tmp_path / "pacman" / compiled.RECORD.name).unlink()
    assert "missing or unreadable" in compiled.problem(tmp_path)


def test_a_missing_tool_is_named_and_nothing_is_touched(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    before = compiled.compiled_files()
    monkeypatch.setattr(fastbuild.shutil, "which", lambda name: None)
    assert fastbuild.main(["build"]) == 2
    assert "needs a C compiler" in capsys.readouterr().err
    assert compiled.compiled_files() == before


def test_a_sandbox_runs_the_sources_whatever_the_organizer_runs(tmp_path: Path) -> None:
    """A team's code meets the course API of the sources, at the same speed in either build
    (the zygote's environment sets PACMAN_ARENA_PURE); its games are the same either way."""
    from pacman.game import GameSpec, play
    from pacman.loader import resolve

    agent = tmp_path / "probeAgents.py"
    agent.write_text(
        "import pacman.state\n\n\n"
        "class Probe:\n"
        "    def registerInitialState(self, state):\n"
        "        print('STATE MODULE', pacman.state.__file__)\n\n"
        "    def getAction(self, state):\n"
        "        return state.getLegalActions(0)[0]\n")
    spec = GameSpec(load_layout("smallClassic"), resolve(f"{agent}:Probe"),
                    resolve("RandomGhost", kind="ghost"), seed=3, max_moves=60)
    result = play(spec)
    assert result.outcome in ("win", "loss", "move_limit"), result.message
    assert result.sandbox[0], "the agent did not play in a sandbox"
    assert "STATE MODULE" in result.logs[0]
    assert result.logs[0].split("STATE MODULE", 1)[1].split()[0].endswith("state.py")
