"""Tournament costs (printed, never asserted; see the README for the numbers).

1. Platform overhead per game: the wall time of `tournament run` on one worker, minus the
   time the same games take played directly in-process with `pacman.game.play` (so sandbox
   start and round trips, scheduling, the pool and storing all count as overhead).
   Target: at most 50 ms per game.
2. Scaling: the same CPU-bound tournament (built-in expectimax at depth 3) on one worker and on
   two. Target: two at least 1.8x faster (on a machine with two free cores).
3. Memory: the organizer's peak resident memory for a tournament of N and of 4N games.
   Target: flat.

Run: `python benchmarks/tournament_costs.py` (or `--short` for CI's quick pass).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from pacman.game import GameSpec, play
from pacman.layout import parse_layout
from tournament.config import load_config
from tournament.runner import tasks_for
from tournament.schedule import schedule

REPO = Path(__file__).resolve().parent.parent
PEAK = ("import resource, runpy, sys, atexit; "
        "atexit.register(lambda: print('PEAK_KB', "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)); "
        "sys.argv = ['tournament'] + sys.argv[1:]; runpy.run_module('tournament', "
        "run_name='__main__')")


def write_config(root: Path, games: int, workers: int, team: bool, baseline: str,
                 depth: int = 2) -> Path:
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
          layouts: [smallClassic]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="fewer games (CI)")
    args = parser.parse_args()
    games = 10 if args.short else 40
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = write_config(root / "overhead", games, 1, True, "GreedyAgent")
        total, _ = run(config)
        direct = direct_play_seconds(config)
        n = 2 * games
        print(f"platform overhead: {(total - direct) / n * 1000:.1f} ms per game "
              f"({n} games: {total:.2f}s through `tournament run` on 1 worker, "
              f"{direct:.2f}s played directly; target <= 50 ms)")

        # Depth 3: games long enough that the pools' start-up (a fixed cost) is not what is
        # measured; CI's short pass keeps depth 2.
        depth = 2 if args.short else 3
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
