"""A marking scheme: what `tournament marks` gives each team for its results, read and checked.

A course marks an assignment the way its autograder does (points for win counts, for a mean
score over thresholds, for no time-outs) and sometimes relative to others (beating a staff
agent, a rank or rating band). The organizer writes that down once as YAML; this module
reads it into frozen values that `tournament.marks` evaluates. Every key is documented in
docs/marks.md, with the course's evaluation-function question as the example
(`tournaments/marks-evaluation.yaml`).

A scheme is checked completely against the tournament it marks before anything is read from
the results, the way a config is (`tournament.checking`): every problem is reported at once
with its key path (`marks.yaml: criteria[2].thresholds[0].at: expected a number, got 'x'`),
unknown keys with "did you mean", and whatever names the tournament (a layout, a depth, a
cell, an entrant, a results column) must exist in it, so that a typo never marks a whole
class 0 in silence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, PlainValidator, ValidationError, ValidationInfo, model_validator

from pacman.outcomes import FAILURES, PACMAN, SIDES
from pacman.yamlfile import ORGANIZER_FILE, YamlProblem, load_yaml
from tournament.checking import (
    Problems,
    ProblemsError,
    StrictMapping,
    choice,
    did_you_mean,
    list_of,
    problem,
    problem_lines,
    raise_at,
    show,
    text,
    whole,
)
from tournament.checking import confidence as confidence_level
from tournament.config import NAME_PATTERN, TournamentConfig
from tournament.results import MEASURED_COLUMNS
from tournament.schedule import cells, match_cells

#: What a criterion measures (its `kind:`), in the order docs/marks.md explains them.
KINDS = ("wins", "mean", "no_failures", "time", "beats", "rank", "rating")
#: What `no_failures` may count besides the failure kinds themselves: any of them.
ANY_FAILURE = "any"
#: What `beats` compares by: the paired difference of win rates or of mean scores.
BEATS_ON = ("win_rate", "mean_score")
#: Whom a rank or rating band counts: the teams only, or every entrant (baselines too).
AMONG = ("teams", "all")
#: Which position a band reads: the leaderboard's rank, or its rank group's first position
#: (entrants whose intervals overlap share it).
POSITIONS = ("rank", "group")
#: Thinking time per game or per Pacman move, by the wall clock or the sandbox's CPU clock.
TIME_PER = ("game", "move")
CLOCKS = ("wall", "cpu")
#: Units of lateness a penalty counts, each started one in full, in seconds.
LATE_UNITS = {"day": 86400, "hour": 3600}

#: The columns of marks-teams.csv besides one per criterion (which come after `team`), and
#: of marks.csv: here, because a criterion's name must not take one of them.
TEAM_COLUMNS = ("team", "total", "penalty", "mark", "out_of", "reason")
STUDENT_COLUMNS = ("student_id", "student_name", "team", "mark", "out_of", "reason")

_CONTEXT = "scheme"
_TOP = re.compile(r"(\d+(?:\.\d+)?)\s*%")


class SchemeError(ProblemsError):
    """A marking scheme that cannot be used; the message lists every problem, each with its
    key path."""


# ---- the checked scheme -------------------------------------------------------------------


@dataclass(frozen=True)
class GameFilter:
    """Which games a criterion counts; an empty tuple lets every value through."""

    layouts: tuple[str, ...] = ()
    depths: tuple[int, ...] = ()
    cells: tuple[str, ...] = ()
    rulesets: tuple[str, ...] = ()

    def over(self, default: GameFilter) -> GameFilter:
        """This filter's keys, and `default`'s for those it leaves open."""
        return GameFilter(self.layouts or default.layouts, self.depths or default.depths,
                          self.cells or default.cells, self.rulesets or default.rulesets)

    def select(self, games: Any) -> Any:
        """The rows of a results table this filter lets through."""
        for column, allowed in (("layout", self.layouts), ("depth", self.depths),
                                ("cell", self.cells), ("ruleset", self.rulesets)):
            if allowed:
                games = games[games[column].isin(allowed)]
        return games

    def words(self) -> str:
        """` on smallClassic at depth 2`: the filter for people; empty when it is open."""
        parts = []
        if self.layouts:
            parts.append("on " + " or ".join(self.layouts))
        if self.depths:
            parts.append("at depth " + " or ".join(map(str, self.depths)))
        if self.cells:
            parts.append("in " + " or ".join(self.cells))
        if self.rulesets:
            parts.append("under " + " or ".join(self.rulesets) + " rules")
        return "".join(" " + part for part in parts)


@dataclass(frozen=True)
class Threshold:
    """`points` once the measure is at least `value` (or, `below`, less than it)."""

    value: float
    points: float
    below: bool = False

    def reached(self, measure: float) -> bool:
        return measure < self.value if self.below else measure >= self.value


@dataclass(frozen=True)
class Scale:
    """How a measure becomes points: the most points of the thresholds it reaches, or
    (`each`) `points` for every whole `each` of it."""

    thresholds: tuple[Threshold, ...] = ()
    each: float | None = None
    points: float = 0.0

    @property
    def most(self) -> float | None:
        """The most points it can give (None: no bound, `each` without a cap)."""
        if self.each is not None:
            return None
        return max(t.points for t in self.thresholds)

    @property
    def lower_is_better(self) -> bool:
        """Its thresholds are `below:` ones (all of a list are of one direction)."""
        return self.each is None and bool(self.thresholds) and self.thresholds[0].below

    def lowest(self) -> Threshold:
        """The threshold easiest to reach (the first one a measure passes on its way up)."""
        return sorted(self.thresholds, key=lambda t: -t.value if t.below else t.value)[0]


@dataclass(frozen=True)
class Band:
    """`points` for a position among the first `top` (or the first `percent` %)."""

    points: float
    top: int | None = None
    percent: float | None = None

    def reached(self, position: int, count: int) -> bool:
        if self.top is not None:
            return position <= self.top
        assert self.percent is not None
        return position <= count * self.percent / 100

    def words(self) -> str:
        return f"top {self.top}" if self.top is not None else f"top {self.percent:g}%"


@dataclass(frozen=True)
class Wins:
    """Games won (infra errors are not counted: they were never scored)."""

    scale: Scale


@dataclass(frozen=True)
class Mean:
    """The mean of a results column over the games (those that measured it)."""

    column: str
    scale: Scale


@dataclass(frozen=True)
class NoFailures:
    """Met when none of the games failed by the team's own agent in one of `kinds`."""

    kinds: tuple[str, ...]
    points: float


