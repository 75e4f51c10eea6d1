"""The course's baseline Pacman agents: reflex, minimax, alpha-beta and expectimax.

Each is a thin wrapper over the search core (`pacman.search.core`) and the Pacman adapter
(`pacman.games.pacman_game`), so the algorithm is written once and tic-tac-toe uses it too.
Options arrive as strings from `-a` (`depth=3,evalFn=better`) and are checked here, with an
error naming the option.

Search agents choose the first best action in legal order (what the course's autograders
expect); the reflex agent breaks ties at random, as the course's does.
"""

from __future__ import annotations

from collections.abc import Callable

from pacman.actions import Directions
from pacman.agents.base import Agent
from pacman.agents.evaluation import StateEvaluation, resolve_evaluation
from pacman.errors import OptionError, OptionProblem
from pacman.games.pacman_game import PacmanGame
from pacman.search.core import CHANCE, MIN, Decision, SearchStats, alphabeta, expectimax, minimax
from pacman.state import GameState


def whole_number(owner: str, option: str, value: object, minimum: int = 0) -> int:
    """An option given as text (`-a depth=3`) or a number, checked."""
    try:
        number = int(str(value).strip())
    except ValueError:
        raise OptionError(owner, option, f"expected a whole number, got {value!r}") from None
    if number < minimum:
        raise OptionError(owner, option, f"expected at least {minimum}, got {number}")
    return number


def _number(owner: str, option: str, value: object) -> float:
    """An option given as text or a number, read as a float."""
    try:
        return float(str(value).strip())
    except ValueError:
        raise OptionError(owner, option, f"expected a number, got {value!r}") from None


def positive_number(owner: str, option: str, value: object) -> float:
    number = _number(owner, option, value)
    if not number > 0 or number == float("inf"):
        raise OptionError(owner, option, f"expected a positive number, got {value!r}")
    return number


def fraction(owner: str, option: str, value: object) -> float:
    """An option that is a share of one, from 0 included to 1 excluded (`-a cutoff=0.01`)."""
    number = _number(owner, option, value)
    if not 0 <= number < 1:
        raise OptionError(owner, option, f"expected at least 0 and below 1, got {value!r}")
    return number


def evaluation_option(
    owner: str, evalFn: str | StateEvaluation, weights: str | None,
    features: str | None = None, default: str | None = None,
) -> StateEvaluation:
    """The agent's evaluation from its `evalFn`, `weights` and `features` options
    (`resolve_evaluation`). `default` is the agent's own `evalFn`: with `features`, an
    `evalFn` other than it is an error (the feature function's `w . phi` is the evaluation)."""
    if features is not None and evalFn != default:
        raise OptionError(owner, "features", "give evalFn or features=file.py:function, "
                          "not both")
    if callable(evalFn):
        return evalFn
    try:
        return resolve_evaluation(str(evalFn), weights, features)
    except OptionProblem as exc:
        text = str(exc)
        raise OptionError(owner, exc.option, text.removeprefix(f"{exc.option}: "),
                          f"{owner}: {text}") from None


class ReflexAgent(Agent):
    """Looks one move ahead: the move whose successor evaluates best (never Stop by choice)."""

    def __init__(
        self, evalFn: str | StateEvaluation = "better", weights: str | None = None,
        features: str | None = None,
    ) -> None:
        super().__init__(0)
        self.evaluationFunction = evaluation_option(type(self).__name__, evalFn, weights,
                                                    features, "better")

    def getAction(self, gameState: GameState) -> str:
        legal = gameState.getLegalActions(0)
        moves = [a for a in legal if a != Directions.STOP] or legal
        scored = [(self.evaluationFunction(gameState.generateSuccessor(0, a)), a) for a in moves]
        best = max(v for v, _ in scored)
        return str(self.rng.choice([a for v, a in scored if v == best]))


Search = Callable[..., Decision[str]]


class MultiAgentSearchAgent(Agent):
    """A depth-limited search: `depth` full rounds (Pacman and every ghost move once each)."""

    search: Search = staticmethod(minimax)
    ghosts: str = MIN

    def __init__(
        self,
        evalFn: str | StateEvaluation = "score",
        depth: int | str = 2,
        weights: str | None = None,
        features: str | None = None,
    ) -> None:
        super().__init__(0)
        name = type(self).__name__
        self.depth = whole_number(name, "depth", depth, minimum=1)
        self.evaluationFunction = evaluation_option(name, evalFn, weights, features, "score")
        #: What the last `getAction` did, and the running totals (benchmarks read them).
        self.last_stats = SearchStats()
        self.total_stats = SearchStats()

    def decide(self, gameState: GameState) -> Decision[str]:
        game = PacmanGame(gameState, self.evaluationFunction, self.ghosts)
        stats = SearchStats()
        decision = type(self).search(
            game, game.start(), game.plies(self.depth), game.evaluate, stats
        )
        self.last_stats = stats
        self.total_stats.nodes += stats.nodes
        self.total_stats.terminals += stats.terminals
        self.total_stats.evaluations += stats.evaluations
        return decision

    def getAction(self, gameState: GameState) -> str:
        action = self.decide(gameState).action
        if action is None:  # only at a terminal state, where no move is asked for
            legal = gameState.getLegalActions(0)
            return legal[0] if legal else Directions.STOP
        return action


class MinimaxAgent(MultiAgentSearchAgent):
    """Minimax: every ghost is an adversary that minimises Pacman's evaluation."""

    search = staticmethod(minimax)


class AlphaBetaAgent(MultiAgentSearchAgent):
    """Minimax with alpha-beta pruning: the same move as MinimaxAgent, far fewer states."""

    search = staticmethod(alphabeta)


class ExpectimaxAgent(MultiAgentSearchAgent):
    """Every ghost moves uniformly at random (right against RandomGhost)."""

    search = staticmethod(expectimax)
    ghosts = CHANCE


__all__ = [
    "AlphaBetaAgent",
    "ExpectimaxAgent",
    "MinimaxAgent",
    "MultiAgentSearchAgent",
    "ReflexAgent",
]
