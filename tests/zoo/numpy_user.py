"""An honest agent that uses numpy (as many students do): its OpenBLAS starts a thread per CPU
of the host when imported, unless told otherwise (the fifteenth hostile review)."""

import numpy as np
from game import Agent


class ZooAgent(Agent):
    def getAction(self, state):
        grid = np.arange(64, dtype=float).reshape(8, 8)
        (grid @ grid).sum()
        return state.getLegalActions(0)[0]
