"""Unpacking untrusted archives: every hostile archive (made here, byte by byte where the
libraries refuse to write one) is refused with its reason, leaves no `into` folder and writes
nothing anywhere else; good archives of every format round-trip exactly."""

from __future__ import annotations

import gzip
import io
import os
import random
import re
import shutil
import stat
import struct
import subprocess
import tarfile
import unicodedata
import warnings
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tournament import unpack as unpack_module
from tournament.unpack import (
    EXPORT_LIMITS,
    MAX_TAR_HEADER_BYTES,
    NOT_AN_ARCHIVE,
    SUBMISSION_LIMITS,
    ArchiveRefused,
    UnpackLimits,
    archive_kind,
    unpack,
    unpack_export,
)

SMALL = UnpackLimits(max_files=4, max_bytes=1000, max_member_bytes=600, max_depth=3,
                     max_members=8, max_name_bytes=20, max_path_bytes=40)


# ---- making archives ----------------------------------------------------------------------------

Member = tuple[str, bytes | None]  # a file's bytes, or None for a folder


def make_zip(path: Path, members: list[Member], mode: int | None = None) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicates some tests want
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                info = zipfile.ZipInfo(name)
                if data is None:
                    info.external_attr = (stat.S_IFDIR | 0o755) << 16
                elif mode is not None:
                    info.external_attr = mode << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, b"" if data is None else data)
    return path


def tar_member(name: str, data: bytes | None = b"", kind: bytes | None = None,
               mode: int = 0o644, linkname: str = "") -> tuple[tarfile.TarInfo, bytes | None]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    if data is None:
        info.type = tarfile.DIRTYPE
    elif kind is not None:
        info.type = kind
        info.linkname = linkname
        data = None
    else:
        info.size = len(data)
    return info, data


def make_tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w",
             fmt: int = tarfile.PAX_FORMAT) -> Path:
    with tarfile.open(path, mode, format=fmt, encoding="utf-8",
                      errors="surrogateescape") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def files_tar(path: Path, members: list[Member], mode: str = "w") -> Path:
    return make_tar(path, [tar_member(name, data) for name, data in members], mode)


def raw_zip(path: Path, entries: list[dict[str, object]]) -> Path:
    """A zip written byte by byte, for what `zipfile` will not write: names with NUL or
    bytes that are not UTF-8, encryption flags, lying sizes, unknown methods. An entry:
    name (bytes), data (stored as is), size (declared), crc, method, flags, attr (external)."""
    out = bytearray()
    directory = bytearray()
    for entry in entries:
        name = entry["name"]
        data = entry.get("data", b"")
        assert isinstance(name, bytes) and isinstance(data, bytes)
        size = entry.get("size", len(data))
        crc = entry.get("crc", zlib.crc32(data))
        method = entry.get("method", 0)
        flags = entry.get("flags", 0)
        attr = entry.get("attr", (stat.S_IFREG | 0o644) << 16)
        offset = len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, flags, method, 0, 0x21, crc,
                           len(data), size, len(name), 0) + name + data
        directory += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", (3 << 8) | 20, 20, flags, method,
                                 0, 0x21, crc, len(data), size, len(name), 0, 0, 0, 0, attr,
                                 offset) + name
    count = len(entries)
    path.write_bytes(bytes(out) + bytes(directory) + struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, len(directory), len(out), 0))
    return path


def deflated_zeros(mib: int) -> bytes:
    """A raw deflate stream of `mib` MiB of zeros, made cheaply: one fully flushed block of
    a MiB (no back reference crosses it), repeated, then an empty final block."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = packer.compress(bytes(1 << 20)) + packer.flush(zlib.Z_FULL_FLUSH)
    return block * mib + b"\x03\x00"


def zeros_crc(mib: int) -> int:
    crc = 0
    chunk = bytes(1 << 20)
    for _ in range(mib):
        crc = zlib.crc32(chunk, crc)
    return crc


# ---- what a refusal leaves ----------------------------------------------------------------------

def everything(root: Path) -> set[str]:
    """Every name beneath `root` (links not followed), to see that nothing appeared."""
    found = set()
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(folder, name), root))
    return found


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """Where `into` goes: two folders down, so that `../../x` would still land in tmp_path."""
    folder = tmp_path / "collected" / "team"
    folder.mkdir(parents=True)
    return folder


def refusal(archive: Path | Callable[[], io.BufferedIOBase], place: Path,
            limits: UnpackLimits = SMALL,
            skip: Callable[[str], bool] | None = None) -> str:
    """The reason `unpack` refuses `archive` with, after checking that `into` is gone and that
    nothing else appeared anywhere in the test's folder."""
    root = place.parent.parent
    before = everything(root)
    into = place / "into"
    source = archive if isinstance(archive, Path) else archive()
    with pytest.raises(ArchiveRefused) as info:
        unpack(source, into, limits, skip=skip)
    assert not into.exists() and not into.is_symlink()
    assert everything(root) == before
    assert str(info.value) == info.value.reason
    return info.value.reason


