"""`tournament collect`: submissions as they arrive, made into team folders and a manifest.

The flow: each source is read into `Submission`s (`tournament.sources`); each submission is
given its team (`resolve_team`: the mapping, `tournament.roster`, or the export's own
names); per team the submissions are ordered, newest first, and split into those that may be
collected and those set aside as late (`choose`, pure); the first of a team's that can be
made into a team folder (`tournament.gather`) is collected, the later-tried are superseded;
the folder is written only when its files differ from those already there, and the manifest
(`tournament.manifest`) and its table are written last.

Writing keeps three promises:
- **nothing is lost**: a team folder is replaced by a rename of a staging folder inside the
  collected folder, the old one moved aside first into the work folder; a crash in between
  leaves it there, and the next collect puts it back before anything else. Teams found in the
  folder but not in this collection (a repository that could not be fetched, a team whose
  only submission was refused or late) keep their folder and their manifest record, and are
  listed as kept; nothing is ever deleted.
- **the same sources change nothing**: an unchanged team's folder is not touched (its files'
  times included) and keeps its `changed_at`; the manifest and its table are rewritten only
  when their bytes change; so the next `tournament run` replays only the teams whose files
  changed.
- **one collect at a time**: the collected folder's lock (`tournament.lock`) is held
  throughout.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pacman.teamfolder import MAX_BYTES, TeamFolderError, read_team_file, team_files
from tournament.config import team_entrant_name
from tournament.gather import Gathered, Refused, gather
from tournament.gitsource import CACHE_FOLDER, GIT_TIMEOUT, GitListError, read_git_list
from tournament.lock import LockHeld, acquire, release
from tournament.manifest import (
    LATE,
    MANIFEST_NAME,
    MANIFEST_TABLE,
    REFUSED,
    SUPERSEDED,
    Entry,
    Manifest,
    ManifestError,
    Member,
    TeamRecord,
    read_manifest,
    write_manifest,
)
from tournament.roster import Roster, RosterError, RosterTeam, read_roster
from tournament.sources import (
    GIT,
    GIT_LIST_SUFFIXES,
    RepositoryPolicy,
    Student,
    Submission,
    Unusable,
    read_source,
)
from tournament.tables import write_csv
from tournament.times import duration_text, utc_text

#: What `--late` may say: late submissions set aside (listed, not collected), or taken (the
#: newest submission whatever its time, marked late for the marks' penalty).
LATE_ASIDE, LATE_TAKE = "aside", "take"
LATE_POLICIES = (LATE_ASIDE, LATE_TAKE)
#: Statuses of the manifest's table beside the manifest's own (late, superseded, refused):
#: the submission a team's folder holds now, and a team kept from an earlier collection.
COLLECTED, KEPT = "collected", "kept"
#: Names in the collected folder that are never a team's folder.
RESERVED = frozenset({MANIFEST_NAME, MANIFEST_TABLE})
#: The table's columns.
TABLE_COLUMNS = ("team", "members", "source", "submitted_at", "status", "reason", "commit")
#: The collection's own folder inside the collected folder: staging folders, unpacked exports,
#: folders being replaced. Removed at the end; a leftover one is a crash's, recovered first.
WORK_FOLDER = ".collect-work"
#: Where a team folder being replaced waits inside the work folder.
_REPLACED = "replaced"


@dataclass(frozen=True)
class Team:
    """Who a submission belongs to: a team folder, a name for people, its students."""

    folder: str
    name: str
    members: tuple[Member, ...]


@dataclass(frozen=True)
class Candidate:
    """A submission with its team and its lateness."""

    submission: Submission
    team: Team
    late: bool
    late_seconds: float


@dataclass(frozen=True)
class Plan:
    """A team's submissions: those to try, newest first (the first usable is collected, the
    ones after it superseded), and those set aside as late."""

    tries: tuple[Candidate, ...]
    aside: tuple[Candidate, ...]


@dataclass
class CollectResult:
    """What a collection did, for the command's summary and exit status."""

    manifest: Manifest
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    #: Team folders in the collected folder that this collection did not collect.
    kept: list[str] = field(default_factory=list)

    @property
    def collected(self) -> list[str]:
        return sorted(self.new + self.changed + self.unchanged)

    def entries(self, status: str) -> list[Entry]:
        return [e for e in self.manifest.entries if e.status == status]


