"""The strength benchmark's batches: a per-batch target (CS188: 10/10 and a mean of 1,300 in
every batch of 10) is judged on whole batches in the order the games were played."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "strength.py"


def strength() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength_benchmark", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_each_whole_batch_has_its_wins_and_mean() -> None:
    bench = strength()

    def game(score: int, win: bool) -> object:
        return bench.GameFigures("win" if win else "loss", score, win, 100, 0.0, 10, 0.0)

    games = ([game(1300, True)] * 9 + [game(-200, False)]          # batch 1: 9 wins, mean 1150
             + [game(1400, True)] * 10                              # batch 2: 10 wins, mean 1400
             + [game(1000, True)] * 5)                              # incomplete: left out
    assert bench.batch_figures(games, 10) == [(9, 1150.0), (10, 1400.0)]
    assert bench.batch_figures(games[:9], 10) == []


def test_the_cs188_protocol_is_judged_in_batches_of_ten() -> None:
    bench = strength()
    cs188 = next(p for p in bench.PROTOCOLS if p.name == "cs188")
    assert (cs188.batch, cs188.games, cs188.num_ghosts) == (10, 100, 1)
