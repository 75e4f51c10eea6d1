import time


class ZooAgent:
    """Every move takes `delay` seconds."""

    def __init__(self, delay="0.2"):
        self.delay = float(delay)

    def getAction(self, state):
        time.sleep(self.delay)
        return state.getLegalActions(0)[0]