class CollectError(ValueError):
    """The organizer's input cannot be used (the mapping, a repository list, the folder's
    lock): nothing was collected or written. The message names the file."""


# --- pure rules ----------------------------------------------------------------------------


def lateness(submitted_at: dt.datetime | None, deadline: dt.datetime | None,
             marked_late: bool) -> tuple[bool, float]:
    """Whether a submission is late and by how many seconds: after its deadline by its time,
    or marked late by the LMS (by 0 seconds when its time does not say). A submission whose
    time is unknown is on time unless the LMS marked it."""
    if deadline is not None and submitted_at is not None and submitted_at > deadline:
        return True, (submitted_at - deadline).total_seconds()
    return marked_late, 0.0


def _describe(student: Student) -> str:
    return f"{student.id} ({student.name})" if student.name and student.name != student.id \
        else student.id


def _members(team: RosterTeam, students: Sequence[Student]) -> tuple[Member, ...]:
    """The mapping's members, each named by the mapping or else by the export."""
    names = {s.id.strip().casefold(): s.name for s in students if s.name}
    return tuple(Member(m.id, m.name or names.get(m.id.strip().casefold(), ""))
                 for m in team.members)


def resolve_team(sub: Submission, roster: Roster | None) -> tuple[Team | None, str]:
    """The team of a submission, or None and why not; with a team, a warning or ''. A team
    whose folder would take the name of the manifest's files is refused."""
    team, why = _resolve_team(sub, roster)
    if team is not None and team.folder.casefold() in RESERVED:
        # Casefolded: on a case-insensitive disk (an organizer's Mac) `Manifest.json` is it.
        return None, f"the team's folder would be named {team.folder}, which is the manifest's"
    return team, why


def _resolve_team(sub: Submission, roster: Roster | None) -> tuple[Team | None, str]:
    """The team of a submission, or None and why not; with a team, a warning or ''.

    With a mapping: a team the source names is the mapping's team of that name, or of that
    student (a plain folder's entry named by a student id); a repository list's team the
    mapping does not know stays a team of its own; the students an export names must be
    in one team of the mapping. Without one: a source's team is its own, and the students an
    export names are a team named by their ids (`1234`, or `s1+s2` for a group)."""
    own = tuple(Member(s.id, s.name) for s in sub.students)
    if sub.team is not None:
        if roster is None:
            return Team(team_entrant_name(sub.team), sub.team, own), ""
        mapped = roster.team_named(sub.team) or roster.team_of(sub.team)
        if mapped is not None:
            return Team(mapped.folder, mapped.name, _members(mapped, sub.students)), ""
        doubt = roster.doubt_about(sub.team)
        if doubt:
            return None, doubt
        if sub.kind == GIT:
            return Team(team_entrant_name(sub.team), sub.team, own), ""
        return None, (f"{sub.team!r} matches no student or team of {roster.name} (if it is a "
                      f"whole LMS export, give it to collect as a source of its own)")
    if not sub.students:
        return None, "the source names no student"
    if roster is None:
        private = [s for s in sub.students if s.private_id]
        if private:
            who = ", ".join(_describe(s) for s in private)
            return None, (f"submitter {who} has no student id in the export, and without a "
                          "mapping a team is named by its students' ids, which the published "
                          "report shows (an e-mail address or a name would be published): "
                          "give a mapping (--mapping) that places them")
        ids = sorted({s.id for s in sub.students}, key=str.casefold)
        name = ", ".join(s.name or s.id for s in sub.students)
        return Team(team_entrant_name("+".join(ids)), name, own), ""
    found: dict[str, RosterTeam] = {}
    unknown: list[Student] = []
    for student in sub.students:
        for key in (student.id, student.email):
            if key and roster.doubt_about(key):
                return None, roster.doubt_about(key) or ""
        mapped = roster.team_of(student.id) or (roster.team_of(student.email)
                                                if student.email else None)
        if mapped is None:
            unknown.append(student)
        else:
            found[mapped.folder] = mapped
    if not found:
        who = ", ".join(_describe(s) for s in unknown)
        return None, f"student {who} matches no student of {roster.name}"
    if len(found) > 1:
        teams = ", ".join(repr(t.name) for t in found.values())
        return None, f"its submitters are in different teams of {roster.name}: {teams}"
    team = next(iter(found.values()))
    if unknown:
        # Someone outside the mapping who names a team's student as a co-submitter (an LMS
        # lets a submitter add any classmate) must not replace that team's files: refused,
        # saying how to let it count (the mapping places the submitter).
        who = ", ".join(_describe(s) for s in unknown)
        return None, (f"submitter {who} is in no team of {roster.name}, so this upload of "
                      f"theirs does not count for team {team.name!r} of its other submitters; "
                      f"add them to {roster.name} if they belong to it")
    return Team(team.folder, team.name, _members(team, sub.students)), ""


