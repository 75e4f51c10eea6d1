"""The search ghosts (`pacman.agents.ghost_search`): what they choose, against plain minimax,
within their budget on a fake clock, the same game for the same seed, no state across games."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

import pytest

from pacman.actions import Directions
from pacman.agents.evaluation import better
from pacman.agents.ghost_search import (
    AlphaBetaGhost,
    AnytimeGhost,
    SearchGhost,
    ghost_evaluation,
    territory,
)
from pacman.distances import maze_distances
from pacman.game import GameSpec, play
from pacman.games.pacman_game import PacmanGame, Turn
from pacman.layout import load_layout, parse_layout
from pacman.loader import SubmissionError, parse_agent_args, resolve
from pacman.search.core import MIN, minimax
from pacman.state import GameState
from tests.clock import Ticking


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Ticking:
    """The anytime search's and the ghosts' clock, replaced by a `Ticking` one."""
    from pacman.agents import ghost_search
    from pacman.search import anytime

    ticking = Ticking()
    monkeypatch.setattr(anytime, "time", ticking)
    monkeypatch.setattr(ghost_search, "time", ticking)
    return ticking


def ghost_turn(layout_text: str, pacman_move: str = Directions.STOP) -> GameState:
    """A position of a tiny layout after Pacman's first move: ghost 1 to move."""
    state = GameState.initial(parse_layout(layout_text, "tiny"), None, "classic")
    return state.generateSuccessor(0, pacman_move)


def ghost_positions(
    name: str, ghosts: int | None, count: int, seed: int, near: float | None = None
) -> list[tuple[GameState, int]]:
    """(state, ghost to move) along random games, where that ghost has a choice (and, with
    `near`, is within that maze distance of Pacman, where moves differ in value)."""
    rng = random.Random(seed)
    out: list[tuple[GameState, int]] = []
    for _ in range(50):
        state = GameState.initial(load_layout(name), ghosts, "classic")
        agent = 0
        while len(out) < count and not state.isTerminal():
            legal = state.getLegalActions(agent)
            if agent > 0 and len(legal) > 1:
                apart = maze_distances(state.layout).between(
                    state.agents[agent][0], state.agents[0][0])
                if near is None or apart <= near:
                    out.append((state, agent))
            state = state.generateSuccessor(agent, rng.choice(legal))
            agent = (agent + 1) % state.getNumAgents()
    assert len(out) == count
    return out


G = TypeVar("G", bound=SearchGhost)


def with_rng(ghost: G, seed: int = 0) -> G:
    ghost.rng = random.Random(seed)
    return ghost


# --- what they choose -----------------------------------------------------------------------------


CORRIDOR = "%%%%%%%%\n%..PG..%\n%%%%%%%%"


@pytest.mark.parametrize("make", [
    lambda: AlphaBetaGhost(1, depth=1),
    lambda: AlphaBetaGhost(1, depth=2),
    lambda: AnytimeGhost(1, budget=60, maxDepth=2),
])
def test_a_ghost_next_to_pacman_in_a_corridor_catches_him(make: Callable[[], SearchGhost]) -> None:
    state = ghost_turn(CORRIDOR)
    assert sorted(state.getLegalActions(1)) == [Directions.EAST, Directions.WEST]
    move = with_rng(make()).getAction(state)
    assert move == Directions.WEST
    assert state.generateSuccessor(1, move).isLose()


def test_two_ghosts_close_in_from_both_sides() -> None:
    # Pacman in the middle of a corridor, one ghost at each end: each ghost moves towards him
    # (moving away would open his way out).
    state = ghost_turn("%%%%%%%%%%%\n%.G..P..G.%\n%%%%%%%%%%%")
    first = with_rng(AlphaBetaGhost(1, depth=2)).getAction(state)
    assert first == Directions.EAST
    second = with_rng(AlphaBetaGhost(2, depth=2)).getAction(state.generateSuccessor(1, first))
    assert second == Directions.WEST


