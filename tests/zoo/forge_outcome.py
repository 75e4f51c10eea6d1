import json
import os
import sys


def _harness():
    """The sandbox harness's frame: where the request number and answer pipe live."""
    frame = sys._getframe()
    while frame is not None and "seq" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals


class ZooAgent:
    """Writes its own answer on the referee's pipe: an error of a kind and wording it chooses.

    Expected: a crash of its own, whatever it wrote (its words only ever appear quoted).
    """

    def __init__(self, kind="win", exc_type="", text="I say so"):
        self.kind = kind
        self.exc_type = exc_type
        self.text = text

    def getAction(self, state):
        harness = _harness()
        line = json.dumps(["error", harness["seq"], self.kind, self.exc_type, self.text, ""]) + "\n"
        os.write(harness["wfd"], line.encode())
        return state.getLegalActions(0)[0]
