"""Unpacking an archive someone else made (a student's zip, an LMS export, `git archive`) safely.

An archive is untrusted input through and through: its member names can leave the folder
(`../x`, `/etc/x`, `C:\\x`, `..\\x`), its members can be links or devices, two names can
become one file on a case-insensitive or normalising file system, its declared sizes can lie
and a few kilobytes can inflate to gigabytes. `unpack` refuses the whole archive at the first
such member, with a reason in words for the manifest (`ArchiveRefused.reason`), and leaves
nothing behind (`unpack_export`, for an LMS export of a whole class's uploads, sets such a
member aside instead and says so, so that one student cannot refuse everyone's); otherwise
it writes every member as a plain file or folder beneath a folder it made itself, through
descriptors, so that nothing can redirect a write outside it.

What it keeps and what it does not:
- Files are written 0o644 and folders 0o755 whatever the archive says (no executable or
  setuid bits); folders are 0o700 while the unpack runs, so nobody else sees half of one.
- No time stamps: every file has the time it was written. The caller records the times it
  needs (an export entry's time, a commit's) itself.
- Names are kept as the archive spells them (an NFD name from macOS stays NFD); names that
  only a case-insensitive or normalising file system would merge are refused instead.
- Nested archives are files like any other: the caller decides whether to unpack them (with
  `SUBMISSION_LIMITS`).

Every limit is checked on what happens, not on what the archive declares: the bytes are
counted as they are written, and a declared size only lets a hopeless member be refused
before it is inflated. Reading is bounded too, before any byte is written: a zip's central
directory is refused when it is larger than `max_members` entries can be (Python's `zipfile`
reads all of it into memory), a tar's extension headers when they are larger than any real
one (`MAX_TAR_HEADER_BYTES`; `tarfile` reads each into memory), and sparse tar members (whose
maps `tarfile` builds in memory from the data) are refused.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import re
import shutil
import stat
import struct
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NoReturn, cast

from pacman.files import FileProblem, kind_of, open_regular, printable_name
from pacman.teamfolder import MAX_PATH

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


@dataclass(frozen=True)
class UnpackLimits:
    """How much one archive may put on disk, and how much reading it may cost."""

    #: Members that would be written as files (folders and skipped members do not count).
    max_files: int
    #: Bytes written in all, counted while writing (never taken from the archive's headers).
    max_bytes: int
    #: Bytes of one file, counted the same way.
    max_member_bytes: int
    #: Components of a member's path (`a/b/c.py` is 3).
    max_depth: int
    #: Entries of any kind the archive may hold (folders and skipped members included): it
    #: bounds the work and memory of reading the archive's directory before anything is asked.
    max_members: int = 20_000
    #: UTF-8 bytes of one name (one path component): what Linux file systems allow.
    max_name_bytes: int = 255
    #: UTF-8 bytes of a member's whole path: no longer than a team folder's path may be.
    max_path_bytes: int = MAX_PATH

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"UnpackLimits.{name}: expected a positive integer, "
                                 f"got {value!r}")


#: One student's archive: a course's files, a few helpers, maybe some weights.
SUBMISSION_LIMITS = UnpackLimits(max_files=1000, max_bytes=64 * MIB,
                                 max_member_bytes=32 * MIB, max_depth=16, max_members=4000)
#: A whole LMS export: a few hundred students' uploads, each of which may be an archive.
EXPORT_LIMITS = UnpackLimits(max_files=100_000, max_bytes=4 * GIB,
                             max_member_bytes=256 * MIB, max_depth=16, max_members=250_000)

#: The largest tar extension header (pax attributes, a GNU long name) read; real ones hold a
#: path and a few attributes (macOS adds extended attributes), far below this.
MAX_TAR_HEADER_BYTES = 256 * KIB
#: The most extension headers before one member (a pax header, a GNU long name and long link,
#: a global header: real archives have at most four), and their bytes together at most
#: MAX_TAR_HEADER_BYTES: `tarfile` reads each whole and recurses into the next while holding
#: it, so a 14 KiB archive of 320 chained headers took 757 MiB to refuse.
MAX_TAR_EXTENSIONS = 8
#: What one zip central-directory entry may take beside its name (fixed part, extra fields,
#: comment), on average over the archive; real ones take well under 200 bytes.
ZIP_ENTRY_BYTES = 46 + 512

#: The formats `unpack` reads, for the refusal of anything else.
FORMATS = "zip, tar, tar.gz, tar.bz2, tar.xz"
NOT_AN_ARCHIVE = f"not an archive ({FORMATS})"

#: The compressions a tar may come in: their names, the magic bytes their streams start
#: with, and how to read one (the reader is closed by `_decompressed`).
_COMPRESSIONS: tuple[tuple[str, bytes, Callable[[BinaryIO], BinaryIO]], ...] = (
    ("gzip", b"\x1f\x8b", lambda raw: cast(BinaryIO, gzip.GzipFile(fileobj=raw, mode="rb"))),
    ("bzip2", b"BZh", lambda raw: cast(BinaryIO, bz2.BZ2File(raw))),
    ("xz", b"\xfd7zXZ\x00", lambda raw: cast(BinaryIO, lzma.LZMAFile(raw))),  # noqa: SIM115
)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_SNIFF = 6

#: How much is read or written at a time.
_CHUNK = 256 * KIB


class ArchiveRefused(ValueError):
    """The archive cannot be unpacked safely; `reason` says why in words for the manifest
    (`member '../../etc/passwd' leaves the folder`, `expands beyond 64 MiB`, ...)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class MemberRefused(ArchiveRefused):
    """One member cannot be written (its name, its kind, its size, a name it collides with);
    the rest of the archive may still be sound. `unpack` refuses the whole archive for it;
    `unpack_export` sets the member aside and goes on."""

    def __init__(self, member: str, reason: str) -> None:
        super().__init__(reason)
        self.member = member


