import random


class ZooAgent:
    """The well-behaved neighbour: greedy on the score, ties broken by the seeded stream."""

    def getAction(self, state):
        legal = [a for a in state.getLegalActions(0) if a != "Stop"]
        scores = [state.generateSuccessor(0, a).getScore() for a in legal]
        best = max(scores)
        return random.choice([a for a, s in zip(legal, scores) if s == best])
