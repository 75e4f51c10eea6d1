"""Builders for the collect tests: archives and exports made the way each LMS makes them, an
agent file per team whose bytes say which submission they are, and a snapshot of a folder
(bytes and modification times) to prove that a second collect changed nothing."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import stat
import struct
import zipfile
from pathlib import Path

UTC = dt.timezone.utc


def agent(tag: str) -> bytes:
    """A course-style agent file with one agent class; `tag` makes its bytes its own."""
    return (f"# {tag}\nfrom game import Agent\n\n\nclass TestAgent(Agent):\n"
            "    def getAction(self, state):\n"
            "        return state.getLegalActions(0)[0]\n").encode()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def when(text: str) -> dt.datetime:
    """A UTC instant from `YYYY-MM-DD HH:MM`."""
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def make_zip(path: Path, members: dict[str, bytes], *, at: dt.datetime | None = None,
             times: dict[str, dt.datetime] | None = None,
             links: dict[str, str] | None = None) -> Path:
    """A zip of `members` (name -> bytes), each dated `times[name]` or `at`, plus symbolic
    link members (name -> target) when asked."""
    stamp = at or when("2024-03-01 09:00")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            moment = (times or {}).get(name, stamp)
            info = zipfile.ZipInfo(name, date_time=moment.timetuple()[:6])
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name, date_time=stamp.timetuple()[:6])
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return path


def clear_utf8_flags(path: Path) -> Path:
    """The zip at `path` with the UTF-8 flag (general purpose bit 11) cleared in every local
    and central header, its names' bytes unchanged: UTF-8 names without the flag, as macOS's
    Archive Utility writes them."""
    data = bytearray(path.read_bytes())
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at >= 0:
            flags = struct.unpack_from("<H", data, at + flags_at)[0]
            struct.pack_into("<H", data, at + flags_at, flags & ~0x800)
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
    return path


def zip_bytes(tmp: Path, members: dict[str, bytes], **kw: object) -> bytes:
    """The bytes of a zip of `members` (to put a student's zip inside an export)."""
    path = make_zip(tmp / f"inner-{len(os.listdir(tmp))}.zip", members, **kw)  # type: ignore[arg-type]
    data = path.read_bytes()
    path.unlink()
    return data


def write(path: Path, data: bytes, at: dt.datetime | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if at is not None:
        os.utime(path, (at.timestamp(), at.timestamp()))
    return path


def snapshot(folder: Path, leave_out: tuple[str, ...] = (".lock", ".git-cache"),
             ) -> dict[str, tuple[bytes | None, int]]:
    """Every entry under `folder` (but `leave_out` at its top): bytes (None for a folder)
    and modification time in nanoseconds."""
    found: dict[str, tuple[bytes | None, int]] = {}
    for root, dirs, files in os.walk(folder):
        rel_root = Path(root).relative_to(folder)
        if rel_root == Path("."):
            dirs[:] = [d for d in dirs if d not in leave_out]
            files = [f for f in files if f not in leave_out]
        for name in dirs:
            info = os.lstat(Path(root) / name)
            found[str(rel_root / name)] = (None, info.st_mtime_ns)
        for name in files:
            path = Path(root) / name
            found[str(rel_root / name)] = (path.read_bytes(), os.lstat(path).st_mtime_ns)
    return found


def tree(folder: Path) -> dict[str, bytes]:
    """A team folder's files, relative path -> bytes."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def everything_under(root: Path) -> set[str]:
    """Every path under `root`, relative, for proving nothing was written elsewhere."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}
