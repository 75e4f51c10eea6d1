class ZooAgent:
    def getAction(self, state):
        hoard = []
        while True:
            hoard.append(bytearray(16 * 1024 * 1024))
