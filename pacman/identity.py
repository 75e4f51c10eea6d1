"""The platform's identity: which code plays, schedules and scores a game.

A stored game is the result of the code that played it. `pacman.__version__` names a release,
and a checkout updated with `git pull` (to get a rules fix, a sandbox fix found by a review, a
retuned baseline) keeps it, so a release name alone cannot tell a game played before the
update from one played after: stored games of the old code stayed counted beside new ones,
and a Dask worker on another checkout passed the "same version" check (the fourteenth hostile
review). The identity is therefore computed from the code itself: the release and a digest of
every Python source of the `pacman` and `tournament` packages. Each result row records it
(`version`), a run plays again every stored game recorded with another one
(`tournament.resume.plan`), and the organizer refuses a worker or a row of another one.

Every source counts, not a list of the modules that "play": such a list would be one more
thing to keep right, and a module left off it (the seeds' derivation, the referee) would let
old games pass as new. The price is that a change of the report's code plays the games again.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

from pacman import __version__

#: The packages whose sources make the identity, beside each other where the platform is
#: installed (a checkout, or site-packages).
PACKAGES = ("pacman", "tournament")
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


def platform_sources(root: Path) -> list[tuple[str, bytes]]:
    """Every `*.py` of the `PACKAGES` found under `root` (outside `__pycache__`), by its
    path relative to `root`."""
    found = []
    for package in PACKAGES:
        folder = root / package
        if not folder.is_dir():
            continue
        for path in folder.rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            found.append((path.relative_to(root).as_posix(), path.read_bytes()))
    return found


@functools.cache
def platform_id() -> str:
    """`<release>+<digest>`: this process's platform, read once (the sources a process
    started with are the ones it runs)."""
    root = Path(__file__).resolve().parent.parent
    return f"{__version__}+{sources_digest(platform_sources(root))[:DIGEST_DIGITS]}"
