"""The hostile zoo (tests/zoo/) played through the sandbox.

For each agent: the outcome and culprit are the right ones, the referee lives on, every
process and cgroup of the sandbox is gone, the next game (a well-behaved team on the same
seed) is the same game as before, and nothing outside the agent's own folder changed, not
even a mode bit, an owner or a time. Tests that depend on a kernel feature skip, naming it, on
machines without it; several attacks are also played with one layer switched off, to show
that the other layers alone still stop them.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import socket
import threading
from pathlib import Path

import pytest

from pacman.game import GameResult, GameSpec, play
from pacman.layout import load_layout
from pacman.limits import Limits
from pacman.loader import resolve
from pacman.outcomes import FAILURES
from pacman.sandbox.check import run_check
from pacman.sandbox.confine import LAYERS
from pacman.sandbox.process import Placement, SandboxedHandle, SandboxError, engine_view
from pacman.sandbox.zygote import discard_zygote
from pacman.seeds import derive_seed
from pacman.state import GameState
from pacman.teamfolder import team_digest

ZOO = Path(__file__).parent / "zoo"
REPO = Path(__file__).parent.parent
#: The zoo's limits: no time limits but generous ones that only guard against a hang, so that no
#: verdict depends on how busy the machine is; the time tests set their own.
LIMITS = Limits(startup=120, move_soft=None, move_warnings=0, move_hard=60, memory_mb=256,
                output_kb=16)
#: The limits of the time tests: 0.5 s per move with one warning, killed at 1.5 s.
TIMED = LIMITS.with_changes(startup=30, move_soft=0.5, move_warnings=1, move_hard=1.5)

try:
    ACTIVE = set(run_check().active)
    UNAVAILABLE = ""
except SandboxError as exc:  # pragma: no cover - a machine that cannot start Python children
    ACTIVE, UNAVAILABLE = set(), str(exc)

pytestmark = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")


def needs(*layers: str) -> pytest.MarkDecorator:
    missing = [layer for layer in layers if layer not in ACTIVE]
    return pytest.mark.skipif(bool(missing), reason=f"needs the {', '.join(missing)} layer")


def needs_any(*layers: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not ACTIVE & set(layers),
                              reason=f"needs one of the layers {', '.join(layers)}")


def without(*layers: str) -> tuple[str, ...]:
    """Every layer but `layers`: the others must hold on their own."""
    return tuple(layer for layer in LAYERS if layer not in layers)


def sandbox_processes(root: Path) -> set[int]:
    """Live processes of sandboxes placed under `root` (none should outlive its game).

    A sandbox's processes start in its working folder under `root`; other test runs on the
    machine have theirs elsewhere.
    """
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
            with open(f"/proc/{entry}/stat", "rb") as fh:  # the name is the agent's bytes
                state = fh.read().rpartition(b")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if cwd.startswith(str(root)) and state != b"Z":
            found.add(int(entry))
    return found


def our_cgroups() -> list[str]:
    """Cgroups of this process's sandboxes still there (none should outlive its game)."""
    pattern = f"agent-{os.getpid()}-*"
    return [path for base in ("/sys/fs/cgroup/pacman-arena", "/sys/fs/cgroup/*/pacman-arena")
            for path in glob.glob(f"{base}/{pattern}")]


def snapshot(*roots: Path) -> dict[str, tuple[int, ...]]:
    """Every file and folder under `roots` (the roots too) with its size, mode, owner and
    times: a chmod, chown, utime or xattr changes one of them (the ctime, at least)."""
    seen = {}
    for root in roots:
        for path in [root, *sorted(root.rglob("*"))]:
            if "__pycache__" in path.parts:
                continue
            stat = path.lstat()
            seen[str(path)] = (stat.st_size, stat.st_mode, stat.st_uid, stat.st_gid,
                               stat.st_mtime_ns, stat.st_ctime_ns)
    return seen


class Arena:
    """A tmp folder with teams in it, a place for sandboxes, and the neighbour's game."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.teams = root / "teams"
        self.sandboxes = root / "sandboxes"
        self.sandboxes.mkdir()
        self.outside = root / "outside"
        self.outside.mkdir()
        # The organizer's things an agent would like to change: a private file, a program, a
        # results database.
        (self.outside / "organizer.txt").write_text("marks")
        (self.outside / "organizer.txt").chmod(0o600)
        shutil.copy("/bin/true", self.outside / "program")
        (self.outside / "results.sqlite").write_bytes(b"SQLite format 3\0")
        other = self.team("honest", folder="other-team")
        (other / "secret.txt").write_text("our opening book")

    def team(self, name: str, folder: str | None = None) -> Path:
        path = self.teams / (folder or name)
        path.mkdir(parents=True, exist_ok=True)
        shutil.copy(ZOO / f"{name}.py", path / "agent.py")
        return path

    def spec(self, name: str, seed: int = 1, limits: Limits = LIMITS, ghost: str = "RandomGhost",
             **args: object) -> GameSpec:
        folder = self.team(name)
        pacman = resolve(f"{folder}/agent.py:ZooAgent", tuple((k, str(v)) for k, v in args.items()))
        ghost_ref = resolve(ghost, kind="ghost")
        return GameSpec(load_layout("smallClassic"), pacman, ghost_ref, num_ghosts=2, seed=seed,
                        max_moves=60, limits=limits)

    def play(self, spec: GameSpec, layers: tuple[str, ...] = LAYERS) -> GameResult:
        return play(spec, placement=Placement(root=self.sandboxes, layers=layers))


@pytest.fixture(scope="module")
def neighbour(tmp_path_factory: pytest.TempPathFactory) -> GameResult:
    """The well-behaved team's game, played once in a sandbox before any hostile one."""
    arena = Arena(tmp_path_factory.mktemp("neighbour"))
    return arena.play(arena.spec("honest", seed=7))


