"""The one YAML reader: plain data only, bounded, and nothing but YamlProblem for bad input."""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import random
import threading
from pathlib import Path

import pytest

from pacman.yamlfile import (
    ORGANIZER_FILE,
    TEAM_FILE,
    YamlLimits,
    YamlProblem,
    load_yaml,
    parse_yaml,
)


def refused(text: str, limits: YamlLimits = TEAM_FILE) -> YamlProblem:
    with pytest.raises(YamlProblem) as info:
        parse_yaml(text, "team.yaml", limits)
    assert str(info.value) == f"team.yaml: {info.value.detail}"
    return info.value


def billion_laughs(levels: int = 10) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\nagent: a.py:A\n"


def test_plain_data_reads_as_safe_load_would() -> None:
    text = "agent: multiAgents.py:MyAgent\nargs: {depth: 2, evalFn: better, ratio: 0.5}\n" \
           "flags: [true, no, null, ~, -3, 0x1f]\nname: 'Team: \"A\"'\n"
    assert parse_yaml(text, "t") == {
        "agent": "multiAgents.py:MyAgent",
        "args": {"depth": 2, "evalFn": "better", "ratio": 0.5},
        "flags": [True, False, None, None, -3, 31],
        "name": 'Team: "A"',
    }
    assert parse_yaml("", "t") is None


def test_numbers_with_an_exponent_are_numbers_as_in_yaml_1_2() -> None:
    # YAML 1.1 (PyYAML's safe_load) reads 1e308 and 2.5e3 as text: a weight of 1e308 was
    # then "expected a number, got '1e308'".
    assert parse_yaml("[1e308, 2.5e3, -1E-3, 1.0e+3, .5e2, 1_000e2, 1e400]", "t") == [
        1e308, 2500.0, -0.001, 1000.0, 50.0, 100000.0, math.inf]
    assert parse_yaml("[1e, e5, '1e3', 1.5, 12, 1e3x]", "t") == [
        "1e", "e5", "1e3", 1.5, 12, "1e3x"]


def test_dates_merge_keys_and_value_keys_stay_text() -> None:
    assert parse_yaml("a: 2024-01-01\nb: 2024-01-01 10:00:00\n<<: {c: 1}\n=: 2\n", "t") == {
        "a": "2024-01-01", "b": "2024-01-01 10:00:00", "<<": {"c": 1}, "=": 2}


def test_an_alias_bomb_is_refused_at_its_first_anchor() -> None:
    problem = refused(billion_laughs())
    assert (problem.line, problem.column) == (1, 5)
    assert problem.detail == "line 1, column 5: an anchor (&name) is not allowed here: " \
                             "write the value out"


def test_an_alias_alone_and_a_recursive_alias_are_refused() -> None:
    assert refused("a: *nowhere\n").detail.startswith(
        "line 1, column 4: an alias (*name) is not allowed")
    assert "anchor" in refused("a: &a [*a]\n").detail


@pytest.mark.parametrize("opening, closing", [("[", "]"), ("{a: ", "}")])
def test_deep_nesting_is_refused_before_the_recursion_grows(opening: str, closing: str) -> None:
    text = "a: " + opening * 10_000 + "1" + closing * 10_000 + "\n"
    assert refused(text).detail.endswith("nested more than 8 levels deep")
    assert refused(text, ORGANIZER_FILE).detail.endswith("nested more than 32 levels deep")


def test_eight_levels_are_fine_for_a_team_file_and_nine_are_not() -> None:
    assert parse_yaml("a: [[[[[[[1]]]]]]]\n", "t", TEAM_FILE) == {"a": [[[[[[[1]]]]]]]}
    # Block style: the ninth mapping (under k7) starts on line 9.
    block = "".join(f"{'  ' * i}k{i}:\n" for i in range(12)) + "  " * 12 + "v\n"
    assert refused(block).detail == "line 9, column 17: nested more than 8 levels deep"


@pytest.mark.parametrize("text, shown", [
    ("a: !!python/object/apply:os.system ['true']\n", "!!python/object/apply:os.system"),
    ("a: !!str 1\n", "!!str"),
    ("a: !!binary aGk=\n", "!!binary"),
    ("a: !custom x\n", "!custom"),
    ("a: !!set {x: null}\n", "!!set"),
])
def test_tags_are_refused(text: str, shown: str) -> None:
    assert refused(text).detail == f"line 1, column 4: a tag ({shown}) is not allowed here: " \
                                   "quote the value to make it text"


