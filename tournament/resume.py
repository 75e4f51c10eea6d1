"""What a run still has to play: the schedule split by what the store holds.

A game is done when the store has it, played with the entrant's current submission and not
failed by the platform; it is missing, stale (played with another submission) or an infra
error (the platform failed it) otherwise, and then the next run plays it. `plan` and
`outdated` (who has games stored for an earlier submission, which no table counts) are pure;
`store_plan`, `store_outdated` and `current_results` read the store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pacman.identity import platform_id
from pacman.outcomes import GHOSTS, INFRA_ERROR, PACMAN
from tournament.config import TournamentConfig
from tournament.schedule import ScheduledGame, schedule
from tournament.store import Store, StoredGame

#: The lists of a `Plan`, in the order people read them.
PLAN_LISTS = ("done", "missing", "stale", "infra")


@dataclass(frozen=True)
class Plan:
    """The schedule, each game in exactly one list."""

    done: list[ScheduledGame] = field(default_factory=list)
    missing: list[ScheduledGame] = field(default_factory=list)
    stale: list[ScheduledGame] = field(default_factory=list)
    infra: list[ScheduledGame] = field(default_factory=list)
    #: Of the stale games, how many each other platform played (`pacman.identity`): the
    #: platform was updated since, so they are played again.
    other_platforms: dict[str, int] = field(default_factory=dict)

    @property
    def todo(self) -> list[ScheduledGame]:
        """What a run plays: missing, then stale, then the platform's failures."""
        return self.missing + self.stale + self.infra

    @property
    def total(self) -> int:
        return len(self.done) + len(self.todo)

    def counts(self) -> dict[tuple[str, str], dict[str, int]]:
        """(entrant, side) -> how many of its games are in each list, in one pass over the
        schedule (a match game counts for both of its entrants)."""
        kinds = PLAN_LISTS
        out: dict[tuple[str, str], dict[str, int]] = {}
        for kind in kinds:
            for game in getattr(self, kind):
                keys = [(game.entrant, PACMAN)]
                if game.ghost_entrant:
                    keys.append((game.ghost_entrant, GHOSTS))
                for key in keys:
                    out.setdefault(key, dict.fromkeys(kinds, 0))[kind] += 1
        return out

    @property
    def current(self) -> list[ScheduledGame]:
        """The stored games of the current submissions (infra errors included, counted as
        such by the statistics)."""
        return self.done + self.infra


@dataclass(frozen=True)
class Hashes:
    """Each entrant's submission hash now (`tournament.runner.submission_hash`), per side: a
    Pacman and a ghost entrant may share a name (a team on both sides), not a hash table."""

    pacman: dict[str, str]
    ghosts: dict[str, str]

    def of(self, game: ScheduledGame) -> tuple[str, str]:
        """What a stored row of `game` must hold to be current: (Pacman's, ghosts' or '')."""
        return (self.pacman[game.entrant],
                self.ghosts[game.ghost_entrant] if game.ghost_entrant else "")


def entrant_hashes(config: TournamentConfig) -> Hashes:
    """Every entrant's submission hash now, both sides."""
    from tournament.runner import submission_hash

    return Hashes({e.name: submission_hash(e) for e in config.entrants},
                  {e.name: submission_hash(e) for e in config.ghost_entrants})


def plan(games: list[ScheduledGame], stored: Mapping[str, StoredGame],
         hashes: Hashes, platform: str | None = None) -> Plan:
    """Split `games` by `stored` (`Store.hashes`) against the entrants' current `hashes`: a
    game is stale when it was played with another submission (either side's, for a match
    game), another seed (the config's seed changed: same game id, another game) or by
    another platform than `platform` (this process's, `pacman.identity`, when None: the
    code that played it has changed since, and a run with today's code would not have
    played that game)."""
    platform = platform if platform is not None else platform_id()
    split = Plan()
    for game in games:
        found = stored.get(game.game_id)
        if found is None:
            split.missing.append(game)
        elif found.version != platform:
            split.stale.append(game)
            split.other_platforms[found.version] = split.other_platforms.get(
                found.version, 0) + 1
        elif ((found.submission_hash, found.ghost_hash) != hashes.of(game)
              or found.seed != game.seed):
            split.stale.append(game)
        elif found.outcome == INFRA_ERROR:
            split.infra.append(game)
        else:
            split.done.append(game)
    return split


def store_plan(config: TournamentConfig, store: Store, hashes: Hashes | None = None) -> Plan:
    """The plan of `config`'s schedule against what `store` holds now."""
    return plan(schedule(config), store.hashes(),
                hashes if hashes is not None else entrant_hashes(config))


