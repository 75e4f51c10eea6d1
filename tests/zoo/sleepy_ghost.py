import time


class ZooAgent:
    """A well-behaved but slow ghost, so the game lasts while Pacman is idle."""

    def __init__(self, index, delay="0.03"):
        self.index = index
        self.delay = float(delay)

    def getAction(self, state):
        time.sleep(self.delay)
        return state.getLegalActions(self.index)[0]
