import ctypes
import mmap
import os


class ZooAgent:
    """Class 4, channels: waits on a shared futex in a file every sandbox maps (the engine's
    own source, read-only), which a concurrent sandbox could wake: a channel with no timing.

    Expected: a crash (only private futexes, the kind threads use, are allowed).
    """

    def getAction(self, state):
        import pacman

        path = os.path.join(os.path.dirname(pacman.__file__), "__init__.py")
        # FUTEX_WAIT (0) without FUTEX_PRIVATE_FLAG on the mapping's first word, 1 ms timeout.
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        fd = os.open(path, os.O_RDONLY)
        addr = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        os.close(fd)
        word = ctypes.c_int.from_address(addr).value
        timeout = (ctypes.c_long * 2)(0, 1_000_000)
        nr = {"x86_64": 202, "aarch64": 98}[os.uname().machine]
        if libc.syscall(nr, ctypes.c_void_p(addr), 0, word, timeout, None, 0) != 0:
            code = ctypes.get_errno()
            if code == 1:  # EPERM: refused; a timeout or a changed word would mean it ran
                raise PermissionError(code, f"futex: {os.strerror(code)}")
        return state.getLegalActions(0)[0]
