"""pacman-arena's engine: the classic Berkeley Pacman rules, fast, with the course's agent API.

`from pacman import GameState` works as in the course, so student files run unchanged.
"""

# First: whether the compiled build (if one is there) or the sources run (`pacman.compiled`).
from pacman import compiled

compiled.choose()

from pacman.actions import Actions, Directions  # noqa: E402
from pacman.rules import COLLISION_TOLERANCE, SCARED_TIME, TIME_PENALTY  # noqa: E402
from pacman.state import GameState  # noqa: E402

# The course's pacman.py exposes these too; course files import them from `pacman` (the
# constants: evaluation functions that reason about a capsule's 40 moves).
__all__ = ["COLLISION_TOLERANCE", "SCARED_TIME", "TIME_PENALTY", "Actions", "Directions",
           "GameState"]
__version__ = "0.1.0"
