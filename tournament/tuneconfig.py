"""A tune file: which weights `tournament tune` learns, for which agent, protocol and objective.

The organizer (or a student tuning their own evaluation) writes it once as YAML; it is checked
completely before anything is played or written, as a tournament's config is
(`tournament.checking`): every problem of the file's shape at once with its key path
(`protocol.layout: unknown layout 'smalClassic' (did you mean smallClassic?)`), then every
problem across keys (a weight the evaluation does not have, an option the agent does not take,
an objective no game of the protocol can reach). Exit 2, nothing written.

A feature function (`evaluation: {features: file.py:function}`) is the organizer's or a
student's code: it is called once on the protocol's start state, to check that it returns a
mapping of feature name to number holding every weight's feature. That call is made in a
sandbox, as the games make it (`tournament.featurecheck`), never in this process: the file
can neither change it (its folder first on `sys.path`, where a `cma.py` of its own would
shadow the optimizer), hold it (a loop is stopped at `FEATURE_CHECK_SECONDS`), end it
(`os._exit`), nor read what the tuner can (the run's secret): each is a problem of the file.
Its import statements are read first (`optionfiles.imports_beside`), since the games play
the file alone. A team's agent to tune with its own code (`agent: file.py:Class` or a team
folder) plays sandboxed too and is never run here.

Every key is documented in docs/tune.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, PlainValidator, ValidationError, ValidationInfo

from pacman.agents.evaluation import (
    CONTEST_WEIGHTS,
    DEFAULT_WEIGHTS,
    MAX_WEIGHT,
    too_large,
    weights_text,
)
from pacman.describe import clean
from pacman.distances import maze_distances
from pacman.errors import OptionError
from pacman.grid import mask_to_positions
from pacman.layout import Layout, load_layout
from pacman.limits import Limits
from pacman.loader import (
    BUILTIN_PREFIX,
    AgentRef,
    SubmissionError,
    builtin_names,
    platform_module,
    resolve,
)
from pacman.rules import RULESETS
from pacman.sandbox.guarantees import NAMES as GUARANTEE_NAMES
from pacman.yamlfile import ORGANIZER_FILE, YamlProblem, load_yaml
from tournament.checking import (
    MoveLimit,
    Problems,
    ProblemsError,
    StrictMapping,
    Whole,
    choice,
    did_you_mean,
    exposed_scheduler,
    flag,
    list_of,
    plain,
    problem,
    problem_lines,
    scheduler_address,
    show,
    text,
    whole,
)
from tournament.config import (
    DEFAULT_MAX_MOVES,
    LayoutChoice,
    agent_options,
    agent_text,
    apart_from_agents,
    ghost_agent,
    layout_choice,
    limits_value,
    sandbox_readable,
    slug,
    team_folder_words,
)
from tournament.featurecheck import checked_features
from tournament.objective import (
    MEAN_SCORE,
    MEAN_SCORE_WINS,
    OBJECTIVES,
    WIN_RATE,
    Objective,
)
from tournament.optionfiles import (
    STAND_INS,
    beside_problem,
    imports_beside,
    module_source,
    stood_for,
)

#: The linear evaluations a built-in agent's weights can start from, by name.
LINEAR: dict[str, Mapping[str, float]] = {"better": DEFAULT_WEIGHTS, "contest": CONTEST_WEIGHTS}
#: `evaluation: {features: ...}`: the evaluation is a feature function's `w . phi`.
FEATURE_FUNCTION = "features"
#: What a file agent evaluates with: its own code (the tuner passes it `weights=` only).
OWN = "own"
#: The options the tuner sets on each candidate (so `args:` may not).
TUNER_OPTIONS = ("weights", "features", "evalFn", "depth", "timeLimit")
#: The agent option a protocol's `time_limit` sets (the AnytimeAgent's time per move).
TIME_OPTION = "timeLimit"
#: What the run ends with (`result:`): the search distribution's final mean, or the best
#: candidate evaluated (chosen on the tuning's games, so flattered by their luck).
RESULT_MEAN = "mean"
RESULT_BEST = "best"
RESULTS = (RESULT_MEAN, RESULT_BEST)
#: The initial step of the search, in units of each weight's scale, unless the file says.
DEFAULT_SIGMA = 0.5
DEFAULT_GAMES = 20
DEFAULT_COMPARISON_GAMES = 100

#: The validation context's key for the tune file's folder.
_BASE = "base"


class TuneError(ProblemsError):
    """A tune file that cannot be used; the message lists every problem with its key path."""


@dataclass(frozen=True)
class Weight:
    """A weight to tune: its start, the size of a change worth trying (`scale`: the search
    works in units of it) and optional bounds."""

    name: str
    start: float
    scale: float
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Protocol:
    """The games every candidate plays: one cell of a tournament's grid."""

    layout: LayoutChoice
    ghosts: str
    num_ghosts: int
    depth: int | None
    time_limit: float | None
    rules: str
    max_moves: int
    limits: Limits


