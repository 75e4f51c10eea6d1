"""The collected submissions' manifest: who each team folder is, and where its files came from.

`tournament collect` turns a course's submissions (an LMS export, a list of repositories)
into team folders under one folder, and writes `manifest.json` beside them. Everything that
needs to know more of a team than its files reads it here, and only here: `tournament marks`
(members, so that a mark reaches each student; lateness, for the scheme's penalty), the report
(when a team's files last changed) and the organizer (what was collected, set aside or
refused, and why; `manifest.csv` is the same facts as a table).

The manifest is written by the platform but holds text from submissions (students' names and
ids, archive member names), so it is read bounded and checked like any other input, and shown
only through the report's redactor and `tournament.tables`.

It is deterministic: the same collection writes the same bytes (sorted keys, sorted teams, no
time of writing), so collecting unchanged sources twice changes nothing on disk.
`changed_at` is when a team's folder last got other files, kept as is while they do not change.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pacman.files import FileProblem, read_text_bounded, write_atomic

#: The manifest's file name inside the collected folder (a plain file: `entrants.submissions`
#: skips plain files, so it never becomes a team).
MANIFEST_NAME = "manifest.json"
#: The same facts as a table for people and spreadsheets.
MANIFEST_TABLE = "manifest.csv"
#: The version of this format; a reader refuses another.
FORMAT = 1
#: How large a manifest may be read (a class of thousands of teams fits many times over).
MAX_BYTES = 64 * 1024 * 1024

#: What became of a submission that is not a team's collected one.
LATE = "late"              # after the deadline, kept aside (`--late aside`)
SUPERSEDED = "superseded"  # an earlier submission of a team that submitted again
REFUSED = "refused"        # unusable: unsafe archive, not an archive, unknown student...
STATUSES = (LATE, SUPERSEDED, REFUSED)


class ManifestError(ValueError):
    """A manifest that cannot be read; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Member:
    """A student of a team, as the mapping or the export names them."""

    id: str
    name: str = ""


@dataclass(frozen=True)
class TeamRecord:
    """A collected team: its folder, members and the submission its folder holds now."""

    #: The team's folder name under the collected folder: its entrant name in tournaments.
    team: str
    #: The team's name for people (the mapping's team name; the folder's when none).
    name: str
    members: tuple[Member, ...]
    #: Which export and which entry of it the files came from, in words (`canvas:
    #: submissions.zip: smithjane_1234_5678_multiAgents.py`, `git: URL@branch`).
    source: str
    #: When the submission was made, UTC ISO 8601 to the second; None when the source does
    #: not tell (an entry's modification time is used where there is one).
    submitted_at: str | None
    #: Whether it came after the team's deadline (taken anyway with `--late take`).
    late: bool
    #: Seconds after the deadline (0 when on time or when there is no deadline).
    late_seconds: float
    #: Every file of the folder, relative path -> SHA-256 of its bytes, sorted.
    files: dict[str, str]
    #: The commit a repository's files were taken from; None for uploads.
    commit: str | None
    #: When collect last gave the folder other files (UTC ISO 8601 to the second).
    changed_at: str
    #: What collect did to the submission's files on the way, in words, so that a team that
    #: misses a file can be told why: junk left out (`left out as junk: .DS_Store, __MACOSX/`),
    #: a single top folder flattened (`flattened proj2/`), a resubmission's name restored
    #: (`multiAgents-1.py saved as multiAgents.py`). Absent from older manifests: empty.
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """A submission that is not (or is no longer) a team's collected one, and why."""

    #: The team it belongs to, when that is known.
    team: str | None
    source: str
    submitted_at: str | None
    #: One of STATUSES.
    status: str
    #: Why, in words: the refusal's reason, `after the deadline by 2 h 05 min`, ...
    reason: str
    #: The commit, for a repository's submission (a late one set aside is a commit too).
    commit: str | None = None
    #: The students it is from: its team's members (the mapping's), or the students the export
    #: names when it belongs to no team; so that `tournament marks` gives a student whose
    #: every submission was set aside or refused a row that says why. Absent from older
    #: manifests.
    members: tuple[Member, ...] = ()


@dataclass(frozen=True)
class Manifest:
    """What one collection made of its sources."""

    teams: tuple[TeamRecord, ...] = ()
    entries: tuple[Entry, ...] = ()
    #: Problems with the inputs that did not stop the collection, each naming its file and
    #: line or the submission (`mapping.csv:4: student s12 is in two teams: ...`).
    problems: tuple[str, ...] = ()
    #: The deadline the collection used (UTC ISO 8601), or None.
    deadline: str | None = None
    format: int = field(default=FORMAT)

    def team(self, name: str) -> TeamRecord | None:
        """The record of the team whose folder is `name`, if it was collected."""
        return next((t for t in self.teams if t.team == name), None)


