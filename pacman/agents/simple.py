"""Simple Pacman agents: references and sparring partners, not competitors."""

from __future__ import annotations

from collections.abc import Callable

from pacman.actions import Directions
from pacman.agents.base import Agent
from pacman.state import GameState


def scoreEvaluation(state: GameState) -> float:
    return state.getScore()


class RandomAgent(Agent):
    """Uniform over Pacman's legal moves."""

    def getAction(self, state: GameState) -> str:
        return str(self.rng.choice(state.getLegalPacmanActions()))


class LeftTurnAgent(Agent):
    """Turns left whenever it can, else goes straight, right, or back."""

    def getAction(self, state: GameState) -> str:
        legal = state.getLegalPacmanActions()
        current = state.getPacmanState().configuration.direction  # type: ignore[union-attr]
        if current == Directions.STOP:
            current = Directions.NORTH
        left = Directions.LEFT[current]
        for choice in (left, current, Directions.RIGHT[current], Directions.LEFT[left]):
            if choice in legal:
                return choice
        return Directions.STOP


class GreedyAgent(Agent):
    """Takes the move whose successor evaluates best (ties broken at random); never Stops."""

    def __init__(self, evalFn: str | Callable[[GameState], float] = "scoreEvaluation") -> None:
        super().__init__()
        if callable(evalFn):
            self.evaluationFunction = evalFn
        elif evalFn in ("scoreEvaluation", "score"):
            self.evaluationFunction = scoreEvaluation
        else:
            raise ValueError(f"GreedyAgent: unknown evalFn {evalFn!r} (expected scoreEvaluation)")

    def getAction(self, state: GameState) -> str:
        legal = [a for a in state.getLegalPacmanActions() if a != Directions.STOP]
        if not legal:
            return Directions.STOP
        scored = [(self.evaluationFunction(state.generateSuccessor(0, a)), a) for a in legal]
        best = max(score for score, _ in scored)
        return str(self.rng.choice([a for score, a in scored if score == best]))