@dataclass(frozen=True)
class TuneConfig:
    """A checked tune file; every path in it is absolute."""

    name: str
    #: The agent as a config stores it: a built-in's name or an absolute reference.
    agent: str
    builtin: bool
    #: Its fixed options.
    args: tuple[tuple[str, str], ...]
    #: `better`, `contest`, `features` or `own` (a file agent's own evaluation).
    evaluation: str
    #: `features`: the feature function: an absolute `file.py:function` (a module named is
    #: its source file), or the platform's own `module:function`.
    features: str
    weights: tuple[Weight, ...]
    protocol: Protocol
    games: int
    objective: Objective
    generations: int
    population: int
    sigma: float
    seed: int
    output: Path
    comparison_games: int
    result: str = RESULT_MEAN
    workers: int | None = None
    scheduler: str | None = None
    #: Whether a plain `tcp://` scheduler elsewhere is acceptable (a config's
    #: `cluster.trusted_network`).
    trusted_network: bool = False
    #: Sandbox guarantees a file agent may play without (as a config's `sandbox:`).
    accept_missing: tuple[str, ...] = ()
    #: Where the run's secret is kept (None: in the output folder), as a config's.
    secret_file: Path | None = None
    source: Path | None = None
    #: Weights every candidate keeps (`fixed:`), so that a run replays the same games when an
    #: evaluation's own weights change later.
    fixed: tuple[tuple[str, float], ...] = ()
    #: What the check found worth saying but not refusing (a weight that a `util.Counter`
    #: feature function does not hold on the start state), each with its key path; the
    #: command prints them before any game.
    notes: tuple[str, ...] = ()

    @property
    def base_weights(self) -> Mapping[str, float]:
        """The weights a candidate's tuned ones override: a linear evaluation's own, then
        the fixed ones (with neither, the candidate's weights are all there is)."""
        return {**LINEAR.get(self.evaluation, {}), **dict(self.fixed)}

    def options(self, weights: Mapping[str, float]) -> tuple[tuple[str, str], ...]:
        """A candidate's agent options: the fixed ones, the evaluation, its `weights` inline
        with the fixed weights before them (`features` is added with the run's snapshot of
        the file), the time budget."""
        out = list(self.args)
        if self.evaluation in LINEAR:
            out.append(("evalFn", self.evaluation))
        out.append(("weights", weights_text({**dict(self.fixed), **weights})))
        if self.protocol.time_limit is not None:
            out.append((TIME_OPTION, repr(self.protocol.time_limit)))
        return tuple(out)


def tunable_agents() -> list[str]:
    """The built-in Pacman agents that take `weights`."""
    return [name for name in builtin_names("pacman")
            if "weights" in (agent_options(resolve(BUILTIN_PREFIX + name)) or [])]


#: Upper bounds on the counts of a tune file: far above any run that ends (a million games
#: of the CS221 protocol take hours on 2 cores), far below what exhausts memory when a
#: generation's schedule is made.
MAX_COUNT = 1_000_000
MAX_POPULATION = 1_000


def _too_large(value: float) -> str:
    """Why a weight, bound or scale beyond `MAX_WEIGHT` is refused (the search's candidates lie
    many scales from the start: near the bound's size they would not be finite)."""
    return too_large(value, "candidates many scales away would not be finite numbers")


def default_population(dimensions: int) -> int:
    """CMA-ES's own default: 4 + floor(3 ln n) candidates a generation."""
    return 4 + int(3 * math.log(max(1, dimensions)))


# ---- leaf values ------------------------------------------------------------------------


def _base(info: ValidationInfo) -> Path:
    base = info.context.get(_BASE) if isinstance(info.context, dict) else None
    if not isinstance(base, Path):
        raise TypeError("tune files are validated with parse_tune's context")
    return base


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise problem(f"expected a number, got {show(value)}")
    return float(value)


def _positive(value: object) -> float:
    number = _number(value)
    if number <= 0:
        raise problem(f"expected a number above 0, got {show(value)}")
    return number


#: The largest first step, in units of each weight's scale: a thousand scales already puts the
#: first candidates far from anything the start means; beyond, they overflow (1e308: `inf`).
MAX_SIGMA = 1000.0


def _sigma(value: object) -> float:
    number = _positive(value)
    if number > MAX_SIGMA:
        raise problem(f"expected at most {MAX_SIGMA:g} (steps in units of each weight's "
                      f"scale), got {show(value)}")
    return number


