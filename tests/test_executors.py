"""No game is lost or stored twice when workers die, in the local pool and on Dask.

The ledger's bookkeeping is checked on its own; then whole runs have their workers killed
many times, at points a seeded plan chooses (exact expectations) or at random moments from
outside (any point: starting, playing, sending a row, idle), and every scheduled game must
reach the callback exactly once, with the row an undisturbed game gives, or as the
platform's failure once it has died more than `RETRIES` times.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.chaos import Chaos, pool_workers
from tests.test_sandbox_zoo import UNAVAILABLE
from tests.test_tournament_run import make_tournament
from tournament.config import load_config
from tournament.executors import RETRIES, Ledger, LocalExecutor
from tournament.runner import GameOutput, GameTask, play_task, submission_hash, tasks_for
from tournament.schedule import schedule

#: What decides a game; timings, hosts and dates do not.
DECIDING = ("game_id", "entrant", "submission_hash", "cell", "seed", "outcome", "culprit",
            "score", "win", "moves")


def make_tasks(root: Path, games: int) -> list[GameTask]:
    """Short games of a sandboxed team (when this machine has a sandbox) and a baseline."""
    teams = {} if UNAVAILABLE else {"alpha": "example"}
    config = load_config(make_tournament(root, teams, games=games, layouts="[testClassic]"))
    hashes = {e.name: submission_hash(e) for e in config.entrants}
    return tasks_for(config, schedule(config), hashes)


def deciding(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[name] for name in DECIDING)


class Collector:
    """The organizer's callback: every row it is handed, in order."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, task: GameTask, output: GameOutput) -> None:
        assert output.key == task.key and output.row["game_id"] == task.game.game_id
        with self.lock:
            self.rows.append(dict(output.row))

    def once_each(self, tasks: list[GameTask]) -> dict[str, dict[str, Any]]:
        """The rows by game id, after checking that each task came back exactly once."""
        counts = Counter(row["game_id"] for row in self.rows)
        twice = sorted(gid for gid, n in counts.items() if n > 1)
        assert not twice, f"stored more than once: {twice}"
        assert sorted(counts) == sorted(t.game.game_id for t in tasks), "games missing"
        return {row["game_id"]: row for row in self.rows}


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> list[GameTask]:
    return make_tasks(tmp_path_factory.mktemp("tasks"), games=12)


@pytest.fixture(scope="module")
def undisturbed(tasks: list[GameTask]) -> dict[str, tuple[Any, ...]]:
    """Each game played once in this process, nobody killed."""
    return {t.game.game_id: deciding(dict(play_task(t).row)) for t in tasks}


# --- the ledger --------------------------------------------------------------------------------

def test_the_ledger_keeps_each_task_in_exactly_one_place(tasks: list[GameTask]) -> None:
    a, b, c = tasks[:3]
    ledger = Ledger([a, b, c])

    def places() -> tuple[list[str], list[str], list[str]]:
        return ([t.game.game_id for t in ledger.again], sorted(ledger.in_flight),
                sorted(ledger.done))

    assert ledger.take() is a and ledger.take() is b
    assert places() == ([], sorted([a.game.game_id, b.game.game_id]), [])
    ledger.stored(a)
    ledger.put_back(b)  # never ran: back at the front, uncharged
    assert places() == ([b.game.game_id], [], [a.game.game_id])
    assert ledger.deaths[b.game.game_id] == 0
    with pytest.raises(KeyError):
        ledger.stored(a)  # already done: a second store is a bug, not a replace
    assert not ledger.finished
    assert ledger.take() is b and ledger.take() is c  # what was put back comes first
    twice = Ledger([a, b, a])
    twice.take(), twice.take()
    with pytest.raises(ValueError, match="scheduled twice"):
        twice.take()


def test_the_ledger_makes_tasks_only_as_they_are_taken(tasks: list[GameTask]) -> None:
    made: list[str] = []

    def lazily() -> Iterator[GameTask]:
        for task in tasks:
            made.append(task.game.game_id)
            yield task

    ledger = Ledger(lazily())
    assert made == []
    ledger.take()
    assert len(made) == 1
    assert ledger.todo and len(made) == 2  # asking whether any is left makes the next one