@pytest.fixture
def arena(tmp_path: Path, neighbour: GameResult):
    """An arena; after the test: no sandbox left, nothing outside changed, next game intact."""
    arena = Arena(tmp_path)
    watched = (arena.teams / "other-team", arena.outside, ZOO, REPO / "submissions")
    before = snapshot(*watched)
    referee = os.getpid()
    yield arena
    assert os.getpid() == referee
    assert sandbox_processes(arena.sandboxes) == set()
    assert list(arena.sandboxes.iterdir()) == [], "a sandbox's folders outlived its game"
    assert our_cgroups() == [], "a sandbox's cgroup outlived its game"
    after = snapshot(*watched)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert not changed, f"files outside the agents' folders changed: {sorted(changed)}"
    again = arena.play(arena.spec("honest", seed=7))
    assert (again.actions, again.scores, again.outcome) == (
        neighbour.actions, neighbour.scores, neighbour.outcome)


def resimulated_scores(result: GameResult) -> list[int]:
    state = GameState.initial(load_layout(result.layout), result.num_ghosts, result.ruleset)
    scores = []
    for index, action in result.actions:
        state = state.generateSuccessor(index, action)
        scores.append(state._score)
    return scores


def assert_failed(result: GameResult, outcome: str, *words: str) -> None:
    assert (result.outcome, result.culprit) == (outcome, 0), (result.outcome, result.message)
    for word in words:
        assert word in result.message, result.message
    assert not result.win


def assert_played_on(result: GameResult) -> None:
    assert result.outcome not in FAILURES, (result.outcome, result.message)
    assert result.moves > 0
    assert result.scores == resimulated_scores(result)


def test_a_numeric_library_starts_no_thread_per_host_cpu(arena: Arena) -> None:
    """numpy's OpenBLAS started a thread per host CPU at import: with more CPUs than the
    agent's `processes` (any host of 64 CPUs, by default), `import numpy` failed as the team's
    `load_error`. Told of one CPU, it plays within the least `processes` there is (2: the
    keeper and the agent), whatever the host."""
    limits = LIMITS.with_changes(processes=2)
    assert_played_on(arena.play(arena.spec("numpy_user", limits=limits)))


# --- failing at load time -------------------------------------------------------------------

@pytest.mark.parametrize("name, words", [
    ("syntax_error", ["SyntaxError", "agent.py:2"]),
    ("missing_import", ["a_module_no_team_has"]),
    ("init_raises", ["RuntimeError", "cannot even be built"]),
])
def test_load_errors(arena: Arena, name: str, words: list[str]) -> None:
    result = arena.play(arena.spec(name))
    assert_failed(result, "load_error", *words)
    assert result.moves == 0


def test_exception_at_start_up_is_a_crash(arena: Arena) -> None:
    result = arena.play(arena.spec("register_raises"))
    assert_failed(result, "crash", "registerInitialState raised KeyError", "start-up went wrong")
    assert "KeyError" in result.trace


def test_exception_mid_game_is_a_crash_at_the_current_score(arena: Arena) -> None:
    result = arena.play(arena.spec("move_raises", after=3))
    assert_failed(result, "crash", "getAction raised ValueError", "lost my way")
    assert [i for i, _ in result.actions].count(0) == 3
    assert result.score == resimulated_scores(result)[-1]
    assert 'raise ValueError("lost my way")' in result.trace


@pytest.mark.parametrize("name, words", [("returns_none", ["None"]),
                                         ("returns_illegal", ["legal:"])])
def test_bad_answers_are_illegal_actions(arena: Arena, name: str, words: list[str]) -> None:
    assert_failed(arena.play(arena.spec(name)), "illegal_action", *words)


# --- time -------------------------------------------------------------------------------------

def test_slow_moves_use_up_the_warnings_then_time_out(arena: Arena) -> None:
    # No hard limit: on a busy machine a 0.6 s move may take longer, never shorter.
    limits = TIMED.with_changes(move_hard=None)
    result = arena.play(arena.spec("slow_move", delay=0.6, limits=limits))
    assert_failed(result, "timeout", "2 moves over the 0.5s limit (1 forgiven)")
    assert result.timing[0].warnings == 2
    assert result.timing[0].moves == 2


def test_one_slow_move_is_forgiven(arena: Arena) -> None:
    limits = TIMED.with_changes(move_soft=0.05, move_warnings=100, move_hard=None)
    result = arena.play(arena.spec("slow_move", delay=0.06, limits=limits))
    assert_played_on(result)
    assert result.timing[0].warnings == result.timing[0].moves > 0


def test_infinite_loop_is_killed_at_the_hard_limit(arena: Arena) -> None:
    result = arena.play(arena.spec("infinite_loop", limits=TIMED))
    assert_failed(result, "timeout", "move 0 took more than 1.500s; killed")
    # Never before the limit; the upper bound only says it did not hang.
    assert 1.5 <= result.timing[0].wall_max < 60


def test_total_thinking_time_per_game(arena: Arena) -> None:
    limits = TIMED.with_changes(game_total=0.3, move_soft=None)
    result = arena.play(arena.spec("slow_move", delay=0.1, limits=limits))
    assert_failed(result, "timeout", "limit 0.3s per game")
    # Each move takes at least 0.1 s, so the third one at the latest passes 0.3 s.
    assert 1 <= result.timing[0].moves <= 3
    assert result.timing[0].wall >= 0.3


def test_slow_import_times_out_at_start_up(arena: Arena) -> None:
    result = arena.play(arena.spec("slow_import", limits=TIMED.with_changes(startup=1)))
    assert_failed(result, "timeout", "start-up took more than 1.000s")
    assert result.moves == 0


