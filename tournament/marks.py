"""Marks from a tournament's results: a marking scheme evaluated, per team, then per student.

Pure: no I/O, no clock. `evaluate` takes the scheme (`tournament.markscheme`), the current
results as the leaderboard reads them (`tournament.resume.current_results`: stale games
never count), the config and the collected submissions' manifest (or None), and gives each
team its `TeamMark`: each criterion's points and the words that explain them, the total after
gates and caps, the late penalty and the mark. `team_table` and `student_table` are what
`tournament marks` writes (marks-teams.csv, marks.csv for the learning-management system).

How a mark is made, in order:

1. Each criterion measures the team (its games that pass the criterion's filter, or its
   place in a ranking) and gives points: the most points of the thresholds or bands reached,
   or `points` for every whole `each`, at most its `max`. A criterion is met when its
   condition holds: a threshold or band reached, no failure, the other entrant beaten.
2. Gates: a criterion gives its points only when every criterion it `requires` is met and
   gives its own (so requirements chain).
3. The total is capped at the scheme's `max`; then lateness (the manifest's `late_seconds`,
   each started day or hour) takes a fraction of it or points, at most the penalty's `max`;
   a mark is never below 0.

Games are the team's Pacman games against the grid's ghosts (the leaderboard's games); an
`infra_error` was never scored and never counts. Ratings are the match games'. Baselines are
measured (a `beats` criterion compares with one, ranks may count them) but never marked.
Every number in a reason is the one the mark was decided on, so a student can check it.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd  # type: ignore[import-untyped, unused-ignore]

from pacman.outcomes import FAILURES, INFRA_ERROR, PACMAN
from tournament.config import TournamentConfig, agent_folders, apart_from_agents
from tournament.leaderboard import bootstrap_mean_interval, leaderboard
from tournament.manifest import SUPERSEDED, Manifest
from tournament.markscheme import (
    STUDENT_COLUMNS,
    TEAM_COLUMNS,
    Band,
    Beats,
    Criterion,
    LatePenalty,
    Mean,
    NoFailures,
    Rank,
    Rating,
    Scale,
    Scheme,
    Threshold,
    Time,
    Wins,
)
from tournament.ranking import RATING, ranked
from tournament.results import PLAYED_COLUMNS, split_formats
from tournament.roster import student_key
from tournament.standings import anchor_of, standings
from tournament.tables import csv_header
from tournament.times import duration_text, utc_text

#: The bootstrap's seed for a `beats` interval: fixed, so the same games give the same mark.
BEATS_SEED = 0
#: Decimal places marks are rounded to (points such as 0.1 add up to 0.30000000000000004).
PLACES = 4
#: How close (relative) a measure's quotient by `each` must come to a whole number to reach
#: it: far below any real difference, far above floating point's error.
UNIT_TOLERANCE = 1e-9

#: How failure kinds read in a reason.
_FAILURE_WORDS = {"timeout": "time-out", "load_error": "load error",
                  "illegal_action": "illegal move", "memory": "memory failure",
                  "killed": "kill"}


@dataclass(frozen=True)
class Measured:
    """What one criterion found for one team, before gates."""

    #: The measure in words: `wins 7/10`, `mean score 812`.
    text: str
    #: Its points (at most the criterion's `max`), whether or not a gate lets them count.
    points: float
    #: Whether its condition holds.
    met: bool
    #: Why these points (`>= 5`, `top 10%`); empty when not met.
    label: str
    #: What it takes to be met (`at least 5 wins`), for a reason that says what is missing.
    needs: str


@dataclass(frozen=True)
class Given:
    """What one criterion gave one team."""

    criterion: str
    points: float
    #: Its own condition held.
    met: bool
    #: Met, and every criterion it requires counted too: its points count.
    counted: bool
    #: Its part of the reason; empty for a met condition that gives no points.
    text: str


@dataclass(frozen=True)
class TeamMark:
    """A team's mark and how it was made."""

    team: str
    #: One per criterion, in the scheme's order.
    given: tuple[Given, ...]
    #: The criteria's points after gates and the scheme's cap, before the penalty.
    total: float
    #: Points the late penalty took.
    penalty: float
    mark: float
    out_of: float
    reason: str
    #: Its current scored games, either side (0: nothing to mark yet).
    games: int


