"""The `pacman` command as a student and an organizer use it."""

import json
import os
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from pacman.cli import main
from tests.commands import PACMAN
from tests.conftest import ROOT, TEST_AGENTS


def run(*args: str) -> "object":
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_batch_prints_course_summary():
    result = run("-l", "smallClassic", "-p", "GreedyAgent", "-q", "-n", "3", "--seed", "2")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    per_game = [ln for ln in lines if ln.startswith(("Pacman emerges victorious!", "Pacman died!"))]
    assert len(per_game) == 3
    assert any(ln.startswith("Average Score: ") for ln in lines)
    scores_line = next(ln for ln in lines if ln.startswith("Scores:        "))
    assert len(scores_line.split(",")) == 3 and scores_line.rstrip().endswith(".0")
    assert any(ln.startswith("Win Rate:      ") and "/3 (" in ln for ln in lines)
    assert any(ln.startswith("Record:        ") for ln in lines)


def test_same_seed_same_output_and_json_summary():
    args = ["-l", "smallClassic", "-p", "GreedyAgent", "-q", "-n", "4", "--seed", "9", "--json"]
    a, b = run(*args), run(*args)
    assert a.output == b.output
    data = json.loads(a.output)
    assert data["seed"] == 9 and len(data["games"]) == 4
    assert data["wins"] == sum(g["win"] for g in data["games"])
    assert len({g["seed"] for g in data["games"]}) == 4


def test_fixed_seed_flag_repeats_games():
    a = run("-l", "smallClassic", "-p", "GreedyAgent", "-q", "-n", "2", "-f", "--json")
    b = run("-l", "smallClassic", "-p", "GreedyAgent", "-q", "-n", "2", "-f", "--json")
    assert json.loads(a.output)["games"] == json.loads(b.output)["games"]


def test_agent_file_with_class_and_string_options():
    result = run("-l", "smallClassic", "-p", f"{TEST_AGENTS}:MinimaxAgent",
                 "-a", "depth=1,evalFn=better", "-q", "-n", "1", "--seed", "1", "-k", "1")
    assert result.exit_code == 0, result.output
    assert "Average Score:" in result.output


def test_bare_class_name_found_in_the_current_folder(tmp_path, monkeypatch):
    shutil.copy(TEST_AGENTS, tmp_path / "multiAgents.py")
    monkeypatch.chdir(tmp_path)
    result = run("-l", "smallClassic", "-p", "MinimaxAgent", "-a", "depth=1", "-q", "-n", "1",
                 "--seed", "3")
    assert result.exit_code == 0, result.output
    assert "Win Rate:" in result.output


