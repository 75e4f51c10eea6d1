"""Plays on, then fails in `final()`: the course shows that failure (and ends the run without
-c), so a sandbox must not drop it (the fifteenth hostile review)."""


class ZooAgent:
    def getAction(self, state):
        return state.getLegalActions(0)[0]

    def final(self, state):
        raise RuntimeError("bug in final")