def teams_of(config: TournamentConfig) -> list[str]:
    """The entrants that get marks: teams (of either side), never baselines, by name."""
    return sorted({e.name for e in config.all_entrants
                   if e.kind == "team"})


class UnmarkableError(ValueError):
    """The results cannot give a criterion's measure for anyone (the match games give no
    ratings): marking every team 0 on it would be the platform's failure written as theirs."""


def evaluate(scheme: Scheme, results: Any, config: TournamentConfig,
             manifest: Manifest | None) -> list[TeamMark]:
    """Every team's mark (see the module), in team-name order; UnmarkableError when a
    criterion cannot be measured for anyone."""
    scored = results[results["outcome"] != INFRA_ERROR]
    teams = teams_of(config)
    measured = {c.name: _measure(c, scored, teams, config) for c in scheme.criteria}
    folders = config.team_folders()
    marks = []
    for team in teams:
        games = int((scored["entrant"] == team).sum())
        if "ghost_entrant" in scored.columns:
            games += int((scored["ghost_entrant"] == team).sum())
        late, marked = 0.0, False
        if manifest is not None:
            record = manifest.team(folders.get(team, team))
            if record is not None:
                late, marked = record.late_seconds, record.late
        marks.append(_team_mark(scheme, team, games, {n: m[team] for n, m in measured.items()},
                                late, marked))
    return marks


def _team_mark(scheme: Scheme, team: str, games: int, found: dict[str, Measured],
               late_seconds: float, marked_late: bool = False) -> TeamMark:
    """One team's mark from what each criterion measured (gates, caps, penalty, reason).
    `marked_late`: the manifest says the submission is late, however many seconds it gives
    (an LMS's own late mark, Canvas's `LATE`, says late without saying by how much)."""
    if games == 0:
        nothing = tuple(Given(c.name, 0.0, False, False, "") for c in scheme.criteria)
        return TeamMark(team, nothing, 0.0, 0.0, 0.0, scheme.out_of,
                        "no games played yet with its current files: 0", 0)
    counted: dict[str, bool] = {}
    for name in scheme.gate_order:
        criterion = scheme.criterion(name)
        counted[name] = found[name].met and all(counted[r] for r in criterion.requires)
    parts: list[str] = []
    given: list[Given] = []
    for criterion in scheme.criteria:
        measured = found[criterion.name]
        points = measured.points if counted[criterion.name] else 0.0
        text = _part(criterion, measured, counted[criterion.name],
                     _blockers(scheme, criterion, found, counted), found)
        given.append(Given(criterion.name, points, measured.met, counted[criterion.name], text))
        if text:
            parts.append(text)
    total = sum(g.points for g in given)
    if scheme.max is not None and total > scheme.max:
        total = scheme.max
        parts.append(f"total capped at {_num(scheme.max)}")
    penalty, words = _penalty(scheme.late, total, late_seconds, marked_late)
    if words:
        parts.append(words)
    mark = max(0.0, total - penalty)
    return TeamMark(team, tuple(given), _round(total), _round(penalty), _round(mark),
                    scheme.out_of, "; ".join(parts), games)


def _blockers(scheme: Scheme, criterion: Criterion, found: dict[str, Measured],
              counted: dict[str, bool]) -> list[str]:
    """The criteria whose own condition failed and that keep `criterion` from counting,
    through chains of requirements, in the order they are required."""
    out: list[str] = []
    for name in criterion.requires:
        if counted[name]:
            continue
        if not found[name].met:
            out.append(name)
        else:
            out += _blockers(scheme, scheme.criterion(name), found, counted)
    return list(dict.fromkeys(out))


def _part(criterion: Criterion, measured: Measured, counts: bool, blockers: list[str],
          found: dict[str, Measured]) -> str:
    """A criterion's part of the reason: `wins 7/10: +1 (>= 5)`."""
    if not measured.met:
        if criterion.condition:
            return f"{measured.text}: needs {measured.needs}"
        return f"{measured.text}: 0 (needs {measured.needs})"
    if not counts:
        if criterion.condition:
            return ""  # the criteria it gates say what is missing
        needed = " and ".join(found[name].needs for name in blockers)
        return f"{measured.text}: 0 (only with {needed})"
    if criterion.condition:
        return ""
    return f"{measured.text}: {_signed(measured.points)} ({measured.label})"