def test_a_task_that_keeps_dying_is_recorded_as_the_platforms_failure(
        tasks: list[GameTask]) -> None:
    task = tasks[0]
    ledger = Ledger([task])
    for _ in range(RETRIES):
        assert ledger.take() is task
        assert ledger.died(task) is False  # back to be played again
        assert list(ledger.again) == [task] and not ledger.in_flight
    ledger.take()
    assert ledger.died(task) is True  # kept in flight until its row is stored
    assert list(ledger.in_flight) == [task.game.game_id] and not ledger.todo
    row = ledger.death_output(task).row
    assert row["outcome"] == "infra_error" and row["game_id"] == task.game.game_id
    assert row["message"] == f"its worker process died {RETRIES + 1} times"
    assert row["score"] == 0 and not row["win"] and row["culprit"] is None
    ledger.stored(task)
    assert ledger.finished and ledger.done == {task.game.game_id}


def test_leaving_early_puts_what_is_in_flight_back(tasks: list[GameTask]) -> None:
    ledger = Ledger(tasks[:4])
    first, second = ledger.take(), ledger.take()
    ledger.stored(first)
    ledger.put_back_all()
    assert not ledger.in_flight and ledger.done == {first.game.game_id}
    assert [ledger.take().game.game_id for _ in range(3)] == [t.game.game_id for t in
                                                              (second, *tasks[2:4])]
    assert not ledger.todo


# --- whole runs with dying workers -------------------------------------------------------------

def expected(chaos: Chaos, undisturbed: dict[str, tuple[Any, ...]], gid: str) -> str:
    """`win`/`loss`/... of the undisturbed game, or infra_error if the plan kills every try."""
    if chaos.deaths(gid, RETRIES + 1) > RETRIES:
        return "infra_error"
    return str(undisturbed[gid][DECIDING.index("outcome")])


def planned_deaths_run(folder: Path, tasks: list[GameTask],
                       undisturbed: dict[str, tuple[Any, ...]], seed: int) -> None:
    """A run whose workers die where `Chaos(seed)` plans: every game comes back once, as
    the undisturbed game or, if every try died, as the platform's failure."""
    chaos = Chaos(seed=seed, folder=str(folder), chance=0.45)
    got = Collector()
    LocalExecutor(2, play=chaos).run(tasks, got)
    rows = got.once_each(tasks)
    deaths = 0
    for task in tasks:
        gid = task.game.game_id
        planned = chaos.deaths(gid, RETRIES + 1)
        deaths += planned
        # Each game was started once per planned death, plus the try that lived.
        assert chaos.attempts(gid) == planned + (planned <= RETRIES), gid
        if planned > RETRIES:
            assert rows[gid]["outcome"] == "infra_error", gid
            assert rows[gid]["message"] == f"its worker process died {RETRIES + 1} times"
        else:
            assert deciding(rows[gid]) == undisturbed[gid], gid
    assert deaths >= len(tasks) // 4  # the plan did kill: these seeds give plenty
    assert not pool_workers(os.getpid())  # none left behind


def random_kills_run(tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]],
                     seed: int) -> None:
    """A run whose workers a killer thread SIGKILLs at random moments: starting, playing,
    sending a row, or idle. The verdict holds whatever the moments are."""
    rng = random.Random(seed)
    stop = threading.Event()
    killed: list[int] = []

    def killer() -> None:
        while not stop.wait(rng.uniform(0.0, 0.15)):
            workers = pool_workers(os.getpid())
            if workers:
                victim = rng.choice(workers)
                try:
                    os.kill(victim, signal.SIGKILL)
                except ProcessLookupError:
                    continue
                killed.append(victim)

    got = Collector()
    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        LocalExecutor(2).run(tasks, got)
    finally:
        stop.set()
        thread.join()
    rows = got.once_each(tasks)
    for gid, row in rows.items():
        if row["outcome"] == "infra_error":
            assert row["message"] == f"its worker process died {RETRIES + 1} times"
        else:
            assert deciding(row) == undisturbed[gid], (gid, f"{len(killed)} kills")
    assert not pool_workers(os.getpid())


@pytest.mark.parametrize("seed", [1, 2])
def test_workers_that_die_at_planned_points_cost_only_replays(
        tmp_path: Path, tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]],
        seed: int) -> None:
    planned_deaths_run(tmp_path, tasks, undisturbed, seed)


def test_workers_killed_from_outside_at_any_moment_cost_only_replays(
        tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]]) -> None:
    random_kills_run(tasks, undisturbed, seed=7)


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(100, 150))
def test_soak_planned_deaths(tmp_path: Path, tasks: list[GameTask],
                             undisturbed: dict[str, tuple[Any, ...]], seed: int) -> None:
    """By hand: `pytest -m soak tests/test_executors.py` (about 3 minutes on 2 cores)."""
    planned_deaths_run(tmp_path, tasks, undisturbed, seed)


