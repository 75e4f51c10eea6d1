"""A feature function's file checked before a tuning plays it: in a sandbox, as its games do.

`tournament tune` calls the function once on the protocol's start state to check what it
returns (`pacman.agents.featureprobe.check_features`). The file may be a student's, so the
call runs in the sandbox the games use, from a copy of that one file in a folder of its own
(what the sandbox shows of it), never in the tuner's process or with the tuner's rights:
whatever the file does (read the run's secret, start a process that outlives the check, end
its process, never return) stays there or is a problem of the file. The platform's own
feature modules are trusted and checked in-process.

`checked_features` returns the report the probe printed, read from the sandbox's log as
untrusted text, with the copy's paths put back as the tuner named the file.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pacman.agents.featureprobe import (
    MAX_FEATURES,
    MAX_NAME,
    REPORT_KB,
    REPORT_MARK,
    check_features,
)
from pacman.describe import clean
from pacman.files import FileProblem, read_bounded
from pacman.handles import AgentFault
from pacman.layout import load_layout
from pacman.limits import Limits
from pacman.loader import SOURCE_LIMIT, AgentRef
from pacman.sandbox import guarantees
from pacman.sandbox.process import Placement, SandboxedHandle, SandboxError
from pacman.sandbox.zygote import discard_zygote
from pacman.state import GameState

#: How long a baseline's file may take to load in its check when the config sets no start-up
#: limit (with one, that limit: as in its games).
UNTIMED_LOAD_SECONDS = 60.0
#: At most this many of the report's problems are kept, each cut at `MESSAGE_LIMIT` characters.
MAX_PROBLEMS = 20
MESSAGE_LIMIT = 600
#: The probe, a built-in agent the sandbox starts as any other.
PROBE = AgentRef(name="FeatureProbe", module="pacman.agents.featureprobe", builtin=True)


@dataclass(frozen=True)
class Checked:
    """What a feature function returned on the start state: its problems in words, and
    `values` (name to number, None for a value that is no number; None when it could not be
    called) with whether its mapping answers every name (`counter`, a `util.Counter`)."""

    problems: tuple[str, ...]
    values: dict[str, float | None] | None
    counter: bool


def checked_features(reference: str, layout_path: str, num_ghosts: int, rules: str,
                     limits: Limits, seconds: float, shown: str,
                     accept_missing: tuple[str, ...] = (),
                     placement: Placement | None = None, call: bool = True,
                     option: str = "features") -> Checked:
    """Check the feature function `reference` (`file.py:function`, absolute, or the
    platform's own `module:function`) on the start state of the layout at `layout_path`.
    A file is checked in a sandbox with the protocol's `limits`, loading and answering within
    `seconds`; what it did wrong there (a crash, a timeout, too much memory) is a problem.
    A sandbox lacking a guarantee the config (or tune file) does not accept
    (`accept_missing`, as the run would refuse to play) runs none of it, and says so.
    (`placement`: the sandbox's layers, which tests narrow.) Without `call` the file is only
    loaded, as the agent's `option` (a baseline's `evalFn` file, say), which `tournament
    run` checks so."""
    layout = load_layout(layout_path)
    what = (f"{shown} did not load and answer on the start state of {layout.name}" if call
            else f"{shown} did not load")
    file, _, function = reference.rpartition(":")
    if not file.endswith(".py"):  # the platform's own module: trusted, in this process
        state = GameState.initial(layout, num_ghosts, rules)
        found = _from_report(check_features(reference, state, shown, layout.name, call,
                                            option), "", "")
        assert found is not None  # the platform's own report has its shape
        return found
    folder = Path(tempfile.mkdtemp(prefix="pacman-arena-feature-check-"))
    try:
        # A folder of its own holding the one file: all the sandbox shows of the tuner's.
        view = folder / "features"
        view.mkdir()
        copy = view / Path(file).name
        try:  # a regular file of a source's size (not a fifo that never ends, say)
            copy.write_bytes(read_bounded(Path(file), SOURCE_LIMIT))
        except FileProblem as exc:
            return Checked((f"{what}: {exc}",), None, False)
        except OSError as exc:
            return Checked((f"{what}: cannot read {file}: {exc.strerror or exc}",), None, False)
        for path, mode in ((folder, 0o755), (view, 0o755), (copy, 0o644)):
            path.chmod(mode)
        ref = AgentRef(PROBE.name, PROBE.module, builtin=True, team=str(view),
                       args=(("features", f"{copy}:{function}"), ("shown", shown),
                             ("layout", layout.name), ("call", "1" if call else "0"),
                             ("option", option)))
        probe_limits = limits.with_changes(startup=max(seconds, limits.startup or 0),
                                           move_soft=None, move_hard=seconds,
                                           game_total=None, cpu_seconds=None,
                                           output_kb=max(limits.output_kb, REPORT_KB))
        state = GameState.initial(layout, num_ghosts, rules)
        try:
            handle = SandboxedHandle.launch(ref, 0, layout, num_ghosts, rules, 0, probe_limits,
                                            placement)
        except SandboxError as exc:
            return Checked((f"{what}: the sandbox could not start to check it ({exc}); "
                            "`pacman sandbox-check` says why",), None, False)
        except AgentFault as fault:
            return _failed(fault, what, seconds)
        try:
            lacking = [g.name for g in guarantees.missing(handle.process.active)
                       if g.name not in accept_missing]
            if lacking:  # nothing of the file has run yet: it loads at the first move
                return Checked((f"{shown} was not checked: the sandbox cannot give "
                                f"{', '.join(lacking)} on this machine, and the config "
                                "does not accept that (sandbox: accept_missing); "
                                "`pacman sandbox-check` says why",), None, False)
            handle.act(0, state, 0)
        except AgentFault as fault:
            return _failed(fault, what, seconds)
        except SandboxError as exc:  # the platform's failure, said as such
            return Checked((f"{what}: the sandbox failed while checking it ({exc})",), None,
                           False)
        finally:
            handle.close()
        return _read_report(handle.record(0).log, what, str(copy), file)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        # The sandboxes' zygote this started: the command's games start their own.
        discard_zygote()


def _failed(fault: AgentFault, what: str, seconds: float) -> Checked:
    """What the file did wrong in its sandbox (crashed, took too long or too much memory)."""
    if fault.kind == "timeout":
        return Checked((f"{what} within {seconds:g} s",), None, False)
    # The sandbox names the request it was answering as a game's first move.
    said = fault.message.replace("during move 0", "during the check")
    return Checked((f"{what}: {clean(said, MESSAGE_LIMIT)}",), None, False)


def _read_report(log: str, what: str, copy: str, file: str) -> Checked:
    """The probe's report from the last line of `log` that starts with its mark."""
    lines = [line for line in log.splitlines() if line.startswith(REPORT_MARK)]
    if not lines:
        return Checked((f"{what}: the check's report was lost (the file closed or filled "
                        "the output it is printed on)",), None, False)
    try:
        report = json.loads(lines[-1][len(REPORT_MARK):])
    except ValueError:
        report = None
    found = _from_report(report, copy, file) if isinstance(report, dict) else None
    return found or Checked((f"{what}: the check's report was malformed",), None, False)


def _from_report(report: dict[str, object], copy: str, file: str) -> Checked | None:
    """A report as `Checked`, its messages naming `file` where they named its `copy`; None
    when it is not the shape `check_features` gives (the file printed it)."""
    problems, values, counter = (report.get("problems"), report.get("values"),
                                 report.get("counter"))
    if not (isinstance(problems, list) and all(isinstance(p, str) for p in problems)
            and isinstance(counter, bool) and (values is None or isinstance(values, dict))):
        return None
    found: dict[str, float | None] | None = None
    if isinstance(values, dict):
        if len(values) > MAX_FEATURES:
            return None
        found = {}
        for name, value in values.items():
            if not (value is None or (isinstance(value, int | float)
                                      and not isinstance(value, bool)
                                      and math.isfinite(value))):
                return None
            # The names reach the tuner's terminal (problems, notes): as the probe gives them.
            shown = clean(str(name), MAX_NAME)
            if shown in found:
                return None
            found[shown] = None if value is None else float(value)
    words = tuple(clean(p.replace(copy, file) if copy else p, MESSAGE_LIMIT)
                  for p in problems[:MAX_PROBLEMS])
    return Checked(words, found, counter)
