import errno
import os


class ZooAgent:
    """Class 5, shared resources: fills its scratch folder with data, then with empty files,
    until it is stopped (on the host's /tmp this failed a concurrent game with ENOSPC).

    Expected: it plays on; it is stopped at its own cap (its output says where).
    """

    def registerInitialState(self, state):
        written = 0
        chunk = b"\0" * (1 << 20)
        try:
            with open("big", "wb") as fh:
                while written < (4 << 30):
                    fh.write(chunk)
                    fh.flush()
                    written += len(chunk)
        except OSError as exc:
            print("DATA STOPPED:", written >> 20, "MiB", errno.errorcode.get(exc.errno))
        os.unlink("big")
        made = 0
        try:
            os.mkdir("many")
            while made < 10**6:
                with open(f"many/{made}", "wb"):
                    made += 1
        except OSError as exc:
            print("FILES STOPPED:", made, errno.errorcode.get(exc.errno))

    def getAction(self, state):
        return state.getLegalActions(0)[0]
