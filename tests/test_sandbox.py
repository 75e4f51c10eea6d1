"""The sandbox's parts: limits and their bookkeeping, the wire format, the seccomp program, the
source-only option check, the same game sandboxed and in-process, and the CLI's flags."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from pacman.cli import main
from pacman.display import NullDisplay
from pacman.game import GameSpec, play, sandboxed
from pacman.layout import load_layout
from pacman.limits import CONTEST, UNTIMED, Limits, TimeKeeper
from pacman.loader import AgentRef, options_in_source, resolve
from pacman.sandbox import confine, wire
from pacman.sandbox import process as process_module
from pacman.sandbox.process import AgentProcess, Placement, hidden_paths
from pacman.state import GameState
from pacman.teamfolder import team_digest
from tests.conftest import TEST_AGENTS
from tests.test_sandbox_zoo import UNAVAILABLE, ZOO

sandbox_needed = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")


# --- limits -------------------------------------------------------------------------------------

def test_contest_defaults() -> None:
    assert (CONTEST.startup, CONTEST.move_soft, CONTEST.move_warnings, CONTEST.move_hard) == (
        15.0, 1.0, 3, 3.0)


@pytest.mark.parametrize("field, value, words", [
    ("move_hard", 0, "positive number of seconds"),
    ("move_soft", float("nan"), "positive number of seconds"),
    ("startup", "1", "expected a number"),
    ("move_warnings", -1, "at least 0"),
    ("memory_mb", 2.5, "whole number"),
    ("processes", True, "whole number"),
])
def test_bad_limits_name_the_field(field: str, value: object, words: str) -> None:
    with pytest.raises(ValueError, match=field) as info:
        Limits(**{field: value})  # type: ignore[arg-type]
    assert words in str(info.value)


def test_keeper_forgives_the_allowed_warnings_then_times_out() -> None:
    keeper = TimeKeeper(Limits(move_soft=1, move_warnings=2, move_hard=3))
    assert keeper.account(0.5, 0) is None
    assert keeper.account(1.5, 1) is None and keeper.account(2.0, 2) is None
    assert keeper.warnings == 2
    message = keeper.account(1.1, 3)
    assert message is not None and "3 moves over the 1s limit (2 forgiven)" in message


def test_keeper_hard_limit_and_game_total() -> None:
    keeper = TimeKeeper(Limits(move_soft=None, move_hard=2, game_total=5))
    assert keeper.allowed() == 2
    assert keeper.account(2.5, 0) == "move 0 took 2.500s (hard limit 2s)"
    keeper = TimeKeeper(Limits(move_soft=None, move_hard=2, game_total=5))
    for move in range(4):
        assert keeper.account(1.0, move) is None
    assert keeper.allowed() == pytest.approx(1.0)
    assert "limit 5s per game" in str(keeper.account(1.5, 4))


def test_untimed_keeper_never_fails_and_start_up_counts_once() -> None:
    keeper = TimeKeeper(UNTIMED)
    assert keeper.allowed() is None and keeper.account(1e6, 0) is None
    keeper = TimeKeeper(Limits(startup=1.0))
    assert keeper.account_startup(0.6) is None
    assert keeper.startup_left() == pytest.approx(0.4)
    assert keeper.account_startup(0.6) == "start-up took 1.200s (limit 1.0s)"


# --- wire ----------------------------------------------------------------------------------------

def test_states_travel_exactly() -> None:
    layout = load_layout("mediumClassic")
    state = GameState.initial(layout, 2)
    for action in ("West", "North", "East"):
        for agent in range(3):
            legal = state.getLegalActions(agent)
            state = state.generateSuccessor(agent, action if action in legal else legal[0])
    line = wire.encode(["move", wire.state_fields(state)])
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    copy = wire.state_from_fields(GameState.initial(layout, 2), wire.decode(line[:-1])[1])
    assert copy == state and hash(copy) == hash(state)
    assert copy.getGhostPositions() == state.getGhostPositions()
    assert [type(c) for p in copy.getGhostPositions() for c in p] == [
        type(c) for p in state.getGhostPositions() for c in p]  # 5.5 stays a float, 5 an int
    assert copy.getFood() == state.getFood() and copy.getScore() == state.getScore()
    # The course's data._eaten travels too (ghost 1 eaten since Pacman's last move).
    from pacman.state import _make
    eaten = _make(state._board, state._agents, state._food, state._nfood, state._caps,
                  state._score, state._status, 0b10)
    line = wire.encode(["move", wire.state_fields(eaten)])
    copy = wire.state_from_fields(GameState.initial(layout, 2), wire.decode(line[:-1])[1])
    assert copy.data._eaten == [False, True, False]


@pytest.mark.parametrize("line", [b"", b"{", b"{}", b"[]", b"[1]", b"null", b"\xff"])
def test_garbage_from_a_child_is_a_protocol_error(line: bytes) -> None:
    with pytest.raises(wire.ProtocolError):
        wire.decode(line)


# --- seccomp program -----------------------------------------------------------------------------

def run_bpf(prog: list[tuple[int, int, int, int]], arch: int, nr: int,
            args: tuple[int, ...] = ()) -> int:
    """A small interpreter for classic BPF over one seccomp_data (the instructions libseccomp
    emits: loads, ALU with constants, jumps, returns); what the kernel would answer."""
    values = list(args) + [0] * (6 - len(args))
    data = struct.pack("=iIQ6Q", nr, arch, 0, *values)
    pc, acc, x = 0, 0, 0
    mem = [0] * 16
    for _ in range(100_000):
        code, jt, jf, k = prog[pc]
        cls = code & 0x07
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == 0x00:  # ld #k
            acc = k
        elif code == 0x60:  # ld M[k]
            acc = mem[k]
        elif code == 0x02:  # st M[k]
            mem[k] = acc
        elif code == 0x07:  # tax
            x = acc
        elif code == 0x87:  # txa
            acc = x
        elif code == 0x06:  # ret #k
            return k
        elif code == 0x16:  # ret a
            return acc
        elif cls == 0x04:  # alu with k
            op = code & 0xF0
            acc = {0x00: acc + k, 0x10: acc - k, 0x50: acc & k, 0x40: acc | k}[op] & 0xFFFFFFFF
        elif code == 0x05:  # ja
            pc += 1 + k
            continue
        elif cls == 0x05:  # conditional jumps with k
            op = code & 0xF0
            taken = {0x10: acc == k, 0x20: acc > k, 0x30: acc >= k, 0x40: bool(acc & k)}[op]
            pc += 1 + (jt if taken else jf)
            continue
        else:
            raise AssertionError(f"instruction {code:#x} not interpreted")
        pc += 1
    raise AssertionError("the program did not return")


SECCOMP = pytest.importorskip("pacman.sandbox.seccomp")
try:
    PROGRAM = SECCOMP.compile_program(4242).instructions()
    NO_SECCOMP = ""
except SECCOMP.SeccompUnavailable as exc:  # pragma: no cover - a machine without libseccomp
    PROGRAM, NO_SECCOMP = [], str(exc)
seccomp_needed = pytest.mark.skipif(bool(NO_SECCOMP), reason=NO_SECCOMP)
ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}[os.uname().machine]
EPERM = SECCOMP.errno_action(errno.EPERM)


def verdict(name: str, *args: int) -> int:
    nr = SECCOMP._library().seccomp_syscall_resolve_name(name.encode())
    assert nr >= 0, f"{name} does not exist on this machine"
    return run_bpf(PROGRAM, ARCH, nr, args)


@seccomp_needed
def test_seccomp_allows_what_an_agent_needs() -> None:
    for name in sorted(SECCOMP.allowed_names() - set(SECCOMP.ARGUMENTS) - set(SECCOMP.ALL_OF)):
        nr = SECCOMP._library().seccomp_syscall_resolve_name(name.encode())
        if nr >= 0:  # this architecture has the call
            assert run_bpf(PROGRAM, ARCH, nr) == SECCOMP.SCMP_ACT_ALLOW, name


@seccomp_needed
@pytest.mark.parametrize("name", [
    "socket", "socketpair", "connect", "sendto", "sendmsg", "execve", "execveat", "fork",
    "vfork", "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "lchown", "utimensat",
    "utimes", "setxattr", "fsetxattr", "lsetxattr", "removexattr", "link", "linkat", "symlink",
    "mknod", "inotify_init1", "fanotify_init", "flock", "memfd_create", "pipe2", "ptrace",
    "process_vm_readv", "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "bpf",
    "perf_event_open", "keyctl", "userfaultfd", "io_uring_setup", "open_by_handle_at",
    "name_to_handle_at", "sysinfo", "personality", "sched_setaffinity", "shmget", "msgget",
    "mq_open", "statfs", "kcmp", "pidfd_open", "seccomp", "fadvise64", "futex_waitv",
    "readahead",
])
def test_seccomp_refuses_everything_else(name: str) -> None:
    nr = SECCOMP._library().seccomp_syscall_resolve_name(name.encode())
    if nr < 0:
        pytest.skip(f"{name} does not exist on this machine")
    assert run_bpf(PROGRAM, ARCH, nr) == EPERM


@seccomp_needed
def test_seccomp_checks_arguments() -> None:
    clone_thread = SECCOMP.CLONE_THREAD | 0x3D0F00
    assert verdict("clone", clone_thread) == SECCOMP.SCMP_ACT_ALLOW
    assert verdict("clone", 0x1200011) == EPERM  # what fork() passes
    assert verdict("clone3") == SECCOMP.errno_action(errno.ENOSYS)  # glibc then uses clone
    f_getfd, f_setlk, f_notify, f_setpipe_sz, f_setlease = 1, 6, 1026, 1031, 1024
    assert verdict("fcntl", 3, f_getfd) == SECCOMP.SCMP_ACT_ALLOW
    for cmd in (f_setlk, f_notify, f_setpipe_sz, f_setlease):
        assert verdict("fcntl", 3, cmd) == EPERM, cmd
    tcgets, tiocsti = 0x5401, 0x5412  # tiocsti types into a terminal
    assert verdict("ioctl", 1, tcgets) == SECCOMP.SCMP_ACT_ALLOW
    assert verdict("ioctl", 1, tiocsti) == EPERM
    assert verdict("kill", 4242, 9) == SECCOMP.SCMP_ACT_ALLOW  # itself
    assert verdict("kill", 1, 9) == EPERM  # anyone else
    assert verdict("tgkill", 4242, 4243, 6) == SECCOMP.SCMP_ACT_ALLOW
    assert verdict("tgkill", 77, 77, 9) == EPERM
    assert verdict("prlimit64", 0, 7, 0, 0x7FF0) == SECCOMP.SCMP_ACT_ALLOW  # getrlimit
    assert verdict("prlimit64", 0, 0, 0x7FF0, 0x7FF8) == EPERM  # raising its CPU soft limit
    assert verdict("prlimit64", 77, 7) == EPERM  # the referee's limits
    assert verdict("prctl", 15) == SECCOMP.SCMP_ACT_ALLOW  # PR_SET_NAME
    assert verdict("prctl", 4) == EPERM  # PR_SET_DUMPABLE
    futex_wait, futex_private = 0, 128
    assert verdict("futex", 0, futex_wait | futex_private) == SECCOMP.SCMP_ACT_ALLOW
    assert verdict("futex", 0, futex_wait) == EPERM  # a shared futex: a channel
    madv_dontneed, madv_pageout = 4, 21
    assert verdict("madvise", 0, 0, madv_dontneed) == SECCOMP.SCMP_ACT_ALLOW
    assert verdict("madvise", 0, 0, madv_pageout) == EPERM


@seccomp_needed
def test_seccomp_kills_calls_of_another_architecture() -> None:
    other = 0x40000003  # i386, reachable from x86_64 through int 0x80
    assert run_bpf(PROGRAM, other, 0) == SECCOMP.SCMP_ACT_KILL_PROCESS


def test_plan_round_trips_as_json() -> None:
    plan = confine.Plan(workdir="/w", read_paths=("/a", "/b"), root="/r", scratch_bytes=5,
                        scratch_files=6, memory_bytes=1 << 20, cpu_seconds=3, uid=61001,
                        layers=("rlimits",))
    assert confine.Plan.from_json(json.loads(json.dumps(plan.to_json()))) == plan


# --- options read from source ------------------------------------------------------------

def test_options_are_read_from_source_through_base_classes() -> None:
    assert options_in_source(TEST_AGENTS, "MinimaxAgent") == ["evalFn", "depth"]
    assert options_in_source(TEST_AGENTS, "NoneAgent") == []
    assert options_in_source(ZOO / "slow_move.py", "ZooAgent") == ["delay"]
    assert options_in_source(ZOO / "syntax_error.py", "ZooAgent") is None


# --- the same game, sandboxed or not --------------------------------------------------------

@sandbox_needed
@pytest.mark.parametrize("agent, args", [
    (f"{ZOO}/honest.py:ZooAgent", ()),
    (f"{TEST_AGENTS}:MinimaxAgent", (("depth", "1"), ("evalFn", "better"))),
    (f"{TEST_AGENTS}:WandererAgent", ()),
])
def test_a_well_behaved_agent_plays_the_same_game_sandboxed_and_in_process(
    agent: str, args: tuple[tuple[str, str], ...]
) -> None:
    for seed in (1, 2):
        spec = GameSpec(load_layout("smallClassic"), resolve(agent, args),
                        resolve("DirectionalGhost", kind="ghost"), seed=seed, max_moves=300)
        boxed = play(spec)
        free = play(GameSpec(**{**spec.__dict__, "sandbox": False}))
        assert boxed.sandbox[0] and not free.sandbox[0]
        assert (boxed.actions, boxed.scores, boxed.outcome) == (
            free.actions, free.scores, free.outcome)
        assert boxed.timing[0].cpu is not None and free.timing[0].cpu is None


@sandbox_needed
def test_a_moves_cpu_is_the_kernels_figure_not_the_agents_word() -> None:
    """The harness that answers for the agent runs in the agent's process: this one rewrites
    it to report no CPU for moves that burn about 50 ms each. The referee reads the kernel's
    count of the process before and after each move instead."""
    spec = GameSpec(load_layout("testClassic"), resolve(f"{ZOO}/cpu_liar.py:ZooAgent"),
                    resolve("RandomGhost", kind="ghost"), seed=1, max_moves=20)
    result = play(spec)
    timing = result.timing[0]
    assert result.sandbox[0] and timing.moves > 0, result.outcome
    assert timing.cpu_max is not None and timing.cpu_max >= 0.03, timing


@sandbox_needed
def test_ghosts_from_files_are_sandboxed_each_in_its_own_process(tmp_path: Path) -> None:
    spec = GameSpec(load_layout("smallClassic"), resolve("GreedyAgent"),
                    resolve(f"{ZOO}/sleepy_ghost.py:ZooAgent", (("delay", "0"),), kind="ghost"),
                    seed=3, max_moves=30)
    result = play(spec)
    assert result.sandbox[0] == [] and result.sandbox[1] and result.sandbox[2]
    assert result.moves == 30 and result.outcome == "move_limit"


# --- the command line -------------------------------------------------------------------------

def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


def test_a_sandbox_needs_two_processes_at_least() -> None:
    """The keeper and the agent: with one, no sandbox could start, and every game would be
    the platform's failure, played again on every run (the fifteenth hostile review)."""
    from pacman.limits import Limits

    with pytest.raises(ValueError, match="processes: expected at least 2, got 1"):
        Limits(processes=1)