@pytest.mark.soak
@pytest.mark.parametrize("seed", range(100, 150))
def test_soak_random_kills(tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]],
                           seed: int) -> None:
    random_kills_run(tasks, undisturbed, seed)


class Boom(Exception):
    pass


def test_a_failing_callback_stops_the_run_and_the_next_run_finishes_it(
        tmp_path: Path, tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]]) -> None:
    """A store that fails mid-run (a full disk) ends the run with its error, leaves no worker
    behind, and the games it did not store are all played by the next run."""
    stored: list[dict[str, Any]] = []

    def fragile(task: GameTask, output: GameOutput) -> None:
        if len(stored) == 5:
            raise Boom("disk full")
        stored.append(dict(output.row))

    chaos = Chaos(seed=3, folder=str(tmp_path), chance=0.3)
    with pytest.raises(Boom):
        LocalExecutor(2, play=chaos).run(tasks, fragile)
    assert not pool_workers(os.getpid())
    done = {row["game_id"] for row in stored}
    rest = Collector()
    LocalExecutor(2).run([t for t in tasks if t.game.game_id not in done], rest)
    got = Collector()
    got.rows = stored + rest.rows
    rows = got.once_each(tasks)
    assert all(deciding(rows[gid]) == undisturbed[gid] for gid in rows
               if rows[gid]["outcome"] != "infra_error")


def test_a_ctrl_c_in_the_organizer_stops_at_once_and_keeps_what_was_stored(
        tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]]) -> None:
    stored: list[dict[str, Any]] = []

    def interrupted(task: GameTask, output: GameOutput) -> None:
        stored.append(dict(output.row))
        if len(stored) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        LocalExecutor(2).run(tasks, interrupted)
    assert not pool_workers(os.getpid())
    # The row being stored when Ctrl-C came, and any already sent, are kept; none twice.
    ids = [row["game_id"] for row in stored]
    assert len(ids) == len(set(ids)) >= 3
    assert all(deciding(row) == undisturbed[row["game_id"]] for row in stored)


def stuck_on_first(task: GameTask, cache: Any) -> GameOutput:
    """A worker's play that never returns on each entrant's first game (an in-process agent
    whose move never ends), and plays the others."""
    if task.game.index == 0:
        threading.Event().wait()
    return play_task(task, cache)


def first_games_due(task: GameTask) -> float | None:
    """A deadline for the games that never end only: the others may take what they take."""
    return 0.5 if task.game.index == 0 else None


def raises_on_first(task: GameTask, cache: Any) -> GameOutput:
    """A worker's play that raises on each entrant's first game, and plays the others."""
    if task.game.index == 0:
        raise ValueError("no such luck")
    return play_task(task, cache)


def no_deadline(task: GameTask) -> float | None:
    """No game has a deadline (a Dask worker then plays each in its own thread)."""
    return None


def test_a_game_held_past_its_deadline_ends_its_worker_and_counts_as_a_death(
        tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]]) -> None:
    """No run stalls on a game that never ends: past its deadline its worker is ended and the
    game charged with a death (replayed, then the platform's failure saying why); every other
    game is played as it is undisturbed, and no worker is left behind."""
    got = Collector()
    LocalExecutor(2, play=stuck_on_first, deadline=first_games_due).run(tasks, got)
    rows = got.once_each(tasks)
    stuck = [t.game.game_id for t in tasks if t.game.index == 0]
    assert stuck
    for gid, row in rows.items():
        if gid in stuck:
            assert row["outcome"] == "infra_error"
            assert row["message"] == (f"its worker held it past its deadline (0.5 s, beyond what "
                                      f"its agents' limits allow) and was ended {RETRIES + 1} "
                                      "times")
        else:
            assert deciding(row) == undisturbed[gid]
    assert not pool_workers(os.getpid())


