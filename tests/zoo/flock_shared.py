import fcntl
import os


class ZooAgent:
    """Class 4, channels: takes a lock on a file every sandbox can read (the engine's own
    source), a one-bit channel between concurrent agents.

    Expected: a crash (locks are refused).
    """

    def getAction(self, state):
        import pacman

        path = os.path.join(os.path.dirname(pacman.__file__), "__init__.py")
        with open(path, "rb") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return state.getLegalActions(0)[0]
