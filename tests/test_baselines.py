"""The Pacman baselines: the course's values, the exact states they generate, their options."""

from __future__ import annotations

import math
import random
import subprocess
from pathlib import Path

import pytest

from pacman.agents import evaluation
from pacman.agents.anytime_agent import CUTOFF, AnytimeAgent
from pacman.agents.ghosts import DirectionalGhost
from pacman.agents.multiagent import (
    AlphaBetaAgent,
    ExpectimaxAgent,
    MinimaxAgent,
    ReflexAgent,
)
from pacman.game import GameSpec, play
from pacman.games.pacman_game import DIRECTIONAL, PacmanGame, Turn
from pacman.layout import load_layout, parse_layout
from pacman.loader import resolve
from pacman.rules import RUNNING
from pacman.search.anytime import AnytimeSearch
from pacman.search.core import CHANCE, MIN, SearchStats, alphabeta, minimax
from pacman.state import GameState, _make
from tests.commands import PACMAN
from tests.conftest import ROOT


def start(name: str, ghosts: int | None = None, rules: str = "classic") -> GameState:
    return GameState.initial(load_layout(name), ghosts, rules)


def states_along_a_game(name: str, ghosts: int, moves: int, seed: int) -> list[GameState]:
    """Positions of a random game, Pacman to move in each."""
    rng = random.Random(seed)
    state, out = start(name, ghosts), []
    while len(out) < moves and not state.isTerminal():
        out.append(state)
        for agent in range(state.getNumAgents()):
            state = state.generateSuccessor(agent, rng.choice(state.getLegalActions(agent)))
            if state.isTerminal():
                break
    return out


# --- values the course states -----------------------------------------------------------------


@pytest.mark.parametrize(("depth", "value"), [(1, 9), (2, 8), (3, 7), (4, -492)])
def test_minimax_values_of_minimaxClassic(depth: int, value: int) -> None:
    # The CS188 project: "The minimax values of the initial state in the minimaxClassic
    # layout are 9, 8, 7, -492 for depths 1, 2, 3 and 4 respectively."
    for agent in (MinimaxAgent(depth=depth), AlphaBetaAgent(depth=depth)):
        assert agent.decide(start("minimaxClassic")).value == value


# --- the exact states generated -----------------------------------------------------------------


class Recording:
    """A PacmanGame that logs every successor the search asks for. (It wraps one rather than
    subclassing it: in the compiled build, `pacman.fastbuild`, a Python class cannot inherit
    from a compiled one.)"""

    def __init__(self, root: GameState, ghosts: str) -> None:
        self.game = PacmanGame(root, evaluation.scoreEvaluationFunction, ghosts)
        self.start, self.player, self.actions = (
            self.game.start, self.game.player, self.game.actions)
        self.is_terminal, self.utility, self.evaluate, self.plies = (
            self.game.is_terminal, self.game.utility, self.game.evaluate, self.game.plies)
        self.log: list[tuple[int, str, int]] = []

    def successor(self, turn: Turn, action: str) -> Turn:
        nxt = self.game.successor(turn, action)
        self.log.append((turn.agent, action, hash(nxt.state)))
        return nxt


Log = list[tuple[int, str, int]]


def course_search(root: GameState, depth: int, prune: bool) -> tuple[float, Log]:
    """Minimax / alpha-beta as the course defines them, written directly over GameState,
    logging every generated successor in order (what an autograder records)."""
    log: list[tuple[int, str, int]] = []
    n = root.getNumAgents()

    def child(state: GameState, agent: int, action: str) -> GameState:
        nxt = state.generateSuccessor(agent, action)
        log.append((agent, action, hash(nxt)))
        return nxt

    def value(state: GameState, agent: int, d: int, alpha: float, beta: float) -> float:
        if state.isWin() or state.isLose() or d == depth:
            return state.getScore()
        nxt, nd = (0, d + 1) if agent == n - 1 else (agent + 1, d)
        if agent == 0:
            v = -math.inf
            for a in state.getLegalActions(0):
                v = max(v, value(child(state, 0, a), nxt, nd, alpha, beta))
                if prune and v > beta:
                    return v
                alpha = max(alpha, v)
            return v
        v = math.inf
        for a in state.getLegalActions(agent):
            v = min(v, value(child(state, agent, a), nxt, nd, alpha, beta))
            if prune and v < alpha:
                return v
            beta = min(beta, v)
        return v

    return value(root, 0, 0, -math.inf, math.inf), log


@pytest.mark.parametrize(
    ("layout", "ghosts", "depth"),
    [("smallClassic", 2, 2), ("minimaxClassic", 3, 3), ("mediumClassic", 2, 2),
     ("trappedClassic", 2, 3)],
)
def test_searches_generate_exactly_the_course_states(layout: str, ghosts: int, depth: int) -> None:
    for state in states_along_a_game(layout, ghosts, 6, seed=depth):
        for search, prune in ((minimax, False), (alphabeta, True)):
            game = Recording(state, MIN)
            stats = SearchStats()
            decision = search(game, game.start(), game.plies(depth), game.evaluate, stats)
            expected_value, expected_log = course_search(state, depth, prune)
            assert decision.value == expected_value
            assert game.log == expected_log
            assert stats.generated == len(expected_log)


