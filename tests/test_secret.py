"""The tournament's secret: made once per results folder, private, and what keys its games."""

from __future__ import annotations

import stat
import textwrap
from pathlib import Path

import pytest

from tournament.config import load_config
from tournament.runner import tasks_for
from tournament.schedule import schedule
from tournament.secret import SECRET_NAME, SecretError, game_secret


def config_in(folder: Path, extra: str = "") -> Path:
    path = folder / "t.yaml"
    path.write_text(textwrap.dedent("""\
        name: Secret cup
        entrants: {baselines: [{name: greedy, agent: GreedyAgent}]}
        grid: {layouts: [testClassic]}
        games_per_cell: 2
        output: out
        """) + extra)
    return path


def test_a_results_folder_makes_its_secret_once_and_keeps_it_private(tmp_path: Path) -> None:
    config = load_config(config_in(tmp_path))
    first = game_secret(config)
    path = tmp_path / "out" / SECRET_NAME
    assert len(first) == 64 and int(first, 16) >= 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert game_secret(config) == first
    (tmp_path / "elsewhere").mkdir()
    other = load_config(config_in(tmp_path / "elsewhere"))
    assert game_secret(other) != first  # another folder, other games


def test_a_config_may_name_where_its_secret_lives(tmp_path: Path) -> None:
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "cup.secret").write_text("ab" * 32 + "\n")
    config = load_config(config_in(tmp_path, "secret_file: keys/cup.secret\n"))
    assert game_secret(config) == "ab" * 32
    tasks = tasks_for(config, schedule(config), {"greedy": ""})
    assert {task.secret for task in tasks} == {"ab" * 32 + "/"}  # and the (empty) hash
    assert not (tmp_path / "out" / SECRET_NAME).exists()


@pytest.mark.parametrize("content", ["", "short", "zz" * 32, "ab" * 33])
def test_a_damaged_secret_is_an_error_naming_the_file(tmp_path: Path, content: str) -> None:
    (tmp_path / "bad.secret").write_text(content)
    config = load_config(config_in(tmp_path, "secret_file: bad.secret\n"))
    with pytest.raises(SecretError, match=r"bad\.secret"):
        game_secret(config)


def test_a_run_refuses_to_go_on_without_the_secret_its_games_were_played_with(
        tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tournament.cli import main

    config = config_in(tmp_path)
    assert CliRunner().invoke(main, ["run", str(config)]).exit_code == 0
    (tmp_path / "out" / SECRET_NAME).unlink()
    text = config.read_text().replace("games_per_cell: 2", "games_per_cell: 3")
    config.write_text(text)
    result = CliRunner().invoke(main, ["run", str(config)])
    assert result.exit_code == 2
    assert "no such secret file" in result.output and "stored games" in result.output
    # Nor with another one (a file replaced by hand): the folder never mixes two secrets.
    (tmp_path / "out" / SECRET_NAME).write_text("cd" * 32)
    result = CliRunner().invoke(main, ["run", str(config)])
    assert result.exit_code == 2
    assert "not the secret this folder's stored games were played with" in result.output
    # A refused command played nothing, so the runs table does not list it.
    from tournament.store import Store

    with Store(tmp_path / "out" / "results.sqlite") as store:
        assert [(run.run_id, run.games, run.ended) for run in store.runs()] == [
            (1, 2, "finished")]


def test_each_submission_plays_streams_of_its_own(tmp_path: Path) -> None:
    # Found by the second hostile review: with one key for everyone, a resubmission (or
    # another team, from published replays) knew the ghosts' draws of the same games.
    config = load_config(config_in(tmp_path))
    games = schedule(config)
    first = tasks_for(config, games, {"greedy": "aaaa"})
    again = tasks_for(config, games, {"greedy": "aaaa"})
    changed = tasks_for(config, games, {"greedy": "bbbb"})
    assert [t.secret for t in first] == [t.secret for t in again]
    assert all(a.secret != b.secret for a, b in zip(first, changed))
    assert [t.game.seed for t in first] == [t.game.seed for t in changed]  # same boards


def test_a_first_run_with_an_unusable_secret_file_names_the_key_and_keeps_no_store(
        tmp_path: Path) -> None:
    """No game is stored yet: the problem is the config's `secret_file`, not games played with
    another secret; a file where its folder should be is the same kind of problem."""
    from click.testing import CliRunner

    from tournament.cli import main

    (tmp_path / "bad.secret").write_text("nothex")
    config = config_in(tmp_path, "secret_file: bad.secret\n")
    result = CliRunner().invoke(main, ["run", str(config)])
    assert result.exit_code == 2
    assert "secret_file: " in result.output and "bad.secret: expected 64 hexadecimal" in (
        result.output)
    assert "stored games" not in result.output
    assert not (tmp_path / "out").exists()  # the folder it made, with its lock, is gone too
    (tmp_path / "afile").write_text("")
    result = CliRunner().invoke(main, ["run", str(config_in(tmp_path,
                                                            "secret_file: afile/cup.secret\n"))])
    assert result.exit_code == 2, result.output
    assert (f"secret_file: {tmp_path / 'afile' / 'cup.secret'}: cannot make the secret: "
            f"{tmp_path / 'afile'} is not a folder") in result.output
    assert "Traceback" not in result.output
    nested = config_in(tmp_path, "secret_file: bad.secret\n")
    nested.write_text(nested.read_text().replace("output: out", "output: deep/er/out"))
    result = CliRunner().invoke(main, ["run", str(nested)])
    assert result.exit_code == 2, result.output
    assert not (tmp_path / "deep").exists()  # and the folders it made above its own
    (tmp_path / "taken").write_text("")
    nested.write_text(nested.read_text().replace("output: deep/er/out", "output: taken"))
    result = CliRunner().invoke(main, ["run", str(nested)])
    assert result.exit_code == 2, result.output
    assert f"output: {tmp_path / 'taken'} is not a folder" in result.output
    nested.write_text(nested.read_text().replace("output: taken", "output: taken/out"))
    result = CliRunner().invoke(main, ["run", str(nested)])
    assert result.exit_code == 2, result.output
    assert f"output: {tmp_path / 'taken' / 'out'}: {tmp_path / 'taken'} is not a folder" in (
        result.output)
