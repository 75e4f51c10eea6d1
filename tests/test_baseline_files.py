"""A baseline whose options name files (`features=feats.py:phi`, `weights=w.yaml`) plays them
as a team plays its folder: hashed by their bytes, the function in the sandbox, the weights
inline (`tournament.optionfiles`)."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pacman.agents.evaluation import parse_weights_text, weights_text
from tests.commands import TOURNAMENT
from tests.test_resume import run_config
from tournament.optionfiles import (
    absolute_options,
    inline_weights,
    named_files,
    options_digest,
)

FEATURES = """\
def phi(state):
    return {"score": state.getScore(), "food": state.getNumFood()}
"""


def test_option_files_are_made_absolute_and_digested_by_their_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "feats.py").write_text(FEATURES)
    (tmp_path / "w.yaml").write_text("score: 1\nfood: -5\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "featmod.py").write_text(FEATURES)
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    given = (("features", "feats.py:phi"), ("weights", "w.yaml"), ("depth", "2"))
    args = absolute_options(given, tmp_path)
    assert args == (("features", f"{tmp_path / 'feats.py'}:phi"),
                    ("weights", str(tmp_path / "w.yaml")), ("depth", "2"))
    assert named_files(args) == [tmp_path / "feats.py", tmp_path / "w.yaml"]
    # A module outside the platform is its file; the platform's own, and inline weights and
    # built-in evaluations, name no file.
    assert absolute_options((("evalFn", "featmod:phi"),), tmp_path) == (
        ("evalFn", f"{tmp_path / 'lib' / 'featmod.py'}:phi"),)
    kept = (("features", "pacman.agents.evaluation:features"), ("weights", "food:-3;score:1"),
            ("evalFn", "better"))
    assert absolute_options(kept, tmp_path) == kept
    assert named_files(kept) == [] and options_digest(kept) == ""
    # A snapshot's file (as `tournament tune` names it) is keyed by its name already.
    assert named_files((("features", "0123abcd/feats/feats.py:phi"),)) == []
    before = options_digest(args)
    (tmp_path / "w.yaml").write_text("score: 1\nfood: -6\n")
    after_weights = options_digest(args)
    (tmp_path / "feats.py").write_text(FEATURES + "\n# edited\n")
    after_code = options_digest(args)
    assert len({before, after_weights, after_code}) == 3
    (tmp_path / "feats.py").unlink()
    assert options_digest(args) not in {before, after_weights, after_code}


def test_a_weights_file_travels_inline_as_the_agent_would_read_it(tmp_path: Path) -> None:
    weights = tmp_path / "w.yaml"
    weights.write_text("score: 1\nfood_left: -12.5\ntrapped: -150\n")
    inline = inline_weights(str(weights))
    assert Path(inline) != weights
    assert parse_weights_text(inline) == parse_weights_text("score:1;food_left:-12.5;trapped:-150")
    # What is not names and numbers stays the file, which the agent refuses naming it.
    for text in ("score: one\n", "'a;b': 1\n", "score: true\n"):
        weights.write_text(text)
        assert inline_weights(str(weights)) == str(weights), text
    assert inline_weights(str(tmp_path / "missing.yaml")) == str(tmp_path / "missing.yaml")
    assert inline_weights("food:-3") == "food:-3"


def _config(tmp_path: Path) -> Path:
    from tests.test_tournament_run import ACCEPT

    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent("""\
        name: files
        seed: 3
        entrants:
          baselines:
            - {name: feat, agent: ExpectimaxAgent, args: {features: "feats.py:phi",
               weights: w.yaml}}
        grid:
          layouts: [testClassic]
          depths: [1]
          ghosts: [{agent: RandomGhost, count: 1}]
          max_moves: 60
        games_per_cell: 2
        workers: 1
        output: out
        """) + (f"sandbox: {{accept_missing: [{ACCEPT}]}}\n" if ACCEPT else ""))
    return config


def _rows(tmp_path: Path) -> list[tuple[str, int | None, str]]:
    with contextlib.closing(sqlite3.connect(tmp_path / "out" / "results.sqlite")) as conn:
        return conn.execute("SELECT outcome, culprit, sandbox FROM games").fetchall()


def test_a_baseline_plays_its_files_in_the_sandbox_and_again_when_they_change(
        tmp_path: Path) -> None:
    """Before, such a baseline played in the worker's own process and was hashed by its
    options' text: an edited weights file kept the old file's games, and a function that
    ended its process ended the worker, an unscored infra_error."""
    from tests.test_tournament_run import UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    (tmp_path / "feats.py").write_text(FEATURES)
    (tmp_path / "w.yaml").write_text("score: 1\nfood: -5\n")
    config = _config(tmp_path)
    first = run_config(config)
    assert first.returncode == 0, first.stdout + first.stderr
    rows = _rows(tmp_path)
    assert len(rows) == 2 and all(sandbox for _, _, sandbox in rows), rows
    again = run_config(config)
    assert "2 already stored, 0 to play" in again.stdout, again.stdout + again.stderr
    (tmp_path / "w.yaml").write_text("score: 1\nfood: -20\n")
    edited = run_config(config)
    assert "0 already stored, 2 to play (2 stale" in edited.stdout, edited.stdout
    # The search evaluates only the states after a move, so this ends at Pacman's first.
    (tmp_path / "feats.py").write_text("import os\n\ndef phi(state):\n    os._exit(3)\n")
    ended = run_config(config)
    assert "2 stale" in ended.stdout, ended.stdout + ended.stderr
    rows = _rows(tmp_path)
    assert [(outcome, culprit) for outcome, culprit, _ in rows] == [("crash", 0)] * 2, rows


def test_a_baseline_naming_two_files_of_code_is_refused_at_its_args(tmp_path: Path) -> None:
    """A built-in plays its files from one snapshot: two files of code are a config error
    at the baseline's `args`, before any game, not a load_error in every game."""
    from tournament.config import ConfigError, load_config

    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(FEATURES)
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent("""\
        name: two
        entrants:
          baselines:
            - {name: feat, agent: ExpectimaxAgent, args: {features: "a.py:phi",
               evalFn: "b.py:phi", weights: "score:1"}}
        grid: {layouts: [testClassic]}
        """))
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert list(info.value.problems) == [
        "entrants.baselines[0].args: evalFn and features name two files of code; a baseline "
        "plays with one (put both functions in it)"]