def written(into: Path) -> dict[str, bytes]:
    return {str(p.relative_to(into)): p.read_bytes() for p in into.rglob("*") if p.is_file()}


# ---- names that leave the folder ----------------------------------------------------------------

@pytest.mark.parametrize(("name", "reason"), [
    ("../x", "member '../x' leaves the folder"),
    ("a/../../x", "member 'a/../../x' leaves the folder"),
    ("a/../b", "member 'a/../b' goes up a folder ('..') in its path"),
    ("..\\..\\x", "member '..\\..\\x' leaves the folder"),
    ("a\\..\\..\\x", "member 'a\\..\\..\\x' leaves the folder"),
    ("C:\\x", "member 'C:\\x' names a Windows drive"),
    ("c:x", "member 'c:x' names a Windows drive"),
    ("\\\\host\\share\\x", "member '\\\\host\\share\\x' is an absolute path"),
    ("\\x", "member '\\x' is an absolute path"),
])
@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_names_that_leave_the_folder_are_refused(place: Path, name: str, reason: str,
                                                 kind: str) -> None:
    members: list[Member] = [("ok.py", b"fine"), (name, b"evil")]
    archive = (make_zip(place.parent / "a.zip", members) if kind == "zip"
               else files_tar(place.parent / "a.tar", members))
    assert refusal(archive, place) == reason


@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_an_absolute_name_is_refused_and_its_target_never_written(place: Path,
                                                                   kind: str) -> None:
    target = place.parent.parent / "victim.py"
    members: list[Member] = [(str(target), b"evil")]
    archive = (make_zip(place.parent / "a.zip", members) if kind == "zip"
               else files_tar(place.parent / "a.tar", members))
    assert refusal(archive, place) == f"member '{target}' is an absolute path"
    assert not target.exists()


# ---- what is not a regular file or a folder -----------------------------------------------------

@pytest.mark.parametrize(("kind", "reason"), [
    (tarfile.SYMTYPE, "is a symbolic link"),
    (tarfile.LNKTYPE, "is a hard link"),
    (tarfile.CHRTYPE, "is a device"),
    (tarfile.BLKTYPE, "is a device"),
    (tarfile.FIFOTYPE, "is a named pipe (fifo)"),
    (b"V", "is of tar type b'V', neither a file nor a folder"),
])
def test_tar_members_that_are_not_files_or_folders_are_refused(place: Path, kind: bytes,
                                                               reason: str) -> None:
    archive = make_tar(place.parent / "a.tar", [
        tar_member("a.py", b"fine"), tar_member("link", kind=kind, linkname="/etc/passwd")])
    assert refusal(archive, place) == f"member 'link' {reason}"


def test_a_tar_link_then_a_file_through_it_writes_nothing_outside(place: Path) -> None:
    outside = place.parent.parent / "outside"
    outside.mkdir()
    archive = make_tar(place.parent / "a.tar", [
        tar_member("d", kind=tarfile.SYMTYPE, linkname=str(outside)),
        tar_member("d/evil.py", b"evil")])
    assert refusal(archive, place) == "member 'd' is a symbolic link"
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(("mode", "reason"), [
    (stat.S_IFLNK | 0o777, "is a symbolic link"),
    (stat.S_IFIFO | 0o644, "is a named pipe (fifo)"),
    (stat.S_IFCHR | 0o644, "is a device"),
    (stat.S_IFBLK | 0o644, "is a device"),
    (stat.S_IFSOCK | 0o644, "is a socket"),
])
def test_zip_members_whose_attributes_say_link_or_special_are_refused(place: Path, mode: int,
                                                                      reason: str) -> None:
    archive = raw_zip(place.parent / "a.zip", [
        {"name": b"a.py", "data": b"fine"},
        {"name": b"link", "data": b"/etc/passwd", "attr": mode << 16}])
    assert refusal(archive, place) == f"member 'link' {reason}"


# ---- names that collide, and names that cannot be shown ---------------------------------------

NFC = unicodedata.normalize("NFC", "caf\u00e9.py")
NFD = unicodedata.normalize("NFD", NFC)


