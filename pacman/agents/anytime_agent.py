"""A competition agent: iterative deepening within a time budget per move.

Where the course's agents search a fixed depth, this one searches as deep as its time allows
(`pacman.search.anytime`): one full round deeper per iteration, the previous iteration's best
moves first, a transposition table kept across moves. Options (`-a`):
- `timeLimit`: seconds per move (default 1, the course contest's soft limit); the agent keeps
  a margin for its own bookkeeping;
- `mode`: `alphabeta` (ghosts adversarial, the default: it survives chasing ghosts, which
  expectimax underestimates) or `expectimax` (ghosts uniform: right against random ghosts);
- `maxDepth`: stop deepening at this many rounds (default: no limit);
- `evalFn`, `weights`: as for the baselines (default `better`).
"""

from __future__ import annotations

import time

from pacman.agents.base import Agent
from pacman.agents.evaluation import StateEvaluation
from pacman.agents.multiagent import evaluation_option, positive_number, whole_number
from pacman.games.pacman_game import PacmanGame, Turn
from pacman.search.anytime import MODES, AnytimeResult, AnytimeSearch
from pacman.search.core import CHANCE, MIN
from pacman.state import GameState

#: Seconds kept back from the budget: building the answer, and the referee's own overhead.
MARGIN = 0.02


class AnytimeAgent(Agent):
    """Deepens its search until its time per move runs out."""

    def __init__(
        self,
        timeLimit: float | str = 1.0,
        mode: str = "alphabeta",
        maxDepth: int | str | None = None,
        evalFn: str | StateEvaluation = "better",
        weights: str | None = None,
    ) -> None:
        super().__init__(0)
        name = type(self).__name__
        self.time_limit = positive_number(name, "timeLimit", timeLimit)
        if mode not in MODES:
            raise ValueError(f"{name}: mode: expected one of {', '.join(MODES)}, got {mode!r}")
        self.mode = mode
        self.max_depth = None if maxDepth is None else whole_number(name, "maxDepth", maxDepth, 1)
        self.evaluationFunction = evaluation_option(name, evalFn, weights)
        self.searcher: AnytimeSearch[Turn, str] = AnytimeSearch(mode)
        #: The last move's search (benchmarks and tests read the depth reached).
        self.last: AnytimeResult[str] | None = None

    def getAction(self, gameState: GameState) -> str:
        started = time.perf_counter()
        legal = gameState.getLegalActions(0)
        if len(legal) == 1:
            return legal[0]
        game = PacmanGame(
            gameState, self.evaluationFunction, CHANCE if self.mode == "expectimax" else MIN
        )
        budget = max(self.time_limit - MARGIN, self.time_limit / 2)
        result = self.searcher.search(
            game,
            game.start(),
            started + budget,
            game.evaluate,
            step=game.num_agents,
            max_depth=None if self.max_depth is None else game.plies(self.max_depth),
        )
        self.last = result
        return result.action if result.action in legal else legal[0]
