import ctypes
import os
import signal
import time


def _burn(seconds):
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


class ZooAgent:
    """Runs out of time, then tries to have it called something else.

    `mode`: past the move's time limit, "slow" reports a memory error of its own, "exit"
    exits and "segv" dies of a segmentation fault. With a CPU limit: "catch" catches the
    kernel's SIGXCPU and raises MemoryError from the handler; "ignore" ignores SIGXCPU and
    burns on until the hard limit's SIGKILL; "play_on" catches it and answers on (spending
    less than the hard limit); "oom"
    catches it and fills its scratch and memory until the cgroup's OOM killer ends it;
    "garbage" ignores it, burns past the soft limit (not to the hard one) and writes garbage
    on its answer pipe (found by the ninth hostile review: a protocol error, a crash).
    Expected: a timeout every time, the referee's and the kernel's measures coming first.
    """

    def __init__(self, mode="slow"):
        self.mode = mode
        self.hog = []

    def getAction(self, state):
        if self.mode in ("slow", "exit", "segv"):
            time.sleep(0.6)
            if self.mode == "exit":
                os._exit(1)
            if self.mode == "segv":
                ctypes.string_at(0)
            raise MemoryError("not really")
        if self.mode == "catch":
            def handler(*_):
                raise MemoryError("not really")
            signal.signal(signal.SIGXCPU, handler)
        elif self.mode == "play_on":
            # 1.8 CPU seconds over its first moves, under the hard limit (the soft one + 2).
            signal.signal(signal.SIGXCPU, lambda *_: None)
            self.moves = getattr(self, "moves", 0) + 1
            if self.moves <= 6:
                _burn(0.3)
            return state.getLegalActions(0)[0]
        elif self.mode == "garbage":
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
            limit = __import__("resource").getrlimit(__import__("resource").RLIMIT_CPU)[0]
            while time.process_time() < limit + 0.3:
                pass
            for fd in range(3, 10):
                try:
                    os.write(fd, b"not json\n")
                except OSError:
                    pass
            signal.pause()
        elif self.mode == "oom":
            signal.signal(signal.SIGXCPU, lambda *_: self.fill())
        else:
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        _burn(30)
        return state.getLegalActions(0)[0]

    def fill(self):
        try:
            with open("fill", "wb") as fh:
                while True:
                    fh.write(b"x" * (1 << 20))
        except OSError:
            pass
        while True:
            try:
                self.hog.append(b"x" * (8 << 20))
            except MemoryError:
                break
        while True:
            pass
