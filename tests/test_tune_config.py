"""The tune file (`tournament.tuneconfig`): what it means when it is right, and every kind of
bad input named by its key path: a weight the evaluation does not have, a feature function
that raises or returns a non-number, an objective the protocol cannot compute, a budget of
zero. Through the command: exit 2 and nothing written."""

from __future__ import annotations

import copy
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pacman.agents.evaluation import CONTEST_WEIGHTS, DEFAULT_WEIGHTS
from tests.commands import TOURNAMENT
from tournament.objective import MEAN_SCORE, MEAN_SCORE_WINS
from tournament.tuneconfig import TuneError, default_population, parse_tune

REPO = Path(__file__).resolve().parent.parent

BASE: dict[str, Any] = {
    "name": "tune test",
    "agent": "ExpectimaxAgent",
    "evaluation": "better",
    "weights": {"food_left": None, "trapped": {"low": -500, "high": 0}},
    "protocol": {"layout": "testClassic", "num_ghosts": 1, "depth": 1, "rules": "cs221"},
    "budget": {"generations": 2},
}


def tune(changes: dict[str, Any], base: Path) -> Any:
    data = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return parse_tune(data, "tune.yaml", base)


def problems(changes: dict[str, Any], base: Path) -> list[str]:
    with pytest.raises(TuneError) as caught:
        tune(changes, base)
    return list(caught.value.problems)


def test_a_good_file_means_what_it_says(tmp_path: Path) -> None:
    config = tune({}, tmp_path)
    assert [w.name for w in config.weights] == ["food_left", "trapped"]
    food, trapped = config.weights
    # A weight starts from the evaluation's own, in steps of its size unless the file says.
    assert (food.start, food.scale) == (DEFAULT_WEIGHTS["food_left"],
                                        abs(DEFAULT_WEIGHTS["food_left"]))
    assert (trapped.start, trapped.low, trapped.high) == (DEFAULT_WEIGHTS["trapped"], -500.0, 0.0)
    assert config.population == default_population(2) == 6
    assert config.generations == 2 and config.objective.kind == MEAN_SCORE
    assert config.output == (tmp_path / "results" / "tune-test").resolve()
    assert config.protocol.layout.name == "testClassic" and config.protocol.depth == 1
    options = dict(config.options({"food_left": -3.0, "trapped": -7.5}))
    assert options == {"evalFn": "better", "weights": "food_left:-3.0;trapped:-7.5"}
    assert config.result == "mean" and tune({"result": "best"}, tmp_path).result == "best"
    assert problems({"result": "bets"}, tmp_path) == [
        "result: unknown result 'bets' (did you mean best?); expected one of mean, best"]


def test_fixed_weights_reach_every_candidate_and_are_checked(tmp_path: Path) -> None:
    """`fixed:` keeps weights at given values whatever the evaluation's own become later, so a
    shipped tune file replays its run; a fixed weight is a known feature, not also tuned."""
    config = tune({"fixed": {"capsules_in_play": 600, "capsule_distance": 0}}, tmp_path)
    options = dict(config.options({"food_left": -3.0, "trapped": -7.5}))
    assert options["weights"] == ("capsules_in_play:600.0;capsule_distance:0.0;"
                                  "food_left:-3.0;trapped:-7.5")
    assert config.base_weights["capsules_in_play"] == 600.0
    assert config.base_weights["lost"] == DEFAULT_WEIGHTS["lost"]  # the rest: the evaluation's
    assert problems({"fixed": {"trapped": -1, "capsules_in_ply": 1, "lost": "much"}},
                    tmp_path) == [
        "fixed.lost: expected a number, got 'much'",
    ]
    assert problems({"fixed": {"trapped": -1, "capsules_in_ply": 1}}, tmp_path) == [
        "fixed.trapped: also under weights: a weight is either tuned or fixed",
        "fixed.capsules_in_ply: unknown feature 'capsules_in_ply' (did you mean "
        "capsules_in_play?) of better; features: " + ", ".join(DEFAULT_WEIGHTS),
    ]
    assert problems({"fixed": ["lost"]}, tmp_path) == [
        "fixed: expected a mapping of weight name to a number, got a list"]


def test_evaluations_round_up_to_whole_generations_and_contest_starts_from_its_own(
        tmp_path: Path) -> None:
    config = tune({"budget": {"evaluations": 13}, "population": 4, "evaluation": "contest",
                   "weights": ["lost", "capsules_in_play"]}, tmp_path)
    assert config.generations == 4
    assert [w.start for w in config.weights] == [CONTEST_WEIGHTS["lost"],
                                                 CONTEST_WEIGHTS["capsules_in_play"]]