def test_a_baselines_file_of_code_that_imports_its_folder_is_refused_at_its_option(
        tmp_path: Path) -> None:
    """A baseline plays its file of code from a snapshot of that one file, so a module beside
    it is missing in every game that imports it: found when the config loads, at the option
    naming the file, for a Pacman baseline and a ghost baseline alike. Before, the config
    loaded (the organizer's process imports the folder's modules fine), and every game was
    the baseline's load_error, ranked last."""
    from tournament.config import ConfigError, load_config

    (tmp_path / "helpers.py").write_text("def food(state):\n    return state.getNumFood()\n")
    # Imported only when a game is nearly over, which a trial call on the start never reaches.
    (tmp_path / "feats.py").write_text(
        "def phi(state):\n    if state.getNumFood() < 3:\n        from helpers import food\n"
        "        return {'score': state.getScore(), 'food': food(state)}\n"
        "    return {'score': state.getScore(), 'food': state.getNumFood()}\n\n"
        "def value(state):\n    return state.getScore()\n")
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent("""\
        name: beside
        entrants:
          baselines:
            - {name: feat, agent: ExpectimaxAgent, args: {features: "feats.py:phi",
               weights: "score:1;food:-5"}}
          ghost_baselines:
            - {name: hunt, agent: AlphaBetaGhost, args: {evalFn: "feats.py:value"}}
        grid: {layouts: [testClassic]}
        matches: {}
        """))
    with pytest.raises(ConfigError) as info:
        load_config(config)
    said = ("imports helpers.py from its folder, but the games play feats.py alone (the run "
            "snapshots that one file): put what it needs in it")
    assert list(info.value.problems) == [
        f"entrants.baselines[0].args.features: feats.py:phi {said}",
        f"entrants.ghost_baselines[0].args.evalFn: feats.py:value {said}"]
    # With what it needs in it, both load.
    (tmp_path / "helpers.py").unlink()
    (tmp_path / "feats.py").write_text(
        FEATURES + "\n\ndef value(state):\n    return state.getScore()\n")
    loaded = load_config(config)
    assert [e.name for e in (*loaded.entrants, *loaded.ghost_entrants)] == ["feat", "hunt"]


