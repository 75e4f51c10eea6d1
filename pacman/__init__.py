"""pacman-arena's engine: the classic Berkeley Pacman rules, fast, with the course's agent API.

`from pacman import GameState` works as in the course, so student files run unchanged.
"""

from pacman.state import GameState

__all__ = ["GameState"]
__version__ = "0.1.0"