def _penalty(late: LatePenalty | None, total: float, seconds: float,
             marked: bool = False) -> tuple[float, str]:
    """What lateness takes from `total`, and its words (none when on time). A submission
    marked late whose lateness is not known in seconds (`marked`, `seconds` 0) has started
    one unit at least: it is charged that one."""
    if late is None or (seconds <= 0 and not marked):
        return 0.0, ""
    units = max(1, math.ceil(seconds / late.unit_seconds))
    started = f"{units} started {late.per}{'s' if units > 1 else ''}"
    how = (f"late by {duration_text(seconds)} ({started})" if seconds > 0 else
           f"marked late, by how much unknown ({started})")
    if late.fraction is not None:
        share = min(late.fraction * units, late.max if late.max is not None else 1.0)
        taken = total * share
        return taken, (f"{how}: -{share * 100:g}%" + (f" (-{_num(taken)})" if taken else ""))
    assert late.points is not None
    amount = late.points * units
    if late.max is not None:
        amount = min(amount, late.max)
    taken = min(amount, total)
    return taken, f"{how}: -{_num(amount)}"


# ---- measures ----------------------------------------------------------------------------


def _measure(criterion: Criterion, scored: Any, teams: list[str],
             config: TournamentConfig) -> dict[str, Measured]:
    """What `criterion` finds for every team."""
    rule = criterion.rule
    fixed, matches = split_formats(scored)
    if isinstance(rule, Rating):
        return _rating(criterion, rule, criterion.games.select(matches), teams, config)
    games = criterion.games.select(fixed)
    if isinstance(rule, Rank):
        return _rank(criterion, rule, games, teams, config)
    words = criterion.games.words() if criterion.own_games else ""
    by_team = {str(name): group for name, group in games.groupby("entrant", sort=False)}
    other = games[games["entrant"] == rule.entrant] if isinstance(rule, Beats) else None
    out = {}
    for team in teams:
        mine = by_team.get(team, games.iloc[0:0])
        if not len(mine):
            # Whatever filter left none, say which: a scheme's own filter included.
            out[team] = Measured(f"no games{criterion.games.words()}", 0.0, False, "",
                                 _needs(criterion))
        elif isinstance(rule, Beats):
            out[team] = _beats(criterion, rule, mine, other, words)
        else:
            out[team] = _per_game(criterion, mine, words)
    return out


def _per_game(criterion: Criterion, games: Any, words: str) -> Measured:
    """Wins, a mean, failures or thinking time over one team's games."""
    rule = criterion.rule
    n = len(games)
    if isinstance(rule, Wins):
        wins = int(games["win"].astype(bool).sum())
        return _on_scale(criterion, rule.scale, wins, f"wins {wins}/{n}{words}")
    if isinstance(rule, NoFailures):
        own = games["outcome"].isin(rule.kinds) & (pd.to_numeric(games["culprit"]) == 0)
        failed = int(own.sum())
        what = _failures_words(rule.kinds)
        if failed:
            kinds = games.loc[own, "outcome"].value_counts().sort_index()
            detail = (f" ({', '.join(f'{k} {v}' for k, v in kinds.items())})"
                      if len(rule.kinds) > 1 else "")
            return Measured(f"{what} in {failed} of {n} games{words}{detail}", 0.0, False, "",
                            _needs(criterion))
        return Measured(f"no {what} in {n} games{words}", _capped(criterion, rule.points), True,
                        f"no {what}", _needs(criterion))
    # Time, and the columns measured over the moves played under `below:` thresholds: only
    # the games its own agent played to the end. A game it failed (a crash at its second
    # move) is short, and counting it would reward failing fast; failures are the other
    # criteria's (no_failures), and a team that failed every game has nothing of this to
    # mark. Where more is better (`at:`, `each:`), a failed game's short count stays in: it
    # is the loss it is, and leaving it out would reward failing before a bad end.
    assert isinstance(rule, (Mean, Time))
    own_failure = own_failures(games)
    if isinstance(rule, Mean):
        played = rule.column in PLAYED_COLUMNS and rule.scale.lower_is_better
        kept = games[~own_failure] if played else games
        values = pd.to_numeric(kept[rule.column], errors="coerce").astype(float).dropna()
        what, unit = _mean_words(rule.column), ""
    else:
        values = _thinking(games[~own_failure], rule.per, rule.clock).dropna()
        what = "thinking time" if rule.clock == "wall" else "CPU time"
        played, unit = True, " s"
    skipped = played and bool(own_failure.any())
    if values.empty:
        why = (f"no game finished without a failure of its own{words}" if skipped
               else f"no {rule.column if isinstance(rule, Mean) else what} measured{words}")
        return Measured(why, 0.0, False, "", _needs(criterion))
    over = f" (over the {_plural(len(values), 'game')} it did not fail)" if skipped else ""
    per = f" s per {rule.per}" if isinstance(rule, Time) else ""
    return _on_scale(criterion, rule.scale, float(values.mean()),
                     f"{what} {_num(values.mean())}{per}{words}{over}", unit=unit)


