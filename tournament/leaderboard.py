"""Leaderboards from a results table: pure functions, no I/O, no clock, no global state.

With 20 games a win rate is only known to about +-22 points, so a bare ranking misleads;
every rate and mean here comes with a confidence interval, and entrants whose intervals
overlap share a rank group. Everything is a function of the table's contents only (not of
its row order: games are sorted by id before anything order-dependent), so a resumed run and
an uninterrupted one, or one and two workers, print the same leaderboard.

The results table has one row per game with at least the columns in `SCORED_COLUMNS`.
`outcome` is one of `OUTCOMES`. A failure kind with `culprit` 0 is the entrant's Pacman
failing; another culprit is a ghost. `infra_error` means the platform failed, not an agent:
such games are never scored (left out of every statistic) and only counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd  # type: ignore[import-untyped, unused-ignore]

from pacman.outcomes import FAILURES, INFRA_ERROR
from tournament.config import RankingConfig
from tournament.ranking import check_confidence, ranked
from tournament.results import SCORED_COLUMNS, check_table

#: The statistics of one group of games, in column order. Over scored games (infra errors
#: left out): `games`, `wins`, `win_rate` with its Wilson interval `win_low`/`win_high`;
#: `mean_score` with a bootstrap interval `score_low`/`score_high`; `mean_score_wins` (over
#: won games) with `score_wins_low`/`score_wins_high`; `failures`, the entrant's own (culprit
#: 0), also split by kind into one column per `FAILURES`; `other_failures`, failures of
#: another agent (a ghost); `infra_errors`, the games not scored; `move_time_mean`, the mean
#: over games of each game's mean wall-clock seconds per Pacman move, and `move_time_max`, the
#: longest single move; `cpu_time_mean`/`cpu_time_max`, the same in CPU seconds where
#: measured. Statistics of no games are NaN.
STAT_COLUMNS = (
    "games",
    "wins",
    "win_rate",
    "win_low",
    "win_high",
    "mean_score",
    "score_low",
    "score_high",
    "mean_score_wins",
    "score_wins_low",
    "score_wins_high",
    "failures",
    *FAILURES,
    "other_failures",
    "infra_errors",
    "move_time_mean",
    "move_time_max",
    "cpu_time_mean",
    "cpu_time_max",
)


#: The bootstrap draws in blocks of this many resampled means, so its memory stays bounded
#: for large groups; fixed, because the draws (and so the interval) depend on it.
_BOOTSTRAP_BLOCK = 250


def wilson_interval(wins: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a win rate of `wins` out of `n`.

    Chosen over the textbook p +- z*sqrt(p(1-p)/n) because that one collapses to a point at
    0/n and n/n, which is exactly where strong agents live; Wilson's stays inside [0, 1] and
    keeps a sensible width. With n = 0 nothing is known: (0, 1).
    """
    check_confidence(confidence)
    if n < 0 or wins < 0 or wins > n:
        raise ValueError(f"expected 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = wins / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_mean_interval(
    scores: Sequence[float] | Any,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """A percentile bootstrap interval for the mean of `scores`.

    Scores are not normal (a lost game costs about 500 points at once), so the interval is
    taken from the means of `resamples` resamples with replacement rather than from a
    formula. The draws come from a generator seeded with `seed`, so the same scores in the
    same order always give the same interval. Empty: (nan, nan).
    """
    check_confidence(confidence)
    if resamples < 1:
        raise ValueError(f"expected at least one resample, got {resamples}")
    values = np.asarray(scores, dtype=float)
    if values.size == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    for start in range(0, resamples, _BOOTSTRAP_BLOCK):
        count = min(_BOOTSTRAP_BLOCK, resamples - start)
        picks = rng.integers(0, values.size, size=(count, values.size))
        means[start : start + count] = values[picks].mean(axis=1)
    alpha = 1 - confidence
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def leaderboard(results: Any, ranking: RankingConfig | None = None) -> Any:
    """One row per entrant, ranked, with `rank` and `rank_group` first, then `STAT_COLUMNS`.

    Ranked by `ranking.by` (`tournament.ranking.ranked`: each key higher first, missing
    values last, ties by entrant name; rank groups on the first key's interval).
    """
    ranking = ranking or RankingConfig()
    table = _prepare(results)
    rows = [
        {"entrant": entrant, **_stats(games, ranking.confidence)}
        for entrant, games in table.groupby("entrant", sort=True)
    ]
    board = pd.DataFrame(rows, columns=["entrant", *STAT_COLUMNS])
    return _typed(ranked(board, ranking.by))


def cell_table(results: Any, confidence: float = 0.95) -> Any:
    """`STAT_COLUMNS` per entrant and (layout, depth) cell, sorted by layout, depth, entrant.

    Ghost settings and rulesets of the same layout and depth are pooled, as the heat map of
    win rate per layout and depth wants. `depth` is a nullable integer: missing where agents
    searched to their own default.
    """
    table = _prepare(results)
    rows = [
        {"entrant": entrant, "layout": layout, "depth": depth, **_stats(games, confidence)}
        for (entrant, layout, depth), games in table.groupby(
            ["entrant", "layout", "depth"], sort=True, dropna=False
        )
    ]
    out = pd.DataFrame(rows, columns=["entrant", "layout", "depth", *STAT_COLUMNS])
    out["depth"] = out["depth"].astype("Int64")
    out = out.sort_values(["layout", "depth", "entrant"], kind="mergesort", na_position="first")
    return _typed(out.reset_index(drop=True))


def _prepare(results: Any) -> Any:
    """The table checked and normalised, sorted by game id so row order cannot matter."""
    check_table(results, SCORED_COLUMNS, "results")
    table = results.copy()
    table["win"] = table["win"].astype(bool)
    table["score"] = pd.to_numeric(table["score"])
    table["culprit"] = pd.to_numeric(table["culprit"], errors="coerce")
    table["depth"] = pd.to_numeric(table["depth"], errors="coerce").astype("Int64")
    for column in ("wall_mean", "wall_max", "cpu_mean", "cpu_max"):
        table[column] = pd.to_numeric(table[column], errors="coerce")
    return table.sort_values("game_id", kind="mergesort").reset_index(drop=True)


def _stats(games: Any, confidence: float) -> dict[str, Any]:
    """Every statistic of one group of games (already in game-id order)."""
    scored = games[games["outcome"] != INFRA_ERROR]
    n = len(scored)
    wins = int(scored["win"].sum())
    scores = scored["score"].to_numpy(dtype=float)
    win_scores = scored.loc[scored["win"], "score"].to_numpy(dtype=float)
    win_low, win_high = wilson_interval(wins, n, confidence) if n else (math.nan, math.nan)
    failed = scored["outcome"].isin(FAILURES)
    own = failed & (scored["culprit"] == 0)
    by_kind = {kind: int((own & (scored["outcome"] == kind)).sum()) for kind in FAILURES}
    return {
        "games": n,
        "wins": wins,
        "win_rate": wins / n if n else math.nan,
        "win_low": win_low,
        "win_high": win_high,
        "mean_score": float(scores.mean()) if n else math.nan,
        **dict(zip(("score_low", "score_high"), bootstrap_mean_interval(scores, confidence))),
        "mean_score_wins": float(win_scores.mean()) if win_scores.size else math.nan,
        **dict(
            zip(
                ("score_wins_low", "score_wins_high"),
                bootstrap_mean_interval(win_scores, confidence),
            )
        ),
        "failures": int(own.sum()),
        **by_kind,
        "other_failures": int((failed & ~own).sum()),
        "infra_errors": int((games["outcome"] == INFRA_ERROR).sum()),
        "move_time_mean": _nan_stat(scored["wall_mean"], "mean"),
        "move_time_max": _nan_stat(scored["wall_max"], "max"),
        "cpu_time_mean": _nan_stat(scored["cpu_mean"], "mean"),
        "cpu_time_max": _nan_stat(scored["cpu_max"], "max"),
    }


def _nan_stat(column: Any, how: str) -> float:
    """Mean or max over the games that measured it (a game that never moved has no time)."""
    values = column.dropna()
    if values.empty:
        return math.nan
    return float(values.mean() if how == "mean" else values.max())


def _typed(table: Any) -> Any:
    """Counts as integers whatever pandas inferred for an empty or all-missing frame."""
    counts = ["games", "wins", "failures", *FAILURES, "other_failures", "infra_errors"]
    return table.astype({c: "int64" for c in counts})