def test_a_games_deadline_is_what_its_limits_allow_with_a_margin(
        tasks: list[GameTask]) -> None:
    import dataclasses

    from pacman.limits import BACKSTOP, UNTIMED, Limits, builtin_limits, longest_game
    from tournament.executors import DEADLINE_FACTOR, DEADLINE_SLACK, game_deadline

    # Start-up per agent, then every move at the hard limit, or each agent's game total.
    assert longest_game(Limits(), 400, 3) == 3 * 15 + 400 * 3
    assert longest_game(Limits(game_total=10), 400, 3) == 3 * 15 + 3 * 10
    assert longest_game(Limits(move_hard=None, game_total=10), 400, 2) == 2 * 15 + 2 * 10
    assert longest_game(UNTIMED, 400, 3) is None
    assert longest_game(Limits(startup=None), 400, 3) is None
    task = tasks[0]
    agents = 1 + task.game.cell.num_ghosts
    assert game_deadline(task) == (DEADLINE_FACTOR * longest_game(task.limits, task.max_moves,
                                                                  agents) + DEADLINE_SLACK)
    assert game_deadline(dataclasses.replace(task, limits=UNTIMED)) is None
    # A tournament's built-ins are not held to the game total (`GameSpec.builtin_totals`,
    # `builtin_limits`): it bounds the teams alone, and the built-ins' moves the backstop's
    # hard limit where the total was all there was, so no game goes without a deadline (the
    # review of this change: a stuck built-in held its worker for ever).
    assert longest_game(Limits(game_total=10), 400, 3, totals=False) == 3 * 15 + 400 * 3
    assert longest_game(Limits(move_hard=None, game_total=10), 400, 2, totals=False) == (
        2 * 15 + 2 * 10 + 400 * BACKSTOP["move_hard"])
    assert builtin_limits(Limits(move_hard=None, game_total=10)) == Limits(
        move_hard=BACKSTOP["move_hard"], game_total=None, cpu_seconds=None)
    assert builtin_limits(UNTIMED) == UNTIMED
    totalled = dataclasses.replace(task, limits=Limits(move_hard=None, game_total=10))
    assert task.ghost.builtin and not task.ghost.team
    assert game_deadline(totalled) == DEADLINE_FACTOR * (
        agents * 15 + agents * 10 + task.max_moves * BACKSTOP["move_hard"]) + DEADLINE_SLACK
    team_ghost = dataclasses.replace(task.ghost, team="/teams/t")
    assert game_deadline(dataclasses.replace(totalled, ghost=team_ghost)) == (
        DEADLINE_FACTOR * (agents * 15 + agents * 10) + DEADLINE_SLACK)


# --- Dask --------------------------------------------------------------------------------------

def test_dask_workers_that_die_cost_only_replays(
        tmp_path: Path, tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]]) -> None:
    """A Dask worker process killed while it plays (the same plan): the scheduler runs its
    game elsewhere, or reports it lost after the cluster's allowed failures."""
    distributed = pytest.importorskip("distributed")
    from tournament.executors import DaskExecutor

    chaos = Chaos(seed=4, folder=str(tmp_path), chance=0.25)
    some = tasks[:10]
    got = Collector()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        # Games in the worker threads themselves (no deadline), so the plan kills workers.
        DaskExecutor(cluster.scheduler_address, play=chaos, deadline=no_deadline).run(some, got)
    rows = got.once_each(some)
    died = sum(chaos.deaths(t.game.game_id, 1) for t in some)
    assert died > 0  # the plan kills a first try of some game with this seed
    for gid, row in rows.items():
        if row["outcome"] == "infra_error":
            # Lost past the allowed failures: the scheduler says KilledWorker, or (when the
            # future comes back lost before it says so, a matter of timing) the ledger does.
            assert ("KilledWorker" in row["message"]
                    or "the cluster lost it" in row["message"]), row["message"]
        else:
            assert deciding(row) == undisturbed[gid], gid


