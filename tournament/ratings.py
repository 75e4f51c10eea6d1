"""Ratings and the crosstable of match games: pure functions, no I/O, no clock, no global state.

A match game pits a Pacman entrant against a ghost entrant; what it gives each side is
`pacman.outcomes.pacman_points` (1, 1/2 or 0 to Pacman, the rest to the ghosts; an
`infra_error` counts for nobody). Every rated entity is an `(entrant, side)` pair, so a team
with a Pacman and a ghost entrant has two ratings, all on one scale: a Pacman rated `d` Elo
above a ghost team is expected to take `expected_score(d)` of the points against it.

The model is Bradley-Terry on the Elo scale (400 * log10 of the odds), fitted by maximum a
posteriori with numpy:

- A game's points are its result: a draw (`move_limit`) is half a win each way, as
  `pacman_points` scores it, rather than a draw model with a parameter of its own, so the
  ratings predict exactly the points the tables show.
- The prior, as BayesElo's, is a few virtual draws (`prior_draws`, 2 by default) of every
  entity against a virtual opponent rated 0. It keeps an unbeaten (or winless) entity's
  rating finite, and its pull is bounded (never more than `prior_draws` games' worth), so
  entities with a real record are barely moved.
- Intervals are the model's own (Laplace): the inverse of the log-posterior's curvature at the
  fit. Chosen over a bootstrap over games because a bootstrap never resamples a loss out of an
  unbeaten record, so it would give the strongest entrants the narrowest intervals, while the
  curvature is smallest exactly there; it is also one linear solve, however large the class.
  Draws and differences between layouts make real results vary a little less than a binomial
  count does, so these intervals err on the wide side.
- Anchored: the anchor's rating is exactly 0 with the interval [0, 0], and every interval is
  that of the entity's difference to the anchor (its own uncertainty and the anchor's both
  count). Rank groups (`rank_groups`) do not follow those, which would make them depend on
  which entrant is the anchor (the anchor's interval is a point): they follow each entity's
  own interval, `group_low`/`group_high`, its rating +- z times the deviation of its
  strength from the mean of all strengths, which no choice of anchor changes.

Everything is a function of the table's contents, never of its row order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd  # type: ignore[import-untyped, unused-ignore]

from pacman.outcomes import GHOSTS, PACMAN, SIDES, pacman_points
from tournament.ranking import RATING, check_confidence, ranked
from tournament.results import check_table

#: Columns the table of games must have (it may have more). `ghost_entrant` is empty (or
#: missing) in today's fixed-ghost games, which are left out here.
MATCH_COLUMNS = ("game_id", "entrant", "ghost_entrant", "outcome", "culprit", "score")

#: `fit_ratings`' columns: `rating` (Elo, the anchor 0) and its interval
#: `rating_low`/`rating_high`; `games` counted (infra errors left out), the entity's `points`
#: from them and its `score`, points per game.
RATING_COLUMNS = (
    "rank",
    "rank_group",
    "entrant",
    "side",
    "rating",
    "rating_low",
    "rating_high",
    "group_low",
    "group_high",
    "games",
    "points",
    "score",
)

#: `crosstable`'s columns, one row per (Pacman entrant, ghost entrant) pair that met: counted
#: `games`; the Pacman's `points` and `points_rate` (a ghost team's failure counts for the
#: Pacman, a draw half); `wins` and `win_rate`, games Pacman won by the rules; `mean_score`,
#: Pacman's mean game score.
CROSSTABLE_COLUMNS = (
    "entrant",
    "ghost_entrant",
    "games",
    "points",
    "points_rate",
    "wins",
    "win_rate",
    "mean_score",
)

#: Elo points per unit of natural log-odds.
ELO_PER_LOGIT = 400 / math.log(10)

_MAX_NEWTON_STEPS = 200
_TOLERANCE = 1e-10  # log-odds: far below any printed rating


def expected_score(difference: float) -> float:
    """The share of points an entity rated `difference` Elo above its opponent expects."""
    return 1 / (1 + 10 ** (-difference / 400))


def fit_ratings(
    games: Any,
    anchor: tuple[str, str],
    confidence: float = 0.95,
    prior_draws: float = 2.0,
) -> Any:
    """One row per rated entity, `RATING_COLUMNS`, ranked by rating (see the module).

    Rated entities are the Pacman and ghost entrants of every match game in `games` (rows with
    an empty `ghost_entrant` are fixed-format games and ignored). An entity all of whose games
    were infra errors is listed with a NaN rating. Sorted by rating, higher first, then by
    side and entrant (`ranking.ranked`); `rank` is the position, shared by equal ratings,
    `rank_group` the positions of the entities whose intervals overlap (`rank_groups`).
    Raises ValueError for an anchor that is no rated entity, or has no counted game, and for
    games that do not connect every entity to the anchor (a rating across unconnected groups
    would be the prior's guess, not a result).
    """
    check_confidence(confidence)
    if not prior_draws > 0:
        raise ValueError(f"expected a positive number of prior draws, got {prior_draws}")
    if len(anchor) != 2 or anchor[1] not in SIDES:
        raise ValueError(
            f"expected the anchor as (entrant, side) with side one of {', '.join(SIDES)}, "
            f"got {anchor!r}"
        )
    anchor = (anchor[0], anchor[1])
    table = _match_games(games)
    entities = sorted(
        {(e, PACMAN) for e in table["entrant"]} | {(g, GHOSTS) for g in table["ghost_entrant"]},
        key=lambda entity: (entity[1], entity[0]),
    )
    if anchor not in entities:
        choices = ", ".join(_name(entity) for entity in entities) or "none (no match games)"
        raise ValueError(f"the anchor {_name(anchor)} is no rated entity; choices: {choices}")
    counted = table[table["points"].notna()]
    pairs = (
        counted.groupby(["entrant", "ghost_entrant"], sort=True)["points"]
        .agg(["size", "sum"])
        .reset_index()
    )
    rated = sorted(
        {(e, PACMAN) for e in pairs["entrant"]} | {(g, GHOSTS) for g in pairs["ghost_entrant"]},
        key=lambda entity: (entity[1], entity[0]),
    )
    if anchor not in rated:
        raise ValueError(f"the anchor {_name(anchor)} has no counted game to be rated on")
    index = {entity: i for i, entity in enumerate(rated)}
    pacmen = np.array([index[(e, PACMAN)] for e in pairs["entrant"]], dtype=np.intp)
    ghosts = np.array([index[(g, GHOSTS)] for g in pairs["ghost_entrant"]], dtype=np.intp)
    _check_connected(rated, pacmen, ghosts, index[anchor])
    n = pairs["size"].to_numpy(dtype=float)
    s = pairs["sum"].to_numpy(dtype=float)
    theta, covariance = _fit(pacmen, ghosts, n, s, len(rated), prior_draws)

    a = index[anchor]
    diagonal = np.diag(covariance)
    spread = np.sqrt(np.maximum(diagonal + diagonal[a] - 2 * covariance[:, a], 0.0))
    spread[a] = 0.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    rating = (theta - theta[a]) * ELO_PER_LOGIT
    low = rating - z * spread * ELO_PER_LOGIT
    high = rating + z * spread * ELO_PER_LOGIT
    # Each strength's deviation from the mean of all: the same whichever entity is the anchor.
    count = len(rated)
    centre = np.eye(count) - np.full((count, count), 1.0 / count)
    own = np.sqrt(np.maximum(np.diag(centre @ covariance @ centre), 0.0))
    group_low = rating - z * own * ELO_PER_LOGIT
    group_high = rating + z * own * ELO_PER_LOGIT

    points = _entity_points(counted)
    rows = []
    for entity in entities:
        i = index.get(entity)
        played, won = points.get(entity, (0, 0.0))
        rows.append(
            {
                "entrant": entity[0],
                "side": entity[1],
                "rating": math.nan if i is None else float(rating[i]),
                "rating_low": math.nan if i is None else float(low[i]),
                "rating_high": math.nan if i is None else float(high[i]),
                "group_low": math.nan if i is None else float(group_low[i]),
                "group_high": math.nan if i is None else float(group_high[i]),
                "games": played,
                "points": won,
                "score": won / played if played else math.nan,
            }
        )
    board = pd.DataFrame(rows, columns=list(RATING_COLUMNS[2:]))
    board = ranked(board, [RATING.column], tie=("side", "entrant"))
    return board.astype(
        {"rank": "int64", "rank_group": "str", "entrant": "str", "side": "str", "games": "int64"}
    )


def crosstable(games: Any) -> Any:
    """`CROSSTABLE_COLUMNS`, one row per pair of a Pacman and a ghost entrant that met in a
    match game, sorted by Pacman then ghost entrant. A pair whose every game was an infra
    error has 0 games and NaN rates."""
    table = _match_games(games)
    rows = []
    for (pacman, ghost), group in table.groupby(["entrant", "ghost_entrant"], sort=True):
        counted = group[group["points"].notna()]
        n = len(counted)
        wins = int((counted["outcome"] == "win").sum())
        points = float(counted["points"].sum())
        rows.append(
            {
                "entrant": pacman,
                "ghost_entrant": ghost,
                "games": n,
                "points": points,
                "points_rate": points / n if n else math.nan,
                "wins": wins,
                "win_rate": wins / n if n else math.nan,
                "mean_score": float(counted["score"].mean()) if n else math.nan,
            }
        )
    out = pd.DataFrame(rows, columns=list(CROSSTABLE_COLUMNS))
    floats = ("points", "points_rate", "win_rate", "mean_score")
    names = dict.fromkeys(("entrant", "ghost_entrant"), "str")
    return out.astype(
        {**names, "games": "int64", "wins": "int64", **dict.fromkeys(floats, "float64")}
    )


def crosstable_grid(
    table: Any,
    value: str = "points_rate",
    pacmen: Sequence[str] | None = None,
    ghosts: Sequence[str] | None = None,
) -> Any:
    """One column of `crosstable(...)` as Pacman rows x ghost columns, for display; NaN where
    a pair never met. Rows and columns in name order unless `pacmen` / `ghosts` give the
    order (the ratings' order, say); names they leave out are left out."""
    if value not in CROSSTABLE_COLUMNS[2:]:
        raise ValueError(
            f"no crosstable column {value!r}; expected one of {', '.join(CROSSTABLE_COLUMNS[2:])}"
        )
    grid = table.pivot(index="entrant", columns="ghost_entrant", values=value)
    rows = sorted(table["entrant"].unique()) if pacmen is None else list(pacmen)
    columns = sorted(table["ghost_entrant"].unique()) if ghosts is None else list(ghosts)
    grid = grid.reindex(index=rows, columns=columns)
    grid.index.name = "entrant"
    grid.columns.name = "ghost_entrant"
    return grid


def _match_games(games: Any) -> Any:
    """The match games of `games`, checked, with the Pacman's `points` (NaN: not counted),
    sorted by game id."""
    check_table(games, MATCH_COLUMNS, "games")
    ghost = games["ghost_entrant"].fillna("").astype(str)
    table = games.loc[ghost != "", list(MATCH_COLUMNS)].copy()
    table["ghost_entrant"] = table["ghost_entrant"].astype(str)
    table["entrant"] = table["entrant"].astype(str)
    table["score"] = pd.to_numeric(table["score"])
    # A nullable integer column (SQLite's) or floats with NaN (a CSV's): missing is NaN.
    culprits = pd.to_numeric(table["culprit"], errors="coerce").astype("float64")
    table["points"] = [
        _points(outcome, culprit) for outcome, culprit in zip(table["outcome"], culprits)
    ]
    return table.sort_values("game_id", kind="mergesort").reset_index(drop=True)


def _points(outcome: str, culprit: float) -> float:
    points = pacman_points(outcome, None if math.isnan(culprit) else int(culprit))
    return math.nan if points is None else points


def _entity_points(counted: Any) -> dict[tuple[str, str], tuple[int, float]]:
    """Counted games and points per entity, each side's from its own view."""
    out: dict[tuple[str, str], tuple[int, float]] = {}
    for pacman, group in counted.groupby("entrant", sort=True):
        out[(pacman, PACMAN)] = (len(group), float(group["points"].sum()))
    for ghost, group in counted.groupby("ghost_entrant", sort=True):
        out[(ghost, GHOSTS)] = (len(group), float(len(group) - group["points"].sum()))
    return out


def _check_connected(rated: list[tuple[str, str]], pacmen: Any, ghosts: Any, anchor: int) -> None:
    """Raise unless every rated entity meets the anchor, directly or through others."""
    parent = list(range(len(rated)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for p, g in zip(pacmen.tolist(), ghosts.tolist()):
        parent[root(p)] = root(g)
    apart = [entity for i, entity in enumerate(rated) if root(i) != root(anchor)]
    if apart:
        raise ValueError(
            f"the match games do not connect {_names(apart)} with the anchor "
            f"{_name(rated[anchor])}, directly or through other entrants: ratings across "
            "groups that never meet would be the prior's guess; play games between them"
        )


def _fit(
    pacmen: Any, ghosts: Any, n: Any, s: Any, size: int, prior_draws: float
) -> tuple[Any, Any]:
    """The posterior mode of the log-strengths and the inverse of the log-posterior's negative
    curvature there (the Laplace covariance).

    Pair k (Pacman `pacmen[k]` against ghost `ghosts[k]`) played `n[k]` games and Pacman took
    `s[k]` points: log-likelihood s log p + (n - s) log(1 - p), p the logistic of the
    difference. Each entity adds `prior_draws` / 2 wins and losses against 0. The posterior
    is strictly concave, so Newton's method with a backtracking line search converges from 0.
    """
    incidence = np.zeros((len(n), size))
    incidence[np.arange(len(n)), pacmen] = 1.0
    incidence[np.arange(len(n)), ghosts] = -1.0
    half = prior_draws / 2

    def objective(theta: Any) -> float:
        d = incidence @ theta
        likelihood = -(s * np.logaddexp(0, -d) + (n - s) * np.logaddexp(0, d)).sum()
        prior = -half * (np.logaddexp(0, -theta) + np.logaddexp(0, theta)).sum()
        return float(likelihood + prior)

    def curvature(theta: Any) -> Any:
        p = _logistic(incidence @ theta)
        q = _logistic(theta)
        weights = n * p * (1 - p)
        return (incidence.T * weights) @ incidence + np.diag(prior_draws * q * (1 - q))

    theta = np.zeros(size)
    value = objective(theta)
    for _ in range(_MAX_NEWTON_STEPS):
        p = _logistic(incidence @ theta)
        gradient = incidence.T @ (s - n * p) + prior_draws * (0.5 - _logistic(theta))
        step = np.linalg.solve(curvature(theta), gradient)
        if np.max(np.abs(step)) < _TOLERANCE:
            break
        t = 1.0
        slope = float(gradient @ step)
        while True:
            candidate = theta + t * step
            new = objective(candidate)
            if new >= value + 1e-4 * t * slope or t < 1e-12:
                break
            t /= 2
        theta, value = candidate, new
    return theta, np.linalg.inv(curvature(theta))


def _logistic(x: Any) -> Any:
    return 0.5 * (1 + np.tanh(x / 2))


def _name(entity: tuple[str, str]) -> str:
    return f"{entity[0]!r} ({entity[1]})"


def _names(entities: list[tuple[str, str]], shown: int = 10) -> str:
    names = ", ".join(_name(entity) for entity in entities[:shown])
    more = len(entities) - shown
    return names + (f" and {more} more" if more > 0 else "")
