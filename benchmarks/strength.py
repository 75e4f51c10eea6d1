"""Strength and speed of the baseline agents (figures printed, never asserted).

Each protocol is a batch of games with per-game seeds (derived from the protocol's name, so
every run plays the same games), and reports wins, mean score, mean score over won games and
the mean decision time of Pacman. The targets are issue 3's; the README's table of baselines
holds the figures measured with this script.

Run: `python benchmarks/strength.py` (all protocols, full size), `--only cs221,cs188`,
`--games 100` to override the number of games, `--args K=V,...` to try other agent options
(`--only anytime --args timeLimit=0.2,mode=directional`), `--verbose` for a line per
game, `--workers 2` to play games in parallel
(decision times then include the other worker's load), or `--short` for CI's quick pass
(a few games each, short time budgets: a smoke test, not the figures).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import parse_agent_args, resolve
from pacman.seeds import derive_seed


@dataclass(frozen=True)
class Protocol:
    name: str
    layout: str
    pacman: str
    args: str
    ghost: str
    num_ghosts: int
    games: int
    rules: str
    target: str
    # For --short: fewer games, and args that make time-bounded agents quick.
    short_games: int = 2
    short_args: str | None = None

    def command(self, games: int) -> str:
        return (
            f"pacman -l {self.layout} -p {self.pacman} -a {self.args} -g {self.ghost} "
            f"-k {self.num_ghosts} --rules {self.rules} -q -n {games}"
        )


PROTOCOLS = (
    Protocol("cs221", "smallClassic", "ExpectimaxAgent", "evalFn=better,depth=2",
             "RandomGhost", 2, 20, "cs221",
             ">= 95% wins, mean over wins >= 1500 (aim 1700)"),
    Protocol("cs221-100", "smallClassic", "ExpectimaxAgent", "evalFn=better,depth=2",
             "RandomGhost", 2, 100, "cs221", "the same, 100 games", short_games=0),
    Protocol("cs188", "smallClassic", "ExpectimaxAgent", "evalFn=better,depth=2",
             "RandomGhost", 1, 10, "classic", "10/10 wins, mean >= 1300"),
    Protocol("medium", "mediumClassic", "ExpectimaxAgent", "evalFn=better,depth=2",
             "RandomGhost", 2, 20, "classic", ">= 90% wins"),
    Protocol("anytime", "contestClassic", "AnytimeAgent",
             "timeLimit=1,mode=directional,evalFn=contest",
             "DirectionalGhost", 3, 20, "classic", "mean >= 2900",
             short_args="timeLimit=0.02,mode=directional,evalFn=contest"),
    Protocol("mcts", "smallClassic", "MCTSAgent", "timeLimit=0.2",
             "RandomGhost", 2, 20, "classic", "(no target: for comparison)",
             short_args="timeLimit=0.02"),
)


@dataclass(frozen=True)
class GameFigures:
    outcome: str
    score: int
    win: bool
    moves: int
    think: float
    decisions: int
    think_max: float


def play_one(protocol: Protocol, args: str, index: int) -> GameFigures:
    spec = GameSpec(
        layout=load_layout(protocol.layout),
        pacman=resolve(protocol.pacman, parse_agent_args(args)),
        ghost=resolve(protocol.ghost, kind="ghost"),
        num_ghosts=protocol.num_ghosts,
        seed=derive_seed(0, protocol.name.split("-")[0], index),
        ruleset=protocol.rules,
    )
    result = play(spec, catch=True)
    timing = result.timing[0]
    return GameFigures(
        result.outcome, result.score, result.win, result.moves, timing.wall, timing.moves,
        timing.wall_max,
    )


def run(protocol: Protocol, games: int, args: str, workers: int) -> Iterator[GameFigures]:
    if workers <= 1:
        for i in range(games):
            yield play_one(protocol, args, i)
        return
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(play_one, [protocol] * games, [args] * games, range(games))


def report(protocol: Protocol, games: list[GameFigures], seconds: float, args: str) -> None:
    wins = [g for g in games if g.win]
    failures = [g.outcome for g in games if g.outcome not in ("win", "loss")]
    decisions = sum(g.decisions for g in games)
    think_ms = 1000 * sum(g.think for g in games) / decisions if decisions else 0.0
    mean = statistics.fmean(g.score for g in games) if games else 0.0
    over_wins = statistics.fmean(g.score for g in wins) if wins else float("nan")
    print(f"## {protocol.name}: {protocol.command(len(games)).replace(protocol.args, args)}")
    print(f"   games {len(games)}  wins {len(wins)} ({100 * len(wins) / max(1, len(games)):.0f}%)"
          f"  mean score {mean:.1f}  mean over wins {over_wins:.1f}")
    longest = 1000 * max((g.think_max for g in games), default=0.0)
    print(f"   mean decision {think_ms:.2f} ms (longest {longest:.1f} ms)"
          f" over {decisions} decisions"
          f"  mean moves {statistics.fmean(g.moves for g in games):.0f}"
          f"  wall {seconds:.1f} s" + (f"  failures {failures}" if failures else ""))
    print(f"   target: {protocol.target}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--short", action="store_true", help="a quick smoke pass (CI)")
    parser.add_argument("--only", help="comma-separated protocol names")
    parser.add_argument("--games", type=int, help="games per protocol (default: its own)")
    parser.add_argument("--workers", type=int, default=1, help="games played in parallel")
    parser.add_argument("--args", help="the agent's -a options instead of the protocol's")
    parser.add_argument("--verbose", action="store_true", help="a line per game as it ends")
    options = parser.parse_args(argv)
    chosen = list(PROTOCOLS)
    if options.only:
        names = options.only.split(",")
        unknown = [n for n in names if n not in {p.name for p in PROTOCOLS}]
        if unknown:
            parser.error(f"--only: unknown protocol {unknown[0]!r}; "
                         f"expected {', '.join(p.name for p in PROTOCOLS)}")
        chosen = [p for p in PROTOCOLS if p.name in names]
    if options.args and len(chosen) != 1:
        parser.error("--args: name exactly one protocol with --only (each has its own agent)")
    print(f"# strength of the baselines ({os.cpu_count()} cores, "
          f"{'short' if options.short else 'full'} pass)")
    for protocol in chosen:
        games = options.games or (protocol.short_games if options.short else protocol.games)
        if games <= 0:
            continue
        args = protocol.short_args if options.short and protocol.short_args else protocol.args
        args = options.args or args
        t0 = time.perf_counter()
        figures = []
        for i, game in enumerate(run(protocol, games, args, options.workers)):
            figures.append(game)
            if options.verbose:
                print(f"   game {i}: {game.outcome} {game.score} in {game.moves} moves",
                      flush=True)
        report(protocol, figures, time.perf_counter() - t0, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
