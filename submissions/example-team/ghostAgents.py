# An example ghost team, written the way the course writes ghosts (ghostAgents.py): a ghost
# is an Agent with an index, and getDistribution says how likely each legal move is. The
# platform builds this class once per ghost of the layout, all in the team's one process.
import util
from game import Actions, Agent, Directions


class ExampleGhost(Agent):
    """Heads for Pacman (or away from it when scared) most of the time; the first ghost
    chases where Pacman is, the others where it is heading, so they close in from two sides."""

    def __init__(self, index, prob_chase="0.8"):
        self.index = index
        self.prob_chase = float(prob_chase)

    def getAction(self, state):
        dist = self.getDistribution(state)
        if len(dist) == 0:
            return Directions.STOP
        return util.chooseFromDistribution(dist)

    def getDistribution(self, state):
        legal = state.getLegalActions(self.index)
        ghost = state.getGhostState(self.index)
        scared = ghost.scaredTimer > 0
        x, y = state.getGhostPosition(self.index)
        target = state.getPacmanPosition()
        if self.index > 1 and not scared:
            # Aim a few steps ahead of Pacman, where it is going.
            dx, dy = Actions.directionToVector(state.getPacmanState().getDirection())
            target = (target[0] + 3 * dx, target[1] + 3 * dy)
        distances = {}
        for action in legal:
            vx, vy = Actions.directionToVector(action, 1.0 if not scared else 0.5)
            distances[action] = util.manhattanDistance((x + vx, y + vy), target)
        best = max(distances.values()) if scared else min(distances.values())
        best_actions = [a for a, d in distances.items() if d == best]
        dist = util.Counter()
        for action in best_actions:
            dist[action] = self.prob_chase / len(best_actions)
        for action in legal:
            dist[action] += (1 - self.prob_chase) / len(legal)
        dist.normalize()
        return dist
