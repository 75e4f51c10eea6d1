"""The course's built-in ghosts.

Both sample their move the course's way (`util.sample` over the distribution's keys in sorted
order, one `random()` draw per move), so with the same random stream they make the same moves
as the reference engine's ghosts.
"""

from __future__ import annotations

from pacman.actions import Directions
from pacman.agents.base import Agent
from pacman.compat.util import Counter, sample
from pacman.ghost_model import directional_weights
from pacman.state import GameState


class GhostAgent(Agent):
    def getDistribution(self, state: GameState) -> Counter:
        raise NotImplementedError

    def getAction(self, state: GameState) -> str:
        dist = self.getDistribution(state)
        if not dist:
            return Directions.STOP
        return str(sample(dist, rng=self.rng))


class RandomGhost(GhostAgent):
    """Uniform over its legal moves."""

    def getAction(self, state: GameState) -> str:
        # The same draw as sampling getDistribution() (sorted keys, probabilities 1.0/n,
        # renormalised when they do not sum to 1), without building Counters on every move.
        legal = sorted(state.getLegalActions(self.index))
        if not legal:
            return Directions.STOP
        n = len(legal)
        probs = _UNIFORM.get(n)
        if probs is None:
            probs = _UNIFORM[n] = _uniform(n)
        choice = self.rng.random()
        i, total = 0, probs[0]
        while choice > total:
            i += 1
            total += probs[i]
        return legal[i]

    def getDistribution(self, state: GameState) -> Counter:
        dist = Counter()
        for a in state.getLegalActions(self.index):
            dist[a] = 1.0
        dist.normalize()
        return dist


def _uniform(n: int) -> list[float]:
    probs = [1.0 / float(n)] * n
    total = sum(probs)
    return probs if total == 1 else [p / total for p in probs]


_UNIFORM: dict[int, list[float]] = {}


class DirectionalGhost(GhostAgent):
    """Chases Pacman (flees when scared) with probability prob_attack (prob_scaredFlee)."""

    def __init__(
        self, index: int, prob_attack: float | str = 0.8, prob_scaredFlee: float | str = 0.8
    ) -> None:
        super().__init__(index)
        self.prob_attack = float(prob_attack)
        self.prob_scaredFlee = float(prob_scaredFlee)

    def getDistribution(self, state: GameState) -> Counter:
        dist = Counter(
            directional_weights(
                state.getGhostPosition(self.index),
                state.getLegalActions(self.index),
                state.getPacmanPosition(),
                state.getGhostState(self.index).scaredTimer > 0,
                self.prob_attack,
                self.prob_scaredFlee,
            )
        )
        dist.normalize()
        return dist