def test_pinned_node_counts() -> None:
    # Regression pins (the order itself is checked against the course definition above).
    counts = []
    for layout, ghosts, depth in (("smallClassic", 2, 2), ("minimaxClassic", 3, 3)):
        for search in (minimax, alphabeta):
            game = PacmanGame(start(layout, ghosts), evaluation.scoreEvaluationFunction)
            stats = SearchStats()
            search(game, game.start(), game.plies(depth), game.evaluate, stats)
            counts.append(stats.generated)
    assert counts == PINNED_COUNTS


PINNED_COUNTS = [72, 44, 1160, 886]  # minimax, alpha-beta; smallClassic d2, minimaxClassic d3


# --- agents never fail ------------------------------------------------------------------------


def agents() -> list[object]:
    return [
        ReflexAgent(),
        MinimaxAgent(depth=1),
        AlphaBetaAgent(depth=2, evalFn="better"),
        ExpectimaxAgent(depth=2, evalFn="better"),
        AnytimeAgent(timeLimit=0.02),
        AnytimeAgent(timeLimit=0.02, mode="expectimax"),
        AnytimeAgent(timeLimit=0.02, mode="alphabeta", evalFn="better"),
    ]


@pytest.mark.parametrize("rules", ["classic", "cs221"])
def test_agents_always_answer_a_legal_action(rules: str) -> None:
    trapped = parse_layout("%%%%%%%\n%G.P.G%\n%%%%%%%", "trapped")
    positions = [GameState.initial(trapped, 2, rules)]
    for layout in ("smallClassic", "trappedClassic", "testClassic"):
        positions += [GameState.initial(s.layout, None, rules) for s in states_along_a_game(
            layout, 2, 1, seed=0)]
        positions += states_along_a_game(layout, 2, 8, seed=7)
    for agent in agents():
        for state in positions:
            if state.ruleset != rules:
                continue
            action = agent.getAction(state)  # type: ignore[attr-defined]
            assert action in state.getLegalActions(0), (type(agent).__name__, action)


def test_expectimax_models_ghosts_as_chance_and_minimax_as_adversaries() -> None:
    state = start("smallClassic", 2)
    assert PacmanGame(state, evaluation.better, CHANCE).player(Turn(state, 1)) == CHANCE
    # Expectimax's value is never below minimax's: a uniform ghost is no worse than the worst.
    for s in states_along_a_game("smallClassic", 2, 5, seed=3):
        assert ExpectimaxAgent(depth=1).decide(s).value >= MinimaxAgent(depth=1).decide(s).value


def scared_states() -> list[GameState]:
    """Positions on contestClassic with the ghosts near: as played, with every ghost scared, and
    with the scared ghosts one half-speed step on (between cells, where only straight on is
    legal)."""
    out = []
    for s in states_along_a_game("contestClassic", 3, 12, seed=4):
        out.append(s)
        scared = tuple((pos, facing, 40 if i else timer)
                       for i, (pos, facing, timer) in enumerate(s.agents))
        s = _make(s.board, scared, s.food_mask, s.getNumFood(), tuple(s.getCapsules()),
                  int(s.getScore()), RUNNING)
        out.append(s)
        for i in (1, 2, 3):
            s = s.generateSuccessor(i, s.getLegalActions(i)[0])
        out.append(s)
    assert any(pos[0] % 1 or pos[1] % 1 for s in out for pos, _, _ in s.agents[1:])
    return out


def test_directional_model_is_the_ghosts_own_distribution() -> None:
    for s in scared_states():
        game = PacmanGame(s, evaluation.better, DIRECTIONAL)
        for i in (1, 2, 3):
            turn = Turn(s, i)
            assert game.player(turn) == CHANCE
            dist = DirectionalGhost(i).getDistribution(s)
            assert dict(game.chances(turn)) == dict(dist)
            assert [a for a, _ in game.chances(turn)] == list(dist)


def test_directional_model_follows_far_ghosts_along_their_likeliest_moves() -> None:
    for s in scared_states():
        near = PacmanGame(s, evaluation.better, DIRECTIONAL)
        far = PacmanGame(s, evaluation.better, DIRECTIONAL, focus=0)
        for i in (1, 2, 3):
            full = dict(near.chances(Turn(s, i)))
            likeliest = max(full.values())
            pruned = dict(far.chances(Turn(s, i)))
            assert set(pruned) == {a for a, p in full.items() if p == pytest.approx(likeliest)}
            assert sum(pruned.values()) == pytest.approx(1.0)
    # Within `focus` steps (the boundary included) a ghost keeps its whole distribution.
    s = start("contestClassic", 3)
    for i in (1, 2, 3):
        (gx, gy), (px, py) = s.getGhostPosition(i), s.getPacmanPosition()
        steps = int(abs(gx - px) + abs(gy - py))
        full = PacmanGame(s, evaluation.better, DIRECTIONAL).chances(Turn(s, i))
        assert PacmanGame(s, evaluation.better, DIRECTIONAL, focus=steps).chances(
            Turn(s, i)) == full
        pruned = PacmanGame(s, evaluation.better, DIRECTIONAL, focus=steps - 1).chances(
            Turn(s, i))
        assert len(pruned) < len(full) or len(full) == 1
    # Uniform ghosts keep uniform chances.
    s = start("contestClassic", 3)
    assert PacmanGame(s, evaluation.better, CHANCE).chances(Turn(s, 1)) == [
        (a, 1 / len(s.getLegalActions(1))) for a in s.getLegalActions(1)]
    with pytest.raises(ValueError, match="'directional'"):
        PacmanGame(s, evaluation.better, "paranoid")