@needs("rlimits")
def test_cpu_seconds_are_enforced_by_the_kernel(arena: Arena) -> None:
    # No wall-clock limit: on a busy machine one CPU second may take many seconds.
    limits = LIMITS.with_changes(cpu_seconds=1, move_hard=None, move_soft=None)
    result = arena.play(arena.spec("infinite_loop", limits=limits))
    assert_failed(result, "timeout", "CPU seconds")


@needs("seccomp")
def test_an_agent_cannot_raise_its_own_limits(arena: Arena) -> None:
    limits = LIMITS.with_changes(cpu_seconds=5)
    # Raising a soft limit up to the hard one is allowed by the kernel; refused by the filter
    # (Python words that EPERM as "not allowed").
    assert_failed(arena.play(arena.spec("raise_cpu_limit", limits=limits)), "crash",
                  "not allowed")


# --- resources --------------------------------------------------------------------------------

@needs_any("rlimits", "cgroup")
def test_memory_blow_up(arena: Arena) -> None:
    result = arena.play(arena.spec("memory_blowup"))
    assert_failed(result, "memory")


def test_printing_megabytes_is_capped(arena: Arena) -> None:
    result = arena.play(arena.spec("print_megabytes"))
    assert_played_on(result)
    assert 16 * 1024 <= len(result.logs[0]) < 17 * 1024
    assert "truncated" in result.logs[0]


def test_output_the_kernel_refills_still_lets_the_game_go_on(arena: Arena) -> None:
    # Found by the third hostile review: the referee drained until the pipe was empty, and
    # sendfile in two threads refilled it as fast; every drain is bounded now.
    result = arena.play(arena.spec("splice_flood"))
    assert_played_on(result)
    assert result.moves == 60
    assert 16 * 1024 <= len(result.logs[0]) < 17 * 1024
    assert result.logs[0].endswith("[output truncated]\n")


def test_output_written_to_the_descriptor_never_lands_on_a_disk(arena: Arena) -> None:
    result = arena.play(arena.spec("flood_descriptor"))
    assert_played_on(result)
    assert 16 * 1024 <= len(result.logs[0]) < 17 * 1024
    assert result.logs[0].endswith("[output truncated]\n")


@needs("seccomp")
def test_os_system_runs_nothing(arena: Arena) -> None:
    target = arena.outside / "pwned"
    result = arena.play(arena.spec("os_system", target=target))
    assert_played_on(result)
    assert not target.exists()


@needs_any("seccomp", "cgroup")
def test_fork_bomb_is_stopped(arena: Arena) -> None:
    result = arena.play(arena.spec("fork_bomb"))
    assert_failed(result, "crash")
    assert "PermissionError" in result.message or "BlockingIOError" in result.message


@needs_any("namespaces", "cgroup")
def test_descendants_in_new_sessions_die_with_the_game(arena: Arena) -> None:
    # Without seccomp the agent may fork; its detached grandchild must still not survive.
    layers = tuple(layer for layer in LAYERS if layer != "seccomp")
    result = arena.play(arena.spec("daemon"), layers=layers)
    assert_played_on(result)


def test_cpu_burning_thread_is_stopped_while_idle(arena: Arena) -> None:
    ghost = resolve(f"{arena.team('sleepy_ghost')}/agent.py:ZooAgent", (("delay", "0.1"),),
                    kind="ghost")
    spec = arena.spec("cpu_thread")
    result = arena.play(GameSpec(**{**spec.__dict__, "ghost": ghost}))
    assert_played_on(result)
    pacman = result.timing[0]
    idle = result.timing[1].wall + result.timing[2].wall
    assert idle >= 2.0  # the ghosts slept 0.1 s a move each: Pacman was idle that long
    assert pacman.cpu is not None
    # Stopped between its moves, the thread burns only Pacman's own thinking time (plus a
    # moment after each answer before the stop): far less than the ghosts' seconds.
    assert pacman.cpu < pacman.wall + idle / 4, (pacman.cpu, pacman.wall, idle)


def test_kernel_work_left_behind_an_answer_counts_in_the_agents_own_move(arena: Arena) -> None:
    """SIGSTOP takes a thread only when it returns from the kernel: a thread left in a long
    system call ran on while the agent was paused, on its opponent's time (the thirteenth
    hostile review: a ghost team took 40% of its opponent's search, and made a bystander's
    games time out). A move now ends when every thread has stopped, so all the CPU the agent
    uses lies within its own moves' time."""
    ghost = resolve(f"{arena.team('sleepy_ghost')}/agent.py:ZooAgent", (("delay", "0.1"),),
                    kind="ghost")
    spec = arena.spec("kernel_after_answer", limits=LIMITS.with_changes(memory_mb=1024))
    result = arena.play(GameSpec(**{**spec.__dict__, "ghost": ghost}))
    assert_played_on(result)
    pacman = result.timing[0]
    assert pacman.cpu is not None and pacman.moves >= 10
    # Each move zeroes 400 MiB in the kernel (tens of milliseconds of CPU): it happened...
    assert pacman.cpu > 0.01 * pacman.moves, pacman
    # ...within the moves' time (plus the start-up's CPU), never in the ghosts' turns.
    assert pacman.cpu < pacman.wall + 0.25, (pacman.cpu, pacman.wall)


# --- confinement -------------------------------------------------------------------------------

#: How a file out of reach fails: refused (Landlock, seccomp), read-only (the mounts layer's
#: read-only root), or simply not there (the mounts layer shows nothing else).
OUT_OF_REACH = ("PermissionError", "FileNotFoundError", "Read-only file system")


def assert_out_of_reach(result: GameResult) -> None:
    assert (result.outcome, result.culprit) == ("crash", 0), (result.outcome, result.message)
    assert any(word in result.message for word in OUT_OF_REACH), result.message