@pytest.mark.parametrize("flags, words", [
    (["--move-limit", "0"], "--move-limit: expected a positive number of seconds"),
    (["--move-warnings", "-2"], "--move-warnings: expected at least 0"),
    (["--memory", "20"], "--memory: expected at least 64"),
    (["--timeout", "-1"], "--timeout: expected a positive number"),
    (["--cpu-time", "inf"], "--cpu-time: expected a positive number"),
    # Rounded, 2.4 s killed at 2 s while its message said 2.4 (the fifteenth hostile review).
    (["--cpu-time", "2.4"], "--cpu-time: expected a whole number of seconds"),
])
def test_bad_limit_flags_exit_2(flags: list[str], words: str) -> None:
    result = run("-p", "GreedyAgent", "-q", *flags)
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert words in result.output  # type: ignore[attr-defined]


def test_options_of_a_sandboxed_agent_are_checked_without_running_it() -> None:
    result = run("-p", f"{ZOO}/slow_import.py:ZooAgent", "-a", "speed=2", "-q")
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert "takes no option 'speed'" in result.output  # type: ignore[attr-defined]


@sandbox_needed
def test_hostile_batch_with_c_names_every_outcome() -> None:
    result = run("-p", f"{ZOO}/move_raises.py:ZooAgent", "-a", "after=2", "-q", "-n", "2",
                 "-c", "--seed", "4", "--json")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    summary = json.loads(result.stdout)  # type: ignore[attr-defined]
    assert [g["outcome"] for g in summary["games"]] == ["crash", "crash"]
    assert all("lost my way" in g["message"] for g in summary["games"])
    assert summary["failures"] == 2


