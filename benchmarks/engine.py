"""Engine speed and memory figures (printed, never asserted; see the README for the numbers).

1. Successor states per second inside a depth-3 alpha-beta search with the score as the
   evaluation, on smallClassic (the reference engine: about 30,000/s on this machine class).
2. Moves per second of random play (RandomAgent against RandomGhosts) on mediumClassic through
   the full game runner, agents' decisions included (the reference: about 8,300/s).
3. Games per second of the CS221 protocol, the game a tuning run plays: `pacman -l smallClassic
   -p ExpectimaxAgent -a evalFn=better -k 2 --rules cs221 -q`, in-process through the game
   runner, on fixed seeds (the same games every run).
4. Traced memory of batches of 20, 200 and 2,000 games: what is retained after the batch must
   stay flat (nothing grows with the number of games); the peak is shown too.

The first line says which build ran: the Python sources, or the compiled build (`make
build-fast`, `pacman.fastbuild`); `PACMAN_ARENA_PURE=1` measures the sources beside a build.

Run: `python benchmarks/engine.py` (or `--short` for CI's quick pass, `--only cs221` for 3).
"""

from __future__ import annotations

import argparse
import gc
import random
import time
import tracemalloc

from pacman import compiled
from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import parse_agent_args, resolve
from pacman.seeds import derive_seed
from pacman.state import GameState


class Counter:
    def __init__(self) -> None:
        self.successors = 0


def alphabeta(
    state: GameState, depth: int, agent: int, alpha: float, beta: float, c: Counter
) -> float:
    """Textbook alpha-beta, depth in full rounds, children in legal-action order."""
    if depth == 0 or state.isWin() or state.isLose():
        return state.getScore()
    n = state.getNumAgents()
    nxt = agent + 1 if agent + 1 < n else 0
    nd = depth - 1 if nxt == 0 else depth
    if agent == 0:
        v = float("-inf")
        for a in state.getLegalActions(0):
            c.successors += 1
            v = max(v, alphabeta(state.generateSuccessor(0, a), nd, nxt, alpha, beta, c))
            if v > beta:
                return v
            alpha = max(alpha, v)
        return v
    v = float("inf")
    for a in state.getLegalActions(agent):
        c.successors += 1
        v = min(v, alphabeta(state.generateSuccessor(agent, a), nd, nxt, alpha, beta, c))
        if v < alpha:
            return v
        beta = min(beta, v)
    return v


def bench_search(decisions: int) -> tuple[int, float]:
    """Depth-3 alpha-beta decisions along a random game on smallClassic."""
    layout = load_layout("smallClassic")
    start = GameState.initial(layout)
    rng = random.Random(1)
    counter = Counter()
    state = start
    t0 = time.perf_counter()
    for _ in range(decisions):
        alphabeta(state, 3, 0, float("-inf"), float("inf"), counter)
        for i in range(state.getNumAgents()):
            if state.isTerminal():
                break
            state = state.generateSuccessor(i, rng.choice(state.getLegalActions(i)))
        if state.isTerminal():
            state = start
    return counter.successors, time.perf_counter() - t0


def batch(games: int, layout_name: str = "mediumClassic") -> tuple[int, float]:
    layout = load_layout(layout_name)
    pacman = resolve("RandomAgent")
    ghost = resolve("RandomGhost", kind="ghost")
    moves = 0
    t0 = time.perf_counter()
    for i in range(games):
        spec = GameSpec(layout, pacman, ghost, seed=derive_seed(7, i), max_moves=3000)
        moves += play(spec).moves
    return moves, time.perf_counter() - t0


#: The CS221 protocol of the strength benchmark (`benchmarks/strength.py --only cs221`).
CS221 = ("smallClassic", "ExpectimaxAgent", "evalFn=better,depth=2", 2, "cs221")


def cs221_games(games: int) -> tuple[int, float]:
    """(games, seconds) of the CS221 protocol on fixed seeds, in-process."""
    name, agent, args, ghosts, rules = CS221
    layout = load_layout(name)
    pacman = resolve(agent, parse_agent_args(args))
    ghost = resolve("RandomGhost", kind="ghost")
    t0 = time.perf_counter()
    for i in range(games):
        play(GameSpec(layout, pacman, ghost, ghosts, derive_seed(221, i), rules))
    return games, time.perf_counter() - t0


def memory(games: int) -> tuple[int, int]:
    """(retained after the batch, peak during it) in bytes of traced allocations.

    Retained memory is what a leak would grow; the peak also holds the longest game's move
    list, which grows a little with the number of games (a longer game turns up).
    """
    gc.collect()
    tracemalloc.start()
    batch(games, "smallClassic")
    gc.collect()
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return retained, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a quick pass for CI")
    parser.add_argument("--only", choices=("search", "random", "cs221", "memory"),
                        help="one figure only")
    args = parser.parse_args()
    decisions, games, repeats = (10, 20, 1) if args.short else (400, 1000, 5)
    cs221, cs221_repeats = (4, 1) if args.short else (40, 5)
    mem_games = (5, 50) if args.short else (20, 200, 2000)
    print("build: " + compiled.build_name())

    # Best of several runs: interference from other processes only ever slows a run down.
    if args.only in (None, "search"):
        best = max(
            (bench_search(decisions) for _ in range(repeats)), key=lambda r: r[0] / r[1]
        )
        print(f"alpha-beta depth 3, smallClassic: {best[0]} successors in {best[1]:.2f} s "
              f"= {best[0] / best[1]:,.0f} successors/s, best of {repeats} "
              "(target 300,000; reference ~30,000)")
    if args.only in (None, "random"):
        best = max((batch(games) for _ in range(repeats)), key=lambda r: r[0] / r[1])
        print(f"random play, mediumClassic, {games} games through play(): {best[0]} moves in "
              f"{best[1]:.2f} s = {best[0] / best[1]:,.0f} moves/s, best of {repeats} "
              "(target 100,000; reference ~8,300)")
    if args.only in (None, "cs221"):
        best = max((cs221_games(cs221) for _ in range(cs221_repeats)),
                   key=lambda r: r[0] / r[1])
        print(f"CS221 protocol (pacman -l smallClassic -p ExpectimaxAgent -a evalFn=better "
              f"-k 2 --rules cs221 -q), {best[0]} games in-process: {best[1]:.2f} s = "
              f"{best[0] / best[1]:.1f} games/s, best of {cs221_repeats}")
    if args.only in (None, "memory"):
        for n in mem_games:
            retained, peak = memory(n)
            print(f"memory, {n} games on smallClassic: {retained / 1e3:.0f} kB retained after "
                  f"the batch, {peak / 1e3:.0f} kB peak")


if __name__ == "__main__":
    main()