def test_an_anytime_agent_tunes_with_a_time_budget(tmp_path: Path) -> None:
    config = tune({"agent": "AnytimeAgent", "evaluation": "contest", "weights": ["lost"],
                   "protocol": {"layout": "testClassic", "time_limit": 0.05}}, tmp_path)
    assert ("timeLimit", "0.05") in config.options({"lost": -1.0})
    assert config.notes == ()
    assert problems({"protocol": {"layout": "testClassic", "time_limit": 0.05}}, tmp_path) == [
        "protocol.time_limit: ExpectimaxAgent has no time budget (no timeLimit option); give "
        "depth for a depth-limited search"]
    # A budget the limits would fail is said before any game (not refused: an agent may stop
    # earlier, as with maxDepth).
    anytime = {"agent": "AnytimeAgent", "evaluation": "contest", "weights": ["lost"]}
    over = tune({**anytime, "protocol": {"layout": "testClassic", "time_limit": 5}}, tmp_path)
    assert over.notes == (
        "protocol.time_limit: 5 s a move is not below protocol.limits.move_hard (3 s): a move "
        "that uses its budget is a timeout, and the candidate fails that game",)
    soft = tune({**anytime, "protocol": {"layout": "testClassic", "time_limit": 1.5,
                                         "limits": {"move_warnings": 2}}}, tmp_path)
    assert soft.notes == (
        "protocol.time_limit: 1.5 s a move is above protocol.limits.move_soft (1 s): moves "
        "that use their budget count warnings, and the move after 2 of them is a timeout",)
    free = {"layout": "testClassic", "time_limit": 5,
            "limits": {"move_soft": None, "move_hard": None, "game_total": 600}}
    assert tune({**anytime, "protocol": free}, tmp_path).notes == ()
    # With no limit on a move nor a game, nothing ends a move that never does.
    del free["limits"]["game_total"]
    assert tune({**anytime, "protocol": free}, tmp_path).notes == (
        "protocol.limits: neither move_hard nor game_total is set, so a move that never ends "
        "(an endless loop in the evaluation) holds the run until it is stopped",)


def test_the_shape_is_checked_whole_with_key_paths(tmp_path: Path) -> None:
    found = problems({
        "evaluation": "beter",
        "protocol": {"layout": "smalClassic", "depth": 0, "max_moves": 10, "speed": 3},
        "games": 0,
        "objective": {"kind": "win_rate", "min_win_rate": 0.5},
        "budget": {"generations": 0},
        "args": {"depth": 3, "focus": [1]},
        "population": 1,
        "weights": {"food_left": {"start": "low", "scale": 0}, "trapped": {"low": 1,
                                                                         "high": 0}},
        "comparison": {"games": 1},
    }, tmp_path)
    # In the file's order of top-level keys (the base's, then the ones added here).
    assert sorted(found) == sorted([
        "args.depth: set by the tuner for each candidate (weights, features, evalFn, depth, "
        "timeLimit): the evaluation, weights and protocol keys say them",
        "args.focus: expected a text, number or true/false, got a list",
        "evaluation: expected better, contest or {features: file.py:function}, got 'beter' "
        "(did you mean better?)",
        "weights.food_left.start: expected a number, got 'low'",
        "weights.food_left.scale: expected a number above 0, got 0",
        "weights.trapped.high: expected above low (1), got 0",
        "protocol.speed: unknown key; expected one of layout, ghosts, num_ghosts, depth, "
        "time_limit, rules, max_moves, limits",
        "protocol.layout: unknown layout 'smalClassic' (did you mean smallClassic?)",
        "protocol.depth: expected a whole number >= 1, got 0",
        "games: expected a whole number >= 1 and <= 1,000,000, got 0",
        "objective.min_win_rate: a floor for mean_score_wins only, not for win_rate",
        "budget.generations: expected a whole number >= 1 and <= 1,000,000, got 0",
        "population: expected a whole number >= 2 and <= 1,000, got 1",
        "comparison.games: expected a whole number >= 2 and <= 1,000,000, got 1",
    ])
    assert found[0].startswith("evaluation:") and found[-1].startswith("comparison.games:")


def test_a_budget_of_zero_is_refused_either_way(tmp_path: Path) -> None:
    assert problems({"budget": {"evaluations": 0}}, tmp_path) == [
        "budget.evaluations: expected a whole number >= 1 and <= 1,000,000, got 0"]
    assert problems({"budget": {}}, tmp_path) == [
        "budget: expected one of generations: N (generations of candidates) or evaluations: "
        "N (candidates in all)"]
    assert problems({"budget": {"generations": 2, "evaluations": 9}}, tmp_path)[0].startswith(
        "budget: expected one of")