def own_failures(games: Any) -> Any:
    """Which games the team's own agent failed (any failure kind, the culprit its side)."""
    return games["outcome"].isin(FAILURES) & (pd.to_numeric(games["culprit"]) == 0)


def pacman_moves(games: Any) -> Any:
    """How many moves the Pacman of each game made, as the referee timed them (`wall_mean`
    and `cpu_mean` are per such move): every agent moves in turn, Pacman first, so of the
    game's `moves` (all agents' moves that were played) ceil(moves / (ghosts + 1)) are his;
    a move of his that failed (a time-out, an illegal move) was timed but not played, so it
    is one more."""
    played = (pd.to_numeric(games["moves"]) / (pd.to_numeric(games["num_ghosts"]) + 1))
    return played.apply(math.ceil) + own_failures(games).astype(int)


def _thinking(games: Any, per: str, clock: str) -> Any:
    """Seconds of the Pacman's thinking per game or per move, by the wall clock (the
    referee's) or the CPU clock (the sandbox's; none for in-process agents)."""
    per_move = pd.to_numeric(games["wall_mean" if clock == "wall" else "cpu_mean"],
                             errors="coerce").astype(float)
    if per == "move":
        return per_move
    return per_move * pacman_moves(games)


def _beats(criterion: Criterion, rule: Beats, mine: Any, other: Any, words: str) -> Measured:
    """The paired comparison with `rule.entrant` on the games both played (same cell and
    index, so the same seed): a percentile bootstrap over the pairs (seeded, as the
    leaderboard's score intervals) of the mean difference; met when it is above 0."""
    column = "win" if rule.by == "win_rate" else "score"
    pairs = mine.merge(other, on=["cell", "game_index"], suffixes=("", "_other"))
    n = len(pairs)
    if n == 0:
        return Measured(f"no games in common with {rule.entrant}{words}", 0.0, False, "",
                        _needs(criterion))
    ours = pairs[column].astype(float).to_numpy()
    theirs = pairs[f"{column}_other"].astype(float).to_numpy()
    low, high = bootstrap_mean_interval(ours - theirs, rule.confidence, seed=BEATS_SEED)
    met = low > 0
    if rule.by == "win_rate":
        shown = (f"win rate {_pct(ours.mean())} against {rule.entrant}'s "
                 f"{_pct(theirs.mean())} on the same {n} games{words} (difference "
                 f"{_signed_pct(ours.mean() - theirs.mean())} points, {rule.confidence:.0%} "
                 f"interval [{_signed_pct(low)}, {_signed_pct(high)}])")
    else:
        shown = (f"mean score {_num(ours.mean())} against {rule.entrant}'s "
                 f"{_num(theirs.mean())} on the same {n} games{words} (difference "
                 f"{_signed_num(ours.mean() - theirs.mean())}, {rule.confidence:.0%} interval "
                 f"[{_signed_num(low)}, {_signed_num(high)}])")
    points = _capped(criterion, rule.points) if met else 0.0
    return Measured(shown, points, met, f"beats {rule.entrant}" if met else "",
                    _needs(criterion))