@pytest.mark.parametrize(("members", "reason"), [
    ([("a.py", b"1"), ("a.py", b"2")], "member 'a.py' appears twice"),
    ([("d/a.py", b"1"), ("./d//a.py", b"2")], "member './d//a.py' appears twice"),
    ([("Agent.py", b"1"), ("agent.py", b"2")],
     "member 'agent.py' collides with member 'Agent.py' (names equal once case and Unicode "
     "normalisation are ignored)"),
    ([("Lib/a.py", b"1"), ("lib/b.py", b"2")],
     "member 'lib/b.py' collides with member 'Lib/a.py' (names equal once case and Unicode "
     "normalisation are ignored)"),
    ([(NFC, b"1"), (NFD, b"2")],
     f"member '{NFD}' collides with member '{NFC}' (names equal once case and Unicode "
     "normalisation are ignored)"),
    ([("STRASSE.py", b"1"), ("stra\u00dfe.py", b"2")],
     "member 'stra\u00dfe.py' collides with member 'STRASSE.py' (names equal once case and "
     "Unicode normalisation are ignored)"),
    ([("a", b"1"), ("a/b.py", b"2")], "member 'a/b.py' makes 'a' both a file and a folder"),
    ([("a/", None), ("a", b"2")], "member 'a' makes 'a' both a file and a folder"),
    ([("a/b.py", b"1"), ("a", b"2")], "member 'a' makes 'a' both a file and a folder"),
    ([("a\nb.py", b"1")], "member 'a\\nb.py' has a control character in its name"),
    ([("a\x1b[2Jb.py", b"1")], "member 'a\\x1b[2Jb.py' has a control character in its name"),
    ([("a\x85b.py", b"1")], "member 'a\\x85b.py' has a control character in its name"),
])
@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_names_that_collide_or_cannot_be_shown_are_refused(place: Path, members: list[Member],
                                                           reason: str, kind: str) -> None:
    archive = (make_zip(place.parent / "a.zip", members) if kind == "zip"
               else files_tar(place.parent / "a.tar", members))
    assert refusal(archive, place) == reason


def test_a_folder_named_again_is_no_collision(place: Path) -> None:
    archive = make_zip(place.parent / "a.zip", [("d/", None), ("d/a.py", b"1"), ("d/", None),
                                                ("./d/", None)])
    assert unpack(archive, place / "into", SMALL) == ["d/a.py"]


def test_zip_names_with_nul_or_bytes_that_are_not_utf8_are_refused(place: Path) -> None:
    nul = raw_zip(place.parent / "nul.zip", [{"name": b"a\x00.py", "data": b"1"}])
    assert refusal(nul, place) == "member 'a\\x00.py' has a control character in its name"
    # Without the UTF-8 flag: bytes of a Windows code page (cp850's "Ü") are not guessed.
    legacy = raw_zip(place.parent / "legacy.zip", [{"name": b"\x9abung.py", "data": b"1"}])
    assert refusal(legacy, place) == "member '\\udc9abung.py' has a name that is not UTF-8"
    # Refused on its own: an export sets it aside and writes the rest.
    export = raw_zip(place.parent / "export.zip", [{"name": b"s1/\x9abung.py", "data": b"1"},
                                                   {"name": b"s2/a.py", "data": b"2"}])
    aside = unpack_export(export, place / "export", SMALL)
    assert [(a.member, a.parts) for a in aside] == [("s1/\udc9abung.py", ("s1", "\udc9abung.py"))]
    written = sorted(str(p.relative_to(place / "export"))
                     for p in (place / "export").rglob("*") if p.is_file())
    assert written == ["s2/a.py"]
    # With the flag, and not UTF-8 all the same.
    flagged = raw_zip(place.parent / "flagged.zip",
                      [{"name": b"\xff.py", "data": b"1", "flags": 0x800}])
    assert refusal(flagged, place) == "a member's name is not UTF-8 (though flagged UTF-8)"


def test_zip_names_in_utf8_are_read_with_or_without_the_flag(place: Path) -> None:
    archive = raw_zip(place.parent / "a.zip", [
        {"name": "\u00fcbung.py".encode(), "data": b"1"},  # no flag: macOS writes these
        {"name": "\u00e9t\u00e9.py".encode(), "data": b"2", "flags": 0x800}])
    assert unpack(archive, place / "into", SMALL) == ["\u00e9t\u00e9.py", "\u00fcbung.py"]


def test_tar_names_that_are_not_utf8_are_refused(place: Path) -> None:
    archive = make_tar(place.parent / "a.tar", [tar_member("\udcff.py", b"1")],
                       fmt=tarfile.GNU_FORMAT)
    assert (place.parent / "a.tar").read_bytes()[:4] == b"\xff.py"
    assert refusal(archive, place) == "member '\\udcff.py' has a name that is not UTF-8"


# ---- expansion ----------------------------------------------------------------------------------

def test_a_zip_bomb_is_refused_before_it_inflates(place: Path) -> None:
    """A 1 GiB member in a 1 MiB zip: refused at its declared size, never inflated."""
    bomb = raw_zip(place.parent / "bomb.zip", [{
        "name": b"zeros.bin", "data": deflated_zeros(1024), "size": 1 << 30,
        "crc": zeros_crc(1024), "method": zipfile.ZIP_DEFLATED}])
    assert bomb.stat().st_size < 2 << 20
    assert refusal(bomb, place, SUBMISSION_LIMITS) == "member 'zeros.bin' expands beyond 32 MiB"