def test_sizes_a_typo_would_make_endless_are_refused(tmp_path: Path) -> None:
    """Found by a review: `games: 9223372036854775807` ran out of memory making the schedule,
    `population: 100000000` sat in CMA-ES for minutes."""
    assert problems({"games": 2 ** 63}, tmp_path) == [
        f"games: expected a whole number >= 1 and <= 1,000,000, got {2 ** 63}"]
    assert problems({"population": 10 ** 8}, tmp_path) == [
        "population: expected a whole number >= 2 and <= 1,000, got 100000000"]
    assert problems({"population": 1000, "games": 100_000}, tmp_path) == [
        "games: 1000 candidates x 100,000 games is 100,000,000 games a generation; at most "
        "1,000,000"]


def test_a_name_on_two_lines_and_a_step_that_overflows_are_refused(tmp_path: Path) -> None:
    assert problems({"name": "inj\nfood_left: 999\n#"}, tmp_path) == [
        "name: expected a name on one line of printable characters, got 'inj\\nfood_left: "
        "999\\n#'"]
    assert problems({"sigma": 1e308}, tmp_path) == [
        "sigma: expected at most 1000 (steps in units of each weight's scale), got 1e+308"]
    assert tune({"sigma": 1000}, tmp_path).sigma == 1000.0


def test_a_name_twice_and_a_floor_of_nothing_are_refused(tmp_path: Path) -> None:
    assert problems({"weights": ["food_left", "trapped", "food_left"]}, tmp_path) == [
        "weights: food_left: given twice"]
    assert problems({"objective": {"kind": "mean_score_wins", "min_win_rate": None}},
                    tmp_path) == [
        "objective.min_win_rate: expected a share between 0 and 1 (like 0.95), got nothing "
        "(leave the key out for no floor)"]


def test_a_tuning_checks_its_scheduler_address_as_a_tournament_does(tmp_path: Path) -> None:
    assert problems({"scheduler": "tcp://host:x"}, tmp_path) == [
        "scheduler: expected a port from 1 to 65535 in 'tcp://host:x', got 'x'"]
    trusted = tune({"scheduler": "tcp://10.0.0.5:8786", "trusted_network": True}, tmp_path)
    assert trusted.scheduler == "tcp://10.0.0.5:8786"
    # ... and the tuning's tournament says so to the cluster's own check (`connect_cluster`).
    from tournament.tuning import tournament_config

    assert tournament_config(trusted, [], 1, 2).cluster.trusted_network
    # Plain tcp:// to another host only on a network the organizer trusts (the eighteenth
    # hostile review), as for a tournament.
    [refused] = problems({"scheduler": "tcp://10.0.0.5:8786"}, tmp_path)
    assert refused.startswith("scheduler: tcp://10.0.0.5:8786 is reached over tcp://") and \
        refused.endswith("trusted_network: true"), refused
    assert tune({"scheduler": "tls://10.0.0.5:8786"}, tmp_path).scheduler


def test_weights_and_options_are_checked_against_the_agent_and_evaluation(
        tmp_path: Path) -> None:
    assert problems({"weights": {"food_lef": None, "won": None, "trapped": {"start": 5,
                                                                          "high": 0}}},
                    tmp_path) == [
        "weights.food_lef: unknown feature 'food_lef' (did you mean food_left?) of better; "
        "features: " + ", ".join(DEFAULT_WEIGHTS),
        "weights.won.scale: required when the start is 0: the size of a change worth trying "
        "(the search works in units of it)",
        "weights.trapped.start: 5 is above its high bound, 0",
    ]
    assert problems({"weights": {"trapped": {"start": -600, "low": -500}}}, tmp_path) == [
        "weights.trapped.start: -600 is below its low bound, -500"]
    # Finite, but so large that the search's candidates would overflow to infinity.
    assert problems({"weights": {"food_left": {"start": 1.7e308, "scale": 1.7e308},
                                 "trapped": {"start": -1, "low": -1e13}}}, tmp_path) == [
        "weights.food_left.start: 1.7e+308 is beyond 1e+12 in size: a weight so large leaves "
        "the score no say, and candidates many scales away would not be finite numbers",
        "weights.food_left.scale: 1.7e+308 is beyond 1e+12 in size: a weight so large leaves "
        "the score no say, and candidates many scales away would not be finite numbers",
        "weights.trapped.low: -1e+13 is beyond 1e+12 in size: a weight so large leaves "
        "the score no say, and candidates many scales away would not be finite numbers",
    ]
    # A fixed weight is held to the same bound.
    assert problems({"fixed": {"won": 1e300}}, tmp_path) == [
        "fixed.won: 1e+300 is beyond 1e+12 in size: a weight so large leaves the score no "
        "say, and candidates many scales away would not be finite numbers"]
    assert problems({"agent": "GreedyAgent"}, tmp_path) == [
        "agent: GreedyAgent takes no weights option, so it has nothing to tune; tune a search "
        "agent (ReflexAgent, MinimaxAgent, AlphaBetaAgent, ExpectimaxAgent, AnytimeAgent, "
        "MCTSAgent)",
        "protocol.depth: GreedyAgent takes no depth option; give time_limit for an agent with "
        "a time budget, or nothing"]
    assert problems({"args": {"mood": "calm"}}, tmp_path)[0].startswith(
        "args.mood: ExpectimaxAgent has no option 'mood'")
    # A value the agent cannot take is put at its option.
    assert problems({"agent": "AnytimeAgent", "evaluation": "contest", "args": {"mode": "fast"},
                     "protocol": {**BASE["protocol"], "depth": None, "time_limit": 0.1}},
                    tmp_path) == [
        "args.mode: expected one of alphabeta, expectimax, directional, got 'fast'"]
    assert problems({"evaluation": None}, tmp_path) == [
        "evaluation: required for a built-in agent: better, contest or {features: "
        "file.py:function}"]
    assert problems({"agent": "ReflexAgent"}, tmp_path) == [
        "protocol.depth: ReflexAgent takes no depth option; give time_limit for an agent with "
        "a time budget, or nothing"]


