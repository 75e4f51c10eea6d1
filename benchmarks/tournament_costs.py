"""Tournament costs (printed, never asserted; see the README for the numbers).

1. Platform overhead per game: the wall time of `tournament run` on one worker, minus the
   time the same games take played directly in-process with `pacman.game.play` (so sandbox
   start and round trips, scheduling, the pool and storing all count as overhead).
   Target: at most 50 ms per game.
2. Scaling: the same CPU-bound tournament (built-in expectimax at depth 3) on one worker and on
   two. Target: two at least 1.8x faster (on a machine with two free cores).
3. Memory: the organizer's peak resident memory for a tournament of N and of 4N games.
   Target: flat.
4. Scale: `tournament run` on 6,000 and 60,000 scheduled games (200 built-in entrants x 5
   layouts x 3 depths x 2 or 20 games), through the whole organizer path (config, snapshots,
   schedule, plan, `iter_tasks`, the executor, `tournament.outputs.Keeper` into the results
   database, the final leaderboard), with synthetic games that return their row at once
   (`instant_play`): the organizer's peak memory during play and at exit, and the seconds from
   the command's start to its first stored result, on the pool and on Dask. Target: memory
   during play flat in the number of games.
5. Per-game overhead of Dask: the same short real games (a built-in Pacman on testClassic)
   through the local pool and through a Dask `LocalCluster` with as many worker processes
   (one thread each); ms per game beyond a fixed start-up (the slope between two numbers of
   games). Target: Dask within 10 ms per game of the pool.
6. Dask throughput: the games per second stored by `tournament run` on the Dask cluster with
   synthetic games (the figure of 4), and where the organizer's time goes. Target: at least
   1,000 games per second (no single-machine bottleneck below that).

Run: `python benchmarks/tournament_costs.py` (or `--short` for CI's quick pass: 3,000 and
6,000 games in 4 and 6; `--only costs` or `--only scale` for 1-3 or 4-6).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pacman.game import GameSpec, play
from pacman.layout import parse_layout
from tournament.bundles import TeamCache
from tournament.config import ClusterConfig, load_config
from tournament.executors import Executor
from tournament.outputs import Keeper
from tournament.runner import GameOutput, GameTask, make_row, submission_hash, tasks_for
from tournament.schedule import schedule
from tournament.store import Store

REPO = Path(__file__).resolve().parent.parent
PEAK = ("import resource, runpy, sys, atexit; "
        "atexit.register(lambda: print('PEAK_KB', "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)); "
        "sys.argv = ['tournament'] + sys.argv[1:]; runpy.run_module('tournament', "
        "run_name='__main__')")


def write_config(root: Path, games: int, workers: int, team: bool, baseline: str,
                 depth: int = 2, layout: str = "smallClassic") -> Path:
    subs = root / "submissions"
    subs.mkdir(parents=True, exist_ok=True)
    if team:
        shutil.copytree(REPO / "submissions" / "example-team", subs / "example-team",
                        dirs_exist_ok=True)
    config = root / "bench.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: bench
        seed: 3
        entrants:
          submissions: submissions
          baselines: [{{name: base, agent: {baseline}}}]
        grid:
          layouts: [{layout}]
          depths: [{depth}]
          ghosts: [{{agent: RandomGhost, count: 2}}]
        games_per_cell: {games}
        workers: {workers}
        output: out
        record: {{replays: none}}
        """))
    return config