def _rank(criterion: Criterion, rule: Rank, games: Any, teams: list[str],
          config: TournamentConfig) -> dict[str, Measured]:
    """Bands of the leaderboard's order of these games (ranked by `ranking.by`)."""
    board = leaderboard(games, config.ranking)
    board = board[board["games"] > 0]
    if rule.among == "teams":
        board = board[board["entrant"].isin(teams)]
    board = ranked(board.drop(columns=["rank", "rank_group"]), config.ranking.by)
    who = _plural(len(board), "team" if rule.among == "teams" else "entrant")
    words = criterion.games.words() if criterion.own_games else ""
    return {team: _banded(criterion, rule.bands, None, board, team, rule.position,
                          f"rank {{position}} of {who}{words}")
            for team in teams}


def _rating(criterion: Criterion, rule: Rating, matches: Any, teams: list[str],
            config: TournamentConfig) -> dict[str, Measured]:
    """Bands of the rating order of one side, or thresholds on the rating itself."""
    anchor = anchor_of(config)
    words = criterion.games.words() if criterion.own_games else ""
    side = "Pacman" if rule.side == PACMAN else "ghost team"
    shown = None if anchor is None else standings(matches, anchor,
                                                   config.ranking.confidence)
    if shown is not None and shown.ratings is None:
        # Games that give no ratings (groups no game links, as a design that lost its links
        # gave: the sixteenth hostile review) are no team's measure: refused, not 0 for all.
        raise UnmarkableError(f"criterion {criterion.name!r}: the match games{words} give no "
                              f"{side} ratings: {shown.problem}")
    if shown is None:
        # No scored match game at all (none played yet, or all the platform's infra_error):
        # the league's failure to play, never every team's 0 (the review of this change).
        raise UnmarkableError(f"criterion {criterion.name!r}: no scored match games{words} "
                              "to rate: tournament run plays them")
    board = shown.ratings
    board = board[(board["side"] == rule.side) & board["rating"].notna()]
    if rule.among == "teams":
        board = board[board["entrant"].isin(teams)]
    board = ranked(board.drop(columns=["rank", "rank_group"]), [RATING.column],
                   tie=("side", "entrant"))
    who = _plural(len(board), "team" if rule.among == "teams" else "entrant")
    out = {}
    for team in teams:
        row = board[board["entrant"] == team]
        rating = (f"{side} rating {_elo(row['rating'].iloc[0])} [{_elo(row['rating_low'].iloc[0])}"
                  f", {_elo(row['rating_high'].iloc[0])}], " if len(row) else "")
        out[team] = _banded(criterion, rule.bands, rule.scale, board, team, rule.position,
                            f"{rating}rank {{position}} of {who}{words}",
                            side=side)
    return out


def _banded(criterion: Criterion, bands: Sequence[Band], scale: Scale | None, board: Any,
            team: str, position: str, template: str, side: str = "") -> Measured:
    """The most points of the bands reached by `team`'s place on `board` (ranked, with
    `rank` and `rank_group`), and of thresholds on its rating."""
    row = board[board["entrant"] == team]
    if not len(row):
        what = f"no {side} rating" if side else "not ranked"
        return Measured(f"{what} (no games{criterion.games.words()})", 0.0, False, "",
                        _needs(criterion))
    group = str(row["rank_group"].iloc[0])
    place = int(row["rank"].iloc[0]) if position == "rank" else int(group.split("-")[0])
    text = template.format(position=place if position == "rank" else group)
    count = len(board)
    reached: list[tuple[float, str]] = [(b.points, b.words()) for b in bands
                                        if b.reached(place, count)]
    if scale is not None:
        rating = float(row["rating"].iloc[0])
        reached += [(t.points, _threshold_words(t, "", elo=True)) for t in scale.thresholds
                    if t.reached(rating)]
    if not reached:
        return Measured(text, 0.0, False, "", _needs(criterion))
    points, label = max(reached, key=lambda found: found[0])
    return _with_cap(criterion, points, label, text)