def test_a_zip_bomb_that_lies_about_its_sizes_is_refused_as_corrupt(place: Path) -> None:
    """Declared 1 KiB each, 64 MiB each inside: what is read stops at the declared size and
    the CRC of the whole then fails; the limits are counted beneath that (next test)."""
    bomb = raw_zip(place.parent / "bomb.zip", [{
        "name": f"z{i}.bin".encode(), "data": deflated_zeros(64), "size": 1024,
        "crc": zeros_crc(64), "method": zipfile.ZIP_DEFLATED} for i in range(3)])
    limits = UnpackLimits(max_files=10, max_bytes=4096, max_member_bytes=2048, max_depth=2)
    assert refusal(bomb, place, limits).startswith("corrupt zip: member 'z0.bin': Bad CRC-32")


def test_bytes_are_counted_as_they_are_written_whatever_was_declared(place: Path) -> None:
    """The counting itself, under the declared-size checks: a member that keeps giving bytes
    is stopped one byte past its limit, and the whole at the total."""
    given = 0

    def endless(size: int) -> bytes:
        nonlocal given
        given += size
        return b"x" * size

    into = place / "into"
    into.mkdir()
    fd = os.open(into, os.O_RDONLY | os.O_DIRECTORY)
    try:
        job = unpack_module._Unpacker(unpack_module._Tree(fd), SMALL, None)
        with pytest.raises(ArchiveRefused, match=r"^member 'a' expands beyond 600 bytes$"):
            job.write("a", ("a",), endless, "corrupt")
        assert given == SMALL.max_member_bytes + 1
        job.write("b", ("b",), io.BytesIO(b"y" * 600).read, "corrupt")
        given = 0
        with pytest.raises(ArchiveRefused, match=r"^expands beyond 1000 bytes$"):
            job.write("c", ("c",), endless, "corrupt")
        assert given == SMALL.max_bytes - 600 + 1
    finally:
        os.close(fd)


@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_limits_hold_at_their_exact_boundary(place: Path, kind: str) -> None:
    def outcome(members: list[Member], limits: UnpackLimits = SMALL) -> list[str] | str:
        archive = (make_zip(place.parent / "a.zip", members) if kind == "zip"
                   else files_tar(place.parent / "a.tar", members))
        into = place / "into"
        try:
            return unpack(archive, into, limits)
        except ArchiveRefused as exc:
            assert not into.exists()
            return exc.reason
        finally:
            shutil.rmtree(into, ignore_errors=True)

    # Files: four pass (folders do not count), a fifth is refused.
    four: list[Member] = [("d/", None), ("e/", None), *((f"d/{i}", b"") for i in range(4))]
    assert outcome(four) == [f"d/{i}" for i in range(4)]
    assert outcome([*four, ("e/x", b"")]) == "holds more than 4 files"
    # One member's bytes: 600 pass, 601 are refused.
    assert outcome([("a", b"x" * 600)]) == ["a"]
    assert outcome([("a", b"x" * 601)]) == "member 'a' expands beyond 600 bytes"
    # All bytes: 1000 pass, 1001 are refused.
    assert outcome([("a", b"x" * 500), ("b", b"x" * 500)]) == ["a", "b"]
    assert outcome([("a", b"x" * 500), ("b", b"x" * 501)]) == "expands beyond 1000 bytes"
    # Depth: three components pass, four are refused.
    assert outcome([("a/b/c", b"")]) == ["a/b/c"]
    assert outcome([("a/b/c/d", b"")]) == "member 'a/b/c/d' is 4 levels deep, more than 3"
    # A name's bytes (UTF-8): 20 pass, 21 are refused.
    assert outcome([("\u00e9" * 10, b"")]) == ["\u00e9" * 10]
    assert outcome([("x" + "\u00e9" * 10, b"")]) == (
        f"member '{'x' + chr(0xE9) * 10}' has a name longer than 20 bytes")
    # A path's bytes: 40 pass, 41 are refused.
    assert outcome([("a" * 19 + "/" + "b" * 20, b"")]) == ["a" * 19 + "/" + "b" * 20]
    assert outcome([("a" * 20 + "/" + "b" * 20, b"")]) == (
        f"member '{'a' * 20 + '/' + 'b' * 20}' has a path longer than 40 bytes")
    # Members of any kind: eight pass, nine are refused.
    eight: list[Member] = [("d/", None), ("e/", None), ("f/", None), ("g/", None),
                           *((f"d/{i}", b"") for i in range(4))]
    assert outcome(eight) == [f"d/{i}" for i in range(4)]
    assert outcome([*eight, ("h/", None)]) == "holds more than 8 members"


