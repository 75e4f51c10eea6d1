import hashlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def view():
    """Everything this agent can read about its folder, one line per entry."""
    lines = []
    for folder, dirs, files in os.walk(HERE):
        dirs.sort()
        for name in dirs + sorted(files):
            path = os.path.join(folder, name)
            info = os.lstat(path)
            try:
                attrs = sorted(os.listxattr(path, follow_symlinks=False))
            except OSError as exc:
                attrs = [f"refused {exc.errno}"]
            data = ""
            if name in files:
                with open(path, "rb") as fh:
                    data = hashlib.sha256(fh.read()).hexdigest()[:12]
            lines.append(f"{os.path.relpath(path, HERE)} mode={info.st_mode:o} "
                         f"times={info.st_mtime_ns},{info.st_atime_ns} blocks={info.st_blocks} "
                         f"links={info.st_nlink} attrs={attrs} bytes={data}")
    return lines


class ZooAgent:
    """Class 9, predictable games (found by the third hostile review): a team's random streams
    are keyed with its submission hash, over its files' names and bytes. Everything else its
    folder shows (empty folders' names, times, modes, extended attributes, a sparse file) could
    carry what an earlier submission learnt of its games into a resubmission with the same
    hash, keyed like them: the ghosts' moves, written as empty folders' names.

    Expected: with the mounts layer, two folders with one hash look exactly the same to it.
    """

    def registerInitialState(self, state):
        for line in view():
            print("SEES", line)

    def getAction(self, state):
        return state.getLegalActions(0)[0]
