import glob
import os


class ZooAgent:
    """Class 4, channels (other end): looks for the scratch folders of concurrent sandboxes
    (they live side by side under the system's temporary folder) and reads what is in them.

    Expected: it plays on and finds nothing of another sandbox.
    """

    def registerInitialState(self, state):
        mine = os.getcwd()
        roots = {"/tmp", "/var/tmp", os.path.dirname(os.path.dirname(mine)),
                 os.path.dirname(os.path.dirname(os.path.dirname(mine)))}
        for root in sorted(roots):
            for path in glob.glob(os.path.join(root, "**", "marker.txt"), recursive=True):
                try:
                    with open(path) as fh:
                        print("NEIGHBOUR:", path, fh.read())
                except OSError as exc:
                    print("SEEN BUT UNREADABLE:", path, exc)

    def getAction(self, state):
        return state.getLegalActions(0)[0]
