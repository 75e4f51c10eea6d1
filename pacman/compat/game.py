"""The course's `game` module, as student files import it (`from game import Agent, ...`).

Only the names agents use are here; they are the engine's own classes.
"""

from pacman.actions import Actions, Directions
from pacman.agents.base import Agent
from pacman.grid import Grid
from pacman.state import AgentState, Configuration, GameState

__all__ = ["Actions", "Agent", "AgentState", "Configuration", "Directions", "GameState", "Grid"]
