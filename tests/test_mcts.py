"""Monte Carlo tree search: the generic search on tiny games with known answers, and the
Pacman agent on real positions."""

from __future__ import annotations

import gc
import random

import pytest

from pacman.agents.ghosts import RandomGhost
from pacman.agents.mcts_agent import MCTSAgent
from pacman.game import GameSpec, play
from pacman.games.pacman_game import PacmanGame
from pacman.games.tictactoe import TicTacToe, parse_position
from pacman.layout import load_layout, parse_layout
from pacman.loader import AgentRef
from pacman.search.core import CHANCE, MAX, MIN
from pacman.search.mcts import mcts
from pacman.state import GameState
from tests.clock import Ticking

# --- tiny games on the protocol ------------------------------------------------------------


class Nim:
    """Take 1, 2 or 3 stones; whoever takes the last one wins. A state is (stones, MAX to move).
    From n stones the winning move takes n % 4 (none wins when n % 4 == 0)."""

    def __init__(self, stones: int) -> None:
        self.stones = stones

    def start(self):
        return (self.stones, True)

    def player(self, state):
        return MAX if state[1] else MIN

    def actions(self, state):
        return [k for k in (1, 2, 3) if k <= state[0]]

    def successor(self, state, action):
        return (state[0] - action, not state[1])

    def is_terminal(self, state):
        return state[0] == 0

    def utility(self, state):
        return -1.0 if state[1] else 1.0  # the player who just moved took the last stone


class TwoPly:
    """MAX picks a branch, then the opponent (MIN or CHANCE) picks a leaf of known value.

    Branch "safe" is worth 50 whatever happens; branch "greedy" averages 67 but MIN can hold it
    to 0: minimax takes "safe", expectimax "greedy". Values are large and unnormalised.
    """

    LEAVES = {"safe": (50.0, 50.0, 50.0), "greedy": (100.0, 0.0, 100.0)}

    def __init__(self, opponent: str) -> None:
        self.opponent = opponent

    def start(self):
        return ()

    def player(self, state):
        return MAX if len(state) == 0 else self.opponent

    def actions(self, state):
        return ["safe", "greedy"] if len(state) == 0 else [0, 1, 2]

    def successor(self, state, action):
        return (*state, action)

    def is_terminal(self, state):
        return len(state) == 2

    def utility(self, state):
        return self.LEAVES[state[0]][state[1]]


@pytest.mark.parametrize("stones", [5, 6, 7, 9, 10, 11])
def test_nim_winning_move_is_found(stones):
    game = Nim(stones)
    result = mcts(game, game.start(), playouts=2000, rng=random.Random(stones))
    assert result.action == stones % 4
    assert result.value > 0.5  # the winning line is recognised as a win


def test_min_nodes_minimise_and_chance_nodes_average():
    game = TwoPly(MIN)
    result = mcts(game, game.start(), playouts=400, rng=random.Random(1))
    assert result.action == "safe"
    by_action = {s.action: s for s in result.actions}
    assert by_action["safe"].visits > by_action["greedy"].visits
    assert by_action["greedy"].mean < 30  # MIN's replies converge on the 0

    game = TwoPly(CHANCE)
    result = mcts(game, game.start(), playouts=400, rng=random.Random(1))
    assert result.action == "greedy"
    by_action = {s.action: s for s in result.actions}
    assert by_action["greedy"].mean == pytest.approx(67, abs=15)
    # Chance children stay in the tree, one per sampled action.
    greedy = result.root.child("greedy")
    assert greedy is not None and greedy.player == CHANCE
    assert sorted(a for a, _ in greedy.expanded()) == [0, 1, 2]


def test_tictactoe_forced_win_and_forced_block():
    game = TicTacToe()
    # X to move wins at square 2 at once (O threatens to win at square 5).
    win = parse_position("XX.OO....", "X")
    for seed in range(5):
        result = mcts(game, win, playouts=200, rng=random.Random(seed))
        assert result.action == 2
    # X must block O's row at square 5.
    block = parse_position("X..OO.X..", "X")
    result = mcts(game, block, playouts=3000, rng=random.Random(0))
    assert result.action == 5


def test_search_with_an_evaluation_and_depth_limited_rollouts():
    game = TicTacToe()
    win = parse_position("XX.OO....", "X")
    for depth in (0, 2):
        result = mcts(
            game,
            win,
            playouts=300,
            evaluate=game.evaluate,
            rollout_depth=depth,
            rng=random.Random(3),
        )
        assert result.action == 2


def test_same_seed_same_search():
    game = TicTacToe()
    runs = [mcts(game, game.start(), playouts=700, rng=random.Random(42)) for _ in range(2)]
    assert runs[0].action == runs[1].action
    assert runs[0].actions == runs[1].actions
    assert runs[0].stats.playouts == runs[1].stats.playouts == 700
    assert runs[0].stats.nodes == runs[1].stats.nodes
    other = mcts(game, game.start(), playouts=700, rng=random.Random(43))
    assert other.actions != runs[0].actions