@dataclass(frozen=True)
class SetAside:
    """A member `unpack_export` did not write: its name as the archive spells it, its loose
    path (`loose_parts`) and why, in words for the manifest."""

    member: str
    parts: tuple[str, ...]
    reason: str


# ---- names --------------------------------------------------------------------------------------

_SEPARATORS = re.compile(r"[/\\]")
_DRIVE = re.compile(r"[A-Za-z]:")
_SHOWN = 120


def shown(name: str) -> str:
    """A member's name quoted for a reason: as is when printable, escaped otherwise (a newline
    or a terminal escape must not reach the manifest, a log or a terminal), cut when long."""
    text = f"'{name}'" if printable_name(name) else ascii(name)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 4] + "...'"


def loose_parts(name: str) -> list[str]:
    """A member name's components, `/` and `\\` both separating (Windows tools wrote zips with
    backslashes), empty and `.` components dropped; nothing is checked."""
    return [part for part in _SEPARATORS.split(name) if part not in ("", ".")]


def member_path(name: str, limits: UnpackLimits) -> tuple[str, ...]:
    """The components a member name writes to beneath the folder, or ArchiveRefused saying
    why it may not be written anywhere. `()` is the folder itself (a `./` entry). A name that
    leaves the folder (absolute, a drive, `..`) refuses the archive: no LMS writes one, so
    the archive is hostile or broken as a whole; the other rules refuse the member
    (`MemberRefused`), which an upload's own name can break.

    Pure: the rules on names, in the order their reasons are given."""
    if not printable_name(name):
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise MemberRefused(name, f"member {shown(name)} has a name that is not "
                                      "UTF-8") from None
        raise MemberRefused(name, f"member {shown(name)} has a control character in its name")
    if name.startswith(("/", "\\")):
        raise ArchiveRefused(f"member {shown(name)} is an absolute path")
    parts = loose_parts(name)
    if parts and _DRIVE.match(parts[0]):
        raise ArchiveRefused(f"member {shown(name)} names a Windows drive")
    if ".." in parts:
        level = 0
        for part in parts:
            level += -1 if part == ".." else 1
            if level < 0:
                raise ArchiveRefused(f"member {shown(name)} leaves the folder")
        raise ArchiveRefused(f"member {shown(name)} goes up a folder ('..') in its path")
    if any(len(part.encode("utf-8")) > limits.max_name_bytes for part in parts):
        raise MemberRefused(name, f"member {shown(name)} has a name longer than "
                             f"{limits.max_name_bytes} bytes")
    if len("/".join(parts).encode("utf-8")) > limits.max_path_bytes:
        raise MemberRefused(name, f"member {shown(name)} has a path longer than "
                             f"{limits.max_path_bytes} bytes")
    if len(parts) > limits.max_depth:
        raise MemberRefused(name, f"member {shown(name)} is {len(parts)} levels deep, more than "
                             f"{limits.max_depth}")
    return tuple(parts)


