"""A Monte Carlo tree search Pacman (`pacman.search.mcts` over `pacman.games.pacman_game`).

Options, as strings from `-a` (`-a timeLimit=0.5,rolloutDepth=4`) or as values:

- `timeLimit`: seconds of search per move (default 0.2; `none` for no clock, which needs
  `playouts`);
- `playouts`: a playout budget per move (default none: the clock alone); with both, the search
  stops at whichever comes first;
- `rolloutDepth`: plies of uniformly random play (one agent moves per ply) before a new node
  is evaluated (default 0: the node is evaluated directly; random Pacman moves make the
  evaluation noisier than it is informative, see below);
- `evalFn`, `weights`, `features`: the evaluation, resolved as the baselines do (default `better`);
- `ghosts`: `chance` (default: ghosts move uniformly at random, right against RandomGhost) or
  `min` (ghosts choose by UCT against Pacman);
- `exploration`: the UCB1 constant on values scaled to [0, 1] (default 0.25: the scale spans
  deaths and wins, so the differences between ordinary moves are small);
- `reuse`: 1 to continue, at the next move, the subtree of the position reached (default 0:
  every move is searched afresh; see below).

The defaults come from games on smallClassic against two RandomGhosts at equal playout budgets
(30 games each): rolloutDepth 0 won 29, 3 won 28 and 8 won 24 (exploration 0.5, 500
playouts); exploration 0.25 won 30, 0.5 won 28 and 1.0 won 26 (rolloutDepth 3); and a playout
without a rollout costs about 20 us against about 50 us with 8 plies. Reusing the subtree won
29 of 30 games without and 28 with (1000 playouts): against random ghosts the position reached
holds only a few percent of the last search's playouts, and keeping the tree alive between
moves makes Python's cyclic collector run between moves.

The move is the root action with the most playouts. Randomness comes from `self.rng`, which the
game runner seeds per game, so with `timeLimit=none` and a playout budget a game is
reproducible.
"""

from __future__ import annotations

import gc
import time

from pacman.actions import Directions
from pacman.agents.base import Agent
from pacman.agents.evaluation import StateEvaluation
from pacman.agents.multiagent import evaluation_option, positive_number, whole_number
from pacman.errors import OptionError
from pacman.games.pacman_game import PacmanGame, Turn
from pacman.search.core import CHANCE, MIN
from pacman.search.mcts import MCTSResult, MCTSStats, Node, mcts
from pacman.state import GameState

_NONE = ("none", "")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _optional(value: object) -> bool:
    """True when an option is absent: None, or the text `none` (or empty)."""
    return value is None or (isinstance(value, str) and value.strip().lower() in _NONE)


def _non_negative(owner: str, option: str, value: object) -> float:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise OptionError(owner, option, f"expected a number, got {value!r}") from None
    if not number >= 0 or number == float("inf"):
        raise OptionError(owner, option, f"expected a number >= 0, got {value!r}")
    return number


def _flag(owner: str, option: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise OptionError(owner, option, f"expected 1 or 0 (true or false), got {value!r}")


class MCTSAgent(Agent):
    """Pacman by UCT: random rollouts valued by an evaluation function, within a time limit."""

    #: It searches on a clock (seconds a move): its strength is the engine's speed, so a
    #: tournament plays it on the engine's sources, sandboxed, as the teams it meets play
    #: (`pacman.loader.AgentRef.on_sources`), whichever build the organizer runs.
    ON_A_CLOCK = True

    def __init__(
        self,
        timeLimit: float | str | None = 0.2,
        playouts: int | str | None = None,
        rolloutDepth: int | str = 0,
        evalFn: str | StateEvaluation = "better",
        weights: str | None = None,
        ghosts: str = CHANCE,
        exploration: float | str = 0.25,
        reuse: bool | str = False,
        features: str | None = None,
    ) -> None:
        super().__init__(0)
        name = type(self).__name__
        self.playouts = None if _optional(playouts) else whole_number(name, "playouts", playouts, 1)
        if _optional(timeLimit):
            if self.playouts is None:
                raise OptionError(name, "timeLimit", "none needs a playouts budget")
            self.timeLimit: float | None = None
        else:
            self.timeLimit = positive_number(name, "timeLimit", timeLimit)
        self.rolloutDepth = whole_number(name, "rolloutDepth", rolloutDepth, 0)
        self.evaluationFunction = evaluation_option(name, evalFn, weights, features, "better")
        kind = str(ghosts).strip().lower()
        if kind not in (CHANCE, MIN):
            raise OptionError(name, "ghosts", f"expected {CHANCE} or {MIN}, got {ghosts!r}")
        self.ghosts = kind
        self.exploration = _non_negative(name, "exploration", exploration)
        self.reuse = _flag(name, "reuse", reuse)
        #: The last search's statistics (None after a move made without searching).
        self.last_stats: MCTSStats | None = None
        #: Playouts over every move so far, and the moves searched.
        self.total_playouts = 0
        self.searches = 0
        self._last: MCTSResult[Turn, str] | None = None
        self._agents = 0
        self._teardown = 0.0

    def getAction(self, gameState: GameState) -> str:
        started = time.perf_counter()
        legal = gameState.getLegalActions(0)
        if len(legal) <= 1:  # nothing to decide (no action at all only at a terminal state)
            self._last = None
            self.last_stats = None
            return legal[0] if legal else Directions.STOP
        game = PacmanGame(gameState, self.evaluationFunction, self.ghosts)
        root = game.start()
        tree, bounds = self._continuation(root, game.num_agents)
        # The tree holds tens of thousands of objects but no reference cycles: reference
        # counting frees what the search drops, and the cyclic collector would only add pauses
        # (up to 40 ms near the deadline, and some 10% of the time, on smallClassic).
        deadline = None
        if self.timeLimit is not None:
            # Freeing the last tree took `_teardown` seconds; this one will take about as long.
            deadline = started + max(self.timeLimit - self._teardown, self.timeLimit / 2)
        collecting = gc.isenabled()
        gc.disable()
        try:
            result = mcts(
                game,
                root,
                evaluate=game.evaluate,
                playouts=self.playouts,
                deadline=deadline,
                rollout_depth=self.rolloutDepth,
                exploration=self.exploration,
                rng=self.rng,
                tree=tree,
                bounds=bounds,
            )
            action = result.action
            self.last_stats = result.stats
            self._last = result if self.reuse else None
            freeing = time.perf_counter()
            del result, tree  # the tree (but for what `_last` keeps) is freed here
            self._teardown = time.perf_counter() - freeing
        finally:
            if collecting:
                gc.enable()
        self.total_playouts += self.last_stats.playouts
        self.searches += 1
        self._agents = game.num_agents
        if action not in legal:  # cannot happen at a MAX root; never hand back an illegal move
            action = legal[0]
        return str(action)

    def _continuation(
        self, root: Turn, agents: int
    ) -> tuple[Node[Turn, str] | None, tuple[float, float] | None]:
        """The node of the last search whose state is `root` (one round after its root), if
        the last move was searched and the ghosts' replies were explored there."""
        last = self._last
        self._last = None
        if last is None or last.action is None or agents != self._agents:
            return None, None
        chosen = last.root.child(last.action)
        if chosen is None:
            return None, None
        node = chosen.find(root, agents - 1)
        if node is None:
            return None, None
        return node, last.bounds


__all__ = ["MCTSAgent"]
