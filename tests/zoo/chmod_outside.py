import os


class ZooAgent:
    """Class 1, host metadata: makes a file outside its folder world-writable (chmod).

    Expected: a crash (the call is refused, or the file is not there for it); the file's mode
    is unchanged.
    """

    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        os.chmod(self.target, 0o666)
        return state.getLegalActions(0)[0]
