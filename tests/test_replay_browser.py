"""`tournament replay`: the selection rules on a hand-made table, then the command on a real
small tournament (listing, did-you-mean errors, what the viewer is given, re-created replays).

No window is opened: the command calls `tournament.cli.open_viewer`, which the tests replace.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from pacman import replay as replays
from tests.test_sandbox_zoo import UNAVAILABLE
from tests.test_tournament_run import make_tournament
from tests.test_tournament_run import tournament as run_tournament
from tournament import cli
from tournament.browse import (
    Replay,
    filter_games,
    filter_problems,
    outcome_label,
    parse_depth,
    pick_problem,
    recreated_replay,
    replay_of,
    replays_of,
    short_message,
    unknown_choice,
    viewer_start,
)

needs_sandbox = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")


def game(entrant: str, index: int, outcome: str = "win", *, layout: str = "smallClassic",
         depth: int | None = 2, culprit: int | None = None, message: str = "",
         replay: str | None = None) -> dict[str, Any]:
    key = f"{layout}/d{'-' if depth is None else depth}/RandomGhost2/classic"
    return {"game_id": f"{entrant}@{key}#{index}", "entrant": entrant, "cell": key,
            "layout": layout, "depth": depth, "ghost": "RandomGhost", "num_ghosts": 2,
            "ruleset": "classic", "seed": 1000 + index, "game_index": index,
            "outcome": outcome, "culprit": culprit, "message": message,
            "score": 500 if outcome == "win" else -100, "win": outcome == "win", "moves": 90,
            "replay": replay, "submission_hash": "abc123"}


@pytest.fixture
def results() -> Any:
    rows = [
        game("alpha", 10),
        game("alpha", 7, "timeout", culprit=0, message="too slow"),
        game("alpha", 0, "crash", layout="mediumClassic", culprit=0),
        game("alpha", 1, "loss", depth=None),
        game("beta", 0, "crash", culprit=2, message="ghost fell over"),
        game("beta", 1, "move_limit", depth=3),
        game("beta", 2, "infra_error"),
    ]
    return pd.DataFrame(rows).sample(frac=1, random_state=3).reset_index(drop=True)


def ids(frame: Any) -> list[str]:
    return list(frame["game_id"])


# --- filtering --------------------------------------------------------------------------------

def test_no_filter_keeps_every_game_in_entrant_cell_and_index_order(results: Any) -> None:
    assert ids(filter_games(results)) == [
        "alpha@mediumClassic/d2/RandomGhost2/classic#0",
        "alpha@smallClassic/d-/RandomGhost2/classic#1",
        "alpha@smallClassic/d2/RandomGhost2/classic#7",  # 7 before 10: by index, not as text
        "alpha@smallClassic/d2/RandomGhost2/classic#10",
        "beta@smallClassic/d2/RandomGhost2/classic#0",
        "beta@smallClassic/d2/RandomGhost2/classic#2",
        "beta@smallClassic/d3/RandomGhost2/classic#1",
    ]


def test_each_filter_alone(results: Any) -> None:
    assert set(filter_games(results, team="beta")["entrant"]) == {"beta"}
    assert len(filter_games(results, team="beta")) == 3
    assert ids(filter_games(results, layout="mediumClassic")) == [
        "alpha@mediumClassic/d2/RandomGhost2/classic#0"]
    assert ids(filter_games(results, depth=3)) == ["beta@smallClassic/d3/RandomGhost2/classic#1"]
    assert ids(filter_games(results, depth="default")) == [
        "alpha@smallClassic/d-/RandomGhost2/classic#1"]
    assert ids(filter_games(results, outcome="timeout")) == [
        "alpha@smallClassic/d2/RandomGhost2/classic#7"]
    assert ids(filter_games(results, game="beta@smallClassic/d2/RandomGhost2/classic#2")) == [
        "beta@smallClassic/d2/RandomGhost2/classic#2"]


def test_failed_means_any_agent_failure_not_endings_or_the_platform(results: Any) -> None:
    failed = filter_games(results, outcome="failed")
    assert sorted(failed["outcome"]) == ["crash", "crash", "timeout"]
    assert "beta" in set(failed["entrant"])  # a ghost's failure is a failure too


def test_filters_combine(results: Any) -> None:
    both = filter_games(results, team="alpha", outcome="failed", layout="smallClassic", depth=2)
    assert ids(both) == ["alpha@smallClassic/d2/RandomGhost2/classic#7"]
    assert filter_games(results, team="beta", outcome="timeout").empty
    assert list(filter_games(results, team="beta", outcome="timeout").columns) == \
        list(results.columns)


# --- checking filters ---------------------------------------------------------------------------

def check(**given: str) -> list[str]:
    return filter_problems(entrants=["alpha", "beta", "greedy"],
                           layouts=["smallClassic", "mediumClassic"], depths=[None, 2, 3],
                           game_ids=["alpha@smallClassic/d2/RandomGhost2/classic#7"], **given)


def test_known_values_pass() -> None:
    assert check(team="alpha", layout="smallClassic", depth="2", outcome="failed",
                 game="alpha@smallClassic/d2/RandomGhost2/classic#7") == []
    assert check(depth="default", outcome="illegal_action") == []


def test_unknown_values_get_did_you_mean_and_the_list_all_at_once() -> None:
    problems = check(team="alpah", layout="smallclassic", outcome="timout", depth="4")
    assert problems == [
        "--team: unknown entrant 'alpah' (did you mean alpha?); entrants here: alpha, beta, "
        "greedy",
        "--layout: unknown layout 'smallclassic' (did you mean smallClassic?); layouts here: "
        "mediumClassic, smallClassic",
        "--depth: unknown depth '4'; depths here: default, 2, 3",
        "--outcome: unknown outcome 'timout' (did you mean timeout?); outcomes here: win, "
        "loss, move_limit, load_error, crash, timeout, illegal_action, memory, killed, "
        "infra_error, failed",
    ]


def test_depth_must_be_a_number_or_default() -> None:
    assert parse_depth("2") == 2 and parse_depth("Default") == "default"
    assert parse_depth("deep") is None
    assert check(depth="deep") == [
        "--depth: expected a whole number or 'default', got 'deep'; depths here: default, 2, 3"]


def test_game_ids_are_suggested_but_never_all_listed() -> None:
    [problem] = check(game="alpha@smallClassic/d2/RandomGhost2/classic#8")
    assert "did you mean alpha@smallClassic/d2/RandomGhost2/classic#7?" in problem
    assert "here:" not in problem
    assert unknown_choice("--team", "entrant", "zed", []) == \
        "--team: unknown entrant 'zed'; there are no entrants"


# --- replay files and where the viewer starts --------------------------------------------------

def test_replay_of_prefers_the_recorded_file_then_a_recreated_one(tmp_path: Path) -> None:
    recorded = tmp_path / "replays" / "a.json"
    recorded.parent.mkdir()
    recorded.write_text("{}")
    row = game("alpha", 3)
    assert replay_of({**row, "replay": str(recorded)}, tmp_path) == Replay(recorded, "yes")
    assert replay_of({**row, "replay": "replays/a.json"}, tmp_path) == Replay(recorded, "yes")
    assert replay_of({**row, "replay": "replays/gone.json"}, tmp_path) == Replay(None, "missing")
    assert replay_of({**row, "replay": float("nan")}, tmp_path) == Replay(None, "no")
    again = recreated_replay(tmp_path, row)
    assert again.parent == tmp_path / "recreated-replays/alpha/smallClassic/d2/RandomGhost2" \
        / "classic"
    assert re.fullmatch(r"3-abc123-1003-[0-9a-f]{12}\.json", again.name)
    again.parent.mkdir(parents=True)
    again.write_text("{}")
    assert replay_of(row, tmp_path) == Replay(again, "re-created")
    # Another version of the team (another hash) does not see this version's replay, nor
    # does another ghost team's, nor a game another platform played (the review of the
    # platform's identity: after an update, the old code's replay was shown for the new game).
    for changed in ({"submission_hash": "def456"}, {"ghost_hash": "9e"}, {"version": "0.2.0"}):
        assert replay_of({**row, **changed}, tmp_path) == Replay(None, "no"), changed
    assert [r.status for r in replays_of(pd.DataFrame([row, game("beta", 3)]), tmp_path)] == \
        ["re-created", "no"]


def test_the_viewer_gets_only_watchable_games_and_starts_at_the_pick() -> None:
    a, b, c = Path("a.json"), Path("b.json"), Path("c.json")
    found = [Replay(None, "no"), Replay(a, "yes"), Replay(None, "missing"), Replay(b, "yes"),
             Replay(c, "re-created")]
    assert viewer_start(found, None) == ([a, b, c], 0)
    assert viewer_start(found, 2) == ([a, b, c], 0)
    assert viewer_start(found, 4) == ([a, b, c], 1)
    assert viewer_start(found, 5) == ([a, b, c], 2)
    assert pick_problem(found, None) is None and pick_problem(found, 4) is None
    assert pick_problem(found, 3) == \
        "--pick: game 3 has no replay file to watch (the table's replay column)"
    assert pick_problem(found, 0) == "--pick: expected a number from the table, 1 to 5, got 0"
    assert "1 to 5, got 6" in str(pick_problem(found, 6))
    assert pick_problem([], 1) == "--pick: no game matches the filters"


def test_table_text() -> None:
    assert outcome_label("crash", 0) == "crash"
    assert outcome_label("crash", 2.0) == "crash (ghost 2)"
    assert outcome_label("win", float("nan")) == "win"
    assert short_message("a\n  b") == "a b"
    assert short_message(None) == ""
    cut = short_message("x" * 100, width=20)
    assert len(cut) == 20 and cut.endswith("...")


# --- the command on a real tournament -----------------------------------------------------------

@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """alpha (the example team), crasher (fails every game) and greedy; replays of failures."""
    config = make_tournament(tmp_path_factory.mktemp("browse"),
                             {"alpha": "example", "crasher": "move_raises"}, games=2)
    run_tournament("run", str(config))
    return config


def replay_cmd(config: Path, *args: str) -> Result:
    return CliRunner().invoke(cli.main, ["replay", str(config), *args])


def table_rows(output: str) -> list[list[str]]:
    """The table's rows, split on runs of spaces (no cell here contains two spaces)."""
    return [cells for cells in map(str.split, output.splitlines())
            if cells and cells[0].isdigit()]


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[Path], int, float, float]]:
    calls: list[tuple[list[Path], int, float, float]] = []

    def fake_viewer(paths: Sequence[Path], index: int, zoom: float, frame_time: float) -> None:
        calls.append((list(paths), index, zoom, frame_time))

    monkeypatch.setattr(cli, "open_viewer", fake_viewer)
    return calls


