import os


class ZooAgent:
    """Class 5, shared resources: writes 32 MiB straight to descriptor 1, past Python's
    streams, where the output limit would not see it (it used to land in a file on the host's
    disk, up to the file size limit, for every sandbox at once).

    Expected: it plays on; the referee keeps its first `output_kb` and drops the rest.
    """

    def registerInitialState(self, state):
        chunk = b"x" * (1 << 20)
        for _ in range(32):
            os.write(1, chunk)

    def getAction(self, state):
        return state.getLegalActions(0)[0]
