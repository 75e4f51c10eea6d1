class ZooAgent:
    def getAction(self, state):
        legal = state.getLegalActions(0)
        return next(d for d in ("North", "South", "East", "West") if d not in legal)