def test_imports_beside_reads_the_source_without_running_it(tmp_path: Path) -> None:
    """Only modules that exist in the file's folder and nowhere else on the import path
    count: the standard library's (even shadowed by a file of the same name beside it),
    relative imports (which a lone file cannot make anywhere), and the file itself do not.
    An unreadable or unparsable file gives none (its load says what is wrong)."""
    from tournament.optionfiles import imports_beside

    (tmp_path / "helpers.py").write_text("")
    (tmp_path / "json.py").write_text("")
    (tmp_path / "lib").mkdir()
    feats = tmp_path / "feats.py"
    feats.write_text(
        "import os, json\nfrom . import sibling\nimport feats\n\n"
        "class A:\n    def f(self):\n        import lib.deep as d\n        return d\n\n"
        "def g():\n    from helpers import x\n    raise SystemExit('never run')\n")
    assert imports_beside(feats) == ["helpers.py", "lib/"]
    # A student's course folder holds the course's own modules beside the file: the games
    # get them from the platform (`game`, `util`), as they get the platform's package.
    for name in ("util.py", "game.py", "pacman.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "tournament").mkdir()
    feats.write_text("from util import manhattanDistance\nfrom game import Directions\n"
                     "import pacman\nfrom tournament import optionfiles\nimport helpers\n")
    assert imports_beside(feats) == ["helpers.py"]
    feats.write_text("import helpers\ndef broken(:\n")
    assert imports_beside(feats) == []
    assert imports_beside(tmp_path / "missing.py") == []


def test_a_ghost_baselines_file_of_code_plays_in_the_sandbox(tmp_path: Path) -> None:
    """A ghost baseline (`AlphaBetaGhost` with `evalFn: file.py:fn`) plays its file as a
    Pacman baseline does: from a snapshot in the sandbox, its bytes in its hash, so that a
    function that ends its process is the ghost side's crash (Pacman gets the game), never
    the worker's unscored infra_error, and an edited file plays its games again."""
    from pacman.outcomes import pacman_points
    from tests.test_tournament_run import ACCEPT, UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    (tmp_path / "feats.py").write_text("def value(state):\n    return state.getScore()\n")
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent("""\
        name: ghostfiles
        seed: 3
        entrants:
          baselines:
            - {name: greedy, agent: GreedyAgent}
          ghost_baselines:
            - {name: random, agent: RandomGhost}
            - {name: hunt, agent: AlphaBetaGhost, args: {depth: 1, evalFn: "feats.py:value"}}
        grid:
          layouts: [testClassic]
          ghosts: []
          max_moves: 60
        matches: {games: 2, anchor: random}
        workers: 1
        output: out
        """) + (f"sandbox: {{accept_missing: [{ACCEPT}]}}\n" if ACCEPT else ""))

    def hunts() -> list[tuple[str, int | None]]:
        with contextlib.closing(sqlite3.connect(tmp_path / "out" / "results.sqlite")) as conn:
            return conn.execute("SELECT outcome, culprit FROM games WHERE ghost_entrant = "
                                "'hunt' ORDER BY game_id").fetchall()

    first = run_config(config)
    assert first.returncode == 0, first.stdout + first.stderr
    played = hunts()
    assert len(played) == 2 and all(culprit is None for _, culprit in played), played
    (tmp_path / "feats.py").write_text("import os\n\ndef value(state):\n    os._exit(3)\n")
    again = run_config(config)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 stale" in again.stdout, again.stdout
    crashed = hunts()
    assert [outcome for outcome, _ in crashed] == ["crash", "crash"], crashed
    assert all(culprit is not None and culprit >= 1 for _, culprit in crashed), crashed
    assert all(pacman_points(outcome, culprit) == 1.0 for outcome, culprit in crashed)