def test_an_objective_no_game_can_reach_is_refused(tmp_path: Path) -> None:
    # testClassic has 8 dots: with one ghost, Pacman's 8th move is move 15 of all agents.
    short = {"layout": "testClassic", "num_ghosts": 1, "depth": 1, "max_moves": 14}
    assert problems({"objective": "win_rate", "protocol": short}, tmp_path) == [
        "objective: win_rate cannot be computed under this protocol: protocol.max_moves (14) "
        "ends every game before Pacman can eat the 8 dots of testClassic (at least 15 moves "
        "of all agents with 1 ghosts), so no game is ever won; raise max_moves or use "
        "objective: mean_score"]
    # Eating the last dot wins: a layout without dots has no win to count.
    (tmp_path / "bare.lay").write_text("%%%%%%\n%P  G%\n%%%%%%\n")
    bare = {**short, "layout": "bare.lay", "max_moves": 400}
    assert problems({"objective": "win_rate", "protocol": bare}, tmp_path) == [
        "objective: win_rate cannot be computed under this protocol: bare has no dots, so no "
        "game is ever won; use objective: mean_score"]
    tune({"objective": "mean_score", "protocol": bare}, tmp_path)
    # A dot no path reaches is never eaten (review 20: the run played, every win rate 0).
    (tmp_path / "walled.lay").write_text("%%%%%%%%%\n%P  . %.%\n%  G  %%%\n%%%%%%%%%\n")
    walled = {**short, "layout": "walled.lay", "max_moves": 400}
    assert problems({"objective": "win_rate", "protocol": walled}, tmp_path) == [
        "objective: win_rate cannot be computed under this protocol: walls close off 1 of the "
        "dots of walled from Pacman (the first in line 2, column 8), so no game is ever won; "
        "use objective: mean_score"]
    tune({"objective": "mean_score", "protocol": walled}, tmp_path)
    # The mean score is computed whatever the protocol; 15 moves can win.
    tune({"objective": "mean_score", "protocol": short}, tmp_path)
    tune({"objective": {"kind": MEAN_SCORE_WINS, "min_win_rate": 0.9},
          "protocol": {**short, "max_moves": 15}}, tmp_path)


FEATURES = """\
def phi(state):
    return {"score": state.getScore(), "dots": state.getNumFood(), "flag": True}

def raises(state):
    raise KeyError("no such thing")

def words(state):
    return {"score": state.getScore(), "dots": "many"}

def nothing(state):
    return None

def stub(state):
    import sys
    sys.exit(1)  # what the course's util.raiseNotDefined() does

class Odd(BaseException):  # not an Exception, yet the file's problem all the same
    pass

def odd(state):
    raise Odd("odd")

def hangs(state):
    while True:
        try:
            while True:
                pass
        except BaseException:  # a function that swallows everything, even a time limit
            pass

def leaves(state):
    import os
    os._exit(3)  # ends its process at once, no exception to catch

def huge(state):
    return {"score": state.getScore(), "dots": 10 ** 400}

class Picky(dict):
    def __getitem__(self, name):
        raise TypeError("nope")

def picky(state):
    return Picky(dots=1)

class Counter(dict):  # the course's util.Counter: a feature it lacks counts 0
    def __missing__(self, name):
        return 0

def counter(state):
    found = Counter()
    found["score"] = state.getScore()
    return found
"""


