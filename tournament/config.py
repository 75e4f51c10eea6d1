"""A tournament's YAML config, checked completely and turned into frozen values.

An organizer edits the config, runs a command, and must not find out one typo per run: the
parser walks the whole file, collects every problem with its key path
(`grid.layouts[2]: unknown layout 'smalClassic' (did you mean smallClassic?)`) and raises one
`ConfigError` listing them all, before anything is played. Unknown keys are errors too,
because a misspelt optional key would otherwise silently fall back to its default.

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

import difflib
import importlib
import inspect
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from pacman.layout import PROJECT_LAYOUTS, LayoutError, available_layouts, load_layout
from pacman.limits import ALWAYS, COUNTS, DESCRIPTIONS, Limits, limit_problem
from pacman.loader import SubmissionError, agent_files, options_in_source, resolve
from pacman.rules import RULESETS
from pacman.sandbox.guarantees import NAMES as GUARANTEE_NAMES
from pacman.yamlfile import ORGANIZER_FILE, YamlProblem, load_yaml
from tournament.ranking import RANKING_KEYS

ReplayPolicy = Literal["none", "failures", "all"]
EntrantKind = Literal["team", "baseline"]
T = TypeVar("T")

#: What `record.replays` may say: keep no replay, the replays of games an agent failed, or all.
REPLAY_POLICIES: tuple[ReplayPolicy, ...] = ("none", "failures", "all")
#: The statistics a ranking may sort by (columns of `tournament.leaderboard.leaderboard`).
#: Moves of all agents together after which a tournament game ends as `move_limit` unless the
#: config says otherwise (`grid.max_moves`). A tournament needs an end to every game; the
#: `pacman` command has none by default, as the course engine.
DEFAULT_MAX_MOVES = 3000
#: The ghosts a grid may play against; `file.py:Class` references are accepted as well.
BUILTIN_GHOSTS = ("RandomGhost", "DirectionalGhost")

#: Entrant and layout names end up in game ids and replay file names, so they are kept to
#: characters that are safe in both and never collide with the id's separators (@ / #).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
NAME_RULE = "use up to 64 letters, digits and . _ + - (it appears in game ids and file names)"

_TOP_KEYS = (
    "name",
    "seed",
    "entrants",
    "grid",
    "games_per_cell",
    "limits",
    "workers",
    "scheduler",
    "output",
    "record",
    "ranking",
    "sandbox",
    "secret_file",
)
_ENTRANTS_KEYS = ("submissions", "baselines")
_BASELINE_KEYS = ("name", "agent", "args", "takes_depth")
_GRID_KEYS = ("layouts", "depths", "ghosts", "rules", "max_moves")
_GHOST_KEYS = ("agent", "count")
_RECORD_KEYS = ("replays",)
_SANDBOX_KEYS = ("accept_missing",)
_RANKING_KEYS = ("by", "confidence")
_LIMIT_KEYS = tuple(f.name for f in fields(Limits))
#: Limits counted in whole numbers; the others are seconds.
_COUNT_LIMITS = tuple(COUNTS)
#: Limits whose value may be null (switched off); the others always apply.
_NULLABLE_LIMITS = tuple(name for name in _LIMIT_KEYS if name not in ALWAYS)


class ConfigError(ValueError):
    """A config that cannot be used; the message lists every problem, one per line.

    `problems` holds the same lines without the file-name prefix, for tests and for callers
    that present them differently.
    """

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__("\n".join(f"{source}: {p}" for p in self.problems))

    def __reduce__(self) -> tuple[type[ConfigError], tuple[str, tuple[str, ...]]]:
        # Rebuilt from its parts, so that it survives a trip to another process (pickle).
        return type(self), (self.source, self.problems)


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
class TournamentConfig:
    """A checked tournament config; every path in it is absolute."""

    name: str
    entrants: tuple[Entrant, ...]
    grid: GridConfig
    output: Path
    seed: int = 0
    games_per_cell: int = 20
    limits: Limits = field(default_factory=Limits)
    #: Parallel games; None means one per CPU core (`worker_count`).
    workers: int | None = None
    #: A Dask scheduler address; None plays in a local process pool.
    scheduler: str | None = None
    record: RecordConfig = field(default_factory=RecordConfig)
    ranking: RankingConfig = field(default_factory=RankingConfig)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
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

    def entrant(self, name: str) -> Entrant:
        for entrant in self.entrants:
            if entrant.name == name:
                return entrant
        raise KeyError(f"no entrant {name!r} in this tournament")


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
    parser = _Parser(base)
    config = parser.config(data)
    if parser.problems or config is None:
        order = {key: i for i, key in enumerate(data)} if isinstance(data, dict) else {}

        def position(problem: str) -> int:
            top = re.split(r"[.\[:]", problem, maxsplit=1)[0]
            return order.get(top, len(order))

        raise ConfigError(source, sorted(parser.problems, key=position) or ["the config is empty"])
    return config


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
        lines.append(f"  {entrant.name}: {entrant.kind} {entrant.ref}{extra}{depth_note}")
    lines += [
        f"layouts: {', '.join(choice.name for choice in grid.layouts)}",
        f"depths: {depths}",
        f"ghosts: {', '.join(f'{g.count} x {g.name}' for g in grid.ghosts)}",
        f"rules: {', '.join(grid.rules)}; at most {grid.max_moves} moves per game",
        f"{cells} cells x {len(config.entrants)} entrants x {config.games_per_cell} games"
        f" = {games} games",
        "limits: "
        + ", ".join(
            f"{name}={'off' if value is None else value}"
            for name, value in config.limits.as_dict().items()
        ),
        f"workers: {workers}"
        + (f" on the Dask cluster at {config.scheduler}" if config.scheduler else ""),
        f"output: {config.output}",
        f"replays kept: {config.record.replays}",
        f"ranking: by {', then '.join(config.ranking.by)}; "
        f"{config.ranking.confidence:.0%} intervals",
    ]
    return "\n".join(lines)


def slug(text: str) -> str:
    """A folder-safe form of a tournament name, for the default output folder."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "tournament"


