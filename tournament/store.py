"""Results in SQLite: one row per game, written in its own transaction as the game finishes.

The database is the tournament's memory. A run first asks it what is already done (and with
which submission hash), plays only the rest, and commits each game as it comes back, so a run
killed at any instant (even with SIGKILL) loses at most the games that were in flight and
never leaves half a row: SQLite's journal makes every commit all-or-nothing. Each run is
recorded too (`tournament.runs`), and each game carries the run that stored it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd  # type: ignore[import-untyped, unused-ignore]

from pacman.outcomes import OUTCOMES
from tournament.results import ADDED, COLUMNS, NAMES, GameRow
from tournament.runs import ENDINGS, RUN_COLUMNS, RunRecord, utc_now
from tournament.schedule import seed_of


class StoredGame(NamedTuple):
    """What a run needs of a stored game to tell whether it is still the game asked for."""

    submission_hash: str
    ghost_hash: str
    outcome: str
    seed: int
    #: The platform that played it (`pacman.identity.platform_id`).
    version: str


class StoreError(RuntimeError):
    """The results file cannot be used (not a database, another schema...)."""


#: The meta key of the first run that recorded its master seed: games of earlier runs tell
#: which seeds those played (`Store.seed_first_run`).
SEEDS_RECORDED_FROM = "master seeds recorded from run"


def seed_key(seed: int | str) -> str:
    """The meta key of the first run that played master seed `seed`."""
    return f"master seed {seed} first run"


class Store:
    """The results of one tournament output folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(path, timeout=30)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            columns = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
            runs = ", ".join(f"{name} {kind}" for name, kind, _ in RUN_COLUMNS)
            with self.conn:
                self.conn.execute(f"CREATE TABLE IF NOT EXISTS games ({columns})")
                self.conn.execute(
                    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
                self.conn.execute(f"CREATE TABLE IF NOT EXISTS runs ({runs})")
            found = [row[1] for row in self.conn.execute("PRAGMA table_info(games)")]
            found += self._extend(found)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: not a results database ({exc})") from exc
        if tuple(found) != NAMES:
            raise StoreError(f"{path}: results of another platform version (columns {found})")

    def _extend(self, found: list[str]) -> list[str]:
        """Add the columns a results file of an older version lacks (`results.ADDED`, which
        come last), so that its games stay usable; returns the names added."""
        missing = NAMES[len(found):]
        if tuple(found) != NAMES[:len(found)] or not set(missing) <= set(ADDED):
            return []
        kinds = dict(COLUMNS)
        with self.conn:
            for name in missing:
                self.conn.execute(f"ALTER TABLE games ADD COLUMN {name} {kinds[name]} "
                                  f"DEFAULT {ADDED[name]}")
        return list(missing)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def put(self, row: GameRow) -> None:
        """Record one game (replacing an older result of the same game) in one transaction,
        counted in the same transaction by the run its `run_id` names."""
        if row["outcome"] not in OUTCOMES:
            raise StoreError(f"refusing to store game {row['game_id']!r} with the unknown "
                             f"outcome {row['outcome']!r}")
        values = [row[name] for name in NAMES]  # type: ignore[literal-required]
        marks = ", ".join("?" for _ in NAMES)
        with self.conn:
            self.conn.execute(f"INSERT OR REPLACE INTO games VALUES ({marks})", values)
            if row["run_id"] is not None:
                self.conn.execute("UPDATE runs SET games = games + 1 WHERE run_id = ?",
                                  (row["run_id"],))

    def open_run(self, version: str, seed: int | None = None) -> int:
        """Record a run starting now (`tournament.runs`); its number. With the config's
        master `seed`, also the first run that played it (`seed_first_run`), if none did."""
        started = utc_now()
        with self.conn:
            cursor = self.conn.execute("INSERT INTO runs (started_at, version) VALUES (?, ?)",
                                       (started, version))
            assert cursor.lastrowid is not None
            if seed is not None:
                # The store's first record of a seed: its earlier runs (from before seeds
                # were recorded) may have played this one, so the first of them counts.
                first = self.seed_first_run(seed) or (cursor.lastrowid, started)
                self.conn.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)",
                                  (seed_key(seed), f"{first[0]} {first[1]}"))
                self.conn.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)",
                                  (SEEDS_RECORDED_FROM, str(cursor.lastrowid)))
        return cursor.lastrowid

    def seed_first_run(self, seed: int) -> tuple[int, str] | None:
        """The first run that played master seed `seed` and when it started, or None when
        no run did. For the runs before seeds were recorded (a store from before this rule),
        the games they stored answer: if one was played on this master seed (its seed is the
        one `seed` gives its cell and index), the store's first run."""
        value = self.meta(seed_key(seed))
        if value is not None:
            run, _, started = value.partition(" ")
            return int(run), started
        since = self.meta(SEEDS_RECORDED_FROM)
        games = self.conn.execute(
            "SELECT cell, game_index, seed FROM games" if since is None else
            "SELECT cell, game_index, seed FROM games WHERE run_id IS NULL OR run_id < ?",
            () if since is None else (int(since),))
        for cell, index, played in games:
            if seed_of(seed, str(cell), int(index)) == played:
                first = self.conn.execute(
                    "SELECT run_id, started_at FROM runs ORDER BY run_id LIMIT 1").fetchone()
                return None if first is None else (int(first[0]), str(first[1]))
        return None

    def close_run(self, run_id: int, ended: str) -> None:
        """Record how and when run `run_id` ended (one of `tournament.runs.ENDINGS`)."""
        if ended not in ENDINGS:
            raise StoreError(f"refusing to end run {run_id} as {ended!r}")
        with self.conn:
            self.conn.execute("UPDATE runs SET finished_at = ?, ended = ? WHERE run_id = ?",
                              (utc_now(), ended, run_id))

    def forget_idle_run(self, run_id: int) -> bool:
        """Remove run `run_id`'s record if it stored no game (a command refused or stopped
        before playing: nothing happened that the runs table should list); whether it did."""
        with self.conn:
            cursor = self.conn.execute("DELETE FROM runs WHERE run_id = ? AND games = 0",
                                       (run_id,))
            if cursor.rowcount > 0:  # nor did it play a seed first
                self.conn.execute("DELETE FROM meta WHERE key GLOB ? AND value GLOB ?",
                                  (seed_key("*"), f"{run_id} *"))
        return cursor.rowcount > 0

    def runs(self, last: int | None = None) -> list[RunRecord]:
        """The recorded runs, oldest first (only the `last` few when given)."""
        names = ", ".join(name for name, _, _ in RUN_COLUMNS)
        rows = self.conn.execute(f"SELECT {names} FROM runs ORDER BY run_id DESC"
                                 + ("" if last is None else " LIMIT ?"),
                                 () if last is None else (last,)).fetchall()
        return [RunRecord(*row) for row in reversed(rows)]

    def is_empty(self) -> bool:
        """Whether no game is stored."""
        return self.conn.execute("SELECT 1 FROM games LIMIT 1").fetchone() is None

    def meta(self, key: str) -> str | None:
        """A fact about the whole results folder (the secret's fingerprint), or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def hashes(self) -> dict[str, StoredGame]:
        """game_id -> its submissions' hashes, outcome, seed and platform, for every stored
        game."""
        rows = self.conn.execute("SELECT game_id, submission_hash, ghost_hash, outcome, seed, "
                                 "version FROM games")
        return {row[0]: StoredGame(*row[1:]) for row in rows}

    def platforms(self) -> dict[str, int]:
        """How many stored games each platform (`pacman.identity`) played."""
        rows = self.conn.execute("SELECT version, COUNT(*) FROM games GROUP BY version")
        return {str(version): int(count) for version, count in rows}

    def frame(self, game_ids: Iterable[str] | None = None) -> Any:
        """The results as a DataFrame (only `game_ids` when given), sorted by game id."""
        frame = pd.read_sql_query("SELECT * FROM games ORDER BY game_id", self.conn)
        if game_ids is not None:
            frame = frame[frame["game_id"].isin(set(game_ids))]
        frame["win"] = frame["win"].astype(bool)
        return frame.reset_index(drop=True)
