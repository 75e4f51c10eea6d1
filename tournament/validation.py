"""The validation table: who loads, who fails and why, before the tournament.

`tournament validate` tries every entrant for one short game (`tournament.tryout`) and makes a
row of each (entrant, side) here: whether it is ready, and if not, the kind of problem the
team has to fix (`pacman.problems.KINDS`: `syntax_error` with its file and line,
`missing_module` naming the module, `startup_timeout`, ...), so that an organizer can mail
the teams before the deadline. The rows are written to `<output>/validation.csv` and shown by
the report as `validation.html`.

A row's kind is read from typed facts (`classify`): a resolution's `SubmissionError.problem`,
and for a game the outcome, the stage it failed in and the detail its sandbox reported;
never from a message's words. Its message is for people: the platform's sentence, on one
line, bounded, with the organizer's folders rewritten (a team's folder as its name, as the
published report shows it), so that it can be mailed to the team as it is.

Pure but for `write_validation` and `read_validation` at the end.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pacman.describe import clean
from pacman.files import FileProblem, read_text_bounded
from pacman.game import GameResult
from pacman.loader import SourceError, SubmissionError
from pacman.outcomes import INFRA_ERROR, OUTCOMES, PACMAN, SIDES, culprit_side
from pacman.problems import (
    CRASH_AT_START,
    KINDS,
    STARTUP_STAGES,
    STARTUP_TIMEOUT,
    UNRESOLVED,
    Detail,
    where_in,
)
from pacman.yamlfile import YamlProblem
from tournament.tables import formula_unquoted, write_csv

#: The table's file name in the output folder.
FILE_NAME = "validation.csv"
#: A row's status: the entrant played its short game, or it has something to fix.
OK = "ok"
FAILED = "failed"
STATUSES = (OK, FAILED)
#: The columns of validation.csv, in order. `checked_at` (UTC, ISO 8601) is the same on
#: every row: when the validation ran.
COLUMNS = ("checked_at", "entrant", "side", "folder", "status", "kind", "where", "message",
           "layers", "moves", "outcome", "score")
#: How the layers of a row are joined in the file (a layer's name may hold a space).
LAYER_SEPARATOR = ", "
#: Longest message kept in a row (the platform's sentence with the agent's words quoted).
MESSAGE_LIMIT = 300
#: Largest validation.csv read back (a course of thousands of teams fits many times over).
MAX_BYTES = 16 * 1024 * 1024

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class ValidationRow:
    """One entrant's side, tried once."""

    entrant: str
    #: `pacman.outcomes.PACMAN` or `GHOSTS`.
    side: str
    #: The team's folder name ('' for a baseline).
    folder: str
    #: `OK` or `FAILED`.
    status: str
    #: For a failure, one of `pacman.problems.KINDS`; '' when ready.
    kind: str = ""
    #: Where in the team's files (`multiAgents.py:12`), '' when not known.
    where: str = ""
    #: Why, for people: one line, bounded, without the organizer's folders.
    message: str = ""
    #: The sandbox layers it played under (none: in-process, a built-in).
    layers: tuple[str, ...] = ()
    #: Moves of the short game, all agents together (0 when it could not be played).
    moves: int = 0
    #: How the short game ended ('' when it could not be played).
    outcome: str = ""
    score: int | None = None

    @property
    def ready(self) -> bool:
        return self.status == OK


@dataclass(frozen=True)
class Validation:
    """A validation as read back: when it ran, and its rows in the order written."""

    checked_at: str
    rows: tuple[ValidationRow, ...]


class ValidationFileError(ValueError):
    """A validation.csv that cannot be read; the message names the file and the line."""


# ---- rows ------------------------------------------------------------------------------------

def classify(outcome: str, stage: str, detail: Detail | None) -> str:
    """The kind of an agent's failure in a game (one of `pacman.problems.KINDS`), from what
    the game recorded: what the agent's exception told (a syntax error, a missing module or
    class), else the stage and the outcome: at start-up, a time-out is `startup_timeout`,
    running out of memory `memory` and anything else `crash_at_start`; later, the outcome."""
    if outcome == INFRA_ERROR:
        return INFRA_ERROR
    if detail is not None and detail.problem in KINDS:
        return detail.problem
    if stage in STARTUP_STAGES or outcome == "load_error":
        if outcome == "timeout":
            return STARTUP_TIMEOUT
        return "memory" if outcome == "memory" else CRASH_AT_START
    return outcome


def game_row(entrant: str, side: str, folder: str, result: GameResult,
             redact: Callable[[str], str]) -> ValidationRow:
    """The row of `entrant` playing `side` in its short game: failed when the game failed on
    its side (or in the platform), else ok whatever the result."""
    index = 0 if side == PACMAN else 1
    layers = tuple(result.sandbox[index]) if len(result.sandbox) > index else ()
    score = None if result.outcome == INFRA_ERROR else result.score
    own = culprit_side(result.outcome, result.culprit) == side
    if not own and result.scored:
        return ValidationRow(entrant, side, folder, OK, layers=layers, moves=result.moves,
                             outcome=result.outcome, score=score)
    kind = classify(result.outcome, result.stage, result.detail)
    where = result.detail.where if result.detail is not None else ""
    return ValidationRow(entrant, side, folder, FAILED, kind, one_line(redact(where)),
                         one_line(redact(result.message), MESSAGE_LIMIT), layers,
                         result.moves, result.outcome, score)


