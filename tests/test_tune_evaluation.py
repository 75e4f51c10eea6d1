"""Weights inline and feature functions: how `tournament tune` hands each candidate's weights
to the agent (`-a weights=name:value;...`, `-a features=file.py:function`), checked as
strictly as a weights file, through the agents' constructors and the `pacman` command."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest

from pacman.agents import evaluation
from pacman.agents.anytime_agent import AnytimeAgent
from pacman.agents.evaluation import (
    DEFAULT_WEIGHTS,
    FEATURES,
    feature_evaluation,
    is_inline_weights,
    parse_weights_text,
    phi,
    resolve_evaluation,
    weights_text,
)
from pacman.agents.multiagent import ExpectimaxAgent, ReflexAgent
from pacman.layout import load_layout
from pacman.state import GameState
from tests.commands import PACMAN

REPO = Path(__file__).resolve().parent.parent


def start_state(layout: str = "smallClassic") -> GameState:
    return GameState.initial(load_layout(layout), 2)


def test_inline_weights_override_the_base_and_read_back_exactly() -> None:
    merged = parse_weights_text("food_left:-12.5; trapped:-150;")
    assert merged == {**DEFAULT_WEIGHTS, "food_left": -12.5, "trapped": -150.0}
    odd = {"food_left": -10.123456789012345, "nearest_food": 1e-7, "won": 0.1 + 0.2}
    text = weights_text(odd)
    assert ";" in text and "," not in text  # `-a` splits options on commas
    assert {k: v for k, v in parse_weights_text(text, None).items()} == odd


@pytest.mark.parametrize(("text", "message"), [
    ("food_lef:-1", "unknown feature 'food_lef' (did you mean food_left?)"),
    ("food_left:abc", "food_left: expected a number, got 'abc'"),
    ("food_left:-1;food_left:-2", "food_left is given twice"),
    ("food_left:nan", "food_left: expected a finite number"),
    ("food_left:inf", "food_left: expected a finite number"),
    ("food_left:-1;trapped", "'trapped' is not name:value"),
])
def test_inline_weights_are_checked_as_strictly_as_a_file(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="weights: ") as caught:
        parse_weights_text(text)
    assert message in str(caught.value)


def test_a_file_name_is_never_taken_for_inline_weights() -> None:
    assert is_inline_weights("food_left:-1")
    assert not is_inline_weights("tuned.yaml")
    assert not is_inline_weights("odd:name.yml")
    assert not is_inline_weights("results/run/weights.YAML")


def test_an_agent_plays_the_inline_weights(tmp_path: Path) -> None:
    state = start_state()
    inline = ExpectimaxAgent(evalFn="better", weights="food_left:-3;nearest_food:-7")
    file = tmp_path / "w.yaml"
    file.write_text("food_left: -3\nnearest_food: -7\n")
    from_file = ExpectimaxAgent(evalFn="better", weights=str(file))
    assert inline.evaluationFunction(state) == from_file.evaluationFunction(state)
    expected = {**DEFAULT_WEIGHTS, "food_left": -3.0, "nearest_food": -7.0}
    assert inline.evaluationFunction(state) == pytest.approx(
        sum(expected[name] * value for name, value in zip(FEATURES, phi(state))))
    assert inline.evaluationFunction(state) != evaluation.better(state)


def test_contest_weights_start_from_contest(tmp_path: Path) -> None:
    state = start_state()
    agent = AnytimeAgent(weights="lost:-10")
    again = AnytimeAgent(evalFn="contest", weights="lost:-10")
    assert agent.evaluationFunction(state) == again.evaluationFunction(state) == \
        evaluation.contest(state)  # `lost` is 0 while the game goes on


FEATURE_FILE = """\
def phi(state):
    return {"score": state.getScore(), "dots": state.getNumFood()}

def counter(state):
    from util import Counter
    found = Counter()
    found["dots"] = state.getNumFood()
    return found

def words(state):
    return {"score": "high", "dots": state.getNumFood()}

def listed(state):
    return [state.getScore()]
