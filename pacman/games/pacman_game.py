"""Pacman as a game of the search protocol (`pacman.search.core.Game`).

A search state is a `Turn`: the GameState and the index of the agent to move. Pacman is MAX;
every ghost is one MIN layer (minimax, alpha-beta) or one CHANCE layer (expectimax), so one
round is `getNumAgents()` plies and "depth d" in the course's sense is `d * getNumAgents()`
plies.

As in the course, the evaluation function is also the value of a won or lost state: a search
calls it both at the horizon and at terminal states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from pacman.search.core import CHANCE, MAX, MIN
from pacman.state import GameState

StateEvaluation = Callable[[GameState], float]


class Turn(NamedTuple):
    state: GameState
    agent: int


class PacmanGame:
    """Pacman and its ghosts as MAX against MIN (or CHANCE) layers."""

    def __init__(
        self, root: GameState, evaluation: StateEvaluation, ghosts: str = MIN
    ) -> None:
        if ghosts not in (MIN, CHANCE):
            raise ValueError(f"ghosts are searched as {MIN!r} or {CHANCE!r}, not {ghosts!r}")
        self.root = root
        self.evaluation = evaluation
        self.ghosts = ghosts
        self.num_agents = root.getNumAgents()

    def plies(self, depth: int) -> int:
        """The course's depth (full rounds) in plies."""
        return depth * self.num_agents

    def start(self) -> Turn:
        return Turn(self.root, 0)

    def player(self, turn: Turn) -> str:
        return MAX if turn.agent == 0 else self.ghosts

    def actions(self, turn: Turn) -> list[str]:
        return turn.state.getLegalActions(turn.agent)

    def successor(self, turn: Turn, action: str) -> Turn:
        nxt = turn.agent + 1
        return Turn(
            turn.state.generateSuccessor(turn.agent, action),
            0 if nxt == self.num_agents else nxt,
        )

    def is_terminal(self, turn: Turn) -> bool:
        return turn.state.isWin() or turn.state.isLose()

    def utility(self, turn: Turn) -> float:
        return self.evaluation(turn.state)

    def evaluate(self, turn: Turn) -> float:
        return self.evaluation(turn.state)