def test_every_root_action_gets_a_playout_and_stats_add_up():
    game = TicTacToe()
    result = mcts(game, game.start(), playouts=1, rng=random.Random(0))
    assert result.stats.playouts == 9
    assert [s.visits for s in result.actions] == [1] * 9
    assert result.stats.nodes == 10 and result.stats.max_depth == 1

    result = mcts(game, game.start(), playouts=2000, rng=random.Random(0))
    assert sum(s.visits for s in result.actions) == result.root.visits == 2000
    assert result.stats.nodes <= 2001
    assert result.stats.max_depth >= 3


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Ticking:
    """The searches' and the MCTS agent's clock, replaced by a `Ticking` one."""
    from pacman.agents import mcts_agent
    from pacman.search import mcts as search

    ticking = Ticking()
    monkeypatch.setattr(search, "time", ticking)
    monkeypatch.setattr(mcts_agent, "time", ticking)
    return ticking


def test_deadline_is_respected(clock: Ticking) -> None:
    game = Nim(40)
    deadline = clock.perf_counter() + 0.15
    result = mcts(game, game.start(), deadline=deadline, rng=random.Random(0))
    # The search looks at the clock once per playout (but the first) and stops at its first
    # look past the deadline (one more read for its statistics).
    assert deadline <= clock.now <= deadline + 3 * Ticking.TICK
    assert 3 < result.stats.playouts <= round(0.15 / Ticking.TICK) + 1
    # With both budgets, whichever comes first.
    result = mcts(game, game.start(), playouts=10, deadline=clock.perf_counter() + 60)
    assert result.stats.playouts == 10


def test_continuing_an_earlier_tree_keeps_its_statistics():
    game = Nim(11)
    rng = random.Random(5)
    first = mcts(game, game.start(), playouts=500, rng=rng)
    after = game.successor(game.successor(game.start(), first.action), 1)
    node = first.root.find(after, 2)
    assert node is not None and node.visits > 0
    before = node.visits
    second = mcts(game, after, playouts=300, rng=rng, tree=node, bounds=first.bounds)
    assert second.root is node and node.visits == before + 300
    assert second.action == after[0] % 4
    with pytest.raises(ValueError, match="another state"):
        mcts(game, game.start(), playouts=10, tree=node)


def test_terminal_root_and_bad_arguments():
    game = Nim(3)
    result = mcts(game, (0, True), playouts=10)
    assert result.action is None and result.value == -1.0 and result.stats.playouts == 0
    with pytest.raises(ValueError, match="budget"):
        mcts(game, game.start())
    with pytest.raises(ValueError, match="playouts"):
        mcts(game, game.start(), playouts=0)
    with pytest.raises(ValueError, match="evaluation"):
        mcts(game, game.start(), playouts=10, rollout_depth=3)
    with pytest.raises(ValueError, match="exploration"):
        mcts(game, game.start(), playouts=10, exploration=-1)


# --- the Pacman agent ----------------------------------------------------------------------

LAST_DOT = """
%%%%%%%
%G    %
% % % %
%  P. %
%%%%%%%
"""


def test_agent_eats_the_last_dot():
    state = GameState.initial(parse_layout(LAST_DOT, "lastDot"))
    legal = state.getLegalActions(0)
    assert len(legal) > 2 and "East" in legal
    for options in (
        {},
        {"rolloutDepth": "0"},
        {"ghosts": "min"},
        {"evalFn": "score", "rolloutDepth": "2"},
    ):
        for seed in range(3):
            agent = MCTSAgent(timeLimit="none", playouts="150", **options)
            agent.rng = random.Random(seed)
            assert agent.getAction(state) == "East", options


def test_agent_returns_legal_actions_along_games():
    start = GameState.initial(load_layout("smallClassic"), 2)
    agent = MCTSAgent(timeLimit="none", playouts="25", rolloutDepth="4")
    agent.rng = random.Random(0)
    ghosts = [RandomGhost(1), RandomGhost(2)]
    rng = random.Random(7)
    for ghost in ghosts:
        ghost.rng = rng
    state, checked = start, 0
    while checked < 80:
        if state.isTerminal():
            state = start
        legal = state.getLegalActions(0)
        action = agent.getAction(state)
        assert action is not None and action in legal
        checked += 1
        # Play on partly at random, so the agent sees positions its own play would not reach.
        state = state.generateSuccessor(0, rng.choice(legal) if checked % 3 == 0 else action)
        for ghost in ghosts:
            if state.isTerminal():
                break
            state = state.generateSuccessor(ghost.index, ghost.getAction(state))
    assert agent.searches == checked and agent.total_playouts >= 25 * agent.searches


class OneWay:
    """A stand-in state with a single legal move (Pacman always has Stop and one more)."""

    def getLegalActions(self, agentIndex=0):
        return ["North"]