@needs_sandbox
def test_list_prints_a_numbered_row_per_game(played: Path,
                                             shown: list[tuple[Any, ...]]) -> None:
    result = replay_cmd(played, "--list")
    assert result.exit_code == 0, result.output
    assert "Test cup: 12 of 12 games, 4 with a replay" in result.output
    rows = table_rows(result.output)
    assert [int(r[0]) for r in rows] == list(range(1, 13))
    assert rows[0][:5] == ["1", "alpha@smallClassic/d1/RandomGhost1/classic#0", "alpha",
                           "smallClassic", "1"]
    assert rows[0][8] == "no"
    crasher = [r for r in rows if r[2] == "crasher"]
    assert len(crasher) == 4
    assert all(r[5] == "crash" and r[8] == "yes" for r in crasher)
    assert all(" ".join(r[9:]) == 'getAction raised ValueError: "lost my way"' for r in crasher)
    assert {r[2] for r in rows} == {"alpha", "crasher", "greedy"}
    assert not shown


@needs_sandbox
def test_filters_narrow_the_table(played: Path) -> None:
    result = replay_cmd(played, "--list", "--outcome", "failed", "--layout", "testClassic")
    assert result.exit_code == 0, result.output
    assert [r[1] for r in table_rows(result.output)] == [
        "crasher@testClassic/d1/RandomGhost1/classic#0",
        "crasher@testClassic/d1/RandomGhost1/classic#1"]
    none = replay_cmd(played, "--list", "--team", "alpha", "--outcome", "crash")
    assert none.exit_code == 0 and "no game of the 12 stored matches" in none.output