@pytest.mark.parametrize("name", ["smallClassic", "mediumClassic", "minimaxClassic"])
def test_a_ghost_never_picks_an_illegal_move(name: str) -> None:
    ghosts = {1: AlphaBetaGhost(1, depth=1), 2: AlphaBetaGhost(2, depth=1)}
    anytime = {i: AnytimeGhost(i, budget=60, maxDepth=1) for i in (1, 2)}
    for state, index in ghost_positions(name, 2, 25, seed=3):
        legal = state.getLegalActions(index)
        assert with_rng(ghosts[index]).getAction(state) in legal
        assert with_rng(anytime[index]).getAction(state) in legal


@pytest.mark.parametrize(("name", "depth"), [("minimaxClassic", 1), ("minimaxClassic", 2),
                                             ("smallClassic", 1), ("smallClassic", 2)])
def test_alphabeta_ghost_agrees_with_plain_minimax(name: str, depth: int) -> None:
    ghost = with_rng(AlphaBetaGhost(1, depth=depth))
    unique = 0
    positions = ghost_positions(name, 2 if name == "smallClassic" else None, 12, 5, near=3)
    for state, index in positions:
        ghost.index = index
        game = PacmanGame(state, better, MIN)
        root = Turn(state, index)
        plain = minimax(game, root, game.plies(depth), game.evaluate)
        values = ghost.values(state)
        exact = {m: minimax(game, game.successor(root, m), game.plies(depth) - 1,
                            game.evaluate).value for m in game.actions(root)}
        assert values == exact
        assert min(values.values()) == plain.value
        best = [m for m, v in values.items() if v == plain.value]
        move = ghost.getAction(state)
        assert move in best
        if len(best) == 1:
            assert move == plain.action
            unique += 1
    assert unique >= 3  # positions where the value alone decides


def test_anytime_ghost_agrees_with_alphabeta_at_its_depth() -> None:
    # With the evaluation the anytime ghost searches, its value at depth d is minimax's.
    evaluate = ghost_evaluation(better)
    for state, index in ghost_positions("smallClassic", 2, 10, seed=11):
        ghost = with_rng(AnytimeGhost(index, budget=60, maxDepth=2))
        move = ghost.getAction(state)
        game = PacmanGame(state, evaluate, MIN)
        assert ghost.last is not None and ghost.last.depth == game.plies(2)
        assert ghost.last.value == minimax(game, Turn(state, index), game.plies(2),
                                           game.evaluate).value
        assert move in state.getLegalActions(index)


# --- the ghost-side evaluation -------------------------------------------------------------------


def test_territory_counts_the_cells_pacman_reaches_first() -> None:
    layout = parse_layout("%%%%%%%%%\n%G..P..G%\n%%%%%%%%%", "corridor")
    # Cells 1..7; Pacman at 4: strictly closer than a ghost at 1 and at 7: 3, 4, 5.
    assert territory(layout, (4, 1), ((1, 1), (7, 1))) == 3
    assert territory(layout, (4, 1), ((1, 1),)) == 5
    assert territory(layout, (4, 1), ()) == 7


def test_ghost_evaluation_prefers_ghosts_on_both_sides() -> None:
    evaluate = ghost_evaluation(better)
    layout = "%%%%%%%%%%%\n%{}%\n%%%%%%%%%%%"
    pincer = GameState.initial(parse_layout(layout.format("..G.P.G.."), "a"), None)
    behind = GameState.initial(parse_layout(layout.format(".GG..P..."), "b"), None)
    # What the ghosts add to Pacman's evaluation: his room (3 cells against 5) and their
    # distance to him (2 + 2 against 3 + 4).
    assert evaluate(pincer) - better(pincer) < evaluate(behind) - better(behind)


# --- time ----------------------------------------------------------------------------------------


def test_anytime_ghost_answers_within_its_budget(clock: Ticking) -> None:
    for state, index in ghost_positions("mediumClassic", 2, 6, seed=2):
        ghost = with_rng(AnytimeGhost(index, budget=0.05, maxDepth=50))
        t0 = clock.now
        move = ghost.getAction(state)
        assert clock.now - t0 <= ghost.budget
        assert move in state.getLegalActions(index)
        assert ghost.last is not None and ghost.last.depth >= state.getNumAgents()


