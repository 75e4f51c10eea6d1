import os


class ZooAgent:
    """Tries to run a shell command that would leave a file behind, then plays on."""

    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        os.system(f"touch {self.target}")
        return state.getLegalActions(0)[0]
