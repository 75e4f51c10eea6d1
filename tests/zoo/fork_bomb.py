import os
import time


class ZooAgent:
    """A fork bomb with a ceiling (so that a machine without any layer survives the test)."""

    def getAction(self, state):
        for _ in range(200):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
        return state.getLegalActions(0)[0]