@dataclass(frozen=True)
class Time:
    """Mean thinking seconds of the team's Pacman per game or per move."""

    per: str
    clock: str
    scale: Scale


@dataclass(frozen=True)
class Beats:
    """Met when the paired difference to `entrant`'s games (same cell, same game index, so the
    same seed) in `by` has an interval above 0 at `confidence`."""

    entrant: str
    by: str
    points: float
    confidence: float


@dataclass(frozen=True)
class Rank:
    """A band of the leaderboard's order (of the games against the grid's ghosts)."""

    bands: tuple[Band, ...]
    among: str
    position: str


@dataclass(frozen=True)
class Rating:
    """A band of the match ratings' order of one side, or thresholds on the rating (Elo,
    relative to the config's anchor)."""

    side: str
    bands: tuple[Band, ...]
    scale: Scale | None
    among: str
    position: str


Rule = Wins | Mean | NoFailures | Time | Beats | Rank | Rating


@dataclass(frozen=True)
class Criterion:
    """One line of the scheme: a name, what it measures and how that gives points."""

    name: str
    rule: Rule
    #: Which games count: its own `games:` over the scheme's.
    games: GameFilter
    #: Whether it has a `games:` of its own (its reason then says which games).
    own_games: bool
    #: Criteria that must be met (their own gates open) for this one to give points.
    requires: tuple[str, ...] = ()
    #: The most points it gives (None: its rule's own most).
    max: float | None = None

    @property
    def most(self) -> float | None:
        """The most points it can give; None when nothing bounds them."""
        rule = self.rule
        if isinstance(rule, (NoFailures, Beats)):
            found: float | None = rule.points
        elif isinstance(rule, (Wins, Mean, Time)):
            found = rule.scale.most
        else:
            candidates = [b.points for b in rule.bands]
            if isinstance(rule, Rating) and rule.scale is not None:
                candidates.append(rule.scale.most or 0.0)
            found = max(candidates)
        if self.max is not None:
            return self.max if found is None else min(found, self.max)
        return found

    @property
    def condition(self) -> bool:
        """A pure condition: it gives no points, it only gates others."""
        return self.most == 0


