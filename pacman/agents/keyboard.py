"""A person playing Pacman with the arrow keys or WASD in the pygame window."""

from __future__ import annotations

from pacman.actions import Directions
from pacman.agents.base import Agent
from pacman.display import keys
from pacman.state import GameState

_KEY_TO_DIRECTION = {
    "Left": Directions.WEST,
    "a": Directions.WEST,
    "Right": Directions.EAST,
    "d": Directions.EAST,
    "Up": Directions.NORTH,
    "w": Directions.NORTH,
    "Down": Directions.SOUTH,
    "s": Directions.SOUTH,
}
#: Space pauses the window, so only `q` stops Pacman.
_STOP_KEYS = {"q"}


class KeyboardAgent(Agent):
    """Goes where the last pressed key says, and keeps going until a wall stops it."""

    def __init__(self, index: int = 0) -> None:
        super().__init__(index)
        self.last_move = Directions.STOP

    def getAction(self, state: GameState) -> str:
        legal = state.getLegalActions(self.index)
        pressed = keys.take()
        wanted = [d for k, d in _KEY_TO_DIRECTION.items() if k in pressed]
        move = next((d for d in wanted if d in legal), None)
        if move is None and pressed & _STOP_KEYS and Directions.STOP in legal:
            move = Directions.STOP
        if move is None:
            move = self.last_move if self.last_move in legal else None
        if move is None:
            move = Directions.STOP if Directions.STOP in legal else legal[0]
        self.last_move = move
        return move
