class ZooAgent:
    def getAction(self, state):
        while True:
            pass
