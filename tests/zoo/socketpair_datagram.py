import socket


class ZooAgent:
    """Class 4, channels: a Unix datagram socket from socketpair() sends to a pathname socket
    outside the sandbox.

    Expected: a crash (no sockets of any kind); nothing reaches the socket outside.
    """

    def __init__(self, target=""):
        self.target = target

    def getAction(self, state):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        a.sendto(b"hello from the sandbox", self.target)
        return state.getLegalActions(0)[0]
