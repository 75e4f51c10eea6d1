import fcntl
import os
import threading


def _flood(source):
    while True:
        try:
            os.sendfile(1, source, 0, 1 << 20)
        except OSError:
            pass


class ZooAgent:
    """Class 5, shared resources (found by the third hostile review): output that the kernel
    writes (sendfile from a page-cache file of its scratch, in threads that never stop) can
    refill its pipe as fast as the referee empties it, so a referee that drains until the pipe
    is empty would never return to its game.

    Expected: it plays on, its log is capped and the referee reads at most a bounded amount
    each time it wakes up.
    """

    def __init__(self, threads="2"):
        self.threads = int(threads)
        self.started = False

    def getAction(self, state):
        if not self.started:
            self.started = True
            with open("page", "wb") as fh:
                fh.write(b"z" * (1 << 20))
            source = os.open("page", os.O_RDONLY)
            fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK)
            for _ in range(self.threads):
                threading.Thread(target=_flood, args=(source,), daemon=True).start()
        return state.getLegalActions(0)[0]
