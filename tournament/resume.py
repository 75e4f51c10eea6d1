"""What a run still has to play: the schedule split by what the store holds.

A game is done when the store has it, played with the entrant's current submission and not
failed by the platform; it is missing, stale (played with another submission) or an infra
error (the platform failed it) otherwise, and then the next run plays it. `plan` is pure;
`current_results` reads the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pacman.outcomes import INFRA_ERROR
from tournament.config import TournamentConfig
from tournament.schedule import ScheduledGame, schedule
from tournament.store import Store


@dataclass(frozen=True)
class Plan:
    """The schedule, each game in exactly one list."""

    done: list[ScheduledGame] = field(default_factory=list)
    missing: list[ScheduledGame] = field(default_factory=list)
    stale: list[ScheduledGame] = field(default_factory=list)
    infra: list[ScheduledGame] = field(default_factory=list)

    @property
    def todo(self) -> list[ScheduledGame]:
        """What a run plays: missing, then stale, then the platform's failures."""
        return self.missing + self.stale + self.infra

    @property
    def total(self) -> int:
        return len(self.done) + len(self.todo)

    @property
    def current(self) -> list[ScheduledGame]:
        """The stored games of the current submissions (infra errors included, counted as
        such by the statistics)."""
        return self.done + self.infra


def entrant_hashes(config: TournamentConfig) -> dict[str, str]:
    """Each entrant's submission hash now (`tournament.runner.submission_hash`)."""
    from tournament.runner import submission_hash

    return {e.name: submission_hash(e) for e in config.entrants}


def plan(games: list[ScheduledGame], stored: Mapping[str, tuple[str, str]],
         hashes: Mapping[str, str]) -> Plan:
    """Split `games` by `stored` (game id -> (submission hash, outcome), `Store.hashes`)
    against the entrants' current `hashes`."""
    split = Plan()
    for game in games:
        found = stored.get(game.game_id)
        if found is None:
            split.missing.append(game)
        elif found[0] != hashes[game.entrant]:
            split.stale.append(game)
        elif found[1] == INFRA_ERROR:
            split.infra.append(game)
        else:
            split.done.append(game)
    return split


def store_plan(config: TournamentConfig, store: Store,
               hashes: Mapping[str, str] | None = None) -> Plan:
    """The plan of `config`'s schedule against what `store` holds now."""
    return plan(schedule(config), store.hashes(),
                hashes if hashes is not None else entrant_hashes(config))


def current_results(config: TournamentConfig, store: Store) -> Any:
    """Stored rows of the games the config schedules now, with the current submissions."""
    return store.frame(g.game_id for g in store_plan(config, store).current)
