"""Tournaments on a cluster whose workers share nothing with the organizer but the network.

`tests/cluster.py` simulates the machines: each Dask worker in namespaces of its own where
the organizer's tournament folder (config, submissions, layouts, output) and the repository's
`submissions/`, `tournaments/` and `results/` do not exist (an empty read-only tmpfs over
each), with its own working folder and host name. The first tests check that simulation
itself; the last plays the example tournament and the league with the local pool and on the
simulated cluster, one worker killed and another joining mid-run, and compares them game by
game.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import tournament
from pacman.outcomes import ENDINGS, INFRA_ERROR
from pacman.sandbox.guarantees import missing
from tests.cluster import SimulatedCluster, ended, host_name, unavailable
from tests.commands import TOURNAMENT
from tests.test_sandbox_zoo import ACTIVE, UNAVAILABLE

REPO = Path(__file__).resolve().parent.parent
#: What decides a game (timings, hosts and dates do not).
DECIDING = ("game_id", "entrant", "ghost_entrant", "submission_hash", "ghost_hash", "seed",
            "outcome", "culprit", "score", "win", "moves")
#: Which game it is: the same in both runs even where the play may differ.
IDENTITY = DECIDING[:6]
#: Built-in agents that search until a clock runs out: how deep they get, so their games,
#: depends on how busy the machine is (two local runs of the league differ in about 45 of its
#: 232 games, every one with `anytime-20ms` or `anytime-ghosts`).
CLOCKED = frozenset({"AnytimeAgent", "AnytimeGhost", "MCTSAgent"})
#: Both runs of a tournament use this secret, so they play the same games.
SECRET = "c1" * 32
#: Seconds a whole tournament run may take before the test gives up on it.
RUN_LIMIT = 900.0

CLUSTER_PROBLEM = unavailable()
pytestmark = [
    pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}"),
    pytest.mark.skipif(bool(CLUSTER_PROBLEM), reason=CLUSTER_PROBLEM),
]


# --- the organizer's folder --------------------------------------------------------------------

def organizer(root: Path, name: str) -> Path:
    """A copy of `tournaments/<name>.yaml` in an organizer's folder of its own, `root`: its
    config, submissions and layouts, and its output folder with the shared secret. Returns
    the config's path."""
    (root / "tournaments").mkdir(parents=True)
    shutil.copytree(REPO / "submissions", root / "submissions",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # The organizer's own layout files, found beside the config before the platform's.
    shutil.copytree(REPO / "layouts", root / "tournaments" / "layouts")
    text = (REPO / "tournaments" / f"{name}.yaml").read_text()
    accept = [g.name for g in missing(ACTIVE)]
    if accept:  # what this machine lacks is not what this test is about
        text = re.sub(r"(?m)^sandbox:.*\n(  .*\n)*", "", text)
        text += f"sandbox: {{accept_missing: [{', '.join(accept)}]}}\n"
    config = root / "tournaments" / f"{name}.yaml"
    config.write_text(text)
    secret = output_of(config) / ".game-secret"
    secret.parent.mkdir(parents=True)
    secret.write_text(SECRET)
    secret.chmod(0o600)
    return config


def output_of(config: Path) -> Path:
    """The config's output folder."""
    return (config.parent / yaml.safe_load(config.read_text())["output"]).resolve()


def with_scheduler(config: Path, address: str) -> None:
    """Point `config` at a Dask scheduler (its `scheduler:` line, or a new one)."""
    text = config.read_text()
    line = f"scheduler: {address}"
    text, found = re.subn(r"(?m)^scheduler:.*$", line, text)
    config.write_text(text if found else text + line + "\n")


def clocked(config: Path) -> set[str]:
    """The entrants whose agent searches to a clock (see `CLOCKED`)."""
    entrants = yaml.safe_load(config.read_text())["entrants"]
    return {b["name"] for key in ("baselines", "ghost_baselines")
            for b in entrants.get(key) or () if b["agent"] in CLOCKED}


def tournament_run(config: Path, *args: str) -> subprocess.Popen[str]:
    """`tournament run config` as the organizer starts it, from the organizer's folder."""
    return subprocess.Popen([*TOURNAMENT, "run", str(config), *args],
                            cwd=config.parent.parent, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def games(config: Path) -> dict[str, dict[str, Any]]:
    """The stored rows by game id."""
    with contextlib.closing(sqlite3.connect(output_of(config) / "results.sqlite")) as conn:
        conn.row_factory = sqlite3.Row
        return {row["game_id"]: dict(row) for row in conn.execute("SELECT * FROM games")}


def stored(database: Path) -> int:
    """How many games the organizer has stored so far (0 before the table exists)."""
    if not database.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True,
                                                timeout=5)) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet, or busy: ask again
        return 0