def test_anytime_directional_equals_a_hand_written_weighted_expectimax() -> None:
    def value(game: PacmanGame, turn: Turn, plies: int) -> float:
        if game.is_terminal(turn) or plies == 0:
            return game.evaluate(turn)
        if turn.agent == 0:
            return max(value(game, game.successor(turn, a), plies - 1)
                       for a in game.actions(turn))
        return sum(p * value(game, game.successor(turn, a), plies - 1)
                   for a, p in game.chances(turn))

    for s in scared_states()[::3]:
        game = PacmanGame(s, evaluation.contest, DIRECTIONAL, focus=3)
        result = AnytimeSearch[Turn, str]("expectimax").search(
            game, game.start(), math.inf, game.evaluate, step=game.num_agents,
            max_depth=game.plies(1),
        )
        assert result.value == pytest.approx(value(game, game.start(), game.plies(1)))


def test_anytime_table_keys_are_flat_and_tell_states_apart() -> None:
    import gc

    from pacman.games.pacman_game import turn_key

    turns = []
    for s in scared_states():
        for agent in range(s.getNumAgents()):
            turns.append(Turn(s, agent))
            for a in s.getLegalActions(agent):
                turns.append(Turn(s.generateSuccessor(agent, a), agent))
    keys = [turn_key(t) for t in turns]
    for k in keys:
        assert all(not isinstance(part, tuple | list) for part in k), k
    gc.collect()  # the collector stops tracking them at the first collection they survive
    assert not any(gc.is_tracked(k) for k in keys)
    # Equal keys exactly when the positions are equal (the same state and agent to move).
    by_key: dict[tuple[object, ...], Turn] = {}
    for t, k in zip(turns, keys):
        other = by_key.setdefault(k, t)
        assert (other.state, other.agent) == (t.state, t.agent)
    assert len(by_key) == len(set(turns)) > 100


def test_anytime_agent_to_a_fixed_depth_equals_alphabeta() -> None:
    for s in states_along_a_game("smallClassic", 2, 6, seed=11):
        game = PacmanGame(s, evaluation.better, MIN)
        plain = alphabeta(game, game.start(), game.plies(2), game.evaluate)
        deep = AnytimeSearch[Turn, str]("alphabeta").search(
            game, game.start(), math.inf, game.evaluate, step=game.num_agents,
            max_depth=game.plies(2),
        )
        assert deep.value == pytest.approx(plain.value) and deep.depth == game.plies(2)


# --- options ---------------------------------------------------------------------------------


def test_options_are_checked_with_their_name() -> None:
    with pytest.raises(ValueError, match="depth: expected a whole number"):
        MinimaxAgent(depth="deep")
    with pytest.raises(ValueError, match="depth: expected at least 1"):
        ExpectimaxAgent(depth="0")
    with pytest.raises(ValueError, match="did you mean better"):
        ExpectimaxAgent(evalFn="beter")
    with pytest.raises(ValueError, match="timeLimit: expected a positive number"):
        AnytimeAgent(timeLimit="-1")
    with pytest.raises(ValueError, match=r"mode: expected one of .*directional"):
        AnytimeAgent(mode="paranoid")
    with pytest.raises(ValueError, match="focus: expected a whole number"):
        AnytimeAgent(focus="near")
    agent = AnytimeAgent()
    assert (agent.mode, agent.focus, agent.evaluationFunction) == (
        "directional", 6, evaluation.contest)
    assert AnytimeAgent(focus="3").focus == 3
    for bad in ("-0.1", "1", "nan", "often"):
        with pytest.raises(ValueError, match="cutoff: expected"):
            AnytimeAgent(cutoff=bad)
    assert agent.cutoff == CUTOFF and agent.searcher.cutoff == CUTOFF
    assert AnytimeAgent(cutoff="0").searcher.cutoff == 0.0
    # Measured with the directional model only: the other modes search every line.
    assert AnytimeAgent(mode="expectimax").cutoff == AnytimeAgent(mode="alphabeta").cutoff == 0
    assert AnytimeAgent(mode="expectimax", cutoff="0.05").cutoff == 0.05


