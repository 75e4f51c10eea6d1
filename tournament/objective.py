"""What a tuning run maximises, and how a tuned result is judged: pure functions, no I/O.

The objective of a set of games (one candidate's, in `tournament tune`) is one of:

- `mean_score`: the mean score (a game an agent failed scores as `tournament_score` says);
- `win_rate`: the share of games won;
- `mean_score_wins`: the mean score over won games, counted only when the win rate reaches
  `min_win_rate` (the floor) and at least one game was won. Below the floor a candidate is
  *infeasible*: it ranks after every feasible one, and among the infeasible the higher win
  rate (then mean score) ranks first, so the search is led back over the floor.

Whatever the objective, a candidate that failed a game itself (its agent crashed, timed out,
answered an illegal move...: `pacman.outcomes.FAILURES`, blamed on Pacman) is infeasible too,
and ranks after every candidate that failed none: the fewer games failed (as a share), then the
higher mean score, first. A failure scores like a death in a tournament
(`tournament.runner.tournament_score`), so by score alone weights that make an agent crash now
and then could outrank weights that play every game, and be the ones the run hands out.

CMA-ES minimises, and only the order of a generation's costs matters to it (it is a
rank-based method), so `cost` maps each measure to a number whose order is the ranking
above: `-value` for a feasible one, and above every feasible cost for an infeasible one
(below the floor, then failing games, then without games).

The comparison of tuned against starting weights (`compare`) plays both on the same fresh
seeds and pairs the games by seed: for each statistic, the difference (tuned - start) with a
percentile bootstrap interval over the pairs (resampled together, so the pairing's noise
reduction is kept; seeded, so the same games give the same interval). For `mean_score` and
`win_rate` that is the mean of the per-game differences (score, or won 0/1); for
`mean_score_wins`, a mean over a subset of games that differs between the two sides, there
is no per-game difference, so each resample's difference of the two means is taken. An
interval that includes 0 is "no improvement"; a tuned result below the floor is none either,
nor one that failed more of these games than the start did, and fewer than `MIN_PAIRS` pairs
give no interval (nor, for the mean over wins, fewer than `MIN_WINS` wins on a side).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: The objectives, in the order the docs list them.
MEAN_SCORE = "mean_score"
WIN_RATE = "win_rate"
MEAN_SCORE_WINS = "mean_score_wins"
OBJECTIVES = (MEAN_SCORE, WIN_RATE, MEAN_SCORE_WINS)

#: What an infeasible measure costs at least: above the cost of any feasible one (scores are
#: within a few thousand points of 0).
INFEASIBLE = 1e9
#: What a measure with games its agent failed costs at least, times 1 + the share failed:
#: above every measure below the floor, and a share's step (1 / games) outweighs the scores.
FAILING = 1e12
#: What a measure of no games costs: the last of all.
NO_GAMES = 1e14

#: The comparison's verdicts.
IMPROVED = "improvement"
NO_IMPROVEMENT = "no improvement"
WORSE = "worse"

#: Bootstrap resamples of the comparison, and their seed: fixed, so that the same games
#: always give the same interval.
RESAMPLES = 10_000
BOOTSTRAP_SEED = 0
#: Pairs below which no interval is given (so no verdict but "no improvement"). The
#: percentile bootstrap's interval is too narrow with few pairs: with two it is the two
#: differences themselves, and between weights that play alike it said "improvement" 27% of
#: the time with 2 pairs, 7.5% with 5 and 3.3% with 10, against the 2.5% a 95% interval
#: promises (review 20); 4.0% with 20 and 3.5% with 30 in simulations of the reviews, and
#: the tuning files compare on 100 to 1,000.
MIN_PAIRS = 30
#: For the mean score over wins: wins each side needs among the pairs for an interval. A mean
#: over one or two wins has no spread in the resamples, so the interval showed only the other
#: side's (one win of 30 against ten: "+211 [+91, +287], improvement").
MIN_WINS = 10
#: Resamples drawn at once (memory stays bounded for many games).
_BLOCK = 500


@dataclass(frozen=True)
class Objective:
    """An objective and, for `mean_score_wins`, its win-rate floor."""

    kind: str
    min_win_rate: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in OBJECTIVES:
            raise ValueError(f"unknown objective {self.kind!r}; expected one of "
                             f"{', '.join(OBJECTIVES)}")
        if not 0.0 <= self.min_win_rate <= 1.0:
            raise ValueError(f"min_win_rate: expected 0 to 1, got {self.min_win_rate}")
        if self.min_win_rate and self.kind != MEAN_SCORE_WINS:
            raise ValueError(f"min_win_rate is a floor for {MEAN_SCORE_WINS}, not {self.kind}")

    def describe(self) -> str:
        """`mean score over wins (win rate at least 95%)`, for people."""
        words = {MEAN_SCORE: "mean score", WIN_RATE: "win rate",
                 MEAN_SCORE_WINS: "mean score over wins"}[self.kind]
        if self.kind == MEAN_SCORE_WINS and self.min_win_rate:
            words += f" (win rate at least {self.min_win_rate:.0%})"
        return words


@dataclass(frozen=True)
class Measure:
    """The statistics of one set of games and the objective's value over them (NaN when it
    has none: no games, or infeasible)."""

    games: int
    wins: int
    mean_score: float
    mean_score_wins: float
    value: float
    feasible: bool
    #: Games the agent itself failed (`pacman.outcomes.FAILURES`, culprit Pacman).
    failures: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def shortfall(self) -> str:
        """Why the measure has no value, in words ('' when it has one)."""
        if self.feasible:
            return ""
        if self.games == 0:
            return "no games"
        if self.failures:
            return f"its agent failed {self.failures} of {self.games} games"
        return "below the floor"


def measure(objective: Objective, scores: Sequence[float], wins: Sequence[bool],
            failures: int = 0) -> Measure:
    """The objective over games with these `scores` and `wins` (scored games only: the
    caller leaves out the platform's failures, `infra_error`), `failures` of which the agent
    failed itself (their scores as a tournament scores them): then it has no value."""
    if len(scores) != len(wins):
        raise ValueError(f"{len(scores)} scores but {len(wins)} wins")
    if not 0 <= failures <= len(scores):
        raise ValueError(f"{failures} failures in {len(scores)} games")
    score = np.asarray(scores, dtype=float)
    won = np.asarray(wins, dtype=bool)
    n, k = int(score.size), int(won.sum())
    mean = float(score.mean()) if n else math.nan
    mean_wins = float(score[won].mean()) if k else math.nan
    if n == 0:
        return Measure(0, 0, mean, mean_wins, math.nan, False)
    if failures:
        return Measure(n, k, mean, mean_wins, math.nan, False, failures)
    if objective.kind == MEAN_SCORE:
        return Measure(n, k, mean, mean_wins, mean, True)
    if objective.kind == WIN_RATE:
        return Measure(n, k, mean, mean_wins, k / n, True)
    feasible = k > 0 and k / n >= objective.min_win_rate
    return Measure(n, k, mean, mean_wins, mean_wins if feasible else math.nan, feasible)


def cost(found: Measure) -> float:
    """What CMA-ES minimises for `found`: the order of costs is the objective's ranking
    (feasible by value; then below the floor by win rate, then mean score; then with failed
    games by the share failed, then mean score; no games at all last)."""
    if found.feasible:
        return -found.value
    if found.games == 0:
        return NO_GAMES
    if found.failures:
        return FAILING * (1 + found.failures / found.games) - found.mean_score
    # The win rate's shortfall from 1 outweighs any score (|score| < INFEASIBLE / 4).
    return INFEASIBLE * (2 - found.win_rate) - found.mean_score


@dataclass(frozen=True)
class Difference:
    """One statistic of the comparison: its value for the starting and the tuned weights over
    the same games, the difference and its interval, and the verdict."""

    statistic: str
    start: float
    tuned: float
    difference: float
    low: float
    high: float
    verdict: str


def _statistic(name: str, score: np.ndarray, won: np.ndarray) -> np.ndarray:
    """`name` over the last axis of `score`/`won` (resamples x games): NaN where it has no
    value (a mean over wins without a win)."""
    if name == MEAN_SCORE:
        return np.asarray(score.mean(axis=-1))
    if name == WIN_RATE:
        return np.asarray(won.mean(axis=-1))
    count = won.sum(axis=-1)
    total = np.where(won, score, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def verdict(low: float, high: float) -> str:
    """`improvement` when the whole interval is above 0, `worse` when below, else `no
    improvement` (an interval that includes 0, or none at all)."""
    if low > 0:
        return IMPROVED
    if high < 0:
        return WORSE
    return NO_IMPROVEMENT


def _too_few(name: str, pairs: int, start_wins: int, tuned_wins: int) -> str:
    """Why the games cannot give `name` an interval worth a verdict, or "" (pure)."""
    if pairs < MIN_PAIRS:
        return (f"{pairs} pair{'' if pairs == 1 else 's'} of games; an interval needs "
                f"{MIN_PAIRS}")
    if name == MEAN_SCORE_WINS and min(start_wins, tuned_wins) < MIN_WINS:
        return (f"{start_wins} and {tuned_wins} wins; a mean over wins needs {MIN_WINS} on "
                "each side")
    return ""


def compare(objective: Objective, start: Sequence[tuple[float, bool]],
            tuned: Sequence[tuple[float, bool]], confidence: float = 0.95,
            resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED,
            failures: tuple[int, int] = (0, 0)) -> list[Difference]:
    """Tuned against starting weights over paired games (`start[i]` and `tuned[i]` are
    (score, won) of the same seed): the objective's statistic first, then the other two of
    mean score, win rate and mean score over wins. The objective's verdict is "no
    improvement" too when the tuned weights fall below `min_win_rate` here, or failed more of
    these games than the start did (`failures`: the games each side's agent failed itself)."""
    if len(start) != len(tuned):
        raise ValueError(f"{len(start)} games of the start but {len(tuned)} of the tuned "
                         "weights: the comparison pairs games by seed")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: expected between 0 and 1, got {confidence}")
    order = [objective.kind, *(name for name in OBJECTIVES if name != objective.kind)]
    a_score = np.asarray([s for s, _ in start], dtype=float)
    a_won = np.asarray([w for _, w in start], dtype=bool)
    b_score = np.asarray([s for s, _ in tuned], dtype=float)
    b_won = np.asarray([w for _, w in tuned], dtype=bool)
    n = a_score.size
    draws: dict[str, list[np.ndarray]] = {name: [] for name in order}
    if n:
        rng = np.random.default_rng(seed)
        for first in range(0, resamples, _BLOCK):
            picks = rng.integers(0, n, size=(min(_BLOCK, resamples - first), n))
            for name in order:
                draws[name].append(_statistic(name, b_score[picks], b_won[picks])
                                   - _statistic(name, a_score[picks], a_won[picks]))
    alpha = 1 - confidence
    out = []
    for name in order:
        was = float(_statistic(name, a_score, a_won)) if n else math.nan
        now = float(_statistic(name, b_score, b_won)) if n else math.nan
        found = np.concatenate(draws[name]) if draws[name] else np.empty(0)
        found = found[np.isfinite(found)]
        short = _too_few(name, n, int(a_won.sum()), int(b_won.sum()))
        if found.size and not short:
            low, high = (float(q) for q in np.quantile(found, [alpha / 2, 1 - alpha / 2]))
        else:
            low = high = math.nan
        said = verdict(low, high) if not short else f"{NO_IMPROVEMENT} ({short})"
        if (name == objective.kind == MEAN_SCORE_WINS and said == IMPROVED
                and n and float(b_won.mean()) < objective.min_win_rate):
            said = f"{NO_IMPROVEMENT} (win rate below {objective.min_win_rate:.0%})"
        if name == objective.kind and said == IMPROVED and failures[1] > failures[0]:
            said = (f"{NO_IMPROVEMENT} (the tuned weights' agent failed {failures[1]} of these "
                    f"games, the start's {failures[0]})")
        out.append(Difference(name, was, now, now - was, low, high, said))
    return out
