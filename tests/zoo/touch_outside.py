import os


class ZooAgent:
    """Class 1, host metadata: sets the times of a file outside its folder (utime).

    Expected: a crash; the file's times are unchanged.
    """

    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        os.utime(self.target, (0, 0))
        return state.getLegalActions(0)[0]
