"""The mapping from students to teams: which uploads belong to one team.

An LMS export names students (Canvas's user id, Moodle's participant id, Gradescope's
student id or e-mail); a course plays teams. The organizer writes the mapping as a CSV table
with a header line:

    student,team,name
    s1001,Night Shift,Jane Smith
    s1002,Night Shift,Bob Roe

`student` and `team` are required, `name` (the student's name, for marks) is optional; the
columns may come in any order, separated by commas (or by semicolons, as some spreadsheets
write them). Ids are matched without regard to case or surrounding spaces.

The mapping is the organizer's file, but it is typed by hand and exported from spreadsheets:
a problem in one line leaves that line out and is reported with the file and line
(`mapping.csv:7: ...`), never silently, and the rest is used. What makes a line unusable:
- a wrong number of cells, an empty student or an empty team;
- a student in two teams: the student is left out of both (which upload counts would be a
  guess), so their uploads are refused, naming both lines, until the mapping says one team;
- a team name that differs from another only in case (`alpha` and `Alpha`): two folders
  that a case-insensitive disk would merge; the later one's lines are left out.
A file that cannot be read at all (missing, not UTF-8 text, no header with `student` and
`team`, an unknown column) is a `RosterError`: the command stops before collecting anything.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from pacman.files import FileProblem, read_text_bounded
from tournament.config import team_entrant_name
from tournament.manifest import Member

#: The mapping's columns: required, then optional.
STUDENT, TEAM, NAME = "student", "team", "name"
REQUIRED_COLUMNS = (STUDENT, TEAM)
COLUMNS = (STUDENT, TEAM, NAME)
#: Largest mapping read (a course of thousands of students is a few hundred kilobytes).
MAX_BYTES = 16 * 1024 * 1024


class RosterError(ValueError):
    """A mapping that cannot be used at all; the message names the file and what was
    expected."""


def student_key(student_id: str) -> str:
    """How ids are compared: without case or surrounding spaces (`S1001 ` is `s1001`)."""
    return student_id.strip().casefold()


@dataclass(frozen=True)
class RosterTeam:
    """A team of the mapping: its name for people, its folder, its students."""

    name: str
    #: Its folder under the collected folder, and its entrant name in tournaments.
    folder: str
    members: tuple[Member, ...]
    #: The line where the mapping first names it.
    line: int


@dataclass(frozen=True)
class Roster:
    """A read mapping: its teams, who is in which, and the problems of the lines left out."""

    #: The mapping's file name, for messages and reasons.
    name: str
    teams: tuple[RosterTeam, ...]
    problems: tuple[str, ...] = ()
    #: Student key -> the folder of their team.
    by_student: dict[str, str] = field(default_factory=dict)
    #: Student key -> why the student is in no team (in two teams).
    doubts: dict[str, str] = field(default_factory=dict)

    def team_of(self, student_id: str) -> RosterTeam | None:
        """The team of a student, or None when the mapping does not place them."""
        folder = self.by_student.get(student_key(student_id))
        return None if folder is None else self.team_in(folder)

    def team_in(self, folder: str) -> RosterTeam | None:
        """The team whose folder is `folder`."""
        return next((team for team in self.teams if team.folder == folder), None)

    def team_named(self, text: str) -> RosterTeam | None:
        """The team called `text` (its name or its folder name, in any case)."""
        key = text.strip().casefold()
        return next((team for team in self.teams
                     if key in (team.name.casefold(), team.folder.casefold())), None)

    def doubt_about(self, student_id: str) -> str | None:
        """Why the mapping places a student in no team although it names them, or None."""
        return self.doubts.get(student_key(student_id))


def read_roster(path: Path) -> Roster:
    """The mapping in `path`. Raises RosterError when it cannot be read at all; problems of
    single lines are in the result's `problems`, each naming the file and line."""
    try:
        text = read_text_bounded(path, MAX_BYTES)
    except FileProblem as exc:
        raise RosterError(f"the mapping {exc}") from None
    return parse_roster(text, path.name)


def parse_roster(text: str, name: str) -> Roster:
    """The mapping from its text; `name` is the file's name in messages. A byte order mark
    (spreadsheets write one) is not part of the first column's name."""
    text = text.removeprefix("\ufeff")
    first = text.split("\n", 1)[0]
    delimiter = ";" if ";" in first and "," not in first else ","
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(rows, None)
        if header is None or not any(cell.strip() for cell in header):
            raise RosterError(f"{name}: empty; expected a header line "
                              f"`{','.join(COLUMNS)}` and a line per student")
        columns = _columns(header, name)
        lines = [(rows.line_num, cells) for cells in rows]
    except csv.Error as exc:
        raise RosterError(f"{name}:{rows.line_num}: not CSV: {exc}") from None
    return _read_rows(lines, columns, name)