@dataclass(frozen=True)
class Outdated:
    """An entrant of one side with games stored for an earlier version of its submission
    (its team's files, or a baseline's options and the platform's version). Those games are
    stale: no table counts them, so an entrant with no current game shows nowhere, and a
    run that ends with such games played a team whose files changed while it played."""

    entrant: str
    side: str
    #: Its games stored for an earlier submission of its own (a match game counts for the
    #: side whose submission changed, not for its opponent).
    games: int
    #: Its games stored for its current submission (done or infra errors).
    current: int


def outdated(split: Plan, stored: Mapping[str, StoredGame],
             hashes: Hashes) -> list[Outdated]:
    """Each (entrant, side) with stale games because its own submission changed, in the
    order of the schedule; `stored` and `hashes` are those `split` was planned with."""
    games: dict[tuple[str, str], int] = {}
    for game in split.stale:
        pacman, ghosts = stored[game.game_id][:2]
        now = hashes.of(game)
        if pacman != now[0]:
            games[game.entrant, PACMAN] = games.get((game.entrant, PACMAN), 0) + 1
        if game.ghost_entrant and ghosts != now[1]:
            key = (game.ghost_entrant, GHOSTS)
            games[key] = games.get(key, 0) + 1
    counts = split.counts()
    return [Outdated(name, side, n, counts[name, side]["done"] + counts[name, side]["infra"])
            for (name, side), n in games.items()]


def platforms_words(others: Mapping[str, int]) -> str | None:
    """Stored games of other platforms (platform -> how many, as `Plan.other_platforms`), in
    words for a line of output; None when there are none."""
    if not others:
        return None
    games = sum(others.values())
    return (f"{games} stored game{'s' if games != 1 else ''} {'were' if games != 1 else 'was'} "
            f"played by another version of the platform "
            f"({', '.join(sorted(others))}) than this one ({platform_id()})")


def store_outdated(config: TournamentConfig, store: Store) -> list[Outdated]:
    """`outdated` of `config`'s schedule against what `store` holds and the submissions as
    they are now."""
    stored = store.hashes()
    hashes = entrant_hashes(config)
    return outdated(plan(schedule(config), stored, hashes), stored, hashes)


def current_results(config: TournamentConfig, store: Store, split: Plan | None = None) -> Any:
    """Stored rows of the games the config schedules now, with the current submissions
    (`split`: the store's plan, when the caller has it already)."""
    split = split if split is not None else store_plan(config, store)
    return store.frame(g.game_id for g in split.current)


#: The store's fact (`Store.meta`) holding what its games were played with, beyond what each
#: game's row records (`game_settings`).
SETTINGS_META = "game-settings"
#: The store's fact naming the tuning whose games it holds; absent or empty: a tournament's.
TUNING_META = "tuning"


class SettingsChanged(ValueError):
    """The config would play a stored folder's games under other settings; names each."""


#: A built-in grid ghost's value in the settings record (a file's is its digest).
BUILT_IN = "built-in"


def game_settings(config: TournamentConfig) -> dict[str, str]:
    """What decides a game besides its cell's name, its entrants' submissions and its seed,
    which a stored row does not record: the move limit, the limits on agents, each layout's
    text and each grid ghost's code (a file's digest). Changed under a stored game, the game
    would be counted as done though the config now plays another."""
    import dataclasses
    import hashlib

    from pacman.layout import load_layout

    def digest(text: str | bytes) -> str:
        data = text.encode() if isinstance(text, str) else text
        # 16 digits, as stored by earlier versions: the organizer's own files (layouts, grid
        # ghosts), which no team chooses (a team's files are keyed by `HASH_DIGITS`).
        return hashlib.sha256(data).hexdigest()[:16]

    grid = config.grid
    base = config.source.parent if config.source is not None else Path.cwd()
    out = {"max_moves": str(grid.max_moves)}
    for item in dataclasses.fields(config.limits):
        out[f"limits.{item.name}"] = repr(getattr(config.limits, item.name))
    for choice in grid.layouts:
        try:
            out[f"layout {choice.name}"] = digest(load_layout(choice.path).text)
        except Exception:  # unreadable now: the run reports it where it loads the layout
            continue
    ghosts: dict[str, list[str]] = {}
    for ghost in grid.ghosts:
        # Keyed as the cells are (`schedule.Cell.key` names the class only): the same class
        # name from another file, or a file's class named as a built-in, is a change.
        where, colon, _ = ghost.agent.rpartition(":")
        if not (colon and where.endswith(".py")):
            ghosts.setdefault(f"ghost {ghost.name}", []).append(BUILT_IN)
            continue
        try:
            ghosts.setdefault(f"ghost {ghost.name}", []).append(
                digest((base / where).read_bytes()))
        except OSError:
            continue
    for key, found in ghosts.items():
        # Settings of one class name from several files (other counts: other cells) share
        # the key, so it holds them all: an edit of any one is a change.
        out[key] = found[0] if len(found) == 1 else digest("\0".join(found).encode())
    return out


