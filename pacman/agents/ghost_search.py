"""Built-in ghost teams that search: the opponents a class has before any student writes one.

The course writes the ghosts as the MIN players of Pacman's minimax; these ghosts play that
part themselves, on the same search core (`pacman.search`) and the same Pacman game
(`pacman.games.pacman_game`), searching from their own turn: a ghost is the MIN root, Pacman the
MAX layer, every other ghost a MIN layer.

- `AlphaBetaGhost(index, depth=2, evalFn="better")`: alpha-beta to `depth` full rounds
  (`depth x agents` plies, as for the Pacman baselines) against Pacman's own evaluation
  (`evalFn` and `weights` as the Pacman baselines take them), which the ghosts minimise.
- `AnytimeGhost(index, budget=0.2, maxDepth=5)`: iterative deepening (`pacman.search.anytime`)
  within `budget` seconds a move and `maxDepth` rounds, over a ghost-side evaluation
  (`ghost_evaluation`: Pacman's, plus the cells Pacman reaches before any ghost and the ghosts'
  distance to him), with one transposition table shared by the team's ghosts of one game, so
  each ghost starts from what its teammate's search found about the positions after its move.

Why a depth cap on an anytime search: the ghosts search as if Pacman were a perfect player who
sees as far as they do. Beyond about six rounds that Pacman reaches a capsule in most lines and
eats the ghosts, so the ghosts keep away from him, and a real Pacman, who searches two or three
rounds, eats the board undisturbed (on smallClassic, ExpectimaxAgent depth 2 won every game
against ghosts searching 7 rounds, none against 3, 4 or 5; with the capsules removed, 7 rounds
won every game for the ghosts too). The budget still bounds a move where 5 rounds cost more
(larger boards, more ghosts).

Ties. Pacman's evaluation often cannot tell a ghost's moves apart (far from Pacman, no feature
sees a ghost), and a ghost that always took the first of equal moves would play every game of
a seed-less, deterministic Pacman the same way. So among moves of equal value a ghost prefers
the one that brings it closer to Pacman by maze distance (farther when scared), as the course's
DirectionalGhost does, and draws among what is still equal from `self.rng`, the built-in ghosts'
seeded stream: a game is the same for the same seed (for `AnytimeGhost`, the same seed and the
same depths reached, which depend on the machine's speed unless `maxDepth` bounds them).

Team state lives in `_Team` objects, one per game: a ghost joins its game's team in
`registerInitialState`, keyed by the identity of the start state the game hands to all of its
agents, so two games (even at once, in threads) never share a table, and a new game starts
afresh.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Sequence
from functools import lru_cache

from pacman.actions import Directions
from pacman.agents.anytime_agent import MARGIN, TABLE_SIZE
from pacman.agents.base import Agent
from pacman.agents.evaluation import StateEvaluation
from pacman.agents.multiagent import evaluation_option, positive_number, whole_number
from pacman.distances import maze_distances
from pacman.errors import OptionError
from pacman.games.pacman_game import PacmanGame, Turn, turn_key
from pacman.layout import Cell, Layout
from pacman.search.anytime import AnytimeResult, AnytimeSearch
from pacman.search.core import MIN, SearchStats, alphabeta
from pacman.state import GameState

#: `AnytimeGhost`'s ghost-side weights (see `ghost_evaluation`), measured with
#: `benchmarks/strength.py --only ghosts`.
TERRITORY_WEIGHT = 4.0
CHASE_WEIGHT = 2.0
#: `AnytimeGhost`'s deepest search, in rounds (see above for why there is one).
DEFAULT_MAX_DEPTH = 5

_FAR = 1 << 20


def _cell(pos: tuple[float, float]) -> Cell:
    """The cell an agent counts from (a scared ghost may be half-way between two)."""
    return (int(pos[0] + 0.5), int(pos[1] + 0.5))


@lru_cache(maxsize=1 << 16)
def territory(layout: Layout, pacman: Cell, ghosts: tuple[Cell, ...]) -> int:
    """Open cells Pacman reaches strictly before every one of `ghosts` (Voronoi-style, by maze
    distance): his room to escape. Ghosts that split this region and close it from several
    sides corner him; one ghost chasing from behind does not.

    Memoised: positions repeat across a search's leaves and across moves."""
    table = maze_distances(layout)
    mine = table.from_cell(pacman)
    if not ghosts:
        return len(mine)
    theirs = [table.from_cell(g) for g in ghosts]
    return sum(1 for cell, d in mine.items() if all(t.get(cell, _FAR) > d for t in theirs))


