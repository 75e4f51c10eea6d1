"""How a DirectionalGhost weighs its moves, as a pure function.

Its own home because two kinds of code use the very same numbers: the built-in
`DirectionalGhost` draws its moves from them, and searches model such ghosts with them
(`pacman.games.pacman_game`, the ghost teams' search).
"""

from __future__ import annotations

from pacman.actions import Actions
from pacman.compat.util import manhattanDistance


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
