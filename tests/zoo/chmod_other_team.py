import os


class ZooAgent:
    """Class 1, host metadata: makes another team's folder unreadable (mode 000), so that
    team's next games would fail and be blamed on it.

    Expected: a crash; the other team's folder is unchanged.
    """

    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        os.chmod(self.target, 0)
        return state.getLegalActions(0)[0]
