"""Reading what a course hands the organizer into plain `Submission` records.

A source is a folder or an archive of an LMS export, a plain folder of one zip or folder per
student or team, or a list of git repositories. Each is read into `Submission`s: who (the
students the export names, or a team the source names), when (UTC, or None when the source
does not say), whether the LMS marked it late, where from (words for the manifest) and how
to get its files (`FolderFiles`, `LooseFiles`, `GitFiles`); entries that cannot be a
submission become `Unusable` with a reason. Nothing here decides teams or deadlines: that is
`tournament.collect`'s, with the mapping.

What a folder (or the root of an unpacked archive) is, is recognised from the names of most
of its entries (in a plain folder the names are the students' own: one of them named as an
LMS names its files must not change how the others are read):
- **Gradescope**: `submission_metadata.yml` beside folders `submission_<id>/`. The metadata
  (read as plain YAML, `:submitters:` with `:name:`, `:sid:`, `:email:`, and `:created_at:`)
  says who submitted and when; several submitters are one team.
- **Moodle** ("Download all submissions"): entries `<Full Name>_<participant id>_
  assignsubmission_file_` (a folder of the student's files, or with the file's name after
  it in older versions); `onlinetext` and other plugins are not files and are ignored.
  Moodle's names carry no time: the entry's modification time is used.
- **Canvas** ("Download submissions"): flat files `<name>_<user id>_<submission id>_<file>`,
  `<name>_LATE_<user id>_...` when Canvas counted it late; the files of one submission id are
  one submission. Canvas renames a resubmitted file `multiAgents-1.py`: the course's name is
  restored when it names an agent file (`*gents.py`, `submission.py`) that the submission
  does not also hold. Canvas's names carry no time: the entry's modification time is used
  (an archive's time of the member: a tar's, a zip's extended timestamp, both UTC, else a
  zip's local time read as UTC).
- otherwise a **plain folder**: each entry, a folder or an archive, is one submission named by
  its name without the archive's suffix (a student id or a team, as the mapping says).
A single folder at the root holding one of the LMS layouts (Gradescope's
`assignment_<id>_export/`) is looked into. Junk (`__MACOSX`, `.DS_Store`, names starting
with `.`) is never a submission.

An export given as an archive is unpacked first, under `EXPORT_LIMITS`, into the collection's
work folder. A member refused on its own (a name colliding with another once case is ignored,
a link, a member too large or too deep) is set aside and only the submission it belongs to is
`Unusable`: a submission missing a file is never read as whole, and one student's upload
never refuses the whole class. What concerns the export as a whole (damage, its total size)
refuses it: a problem of the collection, never a partial read.
"""

from __future__ import annotations

import datetime as dt
import lzma
import os
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pacman.describe import clean
from pacman.files import FileProblem, kind_of, open_regular, printable_name, show_name
from pacman.loader import TEAM_YAML
from pacman.yamlfile import YamlLimits, YamlProblem, load_yaml
from tournament.gitsource import (
    MAX_REPOSITORY_BYTES,
    GitListRow,
    GitProblem,
    RepositoryTooLarge,
    fetch,
    newest_by,
    read_git_list,
)
from tournament.times import TimeProblem, from_timestamp, parse_time
from tournament.unpack import (
    EXPORT_LIMITS,
    ArchiveRefused,
    SetAside,
    archive_kind,
    folded,
    loose_parts,
    unpack_export,
    zip_member_name,
)

#: The kinds of source, as the manifest's `source` text starts.
CANVAS, MOODLE, GRADESCOPE, FOLDER, GIT = "canvas", "moodle", "gradescope", "folder", "git"

#: Gradescope's metadata file, and how large and deep it may be: a few hundred submissions
#: with their autograder results and history come to a few megabytes, at most a dozen levels.
GRADESCOPE_METADATA = "submission_metadata.yml"
GRADESCOPE_LIMITS = YamlLimits(max_bytes=16 * 1024 * 1024, max_depth=32)
#: Suffixes of a repository list among the sources.
GIT_LIST_SUFFIXES = (".csv", ".yaml", ".yml")
#: Suffixes that make a file an archive to unpack (its content decides whether it is one).
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tgz", ".tar.gz", ".tbz2", ".tar.bz2", ".txz", ".tar.xz")

#: Canvas: `<name>[_LATE]_<user id>_<submission id>_<file as uploaded>` (the first reading:
#: see `canvas_reading`). Ids are ASCII digits (`\d` would take any script's).
_CANVAS = re.compile(r"(?P<name>.+?)(?P<late>_LATE)?_(?P<user>[0-9]+)_(?P<sub>[0-9]+)_"
                     r"(?P<file>.+)")
#: What follows a Canvas entry's name part, read from each place it could start.
_CANVAS_TAIL = re.compile(r"_(?P<user>[0-9]+)_(?P<sub>[0-9]+)_(?P<file>.+)")
#: Moodle: `<Full Name>_<participant id>_assignsubmission_<plugin>_[<file>]`.
_MOODLE = re.compile(r"(?P<name>.+?)_(?P<user>[0-9]+)_assignsubmission_(?P<plugin>[a-z]+)_"
                     r"(?P<file>.*)")
#: What follows a Moodle entry's name part, read from each place it could start.
_MOODLE_TAIL = re.compile(r"_(?P<user>[0-9]+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)")
#: Canvas's name for a resubmitted file: `multiAgents-1.py`.
_RESUBMITTED = re.compile(r"(?P<stem>.+)-\d+(?P<suffix>\.[A-Za-z0-9]+)")
#: Gradescope's submission folders.
_GRADESCOPE_FOLDER = re.compile(r"submission_\d+")
#: The zip extra field of Info-ZIP's extended timestamp (`UT`): times in UTC.
_UNIVERSAL_TIME = 0x5455
#: Junk at an export's top level, never a submission.
_EXPORT_JUNK = ("__MACOSX", "Thumbs.db", "desktop.ini")


