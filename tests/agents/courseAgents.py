# Written like the course's own pacmanAgents.py header: it imports from `pacman` and `game`.
import random

import game

from pacman import Actions, Directions


class CourseStyleAgent(game.Agent):
    def getAction(self, state):
        legal = [a for a in state.getLegalPacmanActions() if a != Directions.STOP]
        assert Actions.reverseDirection(Directions.NORTH) == Directions.SOUTH
        return random.choice(legal)
