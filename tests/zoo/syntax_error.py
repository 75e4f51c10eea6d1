class ZooAgent:
    def getAction(self, state)
        return "Stop"