def test_agent_with_one_legal_action_does_not_search(monkeypatch: pytest.MonkeyPatch) -> None:
    from pacman.agents import mcts_agent

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("searched with a single legal move")

    monkeypatch.setattr(mcts_agent, "mcts", no_search)
    agent = MCTSAgent(timeLimit="5", playouts="1000000")
    assert agent.getAction(OneWay()) == "North"
    assert agent.last_stats is None
    # A terminal state (no legal action) still gets a move, never None.
    corridor = GameState.initial(parse_layout("%%%%%\n%P.G%\n%%%%%", "corridor"))
    won = corridor.generateSuccessor(0, "East")
    assert won.isWin() and won.getLegalActions(0) == []
    assert agent.getAction(won) == "Stop"


def test_agent_reuses_the_subtree_of_the_position_reached():
    state = GameState.initial(load_layout("smallClassic"), 2)
    agent = MCTSAgent(timeLimit="none", playouts="400", rolloutDepth="2", reuse="1")
    agent.rng = random.Random(1)
    action = agent.getAction(state)
    result = agent._last
    assert result is not None
    game = PacmanGame(state, agent.evaluationFunction, CHANCE)
    # Follow the most visited ghost replies to a position the tree knows well.
    node = result.root.child(action)
    assert node is not None
    for _ in range(2):
        node = max((c for _, c in node.expanded()), key=lambda c: c.visits)
    known = node.visits
    turn = node.state
    assert turn.agent == 0 and game.player(turn) == MAX
    agent.getAction(turn.state)
    assert agent._last is not None and agent._last.root is node
    assert node.visits == known + 400
    # By default every move is searched afresh.
    fresh = MCTSAgent(timeLimit="none", playouts="400", rolloutDepth="2")
    fresh.rng = random.Random(1)
    fresh.getAction(state)
    assert fresh._last is None


def test_agent_respects_its_time_limit(clock: Ticking) -> None:
    state = GameState.initial(load_layout("smallClassic"), 2)
    agent = MCTSAgent(timeLimit="0.1")
    t0 = clock.now
    assert agent.getAction(state) in state.getLegalActions(0)
    assert clock.now - t0 <= 0.1 + 5 * Ticking.TICK
    assert agent.last_stats is not None and agent.last_stats.playouts >= 5
    assert gc.isenabled()  # the search pauses the cyclic collector, and only the search


def test_agent_restores_the_collector_when_its_evaluation_fails():
    def broken(state):
        raise RuntimeError("broken evaluation")

    state = GameState.initial(load_layout("smallClassic"), 2)
    agent = MCTSAgent(timeLimit="none", playouts="10", evalFn=broken)
    with pytest.raises(RuntimeError, match="broken"):
        agent.getAction(state)
    assert gc.isenabled()


def test_agent_plays_a_game_in_the_runner():
    spec = GameSpec(
        load_layout("smallClassic"),
        AgentRef(
            "MCTSAgent",
            "pacman.agents.mcts_agent",
            args=(("timeLimit", "none"), ("playouts", "30"), ("rolloutDepth", "2")),
        ),
        AgentRef("RandomGhost", "pacman.agents.ghosts", builtin=True),
        num_ghosts=2,
        seed=3,
        max_moves=150,
    )
    result = play(spec)
    assert not result.failed, result.message
    assert result.moves > 0
    again = play(spec)  # a playout budget and the runner's seeded stream: the same game
    assert again.actions == result.actions


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"timeLimit": "soon"}, "timeLimit"),
        ({"timeLimit": "-1"}, "timeLimit"),
        ({"timeLimit": "0"}, "timeLimit"),
        ({"timeLimit": "none"}, "timeLimit"),
        ({"playouts": "0"}, "playouts"),
        ({"playouts": "many"}, "playouts"),
        ({"rolloutDepth": "-1"}, "rolloutDepth"),
        ({"rolloutDepth": "2.5"}, "rolloutDepth"),
        ({"evalFn": "bestest"}, "evalFn"),
        ({"evalFn": "score", "weights": "w.yaml"}, "weights"),
        ({"ghosts": "max"}, "ghosts"),
        ({"exploration": "-0.5"}, "exploration"),
        ({"exploration": "lots"}, "exploration"),
        ({"reuse": "maybe"}, "reuse"),
    ],
)
def test_option_errors_name_the_option(options, name):
    with pytest.raises(ValueError, match=name):
        MCTSAgent(**options)


def test_options_from_text():
    agent = MCTSAgent(
        timeLimit="0.5",
        playouts="100",
        rolloutDepth="6",
        ghosts="MIN",
        exploration="0",
        reuse="yes",
    )
    assert agent.timeLimit == 0.5 and agent.playouts == 100 and agent.rolloutDepth == 6
    assert agent.ghosts == MIN and agent.exploration == 0 and agent.reuse is True
    default = MCTSAgent()
    assert default.timeLimit == 0.2 and default.playouts is None and default.ghosts == CHANCE
    assert default.rolloutDepth == 0 and default.exploration == 0.25 and default.reuse is False
