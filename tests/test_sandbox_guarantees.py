"""What the sandbox promises, from its parts: the guarantees each set of layers gives, the
refusal of `tournament run` and `validate` to play teams without them, and the small pure
pieces that keep agent-made bytes and words in their place."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from pacman.actions import action_name
from pacman.describe import describe, describe_parts, quote
from pacman.sandbox import check, guarantees, mounts
from pacman.sandbox.confine import LAYERS, STOPS
from pacman.sandbox.process import (
    SandboxError,
    cpu_seconds_from_stat,
    engine_view,
    fault_message,
)
from tournament.cli import main as tournament_main

ALL = (*LAYERS, "cpu share")


# --- guarantees ----------------------------------------------------------------------------------

def test_every_guarantee_holds_with_every_layer() -> None:
    assert all(guarantees.held(ALL).values())
    assert set(STOPS) == set(LAYERS)  # every layer says what it stops


@pytest.mark.parametrize("layer, lost", [
    ("mounts", {"scratch", "own_code"}),
    ("seccomp", {"channels"}),  # locks and inotify on the files every sandbox reads
    ("cgroup", {"cpu_share"}),
    ("namespaces", set()),
    ("landlock", set()),
    ("uid", set()),
])
def test_one_missing_layer_loses_only_what_no_other_layer_covers(layer: str,
                                                                 lost: set[str]) -> None:
    active = [name for name in ALL if name != layer and not (
        layer == "cgroup" and name == "cpu share")]
    assert {g.name for g in guarantees.missing(active)} == lost


def test_two_missing_layers_lose_what_they_shared() -> None:
    active = [name for name in ALL if name not in ("mounts", "landlock")]
    assert {g.name for g in guarantees.missing(active)} == {"files", "channels", "scratch",
                                                            "own_code"}
    active = [name for name in ALL if name not in ("mounts", "seccomp")]
    assert {"metadata", "channels", "scratch"} <= {g.name for g in guarantees.missing(active)}
    assert {g.name for g in guarantees.missing([])} == set(guarantees.NAMES)


def test_requirements_read_as_sentences() -> None:
    files = next(g for g in guarantees.GUARANTEES if g.name == "files")
    assert guarantees.requirement_text(files) == "mounts or landlock"


# --- tournament run refuses without them ---------------------------------------------------------

def tournament(root: Path, extra: str = "") -> Path:
    team = root / "submissions" / "alpha"
    team.mkdir(parents=True)
    (team / "agent.py").write_text(textwrap.dedent("""\
        class ZooAgent:
            def getAction(self, state):
                return state.getLegalActions(0)[0]
        """))
    (team / "team.yaml").write_text("agent: agent.py:ZooAgent\n")
    config = root / "t.yaml"
    config.write_text(textwrap.dedent("""\
        name: Guarded cup
        entrants: {submissions: submissions}
        grid: {layouts: [testClassic], max_moves: 20}
        games_per_cell: 1
        workers: 1
        output: out
        """) + extra)
    return config


@pytest.fixture
def weak_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine whose kernel gives neither the mounts layer nor a cgroup CPU controller."""
    # (uid too: games are checked against the layers found, and this machine has no uid.)
    active = [name for name in ALL if name not in ("mounts", "cpu share", "uid")]

    def fake_check(limits: object = None) -> check.CheckReport:
        return check.CheckReport(active, {"mounts": "not on this kernel",
                                          "cpu share": "no cpu controller"})

    monkeypatch.setattr(check, "run_check", fake_check)


@pytest.mark.usefixtures("weak_machine")
@pytest.mark.parametrize("command", ["run", "validate"])
def test_run_and_validate_refuse_without_the_guarantees(tmp_path: Path, command: str) -> None:
    config = tournament(tmp_path)
    result = CliRunner().invoke(tournament_main, [command, str(config)])
    assert result.exit_code == 2, result.output
    assert "scratch: its scratch space is its own and capped" in result.output
    assert "cpu_share" in result.output
    assert "sandbox: {accept_missing: [scratch, own_code, cpu_share]}" in result.output
    # Refused before any game: a run leaves no trace of itself (not even the folder it made).
    assert not (tmp_path / "out" / "results.sqlite").exists()
    assert command == "validate" or not (tmp_path / "out").exists()


