"""The tournament's secret: what keeps every game's random streams unpredictable to its agents.

A game's seed is public by design: it follows from the master seed, the cell and the game's
index (common seeds, resumable runs), and `games.csv` and the replays show it. If the
ghosts' moves followed from the seed alone, an agent could enumerate the likely seeds (the
master seed is small, or in a published config), recognise its game from its own random state
or the ghosts' first moves, and know every ghost move to come. So each game's streams are
keyed with a secret (`GameSpec.secret`) that never leaves the organizer's side: 256 random
bits, made when a results folder is first played and kept beside the results, readable by the
organizer only. The same folder (or the same `secret_file`) replays the same games; to play
the same games elsewhere, copy the file or name it in the config.

The streams of an entrant's games are keyed with its submission too (`game_key`): entrants
play the same boards with the same seeds, but no game ever played, by an earlier submission
of the same team or by another team (whose replays and logs may be public), shows an agent the
ghosts' draws of its own games. (The price: entrants do not share the ghosts' random draws, so
differences between them carry that chance as well; the leaderboard's intervals say how much.
A tuning's candidates, versions of one agent, share their streams instead: `tournament.tuning`.)
The store keeps the secret's fingerprint: a results folder never mixes games of two secrets.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

from pacman.files import in_the_way
from tournament.config import TournamentConfig
from tournament.store import Store

#: Where a results folder keeps its secret, unless the config names a `secret_file`.
SECRET_NAME = ".game-secret"
_HEX = frozenset("0123456789abcdef")


class SecretError(ValueError):
    """A secret file that cannot be used; the message names it."""


def fingerprint(secret: str) -> str:
    """What the store keeps of the secret: enough to tell it changed, nothing to rebuild it."""
    return hashlib.sha256(f"pacman-arena secret {secret}".encode()).hexdigest()[:16]


def game_key(secret: str, submission_hash: str) -> str:
    """The key of one entrant's games' random streams (`GameSpec.secret`)."""
    return f"{secret}/{submission_hash}"


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


def checked_secret(config: TournamentConfig, store: Store) -> str:
    """The secret to play this results folder's games with: the one its stored games were
    played with (its fingerprint is in the store), made on the folder's first run. A missing
    or replaced secret file, once games are stored, is an error: the folder would mix games
    of two secrets, and entrants would no longer play alike."""
    stored = store.meta("secret")
    has_games = not store.is_empty()
    try:
        secret = game_secret(config, create=stored is None and not has_games)
    except SecretError as exc:
        if not has_games:
            raise SecretError(f"secret_file: {exc}") from None
        raise SecretError(f"{exc}; the stored games were played with it, so the others must "
                          "be too (restore it, or start a new results folder)") from None
    except OSError as exc:  # a folder to make it in that cannot be made
        path = secret_path(config)
        blocker = in_the_way(path.parent)
        why = f"{blocker} is not a folder" if blocker is not None else exc.strerror or str(exc)
        raise SecretError(f"secret_file: {path}: cannot make the secret: {why}") from None
    if stored is None:
        store.set_meta("secret", fingerprint(secret))
    elif stored != fingerprint(secret):
        raise SecretError(f"{secret_path(config)}: not the secret this folder's stored games "
                          "were played with (restore that one, or start a new results folder)")
    return secret