def test_a_dask_game_held_past_its_deadline_is_ended_and_counts_as_a_death(
        tmp_path: Path, tasks: list[GameTask], undisturbed: dict[str, tuple[Any, ...]]) -> None:
    """No run on a cluster stalls on a game that never ends: a game with a deadline plays in a
    process of its worker thread's own, ended at the deadline, and the game is charged with a
    death (played again, then the platform's failure saying why), as in the local pool. The
    other games, played in such processes, are as undisturbed; a game whose process dies is
    charged the same way, and its worker plays on."""
    distributed = pytest.importorskip("distributed")
    from tournament.executors import DaskExecutor

    some = [t for t in tasks if t.game.index in (0, 1)]
    stuck = {t.game.game_id for t in some if t.game.index == 0}
    assert stuck and len(stuck) < len(some)
    got = Collector()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        DaskExecutor(cluster.scheduler_address, play=stuck_on_first,
                     deadline=first_games_due).run(some, got)
        rows = got.once_each(some)
        for gid, row in rows.items():
            if gid in stuck:
                assert row["outcome"] == "infra_error"
                assert row["message"] == (
                    f"its worker held it past its deadline (0.5 s, beyond what its agents' "
                    f"limits allow) and was ended {RETRIES + 1} times")
            else:
                assert deciding(row) == undisturbed[gid], row
        first = [t for t in some if t.game.index == 0]

        def played(play: Any) -> list[dict[str, Any]]:
            """The first games' rows, played by `play` in game processes (a long deadline)."""
            rows = Collector()
            DaskExecutor(cluster.scheduler_address, play=play,
                         deadline=lambda task: 3600.0).run(first, rows)
            return list(rows.once_each(first).values())

        # A game process that dies (each try of a game, by the plan), and a game that raises
        # in its process (it comes back as it would from the thread).
        died = played(Chaos(seed=4, folder=str(tmp_path), chance=1.0))
        assert [(r["outcome"], r["message"]) for r in died] == [
            ("infra_error", f"its game process died {RETRIES + 1} times")] * len(first)
        for row in played(raises_on_first):
            assert row["outcome"] == "infra_error"
            assert "ValueError: no such luck" in row["message"], row["message"]


class HeldUntil:
    """A worker's play that says it started (a file), waits for `go` (a file, with a
    deadline), then plays the game."""

    def __init__(self, folder: str) -> None:
        self.started = Path(folder) / "started"
        self.go = Path(folder) / "go"

    def __call__(self, task: GameTask, cache: Any) -> GameOutput:
        self.started.touch()
        end = time.monotonic() + RUN_LIMIT
        while not self.go.exists() and time.monotonic() < end:
            time.sleep(0.05)
        return play_task(task, cache)


#: Seconds a run in these tests may take before the test gives up on it.
RUN_LIMIT = 300.0


@pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")
def test_two_runs_on_one_cluster_never_play_each_others_team_files(tmp_path: Path) -> None:
    """Found by the seventh hostile review: two runs on one cluster whose teams have the same
    files (starter code, say) under different names named their scattered snapshots alike,
    so one run's game got the other's, found no team folder, and was stored as the team's
    own load_error. Here alpha's run holds its team's files on the cluster while beta's
    plays: each game plays its own team, and neither is anybody's failure."""
    distributed = pytest.importorskip("distributed")
    from tournament.bundles import TeamCache, snapshot_digest
    from tournament.executors import DaskExecutor
    from tournament.runner import Snapshots

    runs: dict[str, tuple[list[GameTask], TeamCache]] = {}
    for name in ("alpha", "beta"):
        config = load_config(make_tournament(tmp_path / name, {name: "example"}, games=1,
                                             layouts="[testClassic]"))
        cache = TeamCache(tmp_path / name / "cache")
        snapshots = Snapshots.take(config, cache)
        hashes, _ = snapshots.hashes(config)
        runs[name] = ([t for t in tasks_for(config, schedule(config), hashes, "ab" * 32,
                                            snapshots=snapshots) if t.bundles], cache)
    [alpha], [beta] = runs["alpha"][0], runs["beta"][0]
    assert snapshot_digest(alpha.bundles[0]) == snapshot_digest(beta.bundles[0])
    assert alpha.bundles != beta.bundles
    held = HeldUntil(str(tmp_path))
    rows = {name: Collector() for name in runs}
    # One worker, so that both runs' snapshots are sent to the same one.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as cluster:
        raised: list[BaseException] = []

        def alpha_run() -> None:
            try:
                DaskExecutor(cluster.scheduler_address, play=held, cache=runs["alpha"][1],
                             deadline=no_deadline).run([alpha], rows["alpha"])
            except BaseException as exc:  # said by the test, not lost with the thread
                raised.append(exc)

        first = threading.Thread(target=alpha_run)
        first.start()
        try:
            end = time.monotonic() + RUN_LIMIT
            while not held.started.exists() and time.monotonic() < end:
                time.sleep(0.05)
            assert held.started.exists(), "alpha's game never started"
            DaskExecutor(cluster.scheduler_address, cache=runs["beta"][1],
                         deadline=no_deadline).run([beta], rows["beta"])
        finally:
            held.go.touch()
            first.join(RUN_LIMIT)
    assert not first.is_alive(), "alpha's run did not end"
    if raised:
        raise raised[0]
    for name, task in (("alpha", alpha), ("beta", beta)):
        [row] = rows[name].once_each([task]).values()
        assert row["entrant"] == name
        assert row["outcome"] not in ("load_error", "infra_error"), row["message"]


