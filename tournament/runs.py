"""Run records: which `tournament run` stored each game, and how each run ended.

A course runs its tournament again and again (nightly, after each deadline), and each run
plays only what changed: the stale games of teams whose files changed, what is missing, what
the platform failed. So the games that count at any moment come from several runs, and
"were my new files played?" is answered by the run a team's games come from. Each
`tournament run` opens a record in the store (`runs`: its number, when it started and
ended, the platform version, how it ended, how many games it stored) and the organizer
stamps its number on every row it stores (`GameRow.run_id`, by `tournament.outputs.Keeper`,
never by a worker). A run killed outright (SIGKILL, power loss) keeps its record with no end:
`finished_at` and `ended` stay NULL, and its games count is exact, since each game's row and
its count are one transaction.

This module is the one home of the record's columns, their meaning (`RUN_COLUMNS`, rendered
into docs/results-schema.md) and of how a command's end is named (`ending_of`); the store
reads and writes the table.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

#: How a run ended: it played what it set out to (`finished`), Ctrl-C stopped it
#: (`stopped`), or something else did: a platform or configuration error, a lost cluster
#: (`failed`). A run without an ending was killed, or is still running.
FINISHED = "finished"
STOPPED = "stopped"
FAILED = "failed"
ENDINGS = (FINISHED, STOPPED, FAILED)

#: The exit status of a command stopped with Ctrl-C (128 + SIGINT), as shells report it.
STOPPED_STATUS = 130

#: The `runs` table: (column, SQL type, meaning), in table order.
RUN_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run_id", "INTEGER PRIMARY KEY AUTOINCREMENT",
     "The run's number: 1 for a results folder's first `tournament run`, then 2, 3, ... "
     "(never reused). The games a run stored carry it as their `run_id`."),
    ("started_at", "TEXT NOT NULL",
     "When the run started, UTC, ISO 8601 to the second."),
    ("finished_at", "TEXT",
     "When it ended, in the same form; NULL while it runs, or when it was killed before it "
     "could say (SIGKILL, a lost machine)."),
    ("version", "TEXT NOT NULL",
     "The platform (`pacman.identity.platform_id`) of the organizer's process."),
    ("ended", "TEXT",
     f"How it ended: `{FINISHED}` (it played every game it set out to, possibly none), "
     f"`{STOPPED}` (Ctrl-C) or `{FAILED}` (an error stopped it: the sandbox check, the "
     "secret, a lost cluster, ...); NULL as `finished_at`. A command stopped or refused "
     "before it stored a game leaves no record: it was no run."),
    ("games", "INTEGER NOT NULL DEFAULT 0",
     "Games it stored, counted in each game's own transaction, so exact even for a run "
     "that was killed. A game stored again by a later run is counted by both."),
)


@dataclass(frozen=True)
class RunRecord:
    """One `tournament run` as the store keeps it (the columns of `RUN_COLUMNS`)."""

    run_id: int
    started_at: str
    finished_at: str | None
    version: str
    ended: str | None
    games: int

    @property
    def how(self) -> str:
        """How it ended, in words: its `ended`, or `did not finish` (killed, or running)."""
        return self.ended or "did not finish"


def utc_now() -> str:
    """Now, UTC, ISO 8601 to the second (`2025-03-01T09:12:44+00:00`): the form of every time
    the store keeps (a game's `finished_at`, a run's start and end)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def interrupted(exc: BaseException) -> bool:
    """Whether `exc` is Ctrl-C (or SIGTERM, raised as it), or an error it caused on its way
    out: Python wraps an exception raised while a class is being made (a dataclass's fields,
    say, in a module imported when the signal came) in a RuntimeError, so a command stopped
    during an import left with a traceback and status 1 rather than as stopped (seen under a
    CPU hog, SIGTERM during the tuner's import of the sandbox check)."""
    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen and len(seen) < 20:
        if isinstance(found, KeyboardInterrupt):
            return True
        seen.add(id(found))
        found = found.__cause__ or (None if found.__suppress_context__ else found.__context__)
    return False


def ending_of(exc: BaseException | None) -> str:
    """How a run that left with `exc` (None: it returned) ended: Ctrl-C, or the command's
    own exit with the Ctrl-C status, is `stopped`; a clean exit (status 0) `finished`;
    anything else `failed`."""
    if exc is None:
        return FINISHED
    if interrupted(exc):
        return STOPPED
    if isinstance(exc, SystemExit):
        if exc.code in (0, None):
            return FINISHED
        return STOPPED if exc.code == STOPPED_STATUS else FAILED
    return FAILED


def short_time(text: str | None) -> str:
    """A stored time for people: `2025-03-01 09:12 UTC`; text that is no such time is shown
    as it is, '' for None."""
    if not text:
        return ""
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return text
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def describe(run: RunRecord) -> str:
    """One run in a line, for the organizer (`tournament status`):
    `run 3: 2025-03-02 02:00 UTC to 02:05 UTC, finished, 24 games`."""
    start, end = short_time(run.started_at), short_time(run.finished_at)
    if end[:10] == start[:10]:
        end = end[11:]  # the same day: its time alone
    until = f" to {end}" if end else ""
    games = "1 game" if run.games == 1 else f"{run.games} games"
    return f"run {run.run_id}: {start}{until}, {run.how}, {games}"
