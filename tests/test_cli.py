"""The `pacman` command as a student and an organizer use it."""

import json
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from pacman.cli import main
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
        [sys.executable, "-m", "pacman.cli", "-l", "smallClassic", "-p", "WandererAgent",
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
    assert result.output.count("Pacman failed (crash)") == 2
    assert "Win Rate:      0/2" in result.output


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
])
def test_malformed_replay_exits_2_naming_the_key(tmp_path, content, needle):
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = CliRunner().invoke(main, ["--replay", str(path), "-q", "--check"])
    assert result.exit_code == 2
    assert needle in result.output and "bad.json" in result.output


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
