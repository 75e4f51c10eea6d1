import mmap
import os


class ZooAgent:
    """Class 4, channels: evicts pages of a file every sandbox reads from the page cache
    (posix_fadvise DONTNEED, then madvise PAGEOUT), so that a later sandbox can time its reads:
    a channel even between games that never run together.

    Expected: a crash (neither kind of advice is allowed).
    """

    def __init__(self, how="fadvise"):
        self.how = how

    def getAction(self, state):
        import pacman

        path = os.path.join(os.path.dirname(pacman.__file__), "state.py")
        fd = os.open(path, os.O_RDONLY)
        try:
            if self.how == "fadvise":
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            else:
                area = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
                area.madvise(21)  # MADV_PAGEOUT
        finally:
            os.close(fd)
        return state.getLegalActions(0)[0]
