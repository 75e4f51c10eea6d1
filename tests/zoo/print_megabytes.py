import os


class ZooAgent:
    def getAction(self, state):
        print("x" * (2 * 1024 * 1024))
        try:
            os.write(1, b"y" * (2 * 1024 * 1024))
        except OSError:
            pass
        return state.getLegalActions(0)[0]
