"""The tuner's search without games (`tournament.tuning`): CMA-ES asks the same candidates
from the same seed and the same answers, so a run that finds its evaluations stored asks
again what an interrupted run asked and evaluates only what is missing; candidates keep to
their bounds; every candidate plays the same seeds and the comparison's are fresh."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tournament.objective import Measure, Objective, measure
from tournament.schedule import schedule
from tournament.tuneconfig import TuneConfig, parse_tune
from tournament.tuning import (
    Candidate,
    Evaluated,
    Games,
    Generation,
    best_of,
    comparison_seeds,
    failure_of,
    measures_of,
    search,
    tournament_config,
    tuning_seeds,
    weights_at,
)

TARGET = {"food_left": -4.0, "nearest_food": -6.0, "trapped": -250.0}


def config(tmp_path: Path, **changes: Any) -> TuneConfig:
    data: dict[str, Any] = {
        "name": "search test",
        "evaluation": "better",
        # Starts given, so that the search's figures do not move when `better` is re-tuned.
        "weights": {"food_left": {"start": -10}, "nearest_food": {"start": -1.5},
                    "trapped": {"start": -100, "low": -300, "high": -50}},
        "protocol": {"layout": "testClassic", "num_ghosts": 1, "depth": 1},
        "budget": {"generations": 12},
        "population": 6,
        "games": 3,
        "seed": 7,
    }
    data.update(copy.deepcopy(changes))
    return parse_tune(data, "tune.yaml", tmp_path)


def quadratic(candidate: Candidate) -> Measure:
    """A stand-in for games: the closer to TARGET (in each weight's own scale), the higher."""
    w = candidate.as_dict()
    value = -sum(((w[k] - TARGET[k]) / abs(TARGET[k])) ** 2 for k in TARGET)
    return Measure(3, 3, value, value, value, True)


class Store:
    """What a run's store would hold: each candidate's measure by (entrant, weights), and how
    many evaluations were 'played'."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, tuple[tuple[str, float], ...]], Measure] = {}
        self.played = 0
        self.stop_after: int | None = None

    def evaluate(self, generation: int, candidates: list[Candidate]) -> list[Measure]:
        out = []
        for c in candidates:
            key = (c.entrant, c.weights)
            if key not in self.kept:
                if self.stop_after is not None and self.played >= self.stop_after:
                    raise KeyboardInterrupt
                self.kept[key] = quadratic(c)
                self.played += 1
            out.append(self.kept[key])
        return out


def asked(generations: list[Generation]) -> list[tuple[str, tuple[tuple[str, float], ...]]]:
    return [(e.candidate.entrant, e.candidate.weights) for g in generations
            for e in g.evaluated]


def test_the_same_seed_asks_the_same_candidates(tmp_path: Path) -> None:
    first = search(config(tmp_path), Store().evaluate).generations
    again = search(config(tmp_path), Store().evaluate).generations
    assert asked(first) == asked(again) and len(first) == 12
    other = search(config(tmp_path, seed=8), Store().evaluate).generations
    assert asked(other) != asked(first)
    names = [name for name, _ in asked(first)]
    assert names[:7] == ["g0000-c00", "g0000-c01", "g0000-c02", "g0000-c03", "g0000-c04",
                         "g0000-c05", "g0001-c00"]


def test_an_interrupted_search_resumes_evaluating_only_what_is_missing(
        tmp_path: Path) -> None:
    whole = search(config(tmp_path), Store().evaluate).generations
    store = Store()
    store.stop_after = 27  # in the middle of generation 4 (6 candidates each)
    with pytest.raises(KeyboardInterrupt):
        search(config(tmp_path), store.evaluate)
    assert store.played == 27
    store.stop_after = None
    resumed = search(config(tmp_path), store.evaluate)
    assert asked(resumed.generations) == asked(whole)
    assert store.played == len(asked(whole)) == 72  # nothing evaluated twice
    assert best_of(resumed.generations) == best_of(whole)
    assert resumed.mean == search(config(tmp_path), Store().evaluate).mean


def test_the_search_finds_better_weights_than_the_start(tmp_path: Path) -> None:
    cfg = config(tmp_path, budget={"generations": 30})
    generations = search(cfg, Store().evaluate).generations
    start = quadratic(Candidate(0, 0, tuple((w.name, w.start) for w in cfg.weights)))
    best = best_of(generations)
    assert best.measure.value > start.value
    # Within a tenth of each weight's own size of the optimum; the final mean too.
    for name, value in best.candidate.weights:
        assert abs(value - TARGET[name]) < 0.1 * abs(TARGET[name]), (name, value)
    mean = search(cfg, Store().evaluate).mean
    assert mean.entrant == "final-mean"
    for name, value in mean.weights:
        assert abs(value - TARGET[name]) < 0.1 * abs(TARGET[name]), (name, value)


def test_candidates_keep_to_their_bounds_and_are_rounded(tmp_path: Path) -> None:
    cfg = config(tmp_path, sigma=3.0)
    generations = search(cfg, Store().evaluate).generations
    trapped = [dict(c.candidate.weights)["trapped"] for g in generations for c in g.evaluated]
    assert all(-300 <= t <= -50 for t in trapped)
    assert min(trapped) < -250 and max(trapped) > -100  # the bounds are reached, not a wall
    assert weights_at(cfg.weights, [1 / 3, 0.0, 100.0]) == (
        ("food_left", -6.66667), ("nearest_food", -1.5), ("trapped", -50.0))


def test_candidates_keep_within_what_the_agents_take(tmp_path: Path) -> None:
    """Review-change 21: a start near MAX_WEIGHT with as large a scale and no bounds stepped
    past it (1.4e12 at half a scale), and the agent refused every such candidate's weights."""
    from pacman.agents.evaluation import MAX_WEIGHT, parse_weights_text, weights_text

    cfg = config(tmp_path, weights={"food_left": {"start": 9e11, "scale": 1e12}})
    [(name, value)] = weights_at(cfg.weights, [0.5])
    assert (name, value) == ("food_left", MAX_WEIGHT)
    assert weights_at(cfg.weights, [-5.0]) == (("food_left", -MAX_WEIGHT),)
    assert parse_weights_text(weights_text({name: value}))[name] == MAX_WEIGHT


def test_one_weight_between_close_bounds_is_searched(tmp_path: Path) -> None:
    """cma 4.5 cannot fit a single coordinate's step into a narrow bound range by itself (it
    raised once the start's games were played); the tuner fits it."""
    cfg = config(tmp_path, weights={"ghost_threat": {"start": -100, "low": -140, "high": -60}},
                 budget={"generations": 4})
    def evaluate(generation: int, candidates: list[Candidate]) -> list[Measure]:
        return [m(-(dict(c.weights)["ghost_threat"] + 90) ** 2) for c in candidates]

    generations = search(cfg, evaluate).generations
    threat = [dict(c.candidate.weights)["ghost_threat"] for g in generations
              for c in g.evaluated]
    assert len(threat) == 4 * cfg.population
    assert all(-140 <= t <= -60 for t in threat) and len(set(threat)) > 1


def m(value: float) -> Measure:
    return Measure(2, 2, value, value, value, True)


def test_the_best_is_the_lowest_cost_and_the_earliest_among_equals() -> None:
    a, b, c = (Candidate(0, i, (("w", float(i)),)) for i in range(3))
    d = Candidate(1, 0, (("w", 9.0),))
    generations = [Generation(0, (Evaluated(a, m(5)), Evaluated(b, m(7)), Evaluated(c, m(7)))),
                   Generation(1, (Evaluated(d, m(7)),))]
    assert best_of(generations).candidate == b
    assert generations[0].mean == pytest.approx(19 / 3)


def test_every_candidate_plays_the_same_seeds_and_the_comparison_fresh_ones(
        tmp_path: Path) -> None:
    cfg = config(tmp_path, games=5, comparison={"games": 40})
    games = Games(cfg, lambda tournament, hashes: None)
    entrants = [games.entrant(f"g0000-c0{i}", {"food_left": -i, "nearest_food": -1.0,
                                                "trapped": -100.0}) for i in range(3)]
    played = schedule(tournament_config(cfg, entrants, cfg.seed, cfg.games))
    seeds = {e.name: [g.seed for g in played if g.entrant == e.name] for e in entrants}
    assert len({tuple(s) for s in seeds.values()}) == 1
    assert seeds["g0000-c00"] == tuning_seeds(cfg) and len(set(tuning_seeds(cfg))) == 5
    fresh = comparison_seeds(cfg)
    assert len(set(fresh)) == 40 and not set(fresh) & set(tuning_seeds(cfg))
    assert comparison_seeds(config(tmp_path, seed=8, comparison={"games": 40})) != fresh
    hashes = games.hashes(tournament_config(cfg, entrants, cfg.seed, cfg.games))
    assert len(set(hashes.values())) == 3  # each candidate's weights are its own
    assert dict(entrants[1].args)["weights"] == "food_left:-1.0;nearest_food:-1.0;trapped:-100.0"


def rows(*games: tuple[str, int, str, float, bool, int | None]) -> Any:
    return pd.DataFrame([{"game_id": f"{e}@cell#{i}", "entrant": e, "game_index": i,
                          "outcome": o, "score": s, "win": w, "culprit": c, "message": o}
                         for e, i, o, s, w, c in games])


def test_measures_leave_out_the_platforms_failures_and_an_agent_failing_everywhere_stops(
        tmp_path: Path) -> None:
    cfg = config(tmp_path, objective="win_rate")
    table = rows(("a", 0, "win", 500, True, None), ("a", 1, "loss", -300, False, None),
                 ("a", 2, "infra_error", 0, False, None), ("b", 0, "crash", -20, False, 0),
                 ("b", 1, "win", 900, True, None), ("d", 0, "crash", 700, True, 1))
    found = measures_of(table, ["a", "b", "c", "d"], cfg)
    assert found[0] == measure(Objective("win_rate"), [500, -300], [True, False])
    # b won its other game, but failed one itself: no value, whatever it scored.
    assert (found[1].games, found[1].failures, found[1].feasible) == (2, 1, False)
    assert math.isnan(found[1].value) and found[1].shortfall == "its agent failed 1 of 2 games"
    assert found[2].games == 0 and math.isnan(found[2].value)
    # A ghost's failure (culprit 1) is not the tuned agent's.
    assert (found[3].failures, found[3].feasible, found[3].value) == (0, True, 1.0)
    assert failure_of(table) == ""
    broken = rows(("a", 0, "load_error", -501, False, 0), ("b", 0, "crash", -501, False, 0))
    assert failure_of(broken) == "load_error: load_error"
    # Every game an infra_error (the platform failed each, say its workers died): nothing to
    # judge.
    assert failure_of(rows(("a", 0, "infra_error", 0, False, None))) == \
        "infra_error: infra_error"
    assert failure_of(rows(("a", 0, "infra_error", 0, False, None),
                           ("a", 1, "loss", -300, False, None))) == ""


def test_the_comparison_counts_each_sides_own_failures_and_writes_them(tmp_path: Path) -> None:
    """Paired by game index, infra errors left out; the games each side's agent failed itself
    (culprit 0; a ghost's failure is not the agent's) are counted per side, weigh on the
    verdict and are columns of comparison.csv."""
    from tournament.tuning import START, TUNED, comparison_table

    cfg = config(tmp_path, comparison={"games": 4})
    played = rows((START, 0, "win", 900, True, None), (START, 1, "loss", -300, False, None),
                  (START, 2, "crash", -400, False, 0), (START, 3, "win", 800, True, None),
                  (TUNED, 0, "crash", -200, False, 0), (TUNED, 1, "timeout", -250, False, 0),
                  (TUNED, 2, "crash", 100, False, 1), (TUNED, 3, "infra_error", 0, False, None))
    games = Games(cfg, lambda tournament, hashes: played)
    differences, pairs, failures = games.compare({"food_left": -5.0})
    assert (pairs, failures) == (3, (1, 2))  # game 3 has no pair
    table = comparison_table(differences, pairs, failures)
    assert list(table.columns[-3:]) == ["games", "start_failures", "tuned_failures"]
    assert set(table["start_failures"]) == {1} and set(table["tuned_failures"]) == {2}
