"""The tuner's objective and its honest verdict (`tournament.objective`), on hand-made games:
values, the floor, the costs' order, and the paired comparison with its interval."""

from __future__ import annotations

import math
import random

import pytest

from tournament.objective import (
    IMPROVED,
    MEAN_SCORE,
    MEAN_SCORE_WINS,
    MIN_PAIRS,
    MIN_WINS,
    NO_IMPROVEMENT,
    WIN_RATE,
    WORSE,
    Measure,
    Objective,
    compare,
    cost,
    measure,
)

SCORES = [1500.0, -200.0, 1700.0, 300.0]
WINS = [True, False, True, False]


def test_each_objective_over_the_same_games() -> None:
    assert measure(Objective(MEAN_SCORE), SCORES, WINS).value == 825.0
    assert measure(Objective(WIN_RATE), SCORES, WINS).value == 0.5
    found = measure(Objective(MEAN_SCORE_WINS), SCORES, WINS)
    assert (found.value, found.feasible, found.win_rate, found.mean_score) == (
        1600.0, True, 0.5, 825.0)


def test_below_the_floor_there_is_no_value() -> None:
    found = measure(Objective(MEAN_SCORE_WINS, min_win_rate=0.75), SCORES, WINS)
    assert not found.feasible and math.isnan(found.value)
    assert found.mean_score_wins == 1600.0  # still measured, for the tables
    none_won = measure(Objective(MEAN_SCORE_WINS), [10.0, 20.0], [False, False])
    assert not none_won.feasible and math.isnan(none_won.value)
    nothing = measure(Objective(MEAN_SCORE), [], [])
    assert nothing.games == 0 and not nothing.feasible


def test_an_objective_states_its_floor_only_where_it_has_one() -> None:
    with pytest.raises(ValueError, match="floor for mean_score_wins, not mean_score"):
        Objective(MEAN_SCORE, min_win_rate=0.5)
    with pytest.raises(ValueError, match="unknown objective"):
        Objective("median_score")
    assert Objective(MEAN_SCORE_WINS, 0.95).describe() == \
        "mean score over wins (win rate at least 95%)"


def m(games: int, wins: int, mean: float, value: float, feasible: bool,
      failures: int = 0) -> Measure:
    return Measure(games, wins, mean, math.nan, value, feasible, failures)


def test_costs_rank_feasible_first_then_the_closest_to_the_floor() -> None:
    ranked = [
        m(10, 10, 1700, 1750, True),
        m(10, 10, 1600, 1650, True),
        m(10, 9, 1400, math.nan, False),   # below the floor: after every feasible one
        m(10, 8, 1500, math.nan, False),   # a lower win rate, whatever its score
        m(10, 8, 1200, math.nan, False),   # the same win rate, a lower mean score
        m(10, 10, 4000, math.nan, False, 1),  # its agent failed a game: after the floor's
        m(10, 10, 3000, math.nan, False, 1),  # the same share failed, a lower mean score
        m(10, 0, 9000, math.nan, False, 2),   # more games failed, whatever its score
        m(1000, 0, -500, math.nan, False, 1000),  # every game failed
        m(0, 0, math.nan, math.nan, False),  # no games at all: last
    ]
    costs = [cost(found) for found in ranked]
    assert costs == sorted(costs) and len(set(costs)) == len(costs)
    assert cost(m(10, 10, -3000, -3000, True)) < cost(ranked[2])
    # A share's smallest step (1 in a million games) still outweighs any score.
    assert cost(m(10**6, 0, 5000, math.nan, False, 1)) < cost(
        m(10**6, 0, -5000, math.nan, False, 2))


def test_a_failed_game_leaves_no_value_whatever_the_objective() -> None:
    for kind in (MEAN_SCORE, WIN_RATE, MEAN_SCORE_WINS):
        found = measure(Objective(kind), SCORES, WINS, failures=1)
        assert not found.feasible and math.isnan(found.value)
        assert (found.failures, found.mean_score, found.wins) == (1, 825.0, 2)
        assert found.shortfall == "its agent failed 1 of 4 games"
    assert measure(Objective(MEAN_SCORE_WINS, 0.75), SCORES, WINS).shortfall == \
        "below the floor"
    assert measure(Objective(MEAN_SCORE), [], []).shortfall == "no games"
    assert measure(Objective(MEAN_SCORE), SCORES, WINS).shortfall == ""
    with pytest.raises(ValueError, match="5 failures in 4 games"):
        measure(Objective(MEAN_SCORE), SCORES, WINS, failures=5)


