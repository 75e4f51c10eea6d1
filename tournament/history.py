"""What changed when, per team: its files (from the collected submissions' manifest) and the
runs its current games come from (from the store).

A student who pushed a fix wants to know whether the report already shows it: when their
files last changed, when they submitted (late or not), the commit collected from their
repository, and which run played the games shown. The manifest (`tournament.manifest`,
written by `tournament collect`) knows the first three; the stored rows' `run_id` and the
`runs` table (`tournament.runs`) the last. Usually a team's current games all come from one
run: the one after its last change.

Pure: from the results table, the run records and the manifest (None when the submissions
were not collected by `tournament collect`) to plain values; the report redacts and shows
them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pacman.outcomes import GHOSTS, PACMAN
from tournament.manifest import Manifest, TeamRecord
from tournament.runs import RunRecord


@dataclass(frozen=True)
class TeamRun:
    """A run some of a team's current games come from: its number (None for games stored
    before runs were recorded), its record (None as well when the store has none of that
    number) and how many of the team's current games it stored."""

    run_id: int | None
    record: RunRecord | None
    games: int


@dataclass(frozen=True)
class TeamHistory:
    """When a team's files changed and which runs played its current games."""

    entrant: str
    #: Its current submission hash per side it plays (`submission_hash`, `ghost_hash`).
    submissions: tuple[tuple[str, str], ...]
    #: Newest run first; games stored before run records come last.
    runs: tuple[TeamRun, ...]
    #: Its folder's record in the manifest, when there is a manifest that lists it.
    collected: TeamRecord | None = None

    @property
    def latest(self) -> TeamRun | None:
        """The newest run its games come from (None when it has no game yet)."""
        return self.runs[0] if self.runs else None


def team_histories(results: Any, entrants: Iterable[str], runs: Sequence[RunRecord],
                   manifest: Manifest | None = None,
                   folders: Mapping[str, str] | None = None) -> dict[str, TeamHistory]:
    """Each of `entrants`' history from `results` (the current games: a DataFrame with
    `entrant`, `submission_hash` and, where present, `ghost_entrant`, `ghost_hash`, `run_id`),
    the store's `runs`, and the `manifest`, whose records are found by folder name
    (`folders`: entrant -> its team folder's name; a baseline has none)."""
    known = {run.run_id: run for run in runs}
    columns = set(results.columns)
    out: dict[str, TeamHistory] = {}
    for name in entrants:
        counts: dict[int | None, int] = {}
        submissions: list[tuple[str, str]] = []
        for side, column, hash_column in ((PACMAN, "entrant", "submission_hash"),
                                          (GHOSTS, "ghost_entrant", "ghost_hash")):
            if column not in columns:
                continue
            mine = results[results[column] == name]
            if not len(mine):
                continue
            if hash_column in columns:
                for digest in dict.fromkeys(str(h) for h in mine[hash_column]):
                    submissions.append((side, digest))
            ids = mine["run_id"] if "run_id" in columns else [None] * len(mine)
            for run_id in ids:
                key = _run_id(run_id)
                counts[key] = counts.get(key, 0) + 1
        order = sorted(counts, key=lambda r: (r is None, -(r or 0)))
        team_runs = tuple(TeamRun(r, known.get(r) if r is not None else None, counts[r])
                          for r in order)
        folder = (folders or {}).get(name)
        record = manifest.team(folder) if manifest is not None and folder else None
        out[name] = TeamHistory(name, tuple(submissions), team_runs, record)
    return out


def _run_id(value: Any) -> int | None:
    """A stored `run_id` (an int, or NULL as None or NaN in a DataFrame) as an int or None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return int(value)


