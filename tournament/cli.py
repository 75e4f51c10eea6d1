"""The `tournament` command: collect, validate, run, status, leaderboard, report, replay, marks.

Every subcommand takes the config file. A bad config exits 2 with every problem listed and
nothing run or written. `run` stores each game as it finishes and, run again, plays only what
is missing, stale (a submission changed) or failed in the platform; Ctrl-C stops it cleanly
with everything finished so far kept.
"""

from __future__ import annotations

import contextlib
import datetime
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from pacman.describe import clean
from pacman.identity import platform_id
from pacman.loader import SubmissionError, course_ruleset, resolve
from pacman.outcomes import FAILURES, GHOSTS, INFRA_ERROR, PACMAN
from pacman.replay import ReplayError
from pacman.teamfolder import TeamFolderError, team_size
from tournament.browse import (
    OUTCOME_CHOICES,
    Replay,
    depth_label,
    filter_games,
    filter_problems,
    outcome_label,
    parse_depth,
    pick_problem,
    replay_of,
    replays_of,
    short_message,
    viewer_start,
)
from tournament.checking import exposed_scheduler
from tournament.config import (
    NAME_PATTERN,
    ConfigError,
    Entrant,
    TournamentConfig,
    describe_config,
    load_config,
)
from tournament.exports import write_leaderboard_files
from tournament.gitsource import REPOSITORY_LIMIT_MIB
from tournament.leaderboard import leaderboard
from tournament.manifest import Manifest, ManifestError, read_manifest
from tournament.ranking import words as ranking_words
from tournament.recreate import recreate
from tournament.results import GameRow, split_formats
from tournament.resume import (
    PLAN_LISTS,
    Plan,
    SettingsChanged,
    check_owner,
    check_settings,
    current_results,
    entrant_hashes,
    outdated,
    plan,
    platforms_words,
    settings_problem,
    store_outdated,
    store_plan,
)
from tournament.runs import FINISHED, STOPPED_STATUS, ending_of, interrupted
from tournament.runs import describe as describe_run
from tournament.schedule import schedule
from tournament.secret import SecretError, checked_secret, secret_path
from tournament.standings import Standings, anchor_of, standings
from tournament.store import Store, StoreError

if TYPE_CHECKING:
    from tournament.bundles import TeamCache
    from tournament.executors import Executor
    from tournament.validation import ValidationRow

