class ZooAgent:
    """Plays a few legal moves, then fails in the middle of the game."""

    def __init__(self, after="3"):
        self.left = int(after)

    def getAction(self, state):
        if self.left == 0:
            raise ValueError("lost my way")
        self.left -= 1
        return state.getLegalActions(0)[0]
