"""The course's built-in ghosts.

Both sample their move the course's way (`util.sample` over the distribution's keys in sorted
order, one `random()` draw per move), so with the same random stream they make the same moves
as the reference engine's ghosts.
"""

from __future__ import annotations

from pacman.actions import Actions, Directions
from pacman.agents.base import Agent
from pacman.compat.util import Counter, manhattanDistance, sample
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


def directional_weights(
    pos: tuple[float, float],
    legal: list[str],
    pacman: tuple[float, float],
    scared: bool,
    prob_attack: float = 0.8,
    prob_flee: float = 0.8,
) -> dict[str, float]:
    """A DirectionalGhost's unnormalised move weights (they sum to 1 up to rounding).

    Pure, so that a searching Pacman can model these ghosts with the very numbers they draw
    from (`pacman.games.pacman_game`). The dict's order (the best moves first: closest, or
    farthest when scared; then the rest in legal order) and its float arithmetic are the
    reference engine's: `normalize()` sums in that order, so the probabilities come out
    bit-identical to its own.
    """
    speed = 0.5 if scared else 1
    vectors = [Actions.directionToVector(a, speed) for a in legal]
    new_positions = [(pos[0] + dx, pos[1] + dy) for dx, dy in vectors]
    distances = [manhattanDistance(p, pacman) for p in new_positions]
    if scared:
        best_score, best_prob = max(distances), prob_flee
    else:
        best_score, best_prob = min(distances), prob_attack
    best = [a for a, d in zip(legal, distances) if d == best_score]
    weights: dict[str, float] = {}
    for a in best:
        weights[a] = best_prob / len(best)
    for a in legal:
        weights[a] = weights.get(a, 0) + (1 - best_prob) / len(legal)
    return weights
