import a_module_no_team_has  # noqa: F401


class ZooAgent:
    def getAction(self, state):
        return "Stop"