def _show(value: object) -> str:
    """A found value as the organizer wrote it in YAML."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Parser:
    """Walks the data once, collecting problems instead of stopping at the first."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.problems: list[str] = []

    def problem(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}" if path else message)

    # ---- generic shapes -------------------------------------------------------------------

    def mapping(self, value: object, path: str, allowed: Sequence[str]) -> dict[str, object] | None:
        """The value as a mapping with known keys only; unknown keys are reported."""
        if not isinstance(value, dict):
            self.problem(path or "(top level)", f"expected a mapping, got {_show(value)}")
            return None
        out: dict[str, object] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                self.problem(path or "(top level)", f"keys must be text, got {_show(key)}")
                continue
            if key not in allowed:
                self.problem(
                    _join(path, key),
                    f"unknown key{_did_you_mean(key, allowed)}; expected one of "
                    + ", ".join(allowed),
                )
                continue
            out[key] = item
        return out

    def sequence(self, value: object, path: str, what: str) -> list[object] | None:
        if not isinstance(value, list):
            self.problem(path, f"expected a list of {what}, got {_show(value)}")
            return None
        return value

    def whole(self, value: object, path: str, minimum: int | None = None) -> int | None:
        expected = "a whole number" + (f" >= {minimum}" if minimum is not None else "")
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(path, f"expected {expected}, got {_show(value)}")
            return None
        if minimum is not None and value < minimum:
            self.problem(path, f"expected {expected}, got {value}")
            return None
        return value

    def text(self, value: object, path: str, what: str) -> str | None:
        if not isinstance(value, str) or not value.strip():
            self.problem(path, f"expected {what}, got {_show(value)}")
            return None
        return value.strip()

    def flag(self, value: object, path: str) -> bool | None:
        if not isinstance(value, bool):
            self.problem(path, f"expected true or false, got {_show(value)}")
            return None
        return value

    def choice(self, value: object, path: str, choices: Sequence[str], what: str) -> str | None:
        if not isinstance(value, str) or value not in choices:
            hint = _did_you_mean(value, choices) if isinstance(value, str) else ""
            self.problem(
                path, f"unknown {what} {_show(value)}{hint}; expected one of {', '.join(choices)}"
            )
            return None
        return value

    def required(
        self,
        data: dict[str, object],
        key: str,
        path: str,
        what: str,
        check: Callable[[object, str], T | None],
    ) -> T | None:
        """`check` the value under a key that must be there; an absent key is reported."""
        where = _join(path, key)
        if key not in data:
            self.problem(where, f"required: {what}")
            return None
        return check(data[key], where)

    def path(self, text: str) -> Path:
        return (self.base / Path(text).expanduser()).resolve()

    def name(self, value: str, path: str) -> bool:
        if NAME_PATTERN.fullmatch(value):
            return True
        self.problem(path, f"{value!r} cannot be used as a name: {NAME_RULE}")
        return False

    def duplicates(self, items: Sequence[tuple[str, object]], what: str) -> None:
        """Report items (key path, value) whose value an earlier item already had."""
        first: dict[object, str] = {}
        for path, value in items:
            if value in first:
                self.problem(path, f"{what} {_show(value)} is already given at {first[value]}")
            else:
                first[value] = path

    # ---- the config -----------------------------------------------------------------------

    def config(self, value: object) -> TournamentConfig | None:
        """The whole config, or None when anything was reported (then nothing is built)."""
        if value is None:
            self.problem("", "the config is empty; it needs at least name, entrants and grid")
            return None
        data = self.mapping(value, "", _TOP_KEYS)
        if data is None:
            return None
        name = self.required(
            data, "name", "", "the tournament's name", lambda v, p: self.text(v, p, "a name")
        )
        seed = self.whole(data["seed"], "seed") if "seed" in data else 0
        games = (
            self.whole(data["games_per_cell"], "games_per_cell", 1)
            if "games_per_cell" in data
            else 20
        )
        grid = self.required(
            data, "grid", "", "the cells to play (at least grid.layouts)", lambda v, _: self.grid(v)
        )
        depths = grid.depths if grid is not None else (None,)
        entrants, submissions = self.required(
            data,
            "entrants",
            "",
            "a submissions folder or baselines",
            lambda v, _: self.entrants(v, depths),
        ) or (None, None)
        limits = self.limits(data.get("limits"))
        workers = self.workers(data.get("workers"))
        scheduler = self.scheduler(data.get("scheduler"))
        output = self.output(data.get("output"), name)
        record = self.record(data.get("record"))
        ranking = self.ranking(data.get("ranking"))
        sandbox = self.sandbox(data.get("sandbox"))
        secret_file = None
        if data.get("secret_file") is not None:
            text = self.text(data["secret_file"], "secret_file", "a file for the tournament's "
                             "secret")
            secret_file = None if text is None else self.path(text)
        if self.problems:
            return None
        # Every part reports what is wrong with it, so no problems means every part was built.
        assert name is not None and seed is not None and games is not None
        assert grid is not None and entrants is not None and limits is not None
        assert output is not None and record is not None and ranking is not None
        assert sandbox is not None
        return TournamentConfig(
            name=name,
            seed=seed,
            entrants=entrants,
            grid=grid,
            games_per_cell=games,
            limits=limits,
            workers=workers,
            scheduler=scheduler,
            output=output,
            record=record,
            ranking=ranking,
            sandbox=sandbox,
            secret_file=secret_file,
            submissions=submissions,
        )

    # ---- entrants -------------------------------------------------------------------------

    def entrants(
        self, value: object, depths: tuple[int | None, ...]
    ) -> tuple[tuple[Entrant, ...] | None, Path | None]:
        data = self.mapping(value, "entrants", _ENTRANTS_KEYS)
        if data is None:
            return None, None
        teams: list[tuple[str, Entrant]] = []
        folder: Path | None = None
        if data.get("submissions") is not None:
            folder, teams = self.teams(data["submissions"])
        baselines: list[tuple[str, Entrant]] = []
        if data.get("baselines") is not None:
            items = self.sequence(data["baselines"], "entrants.baselines", "{name, agent, args}")
            for i, item in enumerate(items or []):
                entrant = self.baseline(item, f"entrants.baselines[{i}]", depths)
                if entrant is not None:
                    baselines.append((f"entrants.baselines[{i}].name", entrant))
        everyone = teams + baselines
        self.duplicates([(path, e.name) for path, e in everyone], "the entrant name")
        if not everyone and not any(p.startswith("entrants") for p in self.problems):
            self.problem(
                "entrants", "no entrant: give a submissions folder with team folders, or baselines"
            )
        return tuple(e for _, e in everyone), folder

    def teams(self, value: object) -> tuple[Path | None, list[tuple[str, Entrant]]]:
        where = "entrants.submissions"
        text = self.text(value, where, "a folder of team folders")
        if text is None:
            return None, []
        folder = self.path(text)
        if not folder.is_dir():
            self.problem(where, f"no such folder {text!r} (looked for {folder})")
            return None, []
        if (folder / "team.yaml").is_file():
            self.problem(
                where,
                f"{text!r} is itself a team folder; give the folder that holds the team "
                "folders, or list this one under baselines",
            )
            return None, []
        teams: list[tuple[str, Entrant]] = []
        for sub in sorted(folder.iterdir()):
            if sub.name.startswith((".", "_")) or not sub.is_dir():
                continue  # README files, .git, __pycache__: not teams (a link to a folder is)
            path = f"{where}[{sub.name}]"
            if not self.name(sub.name, path):
                continue
            if (not sub.is_symlink() and not os.path.lexists(sub / "team.yaml")
                    and not agent_files(sub)):
                self.problem(
                    path,
                    f"the folder {sub.name!r} has no team.yaml and no *gents.py or "
                    "submission.py; every folder here must be a team",
                )
                continue
            teams.append((path, self.team(sub)))
        return folder, teams

    @staticmethod
    def team(sub: Path) -> Entrant:
        """A team folder as an entrant. What is inside the folder is the team's: a problem
        there (a bad team.yaml, a link, a missing class) does not stop the tournament but is
        kept on the entrant, and its games fail to load, as the team's own failures."""
        try:
            ref = resolve(str(sub), (), kind="pacman")
        except SubmissionError as exc:
            return Entrant(sub.name, "team", str(sub), (), folder=sub, problem=str(exc))
        options = _source_options(ref.path, ref.name, ref.team)
        takes_depth = options is None or "depth" in options
        return Entrant(sub.name, "team", str(sub), (), folder=sub, takes_depth=takes_depth)

    def baseline(self, value: object, path: str, depths: tuple[int | None, ...]) -> Entrant | None:
        data = self.mapping(value, path, _BASELINE_KEYS)
        if data is None:
            return None
        name = self.required(
            data, "name", path, "the entrant's name", lambda v, p: self.text(v, p, "a name")
        )
        if name is not None and not self.name(name, _join(path, "name")):
            name = None
        what = "a built-in agent name or file.py:Class"
        agent = self.required(data, "agent", path, what, lambda v, p: self.text(v, p, what))
        args = self.args(data.get("args"), _join(path, "args"))
        takes_depth = (
            self.flag(data["takes_depth"], _join(path, "takes_depth"))
            if data.get("takes_depth") is not None
            else None
        )
        if agent is None or args is None:
            return None

        absolute = self.agent_text(agent)
        try:
            ref = resolve(absolute, args, kind="pacman", cwd=self.base)
        except SubmissionError as exc:
            self.problem(_join(path, "agent"), str(exc))
            return None
        options = (
            _builtin_options(ref.module, ref.name)
            if ref.builtin
            else _source_options(ref.path, ref.name, ref.team)
        )
        if takes_depth is None:
            takes_depth = options is None or "depth" in options
        if not self.option_names(ref.name, args, options, _join(path, "args")):
            return None
        if ref.builtin and not self.builtin_args(
            ref.module, ref.name, args, depths, takes_depth, _join(path, "args")
        ):
            return None
        if takes_depth and depths != (None,) and any(k == "depth" for k, _ in args):
            self.problem(
                _join(path, "args.depth"),
                "conflicts with grid.depths, which sets every entrant's depth; remove one "
                "(or set takes_depth: false to pin this entrant's depth)",
            )
            return None
        if name is None:
            return None
        # A folder keeps its reference so that its team.yaml is read when the game is played;
        # a built-in asked for as `builtin:Name` keeps the prefix, so that it resolves to the
        # built-in where the config's folder holds course files too.
        if ref.builtin:
            stored = absolute if absolute.startswith("builtin:") else ref.name
        else:
            stored = absolute if Path(absolute).is_dir() else ref.label
        return Entrant(name, "baseline", stored, args, takes_depth=takes_depth)

    def agent_text(self, agent: str) -> str:
        """The reference with a relative file or folder made absolute (built-in names kept,
        `builtin:Name` too)."""
        if agent.startswith("builtin:"):
            return agent
        if ":" in agent:
            file_part, _, cls_name = agent.rpartition(":")
            if file_part:
                return f"{self.path(file_part)}:{cls_name}"
            return agent
        if "/" in agent or os.sep in agent or agent.endswith(".py") or agent.startswith("."):
            return str(self.path(agent))
        return agent

    def option_names(
        self,
        cls_name: str,
        args: tuple[tuple[str, str], ...],
        options: list[str] | None,
        path: str,
    ) -> bool:
        """Report options the agent's constructor does not take (None: it cannot be told)."""
        ok = True
        for key, _ in args:
            if options is not None and key not in options:
                hint = _did_you_mean(key, options)
                listed = ", ".join(options) or "none"
                self.problem(
                    _join(path, key),
                    f"{cls_name} has no option {key!r}{hint}; its options: {listed}",
                )
                ok = False
        return ok

    def builtin_args(
        self,
        module: str,
        cls_name: str,
        args: tuple[tuple[str, str], ...],
        depths: tuple[int | None, ...],
        takes_depth: bool,
        path: str,
    ) -> bool:
        """Check a built-in's option values by building it once, as the `pacman` command does.

        Built-ins are the platform's own code, so building one here is safe and cheap, and a
        typo in `evalFn` is caught before hours of games rather than in each of them.
        """
        trial = dict(args)
        if takes_depth and depths[0] is not None:
            trial["depth"] = str(depths[0])
        try:
            _builtin_class(module, cls_name)(**trial)
        except Exception as exc:  # the built-in's own option checks: ValueError, TypeError
            self.problem(path, str(exc))
            return False
        return True

    def args(self, value: object, path: str) -> tuple[tuple[str, str], ...] | None:
        if value is None:
            return ()
        if not isinstance(value, dict):
            self.problem(path, f"expected a mapping of option: value, got {_show(value)}")
            return None
        out: list[tuple[str, str]] = []
        ok = True
        for key, item in value.items():
            if not isinstance(key, str) or not key.isidentifier():
                self.problem(path, f"{_show(key)} is not an option name")
                ok = False
                continue
            if isinstance(item, (dict, list)) or item is None:
                self.problem(
                    _join(path, key), f"expected a text, number or true/false, got {_show(item)}"
                )
                ok = False
                continue
            out.append((key, str(item)))
        return tuple(out) if ok else None

    # ---- grid -----------------------------------------------------------------------------

    def grid(self, value: object) -> GridConfig | None:
        data = self.mapping(value, "grid", _GRID_KEYS)
        if data is None:
            return None
        start = len(self.problems)
        layouts: list[LayoutChoice] = []
        what = "layout names or .lay files"
        items = self.required(
            data, "layouts", "grid", f"a list of {what}", lambda v, p: self.sequence(v, p, what)
        )
        if items is not None and not items:
            self.problem("grid.layouts", "expected at least one layout")
        for i, item in enumerate(items or []):
            choice = self.layout(item, f"grid.layouts[{i}]")
            if choice is not None:
                layouts.append(choice)
        self.duplicates(
            [(f"grid.layouts[{i}]", c.name) for i, c in enumerate(layouts)], "the layout"
        )

        depths: tuple[int | None, ...] = (None,)
        if data.get("depths") is not None:
            entries = self.sequence(data["depths"], "grid.depths", "whole numbers >= 1")
            found = [self.whole(d, f"grid.depths[{i}]", 1) for i, d in enumerate(entries or [])]
            if entries is not None and not entries:
                self.problem("grid.depths", "expected at least one depth, or null")
            self.duplicates(
                [(f"grid.depths[{i}]", d) for i, d in enumerate(found) if d is not None],
                "the depth",
            )
            depths = tuple(found)

        ghosts: list[GhostSetting] = [GhostSetting("RandomGhost", 2)]
        if "ghosts" in data:
            ghosts = []
            entries = self.sequence(data["ghosts"], "grid.ghosts", "{agent, count}")
            if entries is not None and not entries:
                self.problem("grid.ghosts", "expected at least one {agent, count}")
            for i, item in enumerate(entries or []):
                setting = self.ghost(item, f"grid.ghosts[{i}]")
                if setting is not None:
                    ghosts.append(setting)
            self.duplicates(
                [(f"grid.ghosts[{i}]", f"{g.count} x {g.name}") for i, g in enumerate(ghosts)],
                "the ghost setting",
            )

        rules: list[str] = ["classic"]
        if "rules" in data:
            entries = self.sequence(data["rules"], "grid.rules", "ruleset names")
            if entries is not None and not entries:
                self.problem("grid.rules", "expected at least one ruleset")
            found_rules = [
                self.choice(r, f"grid.rules[{i}]", list(RULESETS), "ruleset")
                for i, r in enumerate(entries or [])
            ]
            self.duplicates(
                [(f"grid.rules[{i}]", r) for i, r in enumerate(found_rules) if r is not None],
                "the ruleset",
            )
            rules = [r for r in found_rules if r is not None]

        max_moves = (
            self.whole(data["max_moves"], "grid.max_moves", 1)
            if "max_moves" in data
            else DEFAULT_MAX_MOVES
        )
        if len(self.problems) > start or max_moves is None:
            return None
        return GridConfig(
            layouts=tuple(layouts),
            depths=depths,
            ghosts=tuple(ghosts),
            rules=tuple(rules),
            max_moves=max_moves,
        )

    def layout(self, value: object, path: str) -> LayoutChoice | None:
        text = self.text(value, path, "a layout name or a path to a .lay file")
        if text is None:
            return None
        if text.endswith(".lay") or "/" in text or os.sep in text:
            file = self.path(text)
            if not file.is_file():
                self.problem(path, f"no such layout file {text!r} (looked for {file})")
                return None
        else:
            # Beside the config rather than in the current folder, as every other path is.
            search = [self.base / "layouts", PROJECT_LAYOUTS]
            names = available_layouts(search)
            if text not in names:
                self.problem(path, f"unknown layout {text!r}{_did_you_mean(text, names)}")
                return None
            file = next(
                folder / f"{text}.lay" for folder in search if (folder / f"{text}.lay").is_file()
            ).resolve()
        if not self.name(file.stem, path):
            return None
        try:
            layout = load_layout(str(file))
        except LayoutError as exc:
            self.problem(path, str(exc))
            return None
        if layout.warnings:
            # The `pacman` command reads unknown characters as empty space, as the course
            # does, and warns; a tournament's layouts are the organizer's and must be exact.
            for warning in layout.warnings:
                self.problem(path, warning)
            return None
        return LayoutChoice(file.stem, str(file))

    def ghost(self, value: object, path: str) -> GhostSetting | None:
        data = self.mapping(value, path, _GHOST_KEYS)
        if data is None:
            return None
        what = f"a ghost agent ({', '.join(BUILTIN_GHOSTS)} or file.py:Class)"
        agent = self.required(data, "agent", path, what, lambda v, p: self.text(v, p, what))
        count = self.required(
            data,
            "count",
            path,
            "how many ghosts play (0 or more)",
            lambda v, p: self.whole(v, p, 0),
        )
        if agent is None:
            return None
        try:
            ref = resolve(self.agent_text(agent), (), kind="ghost", cwd=self.base)
        except SubmissionError as exc:
            self.problem(_join(path, "agent"), str(exc))
            return None
        if count is None:
            return None
        return GhostSetting(ref.name if ref.builtin else ref.label, count)

    # ---- the rest -------------------------------------------------------------------------

    def limits(self, value: object) -> Limits | None:
        if value is None:
            return Limits()
        data = self.mapping(value, "limits", _LIMIT_KEYS)
        if data is None:
            return None
        values: dict[str, object] = {}
        ok = True
        for key, item in data.items():
            if item is None and key in _NULLABLE_LIMITS:
                values[key] = None
                continue
            problem = limit_problem(key, item)
            if problem:
                if item is None:
                    problem = "cannot be switched off; expected a whole number, got null"
                self.problem(f"limits.{key}", f"{problem}; {key}: {DESCRIPTIONS[key]}")
                ok = False
                continue
            # Seconds are floats whether the YAML said 15 or 15.0; counts stay whole numbers.
            if key not in _COUNT_LIMITS and isinstance(item, (int, float)):
                item = float(item)
            values[key] = item
        if not ok:
            return None
        limits = Limits().with_changes(**values)
        if (
            limits.move_soft is not None
            and limits.move_hard is not None
            and limits.move_soft > limits.move_hard
        ):
            self.problem(
                "limits.move_soft",
                f"{limits.move_soft} s is above limits.move_hard ({limits.move_hard} s), so "
                "the warning could never come before the kill",
            )
            return None
        return limits

    def workers(self, value: object) -> int | None:
        return None if value is None else self.whole(value, "workers", 1)

    def scheduler(self, value: object) -> str | None:
        if value is None:
            return None
        text = self.text(value, "scheduler", "a Dask scheduler address like tcp://host:8786")
        if text is not None and any(ch.isspace() for ch in text):
            self.problem("scheduler", f"an address has no spaces, got {text!r}")
        return text

    def output(self, value: object, name: str | None) -> Path | None:
        if value is None:
            return self.path(f"results/{slug(name or '')}")
        text = self.text(value, "output", "a folder for the results")
        return None if text is None else self.path(text)

    def record(self, value: object) -> RecordConfig | None:
        if value is None:
            return RecordConfig()
        data = self.mapping(value, "record", _RECORD_KEYS)
        if data is None:
            return None
        if data.get("replays") is None:
            return RecordConfig()
        policy = self.choice(data["replays"], "record.replays", REPLAY_POLICIES, "replay policy")
        for known in REPLAY_POLICIES:
            if policy == known:
                return RecordConfig(known)
        return None

    def sandbox(self, value: object) -> SandboxConfig | None:
        if value is None:
            return SandboxConfig()
        data = self.mapping(value, "sandbox", _SANDBOX_KEYS)
        if data is None:
            return None
        if data.get("accept_missing") is None:
            return SandboxConfig()
        entries = self.sequence(data["accept_missing"], "sandbox.accept_missing",
                                "sandbox guarantees")
        if entries is None:
            return None
        names = [self.choice(item, f"sandbox.accept_missing[{i}]", GUARANTEE_NAMES,
                             "sandbox guarantee") for i, item in enumerate(entries)]
        if any(name is None for name in names):
            return None
        return SandboxConfig(tuple(str(name) for name in names))

    def ranking(self, value: object) -> RankingConfig | None:
        if value is None:
            return RankingConfig()
        data = self.mapping(value, "ranking", _RANKING_KEYS)
        if data is None:
            return None
        start = len(self.problems)
        by = RankingConfig().by
        if data.get("by") is not None:
            entries = self.sequence(data["by"], "ranking.by", "statistics")
            if entries is not None and not entries:
                self.problem("ranking.by", "expected at least one statistic")
            found = [
                self.choice(key, f"ranking.by[{i}]", RANKING_KEYS, "statistic")
                for i, key in enumerate(entries or [])
            ]
            self.duplicates(
                [(f"ranking.by[{i}]", k) for i, k in enumerate(found) if k is not None],
                "the statistic",
            )
            by = tuple(k for k in found if k is not None)
        confidence = RankingConfig().confidence
        if data.get("confidence") is not None:
            level = data["confidence"]
            if (
                isinstance(level, bool)
                or not isinstance(level, (int, float))
                or not (math.isfinite(level) and 0 < level < 1)
            ):
                self.problem(
                    "ranking.confidence",
                    f"expected a number between 0 and 1 (like 0.95), got {_show(level)}",
                )
            else:
                confidence = float(level)
        if len(self.problems) > start:
            return None
        return RankingConfig(by=by, confidence=confidence)


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