def _columns(header: list[str], name: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, cell in enumerate(header):
        column = cell.strip().casefold()
        if column not in COLUMNS:
            raise RosterError(f"{name}:1: unknown column {cell.strip()!r}; expected "
                              f"{', '.join(REQUIRED_COLUMNS)} and optionally {NAME}")
        if column in found:
            raise RosterError(f"{name}:1: the column {column!r} is given twice")
        found[column] = index
    missing = [c for c in REQUIRED_COLUMNS if c not in found]
    if missing:
        raise RosterError(f"{name}:1: no column {' or '.join(map(repr, missing))}; the header "
                          f"must name {', '.join(REQUIRED_COLUMNS)} (and optionally {NAME})")
    return found


@dataclass
class _Place:
    """Where a student was placed: team name, folder, line, their name."""

    team: str
    folder: str
    line: int
    name: str


def _read_rows(lines: list[tuple[int, list[str]]], columns: dict[str, int], name: str) -> Roster:
    problems: list[str] = []
    team_lines: dict[str, tuple[str, int]] = {}  # casefolded folder -> (team name, line)
    places: dict[str, _Place] = {}
    student_ids: dict[str, str] = {}  # key -> id as first written
    doubts: dict[str, str] = {}
    refused: set[tuple[str, str]] = set()  # (casefolded folder, team name) left out
    for line, cells in lines:
        if not any(cell.strip() for cell in cells):
            continue  # blank lines, and trailing separators of an emptied spreadsheet row
        if len(cells) != len(columns) and not (len(cells) > len(columns)
                                               and not any(c.strip()
                                                           for c in cells[len(columns):])):
            problems.append(f"{name}:{line}: {len(cells)} cells, expected {len(columns)} "
                            f"({', '.join(sorted(columns, key=columns.__getitem__))}); "
                            "line left out")
            continue
        student = cells[columns[STUDENT]].strip()
        team = " ".join(cells[columns[TEAM]].split())
        person = cells[columns[NAME]].strip() if NAME in columns else ""
        if not student:
            problems.append(f"{name}:{line}: no student id; line left out")
            continue
        if not team:
            problems.append(f"{name}:{line}: student {student} has no team (the team cell is "
                            "empty); line left out")
            continue
        folder = team_entrant_name(team)
        known = team_lines.get(folder.casefold())
        if known is None:
            team_lines[folder.casefold()] = (team, line)
        elif known[0] != team:
            if (folder.casefold(), team) not in refused:
                problems.append(
                    f"{name}:{line}: team {team!r} differs from team {known[0]!r} (line "
                    f"{known[1]}) only in case, so their folders would be one on some disks; "
                    f"its lines are left out: write the team's name once, one way")
            refused.add((folder.casefold(), team))
            continue
        key = student_key(student)
        if key in doubts:
            continue
        earlier = places.get(key)
        if earlier is not None:
            if earlier.folder == folder:
                problems.append(f"{name}:{line}: student {student} is listed again in team "
                                f"{team!r} (line {earlier.line}); line ignored")
                continue
            reason = (f"student {student} is in two teams in {name}: {earlier.team!r} (line "
                      f"{earlier.line}) and {team!r} (line {line})")
            problems.append(f"{name}:{line}: {reason}; left out of both, so their uploads "
                            "are refused until the mapping says one team")
            doubts[key] = reason
            del places[key]
            continue
        places[key] = _Place(team, folder, line, person)
        student_ids.setdefault(key, student)
    teams: list[RosterTeam] = []
    for team_name, first_line in sorted(team_lines.values(), key=lambda t: t[1]):
        folder = team_entrant_name(team_name)
        members = tuple(sorted((Member(id=student_ids[key], name=place.name)
                                for key, place in places.items() if place.folder == folder),
                               key=lambda m: student_key(m.id)))
        teams.append(RosterTeam(team_name, folder, members, first_line))
    return Roster(name=name, teams=tuple(teams), problems=tuple(problems),
                  by_student={key: place.folder for key, place in places.items()},
                  doubts=doubts)