def test_a_feature_function_is_called_once_on_the_start_state(tmp_path: Path) -> None:
    (tmp_path / "feats.py").write_text(FEATURES)

    def with_function(function: str, weights: Any) -> dict[str, Any]:
        return {"evaluation": {"features": f"feats.py:{function}"}, "weights": weights}

    config = tune(with_function("phi", {"dots": -3, "score": {"start": 1, "scale": 0.5}}),
                  tmp_path)
    assert config.evaluation == "features"
    assert config.features == f"{tmp_path / 'feats.py'}:phi"
    assert [(w.name, w.start, w.scale) for w in config.weights] == [("dots", -3.0, 3.0),
                                                                    ("score", 1.0, 0.5)]
    assert problems(with_function("phi", {"dot": -3, "score": None}), tmp_path) == [
        "weights.dot: feats.py:phi does not produce 'dot' (did you mean dots?); on the start "
        "state it returns score, dots, flag",
        "weights.score.start: required: the start of a weight of a feature function is not "
        "known",
    ]
    # A true/false feature counts as 1/0.
    assert tune(with_function("phi", {"flag": 1}), tmp_path).weights[0].name == "flag"
    assert problems(with_function("raises", {"dots": 1}), tmp_path) == [
        "evaluation.features: feats.py:raises raised on the start state of testClassic, at "
        "feats.py:5: KeyError: \"'no such thing'\""]
    assert problems(with_function("words", {"dots": 1}), tmp_path) == [
        "evaluation.features: feats.py:words: feature 'dots' is 'many', not a finite number "
        "(on the start state of testClassic)"]
    # Whatever the function does is the file's problem, never a crash of the command.
    assert problems(with_function("stub", {"dots": 1}), tmp_path) == [
        "evaluation.features: feats.py:stub raised on the start state of testClassic, at "
        "feats.py:15: SystemExit: \"1\""]
    assert problems(with_function("odd", {"dots": 1}), tmp_path) == [
        "evaluation.features: feats.py:odd raised on the start state of testClassic, at "
        "feats.py:21: Odd: \"odd\""]
    # An exception at import that cannot even be printed is still a located problem.
    mute = tmp_path / "mute.py"
    mute.write_text(
        "class Mute(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n"
        "raise Mute()\n")
    assert problems({"evaluation": {"features": "mute.py:phi"}, "weights": {"dots": 1}},
                    tmp_path) == [
        f"evaluation.features: features={mute}:phi: {mute}: importing it failed: Mute: <an "
        "exception that cannot be printed>"]
    assert problems(with_function("huge", {"dots": 1}), tmp_path) == [
        "evaluation.features: feats.py:huge: feature 'dots' is " + repr(10 ** 400)[:77]
        + "..., not a finite number (on the start state of testClassic)"]
    assert problems(with_function("picky", {"dots": 1}), tmp_path) == [
        "evaluation.features: feats.py:picky: reading feature 'dots' raised TypeError: "
        "\"nope\" (on the start state of testClassic)"]
    # A util.Counter answers for a feature it does not hold yet (such as dots eaten), as it
    # does in games: not refused, but said, with what it may have meant.
    counted = tune({**with_function("counter", {"dots": 1, "scor": 1}),
                    "fixed": {"score": 2}}, tmp_path)
    assert [w.name for w in counted.weights] == ["dots", "scor"]
    assert counted.notes == (
        "weights.dots: feats.py:counter does not hold 'dots' on the start state (its "
        "util.Counter counts it 0 there, and in every state that never sets it)",
        "weights.scor: feats.py:counter does not hold 'scor' on the start state (did you mean "
        "score?) (its util.Counter counts it 0 there, and in every state that never sets it)")
    assert tune(with_function("phi", {"dots": 1}), tmp_path).notes == ()
    assert problems(with_function("nothing", {"dots": 1}), tmp_path) == [
        "evaluation.features: feats.py:nothing returned NoneType on the start state of "
        "testClassic, not a mapping of feature name to number"]
    assert problems(with_function("absent", {"dots": 1}), tmp_path)[0].startswith(
        "evaluation.features: features=")
    assert problems({"evaluation": {"features": "nowhere.py:phi"}}, tmp_path)[0].startswith(
        "evaluation.features: no such file 'nowhere.py'")


