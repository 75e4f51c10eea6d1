"""Replays re-created for stored games that kept none: played again, kept only when the game
ends as stored.

A game is reproducible from its stored seed and submission (the results hold only games of
the current submissions), but timing is not: a game that ended by a time limit may end
differently, and its replay would then show another game. So the new game's outcome,
culprit, score and moves are compared with the stored ones and the replay is kept only when
they agree, under a name that carries the submission hash and seed
(`tournament.browse.recreated_replay`). The caller checks the sandbox and the secret first:
teams' code plays again here, under the same confinement as `tournament run` or not at all.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pacman.files import write_atomic
from pacman.outcomes import INFRA_ERROR
from tournament.browse import recreated_replay
from tournament.config import TournamentConfig
from tournament.resume import Hashes
from tournament.schedule import ScheduledGame

#: The stored values a re-played game must repeat for its replay to be kept.
DECIDING = ("outcome", "culprit", "score", "moves")


@dataclass(frozen=True)
class Recreated:
    """What became of one game: its replay's path when kept, else why not."""

    game_id: str
    path: Path | None
    why: str = ""


def recreate(config: TournamentConfig, rows: list[dict[str, Any]],
             scheduled: Mapping[str, ScheduledGame], hashes: Hashes,
             scratch: str, layers: tuple[str, ...]) -> Iterator[Recreated]:
    """Play each of `rows` (stored games without a replay) again, one at a time, in this
    process, yielding what became of each as it is done (the caller shows progress).
    `layers` are what `check_sandbox` found: each game's sandbox must come up with them, as
    in `tournament run`, or the game is refused before the team's code runs."""
    from tournament.bundles import TeamCache
    from tournament.runner import Snapshots, iter_tasks, play_task

    snapshots = Snapshots.take(config, TeamCache(Path(scratch) / "teams"))
    for row in rows:
        name = str(row["game_id"])
        game = scheduled.get(name)
        if row["outcome"] == INFRA_ERROR:
            yield Recreated(name, None, "the platform failed to play it (`tournament run` "
                                        "plays it again)")
            continue
        if (game is None or game.seed != int(row["seed"])
                or hashes.of(game) != (row["submission_hash"], row.get("ghost_hash") or "")):
            yield Recreated(name, None, "the config or submission changed since it was played")
            continue
        [task] = iter_tasks(config, [game], hashes.pacman, None, layers, hashes.ghosts,
                            snapshots)
        task = replace(task, replays="all")
        played = play_task(task, snapshots.cache)
        new = played.row
        differences = [f"{key} {_plain(row[key])} stored, {_plain(new[key])} now"  # type: ignore[literal-required]
                       for key in DECIDING
                       if _plain(row[key]) != _plain(new[key])]  # type: ignore[literal-required]
        if played.replay is None or differences:
            why = "; ".join(differences) or f"no replay ({new['outcome']}: {new['message']})"
            yield Recreated(name, None, f"the game did not end as stored: {why}")
            continue
        target = recreated_replay(config.output, row)
        write_atomic(target, played.replay)
        yield Recreated(name, target)


def _plain(value: Any) -> object:
    """A results value comparable with a fresh row's: missing is None, numbers are ints."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool | str):
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        return str(value)