def test_a_dask_game_sent_other_snapshots_than_it_names_is_not_played(
        tmp_path: Path) -> None:
    """What a worker is sent must be what the game names: else the platform's failure
    (raised, so `dask: ...`), never a game played without its team's files."""
    from tournament.bundles import Bundle
    from tournament.executors import _on_worker

    [task] = [t for t in make_tasks(tmp_path, games=1) if t.bundles] or [None]
    if task is None:
        pytest.skip("no team snapshot without a sandbox")
    other = Bundle("0" * 64 + "/beta", ())
    with pytest.raises(ValueError, match="names team snapshots"):
        _on_worker(play_task, None, task, other)


@pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")
def test_a_snapshot_damaged_while_a_dask_worker_runs_costs_one_game_not_every_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker trusts a snapshot it unpacked; damaged afterwards (a cleaner of its folders),
    the game that finds it is the platform's failure, and the next game sent it checks it
    and unpacks it again (found by this change's review: it failed run after run)."""
    from tournament import executors
    from tournament.bundles import TeamCache
    from tournament.runner import Snapshots

    config = load_config(make_tournament(tmp_path / "cup", {"alpha": "example"}, games=1,
                                         layouts="[testClassic]"))
    organizer = TeamCache(tmp_path / "organizer")
    snapshots = Snapshots.take(config, organizer)
    hashes, _ = snapshots.hashes(config)
    [task] = [t for t in tasks_for(config, schedule(config), hashes, "ab" * 32,
                                   snapshots=snapshots) if t.bundles]
    bundle = organizer.pack(task.bundles[0])
    worker = TeamCache(tmp_path / "worker")
    monkeypatch.setattr(executors, "worker_cache", lambda: worker)

    def outcome() -> str:
        output = executors._on_worker(play_task, None, task, bundle)
        assert isinstance(output, GameOutput)
        return str(output.row["outcome"])

    assert outcome() != "infra_error"
    for path in worker.folder(task.bundles[0]).rglob("*.py"):
        path.unlink()
    assert outcome() == "infra_error"
    assert outcome() != "infra_error"


def test_a_dask_worker_plays_no_more_games_at_once_than_memory_holds(
        tasks: list[GameTask]) -> None:
    """Found by the eighteenth hostile review: a Dask worker's threads are its operator's
    choice (16 on a 32 GiB machine, 2 GiB sandboxes, two a match game), and nothing bounded
    them by memory. A game waits while its sandboxes at their limits would not fit."""
    from tournament.executors import MemorySlots, game_memory_mib

    task = tasks[0]
    assert task.pacman is not None and task.pacman.path is not None  # a team's, sandboxed
    assert game_memory_mib(task) == task.limits.memory_mb  # the built-in ghost is in-process
    slots = MemorySlots()
    entered = {name: threading.Event() for name in ("large", "small")}
    leave = threading.Event()

    def game(name: str, need: int) -> None:
        with slots.held(need, 1000):
            entered[name].set()
            assert leave.wait(60)

    def until_waiting(count: int) -> None:
        deadline = time.monotonic() + 60
        while slots.waiting < count:
            assert time.monotonic() < deadline, "a game never asked for room"
            time.sleep(0.01)

    threads = []
    with slots.held(600, 1000):
        threads.append(threading.Thread(target=game, args=("large", 600)))
        threads[-1].start()
        until_waiting(1)
        # A smaller game that would fit waits behind the larger one that asked first, which
        # small games arriving one after another would otherwise pass for ever.
        threads.append(threading.Thread(target=game, args=("small", 300)))
        threads[-1].start()
        until_waiting(2)  # both waiting for room: neither has entered
        assert not entered["large"].is_set() and not entered["small"].is_set()
        assert slots.used == 600
    assert entered["large"].wait(60) and entered["small"].wait(60)  # room freed: both play
    assert slots.used == 900
    leave.set()
    for thread in threads:
        thread.join(60)
    assert slots.used == 0
    with slots.held(5000, 1000):  # larger than the room: plays alone, never waits for ever
        assert slots.used == 5000
    with slots.held(600, None):  # room unknown: not counted
        assert slots.used == 0
