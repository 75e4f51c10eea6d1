"""`pacman sandbox-check`: which confinement layers this machine gives, tried from inside.

The layers are what a sandbox reports about itself; the guarantees follow from them
(`guarantees.py`); the probes are what an agent in it could actually do (`probe.py`), one or
more per class of attack. Where the check can see the result from outside it judges itself
rather than trusting the probe: whether the mode of its own file outside changed, whether a
datagram reached its socket, whether its secret appears in what the agent printed. A probe
that gets through is what an organizer must know before running untrusted code, so it decides
the exit status.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from pacman.layout import load_layout
from pacman.limits import Limits
from pacman.loader import AgentRef
from pacman.sandbox import guarantees
from pacman.sandbox.confine import LAYERS, STOPS
from pacman.sandbox.process import SandboxedHandle, SandboxError
from pacman.sandbox.zygote import discard_zygote
from pacman.state import GameState

#: The environment variable the check plants in the referee's environment, to see whether a
#: sandbox can read it.
CANARY = "PACMAN_ARENA_CHECK_SECRET"


@dataclass
class CheckReport:
    active: list[str]
    missing: dict[str, str]
    probes: list[dict[str, object]] = field(default_factory=list)
    start_seconds: float = 0.0

    @property
    def escaped(self) -> list[str]:
        return [str(p["probe"]) for p in self.probes if not p["blocked"]]

    @property
    def lacking(self) -> list[guarantees.Guarantee]:
        """Guarantees that do not hold with the layers this machine gives."""
        return guarantees.missing(self.active)


def run_check(limits: Limits | None = None) -> CheckReport:
    """Start a sandbox with the probe agent in it, and judge what it could do."""
    limits = limits or Limits()
    with tempfile.TemporaryDirectory(prefix="pacman-check-") as folder:
        target = Path(folder, "organizer-file")
        target.write_text("the organizer's\n")
        target.chmod(0o600)
        before = target.stat()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock_path = str(Path(folder, "organizer.sock"))
        try:
            sock.bind(sock_path)
        except OSError as exc:  # a unix socket's path holds at most 107 bytes
            sock.close()
            raise SandboxError(
                f"cannot make the check's socket {sock_path} ({exc}): set TMPDIR to a "
                "shorter folder") from None
        sock.setblocking(False)
        canary = secrets.token_hex(16)
        ref = AgentRef("ProbeAgent", module="", path=str(Path(__file__).with_name("probe.py")),
                       args=(("referee", str(os.getpid())), ("target", str(target)),
                             ("canary", CANARY), ("socket", sock_path),
                             ("scratch_mb", str(limits.scratch_mb))))
        layout = load_layout("testClassic")
        # A zygote started now holds the secret in its initial environment, if anything of
        # the organizer's environment reached it.
        os.environ[CANARY] = canary
        discard_zygote()
        try:
            t0 = time.perf_counter()
            agent = SandboxedHandle.launch(ref, 0, layout, 1, "classic", 0, limits)
            started = time.perf_counter() - t0
            try:
                agent.register(GameState.initial(layout, 1))
            finally:
                agent.close()
        finally:
            os.environ.pop(CANARY, None)
            discard_zygote()
        after = target.stat()
        received = b""
        with contextlib.suppress(OSError):
            received = sock.recv(100)
        sock.close()
    process = agent.process
    probes = _probes(process.log)
    outside = {
        "chmod a file outside": (before.st_mode, before.st_uid, before.st_gid) != (
            after.st_mode, after.st_uid, after.st_gid),
        "set times of a file outside": before.st_mtime_ns != after.st_mtime_ns,
        "set an xattr outside": before.st_ctime_ns != after.st_ctime_ns,
        # The probe knows only the variable's name; the value is the check's secret.
        "read the organizer's environment": canary in process.log,
        "a Unix socket pair": bool(received),
    }
    for probe in probes:
        if outside.get(str(probe["probe"])):
            probe["blocked"] = False
            probe["detail"] = f"seen from outside: {probe['detail']}"
        elif probe["probe"] == "an unreadable thread name":
            # Not a thing to stop, a thing to survive: the referee must still read the
            # process's CPU time (from /proc/<pid>/stat, which carries the name).
            probe["blocked"] = process.cpu.total is not None
            probe["detail"] = ("the referee still read its CPU time" if probe["blocked"]
                               else "the referee could not read its CPU time")
    return CheckReport(sorted(process.active), dict(process.missing), probes, started)


def _probes(log: str) -> list[dict[str, object]]:
    found = []
    for line in log.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "probe" in entry:
            found.append(entry)
    return found


def format_report(report: CheckReport) -> list[str]:
    lines = ["Sandbox layers on this machine, and what each stops:"]
    for layer in LAYERS:
        verdict = "on " if layer in report.active else "OFF"
        lines.append(f"  {layer:<13} {verdict} {STOPS[layer]}")
        if layer not in report.active:
            lines.append(f"  {'':<13}     off because: {report.missing.get(layer, 'not reported')}")
        if layer == "cgroup" and layer in report.active and "cpu share" not in report.active:
            lines.append(f"  {'':<13}     but no CPU share: {report.missing.get('cpu share', '')}")
    lines.append("Guarantees (README, 'Untrusted agents'):")
    verdicts = guarantees.held(report.active)
    for item in guarantees.GUARANTEES:
        state = "held   " if verdicts[item.name] else "MISSING"
        needs = "" if verdicts[item.name] else f" (needs {guarantees.requirement_text(item)})"
        lines.append(f"  {item.name:<18} {state} {item.promise}{needs}")
    lines.append("What an agent inside could do:")
    for probe in report.probes:
        verdict = "blocked" if probe["blocked"] else "ALLOWED"
        name = f"{probe.get('class', '')}: {probe['probe']}"
        lines.append(f"  {name:<48} {verdict:<8} ({probe['detail']})")
    lines.append(f"A sandbox starts and loads an agent in {report.start_seconds * 1000:.0f} ms.")
    if report.escaped:
        lines.append(f"Not contained: {', '.join(report.escaped)}.")
    else:
        lines.append("Every probe was contained.")
    return lines