def test_a_feature_function_that_never_answers_is_a_problem_not_a_hang(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tournament import tuneconfig

    (tmp_path / "feats.py").write_text(FEATURES)
    monkeypatch.setattr(tuneconfig, "FEATURE_CHECK_SECONDS", 0.5)  # it never returns at all
    assert problems({"evaluation": {"features": "feats.py:hangs"}, "weights": {"dots": 1}},
                    tmp_path) == [
        "evaluation.features: feats.py:hangs did not load and answer on the start state of "
        "testClassic within 0.5 s"]
    monkeypatch.setattr(tuneconfig, "FEATURE_CHECK_SECONDS", 60.0)
    assert tune({"evaluation": {"features": "feats.py:phi"}, "weights": {"dots": 1}},
                tmp_path).weights[0].name == "dots"


def test_a_feature_file_is_checked_in_a_sandbox_never_in_the_tuners_process(
        tmp_path: Path) -> None:
    """The file may be a student's: its check runs where its games run, in a sandbox that
    shows it nothing of the tuner's but the file. Before, it ran as the tuner's user in a
    child process, where it could read the run's secret and start a process that outlived
    the check."""
    (tmp_path / "feats.py").write_text(FEATURES)
    assert problems({"evaluation": {"features": "feats.py:leaves"}, "weights": {"dots": 1}},
                    tmp_path) == [
        "evaluation.features: feats.py:leaves did not load and answer on the start state of "
        "testClassic: exited with status 3 during the check"]
    # It can neither read the tuner's files nor write beside them.
    secret, escaped = tmp_path / "secret", tmp_path / "escaped"
    secret.write_text("the run's secret")
    (tmp_path / "prying.py").write_text(textwrap.dedent(f"""\
        def phi(state):
            for act in (lambda: open({str(secret)!r}).read(),
                        lambda: open({str(escaped)!r}, "w").write("out")):
                try:
                    act()
                except OSError:
                    continue
                raise SystemExit("it got out")
            return {{"a": 1}}
        """))
    path = list(sys.path)
    assert tune({"evaluation": {"features": "prying.py:phi"}, "weights": {"a": 1}},
                tmp_path).features == f"{tmp_path / 'prying.py'}:phi"
    assert not escaped.exists()
    # A file beside it named as the optimizer's package changes nothing here (nor in the
    # games, which play the file alone, with the installed cma).
    (tmp_path / "cma.py").write_text("raise ImportError('the wrong cma')\n")
    (tmp_path / "mine.py").write_text("import cma\n\ndef phi(state):\n    return {'a': 1}\n")
    assert tune({"evaluation": {"features": "mine.py:phi"}, "weights": {"a": 1}},
                tmp_path).features == f"{tmp_path / 'mine.py'}:phi"
    assert sys.path == path
    loaded = [name for name, module in list(sys.modules.items())
              if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path))]
    assert loaded == []


