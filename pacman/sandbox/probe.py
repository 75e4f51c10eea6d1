"""An agent that tries, from inside a sandbox, what a hostile one would, for `sandbox-check`.

Each probe prints one JSON line `{"probe": name, "blocked": bool, "detail": text}`; the check
reads them back from the agent's log. Only harmless attempts: nothing here succeeds in doing
damage even where a layer is missing (the file written is in the system's temp folder and
removed, the connection goes to a closed port, the forked child exits at once).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess


def _report(name: str, blocked: bool, detail: str) -> None:
    print(json.dumps({"probe": name, "blocked": blocked, "detail": detail[:120]}), flush=True)


def _attempt(name: str, action: object, blocked_errors: tuple[type[BaseException], ...]) -> None:
    try:
        detail = action()  # type: ignore[operator]
    except blocked_errors as exc:
        _report(name, True, f"{type(exc).__name__}: {exc}")
    except Exception as exc:
        _report(name, False, f"{type(exc).__name__}: {exc}")
    else:
        _report(name, False, str(detail))


class ProbeAgent:
    def __init__(self, referee: str = "0", outside: str = "") -> None:
        self.referee = int(referee)
        self.outside = outside or "/etc/passwd"

    def registerInitialState(self, state: object) -> None:
        def connect() -> str:
            with socket.create_connection(("127.0.0.1", 9), timeout=0.5):
                return "connected"

        def network() -> str:
            try:
                return connect()
            except ConnectionRefusedError:
                return "reached loopback (connection refused)"

        def read_outside() -> str:
            with open(self.outside, "rb") as fh:
                return f"read {len(fh.read(64))} bytes of {self.outside}"

        def write_outside() -> str:
            path = f"/tmp/pacman-sandbox-probe-{os.getpid()}"
            with open(path, "w") as fh:
                fh.write("x")
            os.unlink(path)
            return f"wrote {path}"

        def run_program() -> str:
            return f"ran /bin/true: status {subprocess.run(['/bin/true']).returncode}"

        def fork() -> str:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            return "forked a process"

        def signal_referee() -> str:
            os.kill(self.referee, 0)
            return f"could signal the referee (pid {self.referee})"

        denied = (PermissionError, OSError)
        _attempt("network", network, denied)
        _attempt("read outside its folders", read_outside, (PermissionError,))
        _attempt("write outside its folder", write_outside, denied)
        _attempt("run a program", run_program, denied)
        _attempt("start a process", fork, denied)
        _attempt("signal the referee", signal_referee, (ProcessLookupError, PermissionError))

    def getAction(self, state: object) -> str:
        return "Stop"
