"""Strength and speed of the baseline agents (figures printed, never asserted).

Each protocol is a batch of games with per-game seeds (derived from the protocol's name, so
every run plays the same games), and reports wins, mean score, mean score over won games and
the mean decision time of Pacman. The targets are issue 3's, raised by issue 16 for the CS221,
CS188 and anytime protocols once the weights were tuned; the README's table of baselines holds
the figures measured with this script (the first line says which build played).

The ghost section (`--only ghosts`, issue 13) turns it round: one Pacman
(`ExpectimaxAgent evalFn=better depth=2`, smallClassic, 2 ghosts) against each built-in ghost
team, with the ghosts' decision time (mean and longest per ghost move) and the number of
distinct games (a deterministic Pacman against ghosts that rarely draw plays few different
games, whatever the seeds). The ghost protocols share their seeds, so every team meets the same
games.

Run: `python benchmarks/strength.py` (all protocols, full size), `--only cs221,cs188`,
`--games 100` to override the number of games, `--args K=V,...` to try other agent options
(`--only anytime --args timeLimit=0.2,mode=directional`), `--ghost-args K=V,...` the same
for the ghosts (`--only ghosts-anytime --ghost-args budget=0.1`), `--seeds LABEL` to play
other seeds than the protocols' own (a check that a figure holds on fresh games),
`--verbose` for a line per game, `--workers 2` to play games in parallel
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

from pacman import compiled
from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import parse_agent_args, resolve
from pacman.seeds import derive_seed
from tournament.config import DEFAULT_MAX_MOVES


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
    ghost_args: str = ""
    short_ghost_args: str | None = None
    #: Whose decision time is reported: "pacman", or "ghosts" (the ghost section).
    timed: str = "pacman"
    #: Moves of all agents after which a game ends (`move_limit`, not a win): deterministic
    #: ghosts and a deterministic Pacman can go round in circles for ever.
    max_moves: int | None = None
    #: Games per batch, for a target stated per batch (the course's autograder plays 10): the
    #: report then gives each batch's wins and mean, and the worst batch.
    batch: int | None = None

    @property
    def seed_label(self) -> str:
        """What the games' seeds derive from: protocols of one family play the same games."""
        return self.name.split("-")[0]

    def command(self, games: int, args: str, ghost_args: str) -> str:
        ghost = f"-g {self.ghost}" + (f" --ghostArgs {ghost_args}" if ghost_args else "")
        return (
            f"pacman -l {self.layout} -p {self.pacman} -a {args} {ghost} "
            f"-k {self.num_ghosts} --rules {self.rules}"
            + (f" --max-moves {self.max_moves}" if self.max_moves else "")
            + f" -q -n {games}"
        )


PROTOCOLS = (
    Protocol("cs221", "smallClassic", "ExpectimaxAgent", "evalFn=better,depth=2",
             "RandomGhost", 2, 100, "cs221",
             ">= 95% wins, mean over wins >= 1700, over 100 games on any seeds"),
    Protocol("cs188", "smallClassic", "ExpectimaxAgent", "evalFn=better,depth=2",
             "RandomGhost", 1, 100, "classic",
             "10/10 wins and mean >= 1300 in every batch of 10", batch=10),
    Protocol("medium", "mediumClassic", "ExpectimaxAgent", "evalFn=better,depth=2",
             "RandomGhost", 2, 20, "classic", ">= 90% wins"),
    Protocol("anytime", "contestClassic", "AnytimeAgent",
             "timeLimit=1,mode=directional,evalFn=contest",
             "DirectionalGhost", 3, 20, "classic", "mean >= 2900, and above 3275 (issue 16)",
             short_args="timeLimit=0.02,mode=directional,evalFn=contest"),
    Protocol("mcts", "smallClassic", "MCTSAgent", "timeLimit=0.2",
             "RandomGhost", 2, 20, "classic", "(no target: for comparison)",
             short_args="timeLimit=0.02"),
    *(
        Protocol(f"ghosts-{name}", "smallClassic", "ExpectimaxAgent", "evalFn=better,depth=2",
                 ghost, 2, 20, "classic", target, ghost_args=ghost_args,
                 short_ghost_args=short, timed="ghosts", max_moves=DEFAULT_MAX_MOVES)
        for name, ghost, ghost_args, short, target in (
            ("random", "RandomGhost", "", None, "(reference: Pacman wins about 95%)"),
            ("directional", "DirectionalGhost", "", None, "(reference)"),
            ("alphabeta", "AlphaBetaGhost", "depth=2", None, "(comparison)"),
            ("alphabeta3", "AlphaBetaGhost", "depth=3", None, "(comparison)"),
            ("anytime", "AnytimeGhost", "budget=0.2", "budget=0.05",
             "Pacman under 50% wins (the strongest built-in ghost team)"),
        )
    ),
)

#: Names `--only` accepts for several protocols at once.
GROUPS = {"ghosts": tuple(p.name for p in PROTOCOLS if p.timed == "ghosts")}


@dataclass(frozen=True)
class GameFigures:
    outcome: str
    score: int
    win: bool
    moves: int
    think: float
    decisions: int
    think_max: float


@dataclass(frozen=True)
class Setup:
    """What one run of a protocol plays: the agents' options and the seeds' label."""

    args: str
    ghost_args: str
    seeds: str