def test_a_zip_whose_directory_is_larger_than_its_members_need_is_refused(place: Path) -> None:
    path = place.parent / "a.zip"
    with zipfile.ZipFile(path, "w") as archive:
        info = zipfile.ZipInfo("a.py")
        info.extra = struct.pack("<HH", 0xCAFE, 60000) + bytes(60000)
        archive.writestr(info, b"1")
    limits = UnpackLimits(max_files=4, max_bytes=1000, max_member_bytes=600, max_depth=3,
                          max_members=8, max_path_bytes=40)
    assert re.fullmatch(r"its central directory of 600\d\d bytes is larger than 8 members need",
                        refusal(path, place, limits))


def test_a_large_tar_extension_header_is_refused_before_it_is_read(place: Path) -> None:
    info, data = tar_member("a.py", b"1")
    info.pax_headers = {"comment": "x" * MAX_TAR_HEADER_BYTES}
    archive = make_tar(place.parent / "a.tar", [(info, data)])
    reason = refusal(archive, place)
    assert reason.startswith("a tar extension header of ") and reason.endswith(
        "bytes (at most 256 KiB are read)")


def chained_pax_headers(count: int, each: int) -> bytes:
    """A tar whose one member follows `count` pax headers of `each` bytes (tarfile writes one
    at most per member, so they are written by hand)."""
    out = io.BytesIO()
    for i in range(count):
        # "<length> comment=<x...>\n", `each` bytes with its own length
        record = f"{each} comment={'x' * (each - len(str(each)) - 10)}\n".encode()
        assert len(record) == each
        header = tarfile.TarInfo(f"PaxHeader/{i}")
        header.type, header.size = tarfile.XHDTYPE, len(record)
        out.write(header.tobuf(format=tarfile.USTAR_FORMAT))
        out.write(record + bytes(-len(record) % tarfile.BLOCKSIZE))
    data = b"1\n"
    member = tarfile.TarInfo("a.py")
    member.size = len(data)
    out.write(member.tobuf(format=tarfile.USTAR_FORMAT))
    out.write(data + bytes(-len(data) % tarfile.BLOCKSIZE) + bytes(2 * tarfile.BLOCKSIZE))
    return out.getvalue()