def _one_line(value: object) -> str:
    """The run's name: one line of printable text, since it heads `weights.yaml` as a comment
    (a newline in it would add keys to the file)."""
    name = text("a name")(value)
    if not name.isprintable():
        raise problem(f"expected a name on one line of printable characters, got {show(value)}")
    return name


def _rate(value: object) -> float:
    number = _number(value)
    if not 0 <= number <= 1:
        raise problem(f"expected a share between 0 and 1 (like 0.95), got {show(value)}")
    return number


Number = Annotated[float, PlainValidator(_number)]
PositiveNumber = Annotated[float, PlainValidator(_positive)]


def _layout(value: object, info: ValidationInfo) -> LayoutChoice:
    return layout_choice(value, _base(info))


def _ghosts(value: object, info: ValidationInfo) -> str:
    agent = text("a ghost agent (RandomGhost, DirectionalGhost or file.py:Class)")(value)
    try:
        return ghost_agent(agent, _base(info))
    except SubmissionError as exc:
        raise problem(str(exc)) from None


def _agent(value: object, info: ValidationInfo) -> AgentRef:
    agent = text("a built-in agent name, file.py:Class or a team folder")(value)
    base = _base(info)
    try:
        return resolve(agent_text(agent, base), (), kind="pacman", cwd=base)
    except SubmissionError as exc:
        raise problem(str(exc)) from None