def folded(part: str) -> str:
    """A name as a case-insensitive, normalising file system sees it (caseless matching:
    NFD, case folding, NFC), so that `Agent.py`, `agent.py` and `agent.py` in NFD meet."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", part).casefold())


@dataclass(frozen=True)
class _Seen:
    path: tuple[str, ...]
    folder: bool
    member: str


class Names:
    """The paths an archive has claimed so far; refuses a member whose path is already taken,
    by the same spelling or by one that only case or Unicode normalisation tells apart."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, ...], _Seen] = {}

    def claim(self, name: str, path: tuple[str, ...], folder: bool) -> None:
        key: tuple[str, ...] = ()
        for depth in range(1, len(path) + 1):
            key = (*key, folded(path[depth - 1]))
            here = path[:depth]
            as_folder = folder or depth < len(path)
            seen = self._seen.get(key)
            if seen is None:
                self._seen[key] = _Seen(here, as_folder, name)
                continue
            if seen.path != here:
                raise MemberRefused(name,
                    f"member {shown(name)} collides with member {shown(seen.member)} (names "
                    f"equal once case and Unicode normalisation are ignored)")
            if seen.folder and as_folder:
                continue  # a folder named again, or implied by a member inside it
            if not seen.folder and not as_folder:
                raise MemberRefused(name, f"member {shown(name)} appears twice")
            raise MemberRefused(name, f"member {shown(name)} makes {shown('/'.join(here))} both "
                                 f"a file and a folder")


# ---- writing beneath our own folder -----------------------------------------------------------

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
               | getattr(os, "O_CLOEXEC", 0))


class _Tree:
    """The folder being unpacked into, reached only through descriptors of folders made here:
    every folder is opened with O_NOFOLLOW beneath its parent's descriptor and every file is
    created with O_EXCL|O_NOFOLLOW, so a link put in the way (by the archive or by anyone
    racing) is an error, never a write elsewhere."""

    def __init__(self, root_fd: int) -> None:
        self.root_fd = root_fd
        self.folders: list[tuple[str, ...]] = []
        self._made: set[tuple[str, ...]] = set()

    @contextmanager
    def folder(self, path: tuple[str, ...], create: bool = True,
               member: str = "") -> Iterator[int]:
        """A descriptor of the folder `path` (made, as 0o700, when missing, for `member`)."""
        fd = os.dup(self.root_fd)
        try:
            for depth, part in enumerate(path, start=1):
                if create and path[:depth] not in self._made:
                    try:
                        os.mkdir(part, 0o700, dir_fd=fd)
                    except FileExistsError:
                        # As below: a file system that merges names our folding keeps apart.
                        raise MemberRefused(member or "/".join(path),
                                            f"folder {shown('/'.join(path[:depth]))} "
                                            f"collides with a name already written") from None
                    self._made.add(path[:depth])
                    self.folders.append(path[:depth])
                inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = inner
            yield fd
        finally:
            os.close(fd)

    def file(self, name: str, path: tuple[str, ...], chunks: Iterator[bytes]) -> None:
        """Write `chunks` as the new file `path` (0o644)."""
        with self.folder(path[:-1], member=name) as parent:
            try:
                fd = os.open(path[-1], _FILE_FLAGS, 0o600, dir_fd=parent)
            except FileExistsError:
                # Only a file system that merges names our folding keeps apart gets here.
                raise MemberRefused(name, f"member {shown(name)} collides with a file "
                                    f"already written") from None
            try:
                with open(fd, "wb", closefd=True) as out:
                    os.fchmod(fd, 0o644)
                    for chunk in chunks:
                        out.write(chunk)
            except BaseException:
                # Half a file is no file (`unpack_export` goes on without it).
                with suppress(OSError):
                    os.unlink(path[-1], dir_fd=parent)
                raise

    def open_up(self) -> None:
        """Folders 0o755 once everything is written."""
        os.fchmod(self.root_fd, 0o755)
        for path in self.folders:
            with self.folder(path, create=False) as fd:
                os.fchmod(fd, 0o755)


