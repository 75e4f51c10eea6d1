class ZooAgent:
    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        with open(self.target, "w") as fh:
            fh.write("I was here")
        return state.getLegalActions(0)[0]