def upgraded_settings(stored: Mapping[str, str]) -> dict[str, str]:
    """A settings record as today's `game_settings` keys it (pure): records written before
    grid ghosts were keyed by class name held a file ghost as `ghost /path/ghosts.py:Class`,
    which would match no key of today's and let another file's class of that name through.
    (They held no key for a built-in ghost: that change cannot be seen in such a record.)"""
    out: dict[str, str] = {}
    for key, value in stored.items():
        if key.startswith("ghost ") and ":" in key:
            out.setdefault(f"ghost {key.rpartition(':')[2]}", value)
        else:
            out[key] = value
    return out


def changed_settings(stored: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The settings whose value differs between the stored games and the config (pure): a
    setting only one side knows (a layout added to the grid) is no change."""
    return [key for key in now if key in stored and stored[key] != now[key]]


def settings_problem(
    config: TournamentConfig, store: Store, where: str, under: str = ""
) -> tuple[str | None, dict[str, str]]:
    """Why the config's games cannot join the stored ones (their settings differ, naming
    each; or the record of them is damaged), None when they can; and the record as it should
    be after this config's games. Only reads: `status` and the reports say it, `run` and
    `tune` refuse (`check_settings`). `under` is where the file that was read keeps the move
    limit and the limits (a tune file's `protocol.`), so that the message names its keys."""
    now = game_settings(config)
    text = store.meta(SETTINGS_META)
    try:
        stored = json.loads(text) if text else {}
    except ValueError:
        stored = None
    if not isinstance(stored, dict):
        return (f"{where}: its record of the settings its games were played with "
                f"({SETTINGS_META!r}) is damaged; play into another output folder"), now
    stored = upgraded_settings(stored)
    changed = changed_settings(stored, now)
    if changed and not store.is_empty():
        def shown(key: str) -> str:
            if BUILT_IN in (stored[key], now[key]):
                return (f"{key} (the built-in, now a file's)" if stored[key] == BUILT_IN
                        else f"{key} (a file's, now the built-in)")
            if key.startswith(("layout ", "ghost ")):
                return f"{key} (its file changed)"
            return f"{under}{key} ({stored[key]}, now {now[key]})"

        return (f"{where}: its stored games were played with other settings: "
                + ", ".join(shown(k) for k in changed)
                + "; they would be mixed with games of the new ones (put the settings back, "
                "or play into another output folder)"), now
    return None, {**stored, **now}


def check_settings(config: TournamentConfig, store: Store, where: str, under: str = "") -> None:
    """Refuse to mix games of other settings into a results folder (`SettingsChanged`,
    naming each setting, its key `under` a prefix as in `settings_problem`), as
    `tournament.secret.checked_secret` refuses another secret; then record the config's
    settings, so that the next run is checked against them."""
    problem, record = settings_problem(config, store, where, under)
    if problem is not None:
        raise SettingsChanged(problem)
    store.set_meta(SETTINGS_META, json.dumps(record, sort_keys=True))


def check_owner(store: Store, tuning: str | None, where: str) -> None:
    """Refuse (`SettingsChanged`) a results folder whose games belong to another kind of run:
    a tournament's to a tuning (`tuning` its name), a tuning's to a tournament (`tuning`
    None) or to another tuning. Candidates are named alike in every tuning (`start`,
    `g0000-c00`), and a tournament's entrants may be too, so either would mark the other's
    games stale and replace them. Then mark the folder as this run's, before anything else
    is recorded in it."""
    held = store.meta(TUNING_META) or None
    if held != tuning and not store.is_empty():
        if held is None:
            why = f"holds a tournament's games; tuning {tuning!r} would replace them"
        elif tuning is None:
            why = (f"holds the games of tuning {held!r}; a tournament's games would be "
                   "mixed with them and replace them")
        else:
            why = f"holds the games of tuning {held!r}; tuning {tuning!r} would replace them"
        raise SettingsChanged(f"{where}: {why} (give it another output, or remove that store)")
    if held != tuning:
        store.set_meta(TUNING_META, tuning or "")
