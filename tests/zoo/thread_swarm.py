import hashlib
import threading
import time


def churn(until):
    data = b"\0" * (8 << 20)
    while time.monotonic() < until:
        hashlib.sha256(data).digest()  # releases the GIL: the threads really run in parallel


class ZooAgent:
    """Class 5, shared resources: thinks with many threads that do not hold the GIL, to take
    every core from the games beside it.

    Expected: it plays on, using at most one CPU's worth of time whatever its thread count.
    """

    def __init__(self, threads="8", think="0.3"):
        self.threads = int(threads)
        self.think = float(think)

    def getAction(self, state):
        until = time.monotonic() + self.think
        workers = [threading.Thread(target=churn, args=(until,)) for _ in range(self.threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return state.getLegalActions(0)[0]
