class ZooAgent:
    """Reads another team's file and leaks it through its own output."""

    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        with open(self.target) as fh:
            print("STOLEN:", fh.read())
        return state.getLegalActions(0)[0]
