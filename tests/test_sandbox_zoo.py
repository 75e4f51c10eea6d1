"""The hostile zoo (tests/zoo/) played through the sandbox.

For each agent: the outcome and culprit are the right ones, the referee lives on, every
process of the sandbox is gone, the next game (a well-behaved team on the same seed) is the
same game as before, and nothing outside the agent's own folder changed. Tests that depend on
a kernel feature skip, naming it, on machines without it.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

from pacman.game import FAILURES, GameResult, GameSpec, play
from pacman.layout import load_layout
from pacman.loader import resolve
from pacman.sandbox.check import run_check
from pacman.sandbox.confine import LAYERS
from pacman.sandbox.limits import Limits
from pacman.sandbox.process import Placement, SandboxError
from pacman.state import GameState

ZOO = Path(__file__).parent / "zoo"
REPO = Path(__file__).parent.parent
LIMITS = Limits(startup=3, move_soft=0.5, move_warnings=1, move_hard=1.5, memory_mb=256,
                output_kb=16)

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
            with open(f"/proc/{entry}/stat") as fh:
                state = fh.read().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if cwd.startswith(str(root)) and state != "Z":
            found.add(int(entry))
    return found


def snapshot(*roots: Path) -> dict[str, tuple[int, int]]:
    """Every file under `roots` with its size and modification time."""
    seen = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if "__pycache__" in path.parts:
                continue
            stat = path.lstat()
            seen[str(path)] = (stat.st_size, stat.st_mtime_ns)
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


# --- failing at load time -------------------------------------------------------------------

@pytest.mark.parametrize("name, words", [
    ("syntax_error", ["syntax error", "agent.py:2"]),
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
    result = arena.play(arena.spec("slow_move", delay=0.6))
    assert_failed(result, "timeout", "2 moves over the 0.5s limit (1 forgiven)")
    assert result.timing[0].warnings == 2
    assert result.timing[0].moves == 2


def test_one_slow_move_is_forgiven(arena: Arena) -> None:
    limits = LIMITS.with_changes(move_soft=0.05, move_warnings=100)
    result = arena.play(arena.spec("slow_move", delay=0.06, limits=limits))
    assert_played_on(result)
    assert result.timing[0].warnings == result.timing[0].moves > 0


def test_infinite_loop_is_killed_at_the_hard_limit(arena: Arena) -> None:
    result = arena.play(arena.spec("infinite_loop"))
    assert_failed(result, "timeout", "move 0 took more than 1.500s; killed")
    assert 1.5 <= result.timing[0].wall_max < 3


def test_total_thinking_time_per_game(arena: Arena) -> None:
    limits = LIMITS.with_changes(game_total=0.3, move_soft=None)
    result = arena.play(arena.spec("slow_move", delay=0.1, limits=limits))
    assert_failed(result, "timeout")
    assert result.timing[0].moves in (3, 4)


def test_slow_import_times_out_at_start_up(arena: Arena) -> None:
    result = arena.play(arena.spec("slow_import", limits=LIMITS.with_changes(startup=1)))
    assert_failed(result, "timeout", "start-up took more than 1.000s")
    assert result.moves == 0


@needs("rlimits")
def test_cpu_seconds_are_enforced_by_the_kernel(arena: Arena) -> None:
    limits = LIMITS.with_changes(cpu_seconds=1, move_hard=10, move_soft=None)
    result = arena.play(arena.spec("infinite_loop", limits=limits))
    assert_failed(result, "timeout", "CPU seconds")
    assert result.timing[0].wall_max < 5


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
    ghost = f"{arena.team('sleepy_ghost')}/agent.py:ZooAgent"
    result = arena.play(arena.spec("cpu_thread", ghost=ghost))
    assert_played_on(result)
    pacman, ghost_timing = result.timing[0], result.timing[1]
    assert ghost_timing.wall > 0.5  # the game lasted while Pacman was idle
    assert pacman.cpu is not None
    # Stopped between its moves, the thread burns only Pacman's own thinking time.
    assert pacman.cpu < pacman.wall + 0.25, (pacman.cpu, pacman.wall)


# --- confinement -------------------------------------------------------------------------------

@needs("landlock")
def test_writing_outside_its_folder_is_refused(arena: Arena) -> None:
    target = arena.outside / "written"
    result = arena.play(arena.spec("write_outside", target=target))
    assert_failed(result, "crash", "PermissionError")
    assert not target.exists()


@needs("landlock")
def test_reading_another_teams_file_is_refused(arena: Arena) -> None:
    secret = arena.teams / "other-team" / "secret.txt"
    result = arena.play(arena.spec("read_other_team", target=secret))
    assert_failed(result, "crash", "PermissionError")
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

@pytest.mark.parametrize("kind", ["win", "infra_error", "", "bogus"])
def test_an_agent_cannot_choose_its_outcome(arena: Arena, kind: str) -> None:
    # It writes an error of its own choosing on the answer pipe, with the right request number.
    result = arena.play(arena.spec("forge_outcome", kind=kind))
    assert_failed(result, "crash", "broke the sandbox protocol")


def test_an_agent_may_only_fail_itself_on_the_wire(arena: Arena) -> None:
    result = arena.play(arena.spec("forge_outcome", kind="crash"))
    # Its forged line is taken as its answer, or (when the harness's real answer arrives in
    # the same read) as an answer out of turn: a crash of its own either way.
    assert (result.outcome, result.culprit) == ("crash", 0)
    assert result.message == "I say so" or "out of turn" in result.message


def test_answers_sent_ahead_and_a_full_pipe_cannot_hang_the_referee(arena: Arena) -> None:
    result = arena.play(arena.spec("flood_answers"))
    assert_failed(result, "crash", "broke the sandbox protocol")
    assert result.timing[0].wall < 5


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
    assert_failed(result, "crash", "RuntimeError: bad ? char [2J")
    assert "\x1b" not in result.message + result.trace + result.logs[0]
    (result.message + result.trace + result.logs[0]).encode("utf-8")  # no lone surrogate
