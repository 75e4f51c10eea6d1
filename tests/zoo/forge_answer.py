import os
import sys
import time


def _harness():
    """The sandbox harness's frame: where the request number and answer pipe live."""
    frame = sys._getframe()
    while frame is not None and "seq" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals


class ZooAgent:
    """Writes its own answer on the referee's pipe: a legal move with a CPU figure that is a
    400-digit integer (too large for a float), then sleeps, hoping the referee's own reading
    of that answer fails and the game is recorded as the platform's failure, unscored.
    Found by the hostile review of the ghost side.

    Expected: a crash of its own (the referee could not read its answer).
    """

    def __init__(self, index=0, figure="1" + "0" * 400):
        self.index = index
        self.figure = figure

    def getAction(self, state):
        harness = _harness()
        legal = state.getLegalActions(self.index)[0]
        line = f'["action", {harness["seq"]}, "{legal}", "", {self.figure}]\n'
        os.write(harness["wfd"], line.encode())
        time.sleep(30)
        return legal