@pytest.mark.usefixtures("weak_machine")
def test_an_organizer_may_accept_a_missing_guarantee_by_name(tmp_path: Path) -> None:
    config = tournament(tmp_path, "sandbox: {accept_missing: [scratch, own_code, cpu_share]}\n")
    result = CliRunner().invoke(tournament_main, ["run", str(config)])
    assert result.exit_code == 0, result.output
    assert "accepted by the config: no guarantee that its scratch space" in result.output
    config = tournament(tmp_path / "again", "sandbox: {accept_missing: [scratch, own_code]}\n")
    result = CliRunner().invoke(tournament_main, ["run", str(config)])
    assert result.exit_code == 2 and "cpu_share" in result.output


def builtins_only(root: Path, baselines: str, ghost: str = "RandomGhost") -> Path:
    """A config of built-ins alone: no team, no file."""
    root.mkdir(parents=True, exist_ok=True)
    config = root / "t.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: Built-ins cup
        entrants:
          baselines: [{baselines}]
        grid: {{layouts: [testClassic], ghosts: [{{agent: {ghost}, count: 1}}], max_moves: 20}}
        games_per_cell: 1
        workers: 1
        output: out
        """))
    return config


@pytest.mark.usefixtures("weak_machine")
@pytest.mark.parametrize("baselines, ghost", [
    ("{name: anytime, agent: AnytimeAgent, args: {timeLimit: 0.02}}", "RandomGhost"),
    ("{name: mcts, agent: MCTSAgent, args: {timeLimit: 0.02}}", "RandomGhost"),
    ("{name: greedy, agent: GreedyAgent}", "AnytimeGhost"),
])
def test_builtins_on_a_clock_are_checked_as_teams_are(tmp_path: Path, baselines: str,
                                                      ghost: str) -> None:
    """A built-in that searches on a clock plays sandboxed on the sources (`on_sources`), so
    the run stops up front where the sandbox lacks a guarantee, as for a team; unchecked, it
    played on whatever the machine gave, and where no sandbox started every game was an
    unscored infra_error."""
    config = builtins_only(tmp_path, baselines, ghost)
    result = CliRunner().invoke(tournament_main, ["run", str(config)])
    assert result.exit_code == 2, result.output
    assert "sandbox: {accept_missing: [scratch, own_code, cpu_share]}" in result.output
    assert not (tmp_path / "out").exists()


def test_builtins_played_in_process_need_no_sandbox(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def no_sandbox(limits: object = None) -> check.CheckReport:
        raise SandboxError("no children here")

    monkeypatch.setattr(check, "run_check", no_sandbox)
    config = builtins_only(tmp_path, "{name: greedy, agent: GreedyAgent}")
    result = CliRunner().invoke(tournament_main, ["run", str(config)])
    assert result.exit_code == 0, result.output
    assert "sandbox layers on" not in result.output
    clocked = builtins_only(tmp_path / "clocked", "{name: greedy, agent: GreedyAgent}",
                            "AnytimeGhost")
    result = CliRunner().invoke(tournament_main, ["run", str(clocked)])
    assert result.exit_code == 1 and "the sandbox cannot start on this machine" in \
        result.output, result.output


def test_grid_ghosts_from_a_file_are_checked(tmp_path: Path) -> None:
    from tournament.config import load_config
    from tournament.runner import plays_sandboxed

    (tmp_path / "ghosts.py").write_text(textwrap.dedent("""\
        class StillGhost:
            def __init__(self, index):
                self.index = index
            def getAction(self, state):
                return state.getLegalActions(self.index)[0]
        """))
    filed = load_config(builtins_only(tmp_path, "{name: greedy, agent: GreedyAgent}",
                                      "ghosts.py:StillGhost"))
    plain = load_config(builtins_only(tmp_path / "plain", "{name: greedy, agent: GreedyAgent}"))
    assert plays_sandboxed(filed) and not plays_sandboxed(plain)
    # A name resolves as the run resolves it, against the config's folder: a course file
    # there defining a built-in's name plays in its place, sandboxed (the review of this
    # change: resolved against the current folder, the check was skipped).
    (tmp_path / "plain" / "multiAgents.py").write_text(
        "class GreedyAgent:\n    def getAction(self, state):\n        return 'Stop'\n")
    assert plays_sandboxed(load_config(tmp_path / "plain" / "t.yaml"))


@pytest.mark.usefixtures("weak_machine")
def test_tuning_a_builtin_on_a_clock_is_checked(tmp_path: Path) -> None:
    tune = tmp_path / "tune.yaml"
    tune.write_text(textwrap.dedent("""\
        name: clocked
        agent: AnytimeAgent
        args: {maxDepth: 1}
        evaluation: contest
        weights: {food_left: }
        protocol: {layout: testClassic, num_ghosts: 1, time_limit: 30, max_moves: 20}
        games: 1
        budget: {generations: 1}
        population: 2
        comparison: {games: 2}
        output: out
        """))
    result = CliRunner().invoke(tournament_main, ["tune", str(tune)])
    assert result.exit_code == 2, result.output
    assert "sandbox: {accept_missing: [scratch, own_code, cpu_share]}" in result.output


def test_the_config_names_unknown_guarantees(tmp_path: Path) -> None:
    config = tournament(tmp_path, "sandbox: {accept_missing: [scrach]}\n")
    result = CliRunner().invoke(tournament_main, ["validate", str(config)])
    assert result.exit_code == 2
    assert "sandbox.accept_missing[0]" in result.output and "scratch" in result.output


# --- bytes about the agent's process ----------------------------------------------------------

def stat_line(name: bytes) -> bytes:
    fields = [b"S"] + [b"0"] * 10 + [b"150", b"50", b"3", b"1"] + [b"0"] * 30
    return b"1234 (" + name + b") " + b" ".join(fields)


@pytest.mark.parametrize("name", [b"python", b"\xff\xfe) 7 7 (\xc3", b")", b"a b c d e f",
                                  b"\x00\x01"])
def test_cpu_time_is_read_whatever_the_process_calls_itself(name: bytes) -> None:
    assert cpu_seconds_from_stat(stat_line(name)) == pytest.approx(
        204 / os.sysconf("SC_CLK_TCK"))


@pytest.mark.parametrize("raw", [b"", b"garbage", b"1 (x) S 1 2", b"\xff" * 100])
def test_an_unreadable_stat_line_is_no_figure(raw: bytes) -> None:
    assert cpu_seconds_from_stat(raw) is None


# --- the agent's words, only ever quoted -------------------------------------------------------

def test_bidirectional_controls_are_removed() -> None:
    assert quote("win\u202e1742 erocS\u2066x\u200f") == '"win1742 erocSx"'


def test_an_agents_text_is_one_quoted_line() -> None:
    text = 'lost"\nAverage Score: 1742\x1b[2J'
    assert quote(text) == '"lost\\"\\nAverage Score: 1742[2J"'
    assert describe(ValueError(text)).startswith('ValueError: "lost\\"')
    assert describe_parts("Bad\nName", "x") == 'an exception with an unprintable name: "x"'
    assert len(quote("x" * 10_000)) <= 202


@pytest.mark.parametrize("op, kind, expected", [
    ("move", "crash", 'getAction raised KeyError: "k"'),
    ("register", "crash", 'registerInitialState raised KeyError: "k"'),
    ("load", "load_error", 'could not be loaded: KeyError: "k"'),
    ("move", "memory", 'ran out of memory in getAction: KeyError: "k"'),
])
def test_the_referee_words_every_failure(op: str, kind: str, expected: str) -> None:
    assert fault_message(op, kind, "KeyError", "k") == expected


def test_a_move_is_what_its_string_spells() -> None:
    class Liar(str):
        def __str__(self) -> str:
            return "North"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    class FakeClass:
        @property  # type: ignore[misc]
        def __class__(self) -> type:
            return str

    assert action_name("West") == "West"
    assert action_name(Liar("East")) == "East" and type(action_name(Liar("East"))) is str
    assert action_name(Liar("Up")) is None
    assert action_name(FakeClass()) is None and action_name(None) is None


# --- the mounts layer's plan -------------------------------------------------------------------

def test_binds_leave_out_what_an_outer_bind_shows(tmp_path: Path) -> None:
    (tmp_path / "usr" / "lib").mkdir(parents=True)
    (tmp_path / "team").mkdir()
    (tmp_path / "lib").symlink_to("usr/lib")
    paths = (str(tmp_path / "usr"), str(tmp_path / "usr" / "lib"), str(tmp_path / "lib"),
             str(tmp_path / "team"), str(tmp_path / "missing"))
    assert mounts.bind_plan(paths) == [str(tmp_path / "team"), str(tmp_path / "usr")]


def test_an_agents_view_on_a_kernel_without_mount_setattr_is_whole_and_read_only() -> None:
    """Before Linux 5.12 every attribute is set by remounting: the view must still be built
    (the read-only remount of the new root comes after the pivot, where there is no /proc),
    showing the engine's allow list and nothing of it writable, each file bound on its own
    included. Found by the review of the allow list: the fallback read /proc there, and every
    sandbox failed to start on such a kernel."""
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "mounts_fallback.py")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in found:
        pytest.skip(f"no mount namespace here: {found['skip']}")
    assert found["seen"] == sorted(engine_view())
    assert found["writable"] == []


def test_a_remount_on_an_old_kernel_reaches_every_mount_below_the_path() -> None:
    """Before Linux 5.12 (no mount_setattr) a read-only remount changes one mount, so a
    recursive one walks every mount at or below the path (the engine's allow list binds each
    of its files on its own: none may stay writable), names with spaces escaped as the
    kernel writes them."""
    info = ("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
            "40 22 0:5 / /r rw - tmpfs tmpfs rw\n"
            "41 40 8:1 /opt/x/a.py /r/opt/x/a.py rw - ext4 /dev/sda1 rw\n"
            "42 40 8:1 /opt/x/sub /r/opt/x/my\\040dir/b.py rw - ext4 /dev/sda1 rw\n"
            "43 40 0:6 / /r/opt/xy rw - tmpfs tmpfs rw\n"
            "44 40 0:7 / /r/opt/x rw - tmpfs tmpfs rw\n")
    assert mounts.mounts_under(info, "/r/opt/x") == [
        "/r/opt/x", "/r/opt/x/a.py", "/r/opt/x/my dir/b.py"]
    assert mounts.mounts_under(info, "/nowhere") == []


@pytest.mark.usefixtures("weak_machine")
def test_recreating_replays_refuses_without_the_guarantees_too(tmp_path: Path) -> None:
    config = tournament(tmp_path, "sandbox: {accept_missing: [scratch, own_code, cpu_share]}\n"
                                  "record: {replays: none}\n")
    assert CliRunner().invoke(tournament_main, ["run", str(config)]).exit_code == 0
    strict = config.read_text().replace(
        "sandbox: {accept_missing: [scratch, own_code, cpu_share]}\n", "")
    config.write_text(strict)
    for command in (["replay", str(config), "--recreate", "--list"],
                    ["report", str(config), "--pictures", "strip"]):
        result = CliRunner().invoke(tournament_main, command)
        assert result.exit_code == 2, (command, result.output)
        assert "sandbox: {accept_missing: [scratch, own_code, cpu_share]}" in result.output


def test_recreating_replays_plays_with_the_layers_the_check_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the fourteenth hostile review: re-creating a replay played the team's code
    with no expected layers, so a sandbox that came up with fewer than the check found
    played all the same. Each re-played game's task now carries the checked layers."""
    from tournament import runner
    from tournament.config import load_config
    from tournament.recreate import recreate
    from tournament.resume import entrant_hashes
    from tournament.schedule import schedule

    config = load_config(tournament(tmp_path))
    hashes = entrant_hashes(config)
    game = schedule(config)[0]
    row = {"game_id": game.game_id, "outcome": "win", "seed": game.seed,
           "submission_hash": hashes.of(game)[0], "ghost_hash": hashes.of(game)[1]}
    handed: list[tuple[str, ...]] = []

    def play_task(task: runner.GameTask, cache: object = None) -> runner.GameOutput:
        handed.append(task.layers)
        raise KeyboardInterrupt  # what a played game would be is not this test's

    monkeypatch.setattr(runner, "play_task", play_task)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with pytest.raises(KeyboardInterrupt):
        list(recreate(config, [row], {game.game_id: game}, hashes, str(scratch), ALL))
    assert handed == [ALL]