#: Characters kept of a student's id, name or e-mail address.
STUDENT_TEXT_LIMIT = 200


@dataclass(frozen=True)
class Student:
    """A student as the export names them: an id (matched against the mapping's `student`
    column), a name for people, an e-mail (matched too, when the export gives one)."""

    id: str
    name: str = ""
    email: str = ""
    #: The export gives no id for the student, so `id` is their e-mail address or name
    #: (a Gradescope submitter without `:sid:`): it may match a mapping, but never name a
    #: team folder, which the published report shows.
    private_id: bool = False

    def __post_init__(self) -> None:
        # A student's own words (a Gradescope id and name, a name in an LMS's file names):
        # no terminal escape or bidirectional control reaches the manifest, marks.csv or a
        # warning, and no id runs to pages (the twelfth hostile review set the organizer's
        # window title and a link from a `:sid:`).
        for key in ("id", "name", "email"):
            object.__setattr__(self, key, _text(getattr(self, key))[:STUDENT_TEXT_LIMIT])


@dataclass(frozen=True)
class FolderFiles:
    """The files are a folder's (a Moodle or Gradescope student folder, a plain folder)."""

    path: Path


@dataclass(frozen=True)
class LooseFiles:
    """The files are single files, each saved under a name (Canvas's flat files, an archive
    in a plain folder: a single archive is unpacked)."""

    files: tuple[tuple[Path, str], ...]


@dataclass(frozen=True)
class GitFiles:
    """The files are a commit's, in a fetched repository."""

    repo: Path
    commit: str


@dataclass(frozen=True)
class RefusedFiles:
    """The files cannot be taken: an export's member of them was set aside (`unpack_export`),
    and a submission missing a file is not that submission. Its gathering is refused with
    `reason`, as any other refused submission: whose it was and when stay known."""

    reason: str


Files = FolderFiles | LooseFiles | GitFiles | RefusedFiles


@dataclass(frozen=True)
class Submission:
    """One submission as a source gives it."""

    kind: str
    #: Where from, in words for the manifest: `canvas: export.zip: smithjane_12_34_x.py`.
    source: str
    files: Files
    #: The students the export says submitted it (none for a plain folder's entry).
    students: tuple[Student, ...] = ()
    #: A team the source names (a plain folder's entry name, a repository list's team).
    team: str | None = None
    #: When it was submitted, UTC, or None when the source does not say.
    submitted_at: dt.datetime | None = None
    #: The LMS said it was late (Canvas's LATE).
    marked_late: bool = False
    #: Its own deadline (a repository list's row), else the collection's applies.
    deadline: dt.datetime | None = None
    commit: str | None = None
    #: Breaks ties between equal times: the later in this order counts as the later.
    order: tuple[int, str] = (0, "")
    #: What reading it changed, in words for the manifest (a restored file name).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unusable:
    """An entry of a source that is no submission, and why; `team` when the source names
    one (a repository that cannot be fetched)."""

    source: str
    reason: str
    team: str | None = None


@dataclass
class SourceRead:
    """What one source gave."""

    submissions: list[Submission] = field(default_factory=list)
    unusable: list[Unusable] = field(default_factory=list)
    #: Problems of the source itself (it could not be read, a line of a list left out).
    problems: list[str] = field(default_factory=list)


class _Times:
    """When each entry of an export was made: its archive's member times (the files', by
    their `/`-separated paths: a folder's is the latest of the files it holds), or a file's
    modification time on disk."""

    def __init__(self, root: Path, members: dict[str, dt.datetime] | None) -> None:
        self.root = root
        self.members = members
        self.tops: dict[str, dt.datetime] = {}
        for name, when in (members or {}).items():
            top = name.split("/", 1)[0]
            self.tops[top] = max(when, self.tops.get(top, when))

    def of(self, name: str) -> dt.datetime | None:
        """The time of the entry `name` of the root."""
        if self.members is not None:
            return self.tops.get(name)
        return _disk_time(self.root / name)

    def inner(self, name: str) -> _Times:
        """The times of the entries of the root's folder `name`."""
        if self.members is None:
            return _Times(self.root / name, None)
        prefix = name + "/"
        return _Times(self.root / name, {member[len(prefix):]: when
                                         for member, when in self.members.items()
                                         if member.startswith(prefix) and member != prefix})


