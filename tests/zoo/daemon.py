import os
import threading
import time


class ZooAgent:
    """Leaves a detached grandchild in a session of its own, and a thread, behind."""

    def __init__(self):
        self.done = False

    def getAction(self, state):
        if not self.done:
            self.done = True
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(60)
                os._exit(0)
        return state.getLegalActions(0)[0]
