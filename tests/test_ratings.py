"""Ratings (Bradley-Terry on the Elo scale) and the crosstable, on synthetic and hand-made
match games."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tournament.ratings import (
    CROSSTABLE_COLUMNS,
    ELO_PER_LOGIT,
    RATING_COLUMNS,
    crosstable,
    crosstable_grid,
    expected_score,
    fit_ratings,
)

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal distribution


def game(
    pacman: str,
    ghost: str | None,
    index: int,
    outcome: str = "win",
    culprit: int | None = None,
    score: float = 0.0,
) -> dict[str, Any]:
    return {
        "game_id": f"{pacman}~{ghost}@smallClassic/d2/2g/classic#{index}",
        "entrant": pacman,
        "ghost_entrant": ghost,
        "outcome": outcome,
        "culprit": culprit,
        "score": score,
    }


def record(pacman: str, ghost: str, results: Iterable[str], start: int = 0) -> list[dict[str, Any]]:
    """Games of one pairing: 'w' a win, 'l' a loss, 'd' a move-limit draw."""
    names = {"w": "win", "l": "loss", "d": "move_limit"}
    return [game(pacman, ghost, start + i, names[r]) for i, r in enumerate(results)]


def simulate(
    pacmen: dict[str, float],
    ghosts: dict[str, float],
    pairs: Iterable[tuple[str, str]],
    games_per_pair: int,
    seed: int,
) -> pd.DataFrame:
    """Games between entities of known Elo: Pacman wins with `expected_score` of the
    difference, drawn from a seeded generator."""
    rng = np.random.default_rng(seed)
    rows = []
    for pacman, ghost in pairs:
        p = expected_score(pacmen[pacman] - ghosts[ghost])
        wins = rng.random(games_per_pair) < p
        rows += [game(pacman, ghost, i, "win" if w else "loss") for i, w in enumerate(wins)]
    return pd.DataFrame(rows)


def by_entity(ratings: pd.DataFrame) -> dict[tuple[str, str], pd.Series]:
    return {(row.entrant, row.side): row for row in ratings.itertuples(index=False)}


PACMEN = {f"P{i}": elo for i, elo in enumerate([-350, -200, -60, 40, 150, 300, 450])}
GHOSTS = {f"G{i}": elo for i, elo in enumerate([-300, -120, 0, 90, 220, 380, 520, 650])}


def check_recovered(ratings: pd.DataFrame, anchor: str, widest: float) -> None:
    """Every fitted rating is the true difference to the anchor ghost within its interval
    (at 99.99%: four standard errors), most within their 95% interval, and those intervals
    narrow enough to mean it (at 95%, no wider than +-`widest`)."""
    rows = by_entity(ratings)
    inside = 0
    for name, elo in [*PACMEN.items(), *GHOSTS.items()]:
        side = "pacman" if name.startswith("P") else "ghosts"
        row = rows[(name, side)]
        truth = elo - GHOSTS[anchor]
        half = (row.rating_high - row.rating_low) / 2
        if name == anchor:
            assert (row.rating, row.rating_low, row.rating_high) == (0.0, 0.0, 0.0)
            continue
        assert 0 < half < widest, (name, half)
        assert abs(row.rating - truth) <= half * 4 / Z95, (name, row.rating, truth)
        inside += row.rating_low <= truth <= row.rating_high
    # And the 95% intervals hold the truth about as often as they claim (errors correlate
    # through the anchor, hence the slack).
    assert inside >= 12


def test_a_complete_design_recovers_known_strengths() -> None:
    pairs = [(p, g) for p in PACMEN for g in GHOSTS]
    games = simulate(PACMEN, GHOSTS, pairs, games_per_pair=60, seed=7)
    assert len(games) == 3360
    ratings = fit_ratings(games, ("G2", "ghosts"))
    assert list(ratings.columns) == list(RATING_COLUMNS)
    check_recovered(ratings, "G2", widest=90)
    # The order follows the true strengths wherever they differ by 150 Elo or more.
    fitted = {(r.entrant): r.rating for r in ratings.itertuples()}
    truth = {**PACMEN, **GHOSTS}
    for a in truth:
        for b in truth:
            if truth[a] - truth[b] >= 150:
                assert fitted[a] > fitted[b], (a, b)


def test_a_sampled_incomplete_design_recovers_known_strengths() -> None:
    # Each Pacman meets 3 of the 8 ghost teams, each ghost team 2 or 3 Pacmen: 21 of the 56
    # pairings, chosen at random but balanced (consecutive ghosts in a shuffled ring).
    rng = np.random.default_rng(3)
    ring = list(rng.permutation(list(GHOSTS)))
    pairs = [
        (pacman, ring[(3 * i + k) % len(ring)]) for i, pacman in enumerate(PACMEN) for k in range(3)
    ]
    assert len(set(pairs)) == 21 and {g for _, g in pairs} == set(GHOSTS)
    games = simulate(PACMEN, GHOSTS, pairs, games_per_pair=150, seed=11)
    ratings = fit_ratings(games, ("G2", "ghosts"))
    # Fewer direct comparisons: differences to the anchor go through chains of pairings.
    check_recovered(ratings, "G2", widest=130)
    assert set(ratings["games"]) <= {300, 450}


def test_intervals_are_the_models_own_and_relative_to_the_anchor() -> None:
    # Two entities, many games: the prior is negligible, the difference is the logit of the
    # share of points, and its standard error 1 / sqrt(n p (1 - p)) log-odds.
    games = pd.DataFrame(record("P", "G", "w" * 7000 + "l" * 3000))
    ratings = by_entity(fit_ratings(games, ("G", "ghosts")))
    pacman = ratings[("P", "pacman")]
    assert pacman.rating == pytest.approx(ELO_PER_LOGIT * math.log(7 / 3), rel=1e-3)
    half = Z95 * ELO_PER_LOGIT / math.sqrt(10000 * 0.7 * 0.3)
    assert (pacman.rating_high - pacman.rating) == pytest.approx(half, rel=1e-2)
    assert (pacman.rating - pacman.rating_low) == pytest.approx(half, rel=1e-2)
    # Anchored on the Pacman instead: the same difference seen from the other end.
    flipped = by_entity(fit_ratings(games, ("P", "pacman")))
    assert flipped[("P", "pacman")].rating == 0.0
    assert flipped[("G", "ghosts")].rating == pytest.approx(-pacman.rating)
    assert flipped[("G", "ghosts")].rating_low == pytest.approx(-pacman.rating_high)


def test_the_anchor_only_shifts_the_scale() -> None:
    pairs = [(p, g) for p in PACMEN for g in GHOSTS]
    games = simulate(PACMEN, GHOSTS, pairs, games_per_pair=10, seed=5)
    one = fit_ratings(games, ("G2", "ghosts"))
    other = fit_ratings(games, ("P3", "pacman"))
    assert by_entity(other)[("P3", "pacman")].rating == 0.0
    shift = by_entity(one)[("P3", "pacman")].rating
    assert list(one["entrant"]) == list(other["entrant"])
    np.testing.assert_allclose(other["rating"], one["rating"] - shift, atol=1e-9)


def test_an_unbeaten_entity_gets_a_finite_rating_above_the_others() -> None:
    games = pd.DataFrame(
        record("Best", "G1", "w" * 20)
        + record("Best", "G2", "w" * 20)
        + record("Mid", "G1", "wwwwwwlllll")
        + record("Mid", "G2", "wwwllllllll")
    )
    ratings = fit_ratings(games, ("G1", "ghosts"))
    top = ratings.iloc[0]
    assert (top.entrant, top.side, top.games, top.points, top.score) == (
        "Best",
        "pacman",
        40,
        40.0,
        1.0,
    )
    assert np.isfinite(ratings[["rating", "rating_low", "rating_high"]].to_numpy()).all()
    assert top.rating > ratings.iloc[1].rating_high  # clearly above, yet not infinitely
    assert top.rating < 2000
    # Its interval is wider than that of an entrant with a mixed record of as many games.
    mid = by_entity(ratings)[("Mid", "pacman")]
    assert top.rating_high - top.rating_low > mid.rating_high - mid.rating_low


#: Two entrants close together (few games), one far above and one far below, against G.
CLOSE_AND_APART = (
    record("Strong", "G", "w" * 180 + "l" * 20)
    + record("Close1", "G", "wwwwwwllll")
    + record("Close2", "G", "wwwwllllll")
    + record("Weak", "G", "w" * 20 + "l" * 180)
)


def test_overlapping_intervals_share_a_rank_group_and_separated_ones_do_not() -> None:
    ratings = fit_ratings(pd.DataFrame(CLOSE_AND_APART), ("G", "ghosts"))
    rows = by_entity(ratings)
    close1, close2 = rows[("Close1", "pacman")], rows[("Close2", "pacman")]
    strong, weak = rows[("Strong", "pacman")], rows[("Weak", "pacman")]
    # Groups follow each entity's own interval (group_low/high).
    assert close1.group_low <= close2.group_high  # they overlap...
    assert strong.group_low > close1.group_high  # ...and the others are apart
    assert weak.group_high < close2.group_low
    assert list(ratings["entrant"]) == ["Strong", "Close1", "G", "Close2", "Weak"]
    assert list(ratings["rank"]) == [1, 2, 3, 4, 5]
    assert list(ratings["rank_group"]) == ["1", "2-4", "2-4", "2-4", "5"]


def test_rank_groups_do_not_depend_on_the_anchor() -> None:
    games = pd.DataFrame(CLOSE_AND_APART + record("Weak", "H", "w" * 30 + "l" * 10))
    groups = []
    for anchor in (("G", "ghosts"), ("Weak", "pacman"), ("Strong", "pacman"), ("H", "ghosts")):
        ratings = fit_ratings(games, anchor)
        groups.append(dict(zip(zip(ratings["entrant"], ratings["side"]),
                               ratings["rank_group"])))
        # The shown intervals are relative to the anchor; the anchor's is a point.
        anchored = by_entity(ratings)[anchor]
        assert anchored.rating == anchored.rating_low == anchored.rating_high == 0.0
        assert anchored.group_low < 0.0 < anchored.group_high
    assert all(g == groups[0] for g in groups), groups


def test_a_ghost_teams_failure_counts_for_pacman_and_pacmans_for_the_ghosts() -> None:
    forfeits = pd.DataFrame(
        record("P", "G", "wwll", start=10)
        + [game("P", "G", 0, "crash", culprit=1), game("P", "G", 1, "timeout", culprit=2)]
        + [game("P", "G", 2, "illegal_action", culprit=0)]
        + [game("Q", "G", i, r) for i, r in enumerate(["win", "loss", "loss"])]
    )
    played = pd.DataFrame(
        record("P", "G", "wwll", start=10)
        + record("P", "G", "wwl")
        + [game("Q", "G", i, r) for i, r in enumerate(["win", "loss", "loss"])]
    )
    with_forfeits = fit_ratings(forfeits, ("G", "ghosts"))
    pd.testing.assert_frame_equal(with_forfeits, fit_ratings(played, ("G", "ghosts")))
    # The same with culprits as a nullable integer column, as the store gives them.
    nullable = forfeits.astype({"culprit": "Int64"})
    pd.testing.assert_frame_equal(fit_ratings(nullable, ("G", "ghosts")), with_forfeits)
    pacman = by_entity(with_forfeits)[("P", "pacman")]
    assert (pacman.games, pacman.points) == (7, 4.0)
    ghost = by_entity(with_forfeits)[("G", "ghosts")]
    assert (ghost.games, ghost.points) == (10, 5.0)


def test_draws_are_half_a_point_each_way() -> None:
    games = pd.DataFrame(record("P", "G", "dddd") + record("Q", "G", "wlwl"))
    ratings = by_entity(fit_ratings(games, ("G", "ghosts")))
    assert ratings[("P", "pacman")].points == 2.0
    assert ratings[("P", "pacman")].rating == pytest.approx(0.0, abs=1e-9)
    assert ratings[("Q", "pacman")].rating == pytest.approx(0.0, abs=1e-9)


def test_infra_errors_and_fixed_format_games_are_ignored() -> None:
    pairs = [(p, g) for p in PACMEN for g in GHOSTS]
    games = simulate(PACMEN, GHOSTS, pairs, games_per_pair=8, seed=2)
    noise = pd.DataFrame(
        [game("P1", "G3", 100 + i, "infra_error") for i in range(5)]
        + [game("P1", "", 200, "win"), game("P9", None, 201, "win")]
    )
    noisy = pd.concat([games, noise], ignore_index=True)
    pd.testing.assert_frame_equal(
        fit_ratings(noisy, ("G2", "ghosts")), fit_ratings(games, ("G2", "ghosts"))
    )


def test_an_entity_with_no_counted_game_is_listed_without_a_rating() -> None:
    games = pd.DataFrame(
        record("P", "G", "wwl")
        + [game("Lost", "G", i, "infra_error") for i in range(3)]
        + [game("P", "Ghostly", 9, "infra_error")]
    )
    ratings = fit_ratings(games, ("G", "ghosts"))
    assert list(zip(ratings["entrant"], ratings["side"])) == [
        ("P", "pacman"),
        ("G", "ghosts"),
        ("Ghostly", "ghosts"),
        ("Lost", "pacman"),
    ]
    for _, row in ratings.iloc[2:].iterrows():
        assert row.games == 0 and row.points == 0.0
        assert math.isnan(row.rating) and math.isnan(row.rating_low) and math.isnan(row.score)
    assert list(ratings["rank_group"]) == ["1-2", "1-2", "3", "4"]


def test_the_result_does_not_depend_on_row_order() -> None:
    pairs = [(p, g) for p in PACMEN for g in GHOSTS]
    games = simulate(PACMEN, GHOSTS, pairs, games_per_pair=6, seed=9)
    games.loc[games.index % 7 == 0, "outcome"] = "move_limit"
    shuffled = games.sample(frac=1, random_state=4).reset_index(drop=True)
    pd.testing.assert_frame_equal(
        fit_ratings(shuffled, ("P0", "pacman")), fit_ratings(games, ("P0", "pacman"))
    )
    pd.testing.assert_frame_equal(crosstable(shuffled), crosstable(games))


def test_a_team_on_both_sides_has_two_ratings() -> None:
    games = pd.DataFrame(
        record("team", "RandomGhost", "wwwwl")
        + record("Expectimax", "team", "wwlll")
        + record("Expectimax", "RandomGhost", "wwwww")
    )
    ratings = fit_ratings(games, ("RandomGhost", "ghosts"))
    assert set(zip(ratings["entrant"], ratings["side"])) == {
        ("team", "pacman"),
        ("team", "ghosts"),
        ("Expectimax", "pacman"),
        ("RandomGhost", "ghosts"),
    }


def test_bad_anchors_and_disconnected_designs_are_errors() -> None:
    games = pd.DataFrame([*record("P", "G", "wl"), game("Q", "G", 5, "infra_error")])
    with pytest.raises(ValueError, match=r"'Nobody' \(pacman\) is no rated entity.*'G' \(ghosts\)"):
        fit_ratings(games, ("Nobody", "pacman"))
    with pytest.raises(ValueError, match="side one of pacman, ghosts"):
        fit_ratings(games, ("P", "pacmen"))
    with pytest.raises(ValueError, match=r"'Q' \(pacman\) has no counted game"):
        fit_ratings(games, ("Q", "pacman"))
    with pytest.raises(ValueError, match="no rated entity; choices: none"):
        fit_ratings(pd.DataFrame([game("P", "", 0)]), ("P", "pacman"))
    apart = pd.DataFrame(record("P", "G", "wl") + record("Q", "H", "wl") + record("R", "H", "l"))
    with pytest.raises(
        ValueError, match=r"do not connect 'H' \(ghosts\), 'Q' \(pacman\), 'R' \(pacman\) with"
    ):
        fit_ratings(apart, ("G", "ghosts"))
    with pytest.raises(ValueError, match="confidence level"):
        fit_ratings(games, ("G", "ghosts"), confidence=1.0)
    with pytest.raises(ValueError, match="prior draws"):
        fit_ratings(games, ("G", "ghosts"), prior_draws=0)
    with pytest.raises(ValueError, match="lacks the columns ghost_entrant"):
        fit_ratings(games.drop(columns="ghost_entrant"), ("G", "ghosts"))
    with pytest.raises(ValueError, match="unknown outcomes 'draw'"):
        fit_ratings(pd.DataFrame([game("P", "G", 0, "draw")]), ("G", "ghosts"))


def test_crosstable_numbers_on_a_small_table() -> None:
    games = pd.DataFrame(
        [
            game("B", "X", 0, "win", score=1000),
            game("B", "X", 1, "loss", score=-400),
            game("B", "X", 2, "move_limit", score=100),
            game("B", "X", 3, "crash", culprit=1, score=300),  # ghost forfeit: not a win
            game("B", "X", 4, "infra_error", score=0),
            game("A", "X", 0, "timeout", culprit=0, score=-520),
            game("A", "Y", 0, "win", score=1200),
            game("A", "Y", 1, "win", score=1300),
            game("C", "Y", 0, "infra_error", score=0),
            game("A", "", 7, "win", score=999),  # a fixed-format game: not in the table
        ]
    )
    table = crosstable(games)
    assert list(table.columns) == list(CROSSTABLE_COLUMNS)
    expected = pd.DataFrame(
        {
            "entrant": ["A", "A", "B", "C"],
            "ghost_entrant": ["X", "Y", "X", "Y"],
            "games": [1, 2, 4, 0],
            "points": [0.0, 2.0, 2.5, 0.0],
            "points_rate": [0.0, 1.0, 0.625, math.nan],
            "wins": [0, 2, 1, 0],
            "win_rate": [0.0, 1.0, 0.25, math.nan],
            "mean_score": [-520.0, 1250.0, 250.0, math.nan],
        }
    )
    pd.testing.assert_frame_equal(table, expected)

    grid = crosstable_grid(table, "points_rate")
    assert list(grid.index) == ["A", "B", "C"] and list(grid.columns) == ["X", "Y"]
    assert grid.loc["B", "X"] == 0.625 and grid.loc["A", "Y"] == 1.0
    assert math.isnan(grid.loc["B", "Y"])  # never met
    ordered = crosstable_grid(table, "games", pacmen=["B", "A"], ghosts=["Y", "X"])
    assert list(ordered.index) == ["B", "A"] and list(ordered.columns) == ["Y", "X"]
    assert math.isnan(ordered.loc["B", "Y"]) and ordered.loc["B", "X"] == 4
    assert ordered.loc["A"].tolist() == [2, 1]
    empty = crosstable(games[games["ghost_entrant"] == ""])
    assert empty.empty and list(empty.columns) == list(CROSSTABLE_COLUMNS)
    assert empty.dtypes.to_dict() == table.dtypes.to_dict()
    with pytest.raises(ValueError, match="no crosstable column 'wins_rate'"):
        crosstable_grid(table, "wins_rate")