"""


@pytest.fixture
def features_file(tmp_path: Path) -> Path:
    path = tmp_path / "myfeatures.py"
    path.write_text(FEATURE_FILE)
    return path


def test_a_feature_function_is_evaluated_as_w_dot_phi(features_file: Path) -> None:
    state = start_state()
    agent = ExpectimaxAgent(features=f"{features_file}:phi", weights="score:2;dots:-3")
    assert agent.evaluationFunction(state) == 2 * state.getScore() - 3 * state.getNumFood()
    # Only the weights given count: no base weights for a feature function.
    alone = ReflexAgent(features=f"{features_file}:phi", weights="dots:1")
    assert alone.evaluationFunction(state) == state.getNumFood()
    # A util.Counter counts a missing feature as 0, as the course's does.
    counted = ExpectimaxAgent(features=f"{features_file}:counter", weights="dots:1;score:5")
    assert counted.evaluationFunction(state) == state.getNumFood()


@pytest.mark.parametrize(("function", "weights", "message"), [
    ("phi", "speed:1", "returned no feature 'speed'"),
    ("words", "score:1", "feature 'score' is 'high', not a finite number"),
    ("listed", "score:1", "returned list, not a mapping of feature name to number"),
])
def test_a_feature_function_that_breaks_its_contract_fails_in_the_game(
        features_file: Path, function: str, weights: str, message: str) -> None:
    agent = ExpectimaxAgent(features=f"{features_file}:{function}", weights=weights)
    with pytest.raises(ValueError, match=r"myfeatures\.py") as caught:
        agent.evaluationFunction(start_state())
    assert message in str(caught.value)


def test_feature_options_are_checked_when_the_agent_is_built(features_file: Path) -> None:
    with pytest.raises(ValueError, match=r"features=.*needs weights="):
        ExpectimaxAgent(features=f"{features_file}:phi")
    with pytest.raises(ValueError, match=r"give evalFn or features=file\.py:function, not both"):
        ExpectimaxAgent(evalFn="better", features=f"{features_file}:phi", weights="dots:1")
    with pytest.raises(ValueError, match="defines no function 'nope'"):
        ExpectimaxAgent(features=f"{features_file}:nope", weights="dots:1")
    with pytest.raises(ValueError, match="'x y' is not a feature name"):
        resolve_evaluation("score", str(_yaml(features_file.parent, "x y: 1\n")),
                           f"{features_file}:phi")


def _yaml(folder: Path, text: str) -> Path:
    path = folder / "w.yaml"
    path.write_text(text)
    return path


def test_feature_evaluation_takes_every_kind_of_real_number() -> None:
    from decimal import Decimal

    import numpy as np

    evaluate = feature_evaluation(lambda s: {"a": np.int64(2), "b": np.float32(0.5), "c": 3},
                                  {"a": 1.0, "b": 2.0, "c": -1.0}, "f")
    assert evaluate(start_state()) == 2 + 1 - 3
    # True/false count 1/0, numpy's own bools too (no numbers.Real), as does a Decimal.
    flags = feature_evaluation(lambda s: {"a": np.True_, "b": np.bool_(False), "c": True,
                                          "d": Decimal("0.25")},
                               {"a": 3.0, "b": 5.0, "c": 7.0, "d": 4.0}, "f")
    assert flags(start_state()) == 3 + 7 + 1
    nan = feature_evaluation(lambda s: {"a": math.nan}, {"a": 1.0}, "f")
    with pytest.raises(ValueError, match="not a finite number"):
        nan(start_state())
    # Text is no number, even text float() would read.
    with pytest.raises(ValueError, match=r"feature 'a' is '1\.5', not a finite number"):
        feature_evaluation(lambda s: {"a": "1.5"}, {"a": 1.0}, "f")(start_state())
    # Finite features times finite weights that overflow: the agent's error, never an inf
    # that the search would take for the best (or worst) state.
    huge = feature_evaluation(lambda s: {"a": 1e300}, {"a": 1e10}, "f")
    with pytest.raises(ValueError, match=r"f: w \. phi\(s\) is inf .* not a finite number"):
        huge(start_state())


def pacman(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PACMAN, *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_the_pacman_command_takes_inline_weights_and_feature_functions(
        features_file: Path) -> None:
    out = pacman("-l", "testClassic", "-p", "ExpectimaxAgent", "-k", "1", "-q", "-n", "1",
                 "--max-moves", "300",
                 "-a", "depth=1,evalFn=better,weights=food_left:-12;trapped:-150")
    assert out.returncode == 0, out.stderr
    # A file of code a built-in runs plays in this process: only when said to be trusted
    # (the fifteenth hostile review: it read what the user reads, and --timeout could not
    # stop an endless loop in it).
    own = f"depth=1,features={features_file}:phi,weights=score:1;dots:-10"
    out = pacman("-l", "testClassic", "-p", "ExpectimaxAgent", "-k", "1", "-q", "-n", "1",
                 "--max-moves", "300", "-a", own)
    assert out.returncode == 2
    assert (f"-a features={features_file}:phi: the built-in ExpectimaxAgent would run "
            f"{features_file} in this process, outside the sandbox; add --no-sandbox") \
        in " ".join(out.stderr.split())
    out = pacman("-l", "testClassic", "-p", "RandomAgent", "-g", "AnytimeGhost", "-k", "1",
                 "-q", "--ghostArgs", f"evalFn={features_file}:phi")
    assert out.returncode == 2 and "--ghostArgs evalFn=" in out.stderr
    # A module by name is someone's code too; the platform's own is not.
    out = pacman("-l", "testClassic", "-p", "ExpectimaxAgent", "-k", "1", "-q", "-n", "1",
                 "-a", "depth=1,evalFn=student_eval:better")
    assert out.returncode == 2 and "would run student_eval in this process" in out.stderr
    out = pacman("-l", "testClassic", "-p", "ExpectimaxAgent", "-k", "1", "-q", "-n", "1",
                 "--max-moves", "100",
                 "-a", "depth=1,evalFn=pacman.agents.evaluation:scoreEvaluationFunction")
    assert out.returncode == 0, out.stderr
    out = pacman("-l", "testClassic", "-p", "ExpectimaxAgent", "-k", "1", "-q", "-n", "1",
                 "--max-moves", "300", "--no-sandbox", "-a", own)
    assert out.returncode == 0, out.stderr
    out = pacman("-l", "testClassic", "-p", "ExpectimaxAgent", "-k", "1", "-q", "-n", "1",
                 "--max-moves", "300",
                 "-a", "depth=1,weights=food_left:oops,evalFn=better")
    assert out.returncode == 2
    assert "weights: food_left: expected a number, got 'oops'" in out.stderr