def test_a_game_confined_less_than_the_check_found_is_not_scored(tmp_path: Path) -> None:
    assert [g.name for g in guarantees.lost(ALL, [x for x in ALL if x != "mounts"])] == [
        "scratch", "own_code"]
    assert guarantees.lost(ALL, [x for x in ALL if x != "uid"]) == []  # uid alone: no loss
    from tournament.config import load_config
    from tournament.runner import play_task, submission_hash, tasks_for
    from tournament.schedule import schedule

    config = load_config(tournament(tmp_path))
    hashes = {e.name: submission_hash(e) for e in config.entrants}
    [task] = tasks_for(config, schedule(config), hashes, "ab" * 32, layers=ALL)
    row = play_task(task).row
    if guarantees.lost(ALL, row["sandbox"].split(",")):
        # Refused at its start (no team code ran), or, failing that, after the game.
        assert row["outcome"] == "infra_error" and "the guarantees" in row["message"]
    else:
        assert row["outcome"] != "infra_error"


def test_a_team_whose_files_change_during_a_run_plays_the_files_the_run_hashed(
        tmp_path: Path) -> None:
    # Found by the fourth hostile review: a team that could write to its folder during a run
    # changed it between the hash and its games. A run now plays its snapshot of the team
    # (`tournament.bundles`), taken with the hash: the change reaches none of its games.
    from tournament.bundles import TeamCache
    from tournament.config import load_config
    from tournament.runner import Snapshots, play_task, tasks_for
    from tournament.schedule import schedule

    config = load_config(tournament(tmp_path))
    snapshots = Snapshots.take(config, TeamCache(tmp_path / "cache"))
    hashes, _ = snapshots.hashes(config)
    [task] = tasks_for(config, schedule(config), hashes, "ab" * 32, snapshots=snapshots)
    with open(tmp_path / "submissions" / "alpha" / "agent.py", "a") as fh:
        fh.write("raise SystemExit('changed during the run')\n")
    row = play_task(task, snapshots.cache).row
    assert row["outcome"] != "load_error", row["message"]
    assert row["submission_hash"] == hashes["alpha"]
    # A snapshot that is not the files the task names (a hash of other bytes) plays none, and
    # it is the platform's failure: only the platform writes its snapshots.
    wrong = {name: "0" * 16 for name in hashes}
    [task] = tasks_for(config, schedule(config), wrong, "ab" * 32, snapshots=snapshots)
    row = play_task(task, snapshots.cache).row
    assert (row["outcome"], row["culprit"]) == ("infra_error", None), row["message"]
    assert "holds other files than the run hashed" in row["message"]
    # A snapshot the cache lost (a sweep, a worker's cleanup) is the platform's failure too.
    [task] = tasks_for(config, schedule(config), hashes, "ab" * 32, snapshots=snapshots)
    shutil.rmtree(snapshots.cache.folder(task.bundles[0]))
    row = play_task(task, snapshots.cache).row
    assert (row["outcome"], row["culprit"]) == ("infra_error", None), row["message"]
    assert "is not in this worker's cache" in row["message"]


