"""Tables written for people and their tools: CSV for spreadsheets, Markdown for pages.

Cells carry text that agents and teams control (a failure message is whatever a team's code
chose to raise). A spreadsheet opening a CSV runs a cell that starts with `=`, `+`, `-` or
`@` as a formula (`=HYPERLINK(...)`, `=cmd|...`), and Excel also strips a leading tab or
carriage return and reads what follows; a Markdown table breaks at a `|` or a line break in
a cell. So every CSV the platform writes goes through `write_csv` and every Markdown table
through `markdown`, here and nowhere else:
- `formula_safe`: a text cell starting with one of those characters (or their full-width
  forms) gets a leading `'`, as OWASP advises; spreadsheets show the text, run nothing.
  Numbers are never touched: only `str` values of text columns are, so a negative score
  stays a number and reads back as one.
- CSV rows end in CRLF (RFC 4180), so every line break inside a cell is quoted and no text
  can start a row of its own; files are written to a temporary file and renamed, so a reader
  never sees half a file.
- Markdown cells have `\\`, `|` and `<` escaped (no raw HTML) and every line break turned
  into a space.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pacman.describe import clean
from pacman.files import write_atomic

#: First characters that make a spreadsheet read a cell as a formula (OWASP's list, and the
#: full-width forms some spreadsheets also accept).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: What may break a Markdown table row: the line breaks CommonMark and browsers honour.
_LINE_BREAKS = str.maketrans({"\r": " ", "\n": " ", "\x0b": " ", "\x0c": " ",
                              "\x85": " ", "\u2028": " ", "\u2029": " "})


def formula_safe(value: object) -> object:
    """A text that a spreadsheet would run as a formula, quoted to stay text, and any text
    `clean`ed (no terminal escape or bidirectional control: a `cat` of the file is the
    organizer's terminal too); else as is."""
    if isinstance(value, str):
        value = clean(value)
        if value.startswith(FORMULA_STARTS):
            return "'" + value
    return value


def formula_unquoted(text: str) -> str:
    """A text cell read back from a CSV written here, without the quote `formula_safe` gave
    it (a text that began with `'` and a formula character of its own reads back without
    its quote too: the price of a CSV a spreadsheet cannot run)."""
    if text.startswith("'") and text[1:].startswith(FORMULA_STARTS):
        return text[1:]
    return text


def csv_frame(frame: Any) -> Any:
    """A copy of a pandas DataFrame whose text cells are `formula_safe` (numbers untouched)."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    out = frame.copy()
    for column in out.columns:
        # Object, `string` and pandas 3's `str` columns: whatever is not a number or a flag.
        if not pd.api.types.is_numeric_dtype(out[column]):
            out[column] = out[column].map(formula_safe)
    return out


def write_csv(frame: Any, path: Path, *, keep_unchanged: bool = False) -> None:
    """Write `frame` as CSV, formula-safe, atomically (a temporary file, then a rename).

    With `keep_unchanged`, a file that already holds exactly these bytes is left as it is,
    its time stamp included (`tournament collect` run again on unchanged sources changes
    nothing on disk)."""
    # CRLF, as RFC 4180 says: the writer then quotes a field holding a lone `\r` too, which
    # with `\n` endings it would write bare and a reader would split.
    text = csv_frame(frame).to_csv(index=False, lineterminator="\r\n")
    if keep_unchanged:
        try:
            if path.is_file() and not path.is_symlink() and path.read_bytes() == text.encode():
                return
        except OSError:
            pass
    write_atomic(path, text, newline="")


def csv_header(path: Path, limit: int = 64 * 1024) -> list[str] | None:
    """The first row of the CSV file at `path` (its first `limit` bytes read at most), or
    None when `path` is no regular file or does not start with a line of CSV text: what a
    command checks before it replaces a file someone named on its command line."""
    import csv

    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, "rb") as fh:
            start = fh.read(limit)
    except OSError:
        return None
    line, newline, _ = start.partition(b"\n")
    try:
        text = line.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if not newline or "\0" in text:
        return None
    try:
        return next(csv.reader([text.rstrip("\r")]), None)
    except csv.Error:
        return None


def markdown(frame: Any) -> str:
    """A GitHub-flavoured Markdown table of `frame`, one row per line whatever the cells."""
    header = "| " + " | ".join(markdown_cell(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(markdown_cell(v) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows]) + "\n"


def markdown_cell(value: object) -> str:
    """One cell's text: numbers short; `\\`, `|`, `&` and `<` escaped; line breaks as spaces."""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4g}"
    text = str(value).translate(_LINE_BREAKS).replace("\\", "\\\\").replace("|", "\\|")
    return text.replace("&", "&amp;").replace("<", "&lt;")