def files(folder: Path) -> set[str]:
    """Every file under `folder`, relative (the store's transient journal files left out)."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and not re.search(r"\.sqlite-(wal|shm|journal)$", p.name)}


# --- the simulated machines --------------------------------------------------------------------

@pytest.fixture
def hiding(tmp_path: Path) -> Iterator[tuple[SimulatedCluster, Path]]:
    """A cluster of two nodes, `a` and `b`, from which an organizer's folder is hidden."""
    config = organizer(tmp_path / "organizer", "example")
    hidden = [tmp_path / "organizer", REPO / "submissions", REPO / "tournaments"]
    with SimulatedCluster(tmp_path / "nodes", hidden=hidden) as cluster:
        cluster.add_worker("a")
        cluster.add_worker("b")
        yield cluster, config


def test_a_node_sees_the_platform_but_none_of_the_organizers_files(
        hiding: tuple[SimulatedCluster, Path]) -> None:
    cluster, config = hiding
    client = cluster.client
    on_a = [cluster.worker_address("a")]

    def on_node(function: Any, *args: Any) -> Any:
        return client.run(function, *args, workers=on_a)[on_a[0]]

    team = config.parent.parent / "submissions" / "example-team" / "team.yaml"
    layout = config.parent / "layouts" / "smallClassic.lay"
    for path in (config, team, layout, REPO / "submissions" / "example-team" / "team.yaml",
                 REPO / "tournaments" / "example.yaml"):
        assert path.is_file()  # the organizer sees it
        assert not on_node(os.path.exists, str(path)), path  # the node does not
    assert on_node(os.listdir, str(config.parent.parent)) == []
    with pytest.raises(OSError) as refused:  # nor can it write there
        on_node(os.mkdir, str(config.parent.parent / "results"))
    assert refused.value.errno == errno.EROFS
    # The installed platform is there, as on a machine where it was installed.
    assert on_node(os.path.exists, tournament.__file__)
    assert on_node(os.path.exists, sys.executable)
    # Its own machine: host name, working folder, home, temporary folder.
    folder = cluster.nodes["a"].folder
    assert on_node(socket.gethostname) == host_name("a") != socket.gethostname()
    assert on_node(os.getcwd) == str(folder)
    assert on_node(os.getenv, "HOME") == str(folder / "home")
    assert on_node(os.getenv, "TMPDIR") == str(folder / "tmp")
    on_node(os.mkdir, str(folder / "tmp" / "made-on-a"))
    assert (folder / "tmp" / "made-on-a").is_dir()


def test_a_killed_node_is_gone_and_a_new_one_joins(
        hiding: tuple[SimulatedCluster, Path]) -> None:
    cluster, _ = hiding
    assert cluster.worker_names() == {"a", "b"}
    killed = cluster.nodes["a"]
    cluster.kill_worker("a")
    assert ended(killed.pid) and killed.process.poll() is not None
    assert cluster.worker_names() == {"b"}
    cluster.add_worker("c")
    assert cluster.worker_names() == {"b", "c"}
    on_c = [cluster.worker_address("c")]
    assert cluster.client.run(socket.gethostname, workers=on_c) == {on_c[0]: host_name("c")}


def test_leaving_ends_every_process_whatever_raised(tmp_path: Path) -> None:
    pids = []
    with pytest.raises(RuntimeError, match="the test's own failure"), \
            SimulatedCluster(tmp_path / "nodes", hidden=[]) as cluster:
        for name in ("a", "b"):
            node = cluster.add_worker(name)
            pids += [node.pid, node.process.pid]
        assert cluster.scheduler is not None
        pids.append(cluster.scheduler.pid)
        assert not any(ended(pid) for pid in pids)
        raise RuntimeError("the test's own failure")
    assert all(ended(pid) for pid in pids)


# --- the proof: the same games on the pool and on the cluster ----------------------------------

def wait_for_rows(run: subprocess.Popen[str], database: Path, count: int, end: float) -> bool:
    """Wait until `count` games are stored; False if the run ended first."""
    while stored(database) < count:
        if run.poll() is not None:
            return False
        if time.monotonic() > end:
            raise TimeoutError(f"{stored(database)} of the {count} games awaited were stored "
                               f"in {RUN_LIMIT:.0f} s")
        time.sleep(0.1)
    return True