@needs_any("landlock", "mounts")
@pytest.mark.parametrize("layers", [LAYERS, without("mounts"), without("landlock")],
                         ids=["all", "no-mounts", "no-landlock"])
def test_writing_outside_its_folder_is_refused(arena: Arena, layers: tuple[str, ...]) -> None:
    if not ACTIVE & set(layers) & {"landlock", "mounts"}:
        pytest.skip("the layer left on is not available here")
    target = arena.outside / "written"
    result = arena.play(arena.spec("write_outside", target=target), layers=layers)
    assert_out_of_reach(result)
    assert not target.exists()


@needs_any("landlock", "mounts")
@pytest.mark.parametrize("layers", [LAYERS, without("mounts"), without("landlock")],
                         ids=["all", "no-mounts", "no-landlock"])
def test_reading_another_teams_file_is_refused(arena: Arena, layers: tuple[str, ...]) -> None:
    if not ACTIVE & set(layers) & {"landlock", "mounts"}:
        pytest.skip("the layer left on is not available here")
    secret = arena.teams / "other-team" / "secret.txt"
    result = arena.play(arena.spec("read_other_team", target=secret), layers=layers)
    assert_out_of_reach(result)
    assert "opening book" not in result.logs[0]


@needs_any("seccomp", "namespaces")
def test_no_network_even_to_loopback(arena: Arena) -> None:
    received: list[bytes] = []
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(5)

        def accept() -> None:
            try:
                conn, _ = server.accept()
                received.append(conn.recv(100))
                conn.close()
            except OSError:
                pass

        listener = threading.Thread(target=accept)
        listener.start()
        result = arena.play(arena.spec("socket_loopback", port=server.getsockname()[1]))
        server.close()
        listener.join()
    assert_failed(result, "crash")
    assert received == []


def test_mutating_the_state_changes_nothing_in_the_referee(arena: Arena) -> None:
    result = arena.play(arena.spec("mutate_state"))
    assert_played_on(result)
    assert result.score < 10**5


def test_monkey_patching_the_engine_changes_nothing_in_the_referee(arena: Arena) -> None:
    result = arena.play(arena.spec("monkeypatch_engine"))
    assert_played_on(result)
    assert result.score < 10**5 and result.outcome != "win"


@needs("namespaces")
def test_killing_its_parent_reaches_nobody(arena: Arena) -> None:
    # Its parent is outside its PID namespace: the signal has no one to reach.
    assert_played_on(arena.play(arena.spec("kill_parent")))


def test_killing_its_parent_without_namespaces_kills_only_itself(arena: Arena) -> None:
    # With nothing but limits, its parent is the sandbox's keeper process, not the referee;
    # the agent dies with the keeper.
    result = arena.play(arena.spec("kill_parent"), layers=("rlimits",))
    assert_failed(result, "killed", "SIGKILL")


def test_os_exit_is_a_crash(arena: Arena) -> None:
    assert_failed(arena.play(arena.spec("os_exit")), "crash", "exited with status 3")


def test_segfault_is_a_crash(arena: Arena) -> None:
    assert_failed(arena.play(arena.spec("segfault")), "crash", "SIGSEGV")


# --- the wire ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["win", "infra_error", "", "bogus", "load_error"])
def test_an_agent_cannot_choose_its_outcome(arena: Arena, kind: str) -> None:
    # It writes an error of its own choosing on the answer pipe, with the right request number
    # (a load_error, which a child may report only while loading, included).
    result = arena.play(arena.spec("forge_outcome", kind=kind))
    assert_failed(result, "crash", "broke the sandbox protocol")


@pytest.mark.parametrize("figure", ["1" + "0" * 400, "1e999", "-5"])
def test_an_answer_the_referee_cannot_read_is_the_agents_crash(arena: Arena,
                                                               figure: str) -> None:
    # Its own answer on the pipe, a legal move with a CPU figure no float holds (or none a
    # move can have), then it sleeps: the game is its own failure, never the platform's
    # (which would leave the game it is losing unscored).
    result = arena.play(arena.spec("forge_answer", figure=figure))
    assert_failed(result, "crash")