# ---- scales and words --------------------------------------------------------------------


def _on_scale(criterion: Criterion, scale: Scale, value: float, text: str,
              unit: str = "") -> Measured:
    """Points for `value` on `scale`: the most of the thresholds reached, or `points` per
    whole `each` (a negative value gives none)."""
    if scale.each is not None:
        units = whole_units(value, scale.each)
        points = units * scale.points
        if not points:
            return Measured(text, 0.0, False, "", _needs(criterion))
        return _with_cap(criterion, points, f"{_signed(scale.points)} per {_num(scale.each)}",
                         text)
    reached = [t for t in scale.thresholds if t.reached(value)]
    if not reached:
        return Measured(text, 0.0, False, "", _needs(criterion))
    best = max(reached, key=lambda t: t.points)
    return _with_cap(criterion, best.points, _threshold_words(best, unit), text)


def whole_units(value: float, each: float) -> int:
    """How many whole `each` a measure holds (none for a measure <= 0). The division is
    floating point, where a win rate of 0.3 holds 0.3 / 0.1 = 2.9999999999999996 tenths: a
    quotient within `UNIT_TOLERANCE` (relative) of the next whole number has reached it."""
    if value <= 0:
        return 0
    return math.floor(value / each * (1 + UNIT_TOLERANCE))


def _with_cap(criterion: Criterion, points: float, label: str, text: str) -> Measured:
    capped = _capped(criterion, points)
    if capped < points:
        label += f", at most {_num(capped)}"
    return Measured(text, capped, True, label, _needs(criterion))


def _capped(criterion: Criterion, points: float) -> float:
    return points if criterion.max is None else min(points, criterion.max)


def _threshold_words(threshold: Threshold, unit: str, elo: bool = False) -> str:
    value = _elo(threshold.value) if elo else _num(threshold.value)
    return f"< {value}{unit}" if threshold.below else f">= {value}{unit}"


def _needs(criterion: Criterion) -> str:
    """What it takes to meet `criterion`, in words: `at least 5 wins`."""
    rule = criterion.rule
    words = criterion.games.words() if criterion.own_games else ""
    if isinstance(rule, NoFailures):
        return f"no {_failures_words(rule.kinds)}{words}"
    if isinstance(rule, Beats):
        by = "win rate" if rule.by == "win_rate" else "mean score"
        return f"a {by} above {rule.entrant}'s{words} by the whole interval"
    if isinstance(rule, (Rank, Rating)):
        what = "a rank" if isinstance(rule, Rank) else (
            f"a {'Pacman' if rule.side == PACMAN else 'ghost team'} rating")
        options = [f"in the {band.words()}" for band in rule.bands]
        if isinstance(rule, Rating) and rule.scale is not None:
            options.append(_threshold_words(rule.scale.lowest(), "", elo=True))
        return f"{what} {' or '.join(options)}{words}"
    if isinstance(rule, Wins):
        if rule.scale.each is not None:
            return f"at least {_num(rule.scale.each)} wins{words}"
        at = int(rule.scale.lowest().value)
        return f"at least {at} win{'s' if at != 1 else ''}{words}"
    if isinstance(rule, Mean):
        what, unit = _mean_words(rule.column), ""
    else:
        what = f"{'thinking' if rule.clock == 'wall' else 'CPU'} time per {rule.per}"
        unit = " s"
    if rule.scale.each is not None:
        return f"a {what} >= {_num(rule.scale.each)}{words}"
    return f"a {what} {_threshold_words(rule.scale.lowest(), unit)}{words}"


def _mean_words(column: str) -> str:
    return "win rate" if column == "win" else f"mean {column}"


def _failures_words(kinds: Sequence[str]) -> str:
    if tuple(kinds) == FAILURES:
        return "failure"
    return " or ".join(_FAILURE_WORDS.get(kind, kind) for kind in kinds)


