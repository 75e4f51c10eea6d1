import os


class ZooAgent:
    """Class 5, shared resources: holds memory in an anonymous memory file (memfd), which an
    address space limit does not count.

    Expected: a crash (memfd_create is refused) or `memory` (the cgroup counts it).
    """

    def __init__(self, mb="512"):
        self.mb = int(mb)

    def getAction(self, state):
        fd = os.memfd_create("hoard")
        chunk = b"x" * (1 << 20)
        for _ in range(self.mb):
            os.write(fd, chunk)
        return state.getLegalActions(0)[0]