def _newest_first(candidate: Candidate) -> tuple[dt.datetime, tuple[int, str], str]:
    sub = candidate.submission
    when = sub.submitted_at or dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    return when, sub.order, sub.source


def impostors(candidates: Sequence[Candidate], previous: Manifest | None
              ) -> list[tuple[Candidate, str]]:
    """Submissions whose team's own name is the folder name made for another team, with that
    team's name: `José García` is collected into `Jos__Garc_a-978edf99`, and a team named
    so would share that folder and supersede José García's submission. Such a name is the
    other team's when, in this collection, a submission made that folder from another name,
    or when the manifest records the folder as made for another name. Two other names made
    into one folder (a chance of one in 2^32, or a name searched for) leave it to the first
    in order. (Without a mapping: a mapping's folders are the organizer's.)"""
    by_folder: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        by_folder.setdefault(candidate.team.folder, []).append(candidate)
    out: list[tuple[Candidate, str]] = []
    for folder, mine in sorted(by_folder.items()):
        as_is = [c for c in mine if c.submission.team == folder]
        owner = next((c.team.name for c in mine if c.submission.team != folder), None)
        old = previous.team(folder) if previous is not None else None
        if owner is None and old is not None and old.name != folder \
                and team_entrant_name(old.name) == folder:
            owner = old.name
        if owner is not None and as_is:
            out.extend((c, owner) for c in as_is)
            mine = [c for c in mine if c not in as_is]
        # Two other names made into one folder (its 8 hex digits alike): the first keeps it.
        keys = sorted({c.submission.team or "" for c in mine})
        if len(keys) > 1:
            first = next(c.team.name for c in mine if (c.submission.team or "") == keys[0])
            out.extend((c, first) for c in mine if (c.submission.team or "") != keys[0])
    return out


def choose(candidates: Sequence[Candidate], late_policy: str) -> dict[str, Plan]:
    """Per team folder, the submissions to try (newest first) and those set aside as late.
    With `aside`, a late submission is never tried; with `take`, every submission is tried,
    newest first, so the newest counts whatever its time (and carries its lateness)."""
    if late_policy not in LATE_POLICIES:
        raise ValueError(f"unknown late policy {late_policy!r}")
    teams: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        teams.setdefault(candidate.team.folder, []).append(candidate)
    plans = {}
    for folder, mine in sorted(teams.items()):
        ordered = sorted(mine, key=_newest_first, reverse=True)
        if late_policy == LATE_TAKE:
            plans[folder] = Plan(tuple(ordered), ())
        else:
            plans[folder] = Plan(tuple(c for c in ordered if not c.late),
                                 tuple(c for c in ordered if c.late))
    return plans


def late_reason(candidate: Candidate, deadline: dt.datetime | None) -> str:
    """Why a submission counts as late, in words."""
    if candidate.late_seconds > 0:
        limit = candidate.submission.deadline or deadline
        shown = f" ({utc_text(limit)})" if limit is not None else ""
        return f"after the deadline{shown} by {duration_text(candidate.late_seconds)}"
    return f"marked late by {candidate.submission.kind}"


# --- the collection ------------------------------------------------------------------------