@needs_sandbox
def test_an_unknown_team_exits_2_with_did_you_mean(played: Path,
                                                   shown: list[tuple[Any, ...]]) -> None:
    result = replay_cmd(played, "--team", "crashr")
    assert result.exit_code == 2
    assert "--team: unknown entrant 'crashr' (did you mean crasher?); entrants here: alpha, " \
           "crasher, greedy" in result.stderr
    assert result.stdout == "" and not shown


@needs_sandbox
def test_the_viewer_gets_the_matching_replays_and_the_picked_index(
        played: Path, shown: list[tuple[list[Path], int, float, float]]) -> None:
    result = replay_cmd(played, "--pick", "6", "-z", "1.5", "--frameTime", "0.05")
    assert result.exit_code == 0, result.output
    out = played.parent / "out" / "replays" / "crasher"
    expected = [out / layout / "d1" / "RandomGhost1" / "classic" / f"{index}.json"
                for layout in ("smallClassic", "testClassic") for index in (0, 1)]
    assert shown == [(expected, 1, 1.5, 0.05)]
    assert all(path.is_file() for path in expected)
    shown.clear()
    result = replay_cmd(played, "--outcome", "crash", "--layout", "testClassic")
    assert result.exit_code == 0, result.output
    assert shown == [(expected[2:], 0, 1.0, 0.1)]