# ---- reading ------------------------------------------------------------------------------------

#: What reading a damaged archive raises (beside our own refusals).
_DAMAGE = (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, zlib.error,
           lzma.LZMAError, EOFError, OSError, ValueError, struct.error, NotImplementedError,
           RecursionError, IndexError, KeyError)


@contextmanager
def _reading(what: str) -> Iterator[None]:
    """Errors of reading the archive inside become ArchiveRefused: `what`, and the error."""
    try:
        yield
    except ArchiveRefused:
        raise
    except _DAMAGE as exc:
        raise ArchiveRefused(what + (f": {exc}" if str(exc) else "")) from None


class _Prefixed:
    """A stream whose first bytes were already read (to see its kind), given back first."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._rest.read(size)
        if size < 0:
            data, self._head = self._head + self._rest.read(), b""
            return data
        data, self._head = self._head[:size], self._head[size:]
        return data if len(data) == size else data + self._rest.read(size - len(data))


class _Decoding:
    """A decompressing reader whose failures say which compression's data is damaged (the
    tar reader above reads ahead, so no member can be blamed)."""

    def __init__(self, reader: BinaryIO, label: str) -> None:
        self._reader = reader
        self._label = label

    def read(self, size: int = -1) -> bytes:
        try:
            return self._reader.read(size)
        except _DAMAGE as exc:
            raise ArchiveRefused(f"corrupt {self._label} data: {exc}") from None


@contextmanager
def _decompressed(raw: BinaryIO) -> Iterator[BinaryIO]:
    """`raw` as the tar it holds: decompressed when it starts as gzip, bzip2 or xz does.
    (Done here rather than by tarfile's `r|*`, which misses bzip2 of other block sizes than 9.)
    """
    head = raw.read(_SNIFF)
    stream = cast(BinaryIO, _Prefixed(head, raw))
    found = next(((label, opener) for label, magic, opener in _COMPRESSIONS
                  if head.startswith(magic)), None)
    if found is None:
        yield stream
        return
    reader = found[1](stream)
    try:
        yield cast(BinaryIO, _Decoding(reader, found[0]))
    finally:
        reader.close()


def _is_zip(head: bytes) -> bool:
    return head.startswith(_ZIP_MAGIC)


def archive_kind(path: Path) -> str | None:
    """`'zip'`, `'tar'` (plain or compressed with gzip, bzip2 or xz) or None, from the
    file's content (a zip's first header; a tar's first header, decompressed), never from its
    name. A file that cannot be read as a regular file is None."""
    try:
        with open_regular(path) as (fd, _info), open(os.dup(fd), "rb") as raw:
            if _is_zip(raw.read(_SNIFF)):
                return "zip"
            raw.seek(0)
            with _decompressed(raw) as stream:
                block = stream.read(tarfile.BLOCKSIZE)
    except _DAMAGE:  # ArchiveRefused too
        return None
    if len(block) == tarfile.BLOCKSIZE and block == bytes(tarfile.BLOCKSIZE):
        return "tar"  # an empty tar: its end-of-archive blocks only
    try:
        tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return None
    return "tar"


# ---- the unpacker -------------------------------------------------------------------------------

def _size(count: int) -> str:
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count} bytes"


class _Unpacker:
    """One unpack: its limits and counts, the names claimed and the tree written."""

    def __init__(self, tree: _Tree, limits: UnpackLimits,
                 skip: Callable[[str], bool] | None, tolerant: bool = False) -> None:
        self.tree = tree
        self.limits = limits
        self.skip = skip
        #: Members refused one by one are set aside (`unpack_export`), not the archive.
        self.tolerant = tolerant
        self.aside: list[SetAside] = []
        self.names = Names()
        self.members = 0
        self.files = 0
        self.written = 0
        self.skipped_bytes = 0
        self.paths: list[str] = []

    def count_member(self) -> None:
        self.members += 1
        if self.members > self.limits.max_members:
            self.refuse_members()

    def set_aside(self, refused: MemberRefused) -> None:
        """Go on without a member refused on its own, or refuse the archive for it."""
        if not self.tolerant:
            raise refused
        self.aside.append(SetAside(refused.member, tuple(loose_parts(refused.member)),
                                   refused.reason))

    def refuse_members(self) -> NoReturn:
        raise ArchiveRefused(f"holds more than {self.limits.max_members} members")

    def skipped(self, name: str) -> bool:
        """Whether the caller drops this member (asked with its loose path; the folder itself
        is never asked about)."""
        parts = loose_parts(name)
        return bool(parts) and self.skip is not None and self.skip("/".join(parts))

    def admit(self, name: str, folder: bool, declared: int) -> tuple[str, ...] | None:
        """The path a member (not skipped, of a kind already checked) will be written to, its
        name claimed; None for the folder itself. Refuses what its name or declared size
        already rule out."""
        path = member_path(name, self.limits)
        if not path:
            if folder:
                return None
            raise MemberRefused(name, f"member {shown(name)} is a file without a name")
        self.names.claim(name, path, folder)
        if not folder:
            self.files += 1
            if self.files > self.limits.max_files:
                raise ArchiveRefused(f"holds more than {self.limits.max_files} files")
            self.check_declared(name, declared)
        return path

    def check_declared(self, name: str, declared: int) -> None:
        if declared > self.limits.max_member_bytes:
            self.refuse_member_size(name)

    def refuse_member_size(self, name: str) -> NoReturn:
        raise MemberRefused(name, f"member {shown(name)} expands beyond "
                            f"{_size(self.limits.max_member_bytes)}")

    def refuse_total(self) -> NoReturn:
        raise ArchiveRefused(f"expands beyond {_size(self.limits.max_bytes)}")

    def make_folder(self, name: str, path: tuple[str, ...]) -> None:
        with self.tree.folder(path, member=name):
            pass

    def write(self, name: str, path: tuple[str, ...], read: Callable[[int], bytes],
              what: str) -> None:
        """Write one file from `read`, counting its bytes against the limits as they come."""

        def chunks() -> Iterator[bytes]:
            size = 0
            while True:
                allowed = min(self.limits.max_member_bytes - size,
                              self.limits.max_bytes - self.written)
                with _reading(what):
                    chunk = read(min(_CHUNK, allowed + 1))
                if not chunk:
                    return
                size += len(chunk)
                if size > self.limits.max_member_bytes:
                    self.refuse_member_size(name)
                if self.written + len(chunk) > self.limits.max_bytes:
                    self.refuse_total()
                self.written += len(chunk)
                yield chunk

        self.tree.file(name, path, chunks())
        self.paths.append("/".join(path))


# ---- zip ----------------------------------------------------------------------------------------

_EOCD = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")


def zip_directory(fh: BinaryIO) -> tuple[int, int]:
    """The entry count and central-directory size a zip declares at its end (zip64 too),
    read before `zipfile` reads (and keeps in memory) the whole directory; ArchiveRefused
    when there is no end record (a truncated zip)."""
    end = fh.seek(0, os.SEEK_END)
    tail_start = max(0, end - _EOCD.size - 0xFFFF)
    fh.seek(tail_start)
    tail = fh.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _EOCD.size:
        raise ArchiveRefused("corrupt zip: no end of central directory (truncated?)")
    fields = _EOCD.unpack_from(tail, at)
    count, size = fields[4], fields[5]
    locator_at = tail_start + at - _ZIP64_LOCATOR.size
    if (count == 0xFFFF or size == 0xFFFFFFFF) and locator_at - _ZIP64_EOCD.size >= 0:
        fh.seek(locator_at - _ZIP64_EOCD.size)
        record = fh.read(_ZIP64_EOCD.size + _ZIP64_LOCATOR.size)
        if (record[_ZIP64_EOCD.size:_ZIP64_EOCD.size + 4] == b"PK\x06\x07"
                and record[:4] == b"PK\x06\x06"):
            zip64 = _ZIP64_EOCD.unpack_from(record)
            count, size = zip64[7], zip64[8]
    return count, size


def zip_member_name(info: zipfile.ZipInfo) -> str:
    """A zip member's name from its bytes: UTF-8 when flagged so; without the flag too when
    the bytes are UTF-8 (as macOS and most tools write them). Other bytes are kept as
    surrogates (as a tar's are), never guessed as cp437 (a Windows code page's bytes would
    read as a name nobody wrote): `member_path` then refuses that member on its own, so an
    export sets one student's such file aside rather than refusing the whole class's."""
    if info.flag_bits & 0x800:
        return info.orig_filename
    return info.orig_filename.encode("cp437").decode("utf-8", "surrogateescape")


_ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}


def _unpack_zip(fh: BinaryIO, job: _Unpacker) -> None:
    limits = job.limits
    count, size = zip_directory(fh)
    if count > limits.max_members:
        job.refuse_members()
    if size > limits.max_members * (ZIP_ENTRY_BYTES + limits.max_path_bytes):
        raise ArchiveRefused(f"its central directory of {_size(size)} is larger than "
                             f"{limits.max_members} members need")
    fh.seek(0)
    try:
        archive = zipfile.ZipFile(fh)
    except UnicodeDecodeError:
        raise ArchiveRefused("a member's name is not UTF-8 (though flagged UTF-8)") from None
    except _DAMAGE as exc:
        raise ArchiveRefused(f"corrupt zip: {exc}") from None
    with archive:
        # Every check that needs no data first, so that a hostile zip writes nothing.
        plan: list[tuple[zipfile.ZipInfo, str, tuple[str, ...], bool]] = []
        declared = 0
        for info in archive.infolist():
            job.count_member()
            name = zip_member_name(info)
            if job.skipped(name):
                continue
            mode = info.external_attr >> 16
            folder = name.endswith(("/", "\\")) or stat.S_ISDIR(mode)
            try:
                if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                    raise MemberRefused(name, f"member {shown(name)} is {kind_of(mode)}")
                path = job.admit(name, folder, info.file_size)
                if not folder and info.flag_bits & 0x1:
                    raise MemberRefused(name, f"member {shown(name)} is encrypted")
                if not folder and info.compress_type not in _ZIP_METHODS:
                    raise MemberRefused(name, f"member {shown(name)} uses compression method "
                                        f"{info.compress_type}, which is not supported")
            except MemberRefused as exc:
                job.set_aside(exc)
                continue
            if not folder:
                declared += info.file_size
                if declared > limits.max_bytes:
                    job.refuse_total()
            if path is not None:
                plan.append((info, name, path, folder))
        for info, name, path, folder in plan:
            try:
                if folder:
                    job.make_folder(name, path)
                    continue
                damaged = f"corrupt zip: member {shown(name)}"
                with _reading(damaged):
                    stream = archive.open(info)
                with stream:
                    job.write(name, path, stream.read, damaged)
            except MemberRefused as exc:
                job.set_aside(exc)


# ---- tar ----------------------------------------------------------------------------------------

_EXTENSION_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE,
                    tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
_TAR_KINDS = {tarfile.SYMTYPE: "a symbolic link", tarfile.LNKTYPE: "a hard link",
              tarfile.CHRTYPE: "a device", tarfile.BLKTYPE: "a device",
              tarfile.FIFOTYPE: "a named pipe (fifo)"}


class _CheckedInfo(tarfile.TarInfo):
    """`tarfile`'s header reading with the bounds it lacks (`_proc_member` and the
    `_proc_gnusparse_*` methods are the hooks tarfile's source names for subclasses):
    extension headers are read whole into memory, so a large one is refused before it is
    read; sparse members are refused (their maps are built in memory from the data); a
    damaged or missing header after the first is damage, not a quiet end of the archive."""

    @classmethod
    def frombuf(cls, buf: bytes | bytearray, encoding: str, errors: str) -> _CheckedInfo:
        if len(buf) != tarfile.BLOCKSIZE:
            raise _TarDamage("it ends without its end-of-archive block (truncated?)")
        if buf == bytes(tarfile.BLOCKSIZE):
            return super().frombuf(buf, encoding, errors)  # the end: tarfile's error says so
        try:
            return super().frombuf(buf, encoding, errors)
        except tarfile.HeaderError as exc:
            raise _TarDamage(f"a damaged header ({exc})") from None

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type == tarfile.GNUTYPE_SPARSE:
            _refuse_sparse(self.name)
        # Not in typeshed's stub of tarfile, hence getattr.
        process = getattr(super(), "_proc_member")  # noqa: B009
        if self.type not in _EXTENSION_TYPES:
            return cast(tarfile.TarInfo, process(tarfile_))
        if self.size > MAX_TAR_HEADER_BYTES:
            raise ArchiveRefused(f"a tar extension header of {self.size} bytes (at most "
                                 f"{_size(MAX_TAR_HEADER_BYTES)} are read)")
        # The chain of extension headers before one member, kept on the archive being read
        # (`tarfile` reads the next header from within this call).
        count, total = getattr(tarfile_, "_pacman_chain", (0, 0))
        count, total = count + 1, total + self.size
        if count > MAX_TAR_EXTENSIONS or total > MAX_TAR_HEADER_BYTES:
            raise ArchiveRefused(f"more than {MAX_TAR_EXTENSIONS} tar extension headers or "
                                 f"{_size(MAX_TAR_HEADER_BYTES)} of them before one member")
        setattr(tarfile_, "_pacman_chain", (count, total))  # noqa: B010
        try:
            return cast(tarfile.TarInfo, process(tarfile_))
        finally:
            setattr(tarfile_, "_pacman_chain", (count - 1, total - self.size))  # noqa: B010

    def _proc_gnusparse_00(self, next_: tarfile.TarInfo, pax: dict[str, str],
                           *_: object) -> NoReturn:
        _refuse_sparse(pax.get("GNU.sparse.name", next_.name))

    def _proc_gnusparse_01(self, next_: tarfile.TarInfo, pax: dict[str, str],
                           *_: object) -> NoReturn:
        _refuse_sparse(pax.get("GNU.sparse.name", next_.name))

    def _proc_gnusparse_10(self, next_: tarfile.TarInfo, pax: dict[str, str],
                           *_: object) -> NoReturn:
        _refuse_sparse(pax.get("GNU.sparse.name", next_.name))


class _TarDamage(ArchiveRefused):
    """A damaged tar header; the caller words it (not an archive, or a corrupt one)."""


def _refuse_sparse(name: str) -> NoReturn:
    raise ArchiveRefused(f"member {shown(name)} is a sparse file (not supported)")


def _unpack_tar(raw: BinaryIO, job: _Unpacker) -> None:
    limits = job.limits
    name = ""

    def where() -> str:
        return NOT_AN_ARCHIVE if not job.members else f"corrupt tar after member {shown(name)}"

    try:
        with ExitStack() as stack:
            with _reading(NOT_AN_ARCHIVE):  # tarfile reads the first header here
                stream = stack.enter_context(_decompressed(raw))
                archive = stack.enter_context(tarfile.open(
                    fileobj=stream, mode="r|", tarinfo=_CheckedInfo, encoding="utf-8",
                    errors="surrogateescape"))
            members = iter(archive)
            while True:
                with _reading(where()):
                    info = next(members, None)
                if info is None:
                    return
                job.count_member()
                name = info.name
                if info.size < 0:
                    raise ArchiveRefused(f"corrupt tar: member {shown(name)} has a negative size")
                if job.skipped(name):
                    # Skipping still reads past the data: bounded like what is written.
                    job.check_declared(name, info.size)
                    job.skipped_bytes += info.size
                    if job.skipped_bytes > limits.max_bytes:
                        raise ArchiveRefused(f"its skipped members expand beyond "
                                             f"{_size(limits.max_bytes)}")
                    continue
                try:
                    _tar_member(archive, info, job)
                except MemberRefused as exc:
                    job.set_aside(exc)
                    # Its data is read past, as a skipped member's: bounded the same way.
                    job.skipped_bytes += info.size
                    if job.skipped_bytes > limits.max_bytes:
                        raise ArchiveRefused(f"its members set aside expand beyond "
                                             f"{_size(limits.max_bytes)}") from None
    except _TarDamage as exc:
        raise ArchiveRefused(NOT_AN_ARCHIVE if not job.members
                             else f"{where()}: {exc.reason}") from None


def _tar_member(archive: tarfile.TarFile, info: tarfile.TarInfo, job: _Unpacker) -> None:
    """Write one member of a tar (not skipped): a folder or a regular file."""
    name = info.name
    if info.isdir():
        path = job.admit(name, True, 0)
        if path is not None:
            job.make_folder(name, path)
        return
    if not info.isreg():
        kind = _TAR_KINDS.get(info.type)
        raise MemberRefused(name, f"member {shown(name)} is {kind}" if kind else
                            f"member {shown(name)} is of tar type {info.type!r}, "
                            f"neither a file nor a folder")
    path = job.admit(name, False, info.size)
    if job.written + info.size > job.limits.max_bytes:
        job.refuse_total()
    assert path is not None
    damaged = f"corrupt tar: member {shown(name)}"
    with _reading(damaged):
        data = archive.extractfile(info)
    assert data is not None
    with data:
        job.write(name, path, data.read, damaged)


# ---- the entry point ----------------------------------------------------------------------------

def unpack(source: Path | BinaryIO, into: Path, limits: UnpackLimits, *,
           skip: Callable[[str], bool] | None = None) -> list[str]:
    """Unpack every member of `source` into the new folder `into`; the relative POSIX paths of
    the files written, sorted.

    `source` is an archive file (zip, or tar plain or compressed, told by its content) or a
    binary stream of a tar (what `git archive` writes), read once, in order. `into` must not
    exist (FileExistsError otherwise; its parent must); `unpack` makes it. `skip(path)` is
    asked about each member, with its path `/`-separated (no `./`, no trailing `/`), before
    anything of it is checked: a skipped member is not written and counts against no limit
    (but a tar's skipped data is still read past, so its size is bounded like a file's).

    Any refusal raises ArchiveRefused with its reason, after removing `into` and everything in
    it; so does any other exception (a full disk), which is raised as it is.
    """
    return sorted(_unpack(source, into, limits, skip, tolerant=False).paths)


def unpack_export(source: Path, into: Path, limits: UnpackLimits, *,
                  skip: Callable[[str], bool] | None = None) -> list[SetAside]:
    """`unpack` for an archive of many people's uploads (an LMS export): a member refused on
    its own (`MemberRefused`: its name, kind or size, a name it collides with) is set aside
    and the others are written, so that one student's upload never refuses the whole class's.
    The members set aside, in the archive's order; the caller must not use what they belong
    to as if whole. What concerns the archive as a whole (its damage, its total size, its
    number of members or files) still refuses it, as `unpack` does."""
    return _unpack(source, into, limits, skip, tolerant=True).aside


def _unpack(source: Path | BinaryIO, into: Path, limits: UnpackLimits,
            skip: Callable[[str], bool] | None, tolerant: bool) -> _Unpacker:
    parent_fd = os.open(into.parent, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        os.mkdir(into.name, 0o700, dir_fd=parent_fd)
        try:
            root_fd = os.open(into.name, _DIR_FLAGS, dir_fd=parent_fd)
            try:
                tree = _Tree(root_fd)
                job = _Unpacker(tree, limits, skip, tolerant)
                _unpack_source(source, job)
                tree.open_up()
            finally:
                os.close(root_fd)
        except BaseException:
            _remove(into)
            raise
    finally:
        os.close(parent_fd)
    return job


def _unpack_source(source: Path | BinaryIO, job: _Unpacker) -> None:
    if not isinstance(source, Path):
        _unpack_tar(source, job)
        return
    with ExitStack() as stack:
        try:
            fd, _info = stack.enter_context(open_regular(source))
        except FileProblem as exc:  # missing, or a fifo, a device, a folder...
            raise ArchiveRefused(str(exc)) from None
        fh = stack.enter_context(open(os.dup(fd), "rb"))
        zip_file = _is_zip(fh.read(_SNIFF))
        fh.seek(0)
        if zip_file:
            _unpack_zip(fh, job)
        else:
            _unpack_tar(fh, job)


def _remove(into: Path) -> None:
    """Remove what an unpack made (shutil.rmtree works through descriptors and follows no
    link where the platform allows, which Linux does)."""
    with suppress(FileNotFoundError):
        shutil.rmtree(into)
