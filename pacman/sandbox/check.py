"""`pacman sandbox-check`: which confinement layers this machine gives, tried from inside.

The layers are what a sandbox reports about itself; the probes are what an agent in it could
actually do (see `probe.py`). A probe that gets through is the thing an organizer must know
before running untrusted code, so it decides the exit status.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from pacman.layout import load_layout
from pacman.loader import AgentRef
from pacman.sandbox.confine import LAYERS
from pacman.sandbox.limits import Limits
from pacman.sandbox.process import SandboxedAgent
from pacman.state import GameState


@dataclass
class CheckReport:
    active: list[str]
    missing: dict[str, str]
    probes: list[dict[str, object]] = field(default_factory=list)
    start_seconds: float = 0.0

    @property
    def escaped(self) -> list[str]:
        return [str(p["probe"]) for p in self.probes if not p["blocked"]]


def run_check(limits: Limits | None = None) -> CheckReport:
    ref = AgentRef("ProbeAgent", module="", path=str(Path(__file__).with_name("probe.py")),
                   args=(("referee", str(os.getpid())),))
    layout = load_layout("testClassic")
    t0 = time.perf_counter()
    agent = SandboxedAgent.launch(ref, 0, layout, 1, "classic", 0, limits or Limits())
    started = time.perf_counter() - t0
    try:
        agent.registerInitialState(GameState.initial(layout, 1))
    finally:
        agent.close()
    process = agent.process
    probes = []
    for line in process.log.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "probe" in entry:
            probes.append(entry)
    return CheckReport(sorted(process.active), dict(process.missing), probes, started)


def format_report(report: CheckReport) -> list[str]:
    lines = ["Sandbox layers on this machine:"]
    for layer in LAYERS:
        if layer in report.active:
            lines.append(f"  {layer:<13} on")
        else:
            lines.append(f"  {layer:<13} OFF: {report.missing.get(layer, 'not reported')}")
    lines.append("What an agent inside could do:")
    for probe in report.probes:
        verdict = "blocked" if probe["blocked"] else "ALLOWED"
        name = str(probe['probe'])
        lines.append(f"  {name:<26} {verdict:<8} ({probe['detail']})")
    lines.append(f"A sandbox starts and loads an agent in {report.start_seconds * 1000:.0f} ms.")
    if report.escaped:
        lines.append(f"Not contained: {', '.join(report.escaped)}.")
    else:
        lines.append("Every probe was contained.")
    return lines
