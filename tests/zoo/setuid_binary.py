import os


class ZooAgent:
    """Class 1, host metadata: sets the setuid bit on a program outside its folder.

    Expected: a crash; the program's mode is unchanged.
    """

    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        os.chmod(self.target, 0o4755)
        return state.getLegalActions(0)[0]
