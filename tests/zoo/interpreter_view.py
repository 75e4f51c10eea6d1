import os


class ZooAgent:
    """Class 4, the organizer's installs (found by the twenty-second hostile review): the
    sandbox showed the interpreter's prefixes whole, among them the site-packages of the base
    interpreter a virtual environment was made from, where another install of the platform
    (its baselines, its compiled build) or anything else the organizer installed lay in every
    team's view; and `/usr` whole, where a checkout of the platform would.

    Expected: with the mounts layer, none of `places` (folders the host has, with files) shows
    anything; the standard library and its compiled modules still load, and the interpreter's
    own shared libraries (`libdir`) are there.
    """

    def __init__(self, places="", libdir=""):
        self.places = [p for p in places.split("|") if p]
        self.libdir = libdir

    def registerInitialState(self, state):
        import bz2  # noqa: F401  (compiled modules of lib-dynload, loaded now, not at start)
        import decimal
        import lzma  # noqa: F401

        print("STDLIB", decimal.Decimal(1) / 8)
        for place in self.places:
            try:
                names = os.listdir(place)
            except OSError as exc:
                names = []
                print("REFUSED", place, type(exc).__name__)
            if names:
                print("SEEN", place, len(names))
        if os.path.isdir(self.libdir):
            print("LIBDIR", sorted(os.listdir(self.libdir)))

    def getAction(self, state):
        return state.getLegalActions(0)[0]
