# A CS188-style agent file written for the tests: course imports, util.lookup for evalFn,
# `better` as an alias, string options, the global random module.
import random

import util
from game import Actions, Agent, Directions
from util import manhattanDistance

from pacman import GameState


def scoreEvaluationFunction(currentGameState: GameState):
    return currentGameState.getScore()


def closestFoodEvaluation(currentGameState: GameState):
    pos = currentGameState.getPacmanPosition()
    food = currentGameState.getFood().asList()
    nearest = min((manhattanDistance(pos, f) for f in food), default=0)
    return currentGameState.getScore() - nearest


better = closestFoodEvaluation


class MultiAgentSearchAgent(Agent):
    def __init__(self, evalFn="scoreEvaluationFunction", depth="2"):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)


class MinimaxAgent(MultiAgentSearchAgent):
    def getAction(self, gameState):
        def value(state, agent, depth):
            if state.isWin() or state.isLose() or depth == self.depth:
                return self.evaluationFunction(state)
            nxt = (agent + 1) % state.getNumAgents()
            nd = depth + 1 if nxt == 0 else depth
            vals = [value(state.generateSuccessor(agent, a), nxt, nd)
                    for a in state.getLegalActions(agent)]
            return max(vals) if agent == 0 else min(vals)

        scored = [(value(gameState.generateSuccessor(0, a), 1 % gameState.getNumAgents(),
                         1 if gameState.getNumAgents() == 1 else 0), a)
                  for a in gameState.getLegalActions(0)]
        best = max(s for s, _ in scored)
        return random.choice([a for s, a in scored if s == best])


class WandererAgent(Agent):
    """Uses Actions and Directions from `game` and the global random stream."""

    def getAction(self, state):
        legal = state.getLegalPacmanActions()
        x, y = state.getPacmanPosition()
        moves = [a for a in legal if a != Directions.STOP]
        dx, dy = Actions.directionToVector(random.choice(moves))
        assert not state.hasWall(int(x + dx), int(y + dy))
        counter = util.Counter()
        for a in moves:
            counter[a] = random.random()
        return counter.argMax()


class NoneAgent(Agent):
    def getAction(self, state):
        return None


class CrashAgent(Agent):
    def getAction(self, state):
        return 1 / 0


class UnfinishedAgent(Agent):
    """A student's unimplemented method: the course's util.raiseNotDefined() exits."""

    def getAction(self, state):
        print("thinking...")
        util.raiseNotDefined()
