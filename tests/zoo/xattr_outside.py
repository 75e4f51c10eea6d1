import os


class ZooAgent:
    """Class 1, host metadata: sets an extended attribute on a file outside its folder.

    Expected: a crash; the file is unchanged (its ctime too).
    """

    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        os.setxattr(self.target, "user.pwned", b"1")
        return state.getLegalActions(0)[0]