@sandbox_needed
def test_without_c_a_sandboxed_crash_shows_the_agents_traceback_and_exits_1() -> None:
    result = run("-p", f"{ZOO}/move_raises.py:ZooAgent", "-a", "after=1", "-q", "--seed", "4")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert 'raise ValueError("lost my way")' in result.output  # type: ignore[attr-defined]


@sandbox_needed
def test_what_a_sandboxed_agent_prints_is_shown_as_it_prints() -> None:
    result = run("-p", f"{ZOO}/read_other_team.py:ZooAgent", "-a", f"target={ZOO / 'README.md'}",
                 "-q", "--seed", "1", "-c", "--max-moves", "3")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    # Its own folder is readable: what it printed from it is shown (on stderr), before the
    # summary.
    assert "STOLEN: # The hostile zoo" in result.stderr  # type: ignore[attr-defined]
    assert "STOLEN" not in result.stdout  # type: ignore[attr-defined]


def test_no_sandbox_runs_a_file_agent_in_process() -> None:
    result = run("-p", f"{ZOO}/honest.py:ZooAgent", "-q", "--seed", "1", "--no-sandbox",
                 "--json", "--max-moves", "20")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert json.loads(result.stdout)["games"][0]["outcome"] == "move_limit"  # type: ignore[attr-defined]