def test_a_feature_file_that_imports_a_file_beside_it_is_refused(tmp_path: Path) -> None:
    """The run snapshots the feature file alone, so a module beside it (imported when the file
    loads, or when the function is called) would be missing in every game: the check says so
    before any game rather than the run failing them all."""
    (tmp_path / "helpers.py").write_text("def dots(state):\n    return state.getNumFood()\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "more.py").write_text("SCALE = 1\n")
    (tmp_path / "feats.py").write_text(
        "import helpers\n\ndef phi(state):\n    return {'dots': helpers.dots(state)}\n\n"
        "def later(state):\n    from pkg import more\n    return {'dots': more.SCALE}\n\n"
        "def alone(state):\n    import json\n    return {'dots': len(json.dumps(1))}\n")
    # The whole file is read (it is what the games play), not just the function named.
    assert problems({"evaluation": {"features": "feats.py:phi"}, "weights": {"dots": 1}},
                    tmp_path) == [
        "evaluation.features: feats.py:phi imports helpers.py, pkg/ from its folder, but the "
        "games play feats.py alone (the run snapshots that one file): put what it needs in it"]
    # An import made only mid-game (late in a game, in a branch the start state never takes)
    # is read from the source: a call on the start state alone would pass it.
    (tmp_path / "feats.py").write_text(
        "def phi(state):\n    if state.getNumFood() < 3:\n        from pkg.more import SCALE\n"
        "        return {'dots': SCALE}\n    return {'dots': state.getNumFood()}\n")
    assert problems({"evaluation": {"features": "feats.py:phi"}, "weights": {"dots": 1}},
                    tmp_path) == [
        "evaluation.features: feats.py:phi imports pkg/ from its folder, but the games play "
        "feats.py alone (the run snapshots that one file): put what it needs in it"]
    # One with a fallback of its own counts too: the games would take the fallback, and so
    # play another evaluation than the one checked here.
    (tmp_path / "feats.py").write_text(
        "try:\n    import helpers\nexcept ImportError:\n    helpers = None\n\n"
        "def phi(state):\n    return {'dots': 1}\n")
    assert problems({"evaluation": {"features": "feats.py:phi"}, "weights": {"dots": 1}},
                    tmp_path)[0].startswith(
        "evaluation.features: feats.py:phi imports helpers.py from its folder")
    # The standard library's modules play (the sandbox reads them too).
    (tmp_path / "feats.py").write_text(
        "def alone(state):\n    import json\n    return {'dots': len(json.dumps(1))}\n")
    assert tune({"evaluation": {"features": "feats.py:alone"}, "weights": {"dots": 1}},
                tmp_path).weights[0].name == "dots"


def test_a_feature_function_named_by_module_is_its_source_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`module:function` plays as the module's file (snapshotted, sandboxed, keyed by its
    content), found without running any of it, a package's `__init__` included; the
    platform's own module stays as it is (trusted, in-process)."""
    from tournament.optionfiles import module_source

    package = tmp_path / "lib" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise SystemExit('never run')\n")
    (package / "feats.py").write_text(FEATURES)
    (tmp_path / "lib" / "top.py").write_text(FEATURES)
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    assert module_source("pkg.feats") == package / "feats.py"
    assert module_source("top") == tmp_path / "lib" / "top.py"
    assert module_source("top.inner") is None and module_source("nowhere") is None
    assert module_source("pkg..feats") is None
    config = tune({"evaluation": {"features": "pkg.feats:phi"}, "weights": {"dots": 1}},
                  tmp_path)
    assert config.features == f"{package / 'feats.py'}:phi"
    assert problems({"evaluation": {"features": "nowhere:phi"}, "weights": {"dots": 1}},
                    tmp_path) == [
        "evaluation.features: no module 'nowhere' with a Python source file on the import "
        "path; name its file instead (path/to/file.py:phi)"]
    own = tune({"evaluation": {"features": "pacman.agents.evaluation:features"},
                "weights": {"food_left": -1}}, tmp_path)
    assert own.features == "pacman.agents.evaluation:features"


def test_a_file_agent_evaluates_with_its_own_code(tmp_path: Path) -> None:
    (tmp_path / "myAgents.py").write_text(
        "class Tuned:\n    def __init__(self, weights='', depth=2):\n        pass\n\n"
        "class Fixed:\n    def __init__(self, depth=2):\n        pass\n")
    config = tune({"agent": "myAgents.py:Tuned", "evaluation": None,
                   "weights": {"a": 1.0, "b": {"start": 0, "scale": 2}}}, tmp_path)
    assert not config.builtin and config.evaluation == "own"
    assert config.agent == f"{tmp_path / 'myAgents.py'}:Tuned"
    assert dict(config.options({"a": 2.0, "b": 1.5})) == {"weights": "a:2.0;b:1.5"}
    assert problems({"agent": "myAgents.py:Fixed", "weights": {"a": 1.0}}, tmp_path) == [
        "agent: myAgents.py:Fixed's constructor takes no weights option; the tuner builds each "
        "candidate with weights=name:value;name:value",
        "evaluation: myAgents.py:Fixed evaluates with its own code: leave evaluation out (the "
        "tuner passes it weights=name:value;... only), or tune a built-in agent with "
        "evaluation: {features: ...}",
    ]
    assert problems({"agent": "myAgents.py:Tuned", "evaluation": None,
                     "weights": ["a"]}, tmp_path) == [
        "weights.a.start: required: the start of a weight of an agent's own evaluation is not "
        "known"]


def test_results_and_secret_may_not_lie_in_the_tuned_teams_folder(tmp_path: Path) -> None:
    """The tuned team's folder is snapshotted whole for its sandbox: its agent would read the
    run's secret there, and the tuner's own files would change the team's hash at every run
    (so that nothing stored would count). A file agent's snapshot is its file alone, so the
    folder beside a file is fine."""
    team = tmp_path / "team"
    team.mkdir()
    (team / "myAgents.py").write_text(
        "class Tuned:\n    def __init__(self, weights='', depth=2):\n        pass\n")
    (team / "team.yaml").write_text("agent: myAgents.py:Tuned\n")
    own = {"agent": "./team", "evaluation": None, "weights": {"a": 1.0}}
    assert problems({**own, "output": "team/out", "secret_file": "team/secret"},
                    tmp_path) == [
        f"output: {team / 'out'} is inside the folder of the tuned agent ({team}), which its "
        "agent sees and its games are keyed by; put it outside",
        f"secret_file: {team / 'secret'} is inside the folder of the tuned agent ({team}), "
        "which its agent sees and its games are keyed by; put it outside"]
    assert tune({**own, "output": "out"}, tmp_path).output == tmp_path / "out"
    file_agent = {**own, "agent": "team/myAgents.py:Tuned"}
    (team / "team.yaml").unlink()
    assert tune({**file_agent, "output": "team/out"}, tmp_path).output == team / "out"