def test_whatever_fails_while_reading_an_answer_is_the_agents_crash(
        arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    # Wherever the referee's reading of an answer the agent controls might fail next, the
    # failure is the agent's (its code has run), never the platform's.
    from pacman.sandbox.process import AgentProcess

    def broken(*args: object, **kwargs: object) -> None:
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(AgentProcess, "move", broken)
    assert_failed(arena.play(arena.spec("honest")), "crash", "could not handle its answer",
                  "OverflowError")


@pytest.mark.parametrize("mode, limits, words", [
    ("slow", LIMITS.with_changes(move_soft=0.2, move_warnings=0), ("over the 0.2s limit",)),
    ("exit", LIMITS.with_changes(move_soft=0.2, move_warnings=0), ("over the 0.2s limit",)),
    ("segv", LIMITS.with_changes(move_soft=0.2, move_warnings=0), ("over the 0.2s limit",)),
    ("catch", LIMITS.with_changes(cpu_seconds=1), ("CPU seconds",)),
    ("ignore", LIMITS.with_changes(cpu_seconds=1), ("CPU seconds",)),
    ("play_on", LIMITS.with_changes(cpu_seconds=1), ("CPU seconds",)),
    ("oom", LIMITS.with_changes(cpu_seconds=1), ("CPU seconds",)),
    ("garbage", LIMITS.with_changes(cpu_seconds=1, move_hard=None, move_soft=None),
     ("CPU seconds",)),
])
def test_a_timeout_cannot_be_called_something_else(arena: Arena, mode: str, limits: Limits,
                                                   words: tuple[str, ...]) -> None:
    # Found by the hostile reviews: a move past its time limit that answered "memory" (or
    # exited, or died of a signal) was recorded as that, so a marks rule on timeouts could be
    # dodged. The referee's clock and the kernel's CPU count now come before the agent's word
    # and its way of dying (a caught or ignored SIGXCPU no longer ends as a memory error, a
    # kill or a game played on).
    result = arena.play(arena.spec("dodge_timeout", limits=limits, mode=mode))
    assert_failed(result, "timeout", *words)


def test_an_agent_may_only_fail_itself_on_the_wire(arena: Arena) -> None:
    forged = "timeout: move 3 took 9.000s (hard limit 3s)"
    result = arena.play(arena.spec("forge_outcome", kind="crash", exc_type="", text=forged))
    # Its forged line is taken as its answer, or (when the harness's real answer arrives in
    # the same read) as an answer out of turn: a crash of its own either way, in the
    # referee's words, with its own only quoted.
    assert (result.outcome, result.culprit) == ("crash", 0)
    assert result.message in (
        f'getAction raised an exception with an unprintable name: "{forged}"',
    ) or "out of turn" in result.message, result.message


def test_answers_sent_ahead_and_a_full_pipe_cannot_hang_the_referee(arena: Arena) -> None:
    result = arena.play(arena.spec("flood_answers"))
    assert_failed(result, "crash", "broke the sandbox protocol")
    assert result.timing[0].wall < 60  # not hung


def test_unprintable_text_from_an_agent_is_cleaned(arena: Arena, tmp_path: Path) -> None:
    folder = arena.teams / "rude"
    folder.mkdir(parents=True)
    (folder / "agent.py").write_text(
        "class ZooAgent:\n"
        "    def getAction(self, state):\n"
        "        print('\\x1b[8mhidden \\ud800')\n"
        "        raise RuntimeError('bad \\ud800 char \\x1b[2J')\n")
    spec = GameSpec(load_layout("smallClassic"), resolve(f"{folder}/agent.py:ZooAgent"),
                    resolve("RandomGhost", kind="ghost"), seed=1, max_moves=20, limits=LIMITS)
    result = arena.play(spec)
    assert_failed(result, "crash", 'RuntimeError: "bad ? char [2J"')
    assert "\x1b" not in result.message + result.trace + result.logs[0]
    (result.message + result.trace + result.logs[0]).encode("utf-8")  # no lone surrogate


# --- 1. host metadata ---------------------------------------------------------------------------
# The zoo agents try the calls Landlock does not mediate; the fixture's snapshot (modes,
# owners, times) proves nothing changed. Each is also played with the mounts layer off (seccomp
# alone refuses the calls) and with seccomp off (nothing outside is there to change).

METADATA_LAYERS = [LAYERS, without("mounts", "landlock"), without("seccomp")]
METADATA_IDS = ["all", "seccomp-alone", "mounts-alone"]


def metadata_layers(layers: tuple[str, ...]) -> None:
    if layers == without("seccomp") and "mounts" not in ACTIVE:
        pytest.skip("needs the mounts layer")
    if layers == without("mounts", "landlock") and "seccomp" not in ACTIVE:
        pytest.skip("needs the seccomp layer")


@pytest.mark.parametrize("layers", METADATA_LAYERS, ids=METADATA_IDS)
@pytest.mark.parametrize("name, target", [
    ("chmod_outside", "outside/organizer.txt"),
    ("chmod_outside", "outside/results.sqlite"),
    ("setuid_binary", "outside/program"),
    ("chmod_other_team", "teams/other-team"),
    ("touch_outside", "outside/organizer.txt"),
    ("xattr_outside", "outside/organizer.txt"),
])
def test_host_metadata_cannot_change(arena: Arena, layers: tuple[str, ...], name: str,
                                     target: str) -> None:
    metadata_layers(layers)
    result = arena.play(arena.spec(name, target=arena.root / target), layers=layers)
    assert_out_of_reach(result)  # and the fixture checks every mode, owner and time


@pytest.mark.parametrize("layers", METADATA_LAYERS, ids=METADATA_IDS)
def test_its_own_files_cannot_change_through_a_descriptor(arena: Arena,
                                                          layers: tuple[str, ...]) -> None:
    metadata_layers(layers)
    spec = arena.spec("chmod_by_descriptor")
    own = Path(str(spec.pacman.path))
    before = snapshot(own)
    result = arena.play(spec, layers=layers)
    assert_out_of_reach(result)
    assert snapshot(own) == before


# --- 2. the organizer's environment -------------------------------------------------------------

def test_the_organizers_environment_never_reaches_an_agent(
        arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = secrets.token_hex(12)
    monkeypatch.setenv("PACMAN_ARENA_TEST_TOKEN", secret)
    discard_zygote()  # the next sandbox's zygote starts while the secret is set
    try:
        result = arena.play(arena.spec("read_environment"))
    finally:
        monkeypatch.delenv("PACMAN_ARENA_TEST_TOKEN")
        discard_zygote()
    assert_played_on(result)
    assert "FOUND:" in result.logs[0]  # it looked, and found the sandbox's own variables
    assert "HOME=" in result.logs[0]
    assert secret not in result.logs[0] and "PACMAN_ARENA_TEST_TOKEN" not in result.logs[0]


# --- 3. text about its process that the referee reads -------------------------------------------

def test_an_unreadable_thread_name_is_its_own_business(arena: Arena) -> None:
    result = arena.play(arena.spec("bad_thread_name"))
    assert_played_on(result)
    assert result.timing[0].cpu is not None  # read from /proc/<pid>/stat all the same


# --- 4. channels --------------------------------------------------------------------------------

@needs_any("seccomp", "mounts")
def test_a_socket_pair_reaches_no_socket_outside(arena: Arena, tmp_path: Path) -> None:
    path = str(tmp_path / "organizer.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(path)
        listener.setblocking(False)
        result = arena.play(arena.spec("socketpair_datagram", target=path))
        with pytest.raises(BlockingIOError):
            listener.recv(100)
    assert_failed(result, "crash")
    os.unlink(path)


@needs("seccomp")
@pytest.mark.parametrize("name", ["inotify_watch", "flock_shared"])
def test_notifications_and_locks_are_refused(arena: Arena, name: str) -> None:
    assert_failed(arena.play(arena.spec(name)), "crash", "Operation not permitted")


@needs("mounts")
def test_the_host_cannot_even_be_looked_at(arena: Arena) -> None:
    result = arena.play(arena.spec("stat_host"))
    assert_failed(result, "crash", "FileNotFoundError", "/etc/shadow")
    assert "SHADOW:" not in result.logs[0]
    assert f"HOST: {os.uname().nodename}" not in result.logs[0]


@needs_any("mounts", "landlock")
def test_concurrent_sandboxes_cannot_find_each_other(arena: Arena) -> None:
    marker = secrets.token_hex(12)
    spec = arena.spec("leave_marker", marker=marker)
    placement = Placement(root=arena.sandboxes)
    writer = SandboxedHandle.launch(spec.pacman, 0, spec.layout, 2, "classic", 1, LIMITS,
                                   placement)
    try:
        writer.register(GameState.initial(spec.layout, 2))  # the marker is there
        result = arena.play(arena.spec("find_neighbour"))
    finally:
        writer.close()
    assert_played_on(result)
    assert marker not in result.logs[0] and "NEIGHBOUR:" not in result.logs[0]


# --- 5. shared resources ------------------------------------------------------------------------

@needs("mounts")
def test_filling_its_scratch_stops_at_its_own_cap(arena: Arena) -> None:
    limits = LIMITS.with_changes(scratch_mb=8)
    spec = arena.spec("fill_scratch", limits=limits)
    placement = Placement(root=arena.sandboxes)
    filler = SandboxedHandle.launch(spec.pacman, 0, spec.layout, 2, "classic", 1, limits,
                                   placement)
    try:
        filler.register(GameState.initial(spec.layout, 2))  # full now
        # A game beside it starts and plays as ever: nothing of the host was filled.
        assert_played_on(arena.play(arena.spec("honest")))
    finally:
        filler.close()
    log = filler.process.log
    assert "DATA STOPPED: 8 MiB ENOSPC" in log or "DATA STOPPED: 7 MiB ENOSPC" in log, log
    files = int(log.split("FILES STOPPED: ")[1].split()[0])
    assert files <= 8 * 64, log


@needs_any("seccomp", "cgroup")
@pytest.mark.parametrize("layers", [LAYERS, without("seccomp")], ids=["all", "no-seccomp"])
def test_memory_in_a_memfd_counts(arena: Arena, layers: tuple[str, ...]) -> None:
    if layers == without("seccomp") and "cgroup" not in ACTIVE:
        pytest.skip("needs the cgroup layer")
    result = arena.play(arena.spec("memfd_hoard", mb=512), layers=layers)
    assert (result.outcome, result.culprit) in (("crash", 0), ("memory", 0)), result.message
    if "seccomp" in layers and "seccomp" in ACTIVE:
        assert "Operation not permitted" in result.message


@needs("cpu share")
def test_many_threads_get_one_cpu(arena: Arena) -> None:
    # Room for the threads' stacks and malloc arenas in the address space.
    limits = LIMITS.with_changes(move_soft=None, move_hard=None, memory_mb=2048)
    result = arena.play(arena.spec("thread_swarm", limits=limits, threads=8, think=0.3))
    assert_played_on(result)
    pacman = result.timing[0]
    assert pacman.cpu is not None and pacman.wall >= 0.3 * pacman.moves
    # The kernel's quota is one CPU: it never gets more than the time it thinks (plus its
    # start-up), whatever the machine's load.
    assert pacman.cpu <= 1.05 * pacman.wall + 0.5, (pacman.cpu, pacman.wall)


# --- 7. output that could be mistaken for the result --------------------------------------------

def test_an_agent_cannot_word_its_own_failure(arena: Arena) -> None:
    result = arena.play(arena.spec("fake_summary", after=2))
    assert_failed(result, "crash")
    assert result.message.startswith('getAction raised ValueError: "\\nwin: Pacman emerges')
    assert "\n" not in result.message


# --- 8. false positives -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["numpy_choice", "str_subclass"])
@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "in-process"])
def test_a_string_that_spells_a_legal_move_is_that_move(arena: Arena, name: str,
                                                         sandbox: bool) -> None:
    spec = arena.spec(name)
    result = arena.play(GameSpec(**{**spec.__dict__, "sandbox": sandbox}))
    assert_played_on(result)
    assert all(type(action) is str for _, action in result.actions)


@needs("seccomp")
@pytest.mark.parametrize("name, args", [
    ("shared_futex", {}),
    ("evict_page_cache", {"how": "fadvise"}),
    ("evict_page_cache", {"how": "madvise"}),
])
def test_no_channel_through_shared_files(arena: Arena, name: str, args: dict[str, str]) -> None:
    # Found by the hostile review after the first fixes: futexes and page-cache advice on
    # files every sandbox maps reach across sandboxes.
    assert_failed(arena.play(arena.spec(name, **args)), "crash", "Operation not permitted")


# --- 6. the team's own files ---------------------------------------------------------------------

def plant_compiled(source: Path, impostor: Path, text: str) -> None:
    """Compile `text` (written to `impostor`) as the unchecked cached file of `source`."""
    import importlib.util
    import py_compile

    impostor.write_text(text)
    py_compile.compile(str(impostor), cfile=importlib.util.cache_from_source(str(source)),
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


def play_folder(arena: Arena, folder: Path, layers: tuple[str, ...] = LAYERS) -> GameResult:
    """A short game of the ZooAgent in `folder`/agent.py, which must play on."""
    result = arena.play(GameSpec(load_layout("smallClassic"),
                                 resolve(f"{folder}/agent.py:ZooAgent"),
                                 resolve("RandomGhost", kind="ghost"), seed=1, max_moves=9,
                                 limits=LIMITS), layers=layers)
    assert_played_on(result)
    return result


@pytest.mark.parametrize("layers", [LAYERS, without("mounts")], ids=["all", "no-mounts"])
def test_a_compiled_file_never_runs_in_place_of_its_source(arena: Arena,
                                                           layers: tuple[str, ...]) -> None:
    # Found by the hostile review: an unchecked hash-based .pyc in __pycache__ ran instead of
    # the .py beside it, so the code reviewed was not the code that played. Without the
    # mounts layer the team's __pycache__ is in its view: the source-only loading of its
    # modules (its agent file and a helper it imports) holds there on its own.
    folder = arena.team("honest", folder="compiled")
    (folder / "agent.py").write_text(
        "from helper import word\n"
        "class ZooAgent:\n"
        "    def getAction(self, state):\n"
        "        print('SOURCE', word())\n"
        "        return state.getLegalActions(0)[0]\n")
    (folder / "helper.py").write_text("def word():\n    return 'HELPER-SOURCE'\n")
    plant_compiled(folder / "agent.py", arena.root / "hidden.py",
                   "class ZooAgent:\n"
                   "    def getAction(self, state):\n"
                   "        print('COMPILED')\n"
                   "        return state.getLegalActions(0)[0]\n")
    plant_compiled(folder / "helper.py", arena.root / "hidden_helper.py",
                   "def word():\n    return 'HELPER-COMPILED'\n")
    result = play_folder(arena, folder, layers)
    assert "SOURCE HELPER-SOURCE" in result.logs[0] and "COMPILED" not in result.logs[0]


def test_a_failing_final_is_said_as_in_process(arena: Arena) -> None:
    """A sandboxed agent's `final()` that raised was dropped in silence; now, as in-process:
    the game's outcome stands and its message says it, and without `catch` the failure
    ends the batch as the agent's crash."""
    from pacman.game import AgentFailure

    spec = arena.spec("final_raises")
    result = arena.play(spec)
    assert result.outcome in ("win", "loss", "move_limit"), (result.outcome, result.message)
    assert result.message.startswith('Pacman after the game: final() raised RuntimeError: '
                                     '"bug in final"'), result.message
    with pytest.raises(AgentFailure, match="bug in final") as failed:
        play(spec, placement=Placement(root=arena.sandboxes), catch=False)
    assert (failed.value.kind, failed.value.culprit) == ("crash", 0)


def test_a_name_that_is_no_class_is_said_without_the_harnesss_traceback(arena: Arena) -> None:
    """`-p better` where the file binds `better` to a function: the harness's own check
    finds no class; its traceback (the harness's code) is not shown as the agent's."""
    folder = arena.team("honest", folder="function")
    (folder / "agent.py").write_text("def better(state):\n    return 0\n")
    result = arena.play(GameSpec(load_layout("smallClassic"), resolve(f"{folder}/agent.py:better"),
                                 resolve("RandomGhost", kind="ghost"), seed=1, max_moves=9,
                                 limits=LIMITS))
    assert_failed(result, "load_error", "defines no class 'better'")
    assert "child.py" not in result.trace and "Traceback" not in result.trace


def test_a_library_is_imported_from_its_own_compiled_files(arena: Arena) -> None:
    """Only the team's modules are compiled from source (`pacman.loader.source_only_hook`);
    a library's bytecode cache is the installation's, read as it is."""
    import fractions

    result = play_folder(arena, arena.team("library_user", folder="library_user"))
    [line] = [line for line in result.logs[0].splitlines() if line.startswith("CACHED ")]
    assert line.split() == ["CACHED", str(fractions.__cached__), "PREFIX", "None"]


def test_a_team_cannot_play_the_platforms_own_baselines(arena: Arena) -> None:
    result = arena.play(arena.spec("borrow_baseline"))
    assert_failed(result, "load_error", "ModuleNotFoundError",
                  "pacman.agents.anytime_agent is the platform's own code")


@needs("mounts")
def test_the_platforms_baselines_are_not_even_in_a_teams_view(arena: Arena) -> None:
    result = arena.play(arena.spec("borrow_by_path"))
    assert_failed(result, "load_error", "FileNotFoundError", "anytime_agent.py")


@needs("mounts")
def test_the_engine_shows_a_team_its_allowed_sources_and_nothing_else(arena: Arena) -> None:
    """The engine's folder as a team sees it is the allow list: no compiled build (whose
    library holds the baselines' and search's compiled code), no `__pycache__`, no baseline,
    whatever else lies in the package on this machine."""
    result = play_folder(arena, arena.team("engine_view", folder="engine_view"))
    [line] = [line for line in result.logs[0].splitlines() if line.startswith("VIEW ")]
    assert line.split()[1:] == sorted(engine_view())
    assert "game.py" in engine_view() and "agents/base.py" in engine_view()
    assert not [name for name in engine_view() if not name.endswith(".py")]


@needs("mounts")
def test_nothing_installed_beside_the_interpreter_is_in_a_teams_view(arena: Arena) -> None:
    """Review 22: the sandbox bound the interpreter's prefixes whole (the base interpreter's
    site-packages with them, where another install of the platform let a team play its
    baselines) and `/usr` whole. Now it binds the interpreter's library folders and the
    system's shared libraries only."""
    import sys
    import sysconfig

    from pacman.sandbox.process import foreign_sites

    places = [p for p in (os.path.join(sys.base_prefix, "bin"), "/usr/bin", "/usr/include",
                          "/usr/share/doc", *map(str, foreign_sites()))
              if os.path.isdir(p) and os.listdir(p)]
    assert places, "the host has none of the folders this test looks at"
    # The interpreter's own shared libraries stay in view (a conda build's compiled modules
    # load theirs from there): its folder lists as on the host.
    libdir = str(sysconfig.get_config_var("LIBDIR"))
    result = arena.play(arena.spec("interpreter_view", places="|".join(places), libdir=libdir))
    assert_played_on(result)
    assert "STDLIB 0.125" in result.logs[0], result.logs[0]
    assert [line for line in result.logs[0].splitlines() if line.startswith("SEEN")] == []
    if os.path.isdir(libdir):
        assert f"LIBDIR {sorted(os.listdir(libdir))}" in result.logs[0], result.logs[0]


@needs("mounts")
def test_a_team_that_switches_its_pycache_back_on_still_plays_its_source(arena: Arena) -> None:
    # Found by the second hostile review: `sys.pycache_prefix = None` in the team's source
    # brought its __pycache__ back; the mounts layer shows it no __pycache__ at all.
    folder = arena.team("honest", folder="prefix")
    (folder / "agent.py").write_text(
        "import sys\n"
        "sys.pycache_prefix = None\n"
        "from helper import word\n"
        "class ZooAgent:\n"
        "    def getAction(self, state):\n"
        "        print(word())\n"
        "        return state.getLegalActions(0)[0]\n")
    (folder / "helper.py").write_text("def word():\n    return 'SOURCE'\n")
    plant_compiled(folder / "helper.py", arena.root / "hidden.py",
                   "def word():\n    return 'COMPILED'\n")
    result = play_folder(arena, folder)
    assert "SOURCE" in result.logs[0] and "COMPILED" not in result.logs[0]


@needs("mounts")
def test_two_folders_with_one_hash_look_the_same_to_their_agent(arena: Arena) -> None:
    # Found by the third hostile review: a resubmission with the same files and, besides,
    # empty folders named after the ghosts' moves of its earlier games had the same hash, so
    # its games were keyed like those and it knew every ghost move to come.
    first = arena.team("read_beyond_hash", folder="first")
    (first / "data.bin").write_bytes(bytes(8192))
    (first / "book").mkdir()
    (first / "book" / "openings.txt").write_text("North\n")
    second = arena.teams / "second"
    shutil.copytree(first, second)
    # The same names and bytes; everything else the hash does not cover differs.
    (second / "notes" / "3f2a_NSWE.EEWN").mkdir(parents=True)
    (second / "empty").mkdir()
    os.utime(second / "agent.py", ns=(123456789, 987654321))
    (second / "agent.py").chmod(0o751)
    (second / "book").chmod(0o700)
    with open(second / "data.bin", "r+b") as fh:  # the same zeros, stored as a hole
        fh.truncate(0)
        fh.truncate(8192)
    with contextlib.suppress(OSError):
        os.setxattr(second / "agent.py", "user.note", b"NSWE")
    assert team_digest(first) == team_digest(second)
    views = []
    for folder in (first, second):
        result = play_folder(arena, folder)
        views.append([line for line in result.logs[0].splitlines() if line.startswith("SEES")])
    assert views[0] == views[1]
    assert [line.split()[1] for line in views[0]] == [
        "book", "agent.py", "data.bin", "book/openings.txt"]
    assert all(" times=0,0 " in line for line in views[0])


@needs("mounts")
def test_a_sandbox_with_fewer_guarantees_than_the_run_expects_runs_no_team_code(
        arena: Arena) -> None:
    # Found by the fourth hostile review: a game whose mounts layer failed was played through
    # (unconfined by it, writing 300 MiB to the host's disk) and only then left unscored.
    target = arena.outside / "written"
    spec = arena.spec("write_outside", target=target)
    result = play(spec, placement=Placement(root=arena.sandboxes, layers=without("mounts"),
                                            expected=tuple(ACTIVE)))
    assert (result.outcome, result.moves) == ("infra_error", 0), result.message
    assert "lacks the guarantees" in result.message and "no team code ran" in result.message
    assert not target.exists()


# --- 9. predictable games -------------------------------------------------------------------------

@pytest.mark.parametrize("secret", ["", "a" * 64], ids=["no-secret", "secret"])
def test_an_agent_cannot_recognise_its_game_when_it_has_a_secret(arena: Arena,
                                                                  secret: str) -> None:
    seeds = [derive_seed(0, "smallClassic/d-/RandomGhost2/classic", i) for i in range(30)]
    spec = arena.spec("seed_oracle", candidates="-".join(map(str, seeds)))
    result = arena.play(GameSpec(**{**spec.__dict__, "seed": seeds[17], "secret": secret}))
    assert_played_on(result)
    # Without a secret (the pacman command) the seed gives itself away; with one, no
    # candidate matches, so the ghosts' stream stays unknown.
    assert ("RECOGNISED" in result.logs[0]) is (secret == "")


def test_a_secret_changes_every_random_stream_and_only_it_does(arena: Arena) -> None:
    spec = arena.spec("honest")

    def ghosts(secret: str) -> list[str]:
        result = play(GameSpec(**{**spec.__dict__, "secret": secret, "sandbox": False}))
        return [action for index, action in result.actions if index > 0]

    assert ghosts("a" * 64) == ghosts("a" * 64)
    assert ghosts("a" * 64) != ghosts("b" * 64) != ghosts("")
