import os


class ZooAgent:
    """Class 1, host metadata: changes the mode of its own team file through an open
    descriptor (fchmod), which no path rule sees.

    Expected: a crash; its file's mode is unchanged.
    """

    def getAction(self, state):
        fd = os.open(__file__, os.O_RDONLY)
        try:
            os.fchmod(fd, 0o777)
        finally:
            os.close(fd)
        return state.getLegalActions(0)[0]
