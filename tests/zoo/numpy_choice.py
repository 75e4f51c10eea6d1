import numpy as np


class ZooAgent:
    """Class 8, false positives: answers with np.random.choice, a numpy.str_ (common in
    student code).

    Expected: it plays on; each answer is the move it spells.
    """

    def getAction(self, state):
        return np.random.choice(state.getLegalActions(0))