def resolution_row(entrant: str, side: str, team: Path | None, error: SubmissionError,
                   redact: Callable[[str], str]) -> ValidationRow:
    """The row of an entrant that could not even be resolved (its folder, its team.yaml,
    its agent class): the error's own kind, and where, from the error's typed facts."""
    kind = error.problem if error.problem in KINDS else UNRESOLVED
    return ValidationRow(entrant, side, team.name if team is not None else "", FAILED, kind,
                         one_line(redact(error_place(error, team))),
                         one_line(redact(str(error)), MESSAGE_LIMIT))


def error_place(error: SubmissionError, team: Path | None) -> str:
    """Where a resolution error is, when it says: a file that does not compile (the error,
    or its cause), or a team.yaml's line; relative to the team's folder."""
    root = str(team) if team is not None else ""
    for found in (error, error.__cause__):
        if isinstance(found, SourceError) and found.path is not None:
            return where_in(str(found.path), found.line, root)
        if isinstance(found, YamlProblem):
            return where_in(found.path, found.line, root)
    return ""


def one_line(text: str, limit: int | None = None) -> str:
    """Text for a table cell: cleaned, every run of white space (line breaks too) one space,
    cut at `limit` with an ellipsis."""
    text = _SPACES.sub(" ", clean(text)).strip()
    if limit is not None and len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def line(row: ValidationRow) -> str:
    """A row as `tournament validate` prints it while it goes, one line per entrant."""
    label = row.entrant if row.side == PACMAN else f"{row.entrant} (ghosts)"
    if row.ready:
        where = (f"sandboxed ({', '.join(row.layers)})" if row.layers
                 else "in-process (built-in)")
        return f"{label}: ok, {where}, {row.moves} moves, {row.outcome} at {row.score}"
    at = f" at {row.where}" if row.where else ""
    return f"{label}: FAILED {row.kind}{at}: {row.message}"


def failures_first(rows: Iterable[ValidationRow]) -> list[ValidationRow]:
    """The rows to look at first: failures, then the ready ones, each in the order given."""
    return sorted(rows, key=lambda row: row.ready)


def kind_counts(rows: Iterable[ValidationRow]) -> list[tuple[str, int]]:
    """How many rows failed with each kind, most first (then by name)."""
    found = Counter(row.kind for row in rows if not row.ready)
    return sorted(found.items(), key=lambda item: (-item[1], item[0]))


# ---- the file --------------------------------------------------------------------------------

def write_validation(rows: Sequence[ValidationRow], folder: Path, checked_at: str) -> Path:
    """Write `folder/validation.csv` atomically (`tournament.tables.write_csv`)."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    records = [{
        "checked_at": checked_at, "entrant": row.entrant, "side": row.side,
        "folder": row.folder, "status": row.status, "kind": row.kind, "where": row.where,
        "message": row.message, "layers": LAYER_SEPARATOR.join(row.layers), "moves": row.moves,
        "outcome": row.outcome, "score": "" if row.score is None else row.score,
    } for row in rows]
    path = folder / FILE_NAME
    write_csv(pd.DataFrame(records, columns=list(COLUMNS)), path)
    return path


def read_validation(folder: Path) -> Validation | None:
    """The validation in `folder/validation.csv`, or None when there is none.

    The file is the platform's, but its cells hold text from teams and the folder may hold
    anything: it is read bounded, through no link, and every row is checked; a file that is
    not such a table is a ValidationFileError naming it and the line."""
    path = folder / FILE_NAME
    if not path.exists() and not path.is_symlink():
        return None
    try:
        text = read_text_bounded(path, MAX_BYTES, follow_links=False)
    except FileProblem as exc:
        raise ValidationFileError(str(exc)) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ValidationFileError(f"{path}: not a validation table (no column "
                                  f"{', '.join(missing)})")
    rows: list[ValidationRow] = []
    checked_at = ""
    try:
        for number, record in enumerate(reader, start=2):
            values = {k: one_line(formula_unquoted(v or "")) for k, v in record.items()
                      if isinstance(k, str) and isinstance(v, str)}
            checked_at = checked_at or values["checked_at"]
            rows.append(_row(values, f"{path}: line {number}"))
    except csv.Error as exc:
        raise ValidationFileError(f"{path}: line {reader.line_num}: {exc}") from None
    return Validation(checked_at, tuple(rows))


def _row(values: dict[str, str], at: str) -> ValidationRow:
    if values.get("side") not in SIDES:
        raise ValidationFileError(f"{at}: side: expected {' or '.join(SIDES)}")
    if values.get("status") not in STATUSES:
        raise ValidationFileError(f"{at}: status: expected {' or '.join(STATUSES)}")
    kind = values.get("kind", "")
    if values["status"] == FAILED and kind not in KINDS:
        raise ValidationFileError(f"{at}: kind: {kind!r} is not a kind of problem")
    try:
        moves = int(values.get("moves") or 0)
        score = int(values["score"]) if values.get("score") else None
    except ValueError:
        raise ValidationFileError(f"{at}: moves and score: expected whole numbers") from None
    outcome = values.get("outcome", "")
    return ValidationRow(
        entrant=values.get("entrant", ""), side=values["side"], folder=values.get("folder", ""),
        status=values["status"], kind=kind if values["status"] == FAILED else "",
        where=values.get("where", ""), message=values.get("message", "")[:MESSAGE_LIMIT],
        layers=tuple(x.strip() for x in values.get("layers", "").split(LAYER_SEPARATOR.strip())
                     if x.strip()), moves=moves,
        outcome=outcome if outcome in OUTCOMES else "", score=score)

