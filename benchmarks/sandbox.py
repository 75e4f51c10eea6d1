"""Sandbox costs (printed, never asserted; see the README for the numbers).

1. Start: from asking for a sandbox to the child confined and ready (no team code yet), and
   to the agent imported and built (a one-file agent). Target: at most 100 ms. Then the same
   for a course-sized folder (the mounts layer copies a team's files into its view: 200
   files, 2 MiB).
2. Round trip per move: the referee encodes the state, wakes the stopped child (SIGCONT),
   sends the request, the child rebuilds the state and asks a trivial agent, answers, and is
   stopped again (SIGSTOP). Median over many moves on mediumClassic. Target: at most 150 us.
3. A whole game: a trivial agent on mediumClassic, sandboxed and in-process, per move.

Run: `python benchmarks/sandbox.py` (or `--short` for CI's quick pass).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.limits import Limits
from pacman.loader import AgentRef, resolve
from pacman.sandbox.process import SandboxedHandle
from pacman.state import GameState

TRIVIAL = '''
class FirstLegal:
    """Answers at once: what is measured is the sandbox, not the agent."""

    def getAction(self, state):
        return state.getLegalActions(0)[0]
'''


def bench_start(folder: Path, runs: int) -> tuple[list[float], list[float]]:
    ref = AgentRef("FirstLegal", module="", path=str(folder / "agent.py"))
    layout = load_layout("mediumClassic")
    ready, loaded = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        agent = SandboxedHandle.launch(ref, 0, layout, 2, "classic", 0, Limits())
        loaded.append(time.perf_counter() - t0)
        ready.append(agent.process.started_at - t0)
        agent.close()
    return ready, loaded


def bench_round_trip(folder: Path, moves: int) -> list[float]:
    ref = AgentRef("FirstLegal", module="", path=str(folder / "agent.py"))
    layout = load_layout("mediumClassic")
    agent = SandboxedHandle.launch(ref, 0, layout, 2, "classic", 0, Limits())
    state = GameState.initial(layout, 2)
    times = []
    try:
        for _ in range(moves):
            t0 = time.perf_counter()
            agent.act(0, state, 0)
            times.append(time.perf_counter() - t0)
    finally:
        agent.close()
    return times


def bench_game(folder: Path, games: int) -> tuple[float, float]:
    """Seconds per move of whole games, sandboxed and in-process."""
    per_move = []
    for sandbox in (True, False):
        spec = GameSpec(load_layout("mediumClassic"), resolve(f"{folder}/agent.py:FirstLegal"),
                        resolve("RandomGhost", kind="ghost"), seed=1, max_moves=600,
                        sandbox=sandbox)
        t0 = time.perf_counter()
        moves = 0
        for i in range(games):
            result = play(GameSpec(**{**spec.__dict__, "seed": i}))
            moves += result.moves
        per_move.append((time.perf_counter() - t0) / moves)
    return per_move[0], per_move[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="fewer runs (CI)")
    args = parser.parse_args()
    starts, moves, games = (5, 2000, 2) if args.short else (30, 20000, 10)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "agent.py").write_text(TRIVIAL)
        ready, loaded = bench_start(folder, starts)
        print(f"sandbox start, confined and ready: median {statistics.median(ready) * 1000:.1f} ms"
              f" (max {max(ready) * 1000:.1f} ms, {starts} starts)")
        print(f"sandbox start, agent imported and built: median "
              f"{statistics.median(loaded) * 1000:.1f} ms (target <= 100 ms)")
        course = folder / "course"
        (course / "layouts").mkdir(parents=True)
        (course / "agent.py").write_text(TRIVIAL)
        for i in range(199):
            (course / "layouts" / f"layout{i}.lay").write_bytes(b"%" * 10240)
        _, loaded = bench_start(course, starts)
        print(f"sandbox start, a folder of 200 files (2 MiB): agent imported and built in "
              f"{statistics.median(loaded) * 1000:.1f} ms median")
        trips = bench_round_trip(folder, moves)
        trips.sort()
        print(f"round trip per move: median {statistics.median(trips) * 1e6:.0f} us, "
              f"p90 {trips[int(0.9 * len(trips))] * 1e6:.0f} us over {moves} moves "
              f"(target <= 150 us)")
        sandboxed, in_process = bench_game(folder, games)
        print(f"whole games (mediumClassic, 2 RandomGhosts): {sandboxed * 1e6:.0f} us per move "
              f"sandboxed, {in_process * 1e6:.0f} us in-process")


if __name__ == "__main__":
    main()
