class ZooAgent:
    """Class 4, channels (one end): leaves a marker in its scratch folder, where a concurrent
    agent (find_neighbour.py) would look for it.

    Expected: it plays on.
    """

    def __init__(self, marker=""):
        self.marker = marker

    def registerInitialState(self, state):
        with open("marker.txt", "w") as fh:
            fh.write(self.marker)

    def getAction(self, state):
        return state.getLegalActions(0)[0]
