"""Run records (`tournament.runs`): each `tournament run` is a row of the store's `runs`
table, every game it stores carries its number (stamped by the organizer, whatever a worker
says), a run's games are counted in each game's own transaction, and an older results file
gains the table and the column in place."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from pacman import __version__
from tests.test_outputs import made  # noqa: F401  (the module's tasks, played below)
from tournament.bundles import TeamCache
from tournament.outputs import Keeper
from tournament.results import ADDED, COLUMNS
from tournament.runner import GameTask, play_task
from tournament.runs import FAILED, FINISHED, STOPPED, RunRecord, describe, ending_of, short_time
from tournament.store import Store, StoreError


def test_how_a_command_ended_names_the_run() -> None:
    assert ending_of(None) == FINISHED
    assert ending_of(SystemExit(0)) == ending_of(SystemExit(None)) == FINISHED
    assert ending_of(KeyboardInterrupt()) == ending_of(SystemExit(130)) == STOPPED
    assert ending_of(SystemExit(2)) == ending_of(SystemExit(1)) == FAILED  # config, cluster
    assert ending_of(RuntimeError("disk full")) == FAILED


def test_runs_are_numbered_timed_and_counted(
        made: tuple[list[GameTask], TeamCache, Path], tmp_path: Path) -> None:  # noqa: F811
    tasks, cache, _ = made
    outputs = [(task, play_task(task, cache)) for task in tasks[:3]]
    with Store(tmp_path / "r.sqlite") as store:
        assert store.runs() == []
        first = store.open_run(__version__)
        keeper = Keeper(tmp_path, store, run_id=first)
        for task, output in outputs[:2]:
            # A worker's word on the run is never taken: the organizer stamps it.
            claimed = dataclasses.replace(output, row={**output.row, "run_id": 99})
            assert keeper.keep(task, claimed)["run_id"] == first
        [running] = store.runs()
        assert (running.run_id, running.games, running.ended, running.finished_at) == (
            1, 2, None, None)
        assert running.how == "did not finish"
        store.close_run(first, FINISHED)
        second = store.open_run(__version__)
        task, output = outputs[0]
        Keeper(tmp_path, store, run_id=second).keep(task, output)  # the same game again
        store.close_run(second, STOPPED)
        with pytest.raises(StoreError, match="refusing to end run 2 as 'crashed'"):
            store.close_run(second, "crashed")
        runs = store.runs()
        assert [(r.run_id, r.games, r.ended, r.version) for r in runs] == [
            (1, 2, FINISHED, __version__), (2, 1, STOPPED, __version__)]
        assert all(r.finished_at is not None and r.finished_at >= r.started_at for r in runs)
        assert [r.run_id for r in store.runs(last=1)] == [2]
        frame = store.frame()
        by_game = dict(zip(frame["game_id"], frame["run_id"]))
        assert by_game == {tasks[0].game.game_id: 2, tasks[1].game.game_id: 1}


def test_a_run_killed_keeps_its_record_and_its_count(tmp_path: Path) -> None:
    """Nothing ends the record of a run killed outright; what it stored is counted."""
    with Store(tmp_path / "r.sqlite") as store:
        run = store.open_run(__version__)
        row = {name: 0 for name, _ in COLUMNS}
        row.update(game_id="a@c#0", entrant="a", outcome="win", run_id=run, depth=None,
                   culprit=None, replay=None)
        store.put(row)  # type: ignore[arg-type]
    with Store(tmp_path / "r.sqlite") as store:  # the next command
        [record] = store.runs()
        assert (record.games, record.ended, record.finished_at) == (1, None, None)
        assert describe(record).endswith(", did not finish, 1 game")


def test_an_older_results_file_gains_the_runs_and_the_column(tmp_path: Path) -> None:
    """A results file from before run records (match columns already there) keeps its
    games, with no run (NULL); the next run is run 1."""
    old = [(name, kind) for name, kind in COLUMNS if name != "run_id"]
    assert "run_id" in ADDED and [name for name, _ in COLUMNS][-1] == "run_id"
    path = tmp_path / "r.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE TABLE games ({', '.join(f'{n} {k}' for n, k in old)})")
        values = {name: 0 for name, _ in old}
        values.update(game_id="a@c#0", entrant="a", submission_hash="h", outcome="win",
                      ghost_entrant="", ghost_hash="")
        conn.execute(f"INSERT INTO games VALUES ({', '.join('?' for _ in old)})",
                     [values[n] for n, _ in old])
    conn.close()
    with Store(path) as store:
        frame = store.frame()
        assert list(frame.columns) == [name for name, _ in COLUMNS]
        assert frame["run_id"].isna().all()
        assert store.runs() == []
        assert store.open_run(__version__) == 1


def test_times_and_lines_for_people() -> None:
    assert short_time("2025-03-01T09:12:44+00:00") == "2025-03-01 09:12 UTC"
    assert short_time("2025-03-01T10:12:44+01:00") == "2025-03-01 09:12 UTC"
    assert short_time("yesterday") == "yesterday" and short_time(None) == ""
    run = RunRecord(3, "2025-03-02T02:00:05+00:00", "2025-03-02T02:05:00+00:00", "0.1.0",
                    FINISHED, 24)
    assert describe(run) == "run 3: 2025-03-02 02:00 UTC to 02:05 UTC, finished, 24 games"
    later = dataclasses.replace(run, finished_at="2025-03-03T01:00:00+00:00", ended=FAILED,
                                games=1)
    assert describe(later) == ("run 3: 2025-03-02 02:00 UTC to 2025-03-03 01:00 UTC, failed, "
                               "1 game")


def test_the_first_run_of_each_master_seed_is_kept(tmp_path: Path) -> None:
    """What `tournament marks` asks to tell whether a seed's draws were shown before the
    deadline: the first run that played it; a run that stored nothing played none, and a
    store from before seeds were recorded answers with its first run (it may have)."""
    import datetime as dt

    from tournament.marks import published_draws

    with Store(tmp_path / "r.sqlite") as store:
        assert store.seed_first_run(11) is None
        idle = store.open_run(__version__, 11)
        assert store.seed_first_run(11) == (idle, store.runs()[-1].started_at)
        store.close_run(idle, STOPPED)
        assert store.forget_idle_run(idle)
        assert store.seed_first_run(11) is None  # it stored nothing: it showed nothing
        first = store.open_run(__version__, 11)
        store.conn.execute("UPDATE runs SET games = 1 WHERE run_id = ?", (first,))
        store.close_run(first, FINISHED)
        second = store.open_run(__version__, 11)
        store.close_run(second, FINISHED)
        started = store.runs()[-2].started_at
        assert store.seed_first_run(11) == (first, started)
        assert store.seed_first_run(12) is None
    with Store(tmp_path / "old.sqlite") as store:  # runs and games, but no seed recorded
        from tournament.schedule import seed_of

        old = store.open_run(__version__)
        row = {name: 0 for name, _ in COLUMNS}
        row.update(game_id="a@smallClassic/d2/RandomGhost2/classic#3", entrant="a",
                   cell="smallClassic/d2/RandomGhost2/classic", game_index=3,
                   outcome="win", run_id=old, depth=None, culprit=None, replay=None,
                   seed=seed_of(5, "smallClassic/d2/RandomGhost2/classic", 3))
        store.put(row)  # type: ignore[arg-type]
        started = store.runs()[0].started_at
        assert store.seed_first_run(5) == (old, started)  # a game of it is stored
        assert store.seed_first_run(6) is None  # none of 6
        new = store.open_run(__version__, 6)  # a new seed, after the upgrade
        assert store.seed_first_run(6) == (new, store.runs()[-1].started_at)
        assert store.seed_first_run(5) == (old, started)  # still: the old run's game

    def at(text: str) -> dt.datetime:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))

    now = at("2026-12-05T00:00:00Z")
    run = (3, "2026-11-20T10:00:00+00:00")
    assert published_draws(11, run, None, now) is None  # no deadline known
    assert published_draws(11, None, at("2026-12-01T22:59:00Z"), now) is None  # never played
    assert published_draws(11, run, at("2026-12-06T00:00:00Z"), now) is None  # a preview
    assert published_draws(11, (4, "2026-12-02T00:00:00+00:00"), at("2026-12-01T22:59:00Z"),
                           now) is None  # first played after the deadline
    # A team's files that changed after the seed was first played (a late or extended
    # submission once its draws were out): refused too, whichever team (a ghost team's change
    # draws its opponents' games anew).
    late = (4, "2026-12-02T00:00:00+00:00")
    changes = [("alpha", at("2026-11-30T00:00:00Z")), ("beta", at("2026-12-03T08:00:00Z"))]
    said = published_draws(11, late, at("2026-12-01T22:59:00Z"), now, changes)
    assert said is not None and said.startswith(
        "team beta's files changed on 2026-12-03T08:00:00Z, after run 4 first played master "
        "seed 11 on 2026-12-02T00:00:00Z")
    assert published_draws(11, late, at("2026-12-01T22:59:00Z"), now, changes[:1]) is None
    said = published_draws(11, run, at("2026-12-01T23:59:00+01:00"), now)
    assert said is not None and said.startswith(
        "the games are on master seed 11, which run 3 first played on 2026-11-20T10:00:00+00:00, "
        "before the submissions' deadline (2026-12-01T22:59:00Z)")


def _wrapped_interrupt() -> RuntimeError:
    """Ctrl-C as Python hands it on when it lands while a class is made (a dataclass field's
    `__set_name__`): a RuntimeError whose cause is the KeyboardInterrupt."""

    class Field:
        def __set_name__(self, owner: type, name: str) -> None:
            raise KeyboardInterrupt

    try:
        type("Report", (), {"probes": Field()})
    except RuntimeError as exc:
        return exc
    raise AssertionError("Python did not wrap the interrupt")


def test_a_stop_that_python_wrapped_on_its_way_out_is_a_stop() -> None:
    """Seen under a CPU hog: SIGTERM during the tuner's import of the sandbox check became a
    RuntimeError, and the command ended with a traceback and status 1, its run `failed`."""
    from tournament.runs import FAILED, STOPPED, ending_of, interrupted

    wrapped = _wrapped_interrupt()
    assert isinstance(wrapped.__cause__, KeyboardInterrupt)
    assert interrupted(wrapped) and ending_of(wrapped) == STOPPED
    assert not interrupted(ValueError("x")) and ending_of(ValueError("x")) == FAILED
    try:  # an error raised while a stop was handled, its context said to be beside the point
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise ValueError("a bad config") from None
    except ValueError as exc:
        assert not interrupted(exc)


def test_a_wrapped_stop_in_a_command_that_plays_is_its_own_stop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command stopped by a wrapped Ctrl-C says so, exits 130 and removes what it made,
    as for Ctrl-C itself."""
    from click.testing import CliRunner

    from tests.test_tune_run import RESUMABLE, SLOW_FEATURES, accept_missing
    from tournament import cli

    def stop(*args: object, **kwargs: object) -> tuple[str, ...]:
        raise _wrapped_interrupt()

    monkeypatch.setattr(cli, "check_sandbox", stop)
    (tmp_path / "feats.py").write_text(SLOW_FEATURES)
    (tmp_path / "tune.yaml").write_text(RESUMABLE.format(secret=tmp_path / "secret")
                                        .replace("output: out", "output: deep/out")
                                        + accept_missing())
    result = CliRunner().invoke(cli.main, ["tune", str(tmp_path / "tune.yaml")])
    assert result.exit_code == 130, result.output
    assert "stopped before any game was stored; nothing is kept" in result.output
    assert not (tmp_path / "deep").exists()
