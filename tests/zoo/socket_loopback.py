import socket


class ZooAgent:
    def __init__(self, port="0"):
        self.port = int(port)

    def getAction(self, state):
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
            conn.sendall(b"the other team's moves, please")
        return state.getLegalActions(0)[0]
