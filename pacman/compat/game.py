"""The course's `game` module, as student files import it (`from game import Agent, ...`).

Only the names agents use are here; they are the engine's own classes, and util's names.
"""

from pacman.actions import Actions, Directions
from pacman.agents.base import Agent
from pacman.compat import util
from pacman.compat.util import *  # noqa: F403  (the course's game.py starts `from util import *`)
from pacman.grid import Grid
from pacman.state import AgentState, Configuration, GameState

#: Its own names, and util's, which the course's `game` re-exports to `from game import *`.
__all__ = ["Actions", "Agent", "AgentState", "Configuration", "Directions", "GameState", "Grid",
           *util.__all__]
