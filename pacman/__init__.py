"""pacman-arena's engine: the classic Berkeley Pacman rules, fast, with the course's agent API.

`from pacman import GameState` works as in the course, so student files run unchanged.
"""

from pacman.actions import Actions, Directions
from pacman.state import GameState

# The course's pacman.py exposes these too; course files import them from `pacman`.
__all__ = ["Actions", "Directions", "GameState"]
__version__ = "0.1.0"