def _disk_time(path: Path, budget: int = 10_000) -> dt.datetime | None:
    """A file's modification time; a folder's is the latest of the files it holds (a
    folder's own time is when it was last unpacked or changed, not when it was submitted),
    its own when it holds none. At most `budget` entries are looked at; no link is
    followed."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return from_timestamp(info.st_mtime)
    latest: float | None = None
    pending = [path]
    while pending and budget > 0:
        try:
            with os.scandir(pending.pop()) as listing:
                for entry in listing:
                    budget -= 1
                    if budget <= 0:
                        break
                    entry_info = entry.stat(follow_symlinks=False)
                    if stat.S_ISDIR(entry_info.st_mode):
                        pending.append(Path(entry.path))
                    elif latest is None or entry_info.st_mtime > latest:
                        latest = entry_info.st_mtime
        except OSError:
            continue
    return from_timestamp(info.st_mtime if latest is None else latest)


@dataclass(frozen=True)
class RepositoryPolicy:
    """Which repositories a list may name: those of this machine (`local`: paths, `file://`)
    only when the organizer says so, and, when `prefixes` are given, only URLs under one of
    them, each a folder (the course's own repositories), with no `.`/`..` segment, escape or
    backslash that a server could read as a way out. A URL a student gave could otherwise
    name any repository the organizer's credentials read, over any transport: another
    team's, the staff's solutions (the eighth hostile review)."""

    local: bool = False
    prefixes: tuple[str, ...] = ()
    #: The most bytes one repository's cache may hold (its whole fetched history: a file
    #: once committed counts even when deleted since); larger ones are not collected.
    max_bytes: int = MAX_REPOSITORY_BYTES

    def refusal(self, url: str) -> str | None:
        """Why `url` may not be collected, or None."""
        if is_local_url(url) and not self.local:
            return ("a repository of this machine (a path or file://) is collected only "
                    "with --local-repositories: a URL a student gave could name any "
                    "repository the organizer can read")
        if self.prefixes:
            # A prefix is a folder: `.../cs188` must not admit `.../cs188-staff/solutions`.
            folders = tuple(p if p.endswith(("/", ":")) else f"{p}/" for p in self.prefixes)
            if any(c in url for c in "%\\") or not url.isprintable():
                return ("its URL has an escape (%), a backslash or a control character, which "
                        "a server may read as a way out of the course's repositories "
                        "(--repository-prefix)")
            segments = re.split(r"[/:]", url.split("://", 1)[-1])
            if "." in segments or ".." in segments:
                return ("its URL has a '.' or '..' segment, which could leave the course's "
                        "repositories (--repository-prefix)")
            if not url.startswith(folders):
                return (f"not a repository of the course: its URL starts with none of "
                        f"{', '.join(folders)} (--repository-prefix)")
        return None


def read_source(path: Path, work: Path, *, git_cache: Path,
                deadline: dt.datetime | None, git_timeout: float,
                repositories: RepositoryPolicy = RepositoryPolicy()) -> SourceRead:
    """Read one source. `work` is an empty folder this read may use (an export archive is
    unpacked there); `git_cache` holds fetched repositories. Raises GitListError for a
    repository list that cannot be read at all (the organizer's own file); everything else
    is in the result."""
    label = path.resolve().name or str(path)
    work.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        return _read_root(path, label, _Times(path, None))
    if path.is_file() and path.suffix.lower() in GIT_LIST_SUFFIXES:
        return read_git_source(path, git_cache, deadline, git_timeout, repositories)
    if not path.is_file():
        return SourceRead(problems=[f"{path}: not a folder, an archive or a repository list"])
    try:
        kind = archive_kind(path)
    except OSError as exc:
        return SourceRead(problems=[f"{path}: cannot be read: {exc.strerror or exc}"])
    if kind is None:
        return SourceRead(problems=[
            f"{label}: not an export (a folder, or a zip or tar archive of one) nor a "
            f"repository list ({', '.join(GIT_LIST_SUFFIXES)}); left out"])
    root = work / "export"
    try:
        aside = unpack_export(path, root, EXPORT_LIMITS, skip=lambda name: _is_export_junk(name))
    except ArchiveRefused as exc:
        return SourceRead(problems=[f"{label}: the export is refused: {exc.reason}"])
    found = _locate(root, label, _Times(root, _zip_times(path) if kind == "zip"
                                        else _tar_times(path)))
    if isinstance(found, SourceRead):
        return found
    return without_set_aside(_read_located(found), root, found.root, label, found.kind, aside)


def without_set_aside(read: SourceRead, root: Path, inner: Path, label: str, kind: str,
                      aside: list[SetAside]) -> SourceRead:
    """`read` (of the export unpacked at `root`, laid out as `kind` at `inner`: `root` or its
    single wrapper folder) with every submission a member set aside belongs to given
    `RefusedFiles` (a submission missing a file is not that submission), and each member that
    belongs to no submission read made `Unusable` of its own, so that no student vanishes
    unsaid. A member belongs to a submission when its path lies in the submission's files, or
    when its entry at `inner` names the same upload as the layout groups them (`_upload_of`:
    Canvas's user and submission ids, Moodle's user id, a plain entry's name): a link or a
    member too large beside a Canvas submission's other files is never written, so it shares
    no path with them."""
    if not aside:
        return read
    wrapper = tuple(folded(part) for part in inner.relative_to(root).parts)
    depth = len(wrapper)
    members = [(path, _upload_of(kind, member.parts[depth], len(member.parts) > depth + 1)
                if len(path) > depth and path[:depth] == wrapper else None, member)
               for member in aside
               for path in [tuple(folded(part) for part in member.parts)]]
    claimed: set[int] = set()
    submissions: list[Submission] = []
    for submission in read.submissions:
        places = _places(submission.files, root)
        uploads = {_upload_of(kind, place.relative_to(inner).parts[0], place.is_dir())
                   for place in _paths(submission.files) if place.is_relative_to(inner)
                   and place != inner} - {None}
        hit = [index for index, (path, upload, _) in enumerate(members)
               if upload in uploads or any(_overlaps(path, place) for place in places)]
        if hit:
            claimed.update(hit)
            more = f" (and {len(hit) - 1} more of its members)" if len(hit) > 1 else ""
            submission = replace(submission, files=RefusedFiles(
                f"the export's {members[hit[0]][2].reason}{more}; the rest of its files are "
                f"not used without it"))
        submissions.append(submission)
    unusable = list(read.unusable)
    problems = list(read.problems)
    for index, (_, upload, member) in enumerate(members):
        if index in claimed:
            continue
        team = upload[1] if upload is not None and upload[0] == FOLDER else None
        unusable.append(Unusable(f"{label}: {_shown(member.member)}",
                                 f"left out of the export: {member.reason}", team=team))
        if team is None:
            # Tied to no team: a student's whole upload may be in it (a folder named in a
            # code page by a re-zipped export), so it is said as a problem, not only listed.
            problems.append(f"{label}: the export's {member.reason}, and no submission read "
                            "holds it: whoever uploaded it has nothing collected from it")
    return SourceRead(submissions=submissions, unusable=unusable, problems=problems)


def _upload_of(kind: str, name: str, folder: bool) -> tuple[str, ...] | None:
    """Which upload an entry of an export laid out as `kind` belongs to, as the layout's
    reader groups entries (None when its name says none; in a plain folder, an entry that is
    neither a `folder` nor named as an archive is no upload). Pure."""
    if kind == CANVAS:
        match = canvas_reading(name)[0]
        return (CANVAS, match["user"], match["sub"]) if match else None
    if kind == MOODLE:
        match = moodle_reading(name)[0]
        return (MOODLE, match["user"]) if match and match["plugin"] == "file" else None
    if kind == GRADESCOPE:
        return (GRADESCOPE, name) if _GRADESCOPE_FOLDER.fullmatch(name) else None
    if folder:
        return (FOLDER, name)
    stem = archive_stem(name)
    return (FOLDER, stem) if stem is not None else None


def _paths(files: Files) -> list[Path]:
    """Where a submission's files lie (a folder, or each loose file)."""
    if isinstance(files, FolderFiles):
        return [files.path]
    return [where for where, _ in files.files] if isinstance(files, LooseFiles) else []


def _places(files: Files, root: Path) -> list[tuple[str, ...]]:
    """Where a submission's files lie in an unpacked export, as folded path components."""
    return [tuple(folded(part) for part in where.relative_to(root).parts)
            for where in _paths(files) if where.is_relative_to(root)]


def _overlaps(member: tuple[str, ...], place: tuple[str, ...]) -> bool:
    """Whether a member's path lies in `place` or `place` in it (a folder set aside)."""
    shorter = min(len(member), len(place))
    return shorter > 0 and member[:shorter] == place[:shorter]


def universal_time(extra: bytes) -> dt.datetime | None:
    """The modification time of a zip member's extended-timestamp extra field (Info-ZIP's
    `UT`, id 0x5455: a flags byte, then, when its bit 0 is set, seconds since the epoch in
    UTC, 32 bits little-endian), or None when the field is missing or damaged. Pure."""
    at = 0
    while at + 4 <= len(extra):
        kind, size = struct.unpack_from("<HH", extra, at)
        data = extra[at + 4:at + 4 + size]
        if kind == _UNIVERSAL_TIME and len(data) >= 5 and data[0] & 1:
            return dt.datetime.fromtimestamp(struct.unpack_from("<I", data, 1)[0],
                                             dt.timezone.utc)
        at += 4 + size
    return None


def _zip_times(path: Path) -> dict[str, dt.datetime]:
    """Each member's time in a zip: its extended timestamp (UTC) when the zip has one, else
    its DOS time (a local time with no zone: read as UTC), by its name as the unpacker wrote
    it (`zip_member_name`: UTF-8 with or without the zip's flag),
    so that every entry unpacked finds its time; `zipfile`'s own names would read a name
    macOS wrote in UTF-8 without the flag as cp437, and that entry's time (a late upload's)
    would be unknown, which counts as on time."""
    times: dict[str, dt.datetime] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                try:
                    name = "/".join(loose_parts(zip_member_name(info)))
                    if name and not info.is_dir():
                        times[name] = (universal_time(info.extra) or
                                       dt.datetime(*info.date_time, tzinfo=dt.timezone.utc))
                except (ValueError, ArchiveRefused):
                    continue
    except (OSError, zipfile.BadZipFile):
        pass
    return times


def _tar_times(path: Path) -> dict[str, dt.datetime]:
    """Each file's time in a tar (plain or compressed; seconds since the epoch, UTC), by its
    path as the unpacker wrote it. (The unpacker writes no times: without these, every entry
    of a tar export was as old as the collection, late by then.) Read only once the unpacker
    took the archive, so its headers are within the unpacker's bounds."""
    times: dict[str, dt.datetime] = {}
    try:
        with tarfile.open(path, "r:*", encoding="utf-8", errors="surrogateescape") as archive:
            for info in archive:
                name = "/".join(loose_parts(info.name))
                if not name or not info.isreg():
                    continue
                try:
                    times[name] = dt.datetime.fromtimestamp(info.mtime, dt.timezone.utc)
                except (ValueError, OverflowError, OSError):
                    continue  # a time no clock can say: unknown
    except (OSError, EOFError, tarfile.TarError, ValueError, lzma.LZMAError, zlib.error):
        pass
    return times


def _is_export_junk(name: str) -> bool:
    parts = name.strip("/").split("/")
    return parts[0] in _EXPORT_JUNK or parts[-1] == ".DS_Store"


def _entries(root: Path) -> list[os.DirEntry[str]]:
    """The entries of an export folder that may be submissions, sorted by name."""
    with os.scandir(root) as listing:
        found = [entry for entry in listing
                 if not entry.name.startswith(".") and entry.name not in _EXPORT_JUNK]
    return sorted(found, key=lambda entry: entry.name)


def _read_root(root: Path, label: str, times: _Times) -> SourceRead:
    found = _locate(root, label, times)
    return found if isinstance(found, SourceRead) else _read_located(found)


@dataclass(frozen=True)
class _Located:
    """Where an export's layout starts (its root, or a single wrapper folder) and what it is."""

    root: Path
    label: str
    entries: list[os.DirEntry[str]]
    times: _Times
    kind: str


def _locate(root: Path, label: str, times: _Times) -> _Located | SourceRead:
    try:
        entries = _entries(root)
    except OSError as exc:
        return SourceRead(problems=[f"{label}: cannot be read: {exc.strerror or exc}"])
    if len(entries) == 1 and entries[0].is_dir(follow_symlinks=False):
        inner = entries[0].name
        try:
            inner_entries = _entries(root / inner)
        except OSError:
            inner_entries = []
        if _kind_of(root / inner, inner_entries) != FOLDER:
            times = times.inner(inner)
            root, label, entries = root / inner, f"{label}: {_shown(inner)}", inner_entries
    return _Located(root, label, entries, times, _kind_of(root, entries))


def _read_located(found: _Located) -> SourceRead:
    reader: Callable[[Path, str, list[os.DirEntry[str]], _Times], SourceRead] = {
        GRADESCOPE: _read_gradescope, MOODLE: _read_moodle, CANVAS: _read_canvas,
        FOLDER: _read_folder}[found.kind]
    return reader(found.root, found.label, found.entries, found.times)


def _kind_of(root: Path, entries: list[os.DirEntry[str]]) -> str:
    """What a folder is, by the names of most of its entries: an LMS layout when more than
    half of them are named as that LMS names its entries (beside Gradescope's metadata file),
    else a plain folder. Most, not any: in a plain folder the names are the students' own,
    and one zip named `proj_2_1_final.zip` (Canvas's pattern) must not make every other
    team's entry a refusal."""
    def most(matches: Callable[[os.DirEntry[str]], bool], among: list[os.DirEntry[str]]) -> bool:
        return 2 * sum(1 for entry in among if matches(entry)) > len(among)

    names = [entry.name for entry in entries]
    if GRADESCOPE_METADATA in names:
        others = [e for e in entries if e.name != GRADESCOPE_METADATA]
        if not others or most(lambda e: bool(_GRADESCOPE_FOLDER.fullmatch(e.name))
                              and e.is_dir(follow_symlinks=False), others):
            return GRADESCOPE
    if most(lambda e: bool(_MOODLE.fullmatch(e.name)), entries):
        return MOODLE
    if most(lambda e: bool(_CANVAS.fullmatch(e.name)), entries):
        return CANVAS
    return FOLDER


def _shown(name: str) -> str:
    return show_name(name)


def export_layout(folder: Path) -> str | None:
    """The LMS whose export `folder` is laid out as (by the rule sources are read by), when it
    holds the uploads of two students or more (Gradescope's: its metadata and a submission
    folder), else None: a whole export given as one team's upload (`collect exports` with
    exports/canvas.zip in it) would otherwise become one team of every student's files."""
    try:
        entries = _entries(folder)
    except OSError:
        return None
    kind = _kind_of(folder, entries)
    if kind == GRADESCOPE:
        return kind if any(_GRADESCOPE_FOLDER.fullmatch(e.name) for e in entries) else None
    if kind not in (CANVAS, MOODLE):
        return None
    pattern = _CANVAS if kind == CANVAS else _MOODLE
    users = {match["user"] for entry in entries if (match := pattern.fullmatch(entry.name))}
    return kind if len(users) >= 2 else None


def _entry_kind(entry: os.DirEntry[str]) -> str:
    """What an export's entry is, in words (`a symbolic link`, `a named pipe (fifo)`), from
    its own metadata: nothing is followed or opened."""
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return "an entry that cannot be read"
    return "a file" if stat.S_ISREG(mode) else kind_of(mode)


# --- Canvas ------------------------------------------------------------------------------


def canvas_reading(name: str) -> tuple[re.Match[str] | None, str]:
    """How a Canvas entry's name reads (`_CANVAS`), or None and why not.

    The name part comes from the student (a name Canvas lets them edit, a group they named),
    and so may the file part: `x_1002_1001_600_a.zip`, from a student 1001 whose name ends
    `_1002`, reads first as an upload of student 1002 (a hostile review gave another team
    its files so). Every place the `_<id>_<id>_` could start is read; a name whose readings
    name more than one student, or more than one submission or late mark of one, is refused,
    never given to either (a student who names a file `hw_2_3_final.py` or
    `pacman_2024_03_01.zip` so loses that upload, with a reason saying why)."""
    return _one_reading(
        name, _CANVAS, _CANVAS_TAIL, "user ids",
        lambda at, match: (match["sub"], name[:at].endswith("_LATE")),
        # One student, but which submission, or whether Canvas marked it late, depends on
        # the reading: a name part such as `smith_1001_5001_jane` would hide a `_LATE`.
        "its name reads as more than one submission of its student (another submission id, "
        "or a LATE mark in one reading only): refused")


def moodle_reading(name: str) -> tuple[re.Match[str] | None, str]:
    """How a Moodle entry's name reads (`_MOODLE`), or None and why not: as `canvas_reading`
    reads Canvas's. The name part is the student's full name, and the file part is named by
    the student too, so `Eve X_1002_assignsubmission_file__1001_assignsubmission_file_` (from
    student 1001) read first as student 1002's upload, and replaced theirs (the twelfth
    hostile review). A name that reads as more than one upload is refused, never given to
    either."""
    return _one_reading(
        name, _MOODLE, _MOODLE_TAIL, "participant ids",
        lambda at, match: (match["plugin"], match["file"]),
        "its name reads as more than one upload of its student: refused")


def _one_reading(name: str, whole: re.Pattern[str], tail: re.Pattern[str], ids: str,
                 rest: Callable[[int, re.Match[str]], object],
                 several: str) -> tuple[re.Match[str] | None, str]:
    """`whole`'s reading of an LMS entry's name, read as well from every place where `tail`
    (the part after the student's name, from `_<user id>_`) could start: None with a reason
    when the readings name more than one student (`ids`, for the reason), or one student
    with more than one `rest` of the reading (`several`). Pure."""
    first = whole.fullmatch(name)
    if first is None:
        return None, ""
    readings = {(match["user"], rest(at, match)) for at in range(1, len(name))
                if (match := tail.fullmatch(name, at)) is not None}
    users = sorted({user for user, _ in readings}, key=int)
    if len(users) > 1:
        return None, (f"its name reads as the upload of more than one student ({ids} "
                      f"{', '.join(users)}): refused, never given to either")
    if len(readings) > 1:
        return None, several
    return first, ""


#: Names Canvas's renaming is undone for without further evidence: code (a module named
#: `x-1` is no name Python imports) and the team's own file.
_RESTORED_ALWAYS = (".py",)
#: How much of each of a submission's code and YAML files is read for the names it mentions,
#: and of how many files.
_MENTIONS_READ = 256 * 1024
_MENTIONS_FILES = 64


def restored_name(uploaded: str, taken: set[str], mentions: str = "") -> str:
    """The name a Canvas resubmission had when the student uploaded it: Canvas renames every
    file of a resubmission whose name an earlier one used, `team.yaml` to `team-1.yaml` as
    `multiAgents.py` to `multiAgents-1.py`, so `<stem>-<n>.<ext>` is `<stem>.<ext>` when
    that is not among `taken`, for code and `team.yaml` (a helper module or `team.yaml` left
    renamed broke a team that had worked: the fourteenth hostile review), and for a data file
    only where the submission's code or YAML (`mentions`, their text) names `<stem>.<ext>`
    and not the uploaded name: a student's own first upload of `weights-2.json`, opened by
    that name, was renamed and the team failed to load (the seventeenth). Else unchanged.
    Pure."""
    match = _RESUBMITTED.fullmatch(uploaded)
    if not match:
        return uploaded
    original = match["stem"] + match["suffix"]
    if original in taken:
        return uploaded
    if match["suffix"] in _RESTORED_ALWAYS or original == TEAM_YAML:
        return original
    return original if _named(original, mentions) and not _named(uploaded, mentions) else uploaded


def _named(name: str, text: str) -> bool:
    """Whether `text` names the file `name` as a whole name (not `myweights.json` for
    `weights.json`, nor `old_data-1.csv` for `data-1.csv`)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", text) is not None


def _mentions(paths: list[Path]) -> str:
    """The text of a submission's code and YAML files (the first `_MENTIONS_READ` bytes of
    each, decoded leniently): where it names the files it opens. A file that cannot be read
    names nothing."""
    texts: list[str] = []
    for path in paths:
        if path.suffix.lower() not in (".py", ".yaml", ".yml"):
            continue
        if len(texts) >= _MENTIONS_FILES:
            break
        try:
            with open_regular(path, follow_links=False) as (fd, _):
                texts.append(os.pread(fd, _MENTIONS_READ, 0).decode("utf-8", errors="replace"))
        except (FileProblem, OSError):
            continue
    return "\n".join(texts)


def _read_canvas(root: Path, label: str, entries: list[os.DirEntry[str]],
                 times: _Times) -> SourceRead:
    read = SourceRead()
    groups: dict[tuple[str, str], list[tuple[os.DirEntry[str], re.Match[str]]]] = {}
    for entry in entries:
        match, ambiguous = canvas_reading(entry.name)
        if not match or not entry.is_file(follow_symlinks=False):
            kind = _entry_kind(entry)
            read.unusable.append(Unusable(
                f"{CANVAS}: {label}: {_shown(entry.name)}",
                f"{kind}: {ambiguous}" if ambiguous else
                f"{kind} not named as Canvas names a submission "
                "(<name>_<user id>_<submission id>_<file>)" if not match else
                f"{kind}, not a file: Canvas's export holds the files students uploaded"))
            continue
        groups.setdefault((match["user"], match["sub"]), []).append((entry, match))
    for (user, sub), members in sorted(groups.items(), key=lambda g: (int(g[0][1]), g[0][0])):
        uploaded = [match["file"] for _, match in members]
        named: list[tuple[Path, str]] = []
        notes: list[str] = []
        taken = set(uploaded)
        mentions = _mentions([Path(entry.path) for entry, _ in members])
        for (entry, _), name in zip(members, uploaded):
            final = restored_name(name, taken, mentions)
            taken.add(final)
            named.append((Path(entry.path), final))
            if final != name:
                notes.append(f"{_shown(name)} saved as {final} (Canvas's name for a "
                             "resubmitted file)")
        first = members[0][0].name
        more = f" and {len(members) - 1} more" if len(members) > 1 else ""
        when = [t for entry, _ in members if (t := times.of(entry.name)) is not None]
        read.submissions.append(Submission(
            kind=CANVAS, source=f"{CANVAS}: {label}: {_shown(first)}{more}",
            files=LooseFiles(tuple(named)),
            students=(Student(id=user, name=members[0][1]["name"]),),
            submitted_at=max(when, default=None),
            marked_late=any(match["late"] for _, match in members),
            order=(int(sub), first), notes=tuple(notes)))
    return read


# --- Moodle ------------------------------------------------------------------------------


def _read_moodle(root: Path, label: str, entries: list[os.DirEntry[str]],
                 times: _Times) -> SourceRead:
    read = SourceRead()
    loose: dict[str, list[tuple[os.DirEntry[str], re.Match[str]]]] = {}
    for entry in entries:
        match, refusal = moodle_reading(entry.name)
        source = f"{MOODLE}: {label}: {_shown(entry.name)}"
        if not match:
            read.unusable.append(Unusable(source, refusal or (
                "not named as Moodle names a submission "
                "(<Full Name>_<id>_assignsubmission_file_)")))
            continue
        if match["plugin"] != "file":
            continue  # online text, comments: no files
        student = Student(id=match["user"], name=match["name"])
        if entry.is_dir(follow_symlinks=False):
            read.submissions.append(Submission(
                kind=MOODLE, source=source, files=FolderFiles(Path(entry.path)),
                students=(student,), submitted_at=times.of(entry.name),
                order=(int(match["user"]), entry.name)))
        elif entry.is_file(follow_symlinks=False) and match["file"]:
            loose.setdefault(match["user"], []).append((entry, match))
        else:
            read.unusable.append(Unusable(source, "neither a folder nor a file"))
    for user, members in sorted(loose.items()):
        first = members[0][0].name
        more = f" and {len(members) - 1} more" if len(members) > 1 else ""
        when = [t for entry, _ in members if (t := times.of(entry.name)) is not None]
        read.submissions.append(Submission(
            kind=MOODLE, source=f"{MOODLE}: {label}: {_shown(first)}{more}",
            files=LooseFiles(tuple((Path(e.path), m["file"]) for e, m in members)),
            students=(Student(id=user, name=members[0][1]["name"]),),
            submitted_at=max(when, default=None), order=(int(user), first)))
    return read


# --- Gradescope --------------------------------------------------------------------------


def _read_gradescope(root: Path, label: str, entries: list[os.DirEntry[str]],
                     times: _Times) -> SourceRead:
    read = SourceRead()
    metadata: dict[str, Any] = {}
    broken = ""
    try:
        data = load_yaml(root / GRADESCOPE_METADATA, GRADESCOPE_LIMITS, follow_links=False)
        if not isinstance(data, dict):
            raise YamlProblem(GRADESCOPE_METADATA, "expected a mapping of submission_<id>: "
                              "to its :submitters: and :created_at:")
        metadata = {str(k): v for k, v in data.items()}
    except YamlProblem as exc:
        broken = f"{GRADESCOPE_METADATA} cannot be read"
        read.problems.append(f"{label}: {exc.detail if exc.path else exc} "
                             f"({GRADESCOPE_METADATA}); its submissions are refused")
    for entry in entries:
        if entry.name == GRADESCOPE_METADATA:
            continue
        source = f"{GRADESCOPE}: {label}: {_shown(entry.name)}"
        if not (_GRADESCOPE_FOLDER.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False)):
            read.unusable.append(Unusable(source, "not a submission_<id> folder of a "
                                          "Gradescope export"))
            continue
        if broken:
            read.unusable.append(Unusable(source, f"submitters unknown: {broken}"))
            continue
        record = metadata.get(entry.name)
        students, when, problem = _gradescope_record(record)
        if problem:
            read.unusable.append(Unusable(source, f"{GRADESCOPE_METADATA}: {entry.name}: "
                                          f"{problem}"))
            continue
        read.submissions.append(Submission(
            kind=GRADESCOPE, source=source, files=FolderFiles(Path(entry.path)),
            students=students, submitted_at=when,
            order=(int(entry.name.removeprefix("submission_")), entry.name)))
    return read


def _gradescope_record(
    record: Any,
) -> tuple[tuple[Student, ...], dt.datetime | None, str]:
    """Submitters and time of one metadata record, or a problem in words."""
    if record is None:
        return (), None, "not in the metadata"
    if not isinstance(record, dict):
        return (), None, "expected a mapping with :submitters:"
    submitters = record.get(":submitters")
    if not isinstance(submitters, list) or not submitters:
        return (), None, "no :submitters: list"
    students = []
    for person in submitters:
        if not isinstance(person, dict):
            return (), None, "a submitter is not a mapping of :name:, :sid:, :email:"
        sid, name, email = (_text(person.get(key)) for key in (":sid", ":name", ":email"))
        ident = sid or email or name
        if not ident:
            return (), None, "a submitter with no :sid:, :email: or :name:"
        students.append(Student(id=ident, name=name, email=email, private_id=not sid))
    when = None
    created = _text(record.get(":created_at"))
    if created:
        try:
            when = parse_time(created, zone_required=False)
        except TimeProblem as exc:
            return (), None, f":created_at: {exc}"
    return tuple(students), when, ""


def _text(value: Any) -> str:
    """A student's text from an export: cleaned (`clean`), its whitespace made single
    spaces."""
    if value is None or isinstance(value, (dict, list)):
        return ""
    return " ".join(clean(str(value)).split())


# --- plain folders -----------------------------------------------------------------------


def archive_stem(name: str) -> str | None:
    """The name without its archive suffix (`alpha.tar.gz` -> `alpha`), None when `name`
    has none."""
    lower = name.lower()
    for suffix in sorted(ARCHIVE_SUFFIXES, key=len, reverse=True):
        if lower.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


def _read_folder(root: Path, label: str, entries: list[os.DirEntry[str]],
                 times: _Times) -> SourceRead:
    read = SourceRead()
    for entry in entries:
        source = f"{FOLDER}: {label}: {_shown(entry.name)}"
        if not printable_name(entry.name):
            read.unusable.append(Unusable(source, "its name is not printable text"))
            continue
        when = times.of(entry.name)
        if entry.is_dir(follow_symlinks=False):
            read.submissions.append(Submission(
                kind=FOLDER, source=source, files=FolderFiles(Path(entry.path)),
                team=entry.name, submitted_at=when, order=(0, entry.name)))
            continue
        stem = archive_stem(entry.name)
        if entry.is_file(follow_symlinks=False) and stem is None:
            try:
                kind = archive_kind(Path(entry.path))
            except OSError:
                kind = None
            if kind is not None and not entry.name.endswith(".py"):
                stem = entry.name.rsplit(".", 1)[0] or entry.name
        if stem is None or not entry.is_file(follow_symlinks=False):
            what = "a symbolic link" if entry.is_symlink() else "neither a folder nor an archive"
            read.unusable.append(Unusable(
                source, f"{what}; a plain folder holds one zip or folder per student or team",
                team=None))
            continue
        read.submissions.append(Submission(
            kind=FOLDER, source=source, files=LooseFiles(((Path(entry.path), entry.name),)),
            team=stem, submitted_at=when, order=(0, entry.name)))
    return read


# --- repository lists --------------------------------------------------------------------


def read_git_source(path: Path, git_cache: Path, deadline: dt.datetime | None,
                    git_timeout: float,
                    repositories: RepositoryPolicy = RepositoryPolicy()) -> SourceRead:
    """Fetch every repository of a list and give, per repository, its newest commit (the
    ref's tip) and, when that came after the deadline, the newest commit before it too, so
    that the selection can take either (`--late take` or `aside`). A repository the policy
    refuses (`RepositoryPolicy`) is not fetched. Two teams that name the same repository,
    or whose commits are the same, are both collected, and said as a problem: one of them
    may have given the other's URL."""
    rows, problems = read_git_list(path)
    read = SourceRead(problems=list(problems))
    teams_of: dict[str, list[GitListRow]] = {}
    for row in rows:
        source = f"{GIT}: {row.url}@{row.ref}"
        refusal = repositories.refusal(row.url)
        if refusal is not None:
            read.unusable.append(Unusable(source, refusal, team=row.team))
            continue
        teams_of.setdefault(same_repository(row.url), []).append(row)
        try:
            repo, commits = fetch(row, git_cache, git_timeout, repositories.max_bytes)
        except GitProblem as exc:
            read.problems.append(f"{row.where}: team {row.team}: {row.url} cannot be fetched "
                                 f"({exc}); the team keeps the files collected before")
            read.unusable.append(Unusable(source, f"cannot be fetched: {exc}", team=row.team))
            if isinstance(exc, RepositoryTooLarge):
                # Another row on the same URL read its commits from the cache now removed.
                gone = [s for s in read.submissions
                        if isinstance(s.files, GitFiles) and s.files.repo == exc.repo]
                read.submissions = [s for s in read.submissions if s not in gone]
                read.unusable += [Unusable(s.source, f"cannot be fetched: {exc}", team=s.team)
                                  for s in gone]
            continue
        read.submissions.extend(_commit_submissions(row, repo, commits, source, deadline))
    for sharing in teams_of.values():
        if len({row.team for row in sharing}) > 1:
            read.problems.append(
                f"{', '.join(row.where for row in sharing)}: teams "
                f"{', '.join(row.team for row in sharing)} name the same repository "
                f"({sharing[0].url}): each is collected from it; check whose it is (a student "
                "may have given another team's URL)")
    by_commit: dict[str, set[str]] = {}
    for sub in read.submissions:
        if sub.commit is not None and sub.team is not None:
            by_commit.setdefault(sub.commit, set()).add(sub.team)
    for sha, teams in sorted(by_commit.items()):
        if len(teams) > 1:
            read.problems.append(
                f"{path.name}: teams {', '.join(sorted(teams))} have the same commit "
                f"{sha[:12]}: check whose it is (a student may have given another team's "
                "repository)")
    return read


def same_repository(url: str) -> str:
    """`url` as one repository's several spellings meet: no trailing `/` or `.git`, case
    folded (`.../Alpha.git/` and `.../alpha` are one), and a remote one by host, port and
    path alone, whatever the scheme or user, a scheme's own port left out: `git@host:o/r`,
    `ssh://git@host:22/o/r` and `https://host/o/r` are one repository, so that a student who
    wrote another team's URL in the other spelling is still said (`host:8443/o/r` is another
    server's). Pure."""
    text = url.strip().rstrip("/")
    text = text[:-4] if text.lower().endswith(".git") else text
    text = text.rstrip("/")
    if not is_local_url(text):
        if "://" in text:
            scheme, _, text = text.partition("://")
            host, _, path = text.partition("/")
            host = host.rpartition("@")[2]
            name, colon, port = host.rpartition(":")
            if colon and port in ("", DEFAULT_PORTS.get(scheme.lower(), "")):
                host = name
        else:  # scp-like `user@host:path`
            host, _, path = text.partition(":")
            host = host.rpartition("@")[2]
        text = f"{host}/{path.strip('/')}"
    return text.casefold()


#: The port each scheme git speaks uses when a URL names none.
DEFAULT_PORTS = {"ssh": "22", "git+ssh": "22", "https": "443", "http": "80", "git": "9418"}


def is_local_url(url: str) -> bool:
    """Whether git reads `url` from this machine: `file://`, or a path (git takes `host:path`
    for ssh only when a colon comes before any slash)."""
    if "://" in url:
        return url.lower().startswith("file://")
    colon, slash = url.find(":"), url.find("/")
    return colon < 0 or (0 <= slash < colon)


def _commit_submissions(row: GitListRow, repo: Path, commits: list[Any], source: str,
                        deadline: dt.datetime | None) -> Iterator[Submission]:
    tip = commits[0]
    limit = row.deadline or deadline
    on_time = newest_by(commits, limit) if limit is not None else None
    students = tuple(Student(id=member) for member in row.members)
    for index, commit in enumerate(dict.fromkeys(c for c in (on_time, tip) if c is not None)):
        yield Submission(
            kind=GIT, source=f"{source} ({commit.sha[:12]})", files=GitFiles(repo, commit.sha),
            students=students, team=row.team, submitted_at=commit.committed_at,
            deadline=row.deadline, commit=commit.sha, order=(index, commit.sha))