# --- games ---------------------------------------------------------------------------------------


def game(ghost: str, args: str, seed: int) -> tuple[str, float, int, tuple[int, ...]]:
    spec = GameSpec(
        layout=load_layout("smallClassic"),
        pacman=resolve("ExpectimaxAgent", parse_agent_args("depth=1,evalFn=better")),
        ghost=resolve(ghost, parse_agent_args(args), kind="ghost"),
        num_ghosts=2,
        seed=seed,
        max_moves=300,
    )
    result = play(spec, catch=True)
    return result.outcome, result.score, result.moves, tuple(t.moves for t in result.timing)


@pytest.mark.parametrize(("ghost", "args"), [("AlphaBetaGhost", "depth=1"),
                                             ("AnytimeGhost", "maxDepth=2,budget=0.05")])
def test_same_seed_same_game_and_no_state_across_games(
    clock: Ticking, ghost: str, args: str
) -> None:
    first = game(ghost, args, 1)
    other = game(ghost, args, 2)
    assert game(ghost, args, 1) == first  # after another game: nothing carried over
    assert other[3][1] > 0  # the ghosts played


def test_seeds_make_different_games() -> None:
    # Equal moves are drawn from the seeded stream: a deterministic Pacman still meets
    # different games.
    assert len({game("AlphaBetaGhost", "depth=1", seed) for seed in range(6)}) > 1


def test_a_team_shares_one_table_per_game() -> None:
    start = GameState.initial(load_layout("smallClassic"), 2)
    one, two = AnytimeGhost(1, budget=60, maxDepth=1), AnytimeGhost(2, budget=60, maxDepth=1)
    for ghost in (one, two):
        with_rng(ghost).registerInitialState(start)
    assert one.team is two.team and one.team is not None
    state, _ = ghost_positions("smallClassic", 2, 1, seed=1)[0]
    one.index = 1 if state.getLegalActions(1)[1:] else 2
    one.getAction(state)
    assert one.team.searcher.table  # ghost 2 reads what ghost 1 found
    again = GameState.initial(load_layout("smallClassic"), 2)
    assert again == start and again is not start  # a new game, the same board
    one.registerInitialState(again)
    assert one.team is not two.team and not one.team.searcher.table


# --- options -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("make", "message"), [
    (lambda: AlphaBetaGhost(1, depth="two"), "AlphaBetaGhost: depth: expected a whole number"),
    (lambda: AlphaBetaGhost(1, depth=0), "AlphaBetaGhost: depth: expected at least 1"),
    (lambda: AlphaBetaGhost(1, evalFn="beter"), "did you mean better"),
    (lambda: AnytimeGhost(1, budget=0), "AnytimeGhost: budget: expected a positive number"),
    (lambda: AnytimeGhost(1, territory="x"), "AnytimeGhost: territory: expected a number"),
    (lambda: AnytimeGhost(1, chase="nan"), "AnytimeGhost: chase: expected a finite number"),
    (lambda: AnytimeGhost(1, maxDepth=0), "AnytimeGhost: maxDepth: expected at least 1"),
    (lambda: AlphaBetaGhost(0), "AlphaBetaGhost: a ghost's index is 1 or more"),
])
def test_bad_options_name_the_option(make: Callable[[], SearchGhost], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_built_in_ghost_names() -> None:
    ref = resolve("AlphaBetaGhost", parse_agent_args("depth=3"), kind="ghost")
    ghost = ref.build(2)
    assert isinstance(ghost, AlphaBetaGhost) and ghost.depth == 3 and ghost.index == 2
    assert isinstance(resolve("AnytimeGhost", kind="ghost").build(1), AnytimeGhost)
    with pytest.raises(SubmissionError, match="ghost agent, not a pacman agent"):
        resolve("builtin:AnytimeGhost")