def finish(run: subprocess.Popen[str], end: float) -> tuple[int, str]:
    """The run's exit code and what it printed, once it has ended."""
    try:
        out, err = run.communicate(timeout=max(1.0, end - time.monotonic()))
    except subprocess.TimeoutExpired:
        run.kill()
        out, err = run.communicate()
        raise
    return run.returncode, out + err


@pytest.mark.slow
@pytest.mark.parametrize("name", ["example", "league"])
def test_a_cluster_that_shares_no_files_gives_the_local_pools_games(
        tmp_path: Path, name: str) -> None:
    """The tournament as it is, played by the local pool, then on two simulated nodes that
    see none of the organizer's files: node a is SIGKILLed once a quarter of the games are
    stored, c joins at half, b is SIGKILLed at three quarters (c plays the rest). Same games,
    same outcomes; the organizer alone wrote its output folder, and every replay the config
    keeps is there."""
    started = time.monotonic()
    # The local pool: the reference.
    pool_config = organizer(tmp_path / "pool", name)
    code, said = finish(tournament_run(pool_config, "--workers", "2"), started + RUN_LIMIT)
    assert code == 0, said
    reference = games(pool_config)
    total = len(reference)
    pool_time = time.monotonic() - started

    config = organizer(tmp_path / "cluster", name)
    database = output_of(config) / "results.sqlite"
    hidden = [tmp_path / "pool", tmp_path / "cluster", REPO / "submissions",
              REPO / "tournaments", REPO / "results"]
    events = []
    with SimulatedCluster(tmp_path / "nodes", hidden=hidden) as cluster:
        cluster.add_worker("a")
        cluster.add_worker("b")
        with_scheduler(config, cluster.address)
        run = tournament_run(config)
        end = time.monotonic() + RUN_LIMIT
        try:
            if wait_for_rows(run, database, total // 4, end):
                cluster.kill_worker("a")
                events.append(f"a killed at {stored(database)}")
            if wait_for_rows(run, database, total // 2, end):
                cluster.add_worker("c")
                events.append(f"c joined at {stored(database)}")
            if wait_for_rows(run, database, 3 * total // 4, end):
                # What is left is c's to play: the node that joined plays, whatever the pace.
                cluster.kill_worker("b")
                events.append(f"b killed at {stored(database)}")
            code, said = finish(run, end)
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
    cluster_time = time.monotonic() - started - pool_time
    print(f"{name}: {total} games; pool {pool_time:.0f} s, cluster {cluster_time:.0f} s; "
          f"{', '.join(events)}")
    assert code == 0, said

    got = games(config)
    assert set(got) == set(reference)
    timed = clocked(config)
    differ = []
    for gid, want in reference.items():
        row = got[gid]
        # A clocked agent's game is the same game, played as deep as the machine allowed.
        columns = IDENTITY if {row["entrant"], row["ghost_entrant"]} & timed else DECIDING
        if any(row[c] != want[c] for c in columns):
            differ.append((gid, [(c, want[c], row[c]) for c in columns if row[c] != want[c]]))
    assert not differ, f"{len(differ)} games differ, e.g. {differ[:3]}"
    for rows in (reference, got):
        assert not [gid for gid, r in rows.items() if r["outcome"] == INFRA_ERROR]
        assert not [gid for gid, r in rows.items() if {r["entrant"], r["ghost_entrant"]} & timed
                    and r["outcome"] not in ENDINGS], "a clocked agent's game was a failure"

    # Each game says which machine played it: the killed node before it died, the new one.
    assert {r["host"] for r in reference.values()} == {socket.gethostname()}
    hosts = {r["host"] for r in got.values()}
    assert hosts <= {host_name(n) for n in "abc"} and {host_name("a"), host_name("c")} <= hosts
    assert len(events) == 3, f"the run ended before the nodes were killed and joined: {events}"

    # The organizer alone wrote its output folder: the same files as the pool's run, and every
    # kept replay where its row says, for the clock-free games byte for byte the pool's.
    pool_out, out = output_of(pool_config), output_of(config)
    assert files(out) == files(pool_out)
    replays = {p.relative_to(out) for p in (out / "replays").rglob("*.json")}
    assert replays == {(out / r["replay"]).relative_to(out) for r in got.values() if r["replay"]}
    for gid, row in got.items():
        want = reference[gid]
        assert (row["replay"] is None) == (want["replay"] is None)
        if row["replay"] and not {row["entrant"], row["ghost_entrant"]} & timed:
            mine = json.loads((out / row["replay"]).read_text())
            assert mine == json.loads((pool_out / want["replay"]).read_text()), gid