def test_the_anytime_agents_cutoff_spares_unlikely_lines_at_the_same_depth() -> None:
    # contestClassic's start: every ghost within `focus`, so each has its whole distribution.
    s = start("contestClassic", 3)
    nodes = {}
    for cutoff in ("0", None):
        agent = (AnytimeAgent(timeLimit=1000, maxDepth=4) if cutoff is None else
                 AnytimeAgent(timeLimit=1000, maxDepth=4, cutoff=cutoff))
        agent.getAction(s)
        assert agent.last is not None and agent.last.depth == 4 * 4
        nodes[cutoff] = agent.last.stats.nodes
    assert nodes[None] < nodes["0"] / 2, nodes
    with pytest.raises(ValueError, match=r"weights=\.\.\. applies to evalFn=better or "):
        ExpectimaxAgent(evalFn="score", weights="w.yaml")


def test_an_evaluation_error_is_blamed_on_the_option_where_it_was_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not on the option its message happens to start with: a weights file named `evalFn.yaml`
    is the weights' fault (a config puts it at `args.weights`)."""
    from pacman.errors import OptionError

    monkeypatch.chdir(tmp_path)
    for name in ("evalFn.yaml", "features.yaml"):
        (tmp_path / name).write_text("food_lef: 1\n")
        with pytest.raises(OptionError) as caught:
            ExpectimaxAgent(evalFn="better", weights=name)
        assert (caught.value.option, caught.value.problem) == (
            "weights", f"{name}: unknown feature 'food_lef' (did you mean food_left?); "
            "features: " + ", ".join(evaluation.FEATURES))
    cases = [
        ({"evalFn": "bettr"}, "evalFn"),
        ({"evalFn": "missing.py:phi"}, "evalFn"),
        ({"evalFn": "score", "weights": "food_left:1"}, "weights"),
        ({"weights": "food_left:x"}, "weights"),
        ({"features": "missing.py:phi", "weights": "a:1"}, "features"),
        ({"features": "weights.py:phi"}, "features"),
    ]
    for options, option in cases:
        with pytest.raises(OptionError) as caught:
            ExpectimaxAgent(**options)
        assert caught.value.option == option, options


def test_evalFn_from_a_file_and_a_module(tmp_path: Path) -> None:
    (tmp_path / "evals.py").write_text("def twice(state):\n    return 2 * state.getScore()\n")
    agent = MinimaxAgent(evalFn=f"{tmp_path / 'evals.py'}:twice", depth=1)
    assert agent.evaluationFunction.__name__ == "twice"
    agent = MinimaxAgent(evalFn="pacman.agents.evaluation:scoreEvaluationFunction", depth=1)
    assert agent.evaluationFunction is evaluation.scoreEvaluationFunction
    with pytest.raises(ValueError, match="defines no function 'nope'"):
        MinimaxAgent(evalFn=f"{tmp_path / 'evals.py'}:nope")
    with pytest.raises(ValueError, match=r"evalFn=no\.such\.module:f"):
        MinimaxAgent(evalFn="no.such.module:f")


# --- the better evaluation --------------------------------------------------------------------


def test_features_on_a_hand_made_position() -> None:
    layout = parse_layout(
        "%%%%%%%%%\n"
        "%P  . o %\n"
        "% %%%%% %\n"
        "%G     .%\n"
        "%%%%%%%%%",
        "hand",
    )
    state = GameState.initial(layout, 1)
    phi = evaluation.features(state)
    assert phi["food_left"] == 2 and phi["capsules_left"] == 1
    assert phi["nearest_food"] == 3  # (4, 3) is three steps east of Pacman at (1, 3)
    assert phi["capsule_distance"] == 5  # the capsule at (6, 3)
    # The ghost at (1, 1) is two steps below: one ghost move to (1, 2), one onto Pacman.
    assert phi["ghost_threat"] == 1 and phi["edible_ghosts"] == 0
    assert phi["score"] == 0 and phi["won"] == phi["lost"] == 0
    # Eat the capsule: the ghost is scared and reachable (timer 40 > distance), so edible.
    s = state
    for action in ("East",) * 5:
        s = s.generateSuccessor(0, action)
        s = s.generateSuccessor(1, s.getLegalActions(1)[0])
    phi = evaluation.features(s)
    assert phi["capsules_left"] == 0 and phi["edible_ghosts"] == 1
    assert phi["capsule_distance"] == 0  # none left
    assert phi["edible_distance"] == evaluation.maze_distances(layout).between(
        s.getPacmanPosition(), s.getGhostPosition(1))


def test_capsules_in_play_count_only_while_the_game_goes_on() -> None:
    layout = parse_layout("%%%%%%%\n%o P.G%\n%%%%%%%", "row")
    state = GameState.initial(layout, 1)
    assert evaluation.features(state)["capsules_in_play"] == 1
    won = state.generateSuccessor(0, "East")
    assert won.isWin()
    phi = evaluation.features(won)
    assert phi["capsules_left"] == 1 and phi["capsules_in_play"] == 0
    lost = GameState.initial(parse_layout("%%%%%%\n%GPo.%\n%%%%%%", "lost"), 1)
    lost = lost.generateSuccessor(0, "West")
    assert lost.isLose()
    phi = evaluation.features(lost)
    assert phi["capsules_left"] == 1 and phi["capsules_in_play"] == 0


