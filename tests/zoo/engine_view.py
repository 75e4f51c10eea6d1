import os

import pacman

ENGINE = os.path.dirname(pacman.__file__)


class ZooAgent:
    """Class 4, the platform's code as its own (found by the ninth hostile review): the
    compiled build's library (`pacman/_fast__mypyc*.so`) sat beside the engine's sources,
    outside the folders hidden from teams, and held the compiled baselines and search, which a
    team could load by hand (ctypes on the modules' init capsules) and play at compiled speed.

    Expected: with the mounts layer, the engine's folder shows exactly the sources of the
    platform's allow list; nothing compiled, no cache, no baseline.
    """

    def registerInitialState(self, state):
        seen = []
        for folder, dirs, files in os.walk(ENGINE):
            dirs.sort()
            seen += [os.path.relpath(os.path.join(folder, name), ENGINE) for name in files]
        print("VIEW " + " ".join(sorted(seen)))

    def getAction(self, state):
        return state.getLegalActions(0)[0]
