"""A submission's files made into a team folder's, in a staging folder: or why they cannot be.

Whatever a submission is (a student's folder, single files, an archive, a commit), its files
are first brought into an empty staging folder inside the collected folder (so that the
rename that makes it the team's folder never crosses file systems), then tidied:
- **junk** is left out: `__MACOSX/`, `.DS_Store`, `._*` (macOS), `Thumbs.db`, `desktop.ini`,
  `__pycache__/`, `*.pyc`, `.git/` (a student's repository history is not their agent);
- a submission that is **one archive** (a zip in a Moodle folder, a Canvas upload, an entry
  of a plain folder) is unpacked, under `SUBMISSION_LIMITS`; an archive inside that archive
  is a file like any other;
- files that all sit under **one top-level folder** (`proj2/multiAgents.py`) are moved up;
- a name Canvas gave a resubmission is restored before (see `tournament.sources`);
and each of these is said in the result's notes, for the manifest. The result must then hold
a `.py` file (a folder without any is refused; one without `*gents.py`, `submission.py` or
`team.yaml` is kept: the run reports what it lacks) and pass `pacman.teamfolder.team_files`,
and every file is hashed.

Every refusal is `Refused(reason)`, with the staging folder removed; nothing is ever written
outside it. Files are read without following links (a link in a student's folder is refused,
never followed) and bounded by the same limits as an archive.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from pacman.files import FileProblem, kind_of, printable_name, read_bounded, show_name
from pacman.teamfolder import MAX_BYTES, TeamFolderError, read_team_file, team_files
from tournament.gitsource import GitProblem, export
from tournament.sources import (
    Files,
    FolderFiles,
    GitFiles,
    RefusedFiles,
    archive_stem,
    export_layout,
)
from tournament.unpack import SUBMISSION_LIMITS, ArchiveRefused, archive_kind, unpack

#: Folders left out wherever they are, and files left out by name or suffix.
JUNK_FOLDERS = frozenset({"__MACOSX", "__pycache__", ".git"})
JUNK_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
JUNK_SUFFIXES = (".pyc", ".pyo")


class Refused(Exception):
    """A submission whose files cannot be a team's; `reason` says why, for the manifest."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Gathered:
    """A staging folder ready to be a team's: its files' hashes and what was done to them."""

    folder: Path
    #: Relative path -> SHA-256 of its bytes, sorted.
    files: dict[str, str]
    notes: tuple[str, ...]


def junk_kind(rel: str) -> str | None:
    """What kind of junk a member is (`__MACOSX/`, `.DS_Store`, `*.pyc`), or None."""
    parts = [part for part in rel.replace("\\", "/").split("/") if part]
    for part in parts[:-1]:
        if part in JUNK_FOLDERS:
            return f"{part}/"
    if not parts:
        return None
    last = parts[-1]
    if last in JUNK_FOLDERS:
        return f"{last}/"
    if last in JUNK_FILES:
        return last
    if last.startswith("._"):
        return "._* (macOS)"
    if last.endswith(JUNK_SUFFIXES):
        return "*" + last[last.rfind("."):]
    return None


class _JunkLog:
    """Which kinds of junk were left out, as a skip function for `unpack` and the copies.
    (Kinds, not counts: an archive may or may not list a junk folder as a member of its own,
    so a count would say more than is known.)"""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, rel: str) -> bool:
        kind = junk_kind(rel)
        if kind is not None:
            self.seen.add(kind)
        return kind is not None

    def note(self) -> str | None:
        if not self.seen:
            return None
        return f"left out as junk: {', '.join(sorted(self.seen))}"


