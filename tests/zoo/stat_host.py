import os


class ZooAgent:
    """Class 4, channels: learns about the host without opening anything: its name, the size
    and times of /etc/shadow, the host's process ids, the names of files in /tmp.

    Expected: a crash (none of these paths exists for it); nothing of the host in its output.
    """

    def getAction(self, state):
        print("HOST:", os.uname().nodename)
        info = os.stat("/etc/shadow")
        print("SHADOW:", info.st_size, info.st_mtime)
        print("PIDS:", [p for p in os.listdir("/proc") if p.isdigit()])
        print("TMP:", os.listdir("/tmp"))
        return state.getLegalActions(0)[0]