class _CleanConsole(Console):
    """The commands' console: every piece of text it draws is `clean`ed (no terminal escape,
    no bidirectional control), whatever renderable holds it. Names and ids that come from
    students' files reach these lines (a Gradescope id in a marks warning, the twelfth
    hostile review), and rich draws ESC, OSC and CSI as they are even with markup off: the
    terminal's title, links and screen were the student's to rewrite. Cleaned here, at the
    sink, rather than at each place such text enters. Rich's own control segments (the
    progress display's cursor moves) are kept."""

    def render(self, renderable: Any, options: Any = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control:
                yield segment
            else:
                yield Segment(clean(segment.text), segment.style, segment.control)


console = _CleanConsole(highlight=False, soft_wrap=True)
if not console.is_terminal:
    console.width = 120  # logs and pipes: wide enough for the leaderboard on one line per row


def die(message: str, status: int = 2) -> NoReturn:
    click.echo(clean(f"tournament: error: {message}"), err=True)
    sys.exit(status)


def this_command() -> str:
    """The command this process runs, as a lock's holder line and a collection's record say
    it."""
    return " ".join(["tournament", *sys.argv[1:]])


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


class _Commands(click.Group):
    """The command group: a Ctrl-C (or SIGTERM, `stop_on_sigterm`) that no command caught to
    say what it kept is `stopped`, exit 130, as everywhere else, rather than click's
    "Aborted!" with exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, Exception) as exc:
            if not interrupted(exc):  # Ctrl-C, or Ctrl-C wrapped on its way out
                raise
            console.print("stopped", markup=False)
            sys.exit(STOPPED_STATUS)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(platform_id(), prog_name="tournament")
def main() -> None:
    """Run Pacman tournaments: every entrant on the same games, results kept as they finish."""
    stop_on_sigterm(click.get_current_context())


def _terminated(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt


def stop_on_sigterm(ctx: click.Context) -> None:
    """A command sent SIGTERM (`kill`, `timeout`, a scheduler, systemd) stops as on Ctrl-C:
    the games stored are kept, the run's record says stopped, and what it made before its
    first game is removed. By default Python would die at once, leaving an empty store, its
    folders and a run recorded as running. Undone when the command ends (a test calling the
    command in its own process keeps its own handling), and only in the main thread, the
    one a signal handler can be set in."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.signal(signal.SIGTERM, _terminated)
    ctx.call_on_close(lambda: signal.signal(signal.SIGTERM, previous))


# --- plan: what is done, missing, stale ---------------------------------------------------------

# --- run ---------------------------------------------------------------------------------------

@main.command()
@config_argument
@click.option("--workers", type=int, default=None, help="Override the config's workers.")
def run(config_path: Path, workers: int | None) -> None:
    """Play every game not yet stored (all of them the first time), then print the ranking
    and write it (leaderboard.csv, .md, .json and games.csv in the output folder; with match
    games also their ratings and crosstable, ratings.csv and crosstable.csv)."""
    from tournament.executors import ClusterError
    from tournament.resume import Hashes
    from tournament.runner import iter_tasks

    config = load(config_path)
    if workers is not None and workers < 1:
        die("--workers: expected at least 1")
    if config.submissions is not None and hold_submissions(config.submissions):
        config = load(config_path)  # its teams as the folder holds still
    with playing(config) as held:
        cache, cluster, store, run_id = held.cache, held.cluster, held.store, held.run_id
        snapshots = take_snapshots(config, cache)
        warn_other_course_rules(config)  # while the folder holds still
        if config.submissions is not None and \
                config.submissions.resolve() != config.output.resolve():
            from tournament.lock import release

            release(config.submissions)  # the run plays its snapshots: collect may go on
        hashes = Hashes(*snapshots.hashes(config))
        split = store_plan(config, store, hashes)
        todo = split.todo
        total = split.total
        console.print(f"[bold]{escape(config.name)}[/]: {total} games; {len(split.done)} "
                      f"already stored, {len(todo)} to play ({len(split.stale)} stale, "
                      f"{len(split.infra)} to retry)")
        replaced = platforms_words(split.other_platforms)
        if replaced is not None:
            console.print(f"{replaced}: they are played again", markup=False)
        warn_unplayable_teams(config)
        if todo:
            layers = check_sandbox(config)
            check_baseline_files(config, snapshots)
            count = workers or config.worker_count
            if cluster is None:
                count = memory_bounded(config, count)
            if "mounts" in layers and cluster is None:
                check_copy_room(config, count)
            try:
                secret = checked_secret(config, store)
            except SecretError as exc:
                die(str(exc))
            tasks = iter_tasks(config, todo, hashes.pacman, secret, layers, hashes.ghosts,
                               snapshots)
            executor = held.executor(count)
            started = time.perf_counter()
            try:
                play_with_progress(config, store, executor, tasks, len(todo),
                                   snapshots.localize, run_id)
            except KeyboardInterrupt:
                plan = store_plan(config, store, hashes)
                console.print(f"stopped: {len(plan.done)} of {total} games stored in "
                              f"{store.path}; run the same command again to finish")
                say_unscored(config_path, len(plan.infra), total)
                sys.exit(STOPPED_STATUS)
            except ClusterError as exc:
                plan = store_plan(config, store, hashes)
                console.print(f"stopped: {exc}; {len(plan.done)} of {total} games stored in "
                              f"{store.path}", markup=False)
                say_unscored(config_path, len(plan.infra), total)
                sys.exit(1)
            elapsed = time.perf_counter() - started
            where = (f"on the Dask cluster at {config.scheduler}" if cluster is not None
                     else f"on {count} workers")
            console.print(f"played {len(todo)} games in {elapsed:.1f}s "
                          f"({elapsed / len(todo) * 1000:.0f} ms per game {where})",
                          markup=False)
            say_unscored(config_path, len(store_plan(config, store, hashes).infra), total)
        results = current_results(config, store)
        show_results(config, results)  # a ratings problem is shown; the run itself went well
        warn_outdated(config, config_path, store, during_run=True)


def say_unscored(config_path: Path, unscored: int, total: int) -> None:
    """Warn of stored games the platform failed (`infra_error`), which count for no one, at
    the end of a run however it ends. Never silent (the eighteenth hostile review: a worker
    that could not give the run's guarantees failed its games at once, and the run said
    nothing; a run stopped early, or by its cluster, said nothing either)."""
    if unscored:
        console.print(f"[yellow]warning:[/] {unscored} of {total} games ended as the "
                      "platform's failure (infra_error) and count for no one: "
                      f"`tournament replay {config_path} --outcome infra_error --list` "
                      "says why; run the same command again to play them")


@dataclass
class Playing:
    """What a command that plays games holds while it plays: the teams' cache, the cluster
    (None for the local pool), the results store and this run's record in it."""

    cache: TeamCache
    cluster: Any
    store: Store
    run_id: int

    def executor(self, workers: int) -> Executor:
        """Where the games run: the cluster, handed the teams' cache, or a local pool of
        `workers` processes."""
        from tournament.executors import LocalExecutor

        if self.cluster is not None:
            self.cluster.cache = self.cache
            return self.cluster  # type: ignore[no-any-return]
        return LocalExecutor(workers, cache=self.cache)


@contextlib.contextmanager
def playing(config: TournamentConfig, tuning: str | None = None) -> Iterator[Playing]:
    """The start and end of a command that plays games (`run`, `tune`): the cluster connected,
    the output folder locked, a cache for the teams, the store opened (refused when it holds
    another run's games: a tuning's, `tuning` naming this one, or a tournament's) and a run
    recorded;
    then, however the command ends, the cache and the cluster's connection released, the
    run's record closed with how it ended, and a store this command created removed when it
    stopped before any game, so that a run stopped at once leaves nothing behind."""
    from tournament.bundles import TeamCache

    cluster = connect_cluster(config) if config.scheduler else None
    made = Made(folders=missing_folders(config.output),
                secret=not secret_path(config).exists(),
                store=not (config.output / "results.sqlite").exists())
    lock_output(config)
    cache = TeamCache.temporary()
    store: Store | None = None
    run_id: int | None = None
    ended: BaseException | None = None
    try:
        store = open_store(config)
        where = str(config.output / "results.sqlite")
        try:
            check_owner(store, tuning, where)
            # A tune file keeps the move limit and the limits under `protocol:`.
            check_settings(config, store, where, "" if tuning is None else "protocol.")
        except SettingsChanged as exc:
            die(str(exc))
        run_id = store.open_run(platform_id(), config.seed)
        yield Playing(cache, cluster, store, run_id)
    except BaseException as exc:
        ended = exc
        if isinstance(exc, Exception) and interrupted(exc):
            # Ctrl-C wrapped on its way out (`runs.interrupted`): the command's own handling
            # of a stop says what it kept.
            raise KeyboardInterrupt from exc
        raise
    finally:
        cache.remove()
        if cluster is not None:
            cluster.close()
        ending = ending_of(ended)
        empty = True
        if store is not None:
            if run_id is not None:
                store.close_run(run_id, ending)
                if ending != FINISHED:
                    store.forget_idle_run(run_id)
            empty = store.is_empty()
            store.close()
        if ending != FINISHED and empty:
            made.remove(config)


@dataclass(frozen=True)
class Made:
    """What a command that plays games found missing in its output folder, and so made: when
    it ends refused or stopped before storing a game, it removes them again and leaves the
    folder as it found it (the settings it recorded, the secret nothing was played with)."""

    #: The output folder and the folders above it that did not exist, deepest first.
    folders: tuple[Path, ...]
    secret: bool
    store: bool

    def remove(self, config: TournamentConfig) -> None:
        from tournament.lock import discard

        # Each step on its own: this runs while the command ends for another reason, which a
        # file that cannot be removed must not hide.
        if self.store:
            with contextlib.suppress(OSError):
                remove_database(config.output / "results.sqlite")
        if self.secret and self.store:
            with contextlib.suppress(OSError):  # e.g. its folder was never a folder
                secret_path(config).unlink(missing_ok=True)
        if self.folders:
            with contextlib.suppress(OSError):
                discard(config.output)
        for folder in self.folders:
            try:
                folder.rmdir()
            except OSError:  # something else was put there meanwhile: it and those above stay
                break


def missing_folders(path: Path) -> tuple[Path, ...]:
    """`path` and the folders above it that do not exist, deepest first: what making it makes."""
    out = []
    while not path.exists() and not path.is_symlink() and path != path.parent:
        out.append(path)
        path = path.parent
    return tuple(out)


def connect_cluster(config: TournamentConfig) -> Any:
    """The Dask executor, connected, with workers of this platform version; exit 2 with one
    line when the scheduler cannot be reached or a worker runs another version."""
    from tournament.executors import ClusterError, DaskExecutor

    assert config.scheduler is not None
    cluster = DaskExecutor(config.scheduler, config.cluster,
                           say=lambda text: console.print(text, markup=False))
    try:
        cluster.connect()
        versions = cluster.versions()
        addresses = cluster.addresses()
    except ClusterError as exc:
        die(str(exc))
    # The scheduler's own address, not the one the config names: `tcp://localhost:8786`
    # reaches a scheduler that may listen on every interface, for workers elsewhere (the
    # review of the trusted-network check).
    exposed = [problem for address in addresses
               if (problem := exposed_scheduler(address, config.cluster.trusted_network,
                                                "cluster: {trusted_network: true}"))]
    if exposed:
        cluster.close()
        die(f"the Dask cluster at {config.scheduler}: {exposed[0]}")
    others = sorted(f"{worker} ({version})" for worker, version in versions.items()
                    if version != platform_id())
    if others:
        cluster.close()
        die(f"workers of another pacman-arena version than this one ({platform_id()}): "
            f"{', '.join(others)}; install the same version (the same code) on every worker")
    count, threads = cluster.threads()
    console.print(f"Dask cluster at {config.scheduler}: {count} workers, {threads} threads"
                  + ("" if count else " (games wait until a worker joins)"), markup=False)
    return cluster


#: Seconds a run waits for a `collect` into its submissions folder to end.
COLLECT_WAIT = 1800.0


def hold_submissions(folder: Path, wait: float = COLLECT_WAIT) -> bool:
    """Take the lock `collect` takes on the submissions folder, waiting up to `wait` seconds
    for a collect in progress to end (saying so), until the run's snapshots are taken: a
    collect that moves a team aside while a run reads its teams made all that team's games
    of the night its own `load_error`. False, taking nothing, for a folder `collect` never
    wrote into (it leaves its lock file behind; a hand-made folder, such as one in a
    repository, gets none) and for one this user cannot lock (it cannot collect into it
    either)."""
    from tournament.lock import LOCK_FILE, LockHeld, acquire

    if not (folder / LOCK_FILE).is_file():
        return False
    deadline = time.monotonic() + wait
    said = False
    while True:
        try:
            acquire(folder, this_command())
            return True
        except OSError:
            return False
        except LockHeld as exc:
            if time.monotonic() >= deadline:
                die(f"submissions: {exc}")
            if not said:
                console.print(f"waiting for the collect into it to end: {exc}", markup=False)
                said = True
            time.sleep(1.0)


def take_snapshots(config: TournamentConfig, cache: Any) -> Any:
    """The run's snapshot of every team's files (`tournament.bundles`)."""
    from tournament.runner import Snapshots

    try:
        return Snapshots.take(config, cache)
    except RuntimeError as exc:
        die(str(exc), 1)


def play_with_progress(config: TournamentConfig, store: Store, executor: Any, tasks: Any,
                       count: int, localize: Callable[[str], str],
                       run_id: int | None = None) -> None:
    """Play `tasks`, keeping each output as it arrives (`tournament.outputs`), stamped with
    run `run_id`, with a progress bar on a terminal and progress lines elsewhere
    (`tournament.progress`)."""
    from tournament.outputs import Keeper
    from tournament.progress import ProgressLines
    from tournament.runner import GameOutput, GameTask

    keeper = Keeper(config.output, store, localize, run_id)

    def failed(row: GameRow) -> bool:
        return row["outcome"] in FAILURES or row["outcome"] == INFRA_ERROR

    if not console.is_terminal:
        with ProgressLines(count, lambda text: console.print(text, markup=False)) as lines:
            def on_line(task: GameTask, output: GameOutput) -> None:
                lines.advance(failed(keeper.keep(task, output)))

            executor.run(tasks, on_line)
        return
    failures = 0
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("failures: {task.fields[failures]}"), TimeRemainingColumn(),
                  console=console, transient=False) as progress:
        bar = progress.add_task("playing", total=count, failures=0)

        def on_result(task: GameTask, output: GameOutput) -> None:
            nonlocal failures
            failures += failed(keeper.keep(task, output))
            progress.update(bar, advance=1, failures=failures)

        executor.run(tasks, on_result)


