"""What comes back from a worker is checked against the task before it is kept
(`tournament.outputs`), and task keys identify the work (`GameTask.key`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pacman import __version__
from pacman.game import GameSpec
from pacman.identity import platform_id
from tests.test_tournament_run import make_tournament
from tournament.bundles import TeamCache
from tournament.config import load_config
from tournament.outputs import Keeper, mismatch
from tournament.runner import GameOutput, GameTask, Snapshots, play_task, tasks_for
from tournament.schedule import schedule
from tournament.store import Store


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[GameTask], TeamCache, Path]:
    root = tmp_path_factory.mktemp("outputs")
    config = load_config(make_tournament(root, {"alpha": "example"}, games=2,
                                         layouts="[testClassic]"))
    snapshots = Snapshots.take(config, TeamCache(root / "cache"))
    hashes, ghosts = snapshots.hashes(config)
    tasks = tasks_for(config, schedule(config), hashes, "ab" * 32, (), ghosts, snapshots)
    return tasks, snapshots.cache, root


def test_a_tasks_key_is_its_work(made: tuple[list[GameTask], TeamCache, Path]) -> None:
    tasks, _, _ = made
    task = tasks[0]
    assert len({t.key for t in tasks}) == len(tasks)
    assert dataclasses.replace(task).key == task.key  # the same work, the same key
    for change in ({"secret": "cd" * 32},  # another tournament's secret: another game
                   {"game": dataclasses.replace(task.game, seed=task.game.seed + 1)},
                   {"submission_hash": "0" * 16},
                   {"layout_text": task.layout_text + "\n"},
                   {"max_moves": task.max_moves + 1}):
        assert dataclasses.replace(task, **change).key != task.key, change
    # No path of the organizer's: a task plays the same on any machine.
    for ref in (task.pacman, task.ghost):
        assert ref is not None and (ref.path is None or not ref.path.startswith("/"))


def test_only_the_output_of_the_task_asked_for_is_kept(
        made: tuple[list[GameTask], TeamCache, Path], tmp_path: Path) -> None:
    tasks, cache, _ = made
    team_task = next(t for t in tasks if t.game.entrant == "alpha")
    other = next(t for t in tasks if t is not team_task)
    good = play_task(team_task, cache)
    assert mismatch(team_task, good) == ""
    assert "another task" in mismatch(other, good)
    row = dict(good.row)
    forged = dataclasses.replace(good, row={**row, "seed": row["seed"] + 1})  # type: ignore[typeddict-item]
    assert "seed" in mismatch(team_task, forged)
    old = dataclasses.replace(good, row={**row, "version": "0.0.1"})  # type: ignore[typeddict-item]
    assert "install the same version" in mismatch(team_task, old)
    # The same release from other code (a checkout updated since): refused too (the
    # fourteenth hostile review: the release name alone passed any checkout).
    assert row["version"] == platform_id() != __version__
    updated = dataclasses.replace(good, row={**row, "version": f"{__version__}+0123456789ab"})  # type: ignore[typeddict-item]
    assert "install the same version" in mismatch(team_task, updated)
    # A faulty worker's output (another checkout, say): never stored as a result.
    short = {k: v for k, v in row.items() if k != "warnings"}
    assert "columns missing: warnings" in mismatch(team_task, dataclasses.replace(
        good, row=short))  # type: ignore[arg-type]
    typed = {**row, "score": "lots", "win": "yes"}
    assert "score: expected int, got str" in mismatch(team_task, dataclasses.replace(
        good, row=typed))  # type: ignore[arg-type]
    assert "not a JSON replay" in mismatch(team_task, dataclasses.replace(good, replay="x"))
    assert "logs" in mismatch(team_task, dataclasses.replace(good, logs=(("../x", "y"),)))

    with Store(tmp_path / "r.sqlite") as store:
        keeper = Keeper(tmp_path, store)
        kept = keeper.keep(team_task, dataclasses.replace(good, replay='{"x": 1}',
                                                          logs=((".log", "hello"),)))
        assert kept["outcome"] == good.row["outcome"] and kept["version"] == platform_id()
        assert kept["replay"] is not None and Path(kept["replay"]).read_text() == '{"x": 1}'
        assert Path(kept["replay"]).is_relative_to(tmp_path / "replays")
        logs = [p for p in (tmp_path / "logs").rglob("*") if p.is_file()]
        assert [p.read_text() for p in logs] == ["hello"]
        # The game played again printed nothing: the earlier play's log is not its log (the
        # sixteenth hostile review: the report showed it under the new play's failure).
        keeper.keep(team_task, dataclasses.replace(good, logs=((".ghosts.log", "boo"),)))
        logs = [p for p in (tmp_path / "logs").rglob("*") if p.is_file()]
        assert [(p.name.endswith(".ghosts.log"), p.read_text()) for p in logs] == [(True, "boo")]
        pointed = keeper.keep(team_task, dataclasses.replace(
            good, row={**row, "replay": "/etc/passwd"}))  # type: ignore[typeddict-item]
        assert pointed["replay"] is None  # a path comes from the organizer alone
        broken = keeper.keep(team_task, dataclasses.replace(good, row=None))  # type: ignore[arg-type]
        assert broken["outcome"] == "infra_error" and "sent no row" in broken["message"]
        refused = keeper.keep(other, good)
        assert refused["outcome"] == "infra_error" and refused["game_id"] == other.game.game_id
        assert refused["message"].startswith("not stored: the worker returned the output of")
        assert store.hashes()[other.game.game_id].outcome == "infra_error"  # played again


def test_a_worker_writes_nothing_outside_its_own_folders(
        made: tuple[list[GameTask], TeamCache, Path]) -> None:
    tasks, cache, root = made
    before = sorted(p for p in root.rglob("*") if "cache" not in p.parts)
    outputs = [play_task(dataclasses.replace(t, replays="all"), cache) for t in tasks[:2]]
    assert all(isinstance(o, GameOutput) and o.replay for o in outputs)
    assert sorted(p for p in root.rglob("*") if "cache" not in p.parts) == before


def test_a_worker_parses_each_layout_once_and_warm_tables_change_no_game(
        made: tuple[list[GameTask], TeamCache, Path]) -> None:
    from tournament.runner import task_layout

    tasks, cache, _ = made
    task = next(t for t in tasks if t.game.entrant != "alpha")  # a built-in: in-process
    assert task_layout(task.layout_text, task.layout_name) is task_layout(
        task.layout_text, task.layout_name)
    assert task_layout(task.layout_text, "other") is not task_layout(
        task.layout_text, task.layout_name)
    task_layout.cache_clear()
    cold = play_task(task, cache).row  # the layout's tables built during this game
    warm = play_task(task, cache).row  # and reused by this one
    same = ("outcome", "score", "moves", "win", "culprit")
    assert [cold[k] for k in same] == [warm[k] for k in same]  # type: ignore[literal-required]


def test_a_tournament_game_holds_only_teams_to_the_totals(
        made: tuple[list[GameTask], TeamCache, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game a tournament plays says that its built-ins are not held to the teams'
    totals (`GameSpec.builtin_totals`; its effect is tested in test_game.py)."""
    from tournament import runner

    tasks, cache, _ = made
    seen: list[GameSpec] = []

    def fake_play(spec: GameSpec, **kwargs: object) -> object:
        seen.append(spec)
        raise RuntimeError("enough")

    monkeypatch.setattr(runner, "play", fake_play)
    runner.play_task(tasks[0], cache)
    assert [spec.builtin_totals for spec in seen] == [False]
