import resource


class ZooAgent:
    """Class 5, shared resources (found by the second hostile review): raises its own CPU
    soft limit to the hard one, to think longer than the limit the organizer set.

    Expected: a crash (it may read its limits, not set them).
    """

    def getAction(self, state):
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
        return state.getLegalActions(0)[0]
