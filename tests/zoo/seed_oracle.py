import random

from pacman.seeds import derive_seed

# Its random state as the platform seeded it, taken before anything draws from it.
START = random.getstate()


class ZooAgent:
    """Class 9, predictable games (found by the hostile review): recognises its game among
    candidate seeds (a tournament's seeds follow from its public config) by its own random
    state, which would give it the ghosts' stream too, and so every ghost move to come.

    Expected: it plays on and recognises nothing when the game has a secret.
    """

    def __init__(self, candidates=""):
        self.candidates = [int(c) for c in candidates.split("-") if c]

    def registerInitialState(self, state):
        probe = random.Random()
        for seed in self.candidates:
            probe.seed(derive_seed(seed, "agents"))
            if probe.getstate() == START:
                print("RECOGNISED", seed)

    def getAction(self, state):
        return state.getLegalActions(0)[0]
