import ctypes
import threading
import time

# Each move leaves a thread inside one long system call: mmap(MAP_POPULATE) zeroes the whole
# region page by page in the kernel, where SIGSTOP does not reach until the call returns.
SIZE = 400 << 20
PROT_RW, MAP_PRIVATE, MAP_ANONYMOUS, MAP_POPULATE = 3, 0x02, 0x20, 0x8000
libc = ctypes.CDLL(None, use_errno=True)  # a CDLL call releases the GIL
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def populate(started):
    started.set()
    address = libc.mmap(None, SIZE, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
    if address not in (None, ctypes.c_void_p(-1).value):
        libc.munmap(address, SIZE)


class ZooAgent:
    """Answers at once, leaving kernel work behind its answer (the thirteenth hostile review:
    it ran while the agent was 'paused', on its opponent's time)."""

    def __init__(self):
        self.worker = None

    def getAction(self, state):
        if self.worker is not None:
            self.worker.join()
        started = threading.Event()
        self.worker = threading.Thread(target=populate, args=(started,), daemon=True)
        self.worker.start()
        started.wait()
        time.sleep(0.005)  # inside its system call by now
        return state.getLegalActions(0)[0]
