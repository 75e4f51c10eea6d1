"""An honest agent that imports a library module: the interpreter must find that module's own
compiled file, not compile it again in every game on the agent's clock (the fifteenth hostile
review: a prefix for all bytecode made numpy and pandas compile from source every game)."""

import fractions
import sys

print("CACHED", fractions.__cached__, "PREFIX", sys.pycache_prefix)


class ZooAgent:
    def getAction(self, state):
        return state.getLegalActions(0)[0]