@sandbox_needed
def test_sandbox_check_reports_layers_and_probes() -> None:
    result = run("sandbox-check")
    lines = result.output.splitlines()  # type: ignore[attr-defined]
    for layer in confine.LAYERS:
        assert any(line.strip().startswith(layer) for line in lines), layer
    assert "network" in result.output and "signal the referee" in result.output  # type: ignore[attr-defined]
    escaped = [line for line in lines if "ALLOWED" in line]
    assert result.exit_code == (1 if escaped else 0)  # type: ignore[attr-defined]


@sandbox_needed
def test_a_dead_zygote_is_replaced_and_games_go_on() -> None:
    from pacman.sandbox.zygote import zygote

    spec = GameSpec(load_layout("smallClassic"), resolve(f"{ZOO}/honest.py:ZooAgent"),
                    resolve("RandomGhost", kind="ghost"), seed=5, max_moves=40)
    first = play(spec)
    old = zygote()
    old.proc.kill()
    old.proc.wait()
    again = play(spec)
    assert zygote() is not old and zygote().alive()
    assert (again.actions, again.outcome) == (first.actions, first.outcome)
    assert again.sandbox[0] == first.sandbox[0]


@sandbox_needed
def test_games_in_threads_of_one_process_do_not_disturb_each_other() -> None:
    # A Dask worker plays games in threads: each thread has its own zygote.
    import threading

    specs = [GameSpec(load_layout("smallClassic"), resolve(f"{ZOO}/honest.py:ZooAgent"),
                      resolve("RandomGhost", kind="ghost"), seed=seed, max_moves=120)
             for seed in range(4)]
    alone = [play(spec) for spec in specs]
    together: dict[int, object] = {}

    def run(i: int) -> None:
        together[i] = play(specs[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    for i, result in enumerate(alone):
        other = together[i]
        assert (other.outcome, other.actions) == (result.outcome, result.actions)  # type: ignore[attr-defined]


def test_a_team_plays_only_code_from_its_own_folder(tmp_path: Path) -> None:
    from pacman.loader import SubmissionError

    (tmp_path / "honest").mkdir()
    (tmp_path / "honest" / "agent.py").write_text((ZOO / "honest.py").read_text())
    (tmp_path / "copycat").mkdir()
    (tmp_path / "copycat" / "team.yaml").write_text("agent: ../honest/agent.py:ZooAgent\n")
    with pytest.raises(SubmissionError, match="outside the team's folder"):
        resolve(str(tmp_path / "copycat"))


@sandbox_needed
def test_folders_left_by_a_dead_referee_are_swept(tmp_path: Path) -> None:
    from pacman.sandbox.owners import pid_namespace
    from pacman.sandbox.process import Placement

    ours = pid_namespace()
    # pid 999999: no such process in this pid namespace.
    stale = tmp_path / f"pacman-agent0-999999-{ours}-abcdef"
    (stale / "work").mkdir(parents=True)
    alive = tmp_path / f"pacman-agent0-{os.getpid()}-{ours}-abcdef"
    alive.mkdir()
    # A sandbox of a referee in another pid namespace (a containerised worker sharing this
    # folder): its pid means nothing here, so it is never taken for a dead one.
    elsewhere = tmp_path / "pacman-agent0-999999-4026532000-abcdef"
    elsewhere.mkdir()
    spec = GameSpec(load_layout("smallClassic"), resolve(f"{ZOO}/honest.py:ZooAgent"),
                    resolve("RandomGhost", kind="ghost"), seed=1, max_moves=5)
    play(spec, placement=Placement(root=tmp_path))
    assert not stale.exists() and alive.exists() and elsewhere.exists()


def test_only_leftovers_of_this_pid_namespace_are_judged() -> None:
    from pacman.sandbox.owners import INITIAL_PID_NAMESPACE, pid_namespace, stale

    ours = pid_namespace()
    dead, living = (lambda pid: False), (lambda pid: True)
    assert stale("999999", ours, dead) and not stale("999999", ours, living)
    assert not stale("12", "4026532000" if ours != "4026532000" else "1", dead)
    assert not stale("x", ours, dead)
    # A name from before namespaces were recorded: judged in the initial namespace only.
    assert stale("999999", None, dead) == (ours == INITIAL_PID_NAMESPACE)


@sandbox_needed
def test_what_an_agent_prints_reaches_the_caller_as_it_prints(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "class Talker:\n"
        "    moves = 0\n"
        "    def getAction(self, state):\n"
        "        print(f'thinking about move {self.moves}')\n"
        "        self.moves += 1\n"
        "        return state.getLegalActions(0)[0]\n")
    events: list[str] = []

    class Recorder(NullDisplay):
        def initialize(self, state: GameState) -> None:
            pass

        def update(self, state: GameState, index: int, action: str) -> None:
            if index == 0:
                events.append("moved")

        def finish(self, state: GameState, outcome: str) -> None:
            pass

    spec = GameSpec(load_layout("testClassic"), resolve(f"{tmp_path}/agent.py:Talker"),
                    resolve("RandomGhost", kind="ghost"), seed=1, max_moves=20)
    result = play(spec, display=Recorder(),
                  on_output=lambda index, text: events.append(f"{index}:{text}"))
    printed = [e for e in events if e != "moved"]
    assert "".join(e[2:] for e in printed) == result.logs[0]
    # Each move's line arrives (in pieces, maybe) before the move is applied, not in one
    # piece at the end.
    between = "".join(e if e == "moved" else e[2:] for e in events).split("moved")
    assert between[0] == "thinking about move 0\n"
    assert between[1] == "thinking about move 1\n"


@sandbox_needed
def test_the_terminal_is_told_when_an_agents_prints_are_cut() -> None:
    """Past --output-limit an agent's prints are dropped: the terminal says so once, rather
    than the output just stopping, which a student reads as their code path stopping (the
    eleventh hostile review)."""
    result = run("-p", f"{ZOO}/print_megabytes.py:ZooAgent", "-q", "--seed", "1", "-c",
                 "--max-moves", "6", "--output-limit", "16")
    err = result.stderr  # type: ignore[attr-defined]
    assert err.count("[output truncated at 16 KiB: the rest of this game's prints are "
                     "dropped; --output-limit raises it]") == 1, err[-500:]


@sandbox_needed
def test_a_fake_summary_never_reaches_stdout() -> None:
    result = run("-p", f"{ZOO}/fake_summary.py:ZooAgent", "-a", "after=2", "-q", "--seed", "1",
                 "-c", "-n", "2")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    out = result.stdout  # type: ignore[attr-defined]
    assert "Average Score: 1742" in result.stderr  # type: ignore[attr-defined]
    # A script reading the summary's lines finds the real ones only: the agent's words appear
    # quoted inside the platform's own line, never as a line of their own.
    summary = [line for line in out.splitlines() if line.startswith("Average Score:")]
    assert len(summary) == 1 and "1742" not in summary[0]
    assert not any(line.startswith("Pacman emerges victorious") for line in out.splitlines())
    assert "getAction raised" not in out  # the agent's words stay on stderr
    assert 'getAction raised ValueError: "\\nwin: Pacman emerges' in result.stderr  # type: ignore[attr-defined]


@sandbox_needed
def test_output_through_the_original_stdout_is_kept(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "import sys\n"
        "class Quiet:\n"
        "    def getAction(self, state):\n"
        "        sys.__stdout__.write('past the redirection\\n')\n"
        "        return state.getLegalActions(0)[0]\n")
    spec = GameSpec(load_layout("testClassic"), resolve(f"{tmp_path}/agent.py:Quiet"),
                    resolve("RandomGhost", kind="ghost"), seed=1, max_moves=4)
    assert "past the redirection" in play(spec).logs[0]


def team_view(ref: AgentRef, root: Path) -> tuple[str, str, list[str]]:
    """What a sandbox would show of `ref`'s folder: (team, copy, the copy's files)."""
    process = AgentProcess(ref, 0, load_layout("smallClassic"), 2, "classic", 1, Limits(),
                           Placement(root=root))
    try:
        team, copy = process._team_view()
        files = sorted(str(p.relative_to(copy)) for p in Path(copy).rglob("*")) if copy else []
        return team, copy, files
    finally:
        process.close()


def test_a_team_folder_is_shown_as_its_files_without_pycache(tmp_path: Path) -> None:
    team = tmp_path / "team"
    (team / "lib" / "__pycache__").mkdir(parents=True)
    (team / "agent.py").write_text("class A: pass\n")
    (team / "lib" / "helper.py").write_text("")
    (team / "lib" / "__pycache__" / "helper.cpython-311.pyc").write_bytes(b"")
    (team / "empty").mkdir()
    ref = AgentRef("A", module="", path=str(team / "agent.py"))
    folder, _, files = team_view(ref, tmp_path)
    assert folder == str(team.resolve()) and files == ["agent.py", "lib", "lib/helper.py"]


def test_a_folder_that_is_no_team_folder_is_bound_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "agent.py").write_text("class A: pass\n")
    (tmp_path / "course" / "venv-python").symlink_to("/usr/bin/python3")
    ref = AgentRef("A", module="", path=str(tmp_path / "course" / "agent.py"))
    assert team_view(ref, tmp_path)[:2] == ("", "")
    assert team_view(resolve("RandomGhost", kind="ghost"), tmp_path)[:2] == ("", "")


def test_a_tournament_team_plays_the_files_it_was_hashed_with_or_none(tmp_path: Path) -> None:
    # A tournament's team folder is the run's snapshot, which only the platform writes: a
    # snapshot changed, unreadable or gone is the platform's failure (found by the seventh
    # hostile review: a lost snapshot was stored as the team's load_error, never replayed).
    from pacman.sandbox.process import SandboxError

    team = tmp_path / "team"
    team.mkdir()
    (team / "agent.py").write_text("class A: pass\n")
    hashed = team_digest(team)[:16]
    ref = AgentRef("A", module="", path=str(team / "agent.py"), team=str(team), team_hash=hashed)
    assert team_view(ref, tmp_path)[2] == ["agent.py"]
    (team / "agent.py").write_text("class A: pass  # changed during the run\n")
    with pytest.raises(SandboxError, match="holds other files than the run hashed"):
        team_view(ref, tmp_path)
    (team / "agent.py").unlink()
    (team / "agent.py").symlink_to(tmp_path / "elsewhere.py")
    with pytest.raises(SandboxError, match=r"snapshot of the team cannot be read: .*symbolic link"):
        team_view(ref, tmp_path)
    shutil.rmtree(team)
    with pytest.raises(SandboxError, match="snapshot of the team cannot be read"):
        team_view(ref, tmp_path)
    # A baseline's files, snapshotted too (no hash of a team's): the same.
    baseline = dataclasses.replace(ref, team_hash="", snapshot=True)
    with pytest.raises(SandboxError, match="snapshot of the team cannot be read"):
        team_view(baseline, tmp_path)
    # A folder that is no snapshot (the `pacman` command's) is bound as it is.
    assert team_view(dataclasses.replace(baseline, snapshot=False), tmp_path)[:2] == ("", "")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("pacman-agent")] == []


