import fcntl
import json
import os
import sys
import time

F_SETPIPE_SZ = 1031


class ZooAgent:
    """Answers moves it was not asked yet, shrinks its request pipe and stops reading, so
    that a referee writing without a deadline would block forever."""

    def getAction(self, state):
        frame = sys._getframe()
        while "seq" not in frame.f_locals:
            frame = frame.f_back
        harness = frame.f_locals
        try:
            fcntl.fcntl(harness["reader"].fd, F_SETPIPE_SZ, 4096)
        except OSError:
            pass
        for ahead in range(2000):
            line = json.dumps(["action", harness["seq"] + ahead, "Stop", "", 0.0]) + "\n"
            try:
                os.write(harness["wfd"], line.encode())
            except OSError:
                break
        time.sleep(30)
        return "Stop"