def to_json(manifest: Manifest) -> str:
    """The manifest as the JSON text written to disk: the same manifest, the same bytes."""
    data = asdict(manifest)
    data["teams"] = sorted(data["teams"], key=lambda t: t["team"])
    data["entries"] = sorted(data["entries"], key=lambda e: (e["team"] or "", e["source"],
                                                             e["status"]))
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_manifest(folder: Path, manifest: Manifest) -> Path:
    """Write `folder/manifest.json` atomically, unless it already holds exactly this text
    (so an unchanged collection leaves the file, its time stamp included, as it was)."""
    path = folder / MANIFEST_NAME
    text = to_json(manifest)
    try:
        if path.is_file() and read_text_bounded(path, MAX_BYTES, follow_links=False) == text:
            return path
    except FileProblem:
        pass
    return write_atomic(path, text)


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of a collected folder, or None when the folder has none.

    A manifest that is not a regular file, too large, not JSON, of another format or with
    fields of the wrong type is a ManifestError naming the file."""
    path = folder / MANIFEST_NAME
    if not path.exists() and not path.is_symlink():
        return None
    try:
        text = read_text_bounded(path, MAX_BYTES, follow_links=False)
        data = json.loads(text)
    except FileProblem as exc:
        raise ManifestError(str(exc)) from None
    except ValueError as exc:
        raise ManifestError(f"{path}: not a manifest (invalid JSON: {exc})") from None
    try:
        return _manifest(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"{path}: not a manifest of format {FORMAT}: {exc}") from None


def _manifest(data: Any) -> Manifest:
    if not isinstance(data, dict):
        raise TypeError("expected a mapping at the top")
    if data.get("format") != FORMAT:
        raise ValueError(f"format {data.get('format')!r}")
    teams = tuple(_team(t) for t in _list(data["teams"], "teams"))
    entries = tuple(_entry(e) for e in _list(data["entries"], "entries"))
    problems = tuple(_text(p, "problems[]") for p in _list(data["problems"], "problems"))
    return Manifest(teams=teams, entries=entries, problems=problems,
                    deadline=_optional_text(data.get("deadline"), "deadline"))


def _team(data: Any) -> TeamRecord:
    if not isinstance(data, dict):
        raise TypeError("a team is not a mapping")
    members = _members(data["members"])
    files = data["files"]
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in files.items()):
        raise TypeError("files: expected a mapping of path to hash")
    late_seconds = data["late_seconds"]
    if (isinstance(late_seconds, bool) or not isinstance(late_seconds, (int, float))
            or not math.isfinite(late_seconds) or late_seconds < 0):
        # JSON as Python reads it lets NaN and Infinity through: a penalty made of them
        # would be no number at all.
        raise ValueError(f"late_seconds: expected a number of seconds >= 0, got "
                         f"{late_seconds!r}")
    if not isinstance(data["late"], bool):
        raise TypeError("late: expected true or false")
    return TeamRecord(team=_text(data["team"], "team"), name=_text(data["name"], "name"),
                      members=members, source=_text(data["source"], "source"),
                      submitted_at=_optional_text(data["submitted_at"], "submitted_at"),
                      late=data["late"], late_seconds=float(late_seconds),
                      files=dict(sorted(files.items())),
                      commit=_optional_text(data["commit"], "commit"),
                      changed_at=_text(data["changed_at"], "changed_at"),
                      notes=tuple(_text(n, "notes[]")
                                  for n in _list(data.get("notes", []), "notes")))


def _entry(data: Any) -> Entry:
    if not isinstance(data, dict):
        raise TypeError("an entry is not a mapping")
    status = _text(data["status"], "status")
    if status not in STATUSES:
        raise ValueError(f"status {status!r}")
    return Entry(team=_optional_text(data["team"], "team"), source=_text(data["source"], "source"),
                 submitted_at=_optional_text(data["submitted_at"], "submitted_at"),
                 status=status, reason=_text(data["reason"], "reason"),
                 commit=_optional_text(data.get("commit"), "commit"),
                 members=_members(data.get("members", [])))


def _members(value: Any) -> tuple[Member, ...]:
    members = []
    for m in _list(value, "members"):
        if not isinstance(m, dict):
            raise TypeError("a member is not a mapping")
        members.append(Member(id=_text(m["id"], "members[].id"),
                              name=_text(m.get("name", ""), "members[].name")))
    return tuple(members)


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{what}: expected a list")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what}: expected text")
    return value


def _optional_text(value: Any, what: str) -> str | None:
    return None if value is None else _text(value, what)
