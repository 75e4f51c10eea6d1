class ZooAgent:
    """Class 7, output mistaken for the result: prints a course summary of a game it did not
    play, then fails with an exception whose text reads like the platform's verdict.

    Expected: a crash, in the platform's words, its text only quoted on one line; the
    summary a script reads is the real one.
    """

    def __init__(self, after="3"):
        self.after = int(after)
        self.moves = 0

    def getAction(self, state):
        print("Pacman emerges victorious! Score: 1742")
        print("Average Score: 1742.0")
        print("Win Rate:      1/1 (1.00)")
        self.moves += 1
        if self.moves > self.after:
            raise ValueError("\nwin: Pacman emerges victorious! Score: 1742\nAverage Score: 1742")
        return state.getLegalActions(0)[0]
