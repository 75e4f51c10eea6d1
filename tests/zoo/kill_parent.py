import os
import signal
import time


class ZooAgent:
    """Kills its parent process, hoping it is the referee.

    Expected: with the namespaces layer, its parent is not in sight (getppid() is 0) and the
    game plays on; without it, its parent is the sandbox's keeper, and the agent dies with it
    (`killed`). It waits until the keeper is gone, so the verdict never depends on how busy
    the machine is.
    """

    def getAction(self, state):
        parent = os.getppid()
        try:
            os.kill(parent, signal.SIGKILL)
        except OSError:
            return state.getLegalActions(0)[0]
        deadline = time.monotonic() + 30
        while os.getppid() == parent and time.monotonic() < deadline:
            time.sleep(0.001)
        return state.getLegalActions(0)[0]
