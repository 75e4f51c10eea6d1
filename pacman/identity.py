"""The platform's identity: which code plays a game.

A stored game is the result of the code that played it. `pacman.__version__` names a release,
and a checkout updated with `git pull` (to get a rules fix, a sandbox fix found by a review, a
retuned baseline) keeps it, so a release name alone cannot tell a game played before the
update from one played after: stored games of the old code stayed counted beside new ones,
and a Dask worker on another checkout passed the "same version" check (the fourteenth hostile
review). The identity is therefore computed from the code itself: the release and a digest of
the sources that play a game. Each result row records it (`version`), a run plays again every
stored game recorded with another one (`tournament.resume.plan`), and the organizer refuses a
worker or a row of another one.

The sources that play a game are the whole `pacman` package (the engine, the built-in agents,
loaded by name, and the sandbox) and the `tournament` modules `tournament.runner` imports,
directly or not (`play_task`, the seeds' derivation, the snapshots, the row): found from the
imports themselves, not from a list to keep right. The report, the marks, the collection and
the `tournament` command line are not among them, so a change there plays nothing again. Every
byte of a `pacman` module counts, its comments and docstrings, its window and command line
too: an edit there plays every stored game again. That errs on the safe side (a module left
out would be a change that replays nothing); hashing the code without its comments costs
a parse of every module, about 0.4 s at each command's start, which was judged not worth it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

from pacman import __version__

#: Where the tournament's part of the identity starts: the module that plays a task.
PLAYING_MODULE = "tournament.runner"
#: Hex digits of the sources' digest kept in the identity.
DIGEST_DIGITS = 12


def sources_digest(files: Iterable[tuple[str, bytes]]) -> str:
    """The SHA-256 of (relative path, bytes) pairs, in path order, each part framed by its
    length so that no two different sets of files give the same stream. Pure."""
    digest = hashlib.sha256()
    for name, data in sorted(files):
        encoded = name.encode("utf-8", "surrogateescape")
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def imported_modules(source: bytes, package: str) -> set[str]:
    """The modules of `package` that Python source `source` imports anywhere (at the top or
    inside a function), as dotted names, each `from package import x` counted as module
    `package.x` (the caller keeps those that are modules); none when it does not parse. Pure."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name == package or name.startswith(package + ".")}


def _read(path: Path) -> bytes:
    """A source's bytes; a file that cannot be read counts as such (the identity of a broken
    checkout is still one value, and reading it never fails)."""
    try:
        return path.read_bytes()
    except OSError as exc:
        return f"\0unreadable: {exc.strerror or exc}".encode("utf-8", "backslashreplace")


def _is_source(path: Path, root: Path) -> bool:
    """A module file Python would import: a regular file (links followed), every part of
    its name an identifier (an editor's `.#rules.py`, a `__pycache__` copy, are not)."""
    parts = path.relative_to(root).with_suffix("").parts
    return (all(part.isidentifier() and part != "__pycache__" for part in parts)
            and path.is_file())


def platform_sources(root: Path) -> list[tuple[str, bytes]]:
    """The sources that play a game, found under `root` (the folder holding the packages),
    by path relative to `root`: every module of `pacman`, and the `tournament` modules that
    `PLAYING_MODULE` imports, directly or not."""
    found = [(path.relative_to(root).as_posix(), _read(path))
             for path in sorted((root / "pacman").rglob("*.py")) if _is_source(path, root)]
    seen: set[str] = set()
    todo = [PLAYING_MODULE]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = root.joinpath(*name.split(".")).with_suffix(".py")
        if not path.is_file():
            continue  # a package or a name imported from a module, not a module
        data = _read(path)
        found.append((path.relative_to(root).as_posix(), data))
        todo.extend(imported_modules(data, "tournament"))
    return found


@functools.cache
def platform_id() -> str:
    """`<release>+<digest>`: this process's platform, read once, at its first use (the
    command line asks at its start, so that the organizer's value is the code it started
    with)."""
    root = Path(__file__).resolve().parent.parent
    return f"{__version__}+{sources_digest(platform_sources(root))[:DIGEST_DIGITS]}"