@dataclass(frozen=True)
class LatePenalty:
    """What lateness costs per started `per` (day or hour): a `fraction` of the mark or
    `points`, at most `max` (a fraction, or points)."""

    per: str
    fraction: float | None = None
    points: float | None = None
    max: float | None = None

    @property
    def unit_seconds(self) -> int:
        return LATE_UNITS[self.per]


@dataclass(frozen=True)
class Scheme:
    """A checked marking scheme."""

    name: str
    #: In the file's order (the order of the reason and of the columns).
    criteria: tuple[Criterion, ...]
    #: Their names in an order where each comes after those it requires.
    gate_order: tuple[str, ...]
    #: What a mark is out of (the CSV's `out_of`).
    out_of: float
    #: The cap on a team's total before any penalty (None: none).
    max: float | None = None
    late: LatePenalty | None = None
    #: The confidence of `beats` intervals unless a criterion gives its own.
    confidence: float = 0.95
    source: Path | None = None

    def criterion(self, name: str) -> Criterion:
        return next(c for c in self.criteria if c.name == name)


# ---- reading ------------------------------------------------------------------------------


def load_scheme(path: Path, config: TournamentConfig) -> Scheme:
    """Read and check a scheme file against the tournament it marks; any problem, a missing
    file included, is a SchemeError listing them all."""
    try:
        data = load_yaml(path, ORGANIZER_FILE)
    except YamlProblem as exc:
        raise SchemeError(str(path), [exc.detail]) from None
    return replace(parse_scheme(data, str(path), config), source=path.resolve())


def parse_scheme(data: object, source: str, config: TournamentConfig) -> Scheme:
    """Check already-loaded YAML data against `config`; `source` names it in messages."""
    if data is None:
        raise SchemeError(source, ["the scheme is empty; it needs at least criteria"])
    tournament = _Tournament.of(config)
    try:
        checked = _SchemeIn.model_validate(data, context={_CONTEXT: tournament})
        return checked.scheme(tournament)
    except ValidationError as exc:
        raise SchemeError(source, problem_lines(exc, data) or ["the scheme is empty"]) from None


# ---- what a scheme is checked against -----------------------------------------------------


@dataclass(frozen=True)
class _Tournament:
    """The names a scheme may use, from the tournament's config."""

    name: str
    layouts: tuple[str, ...]
    depths: tuple[int, ...]
    rulesets: tuple[str, ...]
    cells: tuple[str, ...]
    #: Pacman entrants (teams and baselines): whom `beats` may name.
    pacmen: tuple[str, ...]
    matches: bool
    confidence: float
    #: The ratings' anchor when it is a team's entry ('' otherwise): a team's own games then
    #: move everyone's ratings, so thresholds on the rating are refused.
    team_anchor: str = ""

    @classmethod
    def of(cls, config: TournamentConfig) -> _Tournament:
        grid = config.grid
        return cls(
            name=config.name,
            layouts=tuple(layout.name for layout in grid.layouts),
            depths=tuple(d for d in grid.depths if d is not None),
            rulesets=grid.rules,
            cells=tuple(dict.fromkeys([*(c.key for c in cells(config)),
                                       *(c.key for c in match_cells(config))])),
            pacmen=tuple(e.name for e in config.entrants),
            matches=config.matches is not None,
            confidence=config.ranking.confidence,
            team_anchor=_team_anchor(config),
        )


def _team_anchor(config: TournamentConfig) -> str:
    """The ratings' anchor when a team is it, else ''."""
    if config.matches is None:
        return ""
    side = config.entrants if config.matches.anchor_side == PACMAN else config.ghost_entrants
    return next((e.name for e in side
                 if e.name == config.matches.anchor and e.kind == "team"), "")


def _tournament(info: ValidationInfo) -> _Tournament:
    found = info.context.get(_CONTEXT) if isinstance(info.context, dict) else None
    if not isinstance(found, _Tournament):  # only parse_scheme validates these models
        raise TypeError("scheme models are validated with parse_scheme's context")
    return found


# ---- leaf values --------------------------------------------------------------------------


def _number(what: str = "a number", minimum: float | None = None,
            above: bool = False) -> Callable[[object], float]:
    """A finite number (a whole one or not), at least `minimum` (`above`: more than it)."""
    bound = "" if minimum is None else f" {'>' if above else '>='} {minimum:g}"

    def check(value: object) -> float:
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value)):
            raise problem(f"expected {what}{bound}, got {show(value)}")
        if minimum is not None and (value <= minimum if above else value < minimum):
            raise problem(f"expected {what}{bound}, got {value:g}")
        return float(value)

    return check