def test_a_baselines_file_of_code_never_runs_in_the_organizers_process(
        tmp_path: Path) -> None:
    """A baseline's file may be a student's: loading the config reads it (it compiles, it
    defines the function) but never runs it, even to build the agent once (the platform's
    own function stands in); it runs only in its games' sandbox. Before, the config imported
    it in the organizer's process."""
    from tournament.config import ConfigError, load_config

    ran = tmp_path / "it-ran"
    config = tmp_path / "t.yaml"
    config.write_text(textwrap.dedent("""\
        name: quiet
        entrants:
          baselines:
            - {name: feat, agent: ExpectimaxAgent, args: {features: "feats.py:phi",
               weights: "score:1"}}
        grid: {layouts: [testClassic]}
        """))
    (tmp_path / "feats.py").write_text(
        f"open({str(ran)!r}, 'w').write('ran')\n\n" + FEATURES)
    loaded = load_config(config)
    assert [e.name for e in loaded.entrants] == ["feat"]
    assert not ran.exists()
    # What its source shows is still found at the option, before any game.
    for source, problem in (
            ("def other(state):\n    return {}\n", "feats.py defines no function 'phi'"),
            ("def phi(state:\n", "syntax error")):
        (tmp_path / "feats.py").write_text(source)
        with pytest.raises(ConfigError) as info:
            load_config(config)
        [said] = info.value.problems
        assert said.startswith("entrants.baselines[0].args.features: features=") and \
            problem in said, said


def test_a_baselines_file_that_does_not_load_stops_the_run_before_any_game(
        tmp_path: Path) -> None:
    """What only running the file shows (an import that fails) is found by loading it once
    in a sandbox when the run starts: exit 2 naming the baseline and its option, and
    nothing written, rather than a load_error in every game of the organizer's baseline."""
    from tests.test_tournament_run import UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    (tmp_path / "feats.py").write_text("import no_such_module_here\n\n" + FEATURES)
    (tmp_path / "w.yaml").write_text("score: 1\nfood: -5\n")
    config = _config(tmp_path)
    stopped = run_config(config)
    assert stopped.returncode == 2, stopped.stdout + stopped.stderr
    assert "a baseline's file does not load:\n  baseline feat: args.features: features=" \
        in stopped.stderr, stopped.stderr
    assert "No module named 'no_such_module_here'" in stopped.stderr
    assert not (tmp_path / "out").exists()
    checked = subprocess.run([*TOURNAMENT, "validate", str(config)], capture_output=True,
                             text=True, timeout=600)
    assert checked.returncode == 2 and "args.features: features=" in checked.stderr, \
        checked.stdout + checked.stderr
    (tmp_path / "feats.py").write_text(FEATURES)
    assert run_config(config).returncode == 0


def test_what_the_config_says_of_a_baselines_file_names_the_file(tmp_path: Path) -> None:
    """The agent is built with the platform's functions standing in for a file of code, but
    what is said of its options names the file, as before; a module with no source file to
    play is refused at its option rather than imported here."""
    from tournament.config import ConfigError, load_config

    (tmp_path / "feats.py").write_text(FEATURES)
    config = tmp_path / "t.yaml"
    for args, expected in (
            ('{evalFn: "feats.py:phi", weights: "score:1"}',
             f"weights=... applies to evalFn=better or evalFn=contest, not "
             f"evalFn={tmp_path / 'feats.py'}:phi"),
            ('{features: "feats.py:phi"}',
             f"features={tmp_path / 'feats.py'}:phi needs weights="),
            ('{evalFn: "math:sqrt"}', "evalFn=math:sqrt: no Python source file of module "
                                      "'math' is found on the import path")):
        config.write_text(textwrap.dedent(f"""\
            name: said
            entrants:
              baselines:
                - {{name: feat, agent: ExpectimaxAgent, args: {args}}}
            grid: {{layouts: [testClassic]}}
            """))
        with pytest.raises(ConfigError) as info:
            load_config(config)
        [said] = info.value.problems
        assert expected in said and "pacman.agents.evaluation" not in said, said