def run(config: Path) -> tuple[float, int]:
    """Seconds of `tournament run` and the organizer's peak memory in KiB."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK, "run", str(config)], cwd=REPO,
                          capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - t0
    peak = next(int(line.split()[1]) for line in done.stderr.splitlines()
                if line.startswith("PEAK_KB"))
    return elapsed, peak


def direct_play_seconds(config_path: Path) -> float:
    """The same games played one after another in this process, agents in-process."""
    config = load_config(config_path)
    games = schedule(config)
    tasks = tasks_for(config, games, {e.name: "" for e in config.entrants})
    t0 = time.perf_counter()
    for task in tasks:
        assert task.pacman is not None, task.problem
        spec = GameSpec(parse_layout(task.layout_text, task.layout_name), task.pacman, task.ghost,
                        num_ghosts=task.game.cell.num_ghosts, seed=task.game.seed,
                        max_moves=task.max_moves, sandbox=False, secret=task.secret)
        play(spec)
    return time.perf_counter() - t0


# --- 4-6: scale ---------------------------------------------------------------------------------

#: 200 entrants x these 5 layouts x 3 depths x 20 games = 60,000 games (the issue's course).
SCALE_LAYOUTS = ("smallClassic", "mediumClassic", "minimaxClassic", "trappedClassic",
                 "capsuleClassic")
SCALE_ENTRANTS = 200
#: Worker processes of the pool and of the Dask cluster (the machine's 2 cores).
WORKERS = 2
#: Games in flight on Dask for the scale figures: a 128-thread cluster's default; on this
#: machine's 2 threads the default (4) measures round trips, not what the organizer can take.
BIG_IN_FLIGHT = 256
#: "Flat": the organizer's peak while playing grows by at most this for 10x the games.
FLAT_MIB = 10


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def instant_play(task: GameTask, cache: TeamCache) -> GameOutput:
    """A synthetic game: the row of a loss before the first move, returned at once, so that
    what is measured is everything but the game (a module-level function: it travels to
    worker processes by name)."""
    return GameOutput(task.key, make_row(task, None, None, "loss"))


def write_scale_config(root: Path, games: int, scheduler: str | None,
                       in_flight: int | None = None, entrants: int = SCALE_ENTRANTS) -> Path:
    """`SCALE_ENTRANTS` built-in entrants x `SCALE_LAYOUTS` x 3 depths x `games` games."""
    root.mkdir(parents=True, exist_ok=True)
    baselines = "\n".join(f"    - {{name: b{i:03d}, agent: GreedyAgent}}"
                          for i in range(entrants))
    config = root / "scale.yaml"
    config.write_text(f"""\
name: scale
seed: 5
entrants:
  baselines:
{baselines}
grid:
  layouts: [{", ".join(SCALE_LAYOUTS)}]
  depths: [1, 2, 3]
  ghosts: [{{agent: RandomGhost, count: 2}}]
games_per_cell: {games}
workers: {WORKERS}
output: out
record: {{replays: none}}
scheduler: {scheduler or "null"}
""" + (f"cluster: {{in_flight: {in_flight or 'null'}}}\n" if scheduler else ""))
    return config


def _rss_kib() -> int:
    """This process's resident memory now, KiB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _cpu(usage: Any) -> float:
    return float(usage.ru_utime + usage.ru_stime)


