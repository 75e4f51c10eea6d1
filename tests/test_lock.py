"""The output folder's lock: a second command that would play games into a folder another
process holds exits 2 with one line naming the folder and the holder, and writes nothing;
the kernel frees the lock when the holder dies, even by SIGKILL. Real processes each time:
the holder says it holds the lock (a line on its stdout, or its pid in the lock file), and
the tests wait for that event, never for a time."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.commands import TOURNAMENT
from tests.test_sandbox_zoo import UNAVAILABLE
from tests.test_tournament_run import (
    REPO,
    ctrl_c_for_children,
    make_tournament,
    stored,
    tournament,
    wait_until,
)
from tournament.lock import LOCK_FILE

#: A process that takes the lock of the folder argv[1] as `tournament run held.yaml`, says
#: so, and holds it until its stdin closes or it is killed.
HOLDER = """\
import sys
from pathlib import Path
from tournament.lock import acquire
acquire(Path(sys.argv[1]), "tournament run held.yaml")
print("held", flush=True)
sys.stdin.read()
"""


def hold(folder: Path) -> subprocess.Popen[str]:
    """A holder process of `folder`'s lock, returned once it says it holds it."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], cwd=REPO, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    assert ready, "the holder did not say it holds the lock within 120 s"
    assert proc.stdout.readline() == "held\n"
    return proc


def lock_is_free(folder: Path) -> bool:
    """Whether no process holds the lock now (tried, and given back at once). No lock file is
    a free lock: a command that made the folder and stored nothing removes it with the folder
    (and the next holder takes a new file, `tournament.lock.acquire`)."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDWR)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def wait_free(folder: Path, deadline: float = 120) -> None:
    end = time.monotonic() + deadline
    while not lock_is_free(folder):
        assert time.monotonic() < end, f"the lock of {folder} is still held after {deadline} s"
        time.sleep(0.02)


def refusal(result: subprocess.CompletedProcess[str], folder: Path) -> str:
    """The one line of a refused command, checked: exit 2, nothing on stdout."""
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"tournament: error: {folder.resolve()} is in use by ")
    return lines[0]


def test_a_second_command_is_refused_while_the_first_holds_the_folder(tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {}, games=1, layouts="[testClassic]")  # a baseline
    (tmp_path / "submissions").mkdir()  # and no team
    out = tmp_path / "out"
    holder = hold(out)
    try:
        line = refusal(tournament("run", str(config), check=False), out)
        assert f"tournament run held.yaml (pid {holder.pid}, host " in line
        assert ", user " in line and ", since 20" in line and "Z)" in line
        assert not (out / "results.sqlite").exists()  # refused before writing anything
        # Killed, the holder leaves no stale lock: the kernel frees it.
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=120)
    finally:
        holder.kill()
    wait_free(out)
    ran = tournament("run", str(config))
    assert "1 to play" in ran.stdout and stored(out / "results.sqlite") == 1

    # Commands that play stored games again take it too.
    holder = hold(out)
    try:
        refusal(tournament("replay", str(config), "--recreate", "--list", check=False), out)
        refusal(tournament("report", str(config), "--pictures", "strip", check=False), out)
        assert not (out / "report").exists() and not (out / "recreated-replays").exists()
        # Reading is never refused.
        for command in ("status", "leaderboard", "report"):
            tournament(command, str(config))
    finally:
        assert holder.stdin is not None
        holder.stdin.close()  # it ends by itself: the lock goes with it
        holder.wait(timeout=120)
    wait_free(out)
    tournament("replay", str(config), "--recreate", "--list")


@pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")
def test_a_run_holds_its_folder_while_it_plays(tmp_path: Path) -> None:
    """The team's agent never answers and no time limit ends its game: the run plays until
    killed. Once the lock file names it, a second run is refused naming its pid."""
    config = make_tournament(tmp_path, {"alpha": "honest"}, games=1, layouts="[testClassic]",
                             limits="{startup: 60, move_soft: null, move_hard: null}")
    agent = tmp_path / "submissions" / "alpha" / "agent.py"
    agent.write_text("import time\n\n\nclass ZooAgent:\n    def getAction(self, state):\n"
                     "        while True:\n            time.sleep(60)\n")
    out = tmp_path / "out"
    with ctrl_c_for_children():
        first = subprocess.Popen([*TOURNAMENT, "run", str(config)],
                                 cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)
    try:
        wait_until(lambda: f"(pid {first.pid}," in _text(out / LOCK_FILE), "lock taken", first)
        line = refusal(tournament("run", str(config), check=False), out)
        assert f"tournament run {config} (pid {first.pid}, host " in line
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=120)
    finally:
        first.kill()
    assert first.returncode == 130
    # Free, whether the greedy baseline's game was stored before the Ctrl-C (the folder
    # stays) or not (the run leaves the folder as it found it: absent).
    wait_free(out)
    assert out.exists() == (out / "results.sqlite").exists()


def test_a_lock_file_removed_by_its_holder_is_not_taken_by_a_waiter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A holder that made the folder and leaves nothing removes the lock file, then lets go.
    A command that opened the file just before must not hold that removed file's lock (a
    third would then take a new file at the same time): it takes the file at the path."""
    from tournament import lock

    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_FILE).write_text("an earlier holder\n")
    real_flock = fcntl.flock
    locked: list[int] = []

    def holder_lets_go_first(fd: int, operation: int) -> None:
        if not locked:  # between this command's open and its flock: the holder discards
            (out / LOCK_FILE).unlink()
        locked.append(fd)
        real_flock(fd, operation)

    monkeypatch.setattr(lock.fcntl, "flock", holder_lets_go_first)
    try:
        path = lock.acquire(out, "tournament run t.yaml")
        assert len(locked) == 2  # the removed file's lock was let go, and a new file taken
        assert not lock_is_free(out)  # the file at the path is the one held
        assert "tournament run t.yaml (pid " in path.read_text()
        lock.discard(out)
        assert not path.exists()
    finally:
        lock.release(out)


def _text(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def test_a_run_waits_for_a_collect_into_its_submissions_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run reads its teams only once no `collect` writes into the folder (which would move
    a team aside under it, and make all that team's games its load_error): it waits for the
    collect's lock, saying so, or stops at its deadline; a folder collect never wrote into
    (no lock file) is left as it is."""
    import threading

    from tournament.cli import hold_submissions
    from tournament.lock import release

    plain = tmp_path / "hand-made"
    plain.mkdir()
    assert hold_submissions(plain) is False and not (plain / LOCK_FILE).exists()

    collected = tmp_path / "collected"
    collector = hold(collected)  # a collect in progress (it leaves its lock file behind)
    try:
        with pytest.raises(SystemExit) as stopped:
            hold_submissions(collected, wait=0)
        assert stopped.value.code == 2
        assert "submissions: " in capsys.readouterr().err
        got: list[bool] = []
        waiter = threading.Thread(target=lambda: got.append(hold_submissions(collected)))
        waiter.start()
        end = time.monotonic() + 120
        while "waiting for the collect into it to end" not in capsys.readouterr().out:
            assert time.monotonic() < end, "the run did not say it waits"
            time.sleep(0.02)
        assert not got  # still waiting: the collect holds the folder
    finally:
        assert collector.stdin is not None
        collector.stdin.close()
        collector.wait(120)
    waiter.join(120)
    assert got == [True] and not lock_is_free(collected)  # held by the run until released
    release(collected)
    assert lock_is_free(collected)