@pytest.mark.parametrize("depth", [1, 2])
def test_better_eats_a_reachable_scared_ghost_before_the_last_dot(depth: int) -> None:
    """Beside the last dot with a scared ghost three steps away: the win's 510 points are
    within the search's horizon and the ghost's 200 beyond it, so without `edible_at_win`
    Pacman takes the win and leaves the ghost."""
    layout = parse_layout("%%%%%%%%%\n%G  oP.%%\n%%%%%%%%%", "row")
    s = GameState.initial(layout, 1, "cs221")
    for agent, action in ((0, "West"), (1, "East"), (0, "East"), (1, "East")):
        s = s.generateSuccessor(agent, action)  # the capsule eaten, back beside the dot
    assert s.getNumFood() == 1 and s.getGhostState(1).scaredTimer > 3
    won = s.generateSuccessor(0, "East")
    assert won.isWin() and evaluation.features(won)["edible_at_win"] == 1
    assert evaluation.features(s)["edible_at_win"] == 0  # the game goes on
    assert ExpectimaxAgent(evalFn="better", depth=depth).getAction(s) == "West"
    greedy = ExpectimaxAgent(evalFn="better", depth=depth, weights="edible_at_win:0")
    assert greedy.getAction(s) == "East"


def test_a_capsule_beyond_the_last_dot_is_not_held() -> None:
    """Eating the last dot wins, so a capsule Pacman reaches only over it can scare no ghost
    any more. Held at 600 (above the win's 510), it made the win a loss, and Pacman waited
    beside the last dot for ever (a CS188 game on smallClassic that never ended)."""
    beyond = GameState.initial(
        parse_layout("%%%%%%%%%%%%\n%G      P.o%\n%%%%%%%%%%%%", "beyond"), 1)
    assert evaluation.features(beyond)["capsules_in_play"] == 0
    assert evaluation.features(beyond)["capsules_left"] == 1
    assert ExpectimaxAgent(evalFn="better", depth=2).getAction(beyond) == "East"  # the win
    # Reached without stepping on the dot, it is still in play: Pacman keeps it for the ghost
    # rather than win with it unused.
    before = GameState.initial(
        parse_layout("%%%%%%%%%%%%\n%G     oP.%%\n%%%%%%%%%%%%", "before"), 1)
    assert evaluation.features(before)["capsules_in_play"] == 1
    assert ExpectimaxAgent(evalFn="better", depth=2).getAction(before) != "East"


def test_capsules_count_only_in_a_game_with_ghosts_to_scare() -> None:
    """With no ghost to scare, a capsule is a cell like any other: kept or sought, it would
    hold Pacman back from the dots (`contest` waited beside one until the move limit on
    mediumClassic, contestClassic and originalClassic, where some dots lie beyond a capsule)."""
    layout = parse_layout("%%%%%%%%\n%G o.P.%\n%%%%%%%%", "row")
    with_ghost = evaluation.features(GameState.initial(layout, 1))
    assert (with_ghost["capsules_left"], with_ghost["capsules_in_play"],
            with_ghost["capsule_distance"]) == (1, 1, 2)
    alone = evaluation.features(GameState.initial(layout, 0))
    assert (alone["capsules_left"], alone["capsules_in_play"], alone["capsule_distance"]) == (
        0, 0, 0)
    assert alone["food_left"] == with_ghost["food_left"] == 2


#: The baselines' linear evaluations as their agents play them (`contest` is the anytime
#: agent's, here stopped at 2 rounds with a time limit it never reaches, so the games are the
#: same on any machine).
LINEAR_BASELINES = {
    "better": ("ExpectimaxAgent", (("evalFn", "better"), ("depth", "2"))),
    "contest": ("AnytimeAgent", (("evalFn", "contest"), ("maxDepth", "2"), ("timeLimit", "30"))),
}


@pytest.mark.parametrize("rules", ["classic", "cs221"])
@pytest.mark.parametrize("evaluation_name", ["better", "contest"])
@pytest.mark.parametrize(
    "name", ["smallClassic", "mediumClassic", "contestClassic", "powerClassic", "originalClassic"])
def test_linear_baselines_finish_a_game_with_no_ghost_to_eat(
    evaluation_name: str, name: str, rules: str
) -> None:
    """With no ghost to eat, nothing may hold Pacman back from the dots. Before capsules
    counted only in games with ghosts, they did: with `capsules_in_play` above the win's 510
    points, `better` stood beside the last dots until the move limit; `contest`'s hand-set
    weights did the same with powerClassic's eight capsules; and `contest`, which keeps
    capsules for ghosts to come near, waited beside a capsule on the only way to some dots
    (mediumClassic, contestClassic, originalClassic), or beside one on smallClassic with a
    `capsule_distance` steeper than `nearest_food`."""
    agent, args = LINEAR_BASELINES[evaluation_name]
    spec = GameSpec(layout=load_layout(name), pacman=resolve(agent, args),
                    ghost=resolve("RandomGhost", kind="ghost"), num_ghosts=0, seed=3,
                    ruleset=rules, max_moves=1500)
    result = play(spec)
    assert result.outcome == "win", (result.outcome, result.score, result.moves)