Points = Annotated[float, PlainValidator(_number("points", 0))]


def _one_or_more(check: Callable[[object, ValidationInfo], Any], what: str,
                 path: str) -> Callable[[object, ValidationInfo], tuple[Any, ...]]:
    """A value, or a list of values, each checked (a list's problems at their index)."""
    many = list_of(what, check, path=path, empty=f"expected at least one {what}",
                   duplicate="the value")

    def one_or_more(value: object, info: ValidationInfo) -> tuple[Any, ...]:
        return many(value, info) if isinstance(value, list) else (check(value, info),)

    return one_or_more


def _layout(value: object, info: ValidationInfo) -> str:
    return _named(value, _tournament(info).layouts, "layout", "grid.layouts")


def _ruleset(value: object, info: ValidationInfo) -> str:
    return _named(value, _tournament(info).rulesets, "ruleset", "grid.rules")


def _cell(value: object, info: ValidationInfo) -> str:
    return _named(value, _tournament(info).cells, "cell", "cells")


def _named(value: object, known: Sequence[str], what: str, where: str) -> str:
    name = text(f"a {what} name")(value)
    if name not in known:
        raise problem(f"unknown {what} {name!r}{did_you_mean(name, known)}; the "
                      f"tournament's {where}: {_listed(known)}")
    return name