def test_numbers_too_large_for_int64_are_refused_not_crashed() -> None:
    # int() refuses 5,000 digits with a ValueError, and a sexagesimal number grows unbounded.
    for text in ("a: " + "9" * 5000, "a: " + ":".join(["59"] * 3000), "a: 9223372036854775808"):
        assert refused(text + "\n").detail.startswith("line 1, column 4: a whole number larger")
    assert parse_yaml("a: -9223372036854775807\n", "t") == {"a": -(2**63 - 1)}


def test_keys_are_plain_and_unique() -> None:
    assert refused("a: 1\nb: 2\na: 3\n").detail == \
        "line 3, column 1: invalid YAML: the key 'a' is given twice"
    assert refused("? [1, 2]\n: x\n").detail == \
        "line 1, column 3: a key must be a plain value, not a list or mapping"


def test_syntax_errors_and_control_characters_name_line_and_column() -> None:
    assert refused("a: 1\n  b: 2\n").detail == \
        "line 2, column 4: invalid YAML: mapping values are not allowed here"
    assert refused("a: 1\nb: \x1b[31mred\n").detail == \
        "line 2, column 4: character #x001b is not allowed in YAML (special characters are " \
        "not allowed)"
    assert refused("a: 1\n---\nb: 2\n").line == 2


def test_a_file_over_the_size_cap_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "team.yaml"
    path.write_text("a: " + "x" * (TEAM_FILE.max_bytes + 1) + "\n")
    with pytest.raises(YamlProblem) as info:
        load_yaml(path, TEAM_FILE)
    assert str(info.value) == (f"{path}: {TEAM_FILE.max_bytes + 5} bytes, more than the "
                               f"{TEAM_FILE.max_bytes} allowed")
    assert load_yaml(path, ORGANIZER_FILE) == {"a": "x" * (TEAM_FILE.max_bytes + 1)}


def test_what_is_not_a_regular_file_is_refused_without_blocking(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text("a: 1\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    assert load_yaml(link) == {"a": 1}  # an organizer's own link is followed
    with pytest.raises(YamlProblem, match="is a symbolic link; expected a regular file"):
        load_yaml(link, TEAM_FILE, follow_links=False)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            load_yaml(fifo)
        except BaseException as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)  # a deadline for a hang, not a timing threshold: it returns at once
    assert not reader.is_alive(), "reading a fifo blocked"
    assert str(outcome[0]) == f"{fifo}: is a named pipe (fifo); expected a regular file"
    assert str(_problem(tmp_path)) == f"{tmp_path}: is a folder; expected a regular file"
    assert str(_problem(tmp_path / "none.yaml")) == f"{tmp_path / 'none.yaml'}: no such file"
    (tmp_path / "latin.yaml").write_bytes(b"a: caf\xe9\n")
    assert str(_problem(tmp_path / "latin.yaml")).endswith("not UTF-8 text (byte 6)")


def _problem(path: Path) -> YamlProblem:
    with pytest.raises(YamlProblem) as info:
        load_yaml(path)
    return info.value


def test_a_problem_survives_pickling() -> None:
    problem = refused("a: &x 1\n")
    again = pickle.loads(pickle.dumps(problem))
    assert (str(again), again.line, again.column, again.detail) == (
        str(problem), problem.line, problem.column, problem.detail)


def test_mutated_files_raise_nothing_but_yaml_problem() -> None:
    """Random edits of real files, with YAML's special characters: whatever the text, the
    reader returns data or raises YamlProblem (fixed seed, so the same cases every run)."""
    seeds = [
        (Path(__file__).parent.parent / "tournaments" / "example.yaml").read_text(),
        "agent: a.py:B\nargs: {depth: 2, evalFn: better}\n",
        "a: &a [*a, 1]\n? [1]\n: {b: !!set {1}}\nc: 0x1f\nd: .inf\ne: \"\\x00\\uD800\"\n",
    ]
    pieces = [*"[]{}:,-?&*!|>'\"%@`#\n\t \\0123456789abc.+=<~_", "\x00", "\x1b", "\u2028",
              "\ufeff", "---", "...", "!!python/name:os.system", "%YAML 1.1", "%TAG ! tag:x:"]
    rng = random.Random(12)
    for _ in range(1500):
        text = list(rng.choice(seeds))
        for _ in range(rng.randint(1, 8)):
            i = rng.randint(0, len(text))
            roll = rng.random()
            if roll < 0.5:
                text.insert(i, rng.choice(pieces))
            elif roll < 0.8 and text:
                del text[min(i, len(text) - 1)]
            else:
                text[i:i] = text[: rng.randint(0, 20)]
        with contextlib.suppress(YamlProblem):
            parse_yaml("".join(text), "t", TEAM_FILE)