def _args(value: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise problem(f"expected a mapping of option: value, got {show(value)}")
    problems = Problems()
    out: list[tuple[str, str]] = []
    for key, item in value.items():
        if not isinstance(key, str) or not key.isidentifier():
            problems.add((), f"{show(key)} is not an option name")
        elif key in TUNER_OPTIONS:
            problems.add((key,), f"set by the tuner for each candidate ({', '.join(TUNER_OPTIONS)}"
                         "): the evaluation, weights and protocol keys say them")
        elif isinstance(item, (dict, list)) or item is None:
            problems.add((key,), f"expected a text, number or true/false, got {show(item)}")
        else:
            out.append((key, str(item)))
    problems.raise_any()
    return tuple(out)


def _fixed(value: object) -> tuple[tuple[str, float], ...]:
    """`fixed:`, a mapping of weight name to the number it keeps in every candidate."""
    if not isinstance(value, dict):
        raise problem(f"expected a mapping of weight name to a number, got {show(value)}")
    problems = Problems()
    out: list[tuple[str, float]] = []
    for name, given in value.items():
        if not isinstance(name, str) or not name.isidentifier():
            problems.add((), f"{show(name)} is not a feature name")
            continue
        number = problems.run(partial(_number, given), (name,))
        if number is not None and abs(number) > MAX_WEIGHT:
            problems.add((name,), _too_large(number))
        elif number is not None:
            out.append((name, number))
    problems.raise_any()
    return tuple(out)


def _evaluation(value: object, info: ValidationInfo) -> tuple[str, str]:
    """(`better`/`contest`, '') or (`features`, the function's reference)."""
    if isinstance(value, str) and value in LINEAR:
        return value, ""
    if isinstance(value, dict):
        problems = Problems()
        if set(value) != {FEATURE_FUNCTION}:
            for key in value:
                if key != FEATURE_FUNCTION:
                    hint = did_you_mean(str(key), [FEATURE_FUNCTION])
                    problems.add((str(key),), f"unknown key{hint}; expected "
                                 f"{FEATURE_FUNCTION}: file.py:function")
            if FEATURE_FUNCTION not in value:
                problems.add((FEATURE_FUNCTION,),
                             "required: the feature function, file.py:function")
            problems.raise_any()
        reference = text("file.py:function or package.module:function")(value[FEATURE_FUNCTION])
        where, sep, function = reference.rpartition(":")
        if not sep or not where or not function.isidentifier():
            raise problem(f"expected file.py:function or package.module:function, got "
                          f"{reference!r}", at="evaluation.features")
        if where.endswith(".py"):
            file = (_base(info) / Path(where).expanduser()).resolve()
            if not file.is_file():
                raise problem(f"no such file {where!r} (looked for {file})",
                              at="evaluation.features")
            reference = f"{file}:{function}"
        elif not platform_module(where):
            # Played as its file, as one named by file is: from the run's snapshot, in the
            # sandbox, keyed by its content. In-process, its crash would end a worker (an
            # unscored infra_error) and its endless loop hold it.
            source = module_source(where)
            if source is None:
                raise problem(f"no module {where!r} with a Python source file on the import "
                              f"path; name its file instead (path/to/file.py:{function})",
                              at="evaluation.features")
            reference = f"{source}:{function}"
        return FEATURE_FUNCTION, reference
    hint = did_you_mean(value, LINEAR) if isinstance(value, str) else ""
    raise problem(f"expected better, contest or {{features: file.py:function}}, got "
                  f"{show(value)}{hint}")


@dataclass(frozen=True)
class _WeightGiven:
    """A weight as the file gives it (what it leaves out is decided across keys)."""

    name: str
    start: float | None = None
    scale: float | None = None
    low: float | None = None
    high: float | None = None


class _WeightIn(StrictMapping):
    start: Number | None = None
    scale: PositiveNumber | None = None
    low: Number | None = None
    high: Number | None = None


def _weights(value: object) -> tuple[_WeightGiven, ...]:
    """A list of names, or a mapping of name to nothing (the defaults), a start, or
    {start, scale, low, high}."""
    if isinstance(value, list):
        twice = sorted({v for v in value if isinstance(v, str) and value.count(v) > 1})
        if twice:
            raise problem(f"{', '.join(twice)}: given twice")
        value = dict.fromkeys(value) if all(isinstance(v, str) for v in value) else value
    if not isinstance(value, dict):
        raise problem(f"expected a mapping of weight name to its start (or to {{start, scale, "
                      f"low, high}}), or a list of names, got {show(value)}")
    if not value:
        raise problem("expected at least one weight to tune")
    problems = Problems()
    out = []
    for name, given in value.items():
        if not isinstance(name, str) or not name.isidentifier():
            problems.add((), f"{show(name)} is not a feature name")
            continue
        if given is None:
            out.append(_WeightGiven(name))
            continue
        if not isinstance(given, dict):
            start = problems.run(partial(_number, given), (name,))
            if start is not None:
                out.append(_WeightGiven(name, start))
            continue
        shape = problems.run(partial(_WeightIn.model_validate, given), (name,))
        if shape is None:
            continue
        if shape.low is not None and shape.high is not None and not shape.low < shape.high:
            problems.add((name, "high"), f"expected above low ({shape.low:g}), got "
                         f"{shape.high:g}")
            continue
        out.append(_WeightGiven(name, shape.start, shape.scale, shape.low, shape.high))
    problems.raise_any()
    return tuple(out)


class _ObjectiveIn(StrictMapping):
    kind: Annotated[str, PlainValidator(choice(OBJECTIVES, "objective"))] = Field(
        description=f"one of {', '.join(OBJECTIVES)}")
    min_win_rate: Annotated[float | None, PlainValidator(_rate)] = None


def _objective(value: object) -> Objective:
    if isinstance(value, str):
        return Objective(choice(OBJECTIVES, "objective")(value))
    if isinstance(value, dict) and "min_win_rate" in value and value["min_win_rate"] is None:
        raise problem("expected a share between 0 and 1 (like 0.95), got nothing (leave the "
                      "key out for no floor)", at="objective.min_win_rate")
    shape = _ObjectiveIn.model_validate(value)
    if shape.min_win_rate is not None and shape.kind != MEAN_SCORE_WINS:
        raise problem(f"a floor for {MEAN_SCORE_WINS} only, not for {shape.kind}",
                      at="objective.min_win_rate")
    return Objective(shape.kind, shape.min_win_rate or 0.0)


class _BudgetIn(StrictMapping):
    generations: Annotated[int | None, PlainValidator(whole(1, MAX_COUNT))] = None
    evaluations: Annotated[int | None, PlainValidator(whole(1, MAX_COUNT))] = None


def _budget(value: object) -> _BudgetIn:
    shape = _BudgetIn.model_validate(value)
    if (shape.generations is None) == (shape.evaluations is None):
        raise problem("expected one of generations: N (generations of candidates) or "
                      "evaluations: N (candidates in all)")
    return shape


def _limits(value: object) -> Limits:
    return limits_value(value)


class _ProtocolIn(StrictMapping):
    layout: Annotated[LayoutChoice, PlainValidator(_layout)] = Field(
        description="a layout name or a .lay file")
    ghosts: Annotated[str, PlainValidator(_ghosts)] = "RandomGhost"
    num_ghosts: Annotated[int, PlainValidator(whole(0))] = 2
    depth: Annotated[int | None, PlainValidator(whole(1))] = None
    time_limit: PositiveNumber | None = None
    rules: Annotated[str, PlainValidator(choice(list(RULESETS), "ruleset"))] = "classic"
    max_moves: MoveLimit = DEFAULT_MAX_MOVES
    limits: Annotated[Limits, PlainValidator(_limits)] = Field(default_factory=Limits)


#: The fewest comparison games a tune file may ask for. Fewer than the pairs an interval needs
#: (`tournament.objective.MIN_PAIRS`) are played but give no verdict: a smoke run's comparison.
MIN_COMPARISON_GAMES = 2


class _ComparisonIn(StrictMapping):
    games: Annotated[int, PlainValidator(whole(MIN_COMPARISON_GAMES, MAX_COUNT))] = (
        DEFAULT_COMPARISON_GAMES)


class _SandboxIn(StrictMapping):
    accept_missing: Annotated[tuple[str, ...], PlainValidator(list_of(
        "sandbox guarantees", plain(choice(GUARANTEE_NAMES, "sandbox guarantee")),
        path="sandbox.accept_missing"))] = ()


class _TuneIn(StrictMapping):
    """The whole file; its fields' order is the order keys are listed in messages."""

    name: Annotated[str, PlainValidator(_one_line)] = Field(
        description="the tuning run's name")
    agent: Annotated[AgentRef, PlainValidator(_agent)] = Field(
        default_factory=lambda: AgentRef("ExpectimaxAgent", "pacman.agents.multiagent",
                                         builtin=True))
    args: Annotated[tuple[tuple[str, str], ...], PlainValidator(_args)] = ()
    evaluation: Annotated[tuple[str, str] | None, PlainValidator(_evaluation)] = None
    weights: Annotated[tuple[_WeightGiven, ...], PlainValidator(_weights)] = Field(
        description="the weights to tune (a mapping of name to start, or a list of names)")
    fixed: Annotated[tuple[tuple[str, float], ...], PlainValidator(_fixed)] = ()
    protocol: _ProtocolIn = Field(description="the games: layout, ghosts, depth, rules")
    games: Annotated[int, PlainValidator(whole(1, MAX_COUNT))] = DEFAULT_GAMES
    objective: Annotated[Objective, PlainValidator(_objective)] = Objective(MEAN_SCORE)
    budget: Annotated[_BudgetIn, PlainValidator(_budget)] = Field(
        description="generations: N or evaluations: N")
    population: Annotated[int | None, PlainValidator(whole(2, MAX_POPULATION))] = None
    sigma: Annotated[float, PlainValidator(_sigma)] = DEFAULT_SIGMA
    seed: Whole = 0
    output: Annotated[str | None, PlainValidator(text("a folder for the results"))] = None
    comparison: _ComparisonIn = Field(default_factory=_ComparisonIn)
    result: Annotated[str, PlainValidator(choice(RESULTS, "result"))] = RESULT_MEAN
    workers: Annotated[int | None, PlainValidator(whole(1))] = None
    scheduler: Annotated[str | None, PlainValidator(scheduler_address)] = None
    trusted_network: Annotated[bool, PlainValidator(flag)] = False
    sandbox: _SandboxIn = Field(default_factory=_SandboxIn)
    secret_file: Annotated[str | None, PlainValidator(
        text("a file for the run's secret"))] = None


# ---- across keys ---------------------------------------------------------------------------


def _agent_checks(shape: _TuneIn, problems: Problems) -> str:
    """The agent against the evaluation, the options and the protocol; returns the
    evaluation's kind (`better`, `contest`, `features` or `own`)."""
    ref = shape.agent
    options = agent_options(ref)

    def takes(option: str) -> bool:
        return options is None or option in options

    if ref.builtin:
        if shape.evaluation is None:
            problems.add(("evaluation",), "required for a built-in agent: better, contest or "
                         "{features: file.py:function}")
            kind = ""
        else:
            kind = shape.evaluation[0]
        if not takes("weights"):
            problems.add(("agent",), f"{ref.name} takes no weights option, so it has nothing "
                         f"to tune; tune a search agent ({', '.join(tunable_agents())})")
    else:
        kind = OWN
        if shape.evaluation is not None:
            problems.add(("evaluation",), f"{ref.shown} evaluates with its own code: leave "
                         "evaluation out (the tuner passes it weights=name:value;... only), "
                         "or tune a built-in agent with evaluation: {features: ...}")
        if not takes("weights"):
            problems.add(("agent",), f"{ref.shown}'s constructor takes no weights option; the "
                         "tuner builds each candidate with weights=name:value;name:value")
    for key, _ in shape.args:
        if not takes(key):
            listed = ", ".join(options or []) or "none"
            problems.add(("args", key), f"{ref.name} has no option {key!r}"
                         f"{did_you_mean(key, options or [])}; its options: {listed}")
    if shape.protocol.depth is not None and not takes("depth"):
        problems.add(("protocol", "depth"), f"{ref.name} takes no depth option; give "
                     "time_limit for an agent with a time budget, or nothing")
    if shape.protocol.time_limit is not None and not takes(TIME_OPTION):
        problems.add(("protocol", "time_limit"), f"{ref.name} has no time budget (no "
                     f"{TIME_OPTION} option); give depth for a depth-limited search")
    return kind


#: How long the check of a feature function's file may take (loading it and calling it once,
#: in its sandbox): far more than one evaluation needs, and a bound on a function that never
#: returns (a loop waiting for something), which would otherwise hold the command forever
#: before any game.
FEATURE_CHECK_SECONDS = 60.0

def _shown(reference: str) -> str:
    """`feats.py:phi`: a feature function's reference as messages show it."""
    return Path(reference).name


def _features_of(
    shape: _TuneIn, reference: str, problems: Problems
) -> tuple[dict[str, float], bool] | None:
    """What the feature function returns on the protocol's start state, checked (every
    value a finite number), and whether its mapping answers every name (a `util.Counter`
    counts a feature it lacks as 0, as the games do); None with the problem recorded when it
    cannot be called. The call is made in a sandbox, as the games make it
    (`tournament.featurecheck`): whatever the function does there (raise, exit, never return,
    read the tuner's files) is a problem of the file, never the command's."""
    at = ("evaluation", FEATURE_FUNCTION)
    shown = _shown(reference)
    file = reference.rpartition(":")[0]
    beside = imports_beside(Path(file)) if file.endswith(".py") else []
    if beside:  # even an import made only mid-game: the games play the file alone
        problems.add(at, beside_problem(Path(file), shown, beside))
        return None
    protocol = shape.protocol
    checked = checked_features(reference, str(protocol.layout.path), protocol.num_ghosts,
                               protocol.rules, protocol.limits, FEATURE_CHECK_SECONDS, shown,
                               tuple(shape.sandbox.accept_missing))
    for said in checked.problems:
        problems.add(at, said)
    if checked.values is None:
        return None
    values = {name: math.nan if value is None else value
              for name, value in checked.values.items()}
    return values, checked.counter


def _weight_checks(shape: _TuneIn, kind: str, problems: Problems,
                   notes: list[str]) -> tuple[Weight, ...]:
    """Each weight's name against the evaluation, and its start, scale and bounds (nothing
    to check them against while the evaluation is missing). A name a `util.Counter` lacks on
    the start state cannot be refused (it may set it later, as a feature of dots eaten), but a
    misspelled one would count 0 in every game: it goes to `notes`."""
    if not kind:
        return ()
    known: Mapping[str, float] | None = LINEAR.get(kind)
    produced: dict[str, float] | None = None
    function = shape.evaluation[1] if shape.evaluation is not None else ""
    if kind == FEATURE_FUNCTION:
        checked = _features_of(shape, function, problems)
        if checked is not None and not checked[1]:
            produced = checked[0]
        elif checked is not None:
            held = checked[0]
            named = [("weights", g.name) for g in shape.weights]
            notes.extend(
                f"{key}.{name}: {_shown(function)} does not hold {name!r} on the "
                f"start state{did_you_mean(name, held)} (its util.Counter counts it 0 there, "
                "and in every state that never sets it)"
                for key, name in [*named, *(("fixed", n) for n, _ in shape.fixed)]
                if name not in held)

    def unknown(name: str) -> str | None:
        """Why the evaluation has no weight `name` (None: it has)."""
        if known is not None and name not in known:
            return (f"unknown feature {name!r}{did_you_mean(name, known)} of {kind}; "
                    "features: " + ", ".join(known))
        if produced is not None and name not in produced:
            return (f"{_shown(function)} does not produce {name!r}"
                    f"{did_you_mean(name, produced)}; on the start state it returns "
                    f"{', '.join(produced) or 'no feature'}")
        return None

    out = []
    for given in shape.weights:
        at = ("weights", given.name)
        why = unknown(given.name)
        if why is not None:
            problems.add(at, why)
            continue
        start = given.start
        if start is None:
            if known is None:
                problems.add((*at, "start"), "required: the start of a weight of "
                             + ("a feature function" if kind == FEATURE_FUNCTION else "an agent's "
                                "own evaluation") + " is not known")
                continue
            start = float(known[given.name])
        scale = given.scale if given.scale is not None else abs(start)
        huge = [(key, value) for key, value in (("start", start), ("scale", given.scale),
                                                ("low", given.low), ("high", given.high))
                if value is not None and abs(value) > MAX_WEIGHT]
        for key, value in huge:
            problems.add((*at, key), _too_large(value))
        if huge:
            continue
        if scale == 0:
            problems.add((*at, "scale"), "required when the start is 0: the size of a "
                         "change worth trying (the search works in units of it)")
            continue
        if given.low is not None and start < given.low:
            problems.add((*at, "start"), f"{start:g} is below its low bound, {given.low:g}")
            continue
        if given.high is not None and start > given.high:
            problems.add((*at, "start"), f"{start:g} is above its high bound, {given.high:g}")
            continue
        out.append(Weight(given.name, start, scale, given.low, given.high))
    tuned = {given.name for given in shape.weights}
    for name, _ in shape.fixed:
        why = ("also under weights: a weight is either tuned or fixed" if name in tuned
               else unknown(name))
        if why is not None:
            problems.add(("fixed", name), why)
    return tuple(out)


def _unreachable_dots(layout: Layout) -> list[tuple[int, int]]:
    """The dots no path from Pacman's start reaches, in the order the file reads (top line
    first, then left to right; pure; none when Pacman has no start)."""
    starts = [cell for is_pacman, cell in layout.agentPositions if is_pacman]
    if not starts:
        return []
    reached = maze_distances(layout).from_cell(starts[0])
    dots = [cell for cell in mask_to_positions(layout.food_mask, layout.height)
            if cell not in reached]
    return sorted(dots, key=lambda cell: (-cell[1], cell[0]))  # as the file reads


def _objective_checks(shape: _TuneIn, problems: Problems) -> None:
    """An objective that counts wins needs a protocol in which a game can be won: a layout with
    dots (eating the last one wins); Pacman eats one dot a move at most, and every ghost moves
    after each of his moves."""
    if shape.objective.kind not in (WIN_RATE, MEAN_SCORE_WINS):
        return
    protocol = shape.protocol
    layout = load_layout(protocol.layout.path)
    dots = layout.food_mask.bit_count()
    ghosts = min(protocol.num_ghosts, layout.numGhosts)
    fewest = dots + max(0, dots - 1) * ghosts
    unreachable = _unreachable_dots(layout)
    if not dots:  # a game is won by eating the last dot (RULES.md): here there is none
        problems.add(("objective",), f"{shape.objective.kind} cannot be computed under this "
                     f"protocol: {protocol.layout.name} has no dots, so no game is ever won; "
                     "use objective: mean_score")
    elif unreachable:
        x, y = unreachable[0]  # as the file reads: its lines run from the top
        problems.add(("objective",), f"{shape.objective.kind} cannot be computed under this "
                     f"protocol: walls close off {len(unreachable)} of the dots of "
                     f"{protocol.layout.name} from Pacman (the first in line "
                     f"{layout.height - y}, column {x + 1}), so no game is ever won; use "
                     "objective: mean_score")
    elif protocol.max_moves < fewest:
        problems.add(("objective",), f"{shape.objective.kind} cannot be computed under this "
                     f"protocol: protocol.max_moves ({protocol.max_moves}) ends every game "
                     f"before Pacman can eat the {dots} dots of {protocol.layout.name} (at "
                     f"least {fewest} moves of all agents with {ghosts} ghosts), so no game is "
                     "ever won; raise max_moves or use objective: mean_score")


def time_notes(time_limit: float | None, limits: Limits) -> list[str]:
    """What to say of the limits every move is held to (pure): none at all lets a move that
    never ends hold the run forever; a time budget per move that the agent uses up fails its
    move. Said, not refused, since an agent may stop before its budget (`maxDepth`: the
    contest tuning gives 30 s that it never reaches), and an untimed run may be wanted."""
    if limits.move_hard is None and limits.game_total is None:
        return ["protocol.limits: neither move_hard nor game_total is set, so a move that "
                "never ends (an endless loop in the evaluation) holds the run until it is "
                "stopped"]
    if time_limit is None:
        return []
    if limits.move_hard is not None and time_limit >= limits.move_hard:
        return [f"protocol.time_limit: {time_limit:g} s a move is not below "
                f"protocol.limits.move_hard ({limits.move_hard:g} s): a move that uses its "
                "budget is a timeout, and the candidate fails that game"]
    if limits.move_soft is not None and time_limit > limits.move_soft:
        return [f"protocol.time_limit: {time_limit:g} s a move is above "
                f"protocol.limits.move_soft ({limits.move_soft:g} s): moves that use their "
                f"budget count warnings, and the move after {limits.move_warnings} of them is "
                "a timeout"]
    return []


def _checked(shape: _TuneIn, base: Path) -> TuneConfig:
    problems = Problems()
    kind = _agent_checks(shape, problems)
    notes: list[str] = []
    weights = _weight_checks(shape, kind, problems, notes)
    notes.extend(time_notes(shape.protocol.time_limit, shape.protocol.limits))
    _objective_checks(shape, problems)
    exposed = exposed_scheduler(shape.scheduler, shape.trusted_network, "trusted_network: true")
    if exposed:
        problems.add(("scheduler",), exposed)
    dimensions = len(weights)
    population = shape.population or default_population(dimensions)
    if population * shape.games > MAX_COUNT:
        problems.add(("games",), f"{population} candidates x {shape.games:,} games is "
                     f"{population * shape.games:,} games a generation; at most {MAX_COUNT:,}")
    problems.raise_any()
    budget = shape.budget
    generations = (budget.generations if budget.generations is not None
                   else -(-(budget.evaluations or 0) // population))
    ref = shape.agent
    protocol = shape.protocol
    config = TuneConfig(
        name=shape.name,
        agent=ref.name if ref.builtin else (ref.team or ref.label),
        builtin=ref.builtin,
        args=shape.args,
        evaluation=kind,
        features=shape.evaluation[1] if shape.evaluation is not None else "",
        weights=weights,
        protocol=Protocol(protocol.layout, protocol.ghosts, protocol.num_ghosts,
                          protocol.depth, protocol.time_limit, protocol.rules,
                          protocol.max_moves, protocol.limits),
        games=shape.games,
        objective=shape.objective,
        generations=generations,
        population=population,
        sigma=shape.sigma,
        seed=shape.seed,
        output=(base / Path(shape.output or f"results/{slug(shape.name)}").expanduser())
        .resolve(),
        comparison_games=shape.comparison.games,
        result=shape.result,
        workers=shape.workers,
        scheduler=shape.scheduler,
        trusted_network=shape.trusted_network,
        accept_missing=shape.sandbox.accept_missing,
        secret_file=None if shape.secret_file is None else
        (base / Path(shape.secret_file).expanduser()).resolve(),
        fixed=shape.fixed,
        notes=tuple(notes),
    )
    tuned = ({Path(ref.team): team_folder_words("the tuned agent", Path(ref.team))}
             if ref.team else {})
    for key, why in apart_from_agents(
            {"output": config.output, "secret_file": config.secret_file},
            tuned | sandbox_readable()):
        problems.add((key,), why)
    if ref.builtin:
        _try_building(config, problems)
    problems.raise_any()
    return config


def _try_building(config: TuneConfig, problems: Problems) -> None:
    """Build the built-in agent once with the start weights and the fixed options, as a
    tournament builds its baselines: a bad option value is found before any game. A feature
    function's file is never loaded here (it was checked in its sandbox): the platform's own
    features stand in for it, since building only loads the function."""
    start = {w.name: w.start for w in config.weights}
    options = dict(config.options(start))
    if config.evaluation == FEATURE_FUNCTION:
        options["features"] = STAND_INS["features"]
    if config.protocol.depth is not None:
        options["depth"] = str(config.protocol.depth)
    ref = resolve(config.agent, ())
    stood_in = ({STAND_INS["features"]: config.features}
                if config.evaluation == FEATURE_FUNCTION else {})
    try:
        ref.load_class()(**options)
    except OptionError as exc:
        if exc.option in dict(config.args):
            problems.add(("args", exc.option), stood_for(exc.problem, stood_in))
        else:
            problems.add(("args",), f"{ref.name} cannot be built with these options: "
                         f"{clean(stood_for(str(exc), stood_in), 300)}")
    except Exception as exc:  # the built-in's own checks of its options
        problems.add(("args",), f"{ref.name} cannot be built with these options: "
                     f"{clean(stood_for(str(exc), stood_in), 300)}")


def parse_tune(data: object, source: str, base: Path) -> TuneConfig:
    """Check already-loaded YAML data; relative paths in it resolve against `base`."""
    if data is None:
        raise TuneError(source, ["the file is empty; it needs at least name, weights, "
                                 "protocol and budget"])
    try:
        shape = _TuneIn.model_validate(data, context={_BASE: base})
        return _checked(shape, base)
    except ValidationError as exc:
        raise TuneError(source, problem_lines(exc, data) or ["the file is empty"]) from None


def load_tune(path: Path) -> TuneConfig:
    """Read and check a tune file; any problem, a missing file included, is a TuneError."""
    source = str(path)
    try:
        data = load_yaml(path, ORGANIZER_FILE)
    except YamlProblem as exc:
        raise TuneError(source, [exc.detail]) from None
    config = parse_tune(data, source, path.resolve().parent)
    return replace(config, source=path.resolve())


def describe_weights(weights: Mapping[str, Any]) -> str:
    """`food_left -10.3, trapped -152` for people."""
    return ", ".join(f"{name} {float(value):.4g}" for name, value in weights.items())
