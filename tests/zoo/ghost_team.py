"""A course-style ghost team (its own copy of the course's `GhostAgent`, as `ghostAgents.py`
defines it), for the ghost-entrant tests: `ChasingGhost` gives a distribution the base class
samples with `util.chooseFromDistribution`, as the course's DirectionalGhost does.

Options (strings, as with `--ghostArgs`): `prob_attack`; `draws`, random numbers drawn per
move from the process's `random` (a ghost team's stream is its own: Pacman's must not move);
`fail_index`, `how` and `after`: ghost `fail_index` misbehaves (`crash`, `sleep`, `illegal`)
once it has made `after` moves, the other ghosts play on.
"""

import os
import random
import time

import util
from game import Actions, Agent, Directions
from util import manhattanDistance


class GhostAgent(Agent):
    def __init__(self, index):
        self.index = index

    def getAction(self, state):
        dist = self.getDistribution(state)
        if len(dist) == 0:
            return Directions.STOP
        return util.chooseFromDistribution(dist)

    def getDistribution(self, state):
        util.raiseNotDefined()


class ChasingGhost(GhostAgent):
    def __init__(self, index, prob_attack="0.8", draws="0", fail_index="0", how="none",
                 after="0"):
        super().__init__(index)
        self.prob_attack = float(prob_attack)
        self.draws = int(draws)
        self.fails = int(fail_index) == index
        self.how = how
        self.left = int(after)
        print(f"BUILT {index} IN {os.getpid()}")

    def registerInitialState(self, state):
        print(f"REGISTERED {self.index}")

    def getAction(self, state):
        for _ in range(self.draws):
            random.random()
        if self.fails:
            if self.left == 0:
                if self.how == "crash":
                    raise RuntimeError(f"ghost {self.index} gave up")
                if self.how == "sleep":
                    time.sleep(3600)
                if self.how == "illegal":
                    return "Jump"
            self.left -= 1
        return super().getAction(state)

    def getDistribution(self, state):
        legal = state.getLegalActions(self.index)
        pos = state.getGhostPosition(self.index)
        scared = state.getGhostState(self.index).scaredTimer > 0
        speed = 0.5 if scared else 1
        moved = [Actions.directionToVector(a, speed) for a in legal]
        spots = [(pos[0] + dx, pos[1] + dy) for dx, dy in moved]
        pacman = state.getPacmanPosition()
        distances = [manhattanDistance(p, pacman) for p in spots]
        best = max(distances) if scared else min(distances)
        chosen = [a for a, d in zip(legal, distances) if d == best]
        dist = util.Counter()
        for a in chosen:
            dist[a] = self.prob_attack / len(chosen)
        for a in legal:
            dist[a] += (1 - self.prob_attack) / len(legal)
        dist.normalize()
        return dist

    def final(self, state):
        print(f"FINAL {self.index}")