def test_a_temporary_folder_too_long_for_a_socket_is_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check binds a unix socket in TMPDIR, whose path holds at most 107 bytes: a longer
    TMPDIR (a cluster's scratch folders can be) stops with what to do, not a traceback."""
    long = tmp_path / ("d" * 60) / ("e" * 60)
    long.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    with pytest.raises(SandboxError, match="set TMPDIR to a shorter folder"):
        check.run_check()


# --- the machine's memory ---------------------------------------------------------------------

@pytest.mark.parametrize("events, own, outside", [
    ("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n", True, False),   # over its own limit
    ("low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\n", False, True),   # the machine's killer
    ("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n", False, False),  # no kill at all
    ("garbage", False, False),
])
def test_a_kill_for_the_groups_own_limit_is_told_from_the_machines(
        tmp_path: Path, events: str, own: bool, outside: bool) -> None:
    """cgroup v2 counts in `oom_kill` a kill by any out-of-memory killer, the whole machine's
    too: an agent within its limit, killed because the machine ran out, was said to have
    used more than its limit. Only `oom` (the group reached its limit) makes it `memory`;
    the other stays the agent's `killed`, said as what happened."""
    from pacman.sandbox.cgroup import AgentCgroup

    (tmp_path / "memory.events").write_text(events)
    group = AgentCgroup([tmp_path], 2)
    assert (group.out_of_memory(), group.killed_from_outside()) == (own, outside)
    assert not AgentCgroup([tmp_path / "gone"], 2).killed_from_outside()


def test_games_at_once_are_bounded_by_the_machines_memory() -> None:
    """Sandboxes at their memory limits never add up to more than the machine has, so no
    team (nor all of them together) can run it out of memory: the kernel's killer would
    take some process of the machine, not the team over its limit."""
    from tournament.runner import MEMORY_RESERVE_MIB, memory_workers

    machine = MEMORY_RESERVE_MIB + 8192
    fewer, why = memory_workers(4, 2, 2048, machine)
    assert fewer == 2
    assert "2 sandboxes of up to 2048 MiB (limits.memory_mb)" in why and str(machine) in why
    assert memory_workers(4, 1, 2048, machine) == (4, "")
    assert memory_workers(2, 2, 2048, machine) == (2, "")
    assert memory_workers(4, 0, 2048, machine) == (4, "")      # nothing sandboxed
    assert memory_workers(4, 2, None, machine) == (4, "")      # no limit to add up
    assert memory_workers(1, 1, 16384, machine)[0] == 0         # not even one game


def test_a_run_plays_no_more_games_at_once_than_memory_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pacman.sandbox import cgroup
    from tests.test_tournament_run import ACCEPT, UNAVAILABLE
    from tournament.runner import MEMORY_RESERVE_MIB

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    accept = f"sandbox: {{accept_missing: [{ACCEPT}]}}\n" if ACCEPT else ""
    config = tournament(tmp_path, accept + "limits: {memory_mb: 512}\n")
    config.write_text(config.read_text().replace("workers: 1", "workers: 2"))
    monkeypatch.setattr(cgroup, "memory_room_mib", lambda: MEMORY_RESERVE_MIB + 600)
    result = CliRunner().invoke(tournament_main, ["run", str(config)])
    assert result.exit_code == 0, result.output
    assert "1 game at once, not 2: a game holds 1 sandbox of up to 512 MiB" in result.output
    monkeypatch.setattr(cgroup, "memory_room_mib", lambda: MEMORY_RESERVE_MIB + 400)
    again = tournament(tmp_path / "again", accept + "limits: {memory_mb: 512}\n")
    result = CliRunner().invoke(tournament_main, ["run", str(again)])
    assert result.exit_code == 2 and "not one game fits in this machine's memory" in \
        result.output, result.output


def test_the_memory_room_is_the_least_of_the_machine_and_the_groups_above(
        tmp_path: Path) -> None:
    from pacman.sandbox.cgroup import GROUP, memory_room_mib

    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       8388608 kB\nMemFree:         100 kB\n")
    root = tmp_path / "cgroup"
    (root / GROUP).mkdir(parents=True)
    assert memory_room_mib(meminfo, root) == 8192
    (root / GROUP / "memory.max").write_text("max\n")
    assert memory_room_mib(meminfo, root) == 8192
    (root / GROUP / "memory.max").write_text(f"{3 * 1024 ** 3}\n")
    assert memory_room_mib(meminfo, root) == 3072
    (root / "memory" / GROUP).mkdir(parents=True)
    (root / "memory" / GROUP / "memory.limit_in_bytes").write_text(f"{2 * 1024 ** 3}\n")
    assert memory_room_mib(meminfo, root) == 2048
    assert memory_room_mib(tmp_path / "none", tmp_path / "nothing") is None