def _listed(names: Sequence[str], shown: int = 8) -> str:
    """Names for a message, the first `shown` of a long list."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "") or "none"


def _depth(value: object, info: ValidationInfo) -> int:
    depth = whole(1)(value)
    depths = _tournament(info).depths
    if not depths:
        raise problem("the tournament's grid gives no depths (each agent searches to its "
                      "own), so there is no depth to choose")
    if depth not in depths:
        raise problem(f"no depth {depth} in the tournament's grid.depths "
                      f"({', '.join(map(str, depths))})")
    return depth


def _column(value: object) -> str:
    name = text("a results column")(value)
    if name not in MEASURED_COLUMNS:
        raise problem(f"unknown column {name!r}{did_you_mean(name, MEASURED_COLUMNS)}; a "
                      f"mean can be taken of {', '.join(MEASURED_COLUMNS)}")
    return name


def _entrant(value: object, info: ValidationInfo) -> str:
    tournament = _tournament(info)
    name = text("an entrant's name")(value)
    if name not in tournament.pacmen:
        raise problem(f"unknown entrant {name!r}{did_you_mean(name, tournament.pacmen)}; "
                      f"the Pacman entrants of {tournament.name!r}: "
                      f"{_listed(tournament.pacmen, 20)}")
    return name


def _criterion_name(value: object) -> str:
    name = text("a criterion name")(value)
    if not NAME_PATTERN.fullmatch(name):
        raise problem(f"{name!r} cannot be a criterion's name: use up to 64 letters, digits "
                      "and . _ + - (it names a column of marks-teams.csv)")
    if name in TEAM_COLUMNS:
        raise problem(f"{name!r} is a column of marks-teams.csv already; name the criterion "
                      "otherwise")
    return name


def _failure_kinds(value: object) -> tuple[str, ...]:
    """`any`, a failure kind, or a list of them."""
    if value == ANY_FAILURE:
        return FAILURES
    kinds = value if isinstance(value, list) else [value]
    expected = f"{ANY_FAILURE}, or failure kinds among {', '.join(FAILURES)}"
    if not kinds:
        raise problem(f"expected {expected}")
    problems = Problems()
    for i, kind in enumerate(kinds):
        if not isinstance(kind, str) or kind not in FAILURES:
            hint = did_you_mean(kind, [*FAILURES, ANY_FAILURE]) if isinstance(kind, str) else ""
            problems.add((i,) if isinstance(value, list) else (),
                         f"unknown failure kind {show(kind)}{hint}; expected {expected}")
    problems.raise_any()
    return tuple(dict.fromkeys(str(kind) for kind in kinds))


# ---- mappings -----------------------------------------------------------------------------


class _FilterIn(StrictMapping):
    layout: Annotated[tuple[str, ...], PlainValidator(
        _one_or_more(_layout, "layout", "games.layout"))] = ()
    depth: Annotated[tuple[int, ...], PlainValidator(
        _one_or_more(_depth, "depth", "games.depth"))] = ()
    cell: Annotated[tuple[str, ...], PlainValidator(
        _one_or_more(_cell, "cell", "games.cell"))] = ()
    ruleset: Annotated[tuple[str, ...], PlainValidator(
        _one_or_more(_ruleset, "ruleset", "games.ruleset"))] = ()

    @property
    def filter(self) -> GameFilter:
        return GameFilter(self.layout, self.depth, self.cell, self.ruleset)


class _ThresholdIn(StrictMapping):
    at: Annotated[float | None, PlainValidator(_number())] = None
    below: Annotated[float | None, PlainValidator(_number())] = None
    points: Points = Field(description="the points for reaching it (0 or more)")


class _BandIn(StrictMapping):
    top: Annotated[int | str | None, PlainValidator(lambda v: v)] = None
    at: Annotated[float | None, PlainValidator(_number())] = None
    points: Points = Field(description="the points for the band (0 or more)")


def _thresholds(allowed: str, measure: str, whole_at: bool = False,
                minimum: float | None = None, above: bool = False
                ) -> Callable[[object, ValidationInfo], tuple[Threshold, ...]]:
    """The `thresholds:` list of a criterion: each `{at: X, points: P}` (reached when the
    measure is at least X) or `{below: X, points: P}` (less than X), as `allowed` says
    (`at`, `below` or `either`), all of one direction, no value twice."""

    def item(value: object, info: ValidationInfo) -> Threshold:
        shape = _ThresholdIn.model_validate(value, context=info.context)
        given = [key for key in ("at", "below") if getattr(shape, key) is not None]
        keys = ("at", "below") if allowed == "either" else (allowed,)
        problems = Problems()
        if not given:
            problems.add((), f"required: {' or '.join(k + ':' for k in keys)} the {measure} "
                         "that gives the points")
        for key in given:
            if key not in keys:
                problems.add((key,), f"{measure} thresholds take "
                             f"{' or '.join(k + ':' for k in keys)}, not {key}:")
        if len(given) == 2 and allowed == "either":
            problems.add((), "give at: or below:, not both")
        problems.raise_any()
        key = given[0]
        found = getattr(shape, key)
        if whole_at and found != int(found):
            raise_at((key,), f"expected a whole number of {measure}, got {found:g}")
        if minimum is not None and (found <= minimum if above else found < minimum):
            raise_at((key,), f"expected {measure} {'>' if above else '>='} {minimum:g}, "
                     f"got {found:g}")
        return Threshold(found, shape.points, below=key == "below")

    many = list_of("{at, points}", item, path="thresholds", empty="expected at least one "
                   "threshold", duplicate="the threshold",
                   key=lambda t: f"{'below' if t.below else 'at'} {t.value:g}")

    def check(value: object, info: ValidationInfo) -> tuple[Threshold, ...]:
        found = many(value, info)
        if len({t.below for t in found}) > 1:
            raise_at((), "give every threshold of a list as at: or every one as below:")
        return found

    return check


def _bands(value: object, info: ValidationInfo, elo: bool = False) -> tuple[Band, ...]:
    """`bands:` of a rank or rating criterion: `{top: 3, points: P}` (the first 3) or
    `{top: 10%, points: P}` (the first tenth)."""

    def item(entry: object, info: ValidationInfo) -> Band:
        shape = _BandIn.model_validate(entry, context=info.context)
        if shape.at is not None:
            raise_at(("at",), "a band is a top: position; thresholds on the rating itself "
                      "go in thresholds:" if elo else "a band is a top: position")
        top = shape.top
        if top is None:
            raise_at(("top",), "required: the band's positions, a number (top: 3) or a "
                      "share (top: 10%)")
        if isinstance(top, int) and not isinstance(top, bool) and top >= 1:
            return Band(shape.points, top=top)
        match = _TOP.fullmatch(top.strip()) if isinstance(top, str) else None
        if match and 0 < float(match.group(1)) <= 100:
            return Band(shape.points, percent=float(match.group(1)))
        raise_at(("top",), f"expected a number of positions >= 1 (top: 3) or a share "
                 f"between 0% and 100% (top: 10%), got {show(top)}")

    return list_of("{top, points}", item, path="bands", empty="expected at least one band",
                   duplicate="the band", key=lambda b: b.words())(value, info)


def _text_list(value: object, info: ValidationInfo) -> tuple[str, ...]:
    return list_of("criterion names", lambda v, _: text("a criterion's name")(v),
                   path="requires", duplicate="the criterion")(
        value if isinstance(value, list) else [value], info)


class _CriterionIn(StrictMapping):
    """The keys every criterion has; each kind adds its own."""

    name: Annotated[str, PlainValidator(_criterion_name)] = Field(
        description="the criterion's name (it names its column in marks-teams.csv)")
    kind: str = Field(description=f"what it measures: one of {', '.join(KINDS)}")
    games: _FilterIn | None = None
    requires: Annotated[tuple[str, ...], PlainValidator(_text_list)] = ()
    max: Annotated[float | None, PlainValidator(_number("points", 0))] = None

    def rule(self) -> Rule:
        raise NotImplementedError


class _ScaledIn(_CriterionIn):
    """A measure given points by thresholds, or by `points` per whole `each` of it."""

    each: Annotated[float | None, PlainValidator(_number("a number", 0, above=True))] = None
    points: Annotated[float | None, PlainValidator(_number("points", 0))] = None

    def scale(self, thresholds: tuple[Threshold, ...]) -> Scale:
        problems = Problems()
        if thresholds and self.each is not None:
            problems.add(("each",), "give thresholds: or each: with points:, not both")
        elif not thresholds and self.each is None:
            problems.add(("thresholds",), "required: thresholds ([{at: 5, points: 1}]), or "
                         "each: with points:")
        elif self.each is not None and self.points is None:
            problems.add(("points",), "required with each: the points for each")
        elif self.points is not None and self.each is None:
            problems.add(("points",), "only with each: (thresholds give their own points)")
        problems.raise_any()
        if self.each is not None:
            return Scale(each=self.each, points=self.points or 0.0)
        return Scale(thresholds)


_WIN_THRESHOLDS = _thresholds("at", "wins", whole_at=True, minimum=1)


class _WinsIn(_ScaledIn):
    thresholds: Annotated[tuple[Threshold, ...], PlainValidator(_WIN_THRESHOLDS)] = ()

    def rule(self) -> Rule:
        return Wins(self.scale(self.thresholds))


class _MeanIn(_ScaledIn):
    column: Annotated[str, PlainValidator(_column)] = Field(
        description=f"the results column to average: one of {', '.join(MEASURED_COLUMNS)}")
    thresholds: Annotated[tuple[Threshold, ...], PlainValidator(
        _thresholds("either", "mean"))] = ()

    def rule(self) -> Rule:
        return Mean(self.column, self.scale(self.thresholds))


class _NoFailuresIn(_CriterionIn):
    failures: Annotated[tuple[str, ...], PlainValidator(_failure_kinds)] = FAILURES
    points: Points = Field(description="the points when no game failed so (0: a condition "
                           "other criteria require)")

    def rule(self) -> Rule:
        return NoFailures(self.failures, self.points)


class _TimeIn(_CriterionIn):
    per: Annotated[str, PlainValidator(choice(TIME_PER, "unit"))] = "game"
    clock: Annotated[str, PlainValidator(choice(CLOCKS, "clock"))] = "wall"
    thresholds: Annotated[tuple[Threshold, ...], PlainValidator(
        _thresholds("below", "seconds", minimum=0, above=True))] = Field(
        description="[{below: 30, points: 1}]: seconds under which the points are given")

    def rule(self) -> Rule:
        return Time(self.per, self.clock, Scale(self.thresholds))


class _BeatsIn(_CriterionIn):
    entrant: Annotated[str, PlainValidator(_entrant)] = Field(
        description="the Pacman entrant to beat (a baseline or a staff team)")
    by: Annotated[str, PlainValidator(choice(BEATS_ON, "comparison"))] = "win_rate"
    points: Points = Field(description="the points for beating it")
    confidence: Annotated[float | None, PlainValidator(confidence_level)] = None

    def rule(self) -> Rule:
        return Beats(self.entrant, self.by, self.points, self.confidence or math.nan)


class _BandedIn(_CriterionIn):
    among: Annotated[str, PlainValidator(choice(AMONG, "value"))] = "teams"
    position: Annotated[str, PlainValidator(choice(POSITIONS, "position"))] = "rank"


class _RankIn(_BandedIn):
    bands: Annotated[tuple[Band, ...], PlainValidator(_bands)] = Field(
        description="[{top: 3, points: 2}, {top: 25%, points: 1}]")

    def rule(self) -> Rule:
        return Rank(self.bands, self.among, self.position)


class _RatingIn(_BandedIn):
    side: Annotated[str, PlainValidator(choice(SIDES, "side"))] = PACMAN
    bands: Annotated[tuple[Band, ...], PlainValidator(
        lambda v, info: _bands(v, info, elo=True))] = ()
    thresholds: Annotated[tuple[Threshold, ...], PlainValidator(
        _thresholds("at", "rating"))] = ()

    def rule(self) -> Rule:
        if not self.bands and not self.thresholds:
            raise_at(("bands",), "required: bands ([{top: 10%, points: 2}]), or thresholds "
                      "on the rating itself ([{at: 200, points: 1}])")
        return Rating(self.side, self.bands, Scale(self.thresholds) if self.thresholds
                      else None, self.among, self.position)


_KIND_MODELS: dict[str, type[_CriterionIn]] = {
    "wins": _WinsIn, "mean": _MeanIn, "no_failures": _NoFailuresIn, "time": _TimeIn,
    "beats": _BeatsIn, "rank": _RankIn, "rating": _RatingIn,
}
assert tuple(_KIND_MODELS) == KINDS


def _criterion(value: object, info: ValidationInfo) -> tuple[_CriterionIn, Rule]:
    """A criterion, checked with the keys of its kind."""
    if not isinstance(value, dict):
        raise problem(f"expected a mapping with name, kind and its keys, got {show(value)}")
    kind = value.get("kind")
    if kind is None:
        raise_at(("kind",), f"required: what it measures, one of {', '.join(KINDS)}")
    model = _KIND_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        hint = did_you_mean(kind, KINDS) if isinstance(kind, str) else ""
        problems = Problems()
        problems.add(("kind",), f"unknown criterion kind {show(kind)}{hint}; expected one of "
                     f"{', '.join(KINDS)}")
        problems.run(lambda: _CriterionIn.model_validate(
            {k: v for k, v in value.items() if k in _CriterionIn.model_fields},
            context=info.context))
        problems.raise_any()
        raise AssertionError("unreachable: the kind's problem was raised")
    shape = model.model_validate(value, context=info.context)
    if isinstance(shape, _RatingIn) and not _tournament(info).matches:
        raise_at(("kind",), "the tournament plays no match games (no matches: in its "
                  "config), so there are no ratings to mark")
    anchor = _tournament(info).team_anchor
    if isinstance(shape, _RatingIn) and shape.thresholds and anchor:
        # The sixteenth hostile review: the anchor team's ghosts forfeiting every game put
        # every Pacman's rating, its own too, above `at: 0`.
        raise_at(("thresholds",), f"a rating is relative to the anchor, here the team "
                 f"{anchor!r}, whose own games would move every team's rating across "
                 "the thresholds; anchor the ratings at a baseline (matches.anchor in the "
                 "config), or mark by bands of the rating order")
    return shape, shape.rule()


def _criteria(value: object, info: ValidationInfo) -> tuple[tuple[_CriterionIn, Rule], ...]:
    """Every criterion, then every name in a `requires:` checked against the names given
    (those of criteria with problems of their own too, so that one run reports both)."""
    problems = Problems()
    found = problems.run(lambda: list_of(
        "criteria", _criterion, path="criteria", empty="expected at least one criterion",
        duplicate="the criterion name", key=lambda c: c[0].name)(value, info))
    items = value if isinstance(value, list) else []
    names = [item["name"].strip() for item in items
             if isinstance(item, dict) and isinstance(item.get("name"), str)]
    for i, item in enumerate(items):
        required = item.get("requires") if isinstance(item, dict) else None
        for j, name in enumerate(required if isinstance(required, list) else [required]):
            if not isinstance(name, str) or not name.strip():
                continue  # not a name: the criterion's own check says so
            at = (i, "requires", j) if isinstance(required, list) else (i, "requires")
            if name.strip() == item.get("name"):
                problems.add(at, "a criterion cannot require itself")
            elif name.strip() not in names:
                problems.add(at, f"unknown criterion {name!r}{did_you_mean(name, names)}; "
                             f"the scheme's criteria are {', '.join(names)}")
    problems.raise_any()
    assert found is not None
    return found


def _fraction(value: object) -> float:
    found = _number("a fraction", 0, above=True)(value)
    if found > 1:
        raise problem(f"expected a fraction of the mark up to 1 (0.1 is 10%), got {found:g}")
    return found


class _LateIn(StrictMapping):
    per: Annotated[str, PlainValidator(choice(tuple(LATE_UNITS), "unit"))] = Field(
        description="day or hour: each started one costs the penalty")
    fraction: Annotated[float | None, PlainValidator(_fraction)] = None
    points: Annotated[float | None, PlainValidator(_number("points", 0, above=True))] = None
    max: Annotated[float | None, PlainValidator(_number("a number", 0, above=True))] = None

    @model_validator(mode="after")
    def _one_way(self) -> _LateIn:
        if (self.fraction is None) == (self.points is None):
            raise problem("give fraction: (of the mark, 0.1 per unit) or points: (per unit), "
                          "one of them")
        if self.fraction is not None and self.max is not None and self.max > 1:
            raise_at(("max",), f"expected the most of the mark taken, a fraction up to 1, "
                     f"got {self.max:g}")
        return self

    def penalty(self) -> LatePenalty:
        return LatePenalty(self.per, self.fraction, self.points, self.max)


class _SchemeIn(StrictMapping):
    """The whole scheme; its fields' order is the order keys are listed in messages."""

    name: Annotated[str, PlainValidator(text("a name"))] = "marks"
    out_of: Annotated[float | None, PlainValidator(_number("points", 0, above=True))] = None
    max: Annotated[float | None, PlainValidator(_number("points", 0, above=True))] = None
    confidence: Annotated[float | None, PlainValidator(confidence_level)] = None
    games: _FilterIn | None = None
    criteria: Annotated[tuple[tuple[_CriterionIn, Rule], ...], PlainValidator(_criteria)] = (
        Field(description="a list of criteria, each with a name and a kind"))
    late: _LateIn | None = None

    def scheme(self, tournament: _Tournament) -> Scheme:
        """The checked scheme; what needs all criteria at once (their requirements, what
        a mark is out of) is checked here, its problems raised together."""
        problems = Problems()
        late = self.late.penalty() if self.late is not None else None
        default = self.games.filter if self.games is not None else GameFilter()
        # The scheme's confidence, else the tournament's (`ranking.confidence`).
        level = self.confidence if self.confidence is not None else tournament.confidence
        built: list[Criterion] = []
        for shape, rule in self.criteria:
            if isinstance(rule, Beats) and math.isnan(rule.confidence):
                rule = replace(rule, confidence=level)
            own = shape.games.filter if shape.games is not None else GameFilter()
            built.append(Criterion(shape.name, rule, own.over(default), shape.games is not None,
                                   shape.requires, shape.max))
        ordered = _gate_order(built, problems)
        most = [c.most for c in built]
        out_of = self.out_of if self.out_of is not None else self.max
        if out_of is None:
            if any(m is None for m in most):
                unbounded = next(c.name for c, m in zip(built, most) if m is None)
                problems.add(("out_of",), f"required: criterion {unbounded!r} gives points for "
                             "each unit with no max:, so the scheme cannot tell what a mark "
                             "is out of")
            else:
                out_of = sum(m or 0.0 for m in most)
        if out_of == 0 and not problems:
            problems.add(("criteria",), "no criterion gives any points (each gives 0): "
                         "nothing to mark out of")
        problems.raise_any()
        assert out_of is not None
        return Scheme(self.name, tuple(built), tuple(c.name for c in ordered), out_of,
                      self.max, late, level)


def _gate_order(criteria: list[Criterion], problems: Problems) -> tuple[Criterion, ...]:
    """The criteria with every one after those it requires (their names are known:
    `_criteria` checked them); requirements that go round in a circle are a problem."""
    names = [c.name for c in criteria]
    done: list[Criterion] = []
    waiting = list(criteria)
    while waiting:
        ready = [c for c in waiting if all(r in {d.name for d in done} for r in c.requires)]
        if not ready:
            circle = ", ".join(c.name for c in waiting)
            first = names.index(waiting[0].name)
            problems.add(("criteria", first, "requires"), f"the requirements of {circle} go "
                         "round in a circle: none of them could ever give points")
            return tuple(criteria)
        done += ready
        waiting = [c for c in waiting if c not in ready]
    return tuple(done)
