"""The check of a feature function's file (`tournament tune`'s `evaluation: {features: ...}`),
as an agent that plays in the sandbox.

The file is the tuner's or a student's code. `tournament tune` calls it once on the
protocol's start state before any game, to check that it answers numbers for every weight's
feature; that call must be as confined as the games that will play the file, so it is made
by `FeatureProbe`, a built-in agent the referee starts in a sandbox like any other
(`tournament.featurecheck`). Its one move loads the file, calls the function and prints a
report on one line of its log (`REPORT_MARK` then JSON), which the referee reads back as
untrusted text: a file can only spoil its own check (printing a false report, closing its
output, writing past the output's cap to its descriptor), never the tuner. What it prints
while it loads and answers goes nowhere: a debugging print does not fill the output that
the report is read from (review 20: 300 KB of prints lost the report, and the file was
refused, though its games would have played).

`check_features` is the check itself, a plain function (the platform's own feature modules,
trusted, are checked with it in-process).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pacman.agents.evaluation import feature_value, load_function
from pacman.describe import clean, describe
from pacman.problems import team_frame

#: What starts the line of the probe's log that holds its report (the last such line counts).
REPORT_MARK = "pacman-arena feature check: "
#: At most this many features are reported (a real evaluation has tens), so that the report
#: stays far below what the sandbox keeps of an agent's output (`REPORT_KB`).
MAX_FEATURES = 200
#: At most this many characters of a feature's name are reported.
MAX_NAME = 100
#: What the sandbox keeps of the probe's output at least (KiB): the largest report and more.
REPORT_KB = 256


def _line_in(exc: BaseException, reference: str) -> str:
    """`, at feats.py:5`: the deepest line of the feature file's folder that `exc` went
    through (`pacman.problems.team_frame`, as an agent's failure is located); '' when none
    did, or when the function is a module's."""
    file = reference.rpartition(":")[0]
    if not file.endswith(".py"):
        return ""
    where = team_frame(exc.__traceback__, str(Path(file).parent))
    return f", at {where}" if where else ""


def check_features(reference: str, state: Any, shown: str, layout_name: str,
                   call: bool = True, option: str = "features") -> dict[str, Any]:
    """Load `reference` (`file.py:function`, given as the agent's `option`) and call it on
    `state` (the protocol's start state, on `layout_name`): the problems found, in words
    (`shown` names the function), and what it returned as `{"values": {name: number or None
    (not a number)}, "counter": whether its mapping answers every name (a `util.Counter`)}`,
    or no values when it could not be called. Without `call`, only loaded (values `{}` once
    it is). Plain JSON values, to travel out of the sandbox."""
    problems: list[str] = []
    report: dict[str, Any] = {"problems": problems, "values": None, "counter": False}
    try:
        function = load_function(reference, option)
    except ValueError as exc:
        problems.append(str(exc))
        return report
    if not call:
        report["values"] = {}
        return report
    try:
        found = function(state)
    except BaseException as exc:  # the course's stub calls sys.exit; anything else is the file's
        problems.append(f"{shown} raised on the start state of {layout_name}"
                        f"{_line_in(exc, reference)}: {clean(describe(exc), 300)}")
        return report
    if not isinstance(found, Mapping):
        problems.append(f"{shown} returned {type(found).__name__} on the start state of "
                        f"{layout_name}, not a mapping of feature name to number")
        return report
    values: dict[str, float | None] = {}
    try:
        for name in found:
            if len(values) >= MAX_FEATURES:
                # Said, not cut in silence: a weight of a feature past the limit would be
                # reported as one the function does not produce.
                problems.append(f"{shown} returned more than {MAX_FEATURES} features on the "
                                f"start state of {layout_name}; the check reads at most "
                                f"{MAX_FEATURES} (a linear evaluation has tens)")
                break
            if isinstance(name, str) and len(name) > MAX_NAME:
                problems.append(f"{shown} returned a feature name of {len(name)} characters "
                                f"({clean(name, 40)}...) on the start state of {layout_name}; "
                                f"names of at most {MAX_NAME} can be checked and weighted")
                continue
            key = clean(str(name), MAX_NAME)
            if key in values:  # two names alike once made printable: not checkable
                problems.append(f"{shown} returned two features named {key!r} once their "
                                f"names are made printable (on the start state of "
                                f"{layout_name})")
                continue
            try:
                values[key] = feature_value(found, name, shown)
            except ValueError as exc:
                problems.append(f"{exc} (on the start state of {layout_name})")
                values[key] = None  # produced, though not a number
    except BaseException as exc:  # a mapping whose iteration raises
        problems.append(f"{shown}'s result raised on the start state of {layout_name}: "
                        f"{clean(describe(exc), 300)}")
        return report
    report["values"] = values
    report["counter"] = hasattr(type(found), "__missing__")
    return report


class _Nowhere(io.TextIOBase):
    """A text output that takes everything and keeps nothing (the file's prints in its
    check)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str, /) -> int:
        return len(text)


class FeatureProbe:
    """Not a player: an agent whose first move checks a feature function's file
    (`check_features`; with `call=0` it only loads it, as the agent's `option`) and prints
    the report, then stops."""

    def __init__(self, index: int = 0, features: str = "", shown: str = "",
                 layout: str = "", call: str = "1", option: str = "features") -> None:
        self.index = index
        self.features = features
        self.shown = shown
        self.layout = layout
        self.call = call != "0"
        self.option = option

    def getAction(self, state: Any) -> str:
        with contextlib.redirect_stdout(_Nowhere()), contextlib.redirect_stderr(_Nowhere()):
            report = check_features(self.features, state, self.shown, self.layout, self.call,
                                    self.option)
        # Past the sandbox's cap on printing (`sys.stdout`), which the file may have used up.
        os.write(1, f"\n{REPORT_MARK}{json.dumps(report, allow_nan=False)}\n".encode())
        return "Stop"