def ghost_evaluation(
    pacman_eval: StateEvaluation,
    territory_weight: float = TERRITORY_WEIGHT,
    chase_weight: float = CHASE_WEIGHT,
) -> StateEvaluation:
    """Pacman's evaluation plus what a ghost team wants beyond his loss of points, in his terms
    (the ghosts minimise it): `territory_weight` per cell of his `territory` against the ghosts
    that are not scared, and `chase_weight` per step of maze distance from each such ghost to
    him (a slope towards him where his evaluation sees no ghost at all)."""

    def evaluate(state: GameState) -> float:
        value = pacman_eval(state)
        if state.isWin() or state.isLose():
            return value
        agents = state.agents
        pacman = _cell(agents[0][0])
        hunters = tuple(sorted(_cell(pos) for pos, _, timer in agents[1:] if timer == 0))
        layout = state.layout
        value += territory_weight * territory(layout, pacman, hunters)
        if chase_weight and hunters:
            mine = maze_distances(layout).from_cell(pacman)
            value += chase_weight * sum(mine.get(g, _FAR) for g in hunters)
        return value

    return evaluate


def closest_moves(state: GameState, index: int, moves: Sequence[str]) -> list[str]:
    """Of `moves`, those that bring ghost `index` nearest to Pacman by maze distance (farthest
    when it is scared): the DirectionalGhost's instinct, used to break ties."""
    if len(moves) <= 1:
        return list(moves)
    table = maze_distances(state.layout)
    from_pacman = table.from_cell(_cell(state.getPacmanPosition()))
    scared = state.agents[index][2] > 0
    distance: dict[str, int] = {}
    for move in moves:
        pos = state.generateSuccessor(index, move).agents[index][0]
        d = from_pacman.get(_cell(pos), _FAR)
        distance[move] = -d if scared else d
    best = min(distance.values())
    return [m for m in moves if distance[m] == best]


class SearchGhost(Agent):
    """What both search ghosts share: options, Pacman's evaluation, the tie-break."""

    def __init__(
        self, index: int, evalFn: str | StateEvaluation = "better", weights: str | None = None
    ) -> None:
        super().__init__(index)
        self.name = type(self).__name__
        if isinstance(index, bool) or not isinstance(index, int) or index < 1:
            raise ValueError(f"{self.name}: a ghost's index is 1 or more, got {index!r}")
        self.evaluationFunction = evaluation_option(self.name, evalFn, weights)
        #: What the last `getAction` did (benchmarks and tests read it).
        self.last_stats = SearchStats()

    def choose(self, state: GameState, best: Sequence[str]) -> str:
        """One of the equally valued `best` moves: the closest to Pacman, then at random."""
        near = closest_moves(state, self.index, best)
        return near[0] if len(near) == 1 else str(self.rng.choice(near))


class AlphaBetaGhost(SearchGhost):
    """A MIN player: alpha-beta to `depth` rounds against Pacman's evaluation."""

    def __init__(
        self,
        index: int,
        depth: int | str = 2,
        evalFn: str | StateEvaluation = "better",
        weights: str | None = None,
    ) -> None:
        super().__init__(index, evalFn, weights)
        self.depth = whole_number(self.name, "depth", depth, minimum=1)

    def values(self, state: GameState) -> dict[str, float]:
        """The exact value of each legal move (every move's subtree is searched with its own
        full window, so equal values are seen as equal, which a pruned root cannot tell)."""
        game = PacmanGame(state, self.evaluationFunction, MIN)
        plies = game.plies(self.depth)
        stats = SearchStats()
        root = Turn(state, self.index)
        stats.nodes += 1
        values = {
            move: alphabeta(game, game.successor(root, move), plies - 1, game.evaluate,
                            stats).value
            for move in game.actions(root)
        }
        self.last_stats = stats
        return values

    def getAction(self, gameState: GameState) -> str:
        legal = gameState.getLegalActions(self.index)
        if len(legal) <= 1:
            return legal[0] if legal else Directions.STOP
        values = self.values(gameState)
        low = min(values.values())
        return self.choose(gameState, [m for m in legal if values[m] == low])


