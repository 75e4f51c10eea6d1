import os


class ZooAgent:
    def getAction(self, state):
        os._exit(3)
