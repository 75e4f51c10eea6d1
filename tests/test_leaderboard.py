"""Leaderboard numbers on hand-made results tables."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from pacman.outcomes import FAILURES
from tournament.config import RankingConfig
from tournament.leaderboard import (
    bootstrap_mean_interval,
    cell_table,
    leaderboard,
    wilson_interval,
)
from tournament.ranking import rank_groups, ranked
from tournament.results import SCORED_COLUMNS

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal distribution


def game(
    entrant: str,
    index: int,
    outcome: str = "win",
    score: int | None = None,
    layout: str = "smallClassic",
    depth: int | None = 2,
    culprit: float | None = None,
    wall: float = 0.01,
    wall_max: float = 0.05,
) -> dict[str, Any]:
    win = outcome == "win"
    if score is None:
        score = 1200 if win else -400
    key = f"{layout}/d{'-' if depth is None else depth}/RandomGhost2/classic"
    return {
        "game_id": f"{entrant}@{key}#{index}",
        "entrant": entrant,
        "cell": key,
        "layout": layout,
        "depth": depth,
        "ghost": "RandomGhost",
        "num_ghosts": 2,
        "ruleset": "classic",
        "seed": 1000 + index,
        "game_index": index,
        "outcome": outcome,
        "culprit": culprit,
        "message": "",
        "score": score,
        "win": win,
        "moves": 120,
        "wall_mean": wall,
        "wall_max": wall_max,
        "cpu_mean": None,
        "cpu_max": None,
    }


def record(entrant: str, wins: int, n: int, **kw: Any) -> list[dict[str, Any]]:
    """`wins` won games then losses, `n` games in all."""
    return [game(entrant, i, "win" if i < wins else "loss", **kw) for i in range(n)]


def table(*groups: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([row for group in groups for row in group], columns=SCORED_COLUMNS)


def by_entrant(board: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {row["entrant"]: row for row in board.to_dict("records")}


# ---- Wilson ------------------------------------------------------------------------------


def wilson_by_hand(wins: int, n: int, z: float) -> tuple[float, float]:
    """The textbook form: (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)."""
    p = wins / n
    centre = p + z**2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return (centre - spread) / (1 + z**2 / n), (centre + spread) / (1 + z**2 / n)


def test_wilson_15_of_20() -> None:
    low, high = wilson_interval(15, 20)
    assert (low, high) == pytest.approx(wilson_by_hand(15, 20, Z95), abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (0.5313, 0.8881)


def test_wilson_at_the_edges_has_closed_forms() -> None:
    # With p = 0 the upper end is z^2 / (n + z^2); with p = 1 the lower end is n / (n + z^2).
    assert wilson_interval(0, 10) == pytest.approx((0.0, Z95**2 / (10 + Z95**2)))
    assert wilson_interval(20, 20) == pytest.approx((20 / (20 + Z95**2), 1.0))
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_widens_with_confidence_and_narrows_with_games() -> None:
    z99 = 2.5758293035489004
    assert wilson_interval(15, 20, 0.99) == pytest.approx(wilson_by_hand(15, 20, z99))
    low95, high95 = wilson_interval(15, 20)
    low99, high99 = wilson_interval(15, 20, 0.99)
    assert low99 < low95 and high99 > high95
    low_more, high_more = wilson_interval(150, 200)
    assert high_more - low_more < high95 - low95


@pytest.mark.parametrize(("wins", "n", "confidence"), [(3, 2, 0.95), (-1, 5, 0.95), (1, 2, 1.0)])
def test_wilson_rejects_impossible_input(wins: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(wins, n, confidence)


# ---- bootstrap ---------------------------------------------------------------------------


def test_bootstrap_is_deterministic_for_a_seed_and_contains_the_mean() -> None:
    scores = [1200, -400, 1300, 900, -300, 1500, 1100, 1250, -450, 1000]
    first = bootstrap_mean_interval(scores, seed=3)
    assert bootstrap_mean_interval(scores, seed=3) == first
    assert bootstrap_mean_interval(scores, seed=4) != first
    low, high = first
    assert low < sum(scores) / len(scores) < high
    assert min(scores) <= low and high <= max(scores)


def test_bootstrap_shrinks_with_more_data() -> None:
    few = bootstrap_mean_interval([0, 1000] * 5)
    many = bootstrap_mean_interval([0, 1000] * 200)
    assert many[1] - many[0] < (few[1] - few[0]) / 3
    assert many[0] < 500 < many[1]


def test_bootstrap_of_nothing_and_of_one_value() -> None:
    assert all(math.isnan(x) for x in bootstrap_mean_interval([]))
    assert bootstrap_mean_interval([700]) == (700.0, 700.0)


# ---- rank groups -------------------------------------------------------------------------


def test_rank_groups_on_a_hand_made_table() -> None:
    # Wilson intervals of 20 games: 20 wins [.84, 1], 18 [.70, .97], 10 [.30, .70],
    # 9 [.26, .66], 0 [0, .16].
    results = table(
        record("d", 9, 20),
        record("a", 20, 20),
        record("e", 0, 20),
        record("c", 10, 20),
        record("b", 18, 20),
    )
    board = leaderboard(results)
    assert list(board["entrant"]) == ["a", "b", "c", "d", "e"]
    assert list(board["rank"]) == [1, 2, 3, 4, 5]
    assert list(board["rank_group"]) == ["1-2", "1-2", "3-4", "3-4", "5"]
    a = by_entrant(board)["a"]
    assert (a["win_low"], a["win_high"]) == pytest.approx(wilson_by_hand(20, 20, Z95))


def test_a_group_is_anchored_on_its_first_entrant_not_chained() -> None:
    # The second overlaps the first; the third overlaps only the second: a new group.
    assert rank_groups([0.5, 0.45, 0.3], [0.9, 0.6, 0.49]) == ["1-2", "1-2", "3"]
    assert rank_groups([0.5, 0.45, 0.3], [0.9, 0.6, 0.5]) == ["1-3", "1-3", "1-3"]
    assert rank_groups([], []) == []


def test_an_entrant_without_an_interval_is_its_own_group() -> None:
    assert rank_groups([0.2, math.nan, 0.1], [0.8, math.nan, 0.9]) == ["1", "2", "3"]


def test_equal_win_rates_are_ordered_by_mean_score() -> None:
    results = table(
        record("low", 5, 10, score=None),
        [{**row, "score": row["score"] + 100} for row in record("high", 5, 10)],
    )
    board = leaderboard(results)
    assert list(board["entrant"]) == ["high", "low"]
    assert list(board["rank_group"]) == ["1-2", "1-2"]


def test_ranking_by_mean_score_groups_on_score_intervals() -> None:
    steady = [game("steady", i, "loss", score=100) for i in range(10)]
    lucky = [
        game("lucky", i, "win" if i == 0 else "loss", score=5000 if i == 0 else -500)
        for i in range(10)
    ]
    board = leaderboard(table(steady, lucky), RankingConfig(by=("mean_score",)))
    assert list(board["entrant"]) == ["steady", "lucky"]  # 100 against 50
    rows = by_entrant(board)
    assert rows["steady"]["score_low"] == rows["steady"]["score_high"] == 100
    assert rows["lucky"]["score_low"] <= 100 <= rows["lucky"]["score_high"]
    assert list(board["rank_group"]) == ["1-2", "1-2"]


def test_entrants_equal_on_every_key_share_their_rank_in_the_leaderboard() -> None:
    """The leaderboard's rank, which the report shows and compares with the last report's,
    is the one marks give bands by: equal results share the first of their positions, the
    name orders the display only (it gave `aaron` rank 1 and `zed` rank 2)."""
    results = table(record("zed", 6, 10), record("aaron", 6, 10), record("mid", 3, 10),
                    record("last", 3, 10), record("end", 1, 10))
    board = leaderboard(results)
    assert list(board["entrant"]) == ["aaron", "zed", "last", "mid", "end"]
    assert list(board["rank"]) == [1, 1, 3, 3, 5]


def test_a_ranking_key_equal_but_for_float_noise_is_ordered_by_the_next() -> None:
    """A fit's equal numbers differ in their last bits: ranks call them equal, so the order
    must too, and then follow the next key (sorted by the raw numbers, the noise put `b`
    ahead of `a`, which has the higher second key, and gave them ranks 1 and 2 all the
    same)."""
    board = pd.DataFrame({
        "entrant": ["a", "b", "c"],
        "win_rate": [0.3, 0.1 + 0.2, 0.9],  # 0.30000000000000004
        "mean_score": [500.0, 100.0, math.nan],
        "win_low": [0.1, 0.1, 0.5], "win_high": [0.5, 0.5, 1.0],
    })
    out = ranked(board, ["win_rate", "mean_score"])
    assert list(out["entrant"]) == ["c", "a", "b"]
    assert list(out["rank"]) == [1, 2, 3]
    # Missing values rank last, and share among themselves.
    board["win_rate"] = [math.nan, math.nan, 0.2]
    board["mean_score"] = [math.nan, math.nan, 1.0]
    out = ranked(board, ["win_rate", "mean_score"])
    assert list(out["entrant"]) == ["c", "a", "b"] and list(out["rank"]) == [1, 2, 2]


def test_the_order_and_ranks_do_not_depend_on_the_rows_order() -> None:
    """Equality within a billionth chains (a ~ b, b ~ c, a < c): compared pair by pair, the
    order depended on the rows' order, and an entrant higher by more than the tolerance
    could rank below a lower one (the review of the change). Blocks are anchored on their
    first entrant, as rank groups are."""
    ratings = {"x1": 1000.0, "x2": 1000.0 + 0.9e-6, "x3": 1000.0 + 1.8e-6}
    seen = set()
    for names in (["x1", "x2", "x3"], ["x3", "x2", "x1"], ["x2", "x3", "x1"]):
        board = pd.DataFrame({"entrant": names, "rating": [ratings[n] for n in names],
                              "group_low": [990.0] * 3, "group_high": [1010.0] * 3})
        out = ranked(board, ["rating"])
        seen.add((tuple(out["entrant"]), tuple(out["rank"])))
    assert seen == {(("x2", "x3", "x1"), (1, 1, 3))}  # names order the display of a tie


def test_equal_entrants_rank_groups_do_not_depend_on_their_names() -> None:
    """Equal win rates from 10 and from 1,000 games have different intervals, and rank
    groups are anchored in rank order: ordered by name inside a tie, a renamed team moved
    between groups (and a `position: group` mark with it). Inside a tie, the result known
    more surely comes first."""
    seen = set()
    for name in ("alpha", "zeta"):
        results = table(record("top", 600, 1000), record(name, 3, 10),
                        record("beta", 300, 1000))
        board = leaderboard(results)
        rows = {("few" if e == name else e): (r, g) for e, r, g in
                zip(board["entrant"], board["rank"], board["rank_group"])}
        seen.add(tuple(sorted(rows.items())))
        assert list(board["entrant"]) == ["top", "beta", name]
    assert seen == {(("beta", (2, "2-3")), ("few", (2, "2-3")), ("top", (1, "1")))}


# ---- statistics --------------------------------------------------------------------------


def test_counts_rates_and_means() -> None:
    rows = record("a", 3, 4)
    rows[0]["score"], rows[1]["score"], rows[2]["score"] = 1000, 1300, 1600
    board = leaderboard(table(rows))
    a = by_entrant(board)["a"]
    assert (a["games"], a["wins"], a["win_rate"]) == (4, 3, 0.75)
    assert a["mean_score"] == (1000 + 1300 + 1600 - 400) / 4
    assert a["mean_score_wins"] == 1300
    assert a["score_low"] <= a["mean_score"] <= a["score_high"]


def test_infra_errors_are_counted_but_never_scored() -> None:
    clean = table(record("a", 3, 5))
    broken = [game("a", 100 + i, "infra_error", score=99999) for i in range(3)]
    broken[0]["win"] = True  # whatever else such a row says, it is not a game
    with_infra = table(record("a", 3, 5), broken)
    a, b = by_entrant(leaderboard(clean))["a"], by_entrant(leaderboard(with_infra))["a"]
    assert b["infra_errors"] == 3 and a["infra_errors"] == 0
    for column in (
        "games",
        "wins",
        "win_rate",
        "win_low",
        "win_high",
        "mean_score",
        "score_low",
        "score_high",
        "mean_score_wins",
        "failures",
    ):
        assert b[column] == a[column], column


def test_an_entrant_with_only_infra_errors_is_listed_last_without_numbers() -> None:
    results = table(record("a", 1, 2), [game("ghosted", 0, "infra_error")])
    board = leaderboard(results)
    assert list(board["entrant"]) == ["a", "ghosted"]
    ghosted = by_entrant(board)["ghosted"]
    assert ghosted["games"] == 0 and ghosted["infra_errors"] == 1
    assert math.isnan(ghosted["win_rate"]) and math.isnan(ghosted["win_low"])
    assert list(board["rank_group"]) == ["1", "2"]


def test_failures_by_kind_count_only_the_entrants_own() -> None:
    rows = [
        game("a", 0, "crash", culprit=0.0),
        game("a", 1, "timeout", culprit=0.0),
        game("a", 2, "timeout", culprit=0.0),
        game("a", 3, "memory", culprit=0.0),
        game("a", 4, "crash", culprit=1.0),  # a ghost failed, not the entrant
        game("a", 5, "win"),
        game("a", 6, "move_limit", score=300),
    ]
    a = by_entrant(leaderboard(table(rows)))["a"]
    assert {kind: a[kind] for kind in FAILURES} == {
        "load_error": 0,
        "crash": 1,
        "timeout": 2,
        "illegal_action": 0,
        "memory": 1,
        "killed": 0,
    }
    assert a["failures"] == 4
    assert a["other_failures"] == 1
    assert a["games"] == 7 and a["wins"] == 1


def test_move_times() -> None:
    rows = [
        game("a", 0, wall=0.01, wall_max=0.2),
        game("a", 1, wall=0.03, wall_max=0.5),
        game("a", 2, "load_error", culprit=0.0, wall=math.nan, wall_max=math.nan),
    ]
    a = by_entrant(leaderboard(table(rows)))["a"]
    assert a["move_time_mean"] == pytest.approx(0.02)
    assert a["move_time_max"] == 0.5
    assert math.isnan(a["cpu_time_mean"])


def test_row_order_does_not_matter_and_the_input_is_untouched() -> None:
    rows = record("a", 7, 12) + record("b", 5, 12) + [game("a", 50, "crash", culprit=0.0)]
    for i, row in enumerate(rows):
        row["score"] += 37 * i
    ordered = table(rows)
    copy = ordered.copy()
    shuffled = ordered.sample(frac=1, random_state=7)
    pd.testing.assert_frame_equal(leaderboard(ordered), leaderboard(shuffled))
    pd.testing.assert_frame_equal(cell_table(ordered), cell_table(shuffled))
    pd.testing.assert_frame_equal(ordered, copy)


def test_cell_table_per_entrant_layout_and_depth() -> None:
    results = table(
        record("a", 2, 2, layout="smallClassic", depth=1),
        record("a", 0, 2, layout="smallClassic", depth=2),
        record("a", 1, 2, layout="mediumClassic", depth=1),
        record("b", 1, 4, layout="smallClassic", depth=1),
    )
    cells = cell_table(results)
    assert [
        (r["layout"], r["depth"], r["entrant"], r["games"], r["wins"])
        for r in cells.to_dict("records")
    ] == [
        ("mediumClassic", 1, "a", 2, 1),
        ("smallClassic", 1, "a", 2, 2),
        ("smallClassic", 1, "b", 4, 1),
        ("smallClassic", 2, "a", 2, 0),
    ]
    assert "rank" not in cells.columns


def test_cell_table_without_depths() -> None:
    cells = cell_table(table(record("a", 1, 3, depth=None)))
    assert len(cells) == 1
    assert cells["depth"].isna().all()
    assert cells.loc[0, "wins"] == 1


def test_empty_results_give_an_empty_board_with_all_columns() -> None:
    board = leaderboard(table())
    assert board.empty
    assert {"rank", "rank_group", "win_rate", "infra_errors", *FAILURES} <= set(board)


def test_bad_tables_are_refused() -> None:
    good = table(record("a", 1, 2))
    with pytest.raises(ValueError, match="lacks the columns culprit"):
        leaderboard(good.drop(columns=["culprit"]))
    with pytest.raises(ValueError, match="unknown outcomes 'draw'"):
        leaderboard(good.assign(outcome="draw"))
    with pytest.raises(ValueError, match="appears more than once"):
        leaderboard(pd.concat([good, good]))