def collect(sources: Sequence[Path], into: Path, *, mapping: Path | None = None,
            deadline: dt.datetime | None = None, late_policy: str = LATE_ASIDE,
            git_timeout: float = GIT_TIMEOUT,
            clock: Callable[[], dt.datetime] | None = None,
            command: str = "tournament collect",
            repositories: RepositoryPolicy | None = None) -> CollectResult:
    """Collect `sources` into team folders under `into`, write the manifest, and say what was
    done. Raises CollectError, before anything is written, when the mapping or a repository
    list cannot be read at all, or another process holds `into`."""
    now = (clock or (lambda: dt.datetime.now(dt.timezone.utc)))()
    overlap = folders_overlap(sources, into)
    if overlap:
        raise CollectError(overlap)
    try:
        roster = read_roster(mapping) if mapping is not None else None
        for source in sources:
            if source.is_file() and source.suffix.lower() in GIT_LIST_SUFFIXES:
                read_git_list(source)
    except (RosterError, GitListError) as exc:
        raise CollectError(str(exc)) from None
    try:
        acquire(into, command)
    except LockHeld as exc:
        raise CollectError(str(exc)) from None
    except OSError as exc:
        raise CollectError(f"{into}: cannot take its lock: {exc.strerror or exc}") from None
    try:
        work = into / WORK_FOLDER
        recover(into)
        work.mkdir()
        try:
            return _collect(sources, into, work, roster, deadline, late_policy, git_timeout,
                            now, repositories or RepositoryPolicy())
        finally:
            shutil.rmtree(work, ignore_errors=True)
    finally:
        release(into)


def folders_overlap(sources: Sequence[Path], into: Path) -> str:
    """Why the collected folder and a source folder cannot be used together, or ''. A
    collected folder inside a source folder (or the source itself) would be read as one of
    its submissions (a team of team folders, copied into itself until too deep), and a source
    folder inside the collected folder would be kept there as a team and played."""
    target = into.resolve()
    for source in sources:
        if not source.is_dir():
            continue  # an archive or a list is a file: never a team, never read as one
        folder = source.resolve()
        if folder == target or folder in target.parents:
            return (f"--into {into} is inside the source {source}: its team folders would be "
                    "read as submissions; collect into a folder outside the sources")
        if target in folder.parents:
            return (f"the source {source} is inside --into {into}: it would be taken for a "
                    "team; keep the sources outside the collected folder")
    return ""


def recover(into: Path) -> list[str]:
    """Undo what a collect killed while it wrote left behind: a team folder moved aside for
    its replacement goes back when its place is empty; the rest of the work folder goes.
    Returns the teams put back."""
    work = into / WORK_FOLDER
    restored = []
    aside = work / _REPLACED
    if aside.is_dir() and not aside.is_symlink():
        for name in sorted(os.listdir(aside)):
            if not os.path.lexists(into / name):
                os.rename(aside / name, into / name)
                restored.append(name)
    if os.path.lexists(work):
        if work.is_dir() and not work.is_symlink():
            shutil.rmtree(work)
        else:
            work.unlink()
    return restored


