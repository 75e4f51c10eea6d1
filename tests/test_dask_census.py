"""The Dask executor's loop counts the cluster's workers at most once per `TICK`.

Each count is a round trip to the scheduler carrying every worker's description; asked at
every turn of the loop (twice: for the limit and for the wait for workers) it halved the
throughput of short games (`benchmarks/tournament_costs.py`). The clock here is the
executor's own, stopped or moved by hand, so nothing depends on how fast the machine is.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import tournament.executors as executors
from tests.test_tournament_run import make_tournament
from tournament.config import ClusterConfig, load_config
from tournament.runner import GameOutput, GameTask, submission_hash, tasks_for
from tournament.schedule import schedule


class Clock:
    """The executor's `time`: `monotonic` reads `now`, moved by `step` at each read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.sleep = time.sleep

    def monotonic(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("step, at_most_once", [(0.0, True), (executors.TICK, False)])
def test_the_workers_are_counted_at_most_once_per_tick(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: float,
        at_most_once: bool) -> None:
    distributed = pytest.importorskip("distributed")
    (tmp_path / "submissions").mkdir()  # no team: a baseline's short games
    config = load_config(make_tournament(tmp_path, {}, games=15, layouts="[testClassic]"))
    hashes = {e.name: submission_hash(e) for e in config.entrants}
    tasks = tasks_for(config, schedule(config), hashes)
    assert len(tasks) >= 15
    monkeypatch.setattr(executors, "time", Clock(step))
    got: list[str] = []

    def keep(task: GameTask, output: GameOutput) -> None:
        got.append(task.game.game_id)

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        executor = executors.DaskExecutor(cluster.scheduler_address, ClusterConfig(in_flight=2))
        executor.connect()
        counted = SimpleNamespace(times=0)
        ask = executor.threads

        def threads() -> Any:
            counted.times += 1
            return ask()

        monkeypatch.setattr(executor, "threads", threads)
        executor.run(tasks, keep)
    assert sorted(got) == sorted(t.game.game_id for t in tasks)
    # Two in flight: the loop turned at least once per two games; each turn asks for the
    # limit, and the wait for workers reads the clock again.
    if at_most_once:
        assert counted.times == 1
    else:
        assert counted.times >= len(tasks) // 2