def test_course_command_from_a_student_folder_in_a_subprocess(tmp_path):
    """Run as a student does: a fresh interpreter, in their folder, the course's flags."""
    shutil.copy(TEST_AGENTS, tmp_path / "multiAgents.py")
    # Students keep the course's own util.py/game.py next to their file: ours must win.
    (tmp_path / "util.py").write_text("raise ImportError('the course copy must not load')\n")
    proc = subprocess.run(
        [*PACMAN, "-l", "smallClassic", "-p", "WandererAgent",
         "-q", "-n", "2", "--seed", "4"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Record:" in proc.stdout


def test_team_folder_reference():
    result = run("-l", "testClassic", "-p", str(ROOT / "submissions" / "example-team"), "-q",
                 "-n", "1", "--seed", "1")
    assert result.exit_code == 0, result.output


def test_unknown_agent_says_did_you_mean():
    result = CliRunner().invoke(main, ["-p", "GreedyAgnt", "-q"])
    assert result.exit_code == 2
    assert "did you mean GreedyAgent" in result.output


def test_missing_class_in_file_lists_classes():
    result = CliRunner().invoke(main, ["-p", f"{TEST_AGENTS}:MinimaxAgnt", "-q"])
    assert result.exit_code == 2
    assert "did you mean MinimaxAgent" in result.output
    assert "WandererAgent" in result.output


def test_unknown_layout_says_did_you_mean():
    result = CliRunner().invoke(main, ["-l", "smalClassic", "-p", "GreedyAgent", "-q"])
    assert result.exit_code == 2
    assert "did you mean smallClassic" in result.output


def test_unknown_agent_option_is_rejected_before_playing():
    result = CliRunner().invoke(main, ["-p", f"{TEST_AGENTS}:MinimaxAgent", "-a", "dept=2",
                                       "-q", "-l", "smallClassic"])
    assert result.exit_code == 2
    assert "dept" in result.output and "depth" in result.output


def test_ghost_given_as_pacman_is_rejected():
    result = CliRunner().invoke(main, ["-p", "RandomGhost", "-q"])
    assert result.exit_code == 2 and "ghost agent" in result.output


def test_keyboard_needs_the_window():
    result = CliRunner().invoke(main, ["-q"])
    assert result.exit_code == 2 and "KeyboardAgent" in result.output


@pytest.mark.parametrize("flag", [["-n", "0"], ["-k", "-1"], ["--max-moves", "0"],
                                  ["-z", "0"], ["--timeout", "0"]])
def test_bad_numbers_exit_2(flag):
    result = CliRunner().invoke(main, ["-p", "GreedyAgent", "-q", *flag])
    assert result.exit_code == 2


def test_crash_without_c_shows_traceback_and_fails():
    result = CliRunner().invoke(main, ["-p", f"{TEST_AGENTS}:CrashAgent", "-q", "-l",
                                       "smallClassic"])
    assert result.exit_code == 1
    assert "ZeroDivisionError" in result.output
    assert "-c" in result.output


def test_crash_with_c_is_a_recorded_loss_and_batch_goes_on():
    result = run("-p", f"{TEST_AGENTS}:CrashAgent", "-q", "-l", "smallClassic", "-n", "2", "-c")
    assert result.exit_code == 0
    assert result.stdout.count("Pacman failed (crash) after") == 2
    # The message (which quotes the agent) is on stderr, apart from the summary.
    assert result.stderr.count("Pacman failed (crash): getAction raised") == 2
    assert "Win Rate:      0/2" in result.stdout


def test_none_action_with_c_is_recorded():
    result = run("-p", f"{TEST_AGENTS}:NoneAgent", "-q", "-l", "smallClassic", "-c")
    assert result.exit_code == 0
    assert "illegal_action" in result.output


def test_cs221_rules_never_stop(tmp_path):
    result = run("-l", "smallClassic", "-p", "RandomAgent", "-q", "-n", "5", "--rules",
                 "cs221", "--seed", "5", "--record-dir", str(tmp_path))
    assert result.exit_code == 0
    for path in tmp_path.glob("*.json"):
        data = json.loads(path.read_text())
        assert data["rules"] == "cs221"
        assert all(a != "Stop" for i, a in data["actions"] if i == 0)


def test_record_and_check_replay(tmp_path):
    result = run("-l", "smallClassic", "-p", "GreedyAgent", "-q", "-n", "2", "--seed", "6",
                 "--record-dir", str(tmp_path))
    assert result.exit_code == 0
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2
    checked = run("--replay", str(files[0]), "-q", "--check")
    assert checked.exit_code == 0 and "OK" in checked.output
    watched = run("--replay", str(files[0]), "-q")
    assert watched.exit_code == 0 and "Replayed" in watched.output


def test_tampered_replay_reports_first_differing_move(tmp_path):
    run("-l", "smallClassic", "-p", "GreedyAgent", "-q", "--seed", "6", "--record-dir",
        str(tmp_path))
    path = next(tmp_path.glob("*.json"))
    data = json.loads(path.read_text())
    data["scores"][4] += 10
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["--replay", str(path), "-q", "--check"])
    assert result.exit_code == 1
    assert "move 4:" in result.output and "expected score" in result.output


def test_minimal_replay_is_accepted(tmp_path):
    layout_text = (ROOT / "layouts" / "testClassic.lay").read_text()
    # testClassic: Pacman at (1, 1); East is an empty cell (-1), East again a dot (+9);
    # the ghost starts at (2, 7) facing Stop and may go West.
    replay = {
        "format": "pacman-replay", "version": 1,
        "layout": {"name": "testClassic", "text": layout_text},
        "rules": "classic", "num_ghosts": 1,
        "actions": [[0, "East"], [1, "West"], [0, "East"]],
        "scores": [-1, -1, 8],
    }
    path = tmp_path / "minimal.json"
    path.write_text(json.dumps(replay))
    result = CliRunner().invoke(main, ["--replay", str(path), "-q", "--check"])
    assert result.exit_code == 0, result.output
    replay["actions"][1] = [1, "Stop"]
    path.write_text(json.dumps(replay))
    result = CliRunner().invoke(main, ["--replay", str(path), "-q", "--check"])
    assert result.exit_code == 1 and "illegal" in result.output


@pytest.mark.parametrize("content,needle", [
    ("not json", "not a JSON replay"),
    ('{"format": "pacman-replay", "version": 2}', "'version'"),
    ('{"format": "pacman-replay", "version": 1, "layout": {"name": "x", '
     '"text": "%%%%\\n%P %\\n%%%%"}, "num_ghosts": 0, "actions": [[0]], "scores": [0]}',
     "actions[0]"),
    ('{"format": "pacman-replay", "version": 1, "rules": ["classic"], "layout": {"name": "x", '
     '"text": "%%%%\\n%P %\\n%%%%"}, "num_ghosts": 0, "actions": [], "scores": []}', "'rules'"),
    ('{"format": "pacman-replay", "version": 1, "layout": {"name": "x", '
     '"text": "%%%%\\n%P %\\n%%%%"}, "num_ghosts": 0, "actions": [[0, "East"]], '
     '"scores": [Infinity]}', "'scores'"),
    ("[" * 100000, "not a JSON replay"),
    # More digits than Python reads into an int: a ValueError of its own, not a traceback.
    ('{"format": "pacman-replay", "seed": ' + "9" * 5000 + "}", "not a JSON replay"),
    # An outcome is a name, never text printed as it came (escapes, a made-up score line).
    ('{"format": "pacman-replay", "version": 1, "layout": {"name": "x", '
     '"text": "%%%%\\n%P %\\n%%%%"}, "num_ghosts": 0, "actions": [], "scores": [], '
     '"outcome": "win\\u001b[2J Average Score: 9999"}', "'outcome'"),
    # A state digest is hex digits: a "digest" of escapes drew a fake "OK" over the
    # MISMATCH line it was printed in (the twelfth hostile review).
    ('{"format": "pacman-replay", "version": 1, "layout": {"name": "x", '
     '"text": "%%%%\\n%P %\\n%%%%"}, "num_ghosts": 0, "actions": [[0, "East"]], '
     '"scores": [-1], "hashes": ["\\u001b[2J\\u001b[32mOK, 412 moves reproduce"]}', "'hashes'"),
    # More moves than any game lasts (the fourteenth hostile review: 1.7 million Stops fit in
    # the bytes allowed, and an 8-frame strip of them took 2.2 GB).
    ('{"format": "pacman-replay", "version": 1, "layout": {"name": "x", '
     '"text": "%%%%\\n%P %\\n%%%%"}, "num_ghosts": 0, "actions": ['
     + ", ".join(['[0, "Stop"]'] * 500_001) + '], "scores": [' + ", ".join(["0"] * 500_001)
     + "]}", "at most 500,000 moves"),
])
def test_malformed_replay_exits_2_naming_the_key(tmp_path, content, needle):
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = CliRunner().invoke(main, ["--replay", str(path), "-q", "--check"])
    assert result.exit_code == 2
    assert needle in result.output and "bad.json" in result.output


def test_a_replays_texts_are_cleaned_as_they_are_read(tmp_path):
    """A replay may come from anyone: its layout name and message reach the organizer's
    terminal without the escapes they held."""
    from pacman import replay as replays

    path = tmp_path / "sent.json"
    path.write_text(json.dumps({
        "format": "pacman-replay", "version": 1,
        "layout": {"name": "x\u001b]0;owned\u0007", "text": "%%%%\n%P %\n%%%%"},
        "num_ghosts": 0, "actions": [], "scores": [], "outcome": "stopped",
        "message": "said \u001b[2J so"}))
    replay = replays.load(path)
    assert "\x1b" not in replay.layout.name and "\x07" not in replay.layout.name
    assert "\x1b" not in replay.message and replay.message.startswith("said ")
    result = CliRunner().invoke(main, ["--replay", str(path), "-q"])
    assert "\x1b" not in result.output, result.output


def test_a_replay_that_is_a_fifo_or_too_big_exits_2_without_reading_it(tmp_path, monkeypatch):
    import os
    import threading

    from pacman import replay as replays

    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    results = []
    reader = threading.Thread(target=lambda: results.append(
        CliRunner().invoke(main, ["--replay", str(fifo), "-q", "--check"])), daemon=True)
    reader.start()
    reader.join(120)  # a deadline for a hang: opening a fifo to read would block for ever
    assert not reader.is_alive()
    assert results[0].exit_code == 2
    assert f"{fifo}: is a named pipe (fifo); expected a regular file" in results[0].output
    big = tmp_path / "big.json"
    big.write_text(" " * 101)
    monkeypatch.setattr(replays, "MAX_BYTES", 100)
    result = CliRunner().invoke(main, ["--replay", str(big), "-q", "--check"])
    assert result.exit_code == 2
    assert f"{big}: 101 bytes, more than the 100 allowed" in result.output


def test_the_longest_game_allowed_has_a_replay_that_reads_back(tmp_path):
    """`--max-moves` and `grid.max_moves` stop at `MAX_MOVES` so that a kept replay is never
    too big to read: the worst one (the largest layout, every cell a ghost, the widest agent
    index, score and action at every move) still loads."""
    from pacman import replay as replays
    from pacman.layout import MAX_SIDE

    side = MAX_SIDE
    rows = ["%" * side] + ["%P" + "G" * (side - 3) + "%"] + [
        "%" + "G" * (side - 2) + "%" for _ in range(side - 3)] + ["%" * side]
    ghosts = "".join(rows).count("G")
    moves = replays.MAX_MOVES
    raw = {
        "format": replays.FORMAT, "version": replays.VERSION, "platform": "pacman-arena 9.9.9",
        "layout": {"name": "x" * replays.NAME_LIMIT, "text": "\n".join(rows)},
        "rules": "classic", "num_ghosts": ghosts, "seed": 2**63 - 1,
        "agents": ["A" * 64] * (ghosts + 1), "outcome": "move_limit", "culprit": ghosts,
        "message": "m" * 1000, "score": -(10**9),
        "actions": [[ghosts, "North"]] * moves, "scores": [-(10**9)] * moves,
        "hashes": ["f" * 12] * moves,
    }
    path = tmp_path / "longest.json"
    path.write_text(json.dumps(raw, separators=(",", ":")))
    loaded = replays.load(path)
    assert len(loaded.actions) == moves and loaded.num_ghosts == ghosts
    for flag in (str(moves + 1), "0"):
        result = CliRunner().invoke(main, ["-p", "GreedyAgent", "-q", "--max-moves", flag])
        assert result.exit_code == 2 and f"expected 1 to {moves:,}" in result.output


def test_a_game_on_the_largest_layout_records_and_checks_its_replay(tmp_path):
    """Found by the eighth hostile review: a replay's state hashes wrote the food bitmask as
    decimal text, which Python refuses past 4,300 digits: on a layout of over ~14,300 cells
    every kept replay raised (in a tournament, the game became the platform's failure)."""
    from pacman.layout import MAX_SIDE

    side = MAX_SIDE
    rows = ["%" * side, "%P" + "." * (side - 4) + "G%"] + [
        "%" + "." * (side - 2) + "%" for _ in range(side - 3)] + ["%" * side]
    layout = tmp_path / "huge.lay"
    layout.write_text("\n".join(rows) + "\n")
    recorded = run("-l", str(layout), "-p", "GreedyAgent", "-k", "1", "-q", "--seed", "1",
                   "--max-moves", "40", "-r", "--record-dir", str(tmp_path / "replays"))
    assert recorded.exit_code == 0, recorded.output
    [replay] = (tmp_path / "replays").glob("*.json")
    checked = run("--replay", str(replay), "--check", "-q")
    assert checked.exit_code == 0, checked.output


def test_raise_not_defined_is_a_recorded_crash_and_json_stays_clean():
    result = CliRunner().invoke(main, ["-p", f"{TEST_AGENTS}:UnfinishedAgent", "-q", "-l",
                                       "smallClassic", "-n", "2", "-c", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [g["outcome"] for g in data["games"]] == ["crash", "crash"]
    assert "thinking..." not in result.stdout


def test_raise_not_defined_without_c_fails_the_command():
    result = CliRunner().invoke(main, ["-p", f"{TEST_AGENTS}:UnfinishedAgent", "-q", "-l",
                                       "smallClassic"])
    assert result.exit_code == 1


# --- the course path: a broken file never becomes another agent ------------------------------

PYTHON2 = """from game import Agent


class ExpectimaxAgent(Agent):
    def getAction(self, state):
        print "thinking"
        return state.getLegalActions()[0]
"""
UNCLOSED = """from game import Agent


class ExpectimaxAgent(Agent):
    def getAction(self, state):
        return max(state.getLegalActions(),
"""
ONLY_REFLEX = """from game import Agent


class ReflexAgent(Agent):
    def getAction(self, state):
        return state.getLegalActions()[0]
"""
FIRST_MOVE = """from game import Agent


class FirstMove(Agent):
    def getAction(self, state):
        return state.getLegalActions()[0]


ExpectimaxAgent = FirstMove
"""
COURSE_COMMAND = ["-p", "ExpectimaxAgent", "-a", "evalFn=better", "-l", "smallClassic", "-q",
                  "-n", "2", "--seed", "3"]


def in_folder(tmp_path, monkeypatch, **files: str):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("stray", ["multiAgents-1.py", "multiAgents.py.bak", "multiAGENTS.py",
                                   "submission (1).py", "link:multiAgents.py",
                                   "multiAgent.py"])
def test_a_folder_whose_agent_file_is_misnamed_never_plays_the_builtin(
        tmp_path, monkeypatch, stray):
    """Found by the seventh hostile review: a student's file saved under another name (an
    LMS's `multiAgents-1.py`, a backup, a link to nowhere, a file that defines the class
    asked for under a name the course does not search) left a folder without agent files,
    where a bare name played the platform's tuned built-in with a normal summary. The course
    engine stops there; so does the command, saying how to ask for the built-in."""
    if stray.startswith("link:"):
        stray = stray.removeprefix("link:")
        (tmp_path / stray).symlink_to(tmp_path / "nowhere.py")
    else:
        (tmp_path / stray).write_text("class ExpectimaxAgent: pass\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, COURSE_COMMAND)
    assert result.exit_code == 2
    assert f'holds no agent file (*gents.py or submission.py) but holds "{stray}"' in (
        result.stderr)
    assert "-p builtin:ExpectimaxAgent" in result.stderr and result.stdout == ""
    # Asked for by name, the built-in plays.
    builtin = ["-p", "builtin:ExpectimaxAgent", *COURSE_COMMAND[2:]]
    assert CliRunner().invoke(main, builtin).exit_code == 0


def test_a_folder_with_nothing_meant_as_an_agent_file_plays_the_builtin(
        tmp_path, monkeypatch):
    """A TA's folder of downloads and notes is no course folder: a bare name plays the
    built-in, as the summary says."""
    for name, text in {"submissions.zip": "PK", "agents.md": "notes", "helper.py":
                       "class Helper: pass\n", "broken.py": "def (:\n"}.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, COURSE_COMMAND)
    assert result.exit_code == 0, result.output
    assert "Pacman:        built-in ExpectimaxAgent" in result.stdout


@pytest.mark.parametrize("source, line, words", [
    (PYTHON2, 6, "Missing parentheses in call to 'print'"),
    (UNCLOSED, 6, "'(' was never closed"),
])
def test_a_file_that_does_not_compile_is_an_error_naming_file_and_line(
        tmp_path, monkeypatch, source, line, words):
    in_folder(tmp_path, monkeypatch, **{"multiAgents.py": source})
    result = CliRunner().invoke(main, COURSE_COMMAND)
    assert result.exit_code == 2
    assert f"{tmp_path / 'multiAgents.py'}:{line}:" in result.stderr
    assert "syntax error" in result.stderr and words in result.stderr
    assert result.stdout == ""  # no game was played


def test_a_text_is_parsed_once_and_its_errors_name_each_path_it_came_from(tmp_path):
    # Hostile source within the size cap can cost seconds of the organizer's CPU to parse (an
    # f-string of many fields), and a run reads a team's file from its folder and from the
    # run's snapshot, for its class and its constructor: the parser's work is done once a
    # text, and an error still names the path it was read from.
    from pacman import loader

    text = UNCLOSED + f"\nx = {'1 + ' * 50}{secrets.randbelow(10**9)}\n"
    folder, snapshot = tmp_path / "team", tmp_path / "snapshot"
    for place in (folder, snapshot):
        place.mkdir()
        (place / "agent.py").write_text(text)
    before = loader._compiled.cache_info().misses
    messages = []
    for place in (folder, snapshot, folder):
        with pytest.raises(loader.SourceError) as caught:
            loader.compile_source(place / "agent.py")
        messages.append(str(caught.value))
        assert isinstance(caught.value.__cause__, SyntaxError)
    assert loader._compiled.cache_info().misses == before + 1
    assert messages[0].startswith(f"{folder / 'agent.py'}:6:"), messages[0]
    assert messages[1].startswith(f"{snapshot / 'agent.py'}:6:"), messages[1]
    assert messages[2] == messages[0]
    # With the offending line, as Python shows it (the parser knew the text as "<source>").
    assert all("\n    " in message for message in messages), messages
    good = tmp_path / "good.py"
    good.write_text(f"class A:\n    x = {secrets.randbelow(10**9)}\n")
    before = loader._parsed.cache_info().misses
    trees = [loader.compile_source(good, check=False) for _ in range(3)]
    assert loader._parsed.cache_info().misses == before + 1
    assert loader.classes_in_source(good, check=False) == ["A"] and trees[0] is trees[2]


def test_any_agent_file_that_does_not_compile_stops_the_search(tmp_path, monkeypatch):
    # The class is in multiAgents.py, but the course imports every *Agents.py it searches:
    # a broken one stops it, and skipping it could play another file's agent of that name.
    in_folder(tmp_path, monkeypatch, **{"multiAgents.py": FIRST_MOVE, "aaaAgents.py": PYTHON2})
    result = CliRunner().invoke(main, COURSE_COMMAND)
    assert result.exit_code == 2
    assert f"{tmp_path / 'aaaAgents.py'}:6:" in result.stderr


@pytest.mark.parametrize("source", [
    "x = " + "-" * 100_000 + "1\n",  # MemoryError in the parser
    "x = " + "+".join(["1"] * 100_000) + "\n",  # RecursionError building the tree
    "x = " + "(" * 5000 + ")" * 5000 + "\n",
])
def test_hostile_nesting_is_an_error_naming_the_file_never_a_crash(
        tmp_path, monkeypatch, source):
    in_folder(tmp_path, monkeypatch, **{"multiAgents.py": source})
    result = CliRunner().invoke(main, COURSE_COMMAND)
    assert result.exit_code == 2
    assert f"{tmp_path / 'multiAgents.py'}" in result.stderr
    assert "Traceback" not in result.output


def test_a_class_missing_from_the_folder_is_an_error_not_the_built_in(tmp_path, monkeypatch):
    in_folder(tmp_path, monkeypatch, **{"multiAgents.py": ONLY_REFLEX})
    result = CliRunner().invoke(main, COURSE_COMMAND)
    assert result.exit_code == 2
    assert "ExpectimaxAgent is not defined" in result.stderr
    assert "multiAgents.py" in result.stderr and "-p builtin:ExpectimaxAgent" in result.stderr
    assert result.stdout == ""
    # Asked for explicitly, the built-in plays, and the summary says so.
    result = run("-p", "builtin:ExpectimaxAgent", *COURSE_COMMAND[2:])
    assert result.exit_code == 0, result.output
    assert "Pacman:        built-in ExpectimaxAgent -a evalFn=better, in-process" in (
        result.stdout.splitlines())


def test_the_local_class_wins_over_the_built_in_and_the_summary_names_it(
        tmp_path, monkeypatch):
    shutil.copy(TEST_AGENTS, tmp_path / "multiAgents.py")
    monkeypatch.chdir(tmp_path)
    result = run("-l", "smallClassic", "-p", "MinimaxAgent", "-a", "depth=1", "-q", "-n", "1",
                 "--seed", "3")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "Pacman:        ./multiAgents.py:MinimaxAgent -a depth=1, sandboxed" in lines
    assert "Ghosts:        built-in RandomGhost x 2, in-process" in lines


def test_a_name_bound_by_assignment_counts_as_the_course_counts_it(tmp_path, monkeypatch):
    in_folder(tmp_path, monkeypatch, **{"multiAgents.py": FIRST_MOVE})
    result = run(*COURSE_COMMAND[:2], "-l", "testClassic", "-q", "-n", "1", "-k", "1",
                 "--max-moves", "20")
    assert result.exit_code == 0, result.output
    assert "Pacman:        ./multiAgents.py:ExpectimaxAgent, sandboxed" in result.stdout


def test_without_agent_files_a_bare_name_plays_the_built_in(tmp_path, monkeypatch):
    in_folder(tmp_path, monkeypatch, **{"notes.py": PYTHON2})  # not an agent file
    result = run(*COURSE_COMMAND)
    assert result.exit_code == 0, result.output
    assert "Pacman:        built-in ExpectimaxAgent -a evalFn=better, in-process" in (
        result.stdout.splitlines())


def test_an_unknown_built_in_says_did_you_mean():
    result = CliRunner().invoke(main, ["-p", "builtin:ExpectimaxAgnt", "-q"])
    assert result.exit_code == 2
    assert "did you mean builtin:ExpectimaxAgent" in result.stderr


# --- what agents print goes to stderr; stdout is the platform's ----------------------------

PRINTER = """import os
import sys

from game import Agent

print("Average Score: 1001")


class LoudAgent(Agent):
    def __init__(self):
        print("Average Score: 1002")

    def getAction(self, state):
        print("Average Score: 1742")
        sys.__stdout__.write("Average Score: 1743\\n")
        sys.__stdout__.flush()
        os.write(1, b"Average Score: 1744\\n")
        return state.getLegalActions()[0]
"""


def test_an_agents_prints_never_reach_stdout_even_written_to_descriptor_1(tmp_path):
    """A fresh interpreter with real descriptors: the agent prints a fake summary by print,
    by `sys.__stdout__` and by `os.write(1, ...)`, in-process (`--no-sandbox`)."""
    (tmp_path / "loudAgents.py").write_text(PRINTER)
    proc = subprocess.run(
        [*PACMAN, "-l", "testClassic", "-p", "LoudAgent", "-q",
         "-n", "1", "-k", "1", "--max-moves", "6", "--seed", "1", "--no-sandbox"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    scores = [ln for ln in proc.stdout.splitlines() if ln.startswith("Average Score:")]
    assert scores == ["Average Score: -3.0"]
    for fake in ("1001", "1002", "1742", "1743", "1744"):
        assert f"Average Score: {fake}" in proc.stderr, fake
    assert proc.stdout.splitlines()[-1].startswith("Seed:")


def test_a_sandboxed_agents_output_is_shown_on_stderr(tmp_path, monkeypatch):
    in_folder(tmp_path, monkeypatch, **{"loudAgents.py": PRINTER})
    result = run("-l", "testClassic", "-p", "LoudAgent", "-q", "-n", "1", "-k", "1",
                 "--max-moves", "6", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "Average Score: 1742" in result.stderr
    assert "1742" not in result.stdout
    assert [ln for ln in result.stdout.splitlines() if ln.startswith("Average Score:")] == [
        "Average Score: -3.0"]


def test_the_text_board_is_platform_output_on_stdout():
    result = run("-l", "testClassic", "-p", "GreedyAgent", "-t", "--frameTime", "0", "-n", "1",
                 "-k", "1", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "%%%%%" in result.stdout and "Game over:" in result.stdout
    result = run("-l", "testClassic", "-p", "GreedyAgent", "-t", "--frameTime", "0", "-n", "1",
                 "-k", "1", "--seed", "1", "--json")
    assert len(json.loads(result.stdout)["games"]) == 1  # the board went to stderr
    assert "%%%%%" in result.stderr


# --- no move limit by default, as the course -------------------------------------------------

DITHERER = """from game import Agent


class DitherAgent(Agent):
    '''Stops 3100 times (longer than any default limit would allow), then eats the dot.'''

    def __init__(self):
        self.moves = 0

    def getAction(self, state):
        self.moves += 1
        return "Stop" if self.moves <= 3100 else "East"
"""


def test_no_move_limit_by_default_and_max_moves_sets_one(tmp_path, monkeypatch):
    in_folder(tmp_path, monkeypatch, **{"ditherAgents.py": DITHERER,
                                        "corridor.lay": "%%%%\n%P.%\n%%%%\n"})
    args = ["-l", "corridor", "-p", "DitherAgent", "-q", "--no-sandbox", "--json"]
    game = json.loads(run(*args).stdout)["games"][0]
    assert (game["outcome"], game["moves"], game["score"]) == ("win", 3101, 10 + 500 - 3101)
    game = json.loads(run(*args, "--max-moves", "3000").stdout)["games"][0]
    assert (game["outcome"], game["moves"]) == ("move_limit", 3000)


# --- layouts as the course finds and reads them ----------------------------------------------

def test_a_layout_in_the_current_folder_with_an_unknown_character_plays_with_a_warning(
        tmp_path, monkeypatch):
    in_folder(tmp_path, monkeypatch, **{"mine.lay": "%%%%%%\n%P.x.%\n%%%%%%\n"})
    result = run("-l", "mine", "-p", "GreedyAgent", "-q", "-n", "1", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    game = json.loads(result.stdout)["games"][0]
    # 'x' is open (a wall there would leave the far dot out of reach) and holds no dot: the
    # two dots and the win are the whole score, less a point a move.
    assert game["outcome"] == "win" and game["score"] == 2 * 10 + 500 - game["moves"]
    assert f"{tmp_path / 'mine.lay'}:2:4: unknown character 'x' read as empty space" in (
        result.stderr)


# --- no display --------------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    ([], "KeyboardAgent is played with the window's keys"),
    (["-p", "GreedyAgent", "-l", "testClassic"], "add -q"),
])
def test_a_window_without_a_display_is_an_error(tmp_path, args, words):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    proc = subprocess.run([*PACMAN, *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no display" in proc.stderr and words in proc.stderr
    assert proc.stdout == ""


def test_a_window_on_a_driver_chosen_on_purpose_plays(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    result = run("-l", "testClassic", "-p", "GreedyAgent", "--frameTime", "0", "-n", "1",
                 "-k", "1", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "Record:" in result.stdout


def test_keyboard_and_built_in_ghosts_are_always_the_platforms(tmp_path):
    from pacman.loader import SourceError, resolve

    # A course folder holds the course's keyboardAgents.py (its KeyboardAgent reads a Tk
    # window that does not exist here) and ghostAgents.py; a broken student file is beside.
    (tmp_path / "keyboardAgents.py").write_text(
        "from game import Agent\n\nclass KeyboardAgent(Agent):\n    pass\n")
    (tmp_path / "ghostAgents.py").write_text(
        "from game import Agent\n\nclass RandomGhost(Agent):\n    pass\n")
    (tmp_path / "multiAgents.py").write_text(PYTHON2)
    keyboard = resolve("KeyboardAgent", cwd=tmp_path)
    assert keyboard.builtin and keyboard.played_by() == "built-in KeyboardAgent"
    assert resolve("RandomGhost", kind="ghost", cwd=tmp_path).builtin
    with pytest.raises(SourceError, match=r"multiAgents\.py:6:"):
        resolve("GreedyAgent", cwd=tmp_path)


def test_a_star_import_is_named_when_the_class_is_not_found(tmp_path):
    from pacman.loader import SubmissionError, resolve

    (tmp_path / "multiAgents.py").write_text("from myAgents import *\n")
    (tmp_path / "myAgents.py").write_text(FIRST_MOVE)
    with pytest.raises(SubmissionError, match=r"multiAgents\.py import names with \*"):
        resolve("MinimaxAgent", cwd=tmp_path)
    # Named with its file, it resolves (the file is the judge of what it imports).
    ref = resolve(f"{tmp_path / 'multiAgents.py'}:MinimaxAgent", cwd=tmp_path)
    assert ref.played_by(tmp_path) == "./multiAgents.py:MinimaxAgent"


def test_the_summary_names_a_course_folders_own_layout_file(tmp_path, monkeypatch):
    # Found by the hostile review: a folder's layouts/smallClassic.lay plays in place of the
    # project's (as in the course), and the summary must say so.
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "smallClassic.lay").write_text("%%%%%\n%P.G%\n%%%%%\n")
    monkeypatch.chdir(tmp_path)
    result = run("-l", "smallClassic", "-p", "GreedyAgent", "-q", "--seed", "1")
    assert result.exit_code == 0, result.output
    local = tmp_path / "layouts" / "smallClassic.lay"
    assert f"Layout:        smallClassic (from {local})" in result.stdout
    data = json.loads(run("-l", "smallClassic", "-p", "GreedyAgent", "-q", "--json").stdout)
    assert data["layout_file"] == str(local)
    monkeypatch.chdir(tmp_path.parent)
    result = run("-l", "smallClassic", "-p", "GreedyAgent", "-q", "--seed", "1")
    assert "Layout:        smallClassic\n" in result.stdout


def test_a_long_base_class_chain_is_read_without_recursion(tmp_path):
    # Found by the second hostile review: ast.unparse of a 1,200-link attribute chain in a
    # class's base crashed the organizer's process (RecursionError) before any game.
    chain = ".".join(["game.Agent"] + ["x"] * 1200)
    (tmp_path / "multiAgents.py").write_text(
        f"import game\n\n\nclass MyAgent({chain}):\n    def getAction(self, state):\n"
        "        return 'Stop'\n")
    from pacman.loader import options_in_source

    assert options_in_source(tmp_path / "multiAgents.py", "MyAgent") is None
    result = run("-p", str(tmp_path), "-q", "-c", "--seed", "1", "--max-moves", "4")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output


# --- ghost teams: -g and --ghostArgs --------------------------------------------------------

GHOST_TEAM = ROOT / "tests" / "zoo" / "ghost_team.py"


def ghost_folder(tmp_path, yaml: str = "name: Night Shift\nghost: ghostAgents.py:ChasingGhost\n"):
    folder = tmp_path / "night-shift"
    folder.mkdir()
    shutil.copy(GHOST_TEAM, folder / "ghostAgents.py")
    (folder / "team.yaml").write_text(yaml)
    return folder


@pytest.mark.parametrize("form", ["file", "folder"])
@pytest.mark.parametrize("sandbox", ["--sandbox", "--no-sandbox"])
def test_a_ghost_team_from_a_file_or_a_folder_with_ghost_args(tmp_path, form, sandbox):
    folder = ghost_folder(tmp_path)
    ref = f"{folder}/ghostAgents.py:ChasingGhost" if form == "file" else str(folder)
    args = ["-l", "smallClassic", "-p", "GreedyAgent", "-g", ref, "--ghostArgs",
            "prob_attack=1.0", "-q", "-n", "2", "--seed", "4", "--max-moves", "200", sandbox]
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # what the ghosts print goes to stderr
    assert [g["outcome"] for g in data["games"]] != [] and not data["failures"]
    # Outside the current folder: the file's name, or the team's (never the path).
    who = "ghostAgents.py:ChasingGhost" if form == "file" else "Night Shift (ChasingGhost)"
    assert data["played_by"]["ghosts"] == (
        f"{who} x 2 --ghostArgs prob_attack=1.0, "
        f"{'sandboxed' if sandbox == '--sandbox' else 'in-process'}")
    # Options reach the ghosts: prob_attack=1.0 chases for certain, unlike the default.
    other = json.loads(run(*args[:7], "prob_attack=0.0", *args[8:], "--json").stdout)
    assert [g["score"] for g in other["games"]] != [g["score"] for g in data["games"]]


def test_a_built_in_ghost_with_ghost_args():
    result = run("-l", "smallClassic", "-p", "GreedyAgent", "-g", "DirectionalGhost",
                 "--ghostArgs", "prob_attack=0.5", "-q", "-n", "1", "--seed", "2")
    assert result.exit_code == 0, result.output
    assert "built-in DirectionalGhost x 2 --ghostArgs prob_attack=0.5, in-process" in result.output


@pytest.mark.parametrize("ghost, ghost_args, words", [
    ("DirectionalGhost", "speed=2", "--ghostArgs speed=...: DirectionalGhost takes no option"),
    ("DirectionalGhost", "prob_attack=lots", "could not convert string to float"),
    ("DirectionalGhost", "9lives", "--ghostArgs: '9lives' is not key=value"),
    ("{folder}/ghostAgents.py:ChasingGhost", "speed=2",
     "--ghostArgs speed=...: ghostAgents.py:ChasingGhost takes no option 'speed'"),
    ("{folder}", "speed=2",
     "--ghostArgs speed=...: Night Shift (ChasingGhost) takes no option 'speed'"),
    ("ExpectimaxAgent", "", "ExpectimaxAgent is a pacman agent, not a ghost agent"),
    (f"{TEST_AGENTS}:MinimaxAgent", "", "MinimaxAgent is not a ghost: its constructor"),
])
def test_bad_ghosts_and_ghost_args_exit_2_before_any_game(tmp_path, ghost, ghost_args, words):
    folder = ghost_folder(tmp_path)
    result = run("-l", "smallClassic", "-p", "GreedyAgent", "-g", ghost.format(folder=folder),
                 "--ghostArgs", ghost_args, "-q", "-n", "1")
    assert result.exit_code == 2
    assert words in result.output
    assert "Average Score" not in result.output


def test_a_team_with_only_a_pacman_given_as_ghosts_exits_2(tmp_path):
    folder = ghost_folder(tmp_path, "agent: ghostAgents.py:ChasingGhost\n")
    result = run("-l", "smallClassic", "-p", "GreedyAgent", "-g", str(folder), "-q")
    assert result.exit_code == 2
    assert "team.yaml: the team names no ghost" in result.output


def test_the_summary_names_an_agent_outside_the_folder_without_its_path(tmp_path):
    """`Pacman:` says `./file.py:Class` for a file under the current folder (which file of
    the course folder played), and the agent's name for one elsewhere: never a path of the
    machine's."""
    repo = Path(__file__).resolve().parent.parent
    proc = subprocess.run(
        [*PACMAN, "-l", "testClassic", "-p",
         str(repo / "submissions" / "example-team"), "--no-sandbox", "-q", "--seed", "1",
         "--max-moves", "20"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Pacman:        Example Team (ExampleExpectimaxAgent), in-process" in (
        proc.stdout.splitlines())
    assert str(repo) not in proc.stdout


def test_catch_exceptions_and_timeout_are_the_courses_game_budget() -> None:
    """In the course, `-c` plays with `--timeout` (30 s): seconds of thinking per game in
    all, and at most that to start and for one move (its ClassicGameRules gives one number
    for the three). Here it was a per-move limit only, so an agent that thinks 0.3 s a move
    over a long game won where the course said "Agent 0 ran out of time!" (the eleventh
    hostile review). The finer flags still override one field."""
    from pacman.cli import build_limits

    course = build_limits(False, True, {})
    assert (course.startup, course.move_hard, course.game_total) == (30.0, 30.0, 30.0)
    given = build_limits(False, True, {"game_total": ("--game-time", 100.0)}, timeout=5.0)
    assert (given.startup, given.move_hard, given.game_total) == (5.0, 5.0, 100.0)
    untimed = build_limits(False, False, {})
    assert (untimed.startup, untimed.move_hard, untimed.game_total) == (None, None, None)


def test_a_game_the_platform_failed_is_said_so_and_never_scored() -> None:
    """An `infra_error` is no agent's failure: the line says the platform failed (it read
    "Ghost None failed"), and the average and the win rate leave the game out, as a
    tournament never scores one (the eleventh hostile review)."""
    from pacman.cli import failure_line, summary_lines

    won = {"outcome": "win", "win": True, "score": 500.0, "culprit": None, "moves": 9,
           "message": ""}
    broken = {"outcome": "infra_error", "win": False, "score": 0.0, "culprit": None,
              "moves": 0, "message": "a sandbox could not start"}
    assert failure_line(broken) == "The platform failed (infra_error): a sandbox could not start"
    assert summary_lines([won, broken]) == [
        "Average Score: 500.0", "Scores:        500.0", "Win Rate:      1/1 (1.00)",
        "Record:        Win, Error"]


def test_a_cs221_submission_plays_the_cs221_rules_unless_told(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A course folder's `submission.py` (CS221) plays the CS221 rules, whose engine never
    offers Pacman Stop, unless --rules says otherwise; the summary says which rules played
    (the eleventh hostile review: it played the classic rules, saying nothing)."""
    (tmp_path / "submission.py").write_text(
        "class ExpectimaxAgent:\n"
        "    def getAction(self, state):\n"
        "        legal = state.getLegalActions(0)\n"
        "        assert 'Stop' not in legal, legal\n"
        "        return legal[0]\n")
    monkeypatch.chdir(tmp_path)
    played = run("-p", "ExpectimaxAgent", "-l", "testClassic", "-q", "--seed", "1",
                 "--max-moves", "20", "--no-sandbox")
    assert played.exit_code == 0, played.output  # type: ignore[attr-defined]
    assert "Rules:         cs221" in played.output  # type: ignore[attr-defined]
    classic = run("-p", "ExpectimaxAgent", "-l", "testClassic", "-q", "--seed", "1",
                  "--max-moves", "20", "--no-sandbox", "--rules", "classic", "-c")
    assert "Rules:         classic" in classic.output  # type: ignore[attr-defined]
    assert "crash" in classic.output + classic.stderr  # type: ignore[attr-defined]


def test_no_line_of_the_pacman_command_carries_a_terminal_escape(tmp_path):
    """Messages quote names from a team's files: a team.yaml class name written with YAML
    escapes set the organizer's window title, cleared the screen and printed a red line of
    the team's choosing (the twelfth hostile review). Every line the command prints is
    cleaned on its way out."""
    team = tmp_path / "evil"
    team.mkdir()
    (team / "myAgents.py").write_text("class A:\n    pass\n")
    (team / "team.yaml").write_text(
        'name: ok\nagent: "myAgents.py:\\e]0;PWNED\\e\\\\\\e[2J\\e[1;31mFAKE\\u202eXYZ"\n')
    result = CliRunner().invoke(main, ["-p", str(team), "-l", "testClassic", "-q", "-n", "1"])
    assert result.exit_code == 2, result.output
    assert "FAKE" in result.output and "PWNED" in result.output  # the name is still shown
    assert "\x1b" not in result.output and "\u202e" not in result.output


def test_an_in_process_agents_traceback_is_cleaned(tmp_path):
    """With --no-sandbox the failing agent's own traceback is shown: its exception's text
    too is cleaned on the way out (the review of the change found it printed raw)."""
    (tmp_path / "evilAgents.py").write_text(
        "class Evil:\n"
        "    def getAction(self, state):\n"
        "        raise ValueError('\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31mAll good\\u202eXY')\n")
    result = CliRunner().invoke(main, ["-p", f"{tmp_path}/evilAgents.py:Evil", "-l",
                                       "testClassic", "-q", "-n", "1", "--no-sandbox"])
    assert result.exit_code == 1, result.output
    assert "Traceback" in result.output and "All good" in result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output


def test_a_recorded_game_stops_where_a_replay_can_still_hold_it(tmp_path, monkeypatch):
    """Found by the review of the replays' move bound: without --max-moves a game has no
    limit (as the course), so a recorded one could outgrow what a replay may hold and be
    written but never read back. Recorded, it stops at the replay's bound (here lowered)."""
    from pacman import replay as replays

    monkeypatch.setattr(replays, "MAX_MOVES", 40)
    result = CliRunner().invoke(main, ["-l", "mediumClassic", "-p", "GreedyAgent", "-k", "0", "-q",
                                       "-r", "--record-dir", str(tmp_path), "--fixRandomSeed"])
    assert result.exit_code == 0, result.output
    assert "Game stopped at the move limit (40 moves)" in result.output
    [recorded] = tmp_path.glob("*.json")
    assert len(replays.load(recorded).actions) == 40


def test_fixed_seed_repeats_draws_a_file_makes_as_it_is_imported(tmp_path):
    """The course seeds `random` before it imports the agents' files; with --no-sandbox the
    file was imported before any seed, so -f did not repeat its import-time draws (the
    fifteenth hostile review)."""
    (tmp_path / "multiAgents.py").write_text(
        "import random\nfrom game import Agent\n"
        "ORDER = random.sample(range(1000), 5)\n"
        "print('ORDER', ORDER)\n"
        "class ShuffleAgent(Agent):\n"
        "    def getAction(self, s):\n"
        "        return s.getLegalActions()[0]\n")
    lines = []
    for _ in range(2):
        out = subprocess.run([*PACMAN, "-p", "ShuffleAgent", "-l", "testClassic", "-q", "-n", "1",
                              "-f", "--no-sandbox"], cwd=tmp_path, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        lines.append([line for line in (out.stdout + out.stderr).splitlines()
                      if line.startswith("ORDER")])
    assert lines[0] == lines[1] and len(lines[0]) == 1


@pytest.mark.parametrize("flag", [["--memory", "100"], ["--cpu-time", "1"],
                                  ["--output-limit", "8"]])
def test_sandbox_limits_where_nothing_plays_sandboxed_are_refused(flag: list[str]) -> None:
    """Only the sandbox enforces them: accepted with --no-sandbox, they bounded nothing and
    the student believed their agent within them (review 19)."""
    for args in (["--no-sandbox"], []):  # a built-in against built-ins plays in-process too
        result = CliRunner().invoke(main, ["-p", "GreedyAgent", "-q", *args, *flag])
        assert result.exit_code == 2
        assert f"{flag[0]}: limits of sandboxed agents" in result.output
    played = CliRunner().invoke(main, ["-p", f"{TEST_AGENTS}:MinimaxAgent", "-q", "-k", "1",
                                       "--max-moves", "4", *flag])
    assert "limits of sandboxed agents" not in played.output  # a file plays sandboxed