def test_a_copied_team_folder_is_not_walked_again_for_hidden_folders(tmp_path: Path) -> None:
    # Found by the sixth hostile review: the walk for the team's __pycache__ ran on the live
    # folder after the copy; a __pycache__ swapped for a link to / then covered the whole view.
    team = tmp_path / "team"
    (team / "__pycache__").mkdir(parents=True)
    (team / "lib").mkdir()
    (team / "lib" / "__pycache__").symlink_to("/")
    (team / "agent.py").write_text("class A: pass\n")
    ref = AgentRef("A", module="", path=str(team / "agent.py"))
    platform = hidden_paths(AgentRef("RandomGhost", module="pacman.agents.ghosts"))
    assert hidden_paths(ref, bound=False) == platform
    assert hidden_paths(ref, bound=True) == (*platform, (str(team / "__pycache__"), ()))


def hashed_team(tmp_path: Path) -> tuple[Path, AgentRef]:
    """A one-file team folder and its reference as a tournament hands it over (hashed)."""
    team = tmp_path / "team"
    team.mkdir()
    (team / "agent.py").write_text("class A: pass\n")
    hashed = team_digest(team)[:16]
    return team, AgentRef("A", module="", path=str(team / "agent.py"), team=str(team),
                          team_hash=hashed)


