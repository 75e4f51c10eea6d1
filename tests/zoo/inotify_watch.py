import ctypes
import os


class ZooAgent:
    """Class 4, channels: watches file names with inotify (how one agent found another's
    scratch folder).

    Expected: a crash (inotify is refused).
    """

    def getAction(self, state):
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(0)
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"inotify_init1: {os.strerror(code)}")
        return state.getLegalActions(0)[0]