def tournament(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TOURNAMENT, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_the_command_exits_2_naming_the_problems_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "feats.py").write_text(FEATURES)
    (tmp_path / "bad.yaml").write_text(
        "name: bad\nevaluation: {features: feats.py:raises}\nweights: {dots: 1}\n"
        "protocol: {layout: testClassic, depth: 1}\nbudget: {generations: 1}\n"
        "output: out\n")
    out = tournament("tune", "bad.yaml", cwd=tmp_path)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "bad.yaml: evaluation.features: feats.py:raises raised on the start state" \
        in out.stderr
    assert "Traceback" not in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "feats.py"]
    out = tournament("tune", "missing.yaml", cwd=tmp_path)
    assert out.returncode == 2 and "missing.yaml" in out.stderr


@pytest.mark.parametrize(("name", "games"), [("tune-cs221", 31_200), ("tune-cs221-2", 31_300),
                                                   ("tune-cs221-3", 31_300),
                                                   ("tune-cs221-4", 42_400)])
def test_the_shipped_cs221_files_are_the_cs221_protocol(name: str, games: int) -> None:
    from tournament.tuneconfig import load_tune
    from tournament.tuning import total_games

    config = load_tune(REPO / "tournaments" / f"{name}.yaml")
    protocol = config.protocol
    assert (protocol.layout.name, protocol.ghosts, protocol.num_ghosts, protocol.depth,
            protocol.rules) == ("smallClassic", "RandomGhost", 2, 2, "cs221")
    assert (config.agent, config.evaluation) == ("ExpectimaxAgent", "better")
    assert "score" not in [w.name for w in config.weights]  # it fixes the scale
    # Every weight tuned or pinned: the file replays its run whatever `better` ships.
    assert sorted([*(w.name for w in config.weights), *dict(config.fixed)]) == sorted(
        DEFAULT_WEIGHTS)
    assert total_games(config) == games  # what its comments measure


def test_no_stage_plays_an_earlier_stages_games() -> None:
    """`better`'s weights come from four runs; each stage's verdict is on games no run tuned
    on, and the first stage starts from the hand-set weights (those `contest` changed a few
    of, as `tune-contest.yaml`, the run that tuned `contest`, records)."""
    from tournament.tuneconfig import load_tune
    from tournament.tuning import comparison_seeds, tuning_seeds

    stages = [load_tune(REPO / "tournaments" / f"{name}.yaml")
              for name in ("tune-cs221", "tune-cs221-2", "tune-cs221-3", "tune-cs221-4")]
    for i, later in enumerate(stages):
        for earlier in stages[:i]:
            played = set(tuning_seeds(earlier)) | set(comparison_seeds(earlier))
            assert not set(tuning_seeds(later)) & played
            assert not set(comparison_seeds(later)) & played
    first = stages[0]
    hand_set = {w.name: w.start for w in first.weights
                if w.name not in ("capsules_left", "capsules_in_play", "lost")}
    contest_start = {w.name: w.start
                     for w in load_tune(REPO / "tournaments" / "tune-contest.yaml").weights}
    assert hand_set == {k: contest_start[k] for k in hand_set}


def test_the_shipped_contest_file_is_the_anytime_protocol() -> None:
    """`contest`'s weights were tuned on the strength benchmark's anytime protocol, cut to a
    fixed depth; the file pins every other weight, so it replays that run whatever `contest`
    ships (that it starts from the hand-set weights is checked above, against `better`'s first
    stage)."""
    from tournament.tuneconfig import load_tune
    from tournament.tuning import total_games

    config = load_tune(REPO / "tournaments" / "tune-contest.yaml")
    protocol = config.protocol
    assert (protocol.layout.name, protocol.ghosts, protocol.num_ghosts, protocol.rules) == (
        "contestClassic", "DirectionalGhost", 3, "classic")
    assert (config.agent, config.evaluation) == ("AnytimeAgent", "contest")
    assert dict(config.args)["maxDepth"] == "3"
    fixed = dict(config.fixed)
    assert sorted([*(w.name for w in config.weights), *fixed]) == sorted(CONTEST_WEIGHTS)
    assert fixed["score"] == 1
    assert total_games(config) == 3_480  # what its comments measure