def probe(config: str, report: str, profile: str = "") -> None:
    """`tournament run CONFIG` in this process, its games synthetic (`instant_play`, on the
    pool or on Dask as the config says), noting when the plan is made, when the first result
    is stored and when the last one is, with this process's memory and CPU at each; written to
    `report` as JSON. With `profile`, the executor's run is profiled (cProfile, this thread:
    the organizer's loop) into that file."""
    import tournament.executors as executors
    import tournament.outputs as outputs
    import tournament.runner as runner
    from tournament.cli import main as cli_main

    marks: dict[str, dict[str, float]] = {}
    stored = [0]

    def mark(name: str) -> None:
        marks[name] = {"at": time.time(), "rss": _rss_kib(), "peak": _peak_kib(),
                       "cpu": _cpu(resource.getrusage(resource.RUSAGE_SELF)),
                       "stored": stored[0]}

    def played(run: Callable[[Iterable[GameTask], executors.OnResult], None],
               tasks: Iterable[GameTask], on_result: executors.OnResult) -> None:
        profiler = cProfile.Profile() if profile else None
        if profiler is not None:
            profiler.enable()
        try:
            run(tasks, on_result)
        finally:
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(profile)
            mark("played")

    class Local(executors.LocalExecutor):
        def __init__(self, workers: int, quiet: bool = True, play: executors.Play = instant_play,
                     cache: TeamCache | None = None,
                     deadline: executors.Deadline = executors.game_deadline) -> None:
            super().__init__(workers, quiet, instant_play, cache, deadline)

        def run(self, tasks: Iterable[GameTask], on_result: executors.OnResult) -> None:
            played(super().run, tasks, on_result)

    class Dask(executors.DaskExecutor):
        def __init__(self, address: str, settings: ClusterConfig | None = None,
                     play: executors.Play = instant_play, cache: TeamCache | None = None,
                     say: Callable[[str], None] | None = None,
                     deadline: executors.Deadline = executors.game_deadline) -> None:
            super().__init__(address, settings, instant_play, cache, say, deadline)

        def run(self, tasks: Iterable[GameTask], on_result: executors.OnResult) -> None:
            played(super().run, tasks, on_result)

    make_tasks = runner.iter_tasks
    keep = outputs.Keeper.keep

    def planned(*args: Any, **kwargs: Any) -> Any:
        mark("planned")  # the run calls it once the plan is made, before any game
        return make_tasks(*args, **kwargs)

    def kept(self: outputs.Keeper, task: GameTask, output: GameOutput) -> Any:
        row = keep(self, task, output)
        if row["outcome"] != "loss":  # not the synthetic game: a figure of something else
            raise SystemExit(f"game {row['game_id']}: {row['outcome']}: {row['message']}")
        stored[0] += 1
        if stored[0] == 1:
            mark("first")
        return row

    # The run looks these up when it runs (`tournament.cli.run`): the real path, these hooks.
    executors.LocalExecutor = Local  # type: ignore[misc]
    executors.DaskExecutor = Dask  # type: ignore[misc]
    runner.iter_tasks = planned
    outputs.Keeper.keep = kept  # type: ignore[method-assign]
    try:
        cli_main(["run", config], standalone_mode=False)
    finally:
        mark("exit")
        Path(report).write_text(json.dumps(marks))


PROBE = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from benchmarks.tournament_costs import probe; probe(*sys.argv[2:])")


@dataclass(frozen=True)
class Probed:
    """What one probed `tournament run` cost (times in seconds from the command's start)."""

    games: int
    first: float
    played: float
    planned_peak: int
    play_peak: int
    exit_peak: int
    play_rate: float
    organizer_cpu: float

    @classmethod
    def of(cls, started: float, marks: dict[str, dict[str, float]]) -> Probed:
        plan, first, done = marks["planned"], marks["first"], marks["played"]
        return cls(games=int(done["stored"]), first=first["at"] - started,
                   played=done["at"] - started, planned_peak=int(plan["peak"]),
                   play_peak=int(done["peak"]), exit_peak=int(marks["exit"]["peak"]),
                   play_rate=done["stored"] / (done["at"] - plan["at"]),
                   organizer_cpu=(done["cpu"] - plan["cpu"]) / (done["at"] - plan["at"]))


def run_probe(root: Path, games: int, scheduler: str | None, in_flight: int | None = None,
              entrants: int = SCALE_ENTRANTS, profile: str = "") -> Probed:
    shutil.rmtree(root, ignore_errors=True)  # a fresh results folder: every game to play
    config = write_scale_config(root, games, scheduler, in_flight, entrants)
    report = root / "probe.json"
    started = time.time()
    subprocess.run([sys.executable, "-c", PROBE, str(REPO), str(config), str(report),
                    profile], cwd=root, check=True, stdout=subprocess.DEVNULL)
    return Probed.of(started, json.loads(report.read_text()))


def real_tasks(root: Path, games: int) -> list[GameTask]:
    """`games` short real games: a built-in Pacman against a random ghost on testClassic."""
    config = load_config(write_config(root, games, WORKERS, False, "GreedyAgent",
                                      layout="testClassic"))
    hashes = {e.name: submission_hash(e) for e in config.entrants}
    return tasks_for(config, schedule(config), hashes)