class _Team:
    """One game's shared search: the transposition table all of a team's ghosts fill and read.

    It holds the game's start state, so the identity it is keyed by cannot be reused by
    another game's while it lives."""

    def __init__(self, start: GameState, mode: str) -> None:
        self.start = start
        self.searcher: AnytimeSearch[Turn, str] = AnytimeSearch(
            mode, key=turn_key, table_size=TABLE_SIZE
        )


_TEAMS: weakref.WeakValueDictionary[int, _Team] = weakref.WeakValueDictionary()
_TEAMS_LOCK = threading.Lock()


def _team_of(start: GameState) -> _Team:
    """The team of the game that started from `start` (this very object), made on first use."""
    with _TEAMS_LOCK:
        team = _TEAMS.get(id(start))
        if team is None or team.start is not start:
            team = _Team(start, "alphabeta")
            _TEAMS[id(start)] = team
        return team


class _RootOrder:
    """The Pacman game with the root ghost's moves in a given order: the anytime search keeps
    the first best move, so the order is the tie-break. It takes a `PacmanGame`'s methods as its
    own rather than subclassing it: in the compiled build (`pacman.fastbuild`) a Python class
    cannot inherit from a compiled one."""

    def __init__(self, root: Turn, order: list[str], evaluation: StateEvaluation) -> None:
        game = PacmanGame(root.state, evaluation, MIN)
        self.num_agents = game.num_agents
        self.start, self.player, self.successor, self.chances = (
            game.start, game.player, game.successor, game.chances)
        self.is_terminal, self.utility, self.evaluate, self.plies = (
            game.is_terminal, game.utility, game.evaluate, game.plies)
        self._actions = game.actions
        self.root_turn = root
        self.order = order

    def actions(self, turn: Turn) -> list[str]:
        if turn is self.root_turn:
            return self.order
        return self._actions(turn)


class AnytimeGhost(SearchGhost):
    """Iterative deepening within `budget` seconds a move (and `maxDepth` rounds), the team's
    ghosts sharing one table, over the ghost-side evaluation (`ghost_evaluation`: options
    `territory` and `chase` are its weights)."""

    #: It searches on a clock (seconds a move): its strength is the engine's speed, so a
    #: tournament plays it on the engine's sources, sandboxed, as the teams it meets play
    #: (`pacman.loader.AgentRef.on_sources`), whichever build the organizer runs.
    ON_A_CLOCK = True

    def __init__(
        self,
        index: int,
        budget: float | str = 0.2,
        evalFn: str | StateEvaluation = "better",
        weights: str | None = None,
        territory: float | str = TERRITORY_WEIGHT,
        chase: float | str = CHASE_WEIGHT,
        maxDepth: int | str = DEFAULT_MAX_DEPTH,
    ) -> None:
        super().__init__(index, evalFn, weights)
        self.budget = positive_number(self.name, "budget", budget)
        self.territory = _number(self.name, "territory", territory)
        self.chase = _number(self.name, "chase", chase)
        self.max_depth = whole_number(self.name, "maxDepth", maxDepth, 1)
        self.evaluate = ghost_evaluation(self.evaluationFunction, self.territory, self.chase)
        self.team: _Team | None = None
        #: The last move's search (benchmarks and tests read the depth reached).
        self.last: AnytimeResult[str] | None = None

    def registerInitialState(self, gameState: GameState) -> None:
        self.team = _team_of(gameState)

    def getAction(self, gameState: GameState) -> str:
        started = time.perf_counter()
        legal = gameState.getLegalActions(self.index)
        if len(legal) <= 1:
            return legal[0] if legal else Directions.STOP
        if self.team is None:  # a caller that never registered: a team of its own
            self.team = _Team(gameState, "alphabeta")
        order = closest_moves(gameState, self.index, legal)
        self.rng.shuffle(order)
        order += [m for m in legal if m not in order]
        root = Turn(gameState, self.index)
        game = _RootOrder(root, order, self.evaluate)
        budget = max(self.budget - MARGIN, self.budget / 2)
        result = self.team.searcher.search(
            game,
            root,
            started + budget,
            game.evaluate,
            step=game.num_agents,
            max_depth=game.plies(self.max_depth),
        )
        self.last = result
        self.last_stats = result.stats
        return result.action if result.action in legal else order[0]


def _number(owner: str, option: str, value: object) -> float:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise OptionError(owner, option, f"expected a number, got {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise OptionError(owner, option, f"expected a finite number, got {value!r}")
    return number


__all__ = ["AlphaBetaGhost", "AnytimeGhost", "ghost_evaluation", "territory"]
