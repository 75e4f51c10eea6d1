class Move(str):
    """A str subclass whose comparisons lie: only its value may count."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


class ZooAgent:
    """Class 8, false positives: answers with a str subclass whose value is a legal move.

    Expected: it plays on; each answer is the move its value spells.
    """

    def getAction(self, state):
        return Move(state.getLegalActions(0)[-1])
