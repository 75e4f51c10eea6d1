"""The course's `Agent` base class (imported by students as `from game import Agent`)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pacman.state import GameState


class Agent:
    """An agent is asked for one action per turn: `getAction(state)`.

    Optional hooks: `registerInitialState(state)` before the first move, `final(state)` after
    the game. `rng` is the random stream of built-in agents: the game runner gives built-in
    ghosts one seeded stream and a built-in Pacman another; everything else uses the global
    `random` module, which the runner seeds per game.
    """

    rng: Any = random

    def __init__(self, index: int = 0) -> None:
        self.index = index

    def getAction(self, state: GameState) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not define getAction")
