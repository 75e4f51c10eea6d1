import ctypes
import threading

NAME = b"\xff\xfe) 7 7 (\xc3\x28"


def rename():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(15, ctypes.create_string_buffer(NAME), 0, 0, 0)  # PR_SET_NAME


class ZooAgent:
    """Class 3, agent-controlled text about its process: names its threads with invalid
    UTF-8, parentheses and spaces, which the referee reads back in /proc/<pid>/stat.

    Expected: it plays on, its CPU time is read, the game is scored (never infra_error).
    """

    def registerInitialState(self, state):
        rename()
        worker = threading.Thread(target=rename)
        worker.start()
        worker.join()

    def getAction(self, state):
        rename()
        return state.getLegalActions(0)[0]
