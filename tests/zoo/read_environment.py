import ctypes
import os


def initial_stack():
    """The top of the stack, where the kernel put the environment the process started with.

    Read by writing it to a file: write() fails cleanly (EFAULT) past the end of the mapping,
    where reading it directly would crash.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    start = ctypes.c_void_p.in_dll(libc, "__libc_stack_end").value
    out = bytearray()
    fd = os.open("stack-copy", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for page in range(64):
            address = start + 4096 * page
            done = libc.write(fd, ctypes.c_void_p(address), 4096)
            if done > 0:
                out += ctypes.string_at(address, done)
            if done != 4096:
                break
    finally:
        os.close(fd)
    return bytes(out)


class ZooAgent:
    """Class 2, the organizer's environment: prints every environment string it can find,
    in os.environ, /proc/self/environ and the initial stack of its process.

    Expected: it plays on; none of the organizer's variables is in its output.
    """

    def registerInitialState(self, state):
        found = [f"{k}={v}" for k, v in os.environ.items()]
        try:
            with open("/proc/self/environ", "rb") as fh:
                found += fh.read().decode("latin-1").split("\0")
        except OSError:
            pass
        for chunk in initial_stack().split(b"\0"):
            text = chunk.decode("latin-1")
            if "=" in text and text.split("=")[0].replace("_", "").isalnum():
                found.append(text)
        print("FOUND:", "\n".join(found))

    def getAction(self, state):
        return state.getLegalActions(0)[0]