def test_a_baselines_files_are_taken_once_then_hashed_checked_and_played_from_that_copy(
        tmp_path: Path) -> None:
    """A run takes the baseline's files with the teams' folders, before its plan. Before, it
    hashed them then, checked a fresh copy, and took the copy its games played only when it
    built the entrant's first game: a file edited meanwhile played under the old bytes' hash,
    so the stored games claimed a version that never played, and were never replayed."""
    from tournament.bundles import TeamCache
    from tournament.config import load_config
    from tournament.runner import Snapshots, iter_tasks, submission_hash
    from tournament.schedule import schedule

    (tmp_path / "feats.py").write_text(FEATURES)
    (tmp_path / "w.yaml").write_text("score: 1\nfood: -5\n")
    config = load_config(_config(tmp_path))
    [entrant] = config.entrants
    (tmp_path / "cache").mkdir()
    snapshots = Snapshots.take(config, TeamCache(tmp_path / "cache"))
    pacman_hashes, ghost_hashes = snapshots.hashes(config)
    # The same hash as of the files themselves: stored games of earlier runs stay current.
    assert pacman_hashes == {"feat": submission_hash(entrant)}

    (tmp_path / "feats.py").write_text(FEATURES.replace("getNumFood", "getScore"))
    (tmp_path / "w.yaml").write_text("score: 1\nfood: -9\n")
    assert submission_hash(entrant) != pacman_hashes["feat"]  # the files did change
    assert snapshots.hashes(config) == (pacman_hashes, ghost_hashes)  # not the run's copy

    tasks = list(iter_tasks(config, schedule(config), pacman_hashes, "ab" * 32, (),
                            ghost_hashes, snapshots))
    assert len(tasks) == 2
    for task in tasks:
        assert task.pacman is not None, task.problem
        options = dict(task.pacman.args)
        assert options["weights"] == weights_text({"score": 1.0, "food": -5.0})
        where = options["features"].rpartition(":")[0]
        assert (tmp_path / "cache" / where).read_text() == FEATURES
    assert snapshots.file_copy(tmp_path / "feats.py") == tmp_path / "cache" / where
    assert snapshots.read_bytes(tmp_path / "w.yaml") == b"score: 1\nfood: -5\n"


def test_a_baseline_on_a_clock_plays_sandboxed_on_the_sources_as_teams_do(
        tmp_path: Path) -> None:
    """Found by the fifteenth hostile review: in-process, a baseline that searches on a clock
    ran the compiled build where one was and searched deeper in a second than the sandboxed
    teams it met, so results depended on the organizer's build. It now plays sandboxed, on
    the sources (the zygote's environment), as teams do, with teams or without (a folder
    first played by built-ins alone must not mix the two ways in one baseline's games); a
    depth-bound one stays in-process (the same moves either way)."""
    from tests.test_sandbox_zoo import UNAVAILABLE, ZOO
    from tests.test_tournament_run import ACCEPT
    from tournament.bundles import TeamCache
    from tournament.config import load_config
    from tournament.runner import Snapshots, iter_tasks, play_task
    from tournament.schedule import schedule

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")

    def tasks(teams: bool) -> tuple[dict[str, Any], Any]:
        config_file = tmp_path / "t.yaml"
        config_file.write_text(textwrap.dedent(f"""\
            name: clocks
            sandbox: {{accept_missing: [{ACCEPT}]}}
            entrants:
              {"submissions: submissions" if teams else ""}
              baselines:
                - {{name: anytime, agent: AnytimeAgent, args: {{timeLimit: 0.02}}}}
                - {{name: greedy, agent: GreedyAgent}}
            grid:
              layouts: [testClassic]
              ghosts: [{{agent: AnytimeGhost, count: 1}}]
              max_moves: 40
            output: out
            """))
        config = load_config(config_file)
        cache = tmp_path / f"cache-{teams}"
        cache.mkdir()
        snapshots = Snapshots.take(config, TeamCache(cache))
        pacman_hashes, ghost_hashes = snapshots.hashes(config)
        return ({task.game.entrant: task for task in iter_tasks(
            config, schedule(config), pacman_hashes, "ab" * 32, (), ghost_hashes, snapshots)},
            snapshots)

    alone, _ = tasks(teams=False)
    assert alone["anytime"].pacman.on_sources and not alone["greedy"].pacman.on_sources
    (tmp_path / "submissions" / "honest").mkdir(parents=True)
    (tmp_path / "submissions" / "honest" / "agent.py").write_text((ZOO / "honest.py").read_text())
    (tmp_path / "submissions" / "honest" / "team.yaml").write_text("agent: agent.py:ZooAgent\n")
    met, snapshots = tasks(teams=True)
    assert met["anytime"].pacman is not None and met["anytime"].pacman.on_sources
    assert met["greedy"].pacman is not None and not met["greedy"].pacman.on_sources
    assert all(task.ghost is not None and task.ghost.on_sources for task in met.values())
    row = play_task(met["anytime"], snapshots.cache).row
    assert row["outcome"] not in ("infra_error", "load_error", "crash"), row["message"]
    assert row["sandbox"], "the clock-bound baseline played in-process"
    greedy = play_task(met["greedy"], snapshots.cache).row
    assert greedy["outcome"] != "infra_error" and greedy["sandbox"] == "", greedy