def play_one(protocol: Protocol, setup: Setup, index: int) -> GameFigures:
    spec = GameSpec(
        layout=load_layout(protocol.layout),
        pacman=resolve(protocol.pacman, parse_agent_args(setup.args)),
        ghost=resolve(protocol.ghost, parse_agent_args(setup.ghost_args), kind="ghost"),
        num_ghosts=protocol.num_ghosts,
        seed=derive_seed(0, setup.seeds, index),
        ruleset=protocol.rules,
        max_moves=protocol.max_moves,
    )
    result = play(spec, catch=True)
    timed = result.timing[:1] if protocol.timed == "pacman" else result.timing[1:]
    return GameFigures(
        result.outcome, result.score, result.win, result.moves,
        sum(t.wall for t in timed), sum(t.moves for t in timed),
        max(t.wall_max for t in timed),
    )


def run(protocol: Protocol, games: int, setup: Setup, workers: int) -> Iterator[GameFigures]:
    if workers <= 1:
        for i in range(games):
            yield play_one(protocol, setup, i)
        return
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(play_one, [protocol] * games, [setup] * games, range(games))


def batch_figures(games: list[GameFigures], size: int) -> list[tuple[int, float]]:
    """Wins and mean score of each whole batch of `size` games, in the order played (a target
    stated per batch, as the course's autograder plays 10, holds only if every batch meets it;
    an incomplete last batch is left out)."""
    whole = len(games) - len(games) % size
    return [(sum(g.win for g in games[i:i + size]),
             statistics.fmean(g.score for g in games[i:i + size]))
            for i in range(0, whole, size)]


def report(protocol: Protocol, games: list[GameFigures], seconds: float, setup: Setup) -> None:
    wins = [g for g in games if g.win]
    failures = [g.outcome for g in games if g.outcome not in ("win", "loss")]
    decisions = sum(g.decisions for g in games)
    think_ms = 1000 * sum(g.think for g in games) / decisions if decisions else 0.0
    mean = statistics.fmean(g.score for g in games) if games else 0.0
    over_wins = statistics.fmean(g.score for g in wins) if wins else float("nan")
    print(f"## {protocol.name}: {protocol.command(len(games), setup.args, setup.ghost_args)}"
          + (f"  (seeds {setup.seeds!r})" if setup.seeds != protocol.seed_label else ""))
    print(f"   games {len(games)}  wins {len(wins)} ({100 * len(wins) / max(1, len(games)):.0f}%)"
          f"  mean score {mean:.1f}  mean over wins {over_wins:.1f}")
    longest = 1000 * max((g.think_max for g in games), default=0.0)
    distinct = len({(g.outcome, g.score, g.moves) for g in games})
    print(f"   {'ghosts' if protocol.timed == 'ghosts' else 'Pacman'}: mean decision"
          f" {think_ms:.2f} ms (longest {longest:.1f} ms) over {decisions} decisions"
          f"  distinct games {distinct}"
          f"  mean moves {statistics.fmean(g.moves for g in games):.0f}"
          f"  wall {seconds:.1f} s" + (f"  other outcomes {failures}" if failures else ""))
    batches = batch_figures(games, protocol.batch) if protocol.batch else []
    if len(batches) >= 2:
        wins_of = [w for w, _ in batches]
        means = [m for _, m in batches]
        print(f"   {len(batches)} batches of {protocol.batch}: wins {wins_of}, means "
              f"{[round(m) for m in means]}; worst batch: {min(wins_of)}/{protocol.batch} "
              f"wins, mean {min(means):.0f}")
    print(f"   target: {protocol.target}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--short", action="store_true", help="a quick smoke pass (CI)")
    parser.add_argument("--only", help="comma-separated protocol names")
    parser.add_argument("--games", type=int, help="games per protocol (default: its own)")
    parser.add_argument("--workers", type=int, default=1, help="games played in parallel")
    parser.add_argument("--args", help="the agent's -a options instead of the protocol's")
    parser.add_argument("--ghost-args", help="the ghosts' options instead of the protocol's")
    parser.add_argument("--seeds", help="a label to derive other seeds from (fresh games)")
    parser.add_argument("--verbose", action="store_true", help="a line per game as it ends")
    options = parser.parse_args(argv)
    chosen = list(PROTOCOLS)
    if options.only:
        names = [m for n in options.only.split(",") for m in GROUPS.get(n, (n,))]
        unknown = [n for n in names if n not in {p.name for p in PROTOCOLS}]
        if unknown:
            parser.error(f"--only: unknown protocol {unknown[0]!r}; expected "
                         f"{', '.join([*(p.name for p in PROTOCOLS), *GROUPS])}")
        chosen = [p for p in PROTOCOLS if p.name in names]
    for flag, given in (("--args", options.args), ("--ghost-args", options.ghost_args)):
        if given is not None and len(chosen) != 1:
            parser.error(f"{flag}: name exactly one protocol with --only (each has its own "
                         "agents)")
    print(f"# strength of the baselines ({os.cpu_count()} cores, "
          f"{'short' if options.short else 'full'} pass; build: {compiled.build_name()})")
    for protocol in chosen:
        games = options.games or (protocol.short_games if options.short else protocol.games)
        if games <= 0:
            continue
        args = protocol.short_args if options.short and protocol.short_args else protocol.args
        ghost_args = (protocol.short_ghost_args if options.short and protocol.short_ghost_args
                      else protocol.ghost_args)
        setup = Setup(
            args=options.args or args,
            ghost_args=ghost_args if options.ghost_args is None else options.ghost_args,
            seeds=options.seeds or protocol.seed_label,
        )
        t0 = time.perf_counter()
        figures = []
        for i, game in enumerate(run(protocol, games, setup, options.workers)):
            figures.append(game)
            if options.verbose:
                print(f"   game {i}: {game.outcome} {game.score} in {game.moves} moves",
                      flush=True)
        report(protocol, figures, time.perf_counter() - t0, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