def executor_seconds(executor: Executor, tasks: list[GameTask], out: Path) -> float:
    """Wall seconds of `executor` playing `tasks`, each output kept into a fresh store."""
    shutil.rmtree(out, ignore_errors=True)
    with Store(out / "results.sqlite") as store:
        keeper = Keeper(out, store)

        def keep(task: GameTask, output: GameOutput) -> None:
            row = keeper.keep(task, output)
            if row["outcome"] == "infra_error":  # the platform failed: not a game's cost
                raise SystemExit(f"game {row['game_id']}: {row['message']}")

        t0 = time.perf_counter()
        executor.run(tasks, keep)
        return time.perf_counter() - t0


def slope_ms(seconds: Callable[[list[GameTask]], float], tasks: list[GameTask]) -> float:
    """ms per game beyond a fixed cost: the wall time's slope between a third of `tasks` and
    all of them (start-up, a pool's processes or a client's connection, cancels out)."""
    few = tasks[:len(tasks) // 3]
    return (seconds(tasks) - seconds(few)) / (len(tasks) - len(few)) * 1000


def worker_cpu(cluster: Any) -> float:
    """CPU seconds used so far by the cluster's worker processes."""
    total = 0.0
    for nanny in cluster.workers.values():
        with open(f"/proc/{nanny.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def scale(root: Path, short: bool, profile: str = "") -> None:
    """Figures 4-6."""
    import distributed

    from tournament.executors import DaskExecutor, LocalExecutor

    entrants = 20 if short else SCALE_ENTRANTS
    # Games per cell: 6,000 and 60,000 games; short, 3,000 and 6,000 (below about 3,000 games
    # Dask's buffers are still growing to their steady size, which is no growth per game).
    sizes = (10, 20) if short else (2, 20)
    # The scheduler (here) and the Dask workers unpickle `instant_play` by its module's name:
    # they need this folder.
    sys.path.insert(0, str(REPO))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))
    grid = f"{entrants} entrants x {len(SCALE_LAYOUTS)} layouts x 3 depths"

    def cluster() -> Any:
        """A fresh cluster for each figure, so that each starts from the same state."""
        return distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1,
                                        processes=True, dashboard_address=":0")

    def dask_probe(where: Path, n: int, in_flight: int | None,
                   profile: str = "") -> tuple[Probed, float, float]:
        """A probe on a fresh, warm cluster, with the CPU seconds of its scheduler (this
        process) and workers meanwhile."""
        with cluster() as fresh:
            address = fresh.scheduler_address
            run_probe(where / "warm", 1, address, entrants=2)  # the workers' first imports
            before = (_cpu(resource.getrusage(resource.RUSAGE_SELF)), worker_cpu(fresh))
            probed = run_probe(where / "run", n, address, in_flight, entrants, profile)
            after = (_cpu(resource.getrusage(resource.RUSAGE_SELF)), worker_cpu(fresh))
        return probed, after[0] - before[0], after[1] - before[1]

    pool = [run_probe(root / f"pool{n}", n, None, entrants=entrants) for n in sizes]
    dask = [dask_probe(root / f"dask{n}", n, BIG_IN_FLIGHT, profile if n == sizes[-1] else "")
            for n in sizes]
    default = dask_probe(root / "dask-default", sizes[0], None)[0]

    tasks = real_tasks(root / "real", 300)
    pool_ms = slope_ms(lambda some: executor_seconds(
        LocalExecutor(WORKERS), some, root / "real-pool"), tasks)
    with cluster() as fresh:
        address = fresh.scheduler_address
        executor_seconds(DaskExecutor(address), tasks[:10], root / "real-warm")
        dask_ms = slope_ms(lambda some: executor_seconds(
            DaskExecutor(address), some, root / "real-dask"), tasks)

    for kind, runs in (("pool", pool), ("Dask", [probed for probed, _, _ in dask])):
        small, large = runs
        where = (f"{WORKERS} workers" if kind == "pool" else
                 f"LocalCluster of {WORKERS} worker processes, in_flight {BIG_IN_FLIGHT}")
        print(f"organizer at scale, {kind} ({where}; {grid}; synthetic games): "
              f"{small.games:,} games: {small.play_peak / 1024:.0f} MiB peak while playing "
              f"({small.planned_peak / 1024:.0f} once planned, {small.exit_peak / 1024:.0f} at "
              f"exit with the leaderboard), first result stored {small.first:.1f}s after "
              f"start; {large.games:,} games: {large.play_peak / 1024:.0f} MiB "
              f"({large.planned_peak / 1024:.0f}, {large.exit_peak / 1024:.0f}), first "
              f"{large.first:.1f}s. Growth while playing: "
              f"{(large.play_peak - small.play_peak) / 1024:.0f} MiB for "
              f"{large.games - small.games:,} more games (target: flat, within "
              f"{FLAT_MIB} MiB: {verdict(large.play_peak - small.play_peak <= FLAT_MIB * 1024)})")

    print(f"Dask overhead per game: {dask_ms:.1f} ms on Dask, {pool_ms:.1f} ms on the pool, "
          f"{dask_ms - pool_ms:+.1f} ms (short real games, GreedyAgent on testClassic, "
          f"{WORKERS} workers each, slope between {len(tasks) // 3} and {len(tasks)} games; "
          f"target within 10 ms: {verdict(dask_ms - pool_ms <= 10)})")

    probed, scheduler_cpu, workers_cpu = dask[1]
    per_game = 1000 / probed.games
    print(f"Dask throughput: {probed.play_rate:.0f} games/s stored ({probed.games:,} synthetic "
          f"games, in_flight {BIG_IN_FLIGHT}), {default.play_rate:.0f} games/s at the default "
          f"in_flight (2 x {WORKERS} threads; target >= 1000: "
          f"{verdict(probed.play_rate >= 1000)}). CPU per game: organizer "
          f"{probed.organizer_cpu / probed.play_rate * 1000:.2f} ms, scheduler (and nannies) "
          f"{scheduler_cpu * per_game:.2f} ms, workers {workers_cpu * per_game:.2f} ms, on "
          f"{os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="fewer games (CI)")
    parser.add_argument("--only", choices=["costs", "scale"], help="one part of the figures")
    parser.add_argument("--profile", metavar="FILE", default="",
                        help="cProfile the organizer's loop of the largest Dask run into FILE "
                        "(read it with `python -m pstats FILE`)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.only != "scale":
            costs(Path(tmp), args.short)
        if args.only != "costs":
            scale(Path(tmp), args.short, str(Path(args.profile).resolve()) if args.profile
                  else "")


def costs(root: Path, short: bool) -> None:
    """Figures 1-3."""
    games = 10 if short else 40
    config = write_config(root / "overhead", games, 1, True, "GreedyAgent")
    total, _ = run(config)
    direct = direct_play_seconds(config)
    n = 2 * games
    print(f"platform overhead: {(total - direct) / n * 1000:.1f} ms per game "
          f"({n} games: {total:.2f}s through `tournament run` on 1 worker, "
          f"{direct:.2f}s played directly; target <= 50 ms)")

    # Depth 3: games long enough that the pools' start-up (a fixed cost) is not what is
    # measured; CI's short pass keeps depth 2.
    depth = 2 if short else 3
    times = []
    for workers in (1, 2):
        cpu_bound = write_config(root / f"scale{workers}", games, workers, False,
                                 "ExpectimaxAgent", depth)
        times.append(run(cpu_bound)[0])
    print(f"scaling: {times[0]:.2f}s on 1 worker, {times[1]:.2f}s on 2: "
          f"{times[0] / times[1]:.2f}x (target >= 1.8x; {games} expectimax games at "
          f"depth {depth})")

    peaks = []
    for size in (games, 4 * games):
        peaks.append(run(write_config(root / f"memory{size}", size, 2, False,
                                      "GreedyAgent"))[1])
    print(f"organizer peak memory: {peaks[0] / 1024:.0f} MiB for {games} games, "
          f"{peaks[1] / 1024:.0f} MiB for {4 * games} (target: flat)")


if __name__ == "__main__":
    main()
