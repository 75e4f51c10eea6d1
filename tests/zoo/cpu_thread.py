import threading


def burn():
    n = 0
    while True:
        n += 1


class ZooAgent:
    """Starts a thread that burns CPU for the whole game, then answers quickly."""

    def registerInitialState(self, state):
        threading.Thread(target=burn, daemon=True).start()

    def getAction(self, state):
        return state.getLegalActions(0)[0]
