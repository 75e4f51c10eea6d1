"""Engine speed and memory figures (printed, never asserted; see the README for the numbers).

1. Successor states per second inside a depth-3 alpha-beta search with the score as the
   evaluation, on smallClassic (the reference engine: about 30,000/s on this machine class).
2. Moves per second of random play (RandomAgent against RandomGhosts) on mediumClassic through
   the full game runner, agents' decisions included (the reference: about 8,300/s).
3. Peak traced memory of a batch of games against a batch ten times longer: flat when nothing
   grows with the number of games.

Run: `python benchmarks/engine.py` (or `--short` for CI's quick pass).
"""

from __future__ import annotations

import argparse
import gc
import random
import time
import tracemalloc

from pacman.game import GameSpec, derive_seed, play
from pacman.layout import load_layout
from pacman.loader import resolve
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


def peak_memory(games: int) -> int:
    gc.collect()
    tracemalloc.start()
    batch(games, "smallClassic")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a quick pass for CI")
    args = parser.parse_args()
    decisions, games, mem_games = (10, 20, 5) if args.short else (400, 1000, 20)

    successors, secs = bench_search(decisions)
    print(f"alpha-beta depth 3, smallClassic: {successors} successors in {secs:.2f} s "
          f"= {successors / secs:,.0f} successors/s (target 300,000; reference ~30,000)")
    moves, secs = batch(games)
    print(f"random play, mediumClassic, {games} games through play(): {moves} moves in "
          f"{secs:.2f} s = {moves / secs:,.0f} moves/s (target 100,000; reference ~8,300)")
    small, large = peak_memory(mem_games), peak_memory(mem_games * 10)
    print(f"peak traced memory: {small / 1e6:.2f} MB for {mem_games} games, "
          f"{large / 1e6:.2f} MB for {mem_games * 10} games (flat when nothing leaks)")


if __name__ == "__main__":
    main()
