import signal
import time


def _burn(seconds):
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


class ZooAgent:
    """Runs out of time, then tries to have it called something else.

    `mode`: "slow" sleeps past the move's time limit and then reports a memory error of its
    own; "catch" catches the kernel's SIGXCPU (its CPU limit) and raises MemoryError from the
    handler; "ignore" ignores SIGXCPU and burns on until the kernel's hard limit kills it.
    Expected: a timeout every time, the referee's and the kernel's measures coming first.
    """

    def __init__(self, mode="slow"):
        self.mode = mode

    def getAction(self, state):
        if self.mode == "slow":
            time.sleep(0.6)
            raise MemoryError("not really")
        if self.mode == "catch":
            def handler(*_):
                raise MemoryError("not really")
            signal.signal(signal.SIGXCPU, handler)
        else:
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        _burn(30)
        return state.getLegalActions(0)[0]
