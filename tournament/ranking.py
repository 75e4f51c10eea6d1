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
    """`table` in rank order, with `rank` and `rank_group` inserted first.

    Entrants are cut into tie blocks (`tie_blocks`: equal on every key of `by`, numbers
    within a billionth counting as equal), the blocks ordered higher first with missing
    values last. An entrant's `rank` is its block's first position (1, 1, 3): marks given
    by position, and the report's rank and its change since the last report, must not depend
    on which of two equal teams sorts first by name (the tenth hostile review: in a complete
    match design, teams with equal points against the same opponents get exactly equal
    ratings). Inside a block, the entrant whose interval on the first key lies higher comes
    first (the result known more surely), then `tie` (ascending) only between entrants equal
    in that too: so `rank_group` (`rank_groups` on that interval), which depends on the
    order, does not depend on names either. Pure."""
    count = len(table)
    first = MEASURES[by[0]]
    lows, highs = list(table[first.low]), list(table[first.high])
    names = list(zip(*(table[key] for key in tie))) if tie and count else [()] * count
    order: list[int] = []
    ranks: list[int] = []
    for block in tie_blocks([list(table[key]) for key in by], list(range(count))):
        block.sort(key=lambda i: (_descending(lows[i]), _descending(highs[i]), names[i]))
        ranks += [len(order) + 1] * len(block)
        order += block
    board = table.iloc[order].reset_index(drop=True)
    board.insert(0, "rank", ranks)
    board.insert(1, "rank_group", rank_groups(list(board[first.low]), list(board[first.high])))
    return board


def tie_blocks(keys: Sequence[Sequence[Any]], rows: list[int]) -> list[list[int]]:
    """`rows` (indices into each of `keys`' columns) cut into blocks equal on every key, in
    rank order: by the first key (higher first, missing last), a block holding the rows
    `_same` as its first (its anchor, as `rank_groups` anchors groups: comparing with the
    previous row instead would chain small steps, and the order would depend on the rows'
    order), each block then cut by the next key. Pure."""
    if not keys or not rows:
        return [rows] if rows else []
    column = keys[0]
    blocks: list[list[int]] = []
    for row in sorted(rows, key=lambda i: _descending(column[i])):
        if blocks and _same(column[row], column[blocks[-1][0]]):
            blocks[-1].append(row)
        else:
            blocks.append([row])
    return [part for block in blocks for part in tie_blocks(keys[1:], block)]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _descending(value: Any) -> tuple[int, Any]:
    """A sort key: higher values first, missing ones last."""
    return (1, 0) if _missing(value) else (0, -value)


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