def test_a_copy_without_room_is_the_platforms_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from pacman.sandbox import process
    from pacman.sandbox.process import SandboxError

    _, ref = hashed_team(tmp_path)
    digest = team_digest

    def no_room(folder: Path, copy_to: Path | None = None) -> str:
        if copy_to is not None:
            raise OSError(errno.ENOSPC, "No space left on device")
        return digest(folder)

    monkeypatch.setattr(process, "team_digest", no_room)
    with pytest.raises(SandboxError, match="No space left"):
        team_view(ref, tmp_path)


def test_a_copy_of_other_bytes_than_hashed_never_plays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdict is on the bytes copied: a folder changed during the copy and changed back
    before a second look must not let the copy play."""
    from pacman.sandbox import process
    from pacman.sandbox.process import SandboxError

    _, ref = hashed_team(tmp_path)
    digest = team_digest

    def changed_while_copied(folder: Path, copy_to: Path | None = None) -> str:
        real = digest(folder, copy_to=copy_to)
        return "f" * 64 if copy_to is not None else real

    monkeypatch.setattr(process, "team_digest", changed_while_copied)
    with pytest.raises(SandboxError, match="holds other files than the run hashed"):
        team_view(ref, tmp_path)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("pacman-agent")] == []


def test_a_cgroup_sweep_leaves_other_namespaces_groups_alone() -> None:
    """The flake this fixes: a simulated cluster node (its own pid namespace) swept the live
    sandboxes' cgroups of a run on the host, killing their agents (infra_error)."""
    from pacman.sandbox import cgroup
    from pacman.sandbox.owners import pid_namespace

    bases = [b for b in (cgroup.ROOT / cgroup.GROUP, cgroup.ROOT / "memory" / cgroup.GROUP,
                         cgroup.ROOT / "pids" / cgroup.GROUP) if b.is_dir()]
    if not bases or not os.access(bases[0], os.W_OK):
        pytest.skip("no cgroup tree of the platform's that this user can write")
    base = bases[0]
    other = "4026532000" if pid_namespace() != "4026532000" else "1"
    ours = base / f"agent-999999-{pid_namespace()}-test{os.getpid() % 10000:04d}"
    theirs = base / f"agent-999999-{other}-test{os.getpid() % 10000:04d}"
    ours.mkdir()
    theirs.mkdir()
    try:
        # Only the made-up referee 999999 is dead: a sweep judging every referee dead would
        # kill every live sandbox of this machine's namespace (another run's, a CI's), found
        # by the eleventh hostile review.
        cgroup.sweep_cgroups(lambda pid: pid != 999999)
        assert not ours.exists() and theirs.exists()
    finally:
        for group in (ours, theirs):
            with contextlib.suppress(FileNotFoundError):
                group.rmdir()


#: A feature function's file, as `tournament tune` snapshots it: each function fails in its
#: own way on the first state it sees after `FOOD` dots are left.
FEATURE_FILE = """\
import os

def phi(state):
    return {"score": state.getScore()}

def ends(state):
    if state.getNumFood() < FOOD:
        os._exit(3)
    return phi(state)

def loops(state):
    while state.getNumFood() < FOOD:
        pass
    return phi(state)

def swallows(state):
    while state.getNumFood() < FOOD:
        try:
            while True:
                pass
        except BaseException:
            pass
    return phi(state)
"""


@sandbox_needed
@pytest.mark.parametrize("function, outcome", [
    ("phi", ""), ("ends", "crash"), ("loops", "timeout"), ("swallows", "timeout")])
