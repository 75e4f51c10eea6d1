"""The report a feature check reads back from its sandbox's log is the file's output too: the
file can print lines of its own, so the report is taken from the last marked line, its
shape checked, and its messages cleaned and capped (`tournament.featurecheck`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pacman.agents.featureprobe import MAX_FEATURES, MAX_NAME, REPORT_MARK
from pacman.limits import Limits
from pacman.sandbox import guarantees
from pacman.sandbox.confine import LAYERS
from pacman.sandbox.process import Placement
from tournament.featurecheck import (
    MAX_PROBLEMS,
    MESSAGE_LIMIT,
    Checked,
    _read_report,
    checked_features,
)

WHAT = "feats.py:phi did not load and answer on the start state of testClassic"


def line(report: object) -> str:
    return REPORT_MARK + json.dumps(report)


def read(log: str) -> Checked:
    return _read_report(log, WHAT, "/tmp/copy/feats.py", "/home/me/feats.py")


def test_the_last_marked_line_is_the_report() -> None:
    forged = line({"problems": [], "values": {"dots": 1}, "counter": False})
    real = line({"problems": ["features=/tmp/copy/feats.py:phi: no such function"],
                 "values": None, "counter": False})
    checked = read(f"hello\n{forged}\nmore\n{real}\n")
    # The copy's path is given back as the tuner named the file.
    assert checked == Checked(("features=/home/me/feats.py:phi: no such function",), None,
                              False)
    assert read(line({"problems": [], "values": {"dots": 2, "flag": None}, "counter": True})
                ) == Checked((), {"dots": 2.0, "flag": None}, True)


def test_a_lost_or_malformed_report_is_a_problem_of_the_file() -> None:
    assert read("it printed this and nothing else\n").problems == (
        f"{WHAT}: the check's report was lost (the file closed or filled the output it is "
        "printed on)",)
    malformed = (f"{WHAT}: the check's report was malformed",)
    many = {f"f{i}": 1 for i in range(MAX_FEATURES + 1)}
    for text in (REPORT_MARK + "{not json", line([1, 2]), line({"problems": "x"}),
                 line({"problems": [], "values": many, "counter": False}),
                 line({"problems": [], "values": {"a\x1b": 1, "a\x1c": 2},
                       "counter": False}),
                 line({"problems": [], "values": {"a": "1"}, "counter": False}),
                 line({"problems": [], "values": {"a": True}, "counter": False}),
                 line({"problems": [3], "values": None, "counter": False}),
                 line({"problems": [], "values": None, "counter": 1}),
                 REPORT_MARK + '{"problems": [], "values": {"a": NaN}, "counter": false}'):
        assert read(text) == Checked(malformed, None, False), text


def test_its_messages_are_cleaned_and_capped() -> None:
    checked = read(line({"problems": ["\x1b[2J" + "x" * 5000] * 50, "values": None,
                         "counter": False}))
    assert len(checked.problems) == MAX_PROBLEMS
    assert all(len(p) == MESSAGE_LIMIT and "\x1b" not in p for p in checked.problems)
    # Feature names too: they reach the tuner's terminal in problems and notes.
    named = read(line({"problems": [], "values": {"\x1b]0;pwned\x07" + "n" * 5000: 1},
                       "counter": False}))
    assert named.values is not None
    [name] = named.values
    assert len(name) == MAX_NAME and "\x1b" not in name and "\x07" not in name


def test_a_sandbox_lacking_a_guarantee_not_accepted_runs_none_of_the_file(
        tmp_path: Path) -> None:
    """The check runs before the run's own check of the machine, so it holds its sandbox to
    the tune file's `accept_missing` itself: with a layer off (as on a machine without it),
    the file is not run unless the file accepts what is lost."""
    from tests.test_tournament_run import UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    ran = tmp_path / "it-ran"
    feats = tmp_path / "feats.py"
    feats.write_text(f"def phi(state):\n    try:\n        open({str(ran)!r}, 'w')\n"
                     "    except OSError:\n        pass\n    return {'a': 1}\n")
    layers = tuple(layer for layer in LAYERS if layer != "seccomp")
    def check(accept: tuple[str, ...]) -> Checked:
        return checked_features(f"{feats}:phi", "layouts/testClassic.lay", 1, "classic",
                                Limits(), 60.0, "feats.py:phi", accept,
                                Placement(layers=layers))

    refused = check(())
    # Without its filter of system calls the sandbox cannot keep the agent from opening
    # channels (sockets, pipes) of its own.
    assert refused.values is None and refused.problems[0].startswith(
        "feats.py:phi was not checked: the sandbox cannot give ") and \
        "channels" in refused.problems[0], refused
    accepted = check(guarantees.NAMES)
    assert accepted == Checked((), {"a": 1.0}, False)
    # Even accepted, the tuner's folder is not the file's to write.
    assert not ran.exists()


def test_features_beyond_what_the_check_reads_are_said_not_taken_as_missing(
        tmp_path: Path) -> None:
    """Review 20: a function returning more than MAX_FEATURES features, or a name longer than
    MAX_NAME, had the weights of those features refused as features it "does not produce"."""
    from pacman.agents.featureprobe import check_features
    from pacman.layout import load_layout
    from pacman.state import GameState

    long = "x" * (MAX_NAME + 50)
    (tmp_path / "feats.py").write_text(
        f"def many(state):\n    return {{f'f{{i:03}}': 1.0 for i in range({MAX_FEATURES + 1})}}\n"
        f"def named(state):\n    return {{'score': 1.0, {long!r}: 2.0}}\n")
    start = GameState.initial(load_layout("testClassic"), 1, "classic")
    many = check_features(f"{tmp_path}/feats.py:many", start, "feats.py:many", "testClassic")
    assert many["problems"] == [
        f"feats.py:many returned more than {MAX_FEATURES} features on the start state of "
        f"testClassic; the check reads at most {MAX_FEATURES} (a linear evaluation has tens)"]
    named = check_features(f"{tmp_path}/feats.py:named", start, "feats.py:named",
                           "testClassic")
    assert named["problems"] == [
        f"feats.py:named returned a feature name of {MAX_NAME + 50} characters ({'x' * 40}...) "
        f"on the start state of testClassic; names of at most {MAX_NAME} can be checked and "
        "weighted"]
    assert named["values"] == {"score": 1.0}


def test_what_the_file_prints_in_its_check_does_not_lose_the_report(tmp_path: Path) -> None:
    """Review 20: a debugging print of 300 KB in the function filled the output the report is
    read from, and the file was refused ("the report was lost") though its games would play.
    What it prints while it loads and answers goes nowhere."""
    from tests.test_tournament_run import UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    feats = tmp_path / "feats.py"
    feats.write_text("import sys\nprint('l' * 300_000)\n"
                     "def phi(state):\n    print('x' * 300_000)\n"
                     "    print('y' * 300_000, file=sys.stderr)\n    return {'a': 1}\n")
    checked = checked_features(f"{feats}:phi", "layouts/testClassic.lay", 1, "classic",
                               Limits(), 60.0, "feats.py:phi")
    assert checked == Checked((), {"a": 1.0}, False)
