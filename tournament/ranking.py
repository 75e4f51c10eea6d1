"""How entrants are ranked: the one home of the ranking rule.

A ranking orders entrants by a measure that comes with an interval, and groups those whose
intervals overlap, because with 20 games a win rate is only known to about +-22 points and a
bare order would mislead. Two kinds of measure share this rule:

- per-entrant statistics of the games an entrant played against fixed ghosts
  (`tournament.leaderboard`: win rate, mean score, mean score over wins), the ones a config's
  `ranking.by` may name;
- a rating model fitted on match outcomes (`tournament.ratings`: Bradley-Terry on the Elo
  scale), where each entrant's rating depends on whom it met.

Both tables are handed to `ranked`, which sorts, numbers and groups them the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Any


@dataclass(frozen=True)
class Measure:
    """A quantity entrants are ranked by: the column of its estimate, the columns of its
    interval, and how people call it."""

    column: str
    low: str
    high: str
    words: str


#: The per-entrant statistics a leaderboard may be ranked by (`ranking.by` of a config).
STATISTICS: Mapping[str, Measure] = {
    "win_rate": Measure("win_rate", "win_low", "win_high", "win rate"),
    "mean_score": Measure("mean_score", "score_low", "score_high", "mean score"),
    "mean_score_wins": Measure("mean_score_wins", "score_wins_low", "score_wins_high",
                               "mean score over wins"),
}
RANKING_KEYS = tuple(STATISTICS)
#: A rating fitted on match outcomes. Its groups follow each entity's own interval, not the
#: one relative to the anchor shown beside it (`tournament.ratings`), so that they do not
#: depend on which entrant is the anchor.
RATING = Measure("rating", "group_low", "group_high", "rating")
MEASURES: Mapping[str, Measure] = {**STATISTICS, RATING.column: RATING}


def words(keys: Sequence[str]) -> str:
    """`win rate, then mean score`: what a ranking is ordered by, for people."""
    return ", then ".join(MEASURES[key].words if key in MEASURES else key for key in keys)


def ranked(table: Any, by: Sequence[str], tie: Sequence[str] = ("entrant",)) -> Any:
    """`table` sorted by each of `by` in turn (higher first, missing values last; numbers
    within a billionth count as equal, `_same`), then by `tie` (ascending, so that ties
    print the same way every time), with `rank` (`shared_ranks`) and `rank_group`
    (`rank_groups` on the interval of the first key) inserted first.

    Sorted and shared by one comparison: sorted by the raw numbers, an entrant a fit's last
    bit put ahead on the first key would stay ahead of one better on the second, while the
    ranks call the first key a tie."""
    keys = list(zip(*(table[key] for key in by))) if len(table) else []
    names = list(zip(*(table[key] for key in tie))) if len(table) else []

    def compare(i: int, j: int) -> int:
        for a, b in zip(keys[i], keys[j]):
            if not _same(a, b):
                return _higher_first(a, b)
        return (names[i] > names[j]) - (names[i] < names[j])

    order = sorted(range(len(keys)), key=cmp_to_key(compare))
    board = table.iloc[order].reset_index(drop=True)
    board.insert(0, "rank", shared_ranks(board, by))
    first = MEASURES[by[0]]
    board.insert(1, "rank_group", rank_groups(list(board[first.low]), list(board[first.high])))
    return board


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _higher_first(a: Any, b: Any) -> int:
    """-1 when `a` ranks before `b` (higher; a missing value ranks after any other)."""
    if _missing(a) or _missing(b):
        return (_missing(a) > _missing(b)) - (_missing(a) < _missing(b))
    return -1 if a > b else 1 if a < b else 0


def shared_ranks(board: Any, by: Sequence[str]) -> list[int]:
    """Each row's position on a board `ranked` by `by`, rows equal on every key of `by`
    sharing the first of their positions (1, 1, 3; numbers within a billionth are equal):
    the name that breaks a tie orders the display only. Marks given by position, and the
    report's rank and its change since the last report, must not depend on which of two
    equal teams sorts first by name (found by the tenth hostile review: in a complete match
    design, teams with equal points against the same opponents get exactly equal ratings).
    Pure."""
    positions: list[int] = []
    previous: tuple[Any, ...] | None = None
    first = 0
    for position, values in enumerate(zip(*(board[key] for key in by)), start=1):
        if previous is None or not all(map(_same, values, previous)):
            first, previous = position, tuple(values)
        positions.append(first)
    return positions


def _same(a: Any, b: Any) -> bool:
    """Equal measures: numbers within a billionth (a fit's equal ratings can differ in their
    last bit), both missing, or equal otherwise."""
    if _missing(a) or _missing(b):
        return _missing(a) and _missing(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return bool(a == b)


def check_confidence(confidence: float) -> None:
    """Raise ValueError unless `confidence` is a level strictly between 0 and 1."""
    if not 0 < confidence < 1:
        raise ValueError(f"expected a confidence level between 0 and 1, got {confidence}")


def rank_groups(lows: Sequence[float], highs: Sequence[float]) -> list[str]:
    """Shared rank labels for intervals already in rank order.

    Walk the sorted list; the first entrant opens a group and is its anchor; each next
    entrant joins the current group when its interval overlaps the anchor's (both ends
    included), and otherwise opens a new group and becomes its anchor. An entrant without an
    interval (no games) is a group of its own. Comparing with the anchor, rather than with the
    previous entrant, keeps a long chain of small steps from merging clearly different
    entrants into one group. A label shows the group's positions: "1-3" for each of three
    entrants that share one, "4" alone.
    """
    groups: list[tuple[int, int]] = []  # (first position, last position), 0-based
    anchor = (math.nan, math.nan)
    for i, (low, high) in enumerate(zip(lows, highs)):
        overlaps = anchor[0] <= high and low <= anchor[1]  # False when anything is nan
        if groups and overlaps:
            groups[-1] = (groups[-1][0], i)
        else:
            groups.append((i, i))
            anchor = (low, high)
    labels: list[str] = []
    for first, last in groups:
        label = str(first + 1) if first == last else f"{first + 1}-{last + 1}"
        labels += [label] * (last - first + 1)
    return labels
