"""Plays the zoo agent beside it (`agent.py`, class `ZooAgent`) as a ghost team: one
`ZooAgent` per ghost, each seeing the state as if it were Pacman (index 0 is the ghost it
plays), so that every zoo case can be played on the ghost side too."""

import agent


class _AsPacman:
    """The state with index 0 standing for ghost `index`."""

    def __init__(self, state, index):
        self._state = state
        self._index = index

    def getLegalActions(self, agentIndex=0):
        return self._state.getLegalActions(agentIndex or self._index)

    def generateSuccessor(self, agentIndex, action):
        return self._state.generateSuccessor(agentIndex or self._index, action)

    def __getattr__(self, name):
        return getattr(self._state, name)


class ZooGhost:
    def __init__(self, index, **options):
        self.index = index
        self.agent = agent.ZooAgent(**options)

    def registerInitialState(self, state):
        hook = getattr(self.agent, "registerInitialState", None)
        if hook is not None:
            hook(_AsPacman(state, self.index))

    def getAction(self, state):
        return self.agent.getAction(_AsPacman(state, self.index))

    def final(self, state):
        hook = getattr(self.agent, "final", None)
        if hook is not None:
            hook(_AsPacman(state, self.index))