def test_a_builtin_playing_with_a_feature_file_plays_it_in_the_sandbox(
    tmp_path: Path, function: str, outcome: str
) -> None:
    """A built-in that plays with files (`team`: a tuning's feature function) is sandboxed,
    so whatever the function does mid-game is that game's typed failure blamed on Pacman:
    ending its process a `crash`, a loop that never returns (even one that swallows every
    exception) a `timeout` at the hard limit. In-process, the first killed the worker and the
    second held it forever. A function that behaves plays the very game it plays in-process."""
    folder = tmp_path / "snapshot"
    folder.mkdir()
    layout = load_layout("testClassic")
    food = GameState.initial(layout, 1, "classic").getNumFood()
    (folder / "feats.py").write_text(FEATURE_FILE.replace("FOOD", str(food - 1)))
    ref = resolve("ExpectimaxAgent", (("depth", "1"), ("weights", "score:1"),
                                       ("features", f"{folder}/feats.py:{function}")))
    ref = dataclasses.replace(ref, team=str(folder))
    spec = GameSpec(layout, ref, resolve("RandomGhost", kind="ghost"), seed=1, max_moves=200,
                    limits=Limits(startup=30, move_soft=None, move_hard=1))
    # Asked first: in this process, `ends` would end the test and `loops` hold it.
    assert sandboxed(ref, None)
    result = play(spec)
    assert result.sandbox[0], "the built-in played in-process"
    if not outcome:
        free = play(dataclasses.replace(spec, sandbox=False))
        assert not free.sandbox[0]
        assert (result.outcome, result.actions) == (free.outcome, free.actions), result.message
        return
    assert (result.outcome, result.culprit) == (outcome, 0), result.message
    assert result.moves >= 2  # mid-game, after the start-up


