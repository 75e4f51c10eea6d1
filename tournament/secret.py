"""The tournament's secret: what keeps every game's random streams unpredictable to its agents.

A game's seed is public by design: it follows from the master seed, the cell and the game's
index (common random numbers, resumable runs), and `games.csv` and the replays show it. If the
ghosts' moves followed from the seed alone, an agent could enumerate the likely seeds (the
master seed is small, or in a published config), recognise its game from its own random state
or the ghosts' first moves, and know every ghost move to come. So each game's streams are
keyed with a secret (`GameSpec.secret`) that never leaves the organizer's side: 256 random
bits, made when a results folder is first played and kept beside the results, readable by the
organizer only. The same folder (or the same `secret_file`) replays the same games; to play
the same games elsewhere, copy the file or name it in the config.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from tournament.config import TournamentConfig

#: Where a results folder keeps its secret, unless the config names a `secret_file`.
SECRET_NAME = ".game-secret"
_HEX = frozenset("0123456789abcdef")


class SecretError(ValueError):
    """A secret file that cannot be used; the message names it."""


def secret_path(config: TournamentConfig) -> Path:
    return config.secret_file or config.output / SECRET_NAME


def game_secret(config: TournamentConfig, create: bool = True) -> str:
    """The tournament's secret (64 hex digits), made (mode 0600) on first use when `create`."""
    path = secret_path(config)
    if not path.exists():
        if not create:
            raise SecretError(f"{path}: no such secret file")
        return _make(path)
    return _read(path)


def _read(path: Path) -> str:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretError(f"{path}: cannot read the tournament's secret: {exc}") from exc
    if len(text) != 64 or not set(text) <= _HEX:
        raise SecretError(f"{path}: expected 64 hexadecimal digits (a tournament's secret)")
    return text


def _make(path: Path) -> str:
    """Write a new secret atomically (a half-written one would change every game)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_hex(32)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, value.encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(temporary, path)  # fails if another run made one meanwhile: that one wins
    except FileExistsError:
        return _read(path)
    finally:
        os.unlink(temporary)
    return value
