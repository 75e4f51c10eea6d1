from pacman.agents.anytime_agent import AnytimeAgent


class ZooAgent(AnytimeAgent):
    """Plagiarism of the platform (found by the hostile review): submits the platform's own
    strongest baseline as its work, a two-line subclass under its own name.

    Expected: a load_error (the platform's agents and search code are not for teams).
    """