def test_another_install_of_the_platform_is_out_of_a_teams_view(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second copy of the platform where a sandbox can see it (a wheel left in the virtual
    environment while a checkout runs; the system's Python) holds the compiled baselines
    too: it is covered whole, while the running package shows its allow list."""
    site = tmp_path / "site-packages"
    (site / "pacman" / "sandbox").mkdir(parents=True)
    (site / "pacman" / "sandbox" / "process.py").write_text("")
    (site / "pacman" / "_fast__mypyc.so").write_bytes(b"\x7fELF")
    (site / "tournament").mkdir()
    (site / "unrelated" / "pacman").mkdir(parents=True)  # some other package's folder
    monkeypatch.setattr(sys, "path", [*sys.path, str(site), str(site / "unrelated")])
    monkeypatch.setattr(process_module, "other_copies", process_module.other_copies.__wrapped__)
    hidden = dict(hidden_paths(AgentRef("RandomGhost", module="pacman.agents.ghosts")))
    assert hidden[str(site / "pacman")] == () and hidden[str(site / "tournament")] == ()
    assert str(site / "unrelated" / "pacman") not in hidden
    assert hidden[str(process_module.PACKAGE_DIR)] == process_module.engine_view()


def test_the_cpu_limit_is_read_on_the_clock_the_kernel_checks_it_against() -> None:
    """RLIMIT_CPU is checked against a process's profiling clock (whole ticks while it ran);
    /proc shows its runtime, which on a busy machine can differ from it by far more than a
    tick either way (an agent that caught SIGXCPU then passed its chosen error for its
    failure, under a CPU hog). `prof_clock(pid)` names that clock of another process: what
    the referee reads is what the process itself reads on its own profiling clock."""
    code = ("import sys, time\nt = time.process_time()\n"
            "while time.process_time() - t < 0.2:\n    pass\n"
            "print(time.clock_gettime(-8), flush=True)\n"  # its own CPUCLOCK_PROF
            "sys.stdin.read()\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        own = float(child.stdout.readline())
        seen = time.clock_gettime(confine.prof_clock(child.pid))
        # The same clock, read a moment later: its print and its read of stdin may add a
        # tick or two, nothing more.
        assert own > 0 and own <= seen <= own + 0.1, (own, seen)
    finally:
        child.kill()
        child.wait()


def _state_of(pid: int) -> str:
    """A process's state letter from /proc (R, S, T for stopped...), '' once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return ""


def _answers(echo: subprocess.Popen[str], word: str) -> bool:
    """Whether an echoing process answers `word` within 30 s (a stopped or dead one does
    not: EOF, or no line by the deadline)."""
    assert echo.stdin is not None and echo.stdout is not None
    try:
        echo.stdin.write(word + "\n")
        echo.stdin.flush()
    except BrokenPipeError:
        return False
    ready, _, _ = select.select([echo.stdout], [], [], 30)
    return bool(ready) and echo.stdout.readline().strip() == word


@sandbox_needed
def test_a_gone_agents_pid_taken_by_another_process_is_never_signalled(tmp_path: Path) -> None:
    """The agent's keeper, not the referee, is its parent, and reaps it the moment it dies;
    the kernel may then give its pid to any process. The referee stops, resumes and kills
    the agent through a pidfd, so a signal reaches the agent or nothing; signalled by pid (as
    before), the process that took the pid over was stopped and then killed, and its CPU
    read as the agent's. The takeover is made here by pointing the referee at a process of
    the test's own: waiting for the kernel to reuse a pid could take millions of forks."""
    process = AgentProcess(resolve("RandomGhost", kind="ghost"), 1, load_layout("testClassic"),
                           1, "classic", 1, Limits(), Placement(root=tmp_path))
    echo = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfor line in sys.stdin:\n    print(line, end='', "
         "flush=True)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert _answers(echo, "up")
        process.start()
        agent = process.pid
        assert agent is not None and _state_of(agent)
        assert process._prof_now() is not None  # held: its clock is read
        os.kill(agent, signal.SIGKILL)  # it dies outside the referee's doing
        deadline = time.monotonic() + 30
        while _state_of(agent) and time.monotonic() < deadline:
            time.sleep(0.01)  # its keeper reaps it
        assert not _state_of(agent), "the keeper never reaped the agent"
        process.pid = echo.pid  # the kernel gives its pid to another process
        process._resume()
        process._pause()  # as between two moves
        assert process._prof_now() is None  # the stranger's clock is not the agent's CPU
        process.kill()
        process.close()
        assert _answers(echo, "still here"), "a stranger was stopped or killed"
    finally:
        process.close()
        echo.kill()
        echo.wait()


def test_a_cgroup_kills_only_processes_still_its_members(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Removing a sandbox's cgroup kills what its list of members names. A member that ended
    between the listing and the kill could have its pid taken by a process of the machine:
    each is held by pidfd first and the list read again, so only a process still a member
    is signalled (by pid, as before, the newcomer was killed). The takeover is made by a
    first listing that names a process of the test's own."""
    from pacman.sandbox.cgroup import AgentCgroup

    echo = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfor line in sys.stdin:\n    print(line, end='', "
         "flush=True)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    member = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                              stdin=subprocess.PIPE)
    try:
        assert _answers(echo, "up")
        group = tmp_path / "agent-group"
        group.mkdir()
        (group / "cgroup.procs").write_text(f"{member.pid}\n")
        listings = [{member.pid, echo.pid}]  # the first names a pid since taken over
        real = AgentCgroup.pids
        monkeypatch.setattr(AgentCgroup, "pids",
                            lambda self: listings.pop() if listings else real(self))
        AgentCgroup([group], 1).kill_all()
        assert member.wait(timeout=30) == -signal.SIGKILL
        assert _answers(echo, "still here"), "a process outside the group was killed"
    finally:
        for process in (echo, member):
            process.kill()
            process.wait()


@pytest.mark.parametrize("error", [errno.EMFILE, errno.ENOSYS, errno.EPERM, errno.ENOMEM])
def test_a_process_no_pidfd_can_hold_is_still_signalled(
        monkeypatch: pytest.MonkeyPatch, error: int) -> None:
    """Only "no such process" means ended. Taken for ended on any failure of pidfd_open (no
    descriptor left, a seccomp'd container), a live agent was never paused nor killed, and
    its CPU never read (the review of the change): it is signalled by pid instead."""
    from pacman.sandbox import held

    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        def refuse(pid: int, flags: int = 0) -> int:
            raise OSError(error, os.strerror(error))

        monkeypatch.setattr(held.os, "pidfd_open", refuse)
        process = held.HeldProcess(child.pid)
        assert process.by_pid and not process.gone()
        process.signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        child.kill()
        child.wait()


def test_a_process_that_ended_before_it_was_held_is_never_signalled() -> None:
    from pacman.sandbox import held

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: its pid is free for any process
    process = held.HeldProcess(child.pid)
    assert process.fd is None and not process.by_pid and process.gone()
    process.signal(signal.SIGKILL)  # nothing to send it to: no error, no stranger reached


@sandbox_needed
@pytest.mark.parametrize("limits", [UNTIMED, CONTEST], ids=["untimed", "contest"])
def test_an_agent_whose_threads_never_stop_is_its_own_timeout(
        monkeypatch: pytest.MonkeyPatch, limits: Limits) -> None:
    """A move ends when every thread of the agent has stopped; one that never does (a thread
    held in the kernel) is killed as that agent's timeout, with or without time limits (the
    review of the change: untimed, the message raised, and the game became the platform's
    failure). Made here by a referee that never sees the threads stopped."""
    monkeypatch.setattr(process_module, "STOP_LIMIT", 0.2)
    monkeypatch.setattr(AgentProcess, "_all_stopped", lambda self: False)
    spec = GameSpec(load_layout("testClassic"), resolve(f"{ZOO}/honest.py:ZooAgent"),
                    resolve("RandomGhost", kind="ghost"), seed=1, max_moves=10, limits=limits)
    result = play(spec)
    assert result.sandbox[0]
    assert (result.outcome, result.culprit) == ("timeout", 0), result.message
    assert "its threads had not stopped" in result.message


def test_an_agents_cpu_quota_is_counted_in_short_periods() -> None:
    """Review 22: with the kernel's default period of 100 ms, an agent stopped between moves
    began each move with 100 ms of quota, which two threads spent in 50 ms on two cores (120
    ms of CPU in a 60 ms move, on another game's core). The group the kernel holds the agent
    in counts its one CPU every 20 ms."""
    from pacman.sandbox.cgroup import PERIOD_US, QUOTA_US, AgentCgroup

    try:
        group = AgentCgroup.create(None, 16)
    except OSError as exc:
        pytest.skip(f"no cgroup for agents here: {exc}")
    try:
        if group.cpu_problem:
            pytest.skip(f"no CPU share here: {group.cpu_problem}")
        if group.version == 2:
            quota, period = (group.dirs[0] / "cpu.max").read_text().split()
        else:
            cpu = group.dirs[-1]
            quota = (cpu / "cpu.cfs_quota_us").read_text().strip()
            period = (cpu / "cpu.cfs_period_us").read_text().strip()
        assert (int(quota), int(period)) == (QUOTA_US, PERIOD_US) == (20_000, 20_000)
    finally:
        group.remove()


def test_folders_pth_files_add_are_shown_but_never_the_platforms_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review of change 22: a library the organizer installed with `pip install -e` is
    found through a `.pth` line naming its folder (pip keeps its sources in `<venv>/src`),
    which the allow list of the interpreter's folders must hold too; an editable install of
    the platform names its checkout, whose results and teams a sandbox must not see; and a
    folder outside the interpreter's prefixes was never in view."""
    from pacman.sandbox.process import PACKAGE_DIR, _pth_folders

    venv = tmp_path / "venv"
    monkeypatch.setattr(sys, "prefix", str(venv))
    site = venv / "lib" / "site-packages"
    lib = venv / "src" / "organizerlib"
    elsewhere = tmp_path / "project"
    for folder in (site, lib, elsewhere):
        folder.mkdir(parents=True)
    (site / "organizerlib.pth").write_text(f"# a comment\n{lib}\nimport os\n\n../nowhere\n")
    (site / "platform.pth").write_text(f"{PACKAGE_DIR.parent}\n{PACKAGE_DIR}\n/\n")
    (site / "relative.pth").write_text(f"../../src\n{elsewhere}\n")
    assert _pth_folders(str(site)) == {str(lib.resolve()), str((venv / "src").resolve())}