def test_contest_weights_keep_capsules_and_price_death(tmp_path: Path) -> None:
    assert list(evaluation.CONTEST_WEIGHTS) == list(evaluation.FEATURES)
    weights = evaluation.CONTEST_WEIGHTS
    # A capsule is kept, not spent: eating one with no ghost near loses both capsule features.
    assert weights["capsules_in_play"] + weights["capsules_left"] > 0
    assert weights["lost"] < 0
    weights_file = tmp_path / "w.yaml"
    weights_file.write_text("lost: -5000\n")
    custom = evaluation.resolve_evaluation("contest", str(weights_file))
    expected = evaluation.CONTEST_WEIGHTS | {"lost": -5000.0}
    for s in states_along_a_game("contestClassic", 3, 8, seed=2):
        phi = evaluation.features(s)
        assert custom(s) == pytest.approx(sum(expected[k] * v for k, v in phi.items()))
        assert evaluation.resolve_evaluation("contest")(s) == pytest.approx(
            sum(evaluation.CONTEST_WEIGHTS[k] * v for k, v in phi.items()))


def test_better_is_the_dot_product_of_features_and_weights(tmp_path: Path) -> None:
    weights = tmp_path / "w.yaml"
    weights.write_text("nearest_food: -7\nlost: -1000\n")
    custom = evaluation.resolve_evaluation("better", str(weights))
    expected_weights = evaluation.DEFAULT_WEIGHTS | {"nearest_food": -7.0, "lost": -1000.0}
    for s in states_along_a_game("smallClassic", 2, 10, seed=5):
        phi = evaluation.features(s)
        assert custom(s) == pytest.approx(sum(expected_weights[k] * v for k, v in phi.items()))
        assert evaluation.better(s) == pytest.approx(
            sum(evaluation.DEFAULT_WEIGHTS[k] * v for k, v in phi.items()))


@pytest.mark.parametrize(
    ("text", "message"),
    [("nearest_fod: 1\n", "unknown feature 'nearest_fod' (did you mean nearest_food?)"),
     ("score: high\n", "score: expected a number"),
     ("- 1\n", "expected a mapping"),
     ("score: [\n", "invalid YAML"),
     ("score: &w 1\nlost: *w\n", "line 1, column 8: an anchor (&name) is not allowed"),
     # Keys YAML reads as other than text: the compiled build raised a TypeError here.
     ("1: 2\n", "unknown feature 1;"),
     ("true: 1\n", "unknown feature True;"),
     ("~: 1\n", "unknown feature None;"),
     # Finite, but w . phi would not be.
     ("food_left: 1e308\n", "food_left: 1e+308 is beyond 1e+12 in size")],
)
def test_weight_file_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        evaluation.load_weights(path)
    assert message in str(info.value) and str(path) in str(info.value)


def test_weights_of_a_feature_function_are_names_and_bounded_numbers(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text("1.5: 2\n")
    with pytest.raises(ValueError, match=r"1\.5 is not a feature name"):
        evaluation.load_weights(path, base=None)
    with pytest.raises(ValueError, match=r"weights: mine: -1e\+13 is beyond 1e\+12"):
        evaluation.parse_weights_text("mine:-1e13", base=None)
    assert evaluation.parse_weights_text("mine:-1e12", base=None) == {"mine": -1e12}


# --- from the command line --------------------------------------------------------------------


def pacman(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PACMAN, *args], cwd=cwd, capture_output=True, text=True,
        timeout=300,
    )