def _collect(sources: Sequence[Path], into: Path, work: Path, roster: Roster | None,
             deadline: dt.datetime | None, late_policy: str, git_timeout: float,
             now: dt.datetime, repositories: RepositoryPolicy) -> CollectResult:
    problems: list[str] = list(roster.problems) if roster else []
    try:
        previous = read_manifest(into)
    except ManifestError as exc:
        problems.append(f"{exc}; it is written anew (when each team last changed restarts)")
        previous = None
    entries: list[Entry] = []
    candidates: list[Candidate] = []
    for index, source in enumerate(sources):
        try:
            read = read_source(source, work / f"source-{index}",
                               git_cache=into / CACHE_FOLDER, deadline=deadline,
                               git_timeout=git_timeout, repositories=repositories)
        except OSError as exc:
            problems.append(f"{source.name}: cannot be read: {exc.strerror or exc}; left out")
            continue
        problems.extend(read.problems)
        entries.extend(_unusable_entry(u, roster) for u in read.unusable)
        for sub in read.submissions:
            team, why = resolve_team(sub, roster)
            if team is None:
                entries.append(Entry(None, sub.source, _time(sub.submitted_at), REFUSED, why,
                                     members=tuple(Member(s.id, s.name) for s in sub.students)))
                continue
            if why:
                problems.append(why)
            late, seconds = lateness(sub.submitted_at, sub.deadline or deadline,
                                     sub.marked_late)
            candidates.append(Candidate(sub, team, late, seconds))
    if roster is None:
        for candidate, owner in impostors(candidates, previous):
            candidates.remove(candidate)
            sub = candidate.submission
            entries.append(Entry(
                None, sub.source, _time(sub.submitted_at), REFUSED,
                f"its team {sub.team!r} would take the folder {candidate.team.folder} of "
                f"team {owner!r}, whose name it was made from: rename the team",
                members=tuple(Member(s.id, s.name) for s in sub.students)))
    result = CollectResult(manifest=Manifest())
    records: dict[str, TeamRecord] = {}
    staging_root = work / "staging"
    staging_root.mkdir()
    for number, (folder, plan) in enumerate(choose(candidates, late_policy).items()):
        for candidate in plan.aside:
            entries.append(_entry(candidate, LATE, late_reason(candidate, deadline)))
        collected: Candidate | None = None
        for candidate in plan.tries:
            if candidate is collected:
                continue  # an on-time submission taken for its identical late copy
            if collected is not None:
                entries.append(_entry(candidate, SUPERSEDED,
                                      f"a newer submission of the team counts: "
                                      f"{collected.submission.source}"))
                continue
            try:
                gathered = gather(candidate.submission.files, staging_root / str(number),
                                  git_timeout)
            except Refused as exc:
                entries.append(_entry(candidate, REFUSED, exc.reason))
                continue
            if candidate.late:
                same = _same_on_time(candidate, gathered, plan.tries,
                                     staging_root / f"{number}-same", git_timeout)
                if same is not candidate:
                    entries.append(_entry(candidate, SUPERSEDED,
                                          f"the same files as the team's submission before "
                                          f"the deadline, which counts (not late): "
                                          f"{same.submission.source}"))
                    candidate = same
            collected = candidate
            old = previous.team(folder) if previous else None
            state = _place(gathered, into / folder, work)
            getattr(result, state).append(folder)
            changed_at = (old.changed_at if state == "unchanged" and old is not None
                          and old.files == gathered.files else utc_text(now))
            records[folder] = _record(candidate, gathered, changed_at)
    earlier = previous or Manifest()
    for old in earlier.teams:
        if old.team not in records and os.path.lexists(into / old.team):
            records[old.team] = old
            # A kept team (its repository could not be fetched, its export left out this
            # time) keeps what the manifest said of its other submissions too.
            entries.extend(e for e in earlier.entries if e.team == old.team)
    result.kept = sorted(name for name in _team_folders(into) if name not in result.collected)
    result.manifest = Manifest(teams=tuple(records[k] for k in sorted(records)),
                               entries=tuple(entries), problems=tuple(problems),
                               deadline=_time(deadline))
    if not result.collected:
        # Nothing usable (a wrong source, every fetch failed): a failure, which leaves the
        # folder's manifest as the last collection that worked wrote it, so that no student
        # of it drops out of the marks. The summary still says what this one found.
        return result
    write_manifest(into, result.manifest)
    write_csv(manifest_table(result.manifest, set(result.collected)), into / MANIFEST_TABLE,
              keep_unchanged=True)
    return result


def _same_on_time(late: Candidate, gathered: Gathered, tries: Sequence[Candidate],
                  staging: Path, git_timeout: float) -> Candidate:
    """A late submission taken (`--late take`) whose files are byte for byte those of the
    team's newest submission before the deadline is that one: the same files were on time, so
    uploading them again late (a student checking that the upload worked) costs nothing."""
    on_time = next((c for c in tries if not c.late), None)
    if on_time is None:
        return late
    try:
        earlier = gather(on_time.submission.files, staging, git_timeout)
    except Refused:
        return late
    shutil.rmtree(earlier.folder, ignore_errors=True)
    return on_time if earlier.files == gathered.files else late