@pytest.mark.parametrize("count, each", [(9, 100), (3, MAX_TAR_HEADER_BYTES // 2)])
def test_a_chain_of_tar_extension_headers_is_refused(place: Path, count: int,
                                                     each: int) -> None:
    """Found by a hostile review: `tarfile` reads each extension header whole and recurses
    into the next while holding it, so a 14 KiB upload of 320 chained headers made `collect`
    take 276 MB. More than 8 before one member, or more than 256 KiB of them, is refused;
    a few small ones (as real archives have) are read."""
    archive = place.parent / "a.tar"
    archive.write_bytes(chained_pax_headers(count, each))
    assert refusal(archive, place, SUBMISSION_LIMITS) == (
        "more than 8 tar extension headers or 256 KiB of them before one member")
    fine = place.parent / "fine.tar"
    fine.write_bytes(chained_pax_headers(4, 100))
    unpack(fine, place / "fine", SUBMISSION_LIMITS)
    assert (place / "fine" / "a.py").read_bytes() == b"1\n"


@pytest.mark.skipif(shutil.which("tar") is None, reason="GNU tar makes the sparse archives")
@pytest.mark.parametrize("fmt", ["gnu", "posix"])
def test_sparse_tar_members_are_refused(place: Path, fmt: str) -> None:
    source = place.parent / "src"
    source.mkdir()
    with open(source / "holes.bin", "wb") as fh:
        fh.truncate(1 << 20)
        fh.seek(1 << 19)
        fh.write(b"data")
    archive = place.parent / "a.tar"
    subprocess.run(["tar", "--sparse", f"--format={fmt}", "-cf", str(archive), "-C",
                    str(source), "holes.bin"], check=True)
    reason = refusal(archive, place, SUBMISSION_LIMITS)
    assert reason == "member 'holes.bin' is a sparse file (not supported)"


def test_a_skipped_tar_member_is_still_bounded_to_read_past(place: Path) -> None:
    archive = files_tar(place.parent / "a.tar", [("__MACOSX/a", b"x" * 600),
                                                 ("__MACOSX/b", b"x" * 401)])
    assert refusal(archive, place, skip=lambda name: name.startswith("__MACOSX/")) == (
        "its skipped members expand beyond 1000 bytes")
    big = files_tar(place.parent / "b.tar", [("__MACOSX/a", b"x" * 601)])
    assert refusal(big, place, skip=lambda name: name.startswith("__MACOSX/")) == (
        "member '__MACOSX/a' expands beyond 600 bytes")


# ---- what is not an archive, or a damaged one ---------------------------------------------------

def test_what_is_not_an_archive_is_refused_as_such(place: Path) -> None:
    text = place.parent / "multiAgents.zip"
    text.write_text("class MyAgent: pass\n")
    empty = place.parent / "empty.tar"
    empty.write_bytes(b"")
    gz_text = place.parent / "text.tar.gz"
    gz_text.write_bytes(gzip.compress(b"hello " * 200))
    for path in (text, empty, gz_text):
        assert archive_kind(path) is None
        assert refusal(path, place) == NOT_AN_ARCHIVE
    assert refusal(lambda: io.BytesIO(b"plain text, no tar"), place) == NOT_AN_ARCHIVE
    zipped = make_zip(place.parent / "a.zip", [("a.py", b"1")])
    assert refusal(lambda: io.BytesIO(zipped.read_bytes()), place) == NOT_AN_ARCHIVE
    fifo = place.parent / "fifo.zip"
    os.mkfifo(fifo)
    assert archive_kind(fifo) is None
    assert "is a named pipe (fifo); expected a regular file" in refusal(fifo, place)
    assert archive_kind(place.parent / "missing.zip") is None


def test_damaged_archives_are_refused_as_corrupt(place: Path) -> None:
    good = make_zip(place.parent / "good.zip", [("a.py", b"print(1)\n" * 50),
                                                ("b.py", b"2")])
    truncated = place.parent / "truncated.zip"
    truncated.write_bytes(good.read_bytes()[:-30])
    assert archive_kind(truncated) == "zip"
    assert refusal(truncated, place) == "corrupt zip: no end of central directory (truncated?)"

    stored = raw_zip(place.parent / "crc.zip", [{"name": b"a.py", "data": b"hello",
                                                 "crc": zlib.crc32(b"hellO")}])
    assert refusal(stored, place).startswith("corrupt zip: member 'a.py': Bad CRC-32")

    noise = random.Random(1).randbytes(5000)
    tgz = files_tar(place.parent / "a.tar.gz", [("a.py", noise), ("b.py", b"2")], "w:gz")
    cut = place.parent / "cut.tar.gz"
    cut.write_bytes(tgz.read_bytes()[:len(tgz.read_bytes()) // 2])
    assert refusal(cut, place) == ("corrupt gzip data: Compressed file ended before the "
                                   "end-of-stream marker was reached")

    tar = files_tar(place.parent / "a.tar", [("a.py", b"1"), ("b.py", b"2")]).read_bytes()
    second = tar.index(b"b.py")  # where the second header starts
    broken = place.parent / "broken.tar"
    broken.write_bytes(tar[:second + 150] + b"\xff" + tar[second + 151:])
    assert refusal(broken, place).startswith(
        "corrupt tar after member 'a.py': a damaged header")
    # Cut at a member's end: no end-of-archive block.
    ends = place.parent / "ends.tar"
    ends.write_bytes(tar[:second])
    assert refusal(ends, place) == ("corrupt tar after member 'a.py': it ends without its "
                                    "end-of-archive block (truncated?)")


def test_encrypted_and_unknown_zip_methods_are_refused(place: Path) -> None:
    encrypted = raw_zip(place.parent / "e.zip", [{"name": b"a.py", "data": b"\x00" * 20,
                                                  "flags": 0x1}])
    assert refusal(encrypted, place) == "member 'a.py' is encrypted"
    deflate64 = raw_zip(place.parent / "m.zip", [{"name": b"a.py", "data": b"xx",
                                                  "method": 9}])
    assert refusal(deflate64, place) == (
        "member 'a.py' uses compression method 9, which is not supported")


# ---- good archives ------------------------------------------------------------------------------

GOOD: list[Member] = [
    ("multiAgents.py", b"class A:\n    pass\n"),
    ("lib/", None),
    ("lib/helpers.py", b"X = 1\n" * 1000),
    ("lib/deep/er/data.bin", bytes(range(256)) * 10),
    ("empty.txt", b""),
    ("empty-folder/", None),
    ("\u00fcbung/caf\u00e9.py", "# \u00e9\n".encode()),
    ("nested.zip", b"PK\x05\x06" + bytes(18)),  # an archive inside is a file like any other
]
GOOD_FILES = {name: data for name, data in GOOD if data is not None}


@pytest.mark.parametrize("mode", ["w", "w:gz", "w:bz2", "w:xz", "zip"])
def test_good_archives_round_trip_exactly(place: Path, mode: str) -> None:
    if mode == "zip":
        archive = make_zip(place.parent / "a.zip", GOOD, mode=stat.S_IFREG | 0o4777)
    else:
        members = [tar_member(name.rstrip("/"), data, mode=0o4777 if data else 0o700)
                   for name, data in GOOD]
        archive = make_tar(place.parent / "a.tar", members, mode)
    assert archive_kind(archive) == ("zip" if mode == "zip" else "tar")
    into = place / "into"
    names = unpack(archive, into, SUBMISSION_LIMITS)
    assert names == sorted(GOOD_FILES)
    assert written(into) == GOOD_FILES
    assert (into / "empty-folder").is_dir()
    for path in [into, *into.rglob("*")]:
        expected = 0o755 if path.is_dir() else 0o644
        assert stat.S_IMODE(path.lstat().st_mode) == expected, path


def test_a_tar_of_a_folder_with_dot_names_unpacks_without_them(place: Path) -> None:
    archive = make_tar(place.parent / "a.tgz", [
        tar_member(".", None), tar_member("./a.py", b"1"), tar_member("./sub", None),
        tar_member("./sub/b.py", b"2")], "w:gz")
    into = place / "into"
    assert unpack(archive, into, SMALL) == ["a.py", "sub/b.py"]
    assert written(into) == {"a.py": b"1", "sub/b.py": b"2"}


def test_an_empty_tar_is_an_archive_with_nothing_in_it(place: Path) -> None:
    archive = files_tar(place.parent / "a.tar", [])
    assert archive_kind(archive) == "tar"
    assert unpack(archive, place / "into", SMALL) == []
    assert (place / "into").is_dir()


def test_a_bzip2_tar_of_any_block_size_is_read(place: Path) -> None:
    import bz2
    raw = files_tar(place.parent / "a.tar", [("a.py", b"1")]).read_bytes()
    path = place.parent / "a.tar.bz2"
    path.write_bytes(bz2.compress(raw, compresslevel=1))
    assert archive_kind(path) == "tar"
    assert unpack(path, place / "into", SMALL) == ["a.py"]


def test_the_default_limits(place: Path) -> None:
    assert SUBMISSION_LIMITS.max_files == 1000 and SUBMISSION_LIMITS.max_bytes == 64 << 20
    assert EXPORT_LIMITS.max_files == 100_000 and EXPORT_LIMITS.max_bytes == 4 << 30
    with pytest.raises(ValueError, match=r"UnpackLimits\.max_depth: expected a positive integer"):
        UnpackLimits(max_files=1, max_bytes=1, max_member_bytes=1, max_depth=0)


@pytest.mark.skipif(shutil.which("git") is None, reason="git makes the repository")
def test_a_git_archive_stream_unpacks_as_the_commit_holds(place: Path) -> None:
    repo = place.parent / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "multiAgents.py").write_bytes(b"class A:\n    pass\n")
    (repo / "pkg" / "util.py").write_bytes(b"Y = 2\n")
    (repo / "run.sh").write_bytes(b"#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(place.parent),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "one"]):
        subprocess.run(["git", "-C", str(repo), *command], check=True, env=env)
    process = subprocess.Popen(["git", "-C", str(repo), "archive", "HEAD"],
                               stdout=subprocess.PIPE, env=env)
    assert process.stdout is not None
    try:
        names = unpack(process.stdout, place / "into", SMALL)
    finally:
        process.stdout.close()
        assert process.wait() == 0
    assert names == ["multiAgents.py", "pkg/util.py", "run.sh"]
    assert written(place / "into") == {"multiAgents.py": b"class A:\n    pass\n",
                                       "pkg/util.py": b"Y = 2\n", "run.sh": b"#!/bin/sh\n"}
    assert stat.S_IMODE((place / "into" / "run.sh").stat().st_mode) == 0o644


# ---- skip ---------------------------------------------------------------------------------------

def test_skipped_members_are_neither_checked_nor_written_nor_counted(place: Path) -> None:
    asked: list[str] = []

    def junk(name: str) -> bool:
        asked.append(name)
        return name.split("/")[0] == "__MACOSX" or name.endswith(".DS_Store")

    archive = raw_zip(place.parent / "a.zip", [
        {"name": b"a.py", "data": b"1"},
        {"name": b"__MACOSX/", "attr": (stat.S_IFDIR | 0o755) << 16},
        {"name": b"__MACOSX/._a.py", "data": b"x" * 900},
        {"name": b"./__MACOSX/link", "data": b"/etc", "attr": (stat.S_IFLNK | 0o777) << 16},
        {"name": b"sub\\.DS_Store", "data": b"x" * 900},
        {"name": b"sub/b.py", "data": b"2"},
    ])
    into = place / "into"
    assert unpack(archive, into, SMALL, skip=junk) == ["a.py", "sub/b.py"]
    assert written(into) == {"a.py": b"1", "sub/b.py": b"2"}
    assert asked == ["a.py", "__MACOSX", "__MACOSX/._a.py", "__MACOSX/link", "sub/.DS_Store",
                     "sub/b.py"]


def test_a_skip_that_raises_leaves_nothing(place: Path) -> None:
    archive = files_tar(place.parent / "a.tar", [("a.py", b"1"), ("b.py", b"2")])

    def boom(name: str) -> bool:
        if name == "b.py":
            raise RuntimeError("the caller's own failure")
        return False

    into = place / "into"
    with pytest.raises(RuntimeError, match="the caller's own failure"):
        unpack(archive, into, SMALL, skip=boom)
    assert not into.exists()


# ---- writing: only beneath a new folder of our own ----------------------------------------------

def test_into_must_be_new(place: Path) -> None:
    into = place / "into"
    into.mkdir()
    (into / "keep.py").write_text("mine")
    archive = files_tar(place.parent / "a.tar", [("a.py", b"1")])
    with pytest.raises(FileExistsError):
        unpack(archive, into, SMALL)
    assert written(into) == {"keep.py": b"mine"}


def test_a_folder_swapped_for_a_link_mid_unpack_redirects_nothing(place: Path) -> None:
    """Someone racing the unpack replaces a folder it made with a link to elsewhere (the
    moment is made exact by the skip callback, called between two members): the next write
    into that folder fails, nothing lands outside and everything is removed."""
    outside = place.parent.parent / "outside"
    outside.mkdir()
    into = place / "into"

    def swap(name: str) -> bool:
        if name == "now":
            (into / "d").rename(place / "moved")
            (into / "d").symlink_to(outside)
        return name == "now"

    stream = files_tar(place.parent / "a.tar", [("d/a.py", b"1"), ("now", b""),
                                                ("d/b.py", b"evil")]).read_bytes()
    with pytest.raises(OSError):
        unpack(io.BytesIO(stream), into, SMALL, skip=swap)
    assert list(outside.iterdir()) == []
    assert not into.exists()


def test_a_file_planted_mid_unpack_is_not_written_through(place: Path) -> None:
    outside = place.parent.parent / "outside.py"
    outside.write_text("untouched")
    into = place / "into"

    def plant(name: str) -> bool:
        if name == "now":
            (into / "d" / "b.py").symlink_to(outside)
        return name == "now"

    stream = files_tar(place.parent / "a.tar", [("d/a.py", b"1"), ("now", b""),
                                                ("d/b.py", b"evil")]).read_bytes()
    assert refusal(lambda: io.BytesIO(stream), place, skip=plant) == (
        "member 'd/b.py' collides with a file already written")
    assert outside.read_text() == "untouched"



@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_an_export_sets_a_refused_member_aside_and_writes_the_rest(place: Path,
                                                                  kind: str) -> None:
    """`unpack_export`: a member refused on its own (a name colliding by case, a link, one too
    deep, one too large) is set aside with its reason and nothing of it is left on disk, while
    `unpack` refuses the same archive whole."""
    members: list[Member] = [("a/x.py", b"1"), ("a/X.py", b"2"), ("b/y.py", b"3"),
                             ("c/d/e/f.py", b"4"), ("d/big", b"z" * 700)]
    archive = (make_zip(place.parent / "a.zip", members) if kind == "zip"
               else files_tar(place.parent / "a.tar", members))
    with pytest.raises(ArchiveRefused):
        unpack(archive, place / "strict", SMALL)
    assert not (place / "strict").exists()
    aside = unpack_export(archive, place / "into", SMALL)
    assert [(a.member, a.parts) for a in aside] == [
        ("a/X.py", ("a", "X.py")), ("c/d/e/f.py", ("c", "d", "e", "f.py")),
        ("d/big", ("d", "big"))]
    assert [a.reason for a in aside] == [
        "member 'a/X.py' collides with member 'a/x.py' (names equal once case and Unicode "
        "normalisation are ignored)",
        "member 'c/d/e/f.py' is 4 levels deep, more than 3",
        "member 'd/big' expands beyond 600 bytes"]
    written = sorted(str(p.relative_to(place / "into")) for p in (place / "into").rglob("*")
                     if p.is_file())
    assert written == ["a/x.py", "b/y.py"]


def test_a_member_refused_while_it_is_written_leaves_no_half_file(place: Path) -> None:
    """A member found too large only while it is written (a stream whose size no header
    said) is removed, not left half written, so a tolerant unpack goes on without it."""
    into = place / "into"
    into.mkdir()
    fd = os.open(into, os.O_RDONLY | os.O_DIRECTORY)
    try:
        job = unpack_module._Unpacker(unpack_module._Tree(fd), SMALL, None, tolerant=True)
        with pytest.raises(ArchiveRefused, match=r"^member 'a' expands beyond 600 bytes$"):
            job.write("a", ("a",), io.BytesIO(b"x" * 700).read, "corrupt")
        assert os.listdir(into) == []
    finally:
        os.close(fd)


def test_an_export_too_large_as_a_whole_is_still_refused(place: Path) -> None:
    """What concerns the export as a whole (here its total bytes) refuses it, as `unpack`
    does: a partial class is never read as the class."""
    members: list[Member] = [(f"s{i}/f", b"w" * 400) for i in range(3)]
    archive = make_zip(place.parent / "a.zip", members)
    with pytest.raises(ArchiveRefused, match=r"^expands beyond 1000 bytes$"):
        unpack_export(archive, place / "into", SMALL)
    assert not (place / "into").exists()