def test_cli_plays_the_baselines() -> None:
    out = pacman("-l", "smallClassic", "-p", "ExpectimaxAgent", "-a", "evalFn=better", "-q",
                 "-n", "3", "--seed", "1")
    assert out.returncode == 0, out.stderr
    assert "Win Rate:" in out.stdout and "Average Score:" in out.stdout
    out = pacman("-l", "smallClassic", "-p", "AlphaBetaAgent", "-a", "depth=3", "-q", "-n",
                 "1", "--seed", "1", "--json")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [(["-p", "MinimaxAgent", "-a", "depth=deep"], "depth: expected a whole number"),
     (["-p", "ExpectimaxAgent", "-a", "evalFn=beter"], "did you mean better"),
     (["-p", "ExpectimaxAgent", "-a", "weights=/no/such.yaml,evalFn=better"],
      "/no/such.yaml: no such file"),
     (["-p", "AnytimeAgent", "-a", "timeLimit=soon"], "timeLimit: expected a number")],
)
def test_cli_option_errors_exit_2(args: list[str], message: str) -> None:
    out = pacman("-l", "smallClassic", "-q", "-n", "1", *args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def _trapped(rows: list[str]) -> float:
    from pacman.agents.evaluation import FEATURES, phi
    from pacman.layout import parse_layout
    from pacman.state import GameState

    state = GameState.initial(parse_layout("\n".join(rows), name="trap"))
    return phi(state)[FEATURES.index("trapped")]


def test_trapped_in_a_corridor_with_a_ghost_coming() -> None:
    assert _trapped(["%%%%%%%%", "%P    G%", "%%%%%%%%"]) == 1
    # The same corridor, the ghost too far to matter.
    assert _trapped(["%%%%%%%%%%%%", "%P        G%", "%%%%%%%%%%%%"]) == 0


def test_not_trapped_in_the_open_but_trapped_in_a_dead_end_room() -> None:
    rows = ["%%%%%%%%%%%",
            "%         %",
            "%    P    %",
            "%         %",
            "%       G %",
            "%%%%%%%%%%%"]
    assert _trapped(rows) == 0
    # A small room off a bigger maze, the ghost in its only way out: the room's crossings
    # are no escape.
    rows = ["%%%%%%%%%%%%%",
            "%  %%%%     %",
            "%P    G     %",
            "%  %%%%     %",
            "%%%%%%%%%%%%%"]
    assert _trapped(rows) == 1


# --- the features against their plain definitions ---------------------------------------------
#
# `phi` reads precomputed tables (distance rings for the nearest food, a memo of the `trapped`
# test): here every feature is recomputed from the definitions in evaluation.py's docstring,
# with a breadth-first search per question, on states of random games (scared ghosts, ghosts
# between cells, won and lost states included).


def plain_distances(layout: object, source: tuple[int, int]) -> dict[tuple[int, int], int]:
    neighbours = layout.neighbours  # type: ignore[attr-defined]
    dist, frontier = {source: 0}, [source]
    while frontier:
        nxt = []
        for cell in frontier:
            for _, n in neighbours[cell]:
                if n not in dist:
                    dist[n] = dist[cell] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


def plain_features(s: GameState) -> dict[str, float]:
    layout = s.layout
    far = 1 << 20
    px, py = s.getPacmanPosition()
    pacman = (int(px), int(py))
    mine = plain_distances(layout, pacman)
    food = [c for c in s.getFood().asList()]
    edible = edible_distance = threats = 0
    danger = []
    for ghost in s.getGhostStates():
        gx, gy = ghost.getPosition()  # type: ignore[misc]
        cell = (int(gx + 0.5), int(gy + 0.5))
        d = mine.get(cell, far)
        timer = ghost.scaredTimer
        if timer <= d <= evaluation.DANGER_RADIUS:
            danger.append(cell)
        if timer > d:
            edible += 1
            edible_distance += d
        elif timer == 0 and d <= evaluation.THREAT_MOVES + 1:
            moves = s.board.ghost_steps.get(((gx, gy), ghost.getDirection()))
            reach = (1 + min(mine.get((int(x + 0.5), int(y + 0.5)), far)
                             for x, y in moves.values()) if moves else d)
            threats += reach <= evaluation.THREAT_MOVES
    escapes = evaluation.escape_cells(layout)
    theirs = [plain_distances(layout, c) for c in danger]
    trapped = bool(danger) and not any(
        all(t.get(j, far) > mine.get(j, far) for t in theirs) for j in escapes)
    over = s.isWin() or s.isLose()
    capsules = s.getCapsules() if s.getNumAgents() > 1 else []  # they scare ghosts, if any
    usable = capsules
    if len(food) == 1:  # eating it wins: only capsules reached without it can still be used
        walls = s.getWalls()
        reach, todo = {pacman}, [pacman]
        while todo:
            x, y = todo.pop()
            for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if not walls[nxt[0]][nxt[1]] and nxt != food[0] and nxt not in reach:
                    reach.add(nxt)
                    todo.append(nxt)
        usable = [c for c in capsules if c in reach]
    finishing = 0
    if (trapped or threats) and not over and 0 < len(food) <= evaluation.FINISH_DOTS:
        ghosts = [((int(g.getPosition()[0] + 0.5), int(g.getPosition()[1] + 0.5)),  # type: ignore[index]
                   g.scaredTimer) for g in s.getGhostStates()]
        ghosts += [((int(g.start.pos[0]), int(g.start.pos[1])), 0)  # back there if eaten
                   for g in s.getGhostStates() if g.scaredTimer > 0]
        finishing, here, clock, left = 1, pacman, 0, list(food)
        while left and finishing:
            around = plain_distances(layout, here)
            nearest = min(left, key=lambda c: around.get(c, far))
            clock += around.get(nearest, far)
            if any(max(timer, plain_distances(layout, cell).get(nearest, far)) <= clock
                   for cell, timer in ghosts):
                finishing = 0
            left.remove(nearest)
            here = nearest
    return {
        "score": s.getScore(), "food_left": len(food),
        "nearest_food": min((mine[c] for c in food if c in mine), default=0),
        "capsules_left": len(capsules),
        "capsules_in_play": 0 if over else len(usable),
        "capsule_distance": min((mine[c] for c in capsules if c in mine), default=0),
        "edible_ghosts": edible, "edible_distance": edible_distance,
        "edible_with_capsule": edible * (0 if over else len(usable)),
        "edible_at_win": edible if s.isWin() else 0,
        "ghost_threat": threats, "trapped": int(trapped),
        "won": int(s.isWin()), "lost": int(s.isLose()),
        "trapped_finishing": int(trapped) * finishing, "threat_finishing": threats * finishing,
    }


def every_state_of_random_games(name: str, ghosts: int, games: int, seed: int) -> list[GameState]:
    """Every state of `games` games (any agent to move next) where Pacman heads for the
    nearest capsule while one is left, at random otherwise, so ghosts are scared at times."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        state = start(name, ghosts)
        out.append(state)
        while not state.isTerminal():
            agent = len(out) % state.getNumAgents()  # any agent may come next: all states
            legal = state.getLegalActions(agent)
            action = rng.choice(legal)
            if agent == 0 and state.getCapsules() and rng.random() < 0.8:
                def to_capsule(a: str, s: GameState = state) -> int:
                    cell = s.generateSuccessor(0, a).getPacmanPosition()
                    here = plain_distances(s.layout, (int(cell[0]), int(cell[1])))
                    return min(here.get(c, 1 << 20) for c in s.getCapsules())
                action = min(legal, key=to_capsule)
            state = state.generateSuccessor(agent, action)
            out.append(state)
    return out


@pytest.mark.parametrize(("name", "ghosts", "games"), [
    ("smallClassic", 2, 6), ("mediumClassic", 2, 6), ("contestClassic", 3, 6),
    ("originalClassic", 4, 2)])
def test_features_match_their_plain_definitions(name: str, ghosts: int, games: int) -> None:
    states = every_state_of_random_games(name, ghosts, games, seed=len(name))
    assert any(s.isWin() or s.isLose() for s in states)
    assert any(t for s in states for _, _, t in s.agents[1:])  # scared ghosts were seen
    seen = {"trapped": set(), "ghost_threat": set(), "edible_ghosts": set(),
            "edible_with_capsule": set()}
    for s in states:
        expected = plain_features(s)
        assert evaluation.features(s) == expected
        for feature, values in seen.items():
            values.add(expected[feature])
    # Each ghost feature took both values: the comparison covered its branches.
    assert all(values >= {0, 1} for values in seen.values()), seen


def test_finishing_lifts_the_dangers_only_where_pacman_eats_the_last_dots_first() -> None:
    """The last dots in a dead end, a ghost behind Pacman: he is trapped, and finishing (he
    reaches each dot before the ghost can), so contest's weights price no danger; with the
    ghost ahead of him, or one dot more than `FINISH_DOTS`, the danger stands."""
    def finishing(rows: list[str]) -> tuple[float, float, float]:
        s = GameState.initial(parse_layout("\n".join(rows), "pocket"))
        f = evaluation.features(s)
        assert f == plain_features(s)
        return f["trapped"], f["trapped_finishing"], f["threat_finishing"]

    behind = ["%%%%%%%%%%%",
              "%G   P...%%",
              "%%%%%%%%%%%"]
    assert finishing(behind) == (1, 1, 0)
    close = ["%%%%%%%%%%",
             "% GP ...%%",
             "%%%%%%%%%%"]
    assert finishing(close) == (1, 1, 1)  # one step behind him, and still too late
    ahead = ["%%%%%%%%%%",
             "%  P .G.%%",
             "%%%%%%%%%%"]
    assert finishing(ahead)[1:] == (0, 0)
    many = ["%%%%%%%%%%%",
            "%G P .....%",
            "%%%%%%%%%%%"]
    assert finishing(many) == (1, 0, 0)
    # A scared ghost on his way is eaten as he passes, and is back at once at its start,
    # beside the last dot, unscared (the review of this feature's first version).
    from pacman.state import _restore

    respawn = parse_layout("%%%%%%%%%%%%%\n%G  P     .G%\n%%%%%%%%%%%%%", "respawn")
    start = GameState.initial(respawn)
    agents = (*start.agents[:2], ((7, 1), "West", 30))  # ghost 2, scared, on his way
    s = _restore(respawn, "classic", agents, start.food_mask, 1, (), 0, 0, 0)
    f = evaluation.features(s)
    assert f == plain_features(s) and f["trapped"] == 1 and f["trapped_finishing"] == 0
    weights = evaluation.CONTEST_WEIGHTS
    assert weights["trapped_finishing"] == -weights["trapped"]
    assert weights["threat_finishing"] == -weights["ghost_threat"]
    assert evaluation.DEFAULT_WEIGHTS["trapped_finishing"] == 0  # `better` is as it was


def test_a_full_trapped_memo_starts_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluation, "TRAPPED_MEMO", 5)
    evaluation._layout_tables.cache_clear()
    states = every_state_of_random_games("mediumClassic", 2, games=2, seed=9)
    memo = evaluation._layout_tables(states[0].layout).trapped
    largest = 0
    for s in states:
        assert evaluation.features(s)["trapped"] == plain_features(s)["trapped"]
        largest = max(largest, len(memo))
    assert largest == 5
    evaluation._layout_tables.cache_clear()
