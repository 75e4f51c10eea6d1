import ctypes


class ZooAgent:
    def getAction(self, state):
        return ctypes.string_at(0xDEAD0000000, 16)
