"""A tournament's YAML config, checked completely and turned into frozen values.

An organizer edits the config, runs a command, and must not find out one typo per run: the
whole file is validated, every problem is collected with its key path
(`grid.layouts[2]: unknown layout 'smalClassic' (did you mean smallClassic?)`) and one
`ConfigError` lists them all, before anything is played. Unknown keys are errors too,
because a misspelt optional key would otherwise silently fall back to its default.

How: the shape of each mapping is a pydantic model (`_Mapping` subclasses, below), each leaf
value a validator that words its own problem as the organizer reads it; the machinery
(`_Mapping`, `_Problems`, the leaf validators, `_problem_lines`) is
`tournament.checking`'s, shared with the other files an organizer writes (a marking
scheme). What needs the world (layout files, agent references, team folders) is checked by
functions that pydantic calls for their key, so every problem, wherever it is found, comes
back as one pydantic error with its location. The public values the rest of the platform uses
are the frozen dataclasses built from the validated input.

Relative paths in a config resolve against the config file's folder, so a config means the
same thing whatever folder the command is started from. Every path stored in the result is
absolute. Team code is never run here: team folders are resolved from their `team.yaml` and
the source text, and constructor options are read from the source too (`pacman.loader`);
built-in baselines, the platform's own trusted code, are built once to check option values.
What is inside a team's folder is the team's, not the organizer's: a team that cannot be
resolved (a bad `team.yaml`, a symbolic link, a missing class) is no config error; it stays
an entrant carrying its `problem`, and its games are recorded as its own `load_error`.

Every key, its type, default and meaning are documented in docs/tournament-config.md.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import math
import os
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    Field,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
)

from pacman.describe import clean
from pacman.errors import OptionError
from pacman.layout import PROJECT_LAYOUTS, LayoutError, available_layouts, load_layout
from pacman.limits import ALWAYS, COUNTS, DESCRIPTIONS, Limits, limit_problem
from pacman.loader import (
    CODE_OPTIONS,
    TEAM_YAML,
    AgentRef,
    FolderAgent,
    SubmissionError,
    options_in_source,
    resolve,
)
from pacman.outcomes import GHOSTS, PACMAN, SIDES
from pacman.rules import RULESETS
from pacman.sandbox.guarantees import NAMES as GUARANTEE_NAMES
from pacman.yamlfile import ORGANIZER_FILE, TEAM_FILE, YamlProblem, load_yaml
from tournament.checking import (
    MoveLimit,
    Positive,
    ProblemsError,
    Whole,
    exposed_scheduler,
    flag,
    scheduler_address,
)
from tournament.checking import Problems as _Problems
from tournament.checking import StrictMapping as _Mapping
from tournament.checking import choice as _choice
from tournament.checking import confidence as _confidence
from tournament.checking import did_you_mean as _did_you_mean
from tournament.checking import flag as _flag
from tournament.checking import known as _known
from tournament.checking import list_of as _list_of
from tournament.checking import plain as _plain
from tournament.checking import problem as _problem
from tournament.checking import problem_lines as _problem_lines
from tournament.checking import raise_at as _raise
from tournament.checking import show as _show
from tournament.checking import text as _text
from tournament.checking import whole as _whole
from tournament.optionfiles import (
    absolute_options,
    code_files,
    code_problem,
    stood_for,
    with_stand_ins,
)
from tournament.ranking import RANKING_KEYS

ReplayPolicy = Literal["none", "failures", "all"]
EntrantKind = Literal["team", "baseline"]
MatchDesign = Literal["all", "sampled"]

#: How Pacman entrants meet ghost entrants: every pairing, or k opponents each.
MATCH_DESIGNS: tuple[MatchDesign, ...] = ("all", "sampled")
#: What `record.replays` may say: keep no replay, the replays of games an agent failed, or all.
REPLAY_POLICIES: tuple[ReplayPolicy, ...] = ("none", "failures", "all")
#: The statistics a ranking may sort by (columns of `tournament.leaderboard.leaderboard`).
#: Moves of all agents together after which a tournament game ends as `move_limit` unless the
#: config says otherwise (`grid.max_moves`). A tournament needs an end to every game; the
#: `pacman` command has none by default, as the course engine.
DEFAULT_MAX_MOVES = 3000
#: Games each entrant plays per cell (and each pairing per match cell) unless the config says.
DEFAULT_GAMES_PER_CELL = 20
#: The ghosts a grid may play against; `file.py:Class` references are accepted as well.
BUILTIN_GHOSTS = ("RandomGhost", "DirectionalGhost")

#: Entrant and layout names end up in game ids and replay file names, so they are kept to
#: characters that are safe in both and never collide with the id's separators (@ / #).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
NAME_RULE = "use up to 64 letters, digits and . _ + - (it appears in game ids and file names)"

_LIMIT_KEYS = tuple(f.name for f in fields(Limits))
#: Limits counted in whole numbers; the others are seconds.
_COUNT_LIMITS = tuple(COUNTS)
#: Limits whose value may be null (switched off); the others always apply.
_NULLABLE_LIMITS = tuple(name for name in _LIMIT_KEYS if name not in ALWAYS)


class ConfigError(ProblemsError):
    """A config that cannot be used; the message lists every problem, one per line, each
    with its key path (`ProblemsError`)."""


@dataclass(frozen=True)
class Entrant:
    """One player of the tournament, as the game runner will build it.

    `ref` is absolute or a built-in name, so it resolves the same from any folder: a team's
    folder, a baseline's built-in name, `path/file.py:Class` or folder. `args` are the agent's
    options as `pacman -a` gives them (strings); a team's own `team.yaml` args are merged in
    by the loader when the game is played, and the grid's depth is added per cell
    (`tournament.schedule.agent_args`).
    """

    name: str
    kind: EntrantKind
    ref: str
    args: tuple[tuple[str, str], ...] = ()
    #: The team's folder (teams only), for hashing the submission and showing it.
    folder: Path | None = None
    #: Whether the grid's depth is passed as the option `depth`: whether the constructor
    #: has that option. One without it (ReflexAgent) plays every depth with its own settings.
    takes_depth: bool = True
    #: Why a team's folder could not be resolved when the config was read (a bad team.yaml,
    #: a symbolic link, ...), else None. Such a team still plays: each of its games is
    #: resolved again and recorded as its `load_error` while the problem lasts.
    problem: str | None = None
    #: The side it plays (`pacman.outcomes.PACMAN` or `GHOSTS`). A team whose `team.yaml`
    #: names both an `agent` and a `ghost` is two entrants of the same name, one per side.
    #: A ghost entrant controls every ghost of a game; its `args` are its own (a team's
    #: `ghost_args` are read by the loader at play time), never the grid's depth.
    side: str = PACMAN
    #: What this team plays because its folder has no `team.yaml`: the config's
    #: `entrants.agent` and `args` (`ghost` and `ghost_args` for a ghost entrant), passed to
    #: the loader whenever the team is resolved and covered by its submission hash; None for
    #: a team with a `team.yaml`, a baseline, or when the config names no class.
    folder_agent: FolderAgent | None = None


@dataclass(frozen=True)
class LayoutChoice:
    """A layout of the grid: the `name` cells and results use, and the file it is read from."""

    name: str
    #: Absolute path of the `.lay` file, so that workers in other folders find the same one.
    path: str


@dataclass(frozen=True)
class GhostSetting:
    """Which ghost agent plays, and how many of them (capped at the layout's ghost starts)."""

    agent: str
    count: int

    @property
    def name(self) -> str:
        """The ghost's class name: what cell keys show (`RandomGhost`, or `MyGhost` of a file)."""
        return self.agent.rpartition(":")[2]


@dataclass(frozen=True)
class GridConfig:
    """The cells every entrant plays: layouts x depths x ghost settings x rulesets."""

    layouts: tuple[LayoutChoice, ...]
    #: `(None,)` when the config gives no depths: each agent searches to its own default.
    depths: tuple[int | None, ...] = (None,)
    ghosts: tuple[GhostSetting, ...] = (GhostSetting("RandomGhost", 2),)
    rules: tuple[str, ...] = ("classic",)
    max_moves: int = DEFAULT_MAX_MOVES

    def layout_path(self, name: str) -> str:
        """The file of the grid's layout `name` (what `pacman.layout.load_layout` takes)."""
        for choice in self.layouts:
            if choice.name == name:
                return choice.path
        raise KeyError(f"no layout {name!r} in this grid")


@dataclass(frozen=True)
class RecordConfig:
    """What is kept besides the results table."""

    replays: ReplayPolicy = "failures"


@dataclass(frozen=True)
class ClusterConfig:
    """How a run on a Dask cluster (`scheduler:`) waits and how much it hands out at once.

    A run that cannot reach its scheduler within `connect_timeout` seconds stops at once
    (exit 2, nothing written); one that has no worker at all for `worker_wait` seconds stops
    (what is stored is kept; it says so while it waits); `in_flight` games are submitted at
    once (None: twice the cluster's worker threads, counted as workers come and go).
    """

    connect_timeout: float = 30.0
    worker_wait: float = 300.0
    in_flight: int | None = None
    #: Whether the organizer says the network between the scheduler, its workers and this
    #: machine is trusted, so that a scheduler on another host may be reached without
    #: encryption or authentication (`tcp://`): anyone who reaches such a port can run code
    #: on every worker and hand back results of their choosing (the eighteenth hostile
    #: review). `tls://` with Dask's TLS settings needs no such word.
    trusted_network: bool = False


@dataclass(frozen=True)
class SandboxConfig:
    """How much confinement the organizer insists on.

    `tournament run` refuses to play teams' code on a machine where a sandbox guarantee
    (`pacman.sandbox.guarantees`) does not hold, unless it is named here.
    """

    accept_missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class RankingConfig:
    """How the leaderboard orders entrants and how wide its intervals are.

    Entrants are sorted by `by` in order (each descending); rank groups and the printed
    intervals use `confidence`.
    """

    by: tuple[str, ...] = ("win_rate", "mean_score")
    confidence: float = 0.95


@dataclass(frozen=True)
class MatchConfig:
    """How Pacman entrants meet ghost entrants in match games (`matches:` of the config).

    Match cells are the grid's layouts x depths x rules with `ghosts` ghosts each; every
    pairing of `tournament.schedule.pairings` plays `games` games in each.
    """

    design: MatchDesign = "all"
    #: `sampled` only: how many distinct opponents each entrant of the larger side meets.
    opponents: int | None = None
    #: Ghosts per game, capped at the layout's ghost starts.
    ghosts: int = 2
    #: Games per pairing and cell.
    games: int = DEFAULT_GAMES_PER_CELL
    #: The entrant rated 0, and the side it plays.
    anchor: str = ""
    anchor_side: str = GHOSTS


@dataclass(frozen=True)
class TournamentConfig:
    """A checked tournament config; every path in it is absolute."""

    name: str
    entrants: tuple[Entrant, ...]
    grid: GridConfig
    output: Path
    seed: int = 0
    games_per_cell: int = DEFAULT_GAMES_PER_CELL
    limits: Limits = field(default_factory=Limits)
    #: Parallel games; None means one per CPU core (`worker_count`).
    workers: int | None = None
    #: A Dask scheduler address; None plays in a local process pool.
    scheduler: str | None = None
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    record: RecordConfig = field(default_factory=RecordConfig)
    ranking: RankingConfig = field(default_factory=RankingConfig)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    #: The ghost side: teams whose team.yaml names a `ghost`, and `entrants.ghost_baselines`.
    #: (`entrants` is the Pacman side.)
    ghost_entrants: tuple[Entrant, ...] = ()
    #: Match games between the two sides; None plays today's format only.
    matches: MatchConfig | None = None
    #: Where the tournament's secret is kept (None: in the output folder); see
    #: `tournament.secret`.
    secret_file: Path | None = None
    #: The folder teams were read from (None when the config lists baselines only).
    submissions: Path | None = None
    #: The config file, when it was read from one.
    source: Path | None = None

    @property
    def worker_count(self) -> int:
        """The number of parallel games: `workers`, or the machine's core count."""
        return self.workers if self.workers is not None else os.cpu_count() or 1

    @property
    def all_entrants(self) -> tuple[Entrant, ...]:
        """Every entrant of both sides, Pacman's first. What concerns every team (its files,
        its folder, its marks) goes through here: a team may play ghosts only, and loops
        over `entrants` alone left such teams out (review 14)."""
        return (*self.entrants, *self.ghost_entrants)

    def team_folders(self) -> dict[str, str]:
        """Entrant name -> the name of its folder (a team's, the manifest's `team`), both
        sides; entrants without a folder (built-in baselines) are not in it."""
        return {e.name: e.folder.name for e in self.all_entrants if e.folder is not None}

    def entrant(self, name: str) -> Entrant:
        """The Pacman entrant `name`."""
        for entrant in self.entrants:
            if entrant.name == name:
                return entrant
        raise KeyError(f"no entrant {name!r} in this tournament")

    def same_team_pairs(self) -> set[tuple[str, str]]:
        """The (Pacman entrant, ghost entrant) pairs that are one team's (the same folder):
        such a pairing is never played (`tournament.schedule.pairings`)."""
        ghosts = {e.folder: e.name for e in self.ghost_entrants if e.folder is not None}
        return {(e.name, ghosts[e.folder]) for e in self.entrants if e.folder in ghosts}

    def ghost_entrant(self, name: str) -> Entrant:
        """The ghost entrant `name`."""
        for entrant in self.ghost_entrants:
            if entrant.name == name:
                return entrant
        raise KeyError(f"no ghost entrant {name!r} in this tournament")


def load_config(path: Path) -> TournamentConfig:
    """Read and check a config file; any problem, a missing file included, is a ConfigError."""
    source = str(path)
    try:
        data = load_yaml(path, ORGANIZER_FILE)
    except YamlProblem as exc:
        raise ConfigError(source, [exc.detail]) from None
    config = parse_config(data, source, path.resolve().parent)
    return replace(config, source=path.resolve())


def parse_config(data: object, source: str, base: Path) -> TournamentConfig:
    """Check already-loaded YAML data; relative paths in it resolve against `base`.

    `source` names the data in messages (the file name). Every problem found is reported
    together in one ConfigError, in the order of the top-level keys in the file (missing
    required keys last), so the list reads like the file.
    """
    if data is None:
        raise ConfigError(
            source, ["the config is empty; it needs at least name, entrants and grid"]
        )
    matches_given = isinstance(data, dict) and data.get("matches") is not None
    context = {_ENV: _Env(base, _depths_before(data), matches_given)}
    try:
        checked = _ConfigIn.model_validate(data, context=context)
    except ValidationError as exc:
        raise ConfigError(source, _problem_lines(exc, data) or ["the config is empty"]) from None
    exposed = exposed_scheduler(
        checked.scheduler, checked.cluster is not None and checked.cluster.trusted_network,
        "cluster: {trusted_network: true}")
    if exposed:
        raise ConfigError(source, [f"scheduler: {exposed}"])
    if checked.cluster is not None and checked.scheduler is None:
        raise ConfigError(source, ["cluster: says how to use a Dask cluster, but no scheduler: "
                                   "is given (add scheduler: tcp://host:8786, or remove "
                                   "cluster:)"])
    config = checked.build(base)
    misplaced = apart_from_agents({"output": config.output, "secret_file": config.secret_file},
                                  agent_folders(config))
    misplaced += apart_from_agents({"entrants.submissions": config.submissions},
                                   sandbox_readable())
    if misplaced:
        raise ConfigError(source, [f"{key}: {problem}" for key, problem in misplaced])
    return config


def holder(path: Path, folders: Mapping[Path, str]) -> tuple[Path, str] | None:
    """The first of `folders` (folder -> what it is, in words) that holds `path`, itself or
    below it, both compared resolved (pure but for resolving links); None when none does."""
    where = path.expanduser().resolve()
    for folder, what in folders.items():
        if where.is_relative_to(folder.resolve()):
            return folder, what
    return None


def team_folder_words(whose: str, folder: Path) -> str:
    """What a results folder or secret inside a team's folder would do, for `apart_from_agents`:
    the team's sandbox would show it the run's files (the secret lets it predict the ghosts'
    draws), and every run would change the files its games are keyed by."""
    return (f"the folder of {whose} ({folder}), which its agent sees and its games are keyed "
            "by")


def apart_from_agents(paths: Mapping[str, Path | None],
                      folders: Mapping[Path, str]) -> list[tuple[str, str]]:
    """(key, problem) for each key of `paths` (the results folder, the secret file) that lies
    in one of `folders` (folder -> what it is and why that matters, in words): a folder an
    agent plays from. Tournaments and tunings check alike."""
    out = []
    for key, path in paths.items():
        found = None if path is None else holder(path, folders)
        if found is not None:
            out.append((key, f"{path} is inside {found[1]}; put it outside"))
    return out


def agent_folders(config: TournamentConfig) -> dict[Path, str]:
    """The folders a tournament's agents play from: each team's and each baseline folder's
    (snapshotted whole; a file agent's snapshot is its file alone), and the submissions
    folder."""
    out: dict[Path, str] = {}
    for entrant in config.all_entrants:
        folder = entrant.folder
        if folder is None and Path(entrant.ref).is_absolute() and Path(entrant.ref).is_dir():
            folder = Path(entrant.ref)  # a baseline played from a folder, snapshotted whole
        if folder is not None:
            out.setdefault(folder, team_folder_words(f"entrant {entrant.name}", folder))
    if config.submissions is not None:  # a team's own folder is the closer holder
        out.setdefault(config.submissions, f"the submissions folder ({config.submissions}), "
                       "where each folder is taken for a team")
    return out | sandbox_readable()


def sandbox_readable() -> dict[Path, str]:
    """The folders every agent's sandbox may read (`pacman.sandbox.process.read_paths`: the
    interpreter's, the platform's, the system's), in `apart_from_agents`' form: a results
    folder, a secret or the teams' folders there would be open to every team."""
    from pacman.loader import AgentRef
    from pacman.sandbox.process import read_paths

    return {Path(p): f"{p}, which every agent's sandbox can read (the interpreter, the "
            "platform or the system)" for p in read_paths(AgentRef("", "", builtin=True))}


def describe_config(config: TournamentConfig) -> str:
    """A short human summary, so an organizer can see what a run would play before it starts."""
    grid = config.grid
    cells = len(grid.layouts) * len(grid.depths) * len(grid.ghosts) * len(grid.rules)
    games = cells * len(config.entrants) * config.games_per_cell
    depths = ", ".join("agent default" if d is None else str(d) for d in grid.depths)
    workers = (
        str(config.workers)
        if config.workers is not None
        else f"one per core ({config.worker_count})"
    )
    lines = [
        f"tournament {config.name!r} (seed {config.seed})",
        f"entrants ({len(config.entrants)}):",
    ]
    for entrant in config.entrants:
        args = ", ".join(f"{k}={v}" for k, v in entrant.args)
        extra = f" [{args}]" if args else ""
        depth_note = "" if entrant.takes_depth else " (plays every depth with its own settings)"
        lines.append(f"  {entrant.name}: {entrant.kind} {clean(entrant.ref)}{extra}"
                     f"{_folder_agent_note(entrant)}{depth_note}")
    if config.ghost_entrants:
        lines.append(f"ghost entrants ({len(config.ghost_entrants)}):")
        for entrant in config.ghost_entrants:
            args = ", ".join(f"{k}={v}" for k, v in entrant.args)
            extra = f" [{args}]" if args else ""
            lines.append(f"  {entrant.name}: {entrant.kind} {clean(entrant.ref)}{extra}"
                         f"{_folder_agent_note(entrant)}")
    lines += [
        f"layouts: {', '.join(choice.name for choice in grid.layouts)}",
        f"depths: {depths}",
        f"ghosts: {', '.join(f'{g.count} x {g.name}' for g in grid.ghosts) or 'none'}",
        f"rules: {', '.join(grid.rules)}; at most {grid.max_moves} moves per game",
    ]
    if cells:
        lines.append(f"{cells} cells x {len(config.entrants)} entrants x "
                     f"{config.games_per_cell} games = {games} games against the grid's ghosts")
    if config.matches is not None:
        lines += _describe_matches(config)
    lines += [
        "limits: "
        + ", ".join(
            f"{name}={'off' if value is None else value}"
            for name, value in config.limits.as_dict().items()
        ),
        (f"games on the Dask cluster at {config.scheduler}: at most "
         f"{config.cluster.in_flight or 'twice its worker threads'} at once; "
         f"{config.cluster.connect_timeout:g} s to connect, {config.cluster.worker_wait:g} s "
         "without workers before stopping") if config.scheduler else f"workers: {workers}",
        f"output: {config.output}",
        f"replays kept: {config.record.replays}",
    ]
    if cells:
        lines.append(f"ranking: by {', then '.join(config.ranking.by)}; "
                     f"{config.ranking.confidence:.0%} intervals")
    if config.matches is not None:
        lines.append(f"ratings: {config.ranking.confidence:.0%} intervals")
    return "\n".join(lines)


def _folder_agent_note(entrant: Entrant) -> str:
    """` (no team.yaml: plays ExpectimaxAgent evalFn=better)` for a team that plays the
    config's class, else ''."""
    chosen = entrant.folder_agent
    if chosen is None:
        return ""
    args = "".join(f" {k}={v}" for k, v in chosen.args)
    return f" (no {TEAM_YAML}: plays {chosen.name}{args})"


def _describe_matches(config: TournamentConfig) -> list[str]:
    matches = config.matches
    assert matches is not None
    pacmen, ghosts = len(config.entrants), len(config.ghost_entrants)
    # A team on both sides never meets itself (`TournamentConfig.same_team_pairs`).
    both = len(config.same_team_pairs())
    from tournament.schedule import pairings as paired  # (schedule reads this module)

    pairings = len(paired(config))
    grid = config.grid
    cells = len(grid.layouts) * len(grid.depths) * len(grid.rules)
    design = (
        f"all: every Pacman entrant against every ghost entrant, {pacmen} x {ghosts}"
        if matches.design == "all"
        else f"sampled: {matches.opponents} opponents each ({pacmen} Pacman, {ghosts} ghost "
        "entrants)"
    )
    if both:
        design += f"; {both} team(s) on both sides never meet themselves"
    return [
        f"matches: {design} = {pairings} pairings",
        f"{cells} match cells ({matches.ghosts} ghosts) x {pairings} pairings x "
        f"{matches.games} games = {cells * pairings * matches.games} match games",
        f"ratings anchored at {matches.anchor} ({matches.anchor_side}) = 0",
    ]


def slug(text: str) -> str:
    """A folder-safe form of a tournament name, for the default output folder."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "tournament"




# ---- the validation context ----------------------------------------------------------------
# How problems are reported and worded, and the leaf validators shared with other files of the
# organizer's, are `tournament.checking`'s.

#: The validation context's key for `_Env`.
_ENV = "env"


@dataclass(frozen=True)
class _Env:
    """What validators need besides the data: the config's folder, against which relative
    paths resolve, and the grid's depths, against which baselines' options are checked."""

    base: Path
    depths: tuple[int | None, ...]
    #: Whether the config has a `matches:` section (then `grid.ghosts` may be empty).
    matches_given: bool = False

    def path(self, text: str) -> Path:
        return (self.base / Path(text).expanduser()).resolve()


def _env(info: ValidationInfo) -> _Env:
    env = info.context[_ENV] if isinstance(info.context, dict) else None
    if not isinstance(env, _Env):  # only parse_config validates these models
        raise TypeError("config models are validated with parse_config's context")
    return env


# ---- leaf values: each validator words its own problem ------------------------------------


def _name_problem(value: str) -> str | None:
    if NAME_PATTERN.fullmatch(value):
        return None
    return f"{value!r} cannot be used as a name: {NAME_RULE}"


def _name(value: object) -> str:
    text = _text("a name")(value)
    problem = _name_problem(text)
    if problem:
        raise _problem(problem)
    return text


def _args(value: object) -> tuple[tuple[str, str], ...]:
    """Agent options as `pacman -a` gives them: option names, values as text."""
    if not isinstance(value, dict):
        raise _problem(f"expected a mapping of option: value, got {_show(value)}")
    problems = _Problems()
    out: list[tuple[str, str]] = []
    for key, item in value.items():
        if not isinstance(key, str) or not key.isidentifier():
            problems.add((), f"{_show(key)} is not an option name")
        elif isinstance(item, (dict, list)) or item is None:
            problems.add((key,), f"expected a text, number or true/false, got {_show(item)}")
        else:
            out.append((key, str(item)))
    problems.raise_any()
    return tuple(out)


Name = Annotated[str, PlainValidator(_name)]
Args = Annotated[tuple[tuple[str, str], ...], PlainValidator(_args)]


# ---- grid ---------------------------------------------------------------------------------

_GHOST_WHAT = f"a ghost agent ({', '.join(BUILTIN_GHOSTS)} or file.py:Class)"


def _agent_text(env: _Env, agent: str) -> str:
    """The reference with a relative file or folder made absolute (built-in names kept,
    `builtin:Name` too)."""
    if agent.startswith("builtin:"):
        return agent
    if ":" in agent:
        file_part, _, cls_name = agent.rpartition(":")
        if file_part:
            return f"{env.path(file_part)}:{cls_name}"
        return agent
    if "/" in agent or os.sep in agent or agent.endswith(".py") or agent.startswith("."):
        return str(env.path(agent))
    return agent


def _layout(value: object, info: ValidationInfo) -> LayoutChoice:
    return layout_choice(value, _env(info).base)


def layout_choice(value: object, base: Path) -> LayoutChoice:
    """A layout as `grid.layouts` takes one (a name found beside `base`, the file's folder, or
    among the project's layouts, or a `.lay` file relative to `base`), checked as exactly;
    other files of the organizer's that name a layout (a tune file) use it too."""
    text = _text("a layout name or a path to a .lay file")(value)
    env = _Env(base, (None,))
    if text.endswith(".lay") or "/" in text or os.sep in text:
        file = env.path(text)
        if not file.is_file():
            raise _problem(f"no such layout file {text!r} (looked for {file})")
    else:
        # Beside the config rather than in the current folder, as every other path is.
        search = [env.base / "layouts", PROJECT_LAYOUTS]
        names = available_layouts(search)
        if text not in names:
            raise _problem(f"unknown layout {text!r}{_did_you_mean(text, names)}")
        file = next(
            folder / f"{text}.lay" for folder in search if (folder / f"{text}.lay").is_file()
        ).resolve()
    problem = _name_problem(file.stem)
    if problem:
        raise _problem(problem)
    try:
        layout = load_layout(str(file))
    except LayoutError as exc:
        raise _problem(str(exc)) from None
    if layout.warnings:
        # The `pacman` command reads unknown characters as empty space, as the course does,
        # and warns; a tournament's layouts are the organizer's and must be exact.
        problems = _Problems()
        for warning in layout.warnings:
            problems.add((), warning)
        problems.raise_any()
    return LayoutChoice(file.stem, str(file))


class _GhostIn(_Mapping):
    agent: Annotated[str, PlainValidator(_text(_GHOST_WHAT))] = Field(description=_GHOST_WHAT)
    count: Annotated[int, PlainValidator(_whole(0))] = Field(
        description="how many ghosts play (0 or more)"
    )


def _ghost_setting(value: object, info: ValidationInfo) -> GhostSetting:
    shape = _GhostIn.model_validate(value, context=info.context)
    try:
        agent = ghost_agent(shape.agent, _env(info).base)
    except SubmissionError as exc:
        _raise(("agent",), str(exc))
    return GhostSetting(agent, shape.count)


def ghost_agent(text: str, base: Path) -> str:
    """A grid's ghost reference (`grid.ghosts[i].agent`) as the config stores it: a built-in's
    name or an absolute `file.py:Class`, relative paths read against `base`; SubmissionError
    when it is no ghost. Other organizer files that name ghosts (a tune file) use it too."""
    env = _Env(base, (None,))
    ref = resolve(_agent_text(env, text), (), kind="ghost", cwd=env.base)
    return ref.name if ref.builtin else ref.label


_GHOST_SETTINGS = _list_of(
    "{agent, count}",
    _ghost_setting,
    path="grid.ghosts",
    empty="expected at least one {agent, count} (an empty list is for configs with matches: "
    "then only match games are played)",
    duplicate="the ghost setting",
    key=lambda ghost: f"{ghost.count} x {ghost.name}",
)


def _ghost_settings(value: object, info: ValidationInfo) -> tuple[GhostSetting, ...]:
    """The fixed ghosts; none (`[]`) when the config plays matches only."""
    if value == [] and _env(info).matches_given:
        return ()
    return _GHOST_SETTINGS(value, info)


Depths = Annotated[
    tuple[int | None, ...],
    PlainValidator(
        _list_of(
            "whole numbers >= 1",
            _plain(_whole(1)),
            path="grid.depths",
            empty="expected at least one depth, or null",
            duplicate="the depth",
        )
    ),
]


class _GridIn(_Mapping):
    layouts: Annotated[
        tuple[LayoutChoice, ...],
        PlainValidator(
            _list_of(
                "layout names or .lay files",
                _layout,
                path="grid.layouts",
                empty="expected at least one layout",
                duplicate="the layout",
                key=lambda choice: choice.name,
            )
        ),
    ] = Field(description="a list of layout names or .lay files")
    depths: Depths = (None,)
    ghosts: Annotated[tuple[GhostSetting, ...], PlainValidator(_ghost_settings)] = (
        GhostSetting("RandomGhost", 2),
    )
    rules: Annotated[
        tuple[str, ...],
        PlainValidator(
            _list_of(
                "ruleset names",
                _plain(_choice(list(RULESETS), "ruleset")),
                path="grid.rules",
                empty="expected at least one ruleset",
                duplicate="the ruleset",
            )
        ),
    ] = ("classic",)
    max_moves: MoveLimit = DEFAULT_MAX_MOVES

    def build(self) -> GridConfig:
        return GridConfig(
            layouts=self.layouts,
            depths=self.depths,
            ghosts=self.ghosts,
            rules=self.rules,
            max_moves=self.max_moves,
        )


def _depths_before(data: object) -> tuple[int | None, ...]:
    """The grid's depths, read before the rest, since baselines' options are checked against
    them; their own problems are reported with the grid's."""
    grid = data.get("grid") if isinstance(data, dict) else None
    depths = grid.get("depths") if isinstance(grid, dict) else None
    if depths is None:
        return (None,)
    try:
        return TypeAdapter(Depths).validate_python(depths)
    except ValidationError:
        return (None,)


# ---- entrants -----------------------------------------------------------------------------


class _Entrants(NamedTuple):
    #: The Pacman side.
    entrants: tuple[Entrant, ...]
    #: The ghost side.
    ghosts: tuple[Entrant, ...]
    #: The folder teams were read from, if any.
    submissions: Path | None


class _BaselineIn(_Mapping):
    name: Name = Field(description="the entrant's name")
    agent: Annotated[str, PlainValidator(_text("a built-in agent name or file.py:Class"))] = Field(
        description="a built-in agent name or file.py:Class"
    )
    args: Args = ()
    takes_depth: Annotated[bool | None, PlainValidator(_flag)] = None


_GHOST_TEAM_WHAT = "a built-in ghost team (RandomGhost, ...) or file.py:Class"


class _GhostBaselineIn(_Mapping):
    name: Name = Field(description="the entrant's name")
    agent: Annotated[str, PlainValidator(_text(_GHOST_TEAM_WHAT))] = Field(
        description=_GHOST_TEAM_WHAT
    )
    args: Args = ()


class _Agent(NamedTuple):
    """A baseline's agent as resolved: its reference, and the option names its constructor
    takes (None when they cannot be told)."""

    ref: AgentRef
    stored: str
    options: list[str] | None


def _baseline_agent(agent: str, args: tuple[tuple[str, str], ...], kind: str,
                    env: _Env) -> _Agent:
    """Resolve a baseline's agent of side `kind` and check its option names."""
    absolute = _agent_text(env, agent)
    try:
        ref = resolve(absolute, args, kind=kind, cwd=env.base)
    except SubmissionError as exc:
        _raise(("agent",), str(exc))
    options = (
        _builtin_options(ref.module, ref.name)
        if ref.builtin
        else _source_options(ref.path, ref.name, ref.team)
    )
    problems = _Problems()
    for key, _ in args:
        if options is not None and key not in options:
            listed = ", ".join(options) or "none"
            problems.add(
                ("args", key),
                f"{ref.name} has no option {key!r}{_did_you_mean(key, options)}; "
                f"its options: {listed}",
            )
    problems.raise_any()
    # A folder keeps its reference so that its team.yaml is read when the game is played;
    # a built-in asked for as `builtin:Name` keeps the prefix, so that it resolves to the
    # built-in where the config's folder holds course files too.
    if ref.builtin:
        stored = absolute if absolute.startswith("builtin:") else ref.name
    else:
        stored = absolute if Path(absolute).is_dir() else ref.label
    return _Agent(ref, stored, options)


def _try_builtin(ref: AgentRef, build: Callable[[Any], object],
                 given: Collection[str] = (), stood_in: Mapping[str, str] | None = None) -> None:
    """Build a built-in once with its options, as the `pacman` command does: built-ins are
    the platform's own code, so this is safe and cheap, and a typo in `evalFn` is caught
    before hours of games rather than in each of them. A bad value of an option the config
    gave (`given`) is put at `args.<option>`. `stood_in`: what each stand-in built in place
    of a file of code stands for (`optionfiles.with_stand_ins`), as messages name it."""
    if not ref.builtin:
        return

    def said(text: str) -> str:
        return stood_for(text, stood_in or {})

    try:
        build(_builtin_class(ref.module, ref.name))
    except OptionError as exc:
        if exc.option in given:
            _raise(("args", exc.option), said(exc.problem))
        _raise(("args",), said(str(exc)))
    except Exception as exc:  # the built-in's own option checks: ValueError, TypeError
        _raise(("args",), said(str(exc)))


def _playable_code(args: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """A baseline's files of code as its games can play them: from one snapshot of one file
    (`tournament.runner._builtin_with_files`), so one file at most, read as Python, defining
    the function, importing nothing of its folder; each problem at its option. Returns the
    options to build the agent with once (`_try_builtin`), the platform's own functions
    standing in for the files (`optionfiles.with_stand_ins`): a baseline's file may be a
    student's, and never runs in the organizer's process; it plays in its sandbox."""
    if len(code_files(args)) > 1:
        _raise(("args",), f"{' and '.join(sorted(k for k, _ in args if k in CODE_OPTIONS))} "
               "name two files of code; a baseline plays with one (put both functions in it)")
    for key, value in args:
        problem = code_problem(key, value)
        if problem:
            _raise(("args", key), problem)
    return with_stand_ins(dict(args))


def _stood_in(args: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """Each stand-in `_playable_code` builds in place of a file, and the file's option value."""
    built = with_stand_ins(dict(args))
    return {built[key]: value for key, value in args if built[key] != value}


def _baseline(value: object, info: ValidationInfo) -> Entrant:
    """A Pacman baseline: the organizer's agent, so anything wrong with it is a config error."""
    shape = _BaselineIn.model_validate(value, context=info.context)
    env = _env(info)
    args = absolute_options(shape.args, env.base)
    trial = _playable_code(args)
    agent = _baseline_agent(shape.agent, args, "pacman", env)
    takes_depth = (
        shape.takes_depth
        if shape.takes_depth is not None
        else agent.options is None or "depth" in agent.options
    )
    if takes_depth and env.depths[0] is not None:
        trial["depth"] = str(env.depths[0])
    _try_builtin(agent.ref, lambda cls: cls(**trial), [key for key, _ in args],
                 _stood_in(args))
    if takes_depth and env.depths != (None,) and any(k == "depth" for k, _ in args):
        _raise(
            ("args", "depth"),
            "conflicts with grid.depths, which sets every entrant's depth; remove one "
            "(or set takes_depth: false to pin this entrant's depth)",
        )
    return Entrant(shape.name, "baseline", agent.stored, args, takes_depth=takes_depth)


def _ghost_baseline(value: object, info: ValidationInfo) -> Entrant:
    """A built-in (or organizer's) ghost team entered in matches. It plays with its own
    options: the grid's depth is the Pacman side's."""
    shape = _GhostBaselineIn.model_validate(value, context=info.context)
    env = _env(info)
    args = absolute_options(shape.args, env.base)
    options = _playable_code(args)
    agent = _baseline_agent(shape.agent, args, "ghost", env)
    # A ghost is built with its index.
    _try_builtin(agent.ref, lambda cls: cls(1, **options), options, _stood_in(args))
    return Entrant(shape.name, "baseline", agent.stored, args, takes_depth=False, side=GHOSTS)


def team_entrant_name(folder_name: str, taken: Collection[str] = ()) -> str:
    """The entrant name of a team folder: the folder's own name when it is a valid name not
    `taken` (by a baseline of a side the team plays), else one made from it (unusable
    characters as `_`, cut short, and 8 hex digits of the full name's hash so that two
    folders never share one), so that a folder named `José García`, holding a terminal
    escape or named as a baseline is (`reflex`) still plays (as `Jos__Garc_a-978edf99`,
    `reflex-<hex>`) instead of stopping the tournament. The same folder name always gives the
    same entrant name."""
    if NAME_PATTERN.fullmatch(folder_name) and folder_name not in taken:
        return folder_name
    stem = re.sub(r"[^A-Za-z0-9._+-]", "_", folder_name).lstrip("._+-")[:48] or "team"
    digest = hashlib.sha256(os.fsencode(folder_name)).hexdigest()[:8]
    return f"{stem}-{digest}"


class _FolderAgents(NamedTuple):
    """What a team folder without `team.yaml` plays on each side (`entrants.agent`/`args`,
    `entrants.ghost`/`ghost_args`), None where the config names nothing."""

    pacman: FolderAgent | None = None
    ghosts: FolderAgent | None = None

    def of(self, side: str) -> FolderAgent | None:
        return self.pacman if side == PACMAN else self.ghosts


def _team_sides(sub: Path, chosen: _FolderAgents) -> tuple[bool, bool, bool]:
    """(plays Pacman, plays the ghosts, has a team.yaml): from its `team.yaml`'s keys, read
    as the loader reads it. A team without `team.yaml` plays the sides the config names a
    class for (`chosen`), a Pacman entrant as before when it names none. One whose
    `team.yaml` cannot be read is a Pacman entrant (resolving it then gives its problem)."""
    without = (chosen.pacman is not None or chosen.ghosts is None, chosen.ghosts is not None,
               False)
    try:
        if sub.is_symlink():
            return True, False, False  # no team folder: resolving it says so
        if not os.path.lexists(sub / TEAM_YAML):
            return without
    except OSError:  # an unreadable folder: resolving it says so
        return True, False, False
    try:
        data = load_yaml(sub / TEAM_YAML, TEAM_FILE, follow_links=False)
    except YamlProblem:
        return True, False, True
    if not isinstance(data, dict):
        return True, False, True
    ghost = "ghost" in data
    return "agent" in data or not ghost, ghost, True


def _team(sub: Path, name: str, side: str, chosen: FolderAgent | None = None) -> Entrant:
    """A team folder as an entrant of `side`, named `name`, playing `chosen` when its folder
    has no `team.yaml`. What is inside the folder is the team's: a problem there (a bad
    team.yaml, a link, a missing class, an option its class lacks, an unreadable or empty
    folder) does not stop the tournament but is kept on the entrant, and its games fail to
    load, as the team's own failures."""
    kind = "pacman" if side == PACMAN else "ghost"
    team = partial(Entrant, name, "team", str(sub), (), folder=sub, side=side,
                   folder_agent=chosen)
    try:
        ref = resolve(str(sub), (), kind=kind, folder_agent=chosen)
    except SubmissionError as exc:
        return team(takes_depth=side == PACMAN, problem=str(exc))
    options = _source_options(ref.path, ref.name, ref.team)
    unknown = [k for k, _ in (chosen.args if chosen else ()) if options is not None
               and k not in options]
    problem = None
    if unknown and chosen is not None and ref.path is not None:
        problem = (f"{ref.path}: {ref.name} has no option {unknown[0]!r} (given with "
                   f"{chosen.named_by}); its options: {', '.join(options or ()) or 'none'}")
    if side == GHOSTS:
        return team(takes_depth=False, problem=problem)
    return team(takes_depth=options is None or "depth" in options, problem=problem)


def _clear_of_others(everyone: list[tuple[str, Entrant]]) -> list[tuple[str, Entrant]]:
    """A team folder whose name another entrant holds, on either side, is the team's
    accident, not the config's error (one folder must not stop the whole class): a
    baseline's name (`reflex`), or the name made for another folder (`Jos__Garc_a-978edf99`,
    made for `José García`, or `reflex-<hex>` made for a folder called as a baseline). The
    team plays under a name made from its folder's (`team_entrant_name` with that name
    taken), on both its sides, and `run` and `validate` say so. Across sides too: marks,
    ratings and a team's page find a team's games by its name, so a ghosts-only team called
    as the Pacman baseline `reflex` was marked on that baseline's games (a hostile review).
    Baselines alone may share a name across sides (an anchor named on both says its side).
    Names made so end in a hash of their own folder's name, so a few passes settle them (at
    most one per entrant); what still clashes (two made names alike, a 32-bit chance) is
    reported as a duplicate (`_entrants`)."""
    for _ in range(len(everyone) + 1):
        holders: dict[str, list[Entrant]] = {}
        for _, entrant in everyone:
            holders.setdefault(entrant.name, []).append(entrant)
        taken: dict[Path, set[str]] = {}
        for name, held in holders.items():
            folders = {e.folder for e in held if e.folder is not None}
            baseline = any(e.folder is None for e in held)
            # One team's two sides share its name; only another holder clashes.
            if not folders or (len(folders) == 1 and not baseline):
                continue
            # A baseline keeps its name; else the folder the name was made for keeps it.
            made = any(folder.name != name for folder in folders)
            for folder in folders:
                if baseline or (made and folder.name == name):
                    taken.setdefault(folder, set()).add(name)
        if not taken:
            break
        out = []
        for path, entrant in everyone:
            if entrant.folder is not None and entrant.folder in taken:
                name = team_entrant_name(entrant.folder.name, taken[entrant.folder])
                entrant = replace(entrant, name=name)
                path = f"{_TEAM_PATH}{name}]"
            out.append((path, entrant))
        everyone = out
    return everyone


#: The key path a team folder's problems are reported at, before its name.
_TEAM_PATH = "entrants.submissions["


def _teams(
    text: str, env: _Env, problems: _Problems, chosen: _FolderAgents
) -> tuple[Path | None, list[tuple[str, Entrant]]]:
    """The team folders of `entrants.submissions` as entrants of their sides, each with the
    key path it is reported at; a folder without `team.yaml` plays what `chosen` names.
    Every folder there is a team (one whose name cannot be an entrant's plays under
    `team_entrant_name`); only the submissions folder itself can be a config problem."""
    folder = env.path(text)
    if not folder.is_dir():
        problems.add(("submissions",), f"no such folder {text!r} (looked for {folder})")
        return None, []
    if (folder / TEAM_YAML).is_file():
        problems.add(
            ("submissions",),
            f"{text!r} is itself a team folder; give the folder that holds the team "
            "folders, or list this one under baselines",
        )
        return None, []
    try:
        subs = sorted(folder.iterdir())
    except OSError as exc:
        problems.add(("submissions",), f"{folder}: cannot be read: {exc.strerror or exc}")
        return None, []
    teams: list[tuple[str, Entrant]] = []
    for sub in subs:
        if sub.name.startswith((".", "_")) or not sub.is_dir():
            continue  # README files, .git, __pycache__: not teams (a link to a folder is)
        name = team_entrant_name(sub.name)
        path = f"{_TEAM_PATH}{name}]"
        pacman, ghost, named = _team_sides(sub, chosen)
        for side, plays in ((PACMAN, pacman), (GHOSTS, ghost)):
            if plays:
                teams.append((path, _team(sub, name, side, None if named else chosen.of(side))))
    return folder, teams


def _anything(value: object, info: ValidationInfo) -> object:
    return value


def _folder_agents(shape: _EntrantsIn, env: _Env, problems: _Problems) -> _FolderAgents:
    """`entrants.agent`/`args` and `ghost`/`ghost_args`: the classes team folders without
    `team.yaml` play, checked against the rest of the config (each team's files are the
    team's: a class missing there is that team's problem, found when it is resolved)."""
    found: dict[str, FolderAgent] = {}
    for key, args_key, args in (("agent", "args", shape.args),
                                ("ghost", "ghost_args", shape.ghost_args)):
        name = getattr(shape, key)
        if name is None:
            if args:
                problems.add((args_key,), f"options without a class: give entrants.{key} too "
                             "(they are its options), or remove them")
            continue
        if shape.submissions is None:
            problems.add((key,), "names the class of team folders without team.yaml, but "
                         "there is no entrants.submissions folder")
        found[key] = FolderAgent(name, args, f"entrants.{key}")
    if "ghost" in found and not env.matches_given:
        problems.add(("ghost",), "ghosts play only in match games: add a matches: section, "
                     "or remove it")
    if env.depths != (None,) and any(k == "depth" for k, _ in shape.args):
        problems.add(("args", "depth"), "conflicts with grid.depths, which sets every "
                     "entrant's depth; remove one")
    return _FolderAgents(found.get("agent"), found.get("ghost"))


def _class_name(value: object) -> str:
    text = _text("a class name (ExpectimaxAgent)")(value)
    if not text.isidentifier():
        raise _problem(f"expected a class name (ExpectimaxAgent), got {_show(value)}: the class "
                       "is looked up in each team's agent files (*gents.py, submission.py)")
    return text


ClassName = Annotated[str | None, PlainValidator(_class_name)]


class _EntrantsIn(_Mapping):
    submissions: Annotated[str | None, PlainValidator(_text("a folder of team folders"))] = None
    agent: ClassName = None
    args: Args = ()
    ghost: ClassName = None
    ghost_args: Args = ()
    baselines: Annotated[
        tuple[object, ...],
        PlainValidator(_list_of("{name, agent, args}", _anything, path="entrants.baselines")),
    ] = ()
    ghost_baselines: Annotated[
        tuple[object, ...],
        PlainValidator(
            _list_of("{name, agent, args}", _anything, path="entrants.ghost_baselines")
        ),
    ] = ()


def _entrants(value: object, info: ValidationInfo) -> _Entrants:
    """Teams and baselines of both sides: each checked on its own, then the names of each
    side against each other (a team may have the same name on both sides)."""
    shape = _EntrantsIn.model_validate(value, context=info.context)
    env = _env(info)
    problems = _Problems()
    chosen = _folder_agents(shape, env, problems)
    everyone: list[tuple[str, Entrant]] = []
    folder: Path | None = None
    if shape.submissions is not None:
        folder, teams = _teams(shape.submissions, env, problems, chosen)
        everyone += teams
    for key, check, items in (
        ("baselines", _baseline, shape.baselines),
        ("ghost_baselines", _ghost_baseline, shape.ghost_baselines),
    ):
        for i, item in enumerate(items):
            entrant = problems.run(partial(check, item, info), (key, i))
            if entrant is not None:
                everyone.append((f"entrants.{key}[{i}].name", entrant))
    everyone = _clear_of_others(everyone)
    first: dict[tuple[str, str], str] = {}
    #: Per name, who holds it: a team folder, or None for a baseline (on either side).
    holder: dict[str, Path | None] = {}
    for path, entrant in everyone:
        seen = (entrant.side, entrant.name)
        held = holder.setdefault(entrant.name, entrant.folder)
        if seen not in first and held != entrant.folder:
            # Across sides: a name is one team's (its two sides) or baselines'.
            problems.add(
                (), f"the entrant name {entrant.name!r} is held by another entrant on the "
                "other side", at=path)
        if seen in first:
            problems.add(
                (),
                f"the entrant name {entrant.name!r} is already given at {first[seen]}",
                at=path,
            )
        else:
            first[seen] = path
    if not everyone and not problems:
        problems.add((), "no entrant: give a submissions folder with team folders, or baselines")
    elif not env.matches_given:
        # Without matches only the Pacman side plays (against the grid's ghosts).
        if shape.ghost_baselines:
            problems.add(("ghost_baselines",), "ghost baselines play only in match games: add "
                         "a matches: section, or remove them")
        elif not any(entrant.side == PACMAN for _, entrant in everyone) and not problems:
            problems.add((), "no Pacman entrant: without matches: only Pacman entrants play; "
                         "give teams whose team.yaml names an agent, or baselines")
    problems.raise_any()
    return _Entrants(
        tuple(entrant for _, entrant in everyone if entrant.side == PACMAN),
        tuple(entrant for _, entrant in everyone if entrant.side == GHOSTS),
        folder,
    )


# ---- matches ------------------------------------------------------------------------------


def _match_design(value: object) -> MatchDesign:
    design = _choice(MATCH_DESIGNS, "design")(value)
    return next(known for known in MATCH_DESIGNS if known == design)


class _MatchesIn(_Mapping):
    design: Annotated[MatchDesign, PlainValidator(_match_design)] = "all"
    opponents: Annotated[int | None, PlainValidator(_whole(1))] = None
    ghosts: Positive = 2
    games: Annotated[int | None, PlainValidator(_whole(1))] = None
    anchor: Annotated[str | None, PlainValidator(_text("an entrant's name"))] = None
    anchor_side: Annotated[str | None, PlainValidator(_choice(SIDES, "side"))] = None


def _matches(value: object, info: ValidationInfo) -> MatchConfig:
    """The match format, checked against the entrants (when they are valid themselves)."""
    shape = _MatchesIn.model_validate(value, context=info.context)
    problems = _Problems()
    k = shape.opponents
    if shape.design == "all" and k is not None:
        problems.add(
            ("opponents",),
            "only a sampled design takes opponents (design: all plays every pairing); "
            "remove it or set design: sampled",
        )
    if shape.design == "sampled" and k is None:
        problems.add(("opponents",), "required with design: sampled: how many opponents "
                     "each entrant meets")
    games = shape.games or info.data.get("games_per_cell") or DEFAULT_GAMES_PER_CELL
    anchor, anchor_side = shape.anchor or "", shape.anchor_side or GHOSTS
    entrants = info.data.get("entrants")
    if isinstance(entrants, _Entrants):
        sides = {PACMAN: entrants.entrants, GHOSTS: entrants.ghosts}
        if not entrants.ghosts:
            problems.add((), "no ghost entrant to play against: give teams whose team.yaml "
                         "names a ghost, or entrants.ghost_baselines")
        if not entrants.entrants:
            problems.add((), "no Pacman entrant to play against the ghost entrants: give "
                         "teams whose team.yaml names an agent, or entrants.baselines")
        if shape.design == "sampled" and k is not None and entrants.ghosts and entrants.entrants:
            smaller = min(SIDES, key=lambda side: len(sides[side]))
            available = len(sides[smaller])
            if k > available:
                problems.add(
                    ("opponents",),
                    f"{k} opponents per entrant, but there are only {available} "
                    f"{'Pacman' if smaller == PACMAN else 'ghost'} entrants to meet",
                )
            elif k == 1 and available > 1:
                # Each entrant then meets one opponent: the pairings fall apart into groups
                # that no game links, and entrants of different groups cannot be compared.
                problems.add(
                    ("opponents",),
                    "1 opponent per entrant leaves groups of entrants that no game links, "
                    "so they cannot be rated on one scale; use at least 2",
                )
        found = _anchor(shape, sides, problems)
        if found is not None:
            anchor, anchor_side = found
    problems.raise_any()
    return MatchConfig(
        design=shape.design,
        opponents=k,
        ghosts=shape.ghosts,
        games=games,
        anchor=anchor,
        anchor_side=anchor_side,
    )


def _anchor(
    shape: _MatchesIn, sides: dict[str, tuple[Entrant, ...]], problems: _Problems
) -> tuple[str, str] | None:
    """The entrant rated 0 and its side: the one named, or the first ghost baseline."""
    if shape.anchor is None:
        baselines = [e.name for e in sides[GHOSTS] if e.kind == "baseline"]
        if shape.anchor_side is not None:
            problems.add(("anchor_side",), "only with anchor (the default anchor is the first "
                         "ghost baseline)")
        elif baselines:
            return baselines[0], GHOSTS
        elif sides[GHOSTS]:
            problems.add(("anchor",), "required: the entrant rated 0 (there is no ghost "
                         "baseline to default to)")
        return None
    name = shape.anchor
    on = [side for side in SIDES if any(e.name == name for e in sides[side])]
    everyone = sorted({e.name for side in SIDES for e in sides[side]})
    if shape.anchor_side is not None:
        if shape.anchor_side in on:
            return name, shape.anchor_side
        names = [e.name for e in sides[shape.anchor_side]]
        problems.add(
            ("anchor",),
            f"no {shape.anchor_side} entrant {name!r}{_did_you_mean(name, names)}",
        )
    elif not on:
        problems.add(
            ("anchor",),
            f"unknown entrant {name!r}{_did_you_mean(name, everyone)}; expected one of "
            + ", ".join(everyone),
        )
    elif len(on) == 2:
        problems.add(
            ("anchor",),
            f"{name!r} is both a Pacman and a ghost entrant; say which with anchor_side: "
            "pacman or ghosts",
        )
    else:
        return name, on[0]
    return None


# ---- the rest -----------------------------------------------------------------------------


def _limits(value: object) -> Limits:
    """The limits mapping; its keys are `Limits`' fields, and `null` switches one off."""
    if not isinstance(value, dict):
        raise _problem(f"expected a mapping, got {_show(value)}")
    problems = _Problems()
    values: dict[str, object] = {}
    for key, item in _known(value, _LIMIT_KEYS, problems).items():
        if item is None and key in _NULLABLE_LIMITS:
            values[key] = None
            continue
        problem = limit_problem(key, item)
        if problem:
            if item is None:
                problem = "cannot be switched off; expected a whole number, got null"
            problems.add((key,), f"{problem}; {key}: {DESCRIPTIONS[key]}")
            continue
        # Seconds are floats whether the YAML said 15 or 15.0; counts stay whole numbers.
        if key not in _COUNT_LIMITS and isinstance(item, (int, float)):
            item = float(item)
        values[key] = item
    problems.raise_any()
    limits = Limits().with_changes(**values)
    if (
        limits.move_soft is not None
        and limits.move_hard is not None
        and limits.move_soft > limits.move_hard
    ):
        _raise(
            ("move_soft",),
            f"{limits.move_soft} s is above limits.move_hard ({limits.move_hard} s), so "
            "the warning could never come before the kill",
        )
    return limits


def _seconds(value: object) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not (math.isfinite(value) and value > 0)):
        raise _problem(f"expected a number of seconds above 0, got {_show(value)}")
    return float(value)


class _ClusterIn(_Mapping):
    connect_timeout: Annotated[float, PlainValidator(_seconds)] = ClusterConfig.connect_timeout
    worker_wait: Annotated[float, PlainValidator(_seconds)] = ClusterConfig.worker_wait
    in_flight: Annotated[int | None, PlainValidator(_whole(1))] = None
    trusted_network: Annotated[bool, PlainValidator(flag)] = False


def _replay_policy(value: object) -> ReplayPolicy:
    policy = _choice(REPLAY_POLICIES, "replay policy")(value)
    return next(known for known in REPLAY_POLICIES if known == policy)


class _RecordIn(_Mapping):
    replays: Annotated[ReplayPolicy, PlainValidator(_replay_policy)] = "failures"


class _RankingIn(_Mapping):
    by: Annotated[
        tuple[str, ...],
        PlainValidator(
            _list_of(
                "statistics",
                _plain(_choice(RANKING_KEYS, "statistic")),
                path="ranking.by",
                empty="expected at least one statistic",
                duplicate="the statistic",
            )
        ),
    ] = RankingConfig().by
    confidence: Annotated[float, PlainValidator(_confidence)] = RankingConfig().confidence


class _SandboxIn(_Mapping):
    accept_missing: Annotated[
        tuple[str, ...],
        PlainValidator(
            _list_of(
                "sandbox guarantees",
                _plain(_choice(GUARANTEE_NAMES, "sandbox guarantee")),
                path="sandbox.accept_missing",
            )
        ),
    ] = ()


class _ConfigIn(_Mapping):
    """The whole config; its fields' order is the order keys are listed in messages."""

    name: Annotated[str, PlainValidator(_text("a name"))] = Field(
        description="the tournament's name"
    )
    seed: Whole = 0
    entrants: Annotated[_Entrants, PlainValidator(_entrants)] = Field(
        description="a submissions folder or baselines"
    )
    grid: _GridIn = Field(description="the cells to play (at least grid.layouts)")
    games_per_cell: Positive = DEFAULT_GAMES_PER_CELL
    matches: Annotated[MatchConfig | None, PlainValidator(_matches)] = None
    limits: Annotated[Limits, PlainValidator(_limits)] = Field(default_factory=Limits)
    workers: Annotated[int | None, PlainValidator(_whole(1))] = None
    scheduler: Annotated[str | None, PlainValidator(scheduler_address)] = None
    cluster: _ClusterIn | None = None
    output: Annotated[str | None, PlainValidator(_text("a folder for the results"))] = None
    record: _RecordIn = Field(default_factory=_RecordIn)
    ranking: _RankingIn = Field(default_factory=_RankingIn)
    sandbox: _SandboxIn = Field(default_factory=_SandboxIn)
    secret_file: Annotated[
        str | None, PlainValidator(_text("a file for the tournament's secret"))
    ] = None

    def build(self, base: Path) -> TournamentConfig:
        env = _Env(base, self.grid.depths)
        return TournamentConfig(
            name=self.name,
            seed=self.seed,
            entrants=self.entrants.entrants,
            grid=self.grid.build(),
            games_per_cell=self.games_per_cell,
            limits=self.limits,
            workers=self.workers,
            scheduler=self.scheduler,
            cluster=ClusterConfig() if self.cluster is None else ClusterConfig(
                self.cluster.connect_timeout, self.cluster.worker_wait, self.cluster.in_flight,
                self.cluster.trusted_network),
            output=env.path(self.output or f"results/{slug(self.name)}"),
            record=RecordConfig(self.record.replays),
            ranking=RankingConfig(by=self.ranking.by, confidence=self.ranking.confidence),
            sandbox=SandboxConfig(self.sandbox.accept_missing),
            secret_file=None if self.secret_file is None else env.path(self.secret_file),
            submissions=self.entrants.submissions,
            # Without matches nothing plays a team's ghosts: they are no entrant (and the
            # config is exactly today's format).
            ghost_entrants=self.entrants.ghosts if self.matches is not None else (),
            matches=self.matches,
        )


def _builtin_class(module: str, cls_name: str) -> Any:
    return getattr(importlib.import_module(module), cls_name)


def _source_options(path: str | None, cls_name: str,
                    team: str | None = None) -> list[str] | None:
    """A file agent's option names read from its source (never run; a team's through its
    folder's descriptors), or None if unknown."""
    if path is None or (team is None and not Path(path).is_file()):
        return None
    return options_in_source(Path(path), cls_name, Path(team) if team else None)


def _builtin_options(module: str, cls_name: str) -> list[str] | None:
    """A built-in agent's option names, or None when it takes any (`**kwargs`)."""
    try:
        params = inspect.signature(_builtin_class(module, cls_name)).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return [
        p.name
        for p in params
        if p.name not in ("self", "index")
        and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]


# ---- for other organizer files that name agents, layouts and limits (a tune file) ----------


def agent_text(text: str, base: Path) -> str:
    """An agent reference with a relative file or folder made absolute against `base`
    (built-in names kept), as a config stores it."""
    return _agent_text(_Env(base, (None,)), text)


def agent_options(ref: AgentRef) -> list[str] | None:
    """The option names an agent's constructor takes: a built-in's from its signature, a
    file agent's read from its source (never run); None when they cannot be told."""
    if ref.builtin:
        return _builtin_options(ref.module, ref.name)
    return _source_options(ref.path, ref.name, ref.team)


def limits_value(value: object) -> Limits:
    """A `limits:` mapping checked as a config's (its problems keyed by limit name)."""
    return _limits(value)