def games(seed: int, n: int, shift: float, win_rate: float) -> list[tuple[float, bool]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        won = rng.random() < win_rate
        out.append(((1600.0 if won else 200.0) + rng.gauss(0, 80) + shift, won))
    return out


def test_a_real_improvement_has_an_interval_above_zero() -> None:
    start = games(1, 200, 0.0, 0.8)
    tuned = [(score + 40.0, won) for score, won in start]  # the same games, 40 points better
    rows = compare(Objective(MEAN_SCORE), start, tuned)
    assert [r.statistic for r in rows] == [MEAN_SCORE, WIN_RATE, MEAN_SCORE_WINS]
    first = rows[0]
    assert first.difference == pytest.approx(40.0)
    # Paired: every difference is 40, so the interval is exactly that.
    assert first.low == pytest.approx(40.0) and first.high == pytest.approx(40.0)
    assert first.verdict == IMPROVED
    assert rows[1].verdict == NO_IMPROVEMENT  # the same wins


def test_noise_alone_is_no_improvement_and_worse_is_said() -> None:
    start = games(2, 100, 0.0, 0.8)
    noise = games(3, 100, 0.0, 0.8)
    rows = compare(Objective(MEAN_SCORE), start, noise)
    assert rows[0].low < 0 < rows[0].high and rows[0].verdict == NO_IMPROVEMENT
    worse = [(score - 300.0, won) for score, won in start]
    assert compare(Objective(MEAN_SCORE), start, worse)[0].verdict == WORSE


def test_the_interval_is_seeded_and_pairs_must_match() -> None:
    start, tuned = games(4, 60, 0.0, 0.7), games(5, 60, 30.0, 0.75)
    assert compare(Objective(WIN_RATE), start, tuned) == compare(Objective(WIN_RATE), start,
                                                                 tuned)
    with pytest.raises(ValueError, match="pairs games by seed"):
        compare(Objective(MEAN_SCORE), start, tuned[:-1])
    one = compare(Objective(MEAN_SCORE), start[:1], tuned[:1])[0]
    assert math.isnan(one.low) and one.verdict.startswith(NO_IMPROVEMENT)


def test_mean_score_over_wins_compares_means_of_different_subsets() -> None:
    start = [(1500.0, True), (1500.0, True), (100.0, False), (1500.0, True)] * 8
    tuned = [(1700.0, True), (200.0, False), (1700.0, True), (1700.0, True)] * 8
    rows = compare(Objective(MEAN_SCORE_WINS), start, tuned, resamples=2000)
    first = rows[0]
    assert first.statistic == MEAN_SCORE_WINS
    assert (first.start, first.tuned, first.difference) == (1500.0, 1700.0, 200.0)
    assert first.low == pytest.approx(200.0) and first.verdict == IMPROVED
    floored = compare(Objective(MEAN_SCORE_WINS, min_win_rate=0.9), start, tuned,
                      resamples=2000)[0]
    assert floored.verdict == f"{NO_IMPROVEMENT} (win rate below 90%)"


def test_tuned_weights_that_fail_more_games_than_the_start_are_no_improvement() -> None:
    start = games(6, 100, 0.0, 0.8)
    tuned = [(score + 40.0, won) for score, won in start]
    assert compare(Objective(MEAN_SCORE), start, tuned, failures=(2, 2))[0].verdict == IMPROVED
    assert compare(Objective(MEAN_SCORE), start, tuned, failures=(3, 1))[0].verdict == IMPROVED
    first = compare(Objective(MEAN_SCORE), start, tuned, failures=(1, 2))[0]
    assert first.verdict == (f"{NO_IMPROVEMENT} (the tuned weights' agent failed 2 of these "
                             "games, the start's 1)")
    assert first.low == pytest.approx(40.0)  # the figures are still shown as measured
    worse = [(score - 300.0, won) for score, won in start]
    assert compare(Objective(MEAN_SCORE), start, worse, failures=(0, 5))[0].verdict == WORSE


def test_too_few_pairs_give_no_interval_and_no_verdict() -> None:
    # Five games, each 40 points better: the percentile interval would be [40, 40], and
    # between weights that play alike it said "improvement" in 7.5% of such comparisons.
    start = games(7, MIN_PAIRS - 1, 0.0, 0.8)
    tuned = [(score + 40.0, won) for score, won in start]
    for row in compare(Objective(MEAN_SCORE), start, tuned):
        assert math.isnan(row.low) and math.isnan(row.high)
        assert row.verdict == (f"{NO_IMPROVEMENT} ({MIN_PAIRS - 1} pairs of games; an interval "
                               f"needs {MIN_PAIRS})")
    assert compare(Objective(MEAN_SCORE), start + start[:1],
                   tuned + tuned[:1])[0].verdict == IMPROVED


def test_a_mean_over_few_wins_gives_no_interval() -> None:
    # Review 20's case: the tuned weights won 1 game of 30 (1,800), the start 10 (about 1,600).
    # The mean over one win has no spread, and the interval said "+211 [+91, +287]".
    rng = random.Random(8)
    start = [(1600.0 + rng.gauss(0, 80), True) if i < 10 else (300.0, False) for i in range(30)]
    tuned = [(1800.0, True) if i == 0 else (300.0, False) for i in range(30)]
    over_wins = compare(Objective(MEAN_SCORE_WINS), start, tuned)[0]
    assert over_wins.difference > 0 and math.isnan(over_wins.low)
    assert over_wins.verdict == (f"{NO_IMPROVEMENT} (10 and 1 wins; a mean over wins needs "
                                 f"{MIN_WINS} on each side)")
    # The other statistics are not held back by the wins: the win rate fell.
    assert compare(Objective(WIN_RATE), start, tuned)[0].verdict == WORSE
    # With enough wins on both sides, the interval is given.
    tuned = [(score + 50.0, won) for score, won in start]
    assert compare(Objective(MEAN_SCORE_WINS), start, tuned)[0].verdict == IMPROVED