def _plural(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _round(value: float) -> float:
    return round(value, PLACES) + 0.0  # + 0.0: never -0.0


def _num(value: float) -> str:
    """A figure as a reason shows it: whole above 100, three significant digits below."""
    value = float(value)
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def _signed(points: float) -> str:
    return f"+{_round(points):g}"


def _signed_num(value: float) -> str:
    text = _num(value)
    return text if text.startswith("-") else f"+{text}"


def _pct(rate: float) -> str:
    """A rate as a percentage, as precise as `_num` (97.5%: rounding it to 98% would not
    add up with the difference shown beside it)."""
    return f"{_num(rate * 100)}%"


def _signed_pct(rate: float) -> str:
    """A difference of rates in percentage points: `+35`, `+12.5`."""
    return _signed_num(rate * 100)


def _elo(value: float) -> str:
    rounded = round(float(value))
    return "0" if rounded == 0 else f"{rounded:+d}"


def output_problems(config: TournamentConfig, paths: Sequence[Path]) -> list[str]:
    """Why `tournament marks` may not write its tables to `paths` (marks.csv, then
    marks-teams.csv), in words; [] when it may. A path is named on the command line, so
    it meets the rules the config's `output` meets (never where an agent plays from or
    any sandbox reads: the marks would be every team's to read, and a team's files
    would change), and an existing file is replaced only when it is a marks table of ours
    (its header says so): a slip of `--out` must not replace the results store, the
    secret, the config or a team's agent."""
    problems = [f"--out: {why}" for _, why in
                apart_from_agents({str(path): path for path in paths}, agent_folders(config))]
    for path, ours in zip(paths, (_is_student_header, _is_team_header)):
        if path.exists() or path.is_symlink():
            header = csv_header(path)
            if header is None or not ours(header):
                problems.append(f"--out: {path} exists and is not a marks table written by "
                                "`tournament marks`; it is not replaced: name another file, "
                                "or move that one away")
    return problems


def _is_student_header(header: list[str]) -> bool:
    return tuple(header) == STUDENT_COLUMNS


def _is_team_header(header: list[str]) -> bool:
    tail = len(TEAM_COLUMNS) - 1
    return (len(header) >= len(TEAM_COLUMNS) and header[0] == TEAM_COLUMNS[0]
            and tuple(header[-tail:]) == TEAM_COLUMNS[1:])


# ---- the tables written --------------------------------------------------------------------


def team_table(marks: Sequence[TeamMark], scheme: Scheme) -> Any:
    """marks-teams.csv: one row per team; after `team` a column per criterion (its points
    after gates), then `TEAM_COLUMNS`' others."""
    names = [c.name for c in scheme.criteria]
    rows = []
    for mark in marks:
        points = {g.criterion: g.points for g in mark.given}
        rows.append({"team": mark.team, **{name: points[name] for name in names},
                     "total": mark.total, "penalty": mark.penalty, "mark": mark.mark,
                     "out_of": mark.out_of, "reason": mark.reason})
    columns = [TEAM_COLUMNS[0], *names, *TEAM_COLUMNS[1:]]
    return pd.DataFrame(rows, columns=columns)


def student_table(marks: Sequence[TeamMark], config: TournamentConfig,
                  manifest: Manifest | None) -> Any:
    """marks.csv: a row per student of each team, as the manifest lists its members (a team
    it lists none for, or without a manifest, gets one row with an empty student id)."""
    folders = config.team_folders()
    rows = []
    listed: set[str] = set()
    for mark in marks:
        record = manifest.team(folders.get(mark.team, mark.team)) if manifest else None
        members = record.members if record is not None else ()
        listed.update(student_key(member.id) for member in members)
        for member in members or (None,):
            rows.append({"student_id": member.id if member else "",
                         "student_name": member.name if member else "",
                         "team": mark.team, "mark": mark.mark, "out_of": mark.out_of,
                         "reason": mark.reason})
    out_of = marks[0].out_of if marks else 0
    for member, team, reason in _uncollected(manifest, listed):
        rows.append({"student_id": member.id, "student_name": member.name, "team": team,
                     "mark": 0, "out_of": out_of, "reason": reason})
    return pd.DataFrame(rows, columns=list(STUDENT_COLUMNS))


def students_in_several_teams(students: Any) -> list[tuple[str, list[str]]]:
    """The students that marks.csv (`student_table`'s rows) lists with more than one team, each
    with those teams: a team kept from an earlier collection still lists a student whom the
    mapping has since placed in another team, and the LMS would take one row or the other."""
    teams: dict[str, tuple[str, list[str]]] = {}
    for row in students.to_dict("records"):
        student = str(row["student_id"])
        if not student:
            continue
        found = teams.setdefault(student_key(student), (student, []))[1]
        if row["team"] not in found:
            found.append(str(row["team"]))
    return [(shown, found) for shown, found in teams.values() if len(found) > 1]


def _uncollected(manifest: Manifest | None, listed: set[str]) -> list[tuple[Any, str, str]]:
    """The students of the manifest that no marked team holds, because every submission of
    theirs was set aside (late) or refused: each once, with 0 and why, so that the LMS upload
    has a row for every student who submitted (the newest entry's reason; the team's folder
    name when there is one). Ids are compared as the mapping compares them (`student_key`):
    an export may spell a student's id otherwise than the mapping (`S1001`, `s1001`), and a
    student with a mark must not get a second row with 0."""
    if manifest is None:
        return []
    found: dict[str, tuple[Any, str, str, str]] = {}
    for entry in manifest.entries:
        if entry.status == SUPERSEDED:
            continue
        for member in entry.members:
            key = student_key(member.id)
            if key in listed:
                continue
            when = entry.submitted_at or ""
            if key not in found or when > found[key][3]:
                found[key] = (member, entry.team or "",
                              f"no submission collected: {entry.status}: {entry.reason}", when)
    return [(member, team, reason) for member, team, reason, _ in
            sorted(found.values(), key=lambda f: f[0].id)]


def published_draws(seed: int, first_run: tuple[int, str] | None,
                    deadline: datetime.datetime | None, now: datetime.datetime,
                    changes: Sequence[tuple[str, datetime.datetime]] = ()) -> str | None:
    """Why the current games should not give marks, or None: after the submissions'
    `deadline`, games on a master `seed` that a run played before it (`first_run`: its number
    and start, `Store.seed_first_run`), or before a team's files last changed (`changes`:
    each team and its manifest's `changed_at`).

    A game's draws follow from its seed, the secret and the team's files, and a course
    publishes results every night. A team that submits versions differing by a comment sees
    a fresh draw of luck each time, and by submitting again the exact files of its luckiest
    version gets those very games back (found by the seventh hostile review). So marks need a
    seed whose draws no team saw while it could still change its files: one first played
    after the deadline, and after every team's last change. A team that could still submit
    after the deadline (`--late take`, a repository's own later deadline) and changed its
    files once the seed's draws were out could have kept the better of two draws, and put
    back its on-time files, at no cost, if the new ones drew worse (the tenth hostile review);
    a ghost team's change draws its opponents' match games anew too, so any team's change
    taints the whole result. Before the deadline marks are a preview, and nothing is said."""
    if deadline is None or first_run is None or now < deadline:
        return None
    run, started = first_run
    opened = datetime.datetime.fromisoformat(started)
    advice = ("Freeze the submissions (stop collecting: tournaments/nightly.sh with "
              "COLLECT=no), then set a new `seed:` in the config (the next run plays every game "
              "again, on draws no one has seen), run, then mark; or pass --published-seeds to "
              "mark these games anyway")
    if opened < deadline:
        return (f"the games are on master seed {seed}, which run {run} first played on "
                f"{started}, before the submissions' deadline ({utc_text(deadline)}): results "
                "published while teams could still submit showed them their draws, and a team "
                "that submits again the exact files of an earlier version gets that version's "
                f"games back, so it could keep its luckiest draw. {advice}")
    later = sorted((when, team) for team, when in changes if when > opened)
    if not later:
        return None
    when, team = later[-1]
    others = len(later) - 1
    more = f" (and {others} other team{'s' if others > 1 else ''}'s)" if others else ""
    return (f"team {team}'s files{more} changed on {utc_text(when)}, after run {run} first "
            f"played master seed {seed} on {utc_text(opened)}: a team that can still submit "
            "once the "
            "draws are out "
            "can change its files until it draws well (or put back files it had), and a ghost "
            f"team's change draws its opponents' games anew. {advice}")
