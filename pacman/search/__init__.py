"""Adversarial search over a small game protocol (see `pacman.search.core`)."""

from pacman.search.core import (
    CHANCE,
    MAX,
    MIN,
    Decision,
    Game,
    SearchStats,
    alphabeta,
    expectimax,
    minimax,
)

__all__ = [
    "CHANCE",
    "MAX",
    "MIN",
    "Decision",
    "Game",
    "SearchStats",
    "alphabeta",
    "expectimax",
    "minimax",
]