def _time(moment: dt.datetime | None) -> str | None:
    return None if moment is None else utc_text(moment)


def _entry(candidate: Candidate, status: str, reason: str) -> Entry:
    sub = candidate.submission
    return Entry(candidate.team.folder, sub.source, _time(sub.submitted_at), status, reason,
                 sub.commit, members=candidate.team.members)


def _unusable_entry(unusable: Unusable, roster: Roster | None) -> Entry:
    team = None
    members: tuple[Member, ...] = ()
    if unusable.team is not None:
        mapped = roster.team_named(unusable.team) if roster else None
        team = mapped.folder if mapped else team_entrant_name(unusable.team)
        members = mapped.members if mapped else ()
    return Entry(team, unusable.source, None, REFUSED, unusable.reason, members=members)


def _record(candidate: Candidate, gathered: Gathered, changed_at: str) -> TeamRecord:
    sub, team = candidate.submission, candidate.team
    return TeamRecord(team=team.folder, name=team.name, members=team.members,
                      source=sub.source, submitted_at=_time(sub.submitted_at),
                      late=candidate.late, late_seconds=candidate.late_seconds,
                      files=gathered.files, commit=sub.commit, changed_at=changed_at,
                      notes=sub.notes + gathered.notes)


def folder_hashes(folder: Path) -> dict[str, str] | None:
    """The files of a team folder already in place, path -> SHA-256, or None when it is
    missing or not a valid team folder (it is then replaced)."""
    if not folder.is_dir() or folder.is_symlink():
        return None
    try:
        return {rel: hashlib.sha256(read_team_file(folder, rel, MAX_BYTES)).hexdigest()
                for rel in team_files(folder)}
    except TeamFolderError:
        return None


def _place(gathered: Gathered, target: Path, work: Path) -> str:
    """Make the staged folder the team's, unless the team's holds the same files: `new`,
    `changed` or `unchanged`."""
    existing = folder_hashes(target)
    if existing == gathered.files:
        shutil.rmtree(gathered.folder)
        return "unchanged"
    if not os.path.lexists(target):
        os.rename(gathered.folder, target)
        return "new"
    aside = work / _REPLACED
    aside.mkdir(exist_ok=True)
    os.rename(target, aside / target.name)
    os.rename(gathered.folder, target)
    old = aside / target.name
    if old.is_dir() and not old.is_symlink():
        shutil.rmtree(old)
    else:
        old.unlink()
    return "changed"


def _team_folders(into: Path) -> list[str]:
    """The folders of the collected folder that a tournament would take for teams."""
    try:
        return sorted(entry.name for entry in os.scandir(into)
                      if not entry.name.startswith((".", "_"))
                      and entry.is_dir(follow_symlinks=False))
    except OSError:
        return []


def manifest_table(manifest: Manifest, collected_now: set[str]) -> object:
    """The manifest as `manifest.csv`'s rows: a row per team folder (collected now, or kept
    from before) and per submission set aside, superseded or refused."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    rows = []
    for team in manifest.teams:
        reason = [f"late by {duration_text(team.late_seconds)}, taken" if team.late else "",
                  *team.notes]
        rows.append({
            "team": team.team,
            "members": "; ".join(f"{m.id} {m.name}".strip() for m in team.members),
            "source": team.source, "submitted_at": team.submitted_at or "",
            "status": COLLECTED if team.team in collected_now else KEPT,
            "reason": "; ".join(r for r in reason if r)
            or ("" if team.team in collected_now else "not in this collection: files kept"),
            "commit": team.commit or ""})
    members = {team.team: team.members for team in manifest.teams}
    for entry in sorted(manifest.entries, key=lambda e: (e.team or "", e.source, e.status)):
        # Its own students (those the export names, for a submission of no team), else its
        # team's as collected.
        who = entry.members or members.get(entry.team or "", ())
        rows.append({
            "team": entry.team or "",
            "members": "; ".join(f"{m.id} {m.name}".strip() for m in who),
            "source": entry.source, "submitted_at": entry.submitted_at or "",
            "status": entry.status, "reason": entry.reason, "commit": entry.commit or ""})
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS), dtype=object)

