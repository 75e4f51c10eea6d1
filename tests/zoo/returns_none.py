class ZooAgent:
    def getAction(self, state):
        return None