def remove_database(path: Path) -> None:
    """Remove a results database and its journal files."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def warn_outdated(config: TournamentConfig, config_path: Path, store: Store,
                  during_run: bool = False) -> None:
    """A warning per entrant with games stored for an earlier submission of its own
    (`tournament.resume.outdated`): no table counts them, so without this line an entrant
    whose every game is outdated would silently be missing. At the end of a run, such games
    were played while the team's files changed. Before all that (reading commands only: a run
    refuses instead), a warning when the stored games were played with other settings than
    the config's (`tournament.resume.settings_problem`): tables that count them would mix
    them with the config's; and when games were played by another platform
    (`warn_other_platforms`). One plan of the store serves all of it."""
    stored = store.hashes()
    hashes = entrant_hashes(config)
    split = plan(schedule(config), stored, hashes)
    if not during_run:
        problem, _ = settings_problem(config, store, str(store.path))
        if problem is not None:
            console.print(f"warning: {problem}; what is shown here counts them as the "
                          "config's", markup=False, style="yellow")
        warn_other_platforms(config_path, split)
    for found in outdated(split, stored, hashes):
        team = (config.entrant(found.entrant) if found.side == PACMAN
                else config.ghost_entrant(found.entrant)).kind == "team"
        who = ("team" if team else "baseline") if found.side == PACMAN else \
            ("ghost team" if team else "ghost baseline")
        what = "files" if team else "settings"
        games = "1 game" if found.games == 1 else f"{found.games} games"
        if during_run:
            line = (f"warning: {who} {found.entrant}'s {what} changed during the run: its "
                    f"{games} {'was' if found.games == 1 else 'were'} played with the {what} "
                    f"as they were and {'is' if found.games == 1 else 'are'} now outdated; "
                    f"run again to play the new {what}")
        else:
            none = "" if found.current else " and none for the current ones"
            line = (f"warning: {who} {found.entrant}: {games} stored for an earlier version "
                    f"of its {what}{none} (not counted here); tournament run {config_path} "
                    "plays the current ones")
        console.print(line, markup=False, style="yellow")


def warn_other_platforms(config_path: Path, split: Plan) -> None:
    """A warning when stored games of the schedule were played by another platform (the
    checkout was updated since, `pacman.identity`): no table counts them until a run plays
    them again."""
    replaced = platforms_words(split.other_platforms)
    if replaced is not None:
        console.print(f"warning: {replaced} (not counted here); tournament run "
                      f"{config_path} plays them again", markup=False, style="yellow")


def lock_output(config: TournamentConfig) -> None:
    """Hold the output folder for the rest of this command, which plays games into it; exit 2
    naming the holder when another process holds it (`tournament.lock`)."""
    from pacman.files import in_the_way
    from tournament.lock import LockHeld, acquire

    try:
        acquire(config.output, this_command())
    except LockHeld as exc:
        die(str(exc))
    except OSError as exc:
        blocker = in_the_way(config.output)
        if blocker is not None:
            die(f"output: {config.output}"
                + ("" if blocker == config.output else f": {blocker}") + " is not a folder")
        die(f"output: {config.output}: cannot take its lock: {exc.strerror or exc}")


def warn_unplayable_teams(config: TournamentConfig, problems: bool = True) -> None:
    """Name each team whose folder could not be resolved (unless not `problems`: validate's
    table names them): it does not stop the others, and its games are recorded as its own
    `load_error` until the folder is fixed. Name too each team folder that plays under
    another name than its own (`team_entrant_name`)."""

    seen = set()
    for entrant in config.all_entrants:
        if entrant.folder is not None and entrant.folder.name != entrant.name \
                and entrant.name not in seen:
            seen.add(entrant.name)
            why = ("a baseline of its side has that name" if NAME_PATTERN.fullmatch(
                entrant.folder.name) else "an entrant's name is up to 64 letters, digits and "
                ". _ + - (it appears in game ids and file names)")
            console.print(f"warning: the team folder {clean(repr(entrant.folder.name))} plays "
                          f"as {entrant.name}: {why}; rename the folder to choose another",
                          markup=False, style="yellow")
        if entrant.problem is not None and problems:
            side = "" if entrant.side == PACMAN else "ghost "
            console.print(f"warning: {side}team {entrant.name} cannot play, so its games are "
                          f"recorded as its load_error: {clean(entrant.problem)}", markup=False,
                          style="yellow")


#: Per ruleset, what a student's search meets there that the other does not offer.
COURSE_RULES_WORDS = {
    "cs221": "a CS221 submission.py, whose course never offers Stop and lists moves North, "
             "South, East, West",
    "classic": "a CS188 file, whose course offers Stop and lists moves in its own order",
}


def warn_other_course_rules(config: TournamentConfig) -> None:
    """One line per ruleset that some Pacman teams' course plays by and the grid does not
    (`other_course_rules`), naming the teams: students tested by their course's rules, and
    their search meets other moves here."""
    by_rules: dict[str, list[str]] = {}
    for entrant in config.all_entrants:
        course = other_course_rules(config, entrant)
        if course is not None:
            by_rules.setdefault(course, []).append(entrant.name)
    for course, names in sorted(by_rules.items()):
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        console.print(f"warning: {len(names)} team(s) play {COURSE_RULES_WORDS[course]}, but "
                      f"grid.rules is [{', '.join(config.grid.rules)}]; a class of such files "
                      f"sets grid.rules: [{course}]: {shown}", markup=False, style="yellow")


def other_course_rules(config: TournamentConfig, entrant: Entrant) -> str | None:
    """The ruleset a Pacman team's course plays by when it is none of the grid's
    (`pacman.loader.course_ruleset`: a CS221 `submission.py` is played by the cs221 rules on
    the student's own machine), else None. For a warning, not an error: a team's files never
    make the organizer's config wrong."""
    if entrant.side != PACMAN or entrant.folder is None or entrant.problem is not None:
        return None
    try:
        ref = resolve(entrant.ref, (), kind="pacman", folder_agent=entrant.folder_agent)
    except SubmissionError:
        return None
    course = course_ruleset(ref)
    return None if course in config.grid.rules else course


def memory_bounded(config: TournamentConfig, workers: int) -> int:
    """How many games a local run plays at once: `workers`, or fewer where every sandbox at
    its memory limit would not fit in this machine's memory (`runner.memory_workers`),
    saying so; exit 2 when not even one game fits."""
    from pacman.sandbox import cgroup
    from tournament.runner import memory_workers, sandboxed_sides

    machine = cgroup.memory_room_mib()
    if machine is None:
        return workers
    fits, why = memory_workers(workers, len(sandboxed_sides(config)), config.limits.memory_mb,
                               machine)
    if fits == 0:
        die(f"not one game fits in this machine's memory: {why}; lower limits.memory_mb")
    if fits < workers:
        console.print(f"{fits} game{'s' if fits > 1 else ''} at once, not {workers}: {why}",
                      markup=False)
    return fits


def check_copy_room(config: TournamentConfig, workers: int) -> None:
    """Exit 2 when the sandbox folder (TMPDIR) cannot hold, per worker, the copies of teams'
    files one game makes (`tournament.runner.game_copies`, `copy_room_problem`)."""
    from tournament.runner import copy_room_problem, game_copies

    sizes: dict[Path, tuple[int, int]] = {}
    for entrant in config.all_entrants:
        if entrant.folder is not None and entrant.folder not in sizes:
            with contextlib.suppress(TeamFolderError):  # that team's own load_error
                sizes[entrant.folder] = team_size(entrant.folder)
    # A match game holds a Pacman team's sandbox and a ghost team's at once.
    two_teams = config.matches is not None and any(
        e.folder is not None for e in config.ghost_entrants)
    per_game, what = game_copies(list(sizes.values()), two_teams)
    where = tempfile.gettempdir()
    room = os.statvfs(where)
    # A file system with no fixed number of inodes (btrfs) reports none at all.
    inodes = room.f_favail if room.f_files else sys.maxsize
    problem = copy_room_problem((room.f_bavail * room.f_frsize, inodes), workers, per_game,
                                where, what)
    if problem:
        die(problem)


def check_sandbox(config: TournamentConfig, sandboxed: bool | None = None) -> tuple[str, ...]:
    """Say how teams will be confined before playing; stop (exit 2) when a sandbox guarantee
    does not hold on this machine and the config does not accept it by name, and stop when
    nothing can be confined at all. `sandboxed`: whether any game plays code in the sandbox
    (by default `tournament.runner.plays_sandboxed`: teams, baselines that play files, the
    grid's ghosts from a file, built-ins on a clock; `tune` says so of its agent). Without
    the check, a run of clock-bound built-ins alone on a machine whose sandbox cannot start
    turned every game into an unscored infra_error rather than stopping here."""
    from pacman.sandbox.check import run_check
    from pacman.sandbox.guarantees import requirement_text
    from pacman.sandbox.process import SandboxError

    if sandboxed is None:
        from tournament.runner import plays_sandboxed

        sandboxed = plays_sandboxed(config)
    if not sandboxed:
        return ()
    try:
        found = run_check(config.limits)
    except SandboxError as exc:
        die("the sandbox cannot start on this machine, so no team, nor a baseline that plays "
            f"sandboxed, can play: {exc}", 1)
    off = ", ".join(sorted(found.missing)) or "none"
    console.print(f"sandbox layers on: {', '.join(found.active)}; off: {off} "
                  "(`pacman sandbox-check` says why)", markup=False)
    if found.escaped:
        console.print(f"[yellow]warning:[/] not contained here: {', '.join(found.escaped)}")
    lacking = [g for g in found.lacking if g.name not in config.sandbox.accept_missing]
    accepted = [g for g in found.lacking if g.name in config.sandbox.accept_missing]
    for guarantee in accepted:
        console.print(f"[yellow]warning:[/] accepted by the config: no guarantee that "
                      f"{guarantee.promise} ({guarantee.name})", markup=True)
    if lacking:
        lines = [f"  {g.name}: {g.promise} (needs {requirement_text(g)})" for g in lacking]
        names = ", ".join(g.name for g in lacking)
        die("the sandbox cannot give these guarantees on this machine, so the teams' code "
            "would run without them:\n" + "\n".join(lines) + "\n"
            "Fix the machine (`pacman sandbox-check` says what is missing and why), or accept "
            f"them in the config: sandbox: {{accept_missing: [{names}]}}")
    return tuple(found.active)


def check_baseline_files(config: TournamentConfig, snapshots: Any = None) -> None:
    """Load each baseline's file of code once in a sandbox before any game (the config read
    it without running it, `optionfiles.code_problem`): an import that fails there would be
    the baseline's load_error in every game, so it stops the run here, exit 2, naming the
    baseline and its option. Called once the sandbox is known to hold (`check_sandbox`).
    Given the run's `snapshots` (`tournament.runner.Snapshots`), it loads their copy of the
    file, the bytes the games play; else (`validate`) the file as it is now."""
    from tournament.featurecheck import UNTIMED_LOAD_SECONDS, checked_features
    from tournament.optionfiles import function_file

    layout = config.grid.layouts[0]
    limits = config.limits
    problems = []
    for entrant in config.all_entrants:
        if entrant.kind != "baseline":
            continue
        for key, value in entrant.args:
            found = function_file(key, value)
            if found is None:
                continue
            copy = snapshots.file_copy(found[0]) if snapshots is not None else None
            checked = checked_features(
                f"{copy}:{found[1]}" if copy is not None else value, layout.path, 1,
                config.grid.rules[0], limits, limits.startup or UNTIMED_LOAD_SECONDS,
                f"{found[0].name}:{found[1]}", tuple(config.sandbox.accept_missing),
                call=False, option=key)
            problems += [f"baseline {entrant.name}: args.{key}: "
                         + (snapshots.localize(said) if snapshots is not None else said)
                         for said in checked.problems]
    if problems:
        die(f"{config.source or 'the config'}: a baseline's file does not load:\n"
            + "\n".join(f"  {line}" for line in problems))


# --- tune --------------------------------------------------------------------------------------

@main.command("tune")
@click.argument("tune_path", metavar="TUNE", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--workers", type=int, default=None, help="Override the tune file's workers.")
def tune_command(tune_path: Path, workers: int | None) -> None:
    """Learn an evaluation's weights from games with CMA-ES (docs/tune.md): every candidate
    plays the same seeds; then the best against the start on fresh seeds. Writes weights.yaml,
    comparison.csv, candidates.csv, generations.csv and objective.svg in the output folder.
    Ctrl-C keeps the games stored; the same command resumes without playing them again."""
    from tournament.bundles import snapshot_digest
    from tournament.executors import ClusterError
    from tournament.outputs import Keeper
    from tournament.progress import ProgressLines
    from tournament.runner import Snapshots, plays_sandboxed
    from tournament.tuneconfig import (
        FEATURE_FUNCTION,
        RESULT_BEST,
        TuneError,
        describe_weights,
        load_tune,
    )
    from tournament.tuning import (
        Games,
        TuneFailed,
        best_of,
        drop_results,
        search,
        store_player,
        total_games,
        tournament_config,
        write_progress,
        write_results,
    )

    try:
        config = load_tune(tune_path)
    except TuneError as exc:
        die(f"the tune file has problems:\n{exc}")
    for note in config.notes:
        console.print(f"{tune_path}: note: {note}", markup=False)
    if workers is not None and workers < 1:
        die("--workers: expected at least 1")
    base = tournament_config(config, [], config.seed, config.games)

    def say(text: str) -> None:
        console.print(text, markup=False)

    held: Playing | None = None
    try:
        with playing(base, tuning=config.name) as held:
            cache, store, run_id = held.cache, held.store, held.run_id
            replaced = platforms_words({version: count for version, count
                                        in store.platforms().items()
                                        if version != platform_id()})
            if replaced is not None:
                console.print(f"{replaced}: each is played again when the tuning needs it",
                              markup=False)
            try:
                secret = checked_secret(base, store)
            except ValueError as exc:  # a SecretError
                die(str(exc))
            snapshots = Snapshots(cache)
            features = snapshot = files = ""
            where, _, function = config.features.rpartition(":")
            if config.evaluation == FEATURE_FUNCTION and where.endswith(".py"):
                taken = snapshots.of_file(Path(where))
                if not taken.id:
                    die(f"evaluation.features: {taken.problem}")
                snapshot = taken.id
                features = f"{snapshot}/{Path(where).name}:{function}"
            elif config.evaluation == FEATURE_FUNCTION:
                # The platform's own module: its workers import it, its version is hashed.
                features = config.features
            if not config.builtin:
                # A team folder as it is (its path may hold a colon), else `file.py:Class`.
                agent = Path(config.agent)
                if not agent.is_dir():
                    agent = Path(config.agent.rpartition(":")[0])
                taken = snapshots.of_folder(agent) if agent.is_dir() else snapshots.of_file(agent)
                if not taken.id:
                    die(f"agent: {taken.problem}")
                files = snapshot_digest(taken.id)
            # A feature function's file plays in the sandbox, as a team's agent does, and so
            # does a built-in on a clock, or the protocol's ghosts from a file.
            tuned = tournament_config(config, [Entrant(config.name, "baseline", config.agent)],
                                      config.seed, config.games)
            layers = check_sandbox(base, sandboxed=(not config.builtin or bool(snapshot)
                                                    or plays_sandboxed(tuned)))
            count = workers or base.worker_count
            if held.cluster is None:
                count = memory_bounded(tuned, count)
            executor = held.executor(count)
            keeper = Keeper(config.output, store, snapshots.localize, run_id)
            say(f"{config.name}: {len(config.weights)} weights, {config.generations} generations "
                f"of {config.population} candidates, {config.games} games each, then "
                f"{config.comparison_games} fresh games each for the start and the result: "
                f"{total_games(config)} games at most; objective: "
                f"{config.objective.describe()}")
            dropped = drop_results(config)
            if dropped:
                say(f"removed the last run's {' and '.join(p.name for p in dropped)}: this run "
                    "writes its own when it ends")
            started = time.perf_counter()
            with ProgressLines(total_games(config), say) as lines:
                games = Games(config, store_player(store, executor, keeper, snapshots, secret,
                                                   layers, lines, snapshot), features, files)
                start = games.start_seen()
                say(f"start: {_value(start)} ({_stats(start)}) on the games every candidate plays")

                def on_generation(generation: Any, done: list[Any]) -> None:
                    best, overall = generation.best, best_of(done)
                    say(f"generation {generation.number + 1}/{config.generations}: best "
                        f"{_value(best.measure)} ({best.candidate.entrant}: "
                        f"{_stats(best.measure)}), mean {_objective(generation.mean)}; best so "
                        f"far {_value(overall.measure)} ({overall.candidate.entrant})")
                    write_progress(config, done, start)

                searched = search(config, games.evaluate, on_generation)
                generations = searched.generations
                if searched.stopped:
                    say(f"CMA-ES stopped by itself after {len(generations)} generations: "
                        f"{searched.stopped}")
                best = best_of(generations)
                say(f"best candidate: {best.candidate.entrant}, {_value(best.measure)} "
                    f"({_stats(best.measure)})")
                result = games.result(searched)
                if config.result != RESULT_BEST:
                    weights = describe_weights(result.candidate.as_dict())
                    say(f"the search's final mean: {_value(result.measure)} "
                        f"({_stats(result.measure)}), {weights}")
                say(f"comparing {result.candidate.entrant} with the start on "
                    f"{config.comparison_games} fresh games each")
                differences, pairs, failures = games.compare(result.candidate.as_dict())
            print_comparison(config.objective.describe(), differences, pairs, failures)
            written = write_results(config, result, start, differences, pairs, failures)
            written += write_progress(config, generations, start,
                                      None if config.result == RESULT_BEST else result)
            say(f"done in {time.perf_counter() - started:.0f}s; wrote {written[0]}, "
                + ", ".join(p.name for p in written[1:]))
    except KeyboardInterrupt:
        # `playing` removed the store if it held no game (or the stop came before it existed).
        kept = base.output / "results.sqlite"
        if held is not None and kept.exists():
            say(f"stopped: the games played are kept in {kept}; run the same command again "
                "to go on from there")
        else:
            say("stopped before any game was stored; nothing is kept")
        raise SystemExit(STOPPED_STATUS) from None
    except TuneFailed as exc:
        die(str(exc), 1)
    except ClusterError as exc:
        console.print(f"stopped: {exc}; the games played are kept", markup=False)
        raise SystemExit(1) from None


def _objective(value: float) -> str:
    return "-" if math.isnan(value) else (f"{value:.3f}" if abs(value) <= 1 else f"{value:.1f}")


def _value(found: Any) -> str:
    return _objective(found.value) if found.feasible else found.shortfall


def _stats(found: Any) -> str:
    return (f"won {found.wins}/{found.games}, mean {_num(found.mean_score)}, "
            f"over wins {_num(found.mean_score_wins)}")


def print_comparison(objective: str, differences: Sequence[Any], pairs: int,
                     failures: tuple[int, int] = (0, 0)) -> None:
    """The final comparison as a table, the objective's row first, the games each side's
    agent failed (when any did), and the verdict."""
    table = Table(title=f"tuned against start on {pairs} fresh games, paired by seed "
                        "(difference: tuned - start, 95% interval)")
    for column in ("statistic", "start", "tuned", "difference", "interval", "verdict"):
        table.add_column(column, justify="left" if column in ("statistic", "verdict")
                         else "right")
    for d in differences:
        table.add_row(d.statistic, _objective(d.start), _objective(d.tuned),
                      _objective(d.difference), f"[{_objective(d.low)}, {_objective(d.high)}]",
                      d.verdict)
    console.print(table)
    if any(failures):
        console.print(f"of these games the agent failed {failures[0]} with the start's "
                      f"weights, {failures[1]} with the tuned ones", markup=False)
    if differences:
        console.print(f"{objective}: {differences[0].verdict}", markup=False)


# --- status ------------------------------------------------------------------------------------

#: How many of the latest runs `status` lists.
STATUS_RUNS = 5

@main.command()
@config_argument
def status(config_path: Path) -> None:
    """Show per entrant how many games are done, missing, stale and failed."""
    config = load(config_path)
    store = open_store(config)
    split = store_plan(config, store)
    results = store.frame(g.game_id for g in split.done)
    table = Table(title=f"{config.name}: {store.path}")
    for column in ("entrant", "side", "done", "missing", "stale", "agent failures",
                   "infra errors"):
        table.add_column(column, justify="left" if column in ("entrant", "side") else "right")
    sides = [(e.name, PACMAN) for e in config.entrants]
    sides += [(e.name, GHOSTS) for e in config.ghost_entrants]
    tally = split.counts()
    for name, side in sides:
        counts = tally.get((name, side), dict.fromkeys(PLAN_LISTS, 0))
        column = "entrant" if side == PACMAN else "ghost_entrant"
        mine = results[results[column] == name]
        own = mine["culprit"] == 0 if side == PACMAN else mine["culprit"] >= 1
        failed = int((mine["outcome"].isin(FAILURES) & own).sum())
        table.add_row(Text(name), side, str(counts["done"]), str(counts["missing"]),
                      str(counts["stale"]), str(failed), str(counts["infra"]))
    console.print(table)
    recent = store.runs(last=STATUS_RUNS)
    if recent:
        console.print("last runs:" if len(recent) > 1 else "last run:")
        for record in recent:
            console.print(f"  {describe_run(record)}", markup=False)
    warn_outdated(config, config_path, store)
    remaining = len(split.todo)
    console.print("complete" if remaining == 0 else
                  f"{remaining} games to play: tournament run {config_path}")
    store.close()


# --- leaderboard -------------------------------------------------------------------------------

def print_leaderboard(config: TournamentConfig, results: Any) -> Any:
    board = leaderboard(results, config.ranking)
    table = Table(title=f"{config.name}: ranked by {ranking_words(config.ranking.by)} "
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


@main.command("leaderboard")
@config_argument
def leaderboard_command(config_path: Path) -> None:
    """Print the ranking, and the ratings and crosstable of match games; write them as CSV
    (the ranking also as Markdown and JSON), and every game as CSV.

    Exits 1 when there are match games but their ratings could not be fitted (the line
    printed says why): everything else is printed and written, but a script must not take
    the folder's ratings.csv as this run's.
    """
    config = load(config_path)
    store = open_store(config)
    results = current_results(config, store)
    shown = show_results(config, results)
    warn_outdated(config, config_path, store)
    store.close()
    if shown is not None and shown.problem is not None:
        sys.exit(1)


def show_results(config: TournamentConfig, results: Any) -> Standings | None:
    """Print the leaderboard of the fixed-format games and the standings of the match
    games, write the output folder's tables, and return the standings (None without match
    games).

    The fixed leaderboard is left out only when there are match games and no fixed-format
    game: a config without matches prints what it always did, an empty table included.
    """
    fixed, matches = split_formats(results)
    board = print_leaderboard(config, fixed) if len(fixed) or not len(matches) else None
    anchor = anchor_of(config)
    shown = None if anchor is None else standings(matches, anchor, config.ranking.confidence)
    if shown is not None:
        print_standings(config, shown)
    print_written(write_leaderboard_files(config, results, board, shown), len(results))
    return shown


def print_standings(config: TournamentConfig, shown: Standings) -> None:
    """The ratings table (or the one line saying why there is none), then the crosstable
    as a grid: Pacman rows x ghost columns, each in rating order."""
    name, side = shown.anchor
    if shown.ratings is None:
        console.print(f"ratings: {shown.problem}", markup=False, style="yellow")
    else:
        table = Table(title=Text(f"{config.name}: ratings (Elo, {name} ({side}) = 0; "
                                 f"{shown.confidence:.0%} intervals)"))
        for column in ("rank", "entrant", "side", "rating", "games", "points rate"):
            table.add_column(column, justify="left" if column in ("entrant", "side")
                             else "right")
        for row in shown.ratings.itertuples():
            table.add_row(str(row.rank_group), Text(str(row.entrant)), str(row.side),
                          f"{_elo(row.rating)} [{_elo(row.rating_low)}, "
                          f"{_elo(row.rating_high)}]",
                          str(row.games), _pct(row.score))
        console.print(table)
    rates, games = shown.grid("points_rate"), shown.grid("games")
    grid = Table(title=Text(f"{config.name}: crosstable, Pacman's points rate (games)"))
    grid.add_column(Text("Pacman \\ ghosts"))
    for ghost in rates.columns:
        grid.add_column(Text(str(ghost)), justify="right")
    for pacman in rates.index:
        cells = [_pct(rate) + ("" if math.isnan(n) else f" ({int(n)})")
                 for rate, n in zip(rates.loc[pacman], games.loc[pacman])]
        grid.add_row(Text(str(pacman)), *cells)
    console.print(grid)


def _elo(value: float) -> str:
    """A rating with its sign: +153, -40; 0 for the anchor (never -0)."""
    if value is None or math.isnan(value):
        return "-"
    rounded = round(value)
    return "0" if rounded == 0 else f"{rounded:+d}"


def print_written(paths: list[Path], games: int) -> None:
    first, *rest = paths
    console.print(f"wrote {first}, {', '.join(p.name for p in rest)} ({games} games)",
                  markup=False)


# --- marks -------------------------------------------------------------------------------------

@main.command("marks")
@config_argument
@click.option("--scheme", "scheme_path", required=True, metavar="FILE",
              type=click.Path(path_type=Path, dir_okay=False),
              help="The marking scheme (YAML, docs/marks.md).")
@click.option("--out", "out_path", metavar="PATH", default=None,
              type=click.Path(path_type=Path, dir_okay=False),
              help="Where to write marks.csv (default: <output>/marks.csv); marks-teams.csv "
                   "is written beside it, named after it.")
@click.option("--published-seeds", is_flag=True,
              help="Mark games whose master seed runs before the submissions' deadline, or "
                   "before a team's files last changed, already played (their draws were "
                   "shown while teams could still submit).")
def marks_command(config_path: Path, scheme_path: Path, out_path: Path | None,
                  published_seeds: bool) -> None:
    """Mark every team by a marking scheme from the current results: write marks.csv for the
    learning-management system (a row per student, through the submissions' manifest) and
    marks-teams.csv (a column per criterion), and print each team's mark and reason."""
    from tournament.manifest import MANIFEST_NAME, ManifestError, read_manifest
    from tournament.marks import (
        UnmarkableError,
        evaluate,
        output_problems,
        published_draws,
        student_table,
        students_in_several_teams,
        team_table,
    )
    from tournament.markscheme import SchemeError, load_scheme
    from tournament.tables import write_csv
    from tournament.times import TimeProblem, parse_time

    config = load(config_path)
    try:
        scheme = load_scheme(scheme_path, config)
    except SchemeError as exc:
        die(f"the marking scheme has problems:\n{exc}")
    out = out_path if out_path is not None else config.output / "marks.csv"
    teams_out = out.with_name(f"{out.stem}-teams{out.suffix or '.csv'}")
    misplaced = output_problems(config, [out, teams_out])
    if misplaced:
        die("\n".join(misplaced))
    manifest = None
    if config.submissions is not None:
        try:
            manifest = read_manifest(config.submissions)
        except ManifestError as exc:
            die(str(exc))
    if not (config.output / "results.sqlite").is_file():
        die(f"no results in {config.output} yet: tournament run {config_path} plays the games")
    store = open_store(config)
    try:
        due = None
        if manifest is not None and manifest.deadline is not None:
            try:
                due = parse_time(manifest.deadline)
            except TimeProblem as exc:
                die(f"{MANIFEST_NAME} of {config.submissions}: deadline: {exc}")
        # The teams that play (by folder: an entrant's name may be made from it): a record
        # of a folder the organizer removed changes no game.
        playing = set(config.team_folders().values())
        changes = []
        for team in manifest.teams if manifest is not None else ():
            if team.team not in playing:
                continue
            try:
                changes.append((team.team, parse_time(team.changed_at)))
            except TimeProblem as exc:
                die(f"{MANIFEST_NAME} of {config.submissions}: team {team.team}: changed_at: "
                    f"{exc}")
        problem = published_draws(config.seed, store.seed_first_run(config.seed), due,
                                  datetime.datetime.now(datetime.timezone.utc), changes)
        if problem is not None and not published_seeds:
            die(problem)
        split = store_plan(config, store)
        replaced = platforms_words(split.other_platforms)
        if replaced is not None:
            # Not marks of 0 "with its current files" for every team: their files did not
            # change, the platform did (the review of the platform's identity).
            die(f"{replaced}: they count for no one until tournament run {config_path} plays "
                "them again; mark then")
        try:
            marks = evaluate(scheme, current_results(config, store, split), config, manifest)
        except UnmarkableError as exc:
            die(f"{exc}; no marks written")
        students = student_table(marks, config, manifest)
        write_csv(team_table(marks, scheme), teams_out)
        write_csv(students, out)
        table = Table(title=Text(f"{config.name}: {scheme.name}, out of {_points(scheme.out_of)}"))
        for column in ("team", "mark", "reason"):
            table.add_column(column, justify="right" if column == "mark" else "left")
        for mark in marks:
            table.add_row(Text(mark.team), _points(mark.mark), Text(mark.reason))
        console.print(table)
        for mark in marks:
            if mark.games == 0:
                console.print(f"warning: team {mark.team} has no current games, so its mark "
                              "is 0", markup=False, style="yellow")
        if split.todo:
            console.print(f"warning: {len(split.todo)} of {split.total} games are not played "
                          f"yet (missing, stale or to retry) and count for no one; tournament "
                          f"run {config_path} plays them", markup=False, style="yellow")
        warn_outdated(config, config_path, store)
        for student, teams in students_in_several_teams(students):
            console.print(f"warning: student {student} is a member of {', '.join(teams)}, so "
                          f"{out.name} has a row for each: a team kept from an earlier "
                          "collection lists them still; correct the mapping, or move the "
                          "team that should not be marked out of the submissions folder",
                          markup=False, style="yellow")
        if manifest is None:
            where = (f"no {config.submissions / MANIFEST_NAME}" if config.submissions else
                     "no submissions folder in the config, so no manifest")
            console.print(f"note: {where}: one row per team in {out.name}, without students "
                          "(tournament collect writes the manifest)", markup=False)
        console.print(f"wrote {out} ({_count(len(students), 'row')}), {teams_out.name} "
                      f"({_count(len(marks), 'team')})", markup=False)
    finally:
        store.close()


def _points(value: float) -> str:
    return f"{value:g}"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


# --- report ------------------------------------------------------------------------------------

@main.command()
@config_argument
@click.option("--pictures", type=click.Choice(["none", "strip", "gif"]), default="none",
              show_default=True,
              help="Show each team's best and worst game on its page, as a strip of frames or "
                   "an animated GIF (missing replays are re-created first).")
@click.option("--recreate-replays", is_flag=True,
              help="First play again every listed game whose replay was not kept "
                   "(record.replays), keeping its replay when it ends as stored, so that the "
                   "report's player can show it (as `tournament replay --recreate`).")
def report(config_path: Path, pictures: str, recreate_replays: bool) -> None:
    """Write the report, a static web site, into <output>/report/: the leaderboard, plots,
    and a page per team listing every game, each kept replay watchable in the page."""
    from tournament.privacy import Redactor
    from tournament.report import write_report

    config = load(config_path)
    manifest = read_collected(config)
    store = open_store(config)
    split = store_plan(config, store)
    warn_other_platforms(config_path, split)
    results = current_results(config, store, split)
    out_dir = config.output / "report"
    if recreate_replays:
        missing = results[[replay_of(r, config.output).file is None
                           for r in results.to_dict("records")]]
        if len(missing):
            recreate_replays_of(config, missing, replays_of(missing, config.output))
    shown = game_pictures(config, results, out_dir, pictures) if pictures != "none" else None
    anchor = anchor_of(config)
    index = write_report(results, config, out_dir, shown, anchor, store_outdated(config, store),
                         f"tournament run {config_path}", Redactor.for_config(config, config_path),
                         f"tournament report {config_path} --recreate-replays",
                         runs=store.runs(), manifest=manifest)
    console.print(f"report: {index}")
    store.close()


def read_collected(config: TournamentConfig) -> Manifest | None:
    """The manifest `tournament collect` wrote into the submissions folder, or None when it
    has none; exit 2 naming the file when it cannot be read (nothing is written then)."""
    if config.submissions is None:
        return None
    try:
        return read_manifest(config.submissions)
    except ManifestError as exc:
        die(f"{exc} (written by tournament collect: collect again, or remove it to report "
            "without it)")


def game_pictures(config: TournamentConfig, results: Any, out_dir: Path,
                  kind: str) -> dict[str, list[tuple[str, str]]]:
    """Each entrant's best and worst scored game drawn into `out_dir/pictures/`.

    Best is the highest score, worst the lowest (ties: the first game id). Their replays are
    the stored ones, or re-created (and checked against the stored ending) when missing.
    """
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    from pacman.display.export import export_gif, export_strip

    scored = results[results["outcome"] != INFRA_ERROR].sort_values("game_id", kind="mergesort")
    chosen = []
    for _, games in scored.groupby("entrant", sort=True):
        best = games.loc[games["score"].idxmax()]
        worst = games.loc[games["score"].idxmin()]
        chosen += [("best", best), ("worst", worst)]
    if not chosen:
        return {}
    rows = pd.DataFrame([row for _, row in chosen]).drop_duplicates("game_id")
    missing = rows[[replay_of(r, config.output).file is None for r in rows.to_dict("records")]]
    if len(missing):
        recreate_replays_of(config, missing, replays_of(missing, config.output))
    folder = out_dir / "pictures"
    folder.mkdir(parents=True, exist_ok=True)
    shown: dict[str, list[tuple[str, str]]] = {}
    for which, row in chosen:
        found = replay_of(row.to_dict(), config.output).file
        caption = (f"{which} game: {row['game_id']}, {row['outcome']} at {int(row['score'])} "
                   f"after {int(row['moves'])} moves")
        if found is None:
            console.print(f"  no picture of {row['game_id']}: its replay could not be "
                          "re-created", markup=False)
            continue
        name = f"{row['entrant']}-{which}.{'gif' if kind == 'gif' else 'png'}"
        try:
            if kind == "gif":
                export_gif(found, folder / name, fps=10)
            else:
                export_strip(found, folder / name)
        except ReplayError as exc:
            console.print(f"  no picture of {row['game_id']}: {exc}", markup=False)
            continue
        shown.setdefault(str(row["entrant"]), []).append((caption, f"pictures/{name}"))
    return shown


# --- validate ----------------------------------------------------------------------------------

@main.command()
@config_argument
@click.option("--workers", type=int, default=None,
              help="Games at once (default: the config's workers, at most one per core).")
def validate(config_path: Path, workers: int | None) -> None:
    """Check the config, then load every entrant in its sandbox and play one short game each
    (a Pacman against the grid's first ghosts, a ghost team against a built-in Pacman); print
    who is ready and why the others are not, and write the table as validation.csv in the
    output folder (exit 1 when an entrant is not ready)."""
    from datetime import datetime, timezone

    from tournament.privacy import Redactor
    from tournament.tryout import Setup, trials, try_all
    from tournament.validation import line, write_validation

    config = load(config_path)
    if workers is not None and workers < 1:
        die("--workers: expected at least 1")
    console.print(describe_config(config), markup=False)
    if config.scheduler:
        connect_cluster(config).close()  # reachable, and its workers run this version
    # It plays games on this machine: never beside a run, whose time limits it would upset.
    lock_output(config)
    warn_unplayable_teams(config, problems=False)
    warn_other_course_rules(config)
    layers = check_sandbox(config)
    check_baseline_files(config)
    setup = Setup.of(config, layers, Redactor.for_config(config, config_path))
    todo = trials(config)
    # More games at once than cores would slow each one down, and time-outs are wall clock.
    count = min(workers or config.worker_count, os.cpu_count() or 1, max(1, len(todo)))
    checked_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    console.print(f"{setup.describe()} ({count} at once):", markup=False)
    rows: list[ValidationRow] = []
    started = time.perf_counter()
    try:
        # Closed here whatever happens: a Ctrl-C that lands while a line is printed (not
        # while the next row is awaited) must stop the games in progress too, before the
        # interpreter's exit waits for their threads.
        with contextlib.closing(try_all(todo, setup, count)) as tried:
            for row in tried:
                rows.append(row)
                console.print(f"  {line(row)}", markup=False,
                              style=None if row.ready else "red")
    except KeyboardInterrupt:
        console.print(f"stopped after {len(rows)} of {len(todo)} entrants; nothing written",
                      markup=False)
        sys.exit(130)
    elapsed = time.perf_counter() - started
    path = write_validation(rows, config.output, checked_at)
    print_validation(rows)
    console.print(f"tried {len(rows)} in {elapsed:.1f}s; wrote {path}", markup=False)
    sys.exit(0 if all(row.ready for row in rows) else 1)


def print_validation(rows: Sequence[ValidationRow]) -> None:
    """The entrants that are not ready as a table (kind, where, why) and counts per kind."""
    from pacman.problems import KINDS
    from tournament.validation import failures_first, kind_counts

    failed = [row for row in failures_first(rows) if not row.ready]
    if failed:
        table = Table(title=f"Not ready: {len(failed)} of {len(rows)}", box=box.SIMPLE_HEAD,
                      title_justify="left")
        for name, style in (("entrant", "bold"), ("side", ""), ("folder", ""), ("kind", "red"),
                            ("where", ""), ("message", "")):
            table.add_column(name, style=style or None, overflow="fold")
        for row in failed:
            table.add_row(*(Text(v) for v in (row.entrant, row.side, row.folder, row.kind,
                                               row.where, row.message)))
        console.print(table)
        for kind, number in kind_counts(rows):
            console.print(f"  {number} x {kind}: {KINDS[kind]}", markup=False)
    ready = sum(1 for row in rows if row.ready)
    console.print("every entrant is ready" if ready == len(rows)
                  else f"{len(rows) - ready} entrant(s) not ready", markup=False)


# --- collect -----------------------------------------------------------------------------------

def parse_deadline(text: str | None) -> Any:
    """`--deadline` as a UTC instant (None when not given); exit 2 when it is no time or has
    no zone."""
    from tournament.times import TimeProblem, parse_time

    if text is None:
        return None
    try:
        return parse_time(text)
    except TimeProblem as exc:
        die(f"--deadline: {exc}")


@main.command()
@click.argument("sources", metavar="SOURCE...", nargs=-1, required=True,
                type=click.Path(path_type=Path, exists=True))
@click.option("--into", "into", required=True, metavar="DIR",
              type=click.Path(path_type=Path, file_okay=False),
              help="The folder of team folders to write (the config's entrants.submissions).")
@click.option("--mapping", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              metavar="FILE", help="CSV student,team[,name]: which students make a team.")
@click.option("--deadline", metavar="ISO8601",
              help="Submissions after it are late (with a zone: 2024-03-01T23:59:00+01:00).")
@click.option("--late", "late_policy", type=click.Choice(["aside", "take"]), default="aside",
              show_default=True,
              help="Late submissions kept aside and listed, or taken (marked late).")
@click.option("--strict", is_flag=True,
              help="Exit 1 on any problem or refused submission, not only when nothing "
                   "usable was collected.")
@click.option("--local-repositories", is_flag=True,
              help="Collect repositories of this machine (paths, file://) named in a "
                   "repository list; off by default, since a URL a student gave could name "
                   "any repository the organizer can read.")
@click.option("--repository-prefix", "repository_prefixes", multiple=True, metavar="URL",
              help="Collect only repositories whose URL lies under this folder "
                   "(repeatable), e.g. https://git.example.edu/cs188-2024/; a URL with . or "
                   ".. segments, %-escapes or backslashes is refused: a URL a student gave "
                   "could name any repository the organizer's credentials read.")
@click.option("--repository-limit", type=click.IntRange(min=1), default=REPOSITORY_LIMIT_MIB,
              show_default=True, metavar="MIB",
              help="The most MiB one repository's fetched history may take on disk (a file "
                   "once committed counts even when deleted since); a larger one is not "
                   "collected and its cache is removed (its team keeps its files).")
def collect(sources: tuple[Path, ...], into: Path, mapping: Path | None, deadline: str | None,
            late_policy: str, strict: bool, local_repositories: bool,
            repository_prefixes: tuple[str, ...], repository_limit: int) -> None:
    """Turn LMS exports (Canvas, Moodle, Gradescope), plain folders of zips or folders, and
    lists of git repositories (.csv or .yaml) into team folders under DIR and a manifest
    (manifest.json, manifest.csv). Unchanged sources change nothing; teams already in DIR
    are never deleted."""
    from tournament.collect import CollectError
    from tournament.collect import collect as run_collect
    from tournament.sources import RepositoryPolicy
    from tournament.unpack import MIB

    when = parse_deadline(deadline)
    try:
        result = run_collect(list(sources), into, mapping=mapping, deadline=when,
                             late_policy=late_policy,
                             command=this_command(),
                             repositories=RepositoryPolicy(
                                 local_repositories, repository_prefixes,
                                 repository_limit * MIB))
    except CollectError as exc:
        die(str(exc))
    print_collection(result, into, when)
    refused = result.entries("refused")
    if not result.collected:
        sys.exit(1)
    if strict and (refused or result.manifest.problems):
        sys.exit(1)


def print_collection(result: Any, into: Path, deadline: Any) -> None:
    """The summary of a collection: counts, then every refusal and problem, in full."""
    from tournament.times import utc_text

    if deadline is not None:
        console.print(f"deadline: {utc_text(deadline)} (UTC)", markup=False)
    table = Table(title=f"collected into {into}", box=box.SIMPLE, title_justify="left")
    table.add_column("", justify="left")
    table.add_column("teams", justify="right")
    table.add_column("", justify="left")
    rows = [("new", result.new), ("changed", result.changed), ("unchanged", result.unchanged),
            ("kept (not in these sources)", result.kept)]
    for label, names in rows:
        table.add_row(label, str(len(names)), Text(clean(", ".join(names), 200)))
    for status in ("late", "superseded", "refused"):
        entries = result.entries(status)
        table.add_row(f"submissions {status}", str(len(entries)), "")
    table.add_row("problems", str(len(result.manifest.problems)), "")
    console.print(table)
    for entry in result.entries("late"):
        console.print(Text(clean(f"late, set aside: {entry.source}: {entry.reason}")),
                      style="yellow")
    for entry in result.entries("refused"):
        team = f" (team {entry.team})" if entry.team else ""
        console.print(Text(clean(f"refused: {entry.source}{team}: {entry.reason}")),
                      style="red")
    for problem in result.manifest.problems:
        console.print(Text(clean(f"problem: {problem}")), style="red")
    if not result.collected:
        console.print("nothing usable was collected", style="red")


# --- replay ------------------------------------------------------------------------------------

def open_viewer(paths: Sequence[Path], index: int, zoom: float, frame_time: float) -> None:
    """Show `paths[index]` in the window, n/p walking through `paths`; returns when closed.

    Imported here, not at the top, so that listing games needs neither pygame nor a display.
    A module-level function so that tests can replace it and see what would be shown.
    """
    from pacman.display.viewer import watch

    watch(paths, index=index, zoom=zoom, frame_time=frame_time)


@main.command("replay")
@config_argument
@click.option("--team", metavar="NAME", help="Only this entrant's games (a team or baseline).")
@click.option("--layout", metavar="NAME", help="Only games on this layout.")
@click.option("--depth", metavar="N", help="Only games at this search depth ('default': none "
              "given by the grid).")
@click.option("--outcome", metavar="KIND", help=f"Only games that ended so: "
              f"{', '.join(OUTCOME_CHOICES)} (failed: any agent failure).")
@click.option("--game", "game_id", metavar="GAME_ID", help="Only this game "
              "(entrant@layout/depth/ghosts/rules#index, or for a match game "
              "pacman~ghosts@layout/depth/Ng/rules#index).")
@click.option("--list", "list_only", is_flag=True, help="Print the table; open no window.")
@click.option("--pick", type=int, metavar="N", help="Start the viewer at game N of the table "
              "(default: the first with a replay).")
@click.option("--recreate", is_flag=True, help="First play the matching games that have no "
              "replay again (same seeds and submissions) and keep their replays when they end "
              "as stored.")
@click.option("-z", "--zoom", type=float, default=1.0, show_default=True,
              help="Window size factor.")
@click.option("--frameTime", "frame_time", type=float, default=0.1, show_default=True,
              help="Seconds per move in the viewer.")
def replay_command(config_path: Path, team: str | None, layout: str | None,
                   depth: str | None, outcome: str | None, game_id: str | None,
                   list_only: bool, pick: int | None, recreate: bool, zoom: float,
                   frame_time: float) -> None:
    """List the tournament's games (the filters combine), then watch those with a replay.

    The viewer opens on the matching games that have a replay file, at the first (or at
    --pick N) and n/p move to the next or previous one. Which games have a replay depends on
    the config's record.replays when they were played (failures, by default).
    """
    config = load(config_path)
    if not (math.isfinite(zoom) and 0 < zoom <= 10):
        die("-z/--zoom: expected a number above 0 and at most 10")
    if not (math.isfinite(frame_time) and 0 <= frame_time <= 60):
        die("--frameTime: expected seconds from 0 to 60")
    database = config.output / "results.sqlite"
    if not database.is_file():
        die(f"no results yet ({database} does not exist): tournament run {config_path}", 1)
    store = open_store(config)
    split = store_plan(config, store)
    warn_other_platforms(config_path, split)
    results = current_results(config, store, split)
    store.close()
    problems = filter_problems(
        entrants=[e.name for e in config.all_entrants],
        layouts=[choice.name for choice in config.grid.layouts],
        depths=config.grid.depths,
        game_ids=results["game_id"],
        team=team, layout=layout, depth=depth, outcome=outcome, game=game_id)
    if problems:
        die("\n".join(problems))
    games = filter_games(results, team=team, layout=layout,
                         depth=parse_depth(depth) if depth is not None else None,
                         outcome=outcome, game=game_id)
    replays = replays_of(games, config.output)
    if recreate:
        recreate_replays_of(config, games, replays)
        replays = replays_of(games, config.output)
    print_games(config, games, replays, len(results))
    if list_only:
        return
    if games.empty:
        sys.exit(1)
    problem = pick_problem(replays, pick)
    if problem is not None:
        die(problem)
    if all(r.file is None for r in replays):
        explain_missing_replays(config, config_path, len(games))
        sys.exit(1)
    paths, index = viewer_start(replays, pick)
    console.print(f"watching {len(paths)} game(s), starting with {paths[index]}; "
                  "n/p: next/previous game, h: help", markup=False)
    try:
        open_viewer(paths, index, zoom, frame_time)
    except ReplayError as exc:  # a file damaged or replaced since it was written
        die(str(exc))


def print_games(config: TournamentConfig, games: Any, replays: Sequence[Replay],
                total: int) -> None:
    """The numbered table the viewer's list and --pick refer to."""
    watchable = sum(r.file is not None for r in replays)
    if total == 0:
        console.print("no game is stored yet for the current submissions: tournament run "
                      f"{config.source or 'CONFIG'}", markup=False)
        return
    if games.empty:
        console.print(f"no game of the {total} stored matches these filters")
        return
    # Compact, since a game id alone is ~45 characters. In a narrow terminal the id and the
    # message fold (every character kept, to copy into --game); the short columns never wrap.
    table = Table(title=f"{config.name}: {len(games)} of {total} games, {watchable} with a "
                        "replay", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  title_justify="left")
    wide = not console.is_terminal
    longest = int(games["game_id"].str.len().max())
    # The message gives way before the id does, down to a narrow terminal's last resort.
    id_width = min(longest, max(16, (200 if wide else console.width) - 105))
    for column in ("#", "game", "team", "layout", "depth", "outcome", "score", "moves",
                   "replay", "message"):
        right = column in ("#", "depth", "score", "moves")
        table.add_column(column, justify="right" if right else "left",
                         no_wrap=column not in ("game", "message"), overflow="fold",
                         min_width={"game": id_width, "message": 16}.get(column))
    for number, (row, found) in enumerate(zip(games.to_dict("records"), replays), start=1):
        table.add_row(str(number), Text(str(row["game_id"])), Text(str(row["entrant"])),
                      Text(str(row["layout"])), depth_label(row["depth"]),
                      Text(outcome_label(str(row["outcome"]), row["culprit"])),
                      str(int(row["score"])), str(int(row["moves"])),
                      found.status, Text(short_message(row["message"])))
    # A log or a pipe has no width to respect: there every row is printed on one line.
    width = console.width
    if wide:
        console.width = 200
    try:
        console.print(table)
    finally:
        console.width = width


def explain_missing_replays(config: TournamentConfig, config_path: Path, count: int) -> None:
    """Why nothing can be shown, and the two honest ways to get replays of stored games."""
    policy = config.record.replays
    kept = {"none": "no replays", "failures": "replays of games an agent failed",
            "all": "every game's replay"}[policy]
    console.print(
        f"none of these {count} game(s) has a replay file to watch. This config keeps {kept} "
        f"(record: {{replays: {policy}}}), and a replay is written only when a game is "
        "played: `tournament run` does not play stored games again, so changing the policy "
        "now adds no replay to them. To watch these games, either\n"
        "  - re-create their replays: the same command with --recreate (plays them again "
        "with the same seeds and submissions, one at a time, and keeps each replay only if "
        "the game ends as stored), or\n"
        "  - set `record: {replays: all}` in the config, delete "
        f"{config.output / 'results.sqlite'} and run `tournament run {config_path}` again "
        "(every game is played again).", markup=False)


def recreate_replays_of(config: TournamentConfig, games: Any,
                        replays: Sequence[Replay]) -> None:
    """Play again, in this process, each listed game that has no replay, keeping its replay.

    A game is reproducible from its stored seed and submission (the results hold only games
    of the current submissions), but timing is not: a game that ended by a time limit may
    end differently, and its replay would then show another game. So the new game's outcome,
    culprit, score and moves are compared with the stored ones and the replay is kept only
    when they agree, under a name that carries the submission hash and seed
    (`tournament.browse.recreated_replay`).
    """
    rows = [row for row, found in zip(games.to_dict("records"), replays) if found.file is None]
    if not rows:
        console.print("every matching game already has a replay; nothing to re-create")
        return
    lock_output(config)  # games are played again: not beside a run on the same folder
    # The teams' code plays again: under the same confinement as `run`, or not at all.
    layers = check_sandbox(config)
    scheduled = {g.game_id: g for g in schedule(config)}
    hashes = entrant_hashes(config)
    try:
        with open_store(config) as store:
            checked_secret(config, store)
            check_settings(config, store, str(config.output / "results.sqlite"))
    except (SecretError, SettingsChanged) as exc:
        die(str(exc))
    console.print(f"re-creating the replays of {len(rows)} game(s), one at a time")
    kept = 0
    with tempfile.TemporaryDirectory(prefix=".recreating-", dir=config.output) as scratch:
        try:
            for done in recreate(config, rows, scheduled, hashes, scratch, layers):
                if done.path is None:
                    console.print(f"  {done.game_id}: not re-created: {done.why}", markup=False)
                else:
                    kept += 1
                    console.print(f"  {done.game_id}: re-created, {done.path}", markup=False)
        except KeyboardInterrupt:
            console.print("stopped: the replays re-created so far are kept")
            sys.exit(130)
    console.print(f"re-created {kept} of {len(rows)} replay(s)")