def gather(files: Files, staging: Path, git_timeout: float) -> Gathered:
    """The submission's files in `staging` (which must not exist; made here), tidied and
    checked; Refused with `staging` gone when they cannot be a team's."""
    junk = _JunkLog()
    notes: list[str] = []
    try:
        _bring(files, staging, junk, git_timeout)
        _unpack_single_archive(staging, junk, notes)
        _flatten(staging, notes)
        layout = export_layout(staging)
        if layout is not None:
            raise Refused(f"it is laid out as a whole {layout} export (the uploads of several "
                          "students), not one team's files: give the export to tournament "
                          "collect as a source of its own")
        note = junk.note()
        if note:
            notes.insert(0, note)
        hashes = _checked(staging)
    except OSError as exc:
        # The disk's word on one submission (a name too long for it, a file that vanished
        # from the organizer's folder while it was copied): that submission's refusal.
        shutil.rmtree(staging, ignore_errors=True)
        name = f" ({show_name(Path(exc.filename).name)})" if exc.filename else ""
        raise Refused(f"its files cannot be copied: {exc.strerror or exc}{name}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Gathered(staging, hashes, tuple(notes))


def _bring(files: Files, staging: Path, junk: _JunkLog, git_timeout: float) -> None:
    if isinstance(files, RefusedFiles):
        raise Refused(files.reason)
    if isinstance(files, GitFiles):
        try:
            export(files.repo, files.commit, staging, SUBMISSION_LIMITS, skip=junk,
                   timeout=git_timeout)
        except ArchiveRefused as exc:
            raise Refused(f"the commit's files are refused: {exc.reason}") from None
        except GitProblem as exc:
            raise Refused(str(exc)) from None
        return
    staging.mkdir()
    if isinstance(files, FolderFiles):
        _copy_tree(files.path, staging, junk)
        return
    budget = _Budget()
    for path, name in files.files:
        if junk(name):
            continue
        if "/" in name or name in (".", "..") or not printable_name(name):
            raise Refused(f"the file name {show_name(name)} cannot be saved as it is")
        _copy_file(path, staging / name, budget)


class _Budget:
    """The submission limits, counted over everything copied."""

    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0

    def take(self, size: int) -> None:
        self.files += 1
        self.bytes += size
        limits = SUBMISSION_LIMITS
        if self.files > limits.max_files:
            raise Refused(f"more than {limits.max_files} files")
        if size > limits.max_member_bytes or self.bytes > limits.max_bytes:
            raise Refused(f"more than {limits.max_bytes // (1024 * 1024)} MiB of files")


def _copy_file(source: Path, target: Path, budget: _Budget) -> None:
    try:
        data = read_bounded(source, SUBMISSION_LIMITS.max_member_bytes, follow_links=False)
    except FileProblem as exc:
        raise Refused(str(exc).replace(str(source), show_name(source.name))) from None
    budget.take(len(data))
    if target.exists():
        raise Refused(f"two files would be saved as {show_name(target.name)}")
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _copy_tree(source: Path, staging: Path, junk: _JunkLog) -> None:
    """Copy a student's folder (on the organizer's disk, or unpacked from an export) into
    `staging`, one entry at a time, following no link: a link, a fifo or a device there is
    a refusal, as it is in an archive."""
    budget = _Budget()
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(source / relative) as listing:
                names = sorted(entry.name for entry in listing)
        except OSError as exc:
            raise Refused(f"{show_name(relative or source.name)}: cannot be read: "
                          f"{exc.strerror or exc}") from None
        for name in names:
            rel = f"{relative}/{name}" if relative else name
            if not printable_name(name):
                raise Refused(f"the name {show_name(rel)} is not printable text")
            if junk(rel):
                continue
            if rel.count("/") >= SUBMISSION_LIMITS.max_depth:
                raise Refused(f"{show_name(rel[:80])}: deeper than "
                              f"{SUBMISSION_LIMITS.max_depth} folders")
            info = os.lstat(source / rel)
            if stat.S_ISDIR(info.st_mode):
                (staging / rel).mkdir()
                pending.append(rel)
            elif stat.S_ISREG(info.st_mode):
                _copy_file(source / rel, staging / rel, budget)
            else:
                raise Refused(f"{show_name(rel)} is {kind_of(info.st_mode)}; a submission "
                              "holds regular files and folders only")


def _listing(folder: Path) -> list[str]:
    with os.scandir(folder) as listing:
        return sorted(entry.name for entry in listing)


def _unpack_single_archive(staging: Path, junk: _JunkLog, notes: list[str]) -> None:
    """A submission that is one archive becomes what the archive holds."""
    names = _listing(staging)
    if len(names) != 1 or not (staging / names[0]).is_file():
        return
    name = names[0]
    if archive_stem(name) is None and (name.endswith(".py") or archive_kind(staging / name)
                                       is None):
        return
    inner = staging.with_name(staging.name + "-unpacked")
    try:
        unpack(staging / name, inner, SUBMISSION_LIMITS, skip=junk)
    except ArchiveRefused as exc:
        raise Refused(f"{show_name(name)}: {exc.reason}") from None
    shutil.rmtree(staging)
    inner.rename(staging)
    notes.append(f"unpacked {show_name(name)}")


def _flatten(staging: Path, notes: list[str]) -> None:
    """Files under one top-level folder (and nothing else) move up, as often as needed."""
    moved: list[str] = []
    while True:
        names = _listing(staging)
        if len(names) != 1 or not (staging / names[0]).is_dir():
            break
        moved.append(names[0])
        holder = staging.with_name(staging.name + "-flat")
        (staging / names[0]).rename(holder)
        staging.rmdir()
        holder.rename(staging)
    if moved:
        notes.append(f"flattened {show_name('/'.join(moved))}/")


def _checked(staging: Path) -> dict[str, str]:
    """The staged files' hashes, once they are a valid team folder with Python in it."""
    try:
        files = team_files(staging)
    except TeamFolderError as exc:
        raise Refused(str(exc).replace(f"{staging}/", "").replace(str(staging), "the folder")
                      ) from None
    if not any(rel.endswith(".py") for rel in files):
        shown = ", ".join(show_name(rel) for rel in files[:5]) or "nothing"
        more = f" and {len(files) - 5} more" if len(files) > 5 else ""
        raise Refused(f"holds no Python file (it holds {shown}{more})")
    try:
        return {rel: hashlib.sha256(read_team_file(staging, rel, MAX_BYTES)).hexdigest()
                for rel in files}
    except TeamFolderError as exc:
        raise Refused(str(exc).replace(f"{staging}/", "")) from None
