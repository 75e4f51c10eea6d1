"""Seeds: every random stream of the platform derived from a parent seed and labels.

One home for the derivation, used by the game runner (a game's streams), the `pacman` command
(a batch's games) and tournaments (a scheduled game's seed), so that the same labels give the
same seed everywhere, across Python versions and runs.
"""

from __future__ import annotations

import hashlib


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed from a parent seed and labels; stable across Python versions and runs."""
    text = ":".join([str(seed), *map(str, labels)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def stream_seed(seed: int, secret: str, *labels: object) -> int:
    """The seed of one of a game's random streams: from its seed and, when it has one, its
    secret (without a secret, what `derive_seed(seed, *labels)` gives)."""
    return derive_seed(seed, *labels, *((secret,) if secret else ()))
