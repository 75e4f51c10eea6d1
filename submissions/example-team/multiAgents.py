# An example submission, written the way a CS188 student writes multiAgents.py: it imports
# the course's modules by their course names and runs unchanged on pacman-arena.
import random

import util
from game import Agent, Directions
from util import manhattanDistance

from pacman import GameState


def cautiousEvaluation(state: GameState) -> float:
    """Score, plus a pull towards the nearest food, minus fear of ghosts that are not scared."""
    if state.isWin() or state.isLose():
        return state.getScore()
    pos = state.getPacmanPosition()
    food = state.getFood().asList()
    value = state.getScore()
    if food:
        value += 10.0 / (1 + min(manhattanDistance(pos, f) for f in food))
    for ghost in state.getGhostStates():
        d = manhattanDistance(pos, ghost.getPosition())
        if ghost.scaredTimer > 0:
            value += 50.0 / (1 + d)
        elif d < 2:
            value -= 300
    return value


better = cautiousEvaluation


class ExampleExpectimaxAgent(Agent):
    """Depth-limited expectimax: Pacman maximises, ghosts are assumed to move at random."""

    def __init__(self, evalFn="better", depth="2"):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)

    def getAction(self, gameState):
        legal = gameState.getLegalActions(0)
        best, choices = None, []
        for action in legal:
            value = self.value(gameState.generateSuccessor(0, action), 1, self.depth)
            if best is None or value > best:
                best, choices = value, [action]
            elif value == best:
                choices.append(action)
        if Directions.STOP in choices and len(choices) > 1:
            choices.remove(Directions.STOP)
        return random.choice(choices)

    def value(self, state, agent, depth):
        if state.isWin() or state.isLose():
            return self.evaluationFunction(state)
        if agent == state.getNumAgents():
            agent, depth = 0, depth - 1
        if depth == 0:
            return self.evaluationFunction(state)
        actions = state.getLegalActions(agent)
        values = [self.value(state.generateSuccessor(agent, a), agent + 1, depth) for a in actions]
        if agent == 0:
            return max(values)
        return sum(values) / len(values)
