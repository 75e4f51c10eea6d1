"""The `tournament` command: validate, run, status, leaderboard, report.

Every subcommand takes the config file. A bad config exits 2 with every problem listed and
nothing run or written. `run` stores each game as it finishes and, run again, plays only what
is missing, stale (a submission changed) or failed in the platform; Ctrl-C stops it cleanly
with everything finished so far kept.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from pacman import __version__
from pacman.game import INFRA_ERROR
from tournament.config import ConfigError, TournamentConfig, describe_config, load_config
from tournament.leaderboard import FAILURE_KINDS, leaderboard
from tournament.schedule import ScheduledGame, schedule
from tournament.store import Store, StoreError

console = Console(highlight=False, soft_wrap=True)
if not console.is_terminal:
    console.width = 120  # logs and pipes: wide enough for the leaderboard on one line per row


def die(message: str, status: int = 2) -> NoReturn:
    click.echo(f"tournament: error: {message}", err=True)
    sys.exit(status)


def load(path: Path) -> TournamentConfig:
    try:
        return load_config(path)
    except ConfigError as exc:
        die(f"the config has problems:\n{exc}")


def open_store(config: TournamentConfig) -> Store:
    try:
        return Store(config.output / "results.sqlite")
    except (StoreError, OSError) as exc:
        die(str(exc))


config_argument = click.argument("config_path", metavar="CONFIG",
                                 type=click.Path(path_type=Path, dir_okay=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tournament")
def main() -> None:
    """Run Pacman tournaments: every entrant on the same games, results kept as they finish."""


# --- plan: what is done, missing, stale ---------------------------------------------------------

def plan(config: TournamentConfig, store: Store) -> dict[str, list[ScheduledGame]]:
    """The schedule split by what the store holds: done, missing, stale, infra (to replay)."""
    from tournament.runner import submission_hash

    hashes = {e.name: submission_hash(e) for e in config.entrants}
    stored = store.hashes()
    split: dict[str, list[ScheduledGame]] = {"done": [], "missing": [], "stale": [],
                                             "infra": []}
    for game in schedule(config):
        found = stored.get(game.game_id)
        if found is None:
            split["missing"].append(game)
        elif found[0] != hashes[game.entrant]:
            split["stale"].append(game)
        elif found[1] == INFRA_ERROR:
            split["infra"].append(game)
        else:
            split["done"].append(game)
    return split


def current_results(config: TournamentConfig, store: Store) -> Any:
    """Stored rows of the games the config schedules now, with the current submissions."""
    split = plan(config, store)
    return store.frame(g.game_id for g in split["done"] + split["infra"])


# --- run ---------------------------------------------------------------------------------------

@main.command()
@config_argument
@click.option("--workers", type=int, default=None, help="Override the config's workers.")
def run(config_path: Path, workers: int | None) -> None:
    """Play every game not yet stored (all of them the first time), then print the ranking
    and write it (leaderboard.csv, .md, .json and games.csv in the output folder)."""
    from tournament.executors import DaskExecutor, Executor, LocalExecutor
    from tournament.runner import submission_hash, tasks_for

    config = load(config_path)
    if workers is not None and workers < 1:
        die("--workers: expected at least 1")
    store = open_store(config)
    split = plan(config, store)
    todo = split["missing"] + split["stale"] + split["infra"]
    total = sum(len(v) for v in split.values())
    console.print(f"[bold]{config.name}[/]: {total} games; {len(split['done'])} already stored, "
                  f"{len(todo)} to play ({len(split['stale'])} stale, "
                  f"{len(split['infra'])} to retry)")
    if todo:
        hashes = {e.name: submission_hash(e) for e in config.entrants}
        tasks = tasks_for(config, todo, hashes)
        executor: Executor = (DaskExecutor(config.scheduler) if config.scheduler
                              else LocalExecutor(workers or config.worker_count))
        failures = 0
        started = time.perf_counter()
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("failures: {task.fields[failures]}"), TimeRemainingColumn(),
                      console=console, transient=False) as progress:
            bar = progress.add_task("playing", total=len(tasks), failures=0)

            def on_result(row: dict[str, Any]) -> None:
                nonlocal failures
                store.put(row)
                if row["outcome"] in FAILURE_KINDS or row["outcome"] == INFRA_ERROR:
                    failures += 1
                progress.update(bar, advance=1, failures=failures)

            try:
                executor.run(tasks, on_result)
            except KeyboardInterrupt:
                progress.stop()
                kept = len(plan(config, store)["done"])
                console.print(f"stopped: {kept} of {total} games stored in "
                              f"{store.path}; run the same command again to finish")
                sys.exit(130)
        elapsed = time.perf_counter() - started
        console.print(f"played {len(tasks)} games in {elapsed:.1f}s "
                      f"({elapsed / len(tasks) * 1000:.0f} ms per game on "
                      f"{workers or config.worker_count} workers)")
    results = current_results(config, store)
    write_leaderboard_files(config, results, print_leaderboard(config, results))
    store.close()


# --- status ------------------------------------------------------------------------------------

@main.command()
@config_argument
def status(config_path: Path) -> None:
    """Show per entrant how many games are done, missing, stale and failed."""
    config = load(config_path)
    store = open_store(config)
    split = plan(config, store)
    results = store.frame(g.game_id for g in split["done"])
    table = Table(title=f"{config.name}: {store.path}")
    for column in ("entrant", "done", "missing", "stale", "agent failures", "infra errors"):
        table.add_column(column, justify="left" if column == "entrant" else "right")
    for entrant in config.entrants:
        counts = {k: sum(g.entrant == entrant.name for g in v) for k, v in split.items()}
        mine = results[results["entrant"] == entrant.name]
        failed = int((mine["outcome"].isin(FAILURE_KINDS) & (mine["culprit"] == 0)).sum())
        table.add_row(entrant.name, str(counts["done"]), str(counts["missing"]),
                      str(counts["stale"]), str(failed), str(counts["infra"]))
    console.print(table)
    remaining = len(split["missing"]) + len(split["stale"]) + len(split["infra"])
    console.print("complete" if remaining == 0 else
                  f"{remaining} games to play: tournament run {config_path}")
    store.close()


# --- leaderboard -------------------------------------------------------------------------------

def print_leaderboard(config: TournamentConfig, results: Any) -> Any:
    board = leaderboard(results, config.ranking)
    table = Table(title=f"{config.name}: ranked by {', then '.join(config.ranking.by)} "
                        f"({config.ranking.confidence:.0%} intervals)")
    for column in ("rank", "entrant", "games", "win rate", "mean score", "score (wins)",
                   "failures", "move ms (mean/max)"):
        table.add_column(column, justify="left" if column == "entrant" else "right")
    for row in board.itertuples():
        table.add_row(
            str(row.rank_group),
            str(row.entrant),
            str(row.games),
            f"{_pct(row.win_rate)} [{_pct(row.win_low)}-{_pct(row.win_high)}]",
            f"{_num(row.mean_score)} [{_num(row.score_low)}, {_num(row.score_high)}]",
            _num(row.mean_score_wins),
            str(row.failures),
            f"{_ms(row.move_time_mean)} / {_ms(row.move_time_max)}",
        )
    console.print(table)
    return board


def _pct(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value * 100:.0f}%"


def _num(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.0f}"


def _ms(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value * 1000:.1f}"


def markdown(frame: Any) -> str:
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(_cell(v) for v in row) + " |"
            for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *rows]) + "\n"


def _cell(value: object) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4g}"
    return str(value).replace("|", "\\|").replace("\n", " ")


@main.command("leaderboard")
@config_argument
def leaderboard_command(config_path: Path) -> None:
    """Print the ranking; write it as CSV, Markdown and JSON, and every game as CSV."""
    config = load(config_path)
    store = open_store(config)
    results = current_results(config, store)
    write_leaderboard_files(config, results, print_leaderboard(config, results))
    store.close()


def write_leaderboard_files(config: TournamentConfig, results: Any, board: Any) -> None:
    out = config.output
    board.to_csv(out / "leaderboard.csv", index=False)
    (out / "leaderboard.md").write_text(markdown(board), encoding="utf-8")
    (out / "leaderboard.json").write_text(
        json.dumps(json.loads(board.to_json(orient="records")), indent=2), encoding="utf-8")
    results.to_csv(out / "games.csv", index=False)
    console.print(f"wrote {out / 'leaderboard.csv'}, leaderboard.md, leaderboard.json and "
                  f"games.csv ({len(results)} games)")


# --- report ------------------------------------------------------------------------------------

@main.command()
@config_argument
def report(config_path: Path) -> None:
    """Write the HTML report (leaderboard, plots, a page per team) into <output>/report/."""
    from tournament.report import write_report

    config = load(config_path)
    store = open_store(config)
    index = write_report(current_results(config, store), config, config.output / "report")
    console.print(f"report: {index}")
    store.close()


# --- validate ----------------------------------------------------------------------------------

@main.command()
@config_argument
def validate(config_path: Path) -> None:
    """Check the config, then load every team in its sandbox and play one short game each."""
    from pacman.game import GameSpec, play
    from pacman.layout import load_layout
    from pacman.loader import SubmissionError, resolve
    from tournament.schedule import agent_args, cells

    config = load(config_path)
    console.print(describe_config(config))
    cell = cells(config)[0]
    layout = load_layout("testClassic")
    ghost = resolve(cell.ghost, kind="ghost")
    bad = 0
    console.print(f"one short game per entrant on {layout.name} against {cell.ghost_name}:")
    for entrant in config.entrants:
        ref_text = str(entrant.folder) if entrant.folder is not None else entrant.ref
        try:
            ref = resolve(ref_text, agent_args(entrant, cell), kind="pacman",
                          cwd=config.source.parent if config.source else None)
        except SubmissionError as exc:
            console.print(f"  {entrant.name}: [red]FAILED[/] {exc}")
            bad += 1
            continue
        result = play(GameSpec(layout, ref, ghost, num_ghosts=1, seed=config.seed,
                               max_moves=40, limits=config.limits))
        where = f"sandboxed ({', '.join(result.sandbox[0])})" if result.sandbox[0] else \
            "in-process (built-in)"
        if (result.failed and result.culprit == 0) or not result.scored:
            bad += 1
            console.print(f"  {entrant.name}: [red]FAILED[/] {result.outcome}: "
                          f"{result.message}", markup=True)
        else:
            console.print(f"  {entrant.name}: ok, {where}, {result.moves} moves, "
                          f"{result.outcome} at {result.score}")
    console.print("every entrant is ready" if not bad else f"{bad} entrant(s) not ready")
    sys.exit(1 if bad else 0)
