"""`tournament run` on Dask, honest about what the cluster does: an unreachable scheduler, a
cluster without workers, two tournaments on one cluster, and a bounded number of games in
flight. (The simulated multi-node cluster, workers that see none of the organizer's files,
is tests/test_cluster.py.)"""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commands import TOURNAMENT
from tests.test_tournament_run import REPO, make_tournament, rows, tournament
from tournament.bundles import TeamCache
from tournament.runner import GameOutput, GameTask, make_row

distributed = pytest.importorskip("distributed")


def cup(root: Path, games: int) -> Path:
    """A tournament of baselines only (fast games) on testClassic."""
    (root / "submissions").mkdir(parents=True)
    return make_tournament(root, {}, games=games, layouts="[testClassic]")


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def with_cluster(config: Path, address: str, settings: str = "") -> Path:
    config.write_text(config.read_text() + f"scheduler: {address}\n"
                      + (f"cluster: {settings}\n" if settings else ""))
    return config


def test_an_unreachable_scheduler_is_one_line_exit_2_and_nothing_written(
        tmp_path: Path) -> None:
    config = with_cluster(cup(tmp_path, 1),
                          f"tcp://127.0.0.1:{closed_port()}", "{connect_timeout: 2}")
    for command in ("run", "validate"):
        result = tournament(command, str(config), check=False)
        assert result.returncode == 2, result.stdout + result.stderr
        errors = result.stderr.strip().splitlines()
        assert len(errors) == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:" \
            in errors[0], result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "results.sqlite").exists()


def test_a_cluster_without_workers_says_so_and_gives_up_when_told(tmp_path: Path) -> None:
    config = cup(tmp_path, 1)
    with distributed.LocalCluster(n_workers=0, dashboard_address=None) as cluster:
        with_cluster(config, cluster.scheduler_address, "{worker_wait: 2}")
        result = tournament("run", str(config), check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "0 workers" in result.stdout
    assert "waiting for workers: none is connected to the Dask scheduler" in result.stdout
    assert "stopped: no Dask worker connected to" in result.stdout
    assert not (tmp_path / "out").exists()  # no game: nothing left, not even the folder


def test_a_cluster_config_without_a_scheduler_is_an_error(tmp_path: Path) -> None:
    config = cup(tmp_path, 1)
    config.write_text(config.read_text() + "cluster: {in_flight: 4}\n")
    result = tournament("run", str(config), check=False)
    assert result.returncode == 2 and "cluster: says how to use a Dask cluster" in result.stderr


def test_two_tournaments_at_once_on_one_cluster_each_get_their_own_games(
        tmp_path: Path) -> None:
    """The review's case: the same tournament with seeds 7 and 8 on one cluster at once.
    Keyed by game id alone, the second stored the first's games."""
    pool = {}
    for seed in (7, 8):
        config = cup(tmp_path / f"pool{seed}", 4)
        config.write_text(config.read_text().replace("seed: 11", f"seed: {seed}"))
        tournament("run", str(config))
        pool[seed] = rows(config)
    assert pool[7] != pool[8]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        runs = {}
        for seed in (7, 8):
            config = cup(tmp_path / f"dask{seed}", 4)
            config.write_text(config.read_text().replace("seed: 11", f"seed: {seed}"))
            with_cluster(config, cluster.scheduler_address)
            runs[seed] = (config, subprocess.Popen(
                [*TOURNAMENT, "run", str(config)], cwd=REPO,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        for seed, (config, proc) in runs.items():
            out, _ = proc.communicate(timeout=600)
            assert proc.returncode == 0, out
            assert rows(config) == pool[seed], seed


def instant(task: GameTask, cache: TeamCache) -> GameOutput:
    """A synthetic game: its row at once (what the executors do is what is tested)."""
    return GameOutput(task.key, make_row(task, None, None, "move_limit"))


def test_dask_keeps_a_bounded_number_of_games_in_flight(tmp_path: Path) -> None:
    from tournament.config import ClusterConfig, load_config
    from tournament.executors import DaskExecutor
    from tournament.runner import iter_tasks, submission_hash
    from tournament.schedule import schedule

    config = load_config(cup(tmp_path, 150))
    games = schedule(config)
    hashes = {e.name: submission_hash(e) for e in config.entrants}
    made = stored = 0
    most = 0
    lock = threading.Lock()

    def counted() -> Iterator[GameTask]:
        nonlocal made
        for task in iter_tasks(config, games, hashes, "ab" * 32, ()):
            with lock:
                made += 1
            yield task

    def on_result(task: GameTask, output: GameOutput) -> None:
        nonlocal stored, most
        assert output.key == task.key
        with lock:
            stored += 1
            most = max(most, made - stored)

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        DaskExecutor(cluster.scheduler_address, ClusterConfig(in_flight=5),
                     play=instant).run(counted(), on_result)
    assert stored == len(games) == 150
    assert most <= 5 + 1  # in flight, plus the one the ledger made to know one is left
