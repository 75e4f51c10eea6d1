"""One scheduled game, played through the engine's runner and turned into a results row.

A `GameTask` carries everything a worker needs as plain, picklable data (names, strings, the
layout's text, the ids of the team snapshots it plays: `tournament.bundles`), and no
path of the organizer's, so the same task runs in a local process pool or on a Dask worker
on another machine. A worker writes nothing of the organizer's: `play_task` returns a
`GameOutput` (the row, the replay as text, the agents' logs) that the organizer checks and
keeps (`tournament.outputs`). `play_task` never raises for anything a game can do: agent
failures are outcomes (the sandbox sees to that), and anything else that goes wrong is the
platform's own failure, recorded as `infra_error` and never scored.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import socket
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pacman import __version__
from pacman import replay as replays
from pacman.describe import clean
from pacman.game import MESSAGE_LIMIT, GameResult, GameSpec, play
from pacman.identity import platform_id
from pacman.layout import Layout, load_layout, parse_layout
from pacman.limits import Limits
from pacman.loader import CODE_OPTIONS, AgentRef, FolderAgent, SubmissionError, resolve
from pacman.outcomes import FAILURES, GHOSTS, INFRA_ERROR, PACMAN
from pacman.rules import DEATH_PENALTY, TIME_PENALTY
from pacman.sandbox import guarantees
from pacman.sandbox.process import Placement
from pacman.teamfolder import TeamFolderError, team_digest
from tournament.bundles import TeamCache, default_cache, snapshot_digest
from tournament.config import Entrant, TournamentConfig
from tournament.optionfiles import (
    WEIGHTS_OPTION,
    function_file,
    inline_weights,
    named_files,
    options_digest,
)
from tournament.results import GameRow
from tournament.runs import utc_now
from tournament.schedule import MatchCell, ScheduledGame, agent_args
from tournament.secret import game_key, game_secret

#: Hex digits a submission's hash keeps (`submission_hash`, and `files_hash`): 128 bits. A
#: team chooses its files' bytes, and two submissions whose hashes agree are one to a run
#: (the second never plays, and is credited with the first's games); at 64 bits a birthday
#: search finds such a pair in hours of one core (the twenty-second hostile review).
HASH_DIGITS = 32


def submission_hash(
    entrant: Entrant, snapshot: Snapshot | None = None, snapshots: Snapshots | None = None
) -> str:
    """What decides whether stored results of an entrant are still valid.

    A team: every file of its folder, names and bytes (`pacman.teamfolder.team_digest`; the
    run's `snapshot` of it when given), and the class and options the config has it play
    when its folder has no `team.yaml` (`Entrant.folder_agent`: changing `entrants.agent`
    plays such teams again, and no other); or, when the folder holds what a team may not (a
    symbolic link, a fifo...), the refusal itself, so that fixing the folder makes its failed
    games stale. A baseline: its reference and options plus the platform version (a new
    release may change a built-in), and the bytes of its own file or folder and of every
    file its options name (`tournament.optionfiles`), as the run's `snapshots` hold them when
    given (the same digest as of the files themselves, taken once: what is hashed is what
    plays).
    """
    if entrant.folder is not None:
        if snapshot is None:
            try:
                snapshot = Snapshot(team_digest(entrant.folder))
            except TeamFolderError as exc:
                snapshot = Snapshot(problem=str(exc))
        if snapshot.id:
            files = snapshot_digest(snapshot.id)
            chosen = entrant.folder_agent
            if chosen is None:
                return files[:HASH_DIGITS]  # the files' digest alone
            played = f"{files}|{chosen.name}|{chosen.args}".encode()
            return hashlib.sha256(played).hexdigest()[:HASH_DIGITS]
        refused = f"refused\0{snapshot.problem}".encode("utf-8", "backslashreplace")
        return hashlib.sha256(refused).hexdigest()[:HASH_DIGITS]
    baseline = f"{entrant.ref}|{entrant.args}|{__version__}"
    if snapshots is None:
        files = _own_files(entrant.ref) + options_digest(entrant.args)
    else:
        files = (_own_files(entrant.ref, snapshots)
                 + options_digest(entrant.args, snapshots.read_bytes))
    if files:  # the bytes of what it plays with (none: the hash it always had)
        baseline += f"|{files}"
    return hashlib.sha256(baseline.encode()).hexdigest()[:HASH_DIGITS]


def plays_files(entrant: Entrant) -> bool:
    """Whether code from files plays for `entrant` (in the sandbox): a team's folder, or a
    baseline's own file or folder, or a file its options name."""
    return (entrant.folder is not None or _own_path(entrant.ref) is not None
            or bool(named_files(entrant.args)))


def plays_sandboxed(config: TournamentConfig) -> bool:
    """Whether any game of `config` plays code in the sandbox, so the sandbox must be checked
    before one plays (`tournament.cli.check_sandbox`): see `sandboxed_sides`."""
    return bool(sandboxed_sides(config))


def sandboxed_sides(config: TournamentConfig) -> frozenset[str]:
    """The sides (`PACMAN`, `GHOSTS`) whose agents play in the sandbox in some game of
    `config`: code from files (`plays_files`, or the grid's ghosts from a file), or a built-in
    that searches on a clock, which plays sandboxed on the sources (`AgentRef.on_a_clock`,
    `iter_tasks`). A reference that no longer resolves counts as sandboxed: checking costs a
    second, playing unchecked costs trust."""
    named: list[tuple[Entrant | None, str, str]] = [
        (e, e.ref, "pacman" if e.side == PACMAN else "ghost") for e in config.all_entrants]
    named += [(None, g.name, "ghost") for g in config.grid.ghosts]
    # Names resolve as the run resolves them (`iter_tasks`): against the config's folder,
    # where a course file may define a class of a built-in's name and play in its place.
    base = config.source.parent if config.source is not None else Path.cwd()
    sides = set()
    for entrant, text, kind in named:
        side = PACMAN if kind == "pacman" else GHOSTS
        if side in sides:
            continue
        if (entrant is not None and plays_files(entrant)) or _own_path(text) is not None:
            sides.add(side)
            continue
        try:
            ref = resolve(text, (), kind=kind, cwd=base)
            if ref.path is not None or ref.on_a_clock():
                sides.add(side)
        except SubmissionError:
            sides.add(side)
    return frozenset(sides)


def memory_workers(workers: int, sandboxes: int, memory_mb: int | None,
                   machine_mib: int) -> tuple[int, str]:
    """How many games may play at once so that every sandbox at its memory limit fits in the
    machine's memory (`machine_mib`, less `MEMORY_RESERVE_MIB` for the platform's own
    processes), and why fewer than `workers` ('' when not). Each game holds `sandboxes`
    sandboxes (a Pacman team's, a ghost side's). Pure. Where they would not fit, the kernel's
    out-of-memory killer picks a process of the machine, not the team over its limit: a team
    within its limit would lose its game as `killed`. 0: not even one game fits."""
    if memory_mb is None or sandboxes == 0:
        return workers, ""
    room = machine_mib - MEMORY_RESERVE_MIB
    fits = max(0, room // (sandboxes * memory_mb))
    if fits >= workers:
        return workers, ""
    held = (f"{sandboxes} sandbox{'es' if sandboxes > 1 else ''} of up to {memory_mb} MiB "
            f"(limits.memory_mb)")
    return fits, (f"a game holds {held} and this machine has {machine_mib} MiB of memory "
                  f"({MEMORY_RESERVE_MIB} MiB of it kept for the platform)")


#: Memory kept for the organizer, its workers and the referees when games are counted in.
MEMORY_RESERVE_MIB = 1024


def _own_path(ref: str) -> Path | None:
    """A baseline's own folder or file (`/abs/folder`, `/abs/file.py:Class`); None for a
    built-in."""
    path = Path(ref)
    if path.is_absolute() and path.is_dir():
        return path
    where, sep, _ = ref.rpartition(":")
    return Path(where) if sep and where.endswith(".py") and Path(where).is_absolute() else None


def _own_files(ref: str, snapshots: Snapshots | None = None) -> str:
    """A digest of a baseline's own folder or file, '' for a built-in: its games are those
    files' games, as a team's are its folder's. From the run's snapshot of them when
    `snapshots` took one, else from the files."""
    path = _own_path(ref)
    if path is None:
        return ""
    if snapshots is not None:
        taken = snapshots.baseline_snapshot(path)
        if taken is not None and taken.id:
            if path.is_dir():
                return snapshot_digest(taken.id)
            return hashlib.sha256(snapshots.read_bytes(path)).hexdigest()
    if path.is_dir():
        try:
            return team_digest(path)
        except TeamFolderError as exc:
            return f"refused\0{exc}"
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        return f"unreadable\0{type(exc).__name__}"


def files_hash(entrant: Entrant, snapshot: Snapshot | None, submission: str) -> str:
    """What a team's sandbox checks its files against (`AgentRef.team_hash`, a prefix of
    their `team_digest`) for the submission hash `submission`: that hash itself, which is
    the files' own, unless the team plays the config's class (`Entrant.folder_agent`), whose
    hash covers the class too; then the snapshot's, if `submission` is the hash of that
    snapshot (else `submission` still, which names no files, so none play)."""
    if entrant.folder_agent is None or snapshot is None or not snapshot.id:
        return submission
    if submission_hash(entrant, snapshot) != submission:
        return submission
    return snapshot_digest(snapshot.id)[:HASH_DIGITS]


@dataclass(frozen=True)
class Snapshot:
    """An entrant's files as this run took them (`tournament.bundles`): the snapshot's id,
    or why its folder could not be taken (then its games are its own `load_error`)."""

    id: str = ""
    problem: str = ""




@dataclass
class Snapshots:
    """The run's snapshots of the entrants' files, in `cache`, by (side, entrant name); taken
    once, before the plan, so that what is hashed, resolved and played is one version."""

    cache: TeamCache
    taken: dict[tuple[str, str], Snapshot] = field(default_factory=dict)
    #: Each snapshot's id -> the folder it was taken from, to name in messages.
    origins: dict[str, str] = field(default_factory=dict)
    #: Every folder and file taken, by kind and absolute path as named (links are not
    #: followed: a team folder that is a link to another is refused, never the other's
    #: snapshot). A baseline's own file or folder and the files its options name are taken
    #: once too, with the teams, and hashed, checked and played from that one copy, however
    #: often the run asks for them.
    by_path: dict[tuple[str, str], Snapshot] = field(default_factory=dict)
    _pattern: re.Pattern[str] | None = None

    @classmethod
    def take(cls, config: TournamentConfig, cache: TeamCache) -> Snapshots:
        snaps = cls(cache)
        for side, entrants in ((PACMAN, config.entrants), (GHOSTS, config.ghost_entrants)):
            for entrant in entrants:
                if entrant.folder is not None:
                    snaps.taken[side, entrant.name] = snaps.of_folder(entrant.folder)
                    continue
                own = _own_path(entrant.ref)
                if own is not None:
                    snaps.baseline_snapshot(own)
                for path in named_files(entrant.args):
                    snaps.of_file(path)
        return snaps

    def of_folder(self, folder: Path) -> Snapshot:
        return self._once("folder", folder, self._of_folder)

    def of_file(self, path: Path) -> Snapshot:
        """A baseline given as one file, or a file its options name: a snapshot of that file
        alone."""
        return self._once("file", path, self._of_file)

    def _once(self, kind: str, path: Path, take: Callable[[Path], Snapshot]) -> Snapshot:
        key = (kind, os.path.abspath(path))
        if key not in self.by_path:
            self.by_path[key] = take(path)
        return self.by_path[key]

    def _of_folder(self, folder: Path) -> Snapshot:
        try:
            snapshot = self.cache.snapshot(folder)
            self._origin(snapshot, os.path.abspath(folder))
            return Snapshot(snapshot)
        except TeamFolderError as exc:
            return Snapshot(problem=str(exc))
        except OSError as exc:  # the cache's side: no room, say
            raise RuntimeError(f"cannot take a snapshot of {folder} into {self.cache.root}: "
                               f"{exc}") from exc

    def _of_file(self, path: Path) -> Snapshot:
        try:
            snapshot = self.cache.snapshot_file(path)
        except TeamFolderError as exc:
            return Snapshot(problem=str(exc))
        self._origin(snapshot, os.path.abspath(path.parent))
        return Snapshot(snapshot)

    def baseline_snapshot(self, path: Path) -> Snapshot:
        """The snapshot of a baseline's own folder or file (taken now if not yet)."""
        return self.of_folder(path) if path.is_dir() else self.of_file(path)

    def file_copy(self, path: Path) -> Path | None:
        """Where the snapshot of the file `path` lies, if the run took one."""
        taken = self.by_path.get(("file", os.path.abspath(path)))
        if taken is None or not taken.id:
            return None
        return self.cache.folder(taken.id) / path.name

    def read_bytes(self, path: Path) -> bytes:
        """The bytes of the file `path` as the run took them, or as it is now if the run took
        no snapshot of it (OSError as `Path.read_bytes` raises it)."""
        return (self.file_copy(path) or path).read_bytes()

    def localize(self, text: str) -> str:
        """`text` with every path into a snapshot (on this machine or a worker's, whatever
        its cache) naming the folder the snapshot was taken from instead: a message reads
        as it did before snapshots, with the team's own folder."""
        if "/" not in text or self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self.origins[m[1]], text)

    def _origin(self, snapshot: str, folder: str) -> None:
        self.origins[snapshot] = folder
        known = "|".join(re.escape(s) for s in sorted(self.origins, key=len, reverse=True))
        # `<any cache>/<digest>/<name>`, the name ending where the path or text does, and
        # the cache's path starting after a space, a quote or an `=` (`features=<path>`).
        self._pattern = re.compile(rf"""[^\s'"=]*/({known})(?=/|[\s'":,;)]|$)""")

    def get(self, side: str, entrant: Entrant) -> Snapshot | None:
        return self.taken.get((side, entrant.name))

    def hashes(self, config: TournamentConfig) -> tuple[dict[str, str], dict[str, str]]:
        """Every entrant's submission hash, Pacman side and ghost side, from the snapshots."""
        return ({e.name: submission_hash(e, self.get(PACMAN, e), self)
                 for e in config.entrants},
                {e.name: submission_hash(e, self.get(GHOSTS, e), self)
                 for e in config.ghost_entrants})


@dataclass(frozen=True)
class GameTask:
    """A game to play, with everything a worker needs as plain, picklable data.

    The agents come resolved (`AgentRef`s), once per run in the organizer's process, so a
    worker never parses a team's source again before each game (a team's file can be made to
    cost seconds and gigabytes to parse, outside any sandbox). An agent from files has paths
    relative to a team cache (`tournament.bundles`): the snapshots named in `bundles`, which
    the executor brings to the worker. A Pacman that cannot be resolved comes as its
    `problem`, which is its own `load_error`.
    """

    game: ScheduledGame
    pacman: AgentRef | None
    problem: str
    ghost: AgentRef
    args: tuple[tuple[str, str], ...]
    submission_hash: str
    layout_name: str
    layout_text: str
    max_moves: int
    limits: Limits
    replays: str
    #: Keys the game's random streams: the tournament's secret and the entrant's submission
    #: (see `tournament.secret`).
    secret: str = ""
    #: The sandbox layers the run's check found (and judged enough): a team's game whose
    #: sandbox gave fewer guarantees is not scored (`infra_error`, played again by the next
    #: run).
    layers: tuple[str, ...] = ()
    #: A match game's ghost entrant (empty: the cell's built-in ghosts), its submission hash,
    #: and why its ghosts cannot be resolved (then the game is the ghost side's load_error).
    ghost_entrant: str = ""
    ghost_hash: str = ""
    ghost_problem: str = ""
    #: The ids of the snapshots the game plays (`tournament.bundles`).
    bundles: tuple[str, ...] = ()

    @functools.cached_property
    def key(self) -> str:
        """What identifies the work, whoever asks for it: a hash of everything that decides
        the game (the cell, seed, agents and their snapshots, layout text, limits, rules, the
        secret key of its random streams), so two tournaments on one cluster never share a
        key unless they ask for the very same game. `tournament.outputs` checks that what
        comes back is the output of this key. Computed once per task (it travels with it)."""
        identity = json.dumps(dataclasses.asdict(self), sort_keys=True, default=str)
        return "pacman-game-" + hashlib.sha256(identity.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class GameOutput:
    """What a worker sends back for a task: the row, and the files only the organizer
    writes (`tournament.outputs`)."""

    #: The `GameTask.key` of the task played.
    key: str
    row: GameRow
    #: The replay (JSON text) when the task's policy keeps it.
    replay: str | None = None
    #: What each side printed: (".log" for Pacman, ".ghosts.log" for a ghost team, text).
    logs: tuple[tuple[str, str], ...] = ()


#: Where each side's log goes, beside the replays (`tournament.outputs`).
LOG_SUFFIXES = (".log", ".ghosts.log")


def tasks_for(config: TournamentConfig, games: list[ScheduledGame],
              hashes: dict[str, str], secret: str | None = None,
              layers: tuple[str, ...] = (),
              ghost_hashes: dict[str, str] | None = None,
              snapshots: Snapshots | None = None,
              stream: str | None = None) -> list[GameTask]:
    """`iter_tasks` as a list, for tests and benchmarks (no sandbox check by default); the
    commands that play teams' code call `iter_tasks` with the layers they checked."""
    return list(iter_tasks(config, games, hashes, secret, layers, ghost_hashes, snapshots,
                           stream))


def iter_tasks(config: TournamentConfig, games: list[ScheduledGame],
               hashes: dict[str, str], secret: str | None,
               layers: tuple[str, ...],
               ghost_hashes: dict[str, str] | None = None,
               snapshots: Snapshots | None = None,
               stream: str | None = None) -> Iterator[GameTask]:
    """The tasks of `games`, one at a time as an executor takes them (a run's memory does not
    grow with the number of games); `hashes` maps each Pacman entrant to its submission hash,
    `ghost_hashes` each ghost entrant (computed when not given), `secret` is the tournament's
    (None: read from, or made in, its results folder), `layers` what `check_sandbox` found
    (no default: a command that plays teams' code and forgot them would play it confined by
    whatever the machine gives at the time, unchecked) and `snapshots` the run's (taken
    now, into the default cache, when not given). A game's random streams are keyed with the
    secret and its entrant's submission (`tournament.secret.game_key`), or, given `stream`,
    with the secret and `stream` for every entrant alike: a tuning's candidates, versions of
    one agent, then meet the same ghosts' draws on the same seed (common random numbers)."""
    if secret is None:
        secret = game_secret(config)
    if snapshots is None:
        snapshots = Snapshots.take(config, default_cache())
    if ghost_hashes is None:
        ghost_hashes = {e.name: submission_hash(e, snapshots.get(GHOSTS, e), snapshots)
                        for e in config.ghost_entrants}
    base = Path(config.source.parent if config.source is not None else Path.cwd())
    cache = snapshots.cache
    resolved: dict[tuple[str, str, tuple[tuple[str, str], ...]], tuple[AgentRef | None, str]] = {}
    pacmen = {e.name: e for e in config.entrants}
    rivals = {e.name: e for e in config.ghost_entrants}
    layouts: dict[str, tuple[str, str]] = {}
    # Code from files plays sandboxed, on the engine's sources: a built-in that searches on
    # a clock plays so too (`on_sources`), or it would search deeper in its second than the
    # code it is measured against wherever the compiled build is. Always, not only where
    # files play: a folder whose games were first played by built-ins alone, then with
    # teams, would mix the two ways in one baseline's games (the review of this change).
    def clocked(ref: AgentRef) -> AgentRef:
        if ref.on_a_clock():
            return dataclasses.replace(ref, on_sources=True)
        return ref

    def side(entrant: Entrant, args: tuple[tuple[str, str], ...], kind: str,
             digest: str) -> tuple[AgentRef | None, str]:
        """An entrant's agent for one side, resolved once per run from its snapshot, or why
        its own files cannot be played (that is its failure to load, never the
        platform's)."""
        label = PACMAN if kind == "pacman" else GHOSTS
        if (label, entrant.name, args) not in resolved:
            snap = snapshots.get(label, entrant)
            if snap is not None and not snap.id:
                resolved[label, entrant.name, args] = None, clean(snap.problem, MESSAGE_LIMIT)
            else:
                text = str(cache.folder(snap.id)) if snap is not None else entrant.ref
                resolved[label, entrant.name, args] = _resolved(text, args, base, kind,
                                                                snapshots, entrant.folder_agent)
        ref, problem = resolved[label, entrant.name, args]
        if ref is not None:
            # Named as the entrant in replays and the viewer; a team's sandbox plays exactly
            # the files hashed here, or none (a load_error).
            files = (files_hash(entrant, snapshots.get(label, entrant), digest)
                     if entrant.folder is not None else "")
            ref = clocked(dataclasses.replace(ref, entrant=entrant.name, team_hash=files))
        return ref, problem

    fixed_ghosts: dict[str, AgentRef] = {}
    for game in games:
        entrant = pacmen[game.entrant]
        cell = game.cell
        args = agent_args(entrant, cell)
        pacman, problem = side(entrant, args, "pacman", hashes[entrant.name])
        ghost_hash = ghost_problem = ""
        if isinstance(cell, MatchCell):
            rival = rivals[game.ghost_entrant]
            ghost_hash = ghost_hashes[rival.name]
            ghost_ref, ghost_problem = side(rival, rival.args, "ghost", ghost_hash)
            # A ghost team that cannot resolve forfeits each game (`play_task`); the
            # reference below only names the side in its row.
            ghost = ghost_ref or AgentRef(rival.name, "", builtin=True)
            key = game_key(secret, f"{hashes[entrant.name]}~{ghost_hash}")
        else:
            if cell.ghost not in fixed_ghosts:
                ref, why = _resolved(cell.ghost, (), base, "ghost", snapshots)
                if ref is None:
                    raise RuntimeError(f"the grid's ghosts {cell.ghost!r}: {why}")
                fixed_ghosts[cell.ghost] = clocked(ref)
            ghost = fixed_ghosts[cell.ghost]
            key = game_key(secret, hashes[entrant.name] if stream is None else stream)
        if cell.layout not in layouts:
            layout = load_layout(config.grid.layout_path(cell.layout))
            layouts[cell.layout] = (layout.name, layout.text)
        refs = [r for r in (pacman, ghost) if r is not None]
        yield GameTask(
            game=game,
            pacman=pacman,
            problem=problem,
            ghost=ghost,
            args=args,
            submission_hash=hashes[entrant.name],
            layout_name=layouts[cell.layout][0],
            layout_text=layouts[cell.layout][1],
            max_moves=config.grid.max_moves,
            limits=config.limits,
            replays=config.record.replays,
            secret=key,
            layers=layers,
            ghost_entrant=game.ghost_entrant,
            ghost_hash=ghost_hash,
            ghost_problem=ghost_problem,
            bundles=tuple(dict.fromkeys(_bundle_of(r) for r in refs if _bundle_of(r))),
        )


def _resolved(ref_text: str, args: tuple[tuple[str, str], ...], base: Path, kind: str,
              snapshots: Snapshots, folder_agent: FolderAgent | None = None
              ) -> tuple[AgentRef | None, str]:
    """An agent of one side (`kind`) made portable: resolved (from the snapshot when
    `ref_text` is one; a team folder without `team.yaml` plays `folder_agent`), and when it
    comes from files, those files snapshotted too (a baseline's file or folder) and its
    paths made relative to the cache. Or why its own files cannot be played (a bad
    team.yaml, a symbolic link, a missing class)."""
    cache = snapshots.cache
    try:
        ref = resolve(ref_text, args, kind=kind, cwd=base, folder_agent=folder_agent)
        if ref.path is None:
            return _builtin_with_files(ref, snapshots)
        root = cache.root.resolve()
        inside = Path(ref.team or ref.path).resolve()
        if not inside.is_relative_to(root):
            # A baseline's own file or folder: snapshot it, and resolve it from there.
            snap = (snapshots.of_folder(Path(ref.team)) if ref.team else
                    snapshots.of_file(Path(ref.path)))
            if not snap.id:
                return None, clean(snap.problem, MESSAGE_LIMIT)
            folder = cache.folder(snap.id)
            again = str(folder) if ref.team else f"{folder / Path(ref.path).name}:{ref.name}"
            ref = resolve(again, args, kind=kind, cwd=base, folder_agent=folder_agent)
            if not ref.team:  # a file alone: its sandbox sees the snapshot's folder
                ref = dataclasses.replace(ref, team=str(folder))
        return portable(ref, root), ""
    except SubmissionError as exc:
        return None, clean(snapshots.localize(str(exc)), MESSAGE_LIMIT)


def _builtin_with_files(ref: AgentRef, snapshots: Snapshots) -> tuple[AgentRef | None, str]:
    """A built-in whose options name files (`tournament.optionfiles`), made to play them as a
    team plays its own: a function's file (`features=`, `evalFn=`) from its snapshot, named
    by its place in the cache and played in the sandbox (the snapshot is the ref's `team`,
    as `with_files` makes it for `tournament tune`), and a weights file inline. Or why the
    file cannot be taken (its games are then the agent's load_error)."""
    args: list[tuple[str, str]] = []
    team = ""
    for key, value in ref.args:
        if key == WEIGHTS_OPTION:
            value = inline_weights(value, snapshots.file_copy(Path(value)) if value else None)
        elif (found := function_file(key, value)) is not None:
            where, function = found
            if where.is_absolute():
                snap = snapshots.of_file(where)
                if not snap.id:
                    return None, clean(snap.problem, MESSAGE_LIMIT)
                if team and team != snap.id:  # the config refuses two (`code_files`)
                    return None, (f"{ref.name}: its options name two files of code "
                                  f"({', '.join(CODE_OPTIONS)}); a baseline plays with one")
                team = snap.id
                value = f"{snap.id}/{where.name}:{function}"
        args.append((key, value))
    ref = dataclasses.replace(ref, args=tuple(args))
    if not team:
        return ref, ""
    return dataclasses.replace(ref, team=team), ""


def portable(ref: AgentRef, root: Path) -> AgentRef:
    """`ref` with its paths relative to the cache `root` (`<digest>/<folder>/...`)."""
    return dataclasses.replace(
        ref, path=str(Path(ref.path).resolve().relative_to(root)) if ref.path else None,
        team=str(Path(ref.team).resolve().relative_to(root)) if ref.team else None)


def placed(ref: AgentRef, root: Path) -> AgentRef:
    """A portable `ref` with its paths in the cache at `root` on this worker.

    A built-in that plays with files (`tournament tune`'s feature function) has their
    snapshot as its `team` and names them in its options by their place in the cache
    (`<digest>/<name>/features.py:phi`): those options are placed too."""
    if ref.path is None:
        if not ref.team:
            return ref
        inside = ref.team + "/"
        return dataclasses.replace(
            ref, team=str(root / ref.team), snapshot=True,
            args=tuple((key, str(root / value) if value.startswith(inside) else value)
                       for key, value in ref.args))
    return dataclasses.replace(ref, path=str(root / ref.path),
                               team=str(root / ref.team) if ref.team else None,
                               snapshot=bool(ref.team))


def with_files(task: GameTask, snapshot: str) -> GameTask:
    """`task` with its built-in Pacman playing with the files of `snapshot` (a cache id,
    `<digest>/<name>`), which its options name as `<digest>/<name>/file`: brought to the
    worker with the game's bundles and placed in its cache there (`placed`)."""
    if task.pacman is None or not task.pacman.builtin:
        return task
    return dataclasses.replace(task, pacman=dataclasses.replace(task.pacman, team=snapshot),
                               bundles=tuple(dict.fromkeys((*task.bundles, snapshot))))


def _bundle_of(ref: AgentRef) -> str:
    """The snapshot a portable ref plays from (`<digest>/<name>`; '' for a built-in without
    files)."""
    where = ref.path or ref.team
    return "/".join(Path(where).parts[:2]) if where else ""


def replay_path(replay_dir: str, game_id: str) -> Path:
    """`<dir>/<entrant>/<layout>/<depth>/<ghosts>/<rules>/<index>.json` from the game id."""
    entrant, _, rest = game_id.partition("@")
    cell, _, index = rest.partition("#")
    return Path(replay_dir, entrant, *cell.split("/"), f"{index}.json")


@functools.lru_cache(maxsize=16)
def task_layout(text: str, name: str) -> Layout:
    """A task's layout, parsed once per worker process. The engine keeps its tables per layout
    object (legal moves, maze distances, the evaluation's memo): with one object for every
    game on a layout, a worker's games after its first on that layout start with them built
    (a fresh parse per game cost a game on smallClassic about 14% more instructions)."""
    return parse_layout(text, name=name)


def play_task(task: GameTask, cache: TeamCache | None = None,
              sandbox_root: str | None = None) -> GameOutput:
    """Play one game from the team snapshots in `cache` (by default the default cache) and
    return its output; never raises for what a game or an agent does. Writes nothing but the
    sandboxes' own scratch folders (under `sandbox_root`, else TMPDIR)."""
    game = task.game
    result: GameResult | None = None
    replay: str | None = None
    logs: list[tuple[str, str]] = []
    try:
        cache = cache or default_cache()
        root = cache.root
        missing = [s for s in task.bundles if not cache.has(s)]
        if missing:
            # Only the platform writes its cache: a snapshot that is not there is its own
            # failure (played again), never the team's load_error.
            return _output(task, make_row(
                task, None, None, INFRA_ERROR, f"the team snapshot {missing[0][:16]} is not "
                f"in this worker's cache ({root})"))
        layout = task_layout(task.layout_text, task.layout_name)
        if task.pacman is None and task.ghost_problem:
            # Neither side can play: the game counts for nobody (no culprit: no side gains).
            return _output(task, make_row(
                task, None, None, "load_error", f"both sides cannot load: Pacman: "
                f"{task.problem}; ghosts: {task.ghost_problem}", culprit=None))
        if task.pacman is None:
            return _output(task, make_row(task, None, None, "load_error", task.problem,
                                          culprit=0))
        if task.ghost_problem:
            # The ghost team cannot play: it forfeits the game (its first ghost is blamed).
            return _output(task, make_row(task, None, None, "load_error", task.ghost_problem,
                                          culprit=1))
        spec = GameSpec(layout, placed(task.pacman, root), placed(task.ghost, root),
                        num_ghosts=game.cell.num_ghosts, seed=game.seed,
                        ruleset=game.cell.ruleset, max_moves=task.max_moves,
                        limits=task.limits, secret=task.secret, builtin_totals=False)
        placement = Placement(root=Path(sandbox_root) if sandbox_root else None,
                              expected=task.layers or None)
        result = play(spec, placement=placement)
        # Every sandbox of the game (Pacman's, a ghost team's) had the run's guarantees.
        lost = sorted({g for active in result.sandbox if active
                       for g in guarantees.lost(task.layers, active)}, key=lambda g: g.name)
        if task.layers and lost:
            # Confined less than the run's check promised: not a game to score.
            return _output(task, make_row(
                task, None, None, INFRA_ERROR, "the sandbox of this game lacked the "
                f"guarantees {', '.join(g.name for g in lost)} that the run's check had "
                "found"))
        keep = task.replays == "all" or (task.replays == "failures" and result.failed)
        if keep and result.scored:
            replay = json.dumps(replays.to_json(result, layout), separators=(",", ":"))
        # What each team printed (already capped by its sandbox; a ghost team's is kept on
        # its first ghost).
        for index, suffix in enumerate(LOG_SUFFIXES):
            if len(result.logs) > index and result.logs[index]:
                logs.append((suffix, result.logs[index]))
    except Exception as exc:  # the platform's own failure: recorded, never blamed on an agent
        return _output(task, make_row(task, None, None, INFRA_ERROR, f"platform error: "
                                      f"{type(exc).__name__}: {exc}"[:300],
                                      traceback.format_exc()[-4000:]))
    return GameOutput(task.key, make_row(task, result, None), replay, tuple(logs))


def _output(task: GameTask, row: GameRow) -> GameOutput:
    return GameOutput(task.key, row)


def game_copies(sizes: list[tuple[int, int]], two_teams: bool) -> tuple[tuple[int, int], str]:
    """What one game's sandboxes copy at most, (bytes, inodes), and those words: the largest
    team's files, or, when a game can hold two teams' sandboxes at once (a match game: a
    Pacman team's and a ghost team's, never one team twice), the two largest teams' together.
    `sizes`: each team folder's (`pacman.teamfolder.team_size`)."""
    if two_teams and len(sizes) >= 2:
        top = (sorted((s[0] for s in sizes), reverse=True)[:2],
               sorted((s[1] for s in sizes), reverse=True)[:2])
        return (sum(top[0]), sum(top[1])), "two teams' files (a match game's Pacman and ghosts)"
    largest = (max((s[0] for s in sizes), default=0), max((s[1] for s in sizes), default=0))
    return largest, "the largest team's files"


def copy_room_problem(free: tuple[int, int], workers: int, per_game: tuple[int, int],
                      where: str, what: str = "the largest team's files") -> str:
    """Why the sandbox folder is too small for the copies of the teams' files, or ''.

    Each sandbox holds a copy of its team's files (`pacman.sandbox.process`); with `workers`
    games at once, up to `workers` times what one game copies (`per_game`, said as `what`:
    `game_copies`). `free` and `per_game` are (bytes, inodes). A copy that finds no room is
    the platform's failure (infra_error), so a run without room would leave a legal team's
    games unscored, run after run: better said before it starts.
    """
    mib = 1024 * 1024
    need_bytes, need_inodes = workers * per_game[0], workers * per_game[1]
    if need_bytes > free[0]:
        return (f"the sandbox folder {where} has {free[0] // mib} MiB free, but {workers} "
                f"games at once may each copy {what} ({per_game[0] // mib} "
                f"MiB): give it {(need_bytes - free[0]) // mib + 1} MiB more (set TMPDIR to a "
                "larger folder) or use fewer workers")
    if need_inodes > free[1]:
        return (f"the sandbox folder {where} has room for {free[1]} more files, but {workers} "
                f"games at once may each copy {what}, {per_game[1]} files and "
                "folders: set TMPDIR to a folder with more free inodes, or use fewer workers")
    return ""


def tournament_score(outcome: str, culprit: int | None, score: int) -> int:
    """What a game scores in a tournament: the engine's score, but a game the entrant itself
    failed (culprit 0) scores its score at that moment less what the move into a ghost
    costs (`rules.DEATH_PENALTY` and `TIME_PENALTY`). The course scores a failure at the score
    of that moment, so a Pacman that raised on purpose just before a certain death kept the
    points a death costs, and a team that never loaded (0 a game) ranked above teams that
    played and lost: in a tournament, failing instead of stepping into a ghost never pays.
    (A Pacman that fails at once still saves the time penalty of the moves it would have
    played before losing; a team whose losses cost more than that ranks by win rate first.)"""
    if outcome in FAILURES and culprit == 0:
        return score - DEATH_PENALTY - TIME_PENALTY  # as the move into a ghost would
    return score


def make_row(task: GameTask, result: GameResult | None, replay: str | None,
             outcome: str | None = None, message: str = "", trace: str = "",
             culprit: int | None = None) -> GameRow:
    """The row of `task`'s game: from its `result`, or, when it has none, from the
    `outcome` (and `message`, `trace`, `culprit`) the caller decided."""
    game = task.game
    timing = result.timing[0] if result is not None and result.timing else None
    moves = timing.moves if timing is not None else 0
    cpu_moves = timing.cpu if timing is not None else None
    final = outcome or (result.outcome if result is not None else INFRA_ERROR)
    blamed = result.culprit if result is not None else culprit
    score = result.score if result is not None and outcome is None else 0
    return GameRow(**{
        "game_id": game.game_id,
        "entrant": game.entrant,
        "submission_hash": task.submission_hash,
        "cell": game.cell.key,
        "layout": game.cell.layout,
        "depth": game.cell.depth,
        "ghost": (task.ghost.name if isinstance(game.cell, MatchCell)
                  else game.cell.ghost_name),
        "num_ghosts": result.num_ghosts if result is not None else game.cell.num_ghosts,
        "ruleset": game.cell.ruleset,
        "seed": game.seed,
        "game_index": game.index,
        "outcome": final,
        "culprit": blamed,
        "message": message or (result.message if result is not None else ""),
        "trace": trace or (result.trace if result is not None else ""),
        "score": tournament_score(final, blamed, score),
        "win": bool(result is not None and outcome is None and result.win),
        "moves": result.moves if result is not None else 0,
        "wall_mean": timing.wall / moves if timing is not None and moves else None,
        "wall_max": timing.wall_max if timing is not None and moves else None,
        "cpu_mean": cpu_moves / moves if cpu_moves is not None and moves else None,
        "cpu_max": timing.cpu_max if timing is not None else None,
        "warnings": timing.warnings if timing is not None else 0,
        "sandbox": ",".join(result.sandbox[0]) if result is not None else "",
        "host": socket.gethostname(),
        "replay": replay,
        "version": platform_id(),
        "finished_at": utc_now(),
        "ghost_entrant": task.ghost_entrant,
        "ghost_hash": task.ghost_hash,
        "run_id": None,  # the organizer's to say, as it stores the row (`outputs.Keeper`)
    })


def worker_environment() -> None:
    """Nothing an agent prints in-process should reach the organizer's terminal in a pool."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