@needs_sandbox
def test_a_pick_without_a_replay_or_out_of_range_exits_2(
        played: Path, shown: list[tuple[Any, ...]]) -> None:
    result = replay_cmd(played, "--pick", "1")
    assert result.exit_code == 2 and "game 1 has no replay file" in result.stderr
    result = replay_cmd(played, "--pick", "13")
    assert result.exit_code == 2 and "1 to 12, got 13" in result.stderr
    assert not shown


@needs_sandbox
def test_no_replay_to_watch_says_how_to_get_one(played: Path,
                                                shown: list[tuple[Any, ...]]) -> None:
    result = replay_cmd(played, "--team", "alpha")
    assert result.exit_code == 1
    assert "none of these 4 game(s) has a replay file" in result.output
    assert "record: {replays: failures}" in result.output
    assert "--recreate" in result.output and "record: {replays: all}" in result.output
    assert not shown


@needs_sandbox
def test_recreate_writes_replays_that_reproduce_the_stored_games(played: Path,
                                                                 tmp_path: Path) -> None:
    shutil.copytree(played.parent, tmp_path / "copy")
    config = tmp_path / "copy" / played.name
    out = run_tournament("replay", str(config), "--team", "alpha", "--layout", "testClassic",
                     "--recreate", "--list").stdout
    assert "re-created 2 of 2 replay(s)" in out
    rows = table_rows(out[out.index("Test cup"):])
    assert [r[8] for r in rows] == ["re-created", "re-created"]
    files = sorted((tmp_path / "copy" / "out" / "recreated-replays").rglob("*.json"))
    assert len(files) == 2
    for file, row in zip(files, rows):
        loaded = replays.load(file)
        assert replays.check(loaded) is None
        assert len(loaded.actions) == int(row[7])
        assert loaded.scores[-1] == int(row[6])
    # Nothing else was touched: the other games still have no replay, the scratch folder is gone.
    again = run_tournament("replay", str(config), "--list").stdout
    assert [r[8] for r in table_rows(again)].count("re-created") == 2
    assert not list((tmp_path / "copy" / "out").glob(".recreating-*"))


@needs_sandbox
def test_a_damaged_replay_exits_2_naming_it(played: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def damaged(paths: Sequence[Path], index: int, zoom: float, frame_time: float) -> None:
        raise replays.ReplayError(f"{paths[index]}: missing key 'actions'")

    monkeypatch.setattr(cli, "open_viewer", damaged)
    result = replay_cmd(played, "--outcome", "crash")
    assert result.exit_code == 2
    assert "0.json: missing key 'actions'" in result.stderr
