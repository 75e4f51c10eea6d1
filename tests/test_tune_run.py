"""`tournament tune` end to end, through the command: a real tiny tuning run (the smoke test
CI runs: two generations of three candidates, two games each, on testClassic) with every file
it writes checked, a second invocation that plays nothing, Ctrl-C in the middle of a run and
the resumed run that plays only what is missing (counted game by game in the store's runs),
a feature function's file played from the run's snapshot, and a team's own agent tuned in its
sandbox."""

from __future__ import annotations

import contextlib
import csv
import os
import re
import signal
import sqlite3
import subprocess
import textwrap
from pathlib import Path

import pytest

from pacman.agents.evaluation import DEFAULT_WEIGHTS, load_weights, parse_weights_text
from pacman.layout import load_layout
from pacman.state import GameState
from tests.commands import PACMAN, TOURNAMENT
from tests.test_tournament_run import stopped_midway, stored

REPO = Path(__file__).resolve().parent.parent
#: One secret for the runs that are compared: the same games in different folders.
SECRET = "7a" * 32

SMOKE = """\
name: smoke
agent: ExpectimaxAgent
evaluation: better
weights:
  food_left:
  nearest_food:
  trapped: {low: -400, high: 0}
protocol: {layout: testClassic, num_ghosts: 1, depth: 1, rules: cs221, max_moves: 400}
games: 2
objective: mean_score
budget: {generations: 2}
population: 3
seed: 3
# Wide steps: on so small a protocol, candidates near the start play the start's very games
# (common random numbers), and CMA-ES, finding the objective flat, stops by itself.
sigma: 2
comparison: {games: 2}
workers: 2
output: out
"""


def tournament(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([*TOURNAMENT, *args], cwd=cwd,
                         capture_output=True, text=True, timeout=600)
    if check:
        assert out.returncode == 0, out.stdout + out.stderr
    return out


def runs(database: Path) -> list[tuple[str, int]]:
    """(how it ended, games it stored) per run, in order. (Closed after: `with` on a sqlite3
    connection only commits, and an open one keeps the store's write-ahead log beside it.)"""
    with contextlib.closing(sqlite3.connect(database)) as conn:
        return conn.execute("SELECT ended, games FROM runs ORDER BY run_id").fetchall()


def accept_missing() -> str:
    """The config line accepting the sandbox guarantees this machine lacks (feature functions
    and team agents play sandboxed; the refusal is tested in test_sandbox_guarantees.py); the
    test is skipped where no sandbox starts."""
    from tests.test_tournament_run import ACCEPT, UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    return f"sandbox: {{accept_missing: [{ACCEPT}]}}\n" if ACCEPT else ""


def table(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_tiny_tuning_run_writes_its_results_and_a_second_plays_nothing(
        tmp_path: Path) -> None:
    (tmp_path / "tune.yaml").write_text(SMOKE)
    first = tournament("tune", "tune.yaml", cwd=tmp_path).stdout
    out = tmp_path / "out"
    assert "generation 1/2: best" in first and "generation 2/2: best" in first
    assert "tuned against start on 2 fresh games" in first
    # The start, 2 generations x 3 candidates and the final mean, 2 games each; 2 each for
    # start and tuned.
    assert runs(out / "results.sqlite") == [("finished", 20)]
    assert "start: " in first and "on the games every candidate plays" in first
    candidates = table(out / "candidates.csv")
    assert [c["entrant"] for c in candidates] == [
        "g0000-c00", "g0000-c01", "g0000-c02", "g0001-c00", "g0001-c01", "g0001-c02",
        "final-mean"]
    assert all(c["games"] == "2" for c in candidates)
    *tried, final = candidates
    assert (final["generation"], final["candidate"]) == ("2", "")
    generations = table(out / "generations.csv")
    assert [g["generation"] for g in generations] == ["0", "1"]
    best_row = max(tried, key=lambda c: (float(c["objective"]), -tried.index(c)))
    assert generations[-1]["best_so_far"] == best_row["objective"]
    # weights.yaml: the search's final mean (result: mean, the default) over better's own
    # weights, every feature listed.
    weights = load_weights(out / "weights.yaml")
    assert list(weights) == list(DEFAULT_WEIGHTS)
    for name in ("food_left", "nearest_food", "trapped"):
        assert weights[name] == float(final[name])
    assert weights["ghost_threat"] == DEFAULT_WEIGHTS["ghost_threat"]
    assert -400 <= weights["trapped"] <= 0
    assert "the search's final mean (final-mean)" in (out / "weights.yaml").read_text()
    comparison = table(out / "comparison.csv")
    assert [c["statistic"] for c in comparison] == ["mean_score", "win_rate",
                                                    "mean_score_wins"]
    assert all((c["games"], c["start_failures"], c["tuned_failures"]) == ("2", "0", "0")
               for c in comparison)
    # Two fresh games: played and shown, but too few pairs for an interval or a verdict.
    assert all(c["verdict"] == "no improvement (2 pairs of games; an interval needs 30)"
               and c["low"] == c["high"] == "" for c in comparison), comparison
    assert f"mean score: {comparison[0]['verdict']}" in first
    assert (out / "objective.svg").read_text().startswith("<svg")
    # The weights play as they are written.
    played = subprocess.run(
        [*PACMAN, "-l", "testClassic", "-p", "ExpectimaxAgent",
         "-a", f"depth=1,evalFn=better,weights={out / 'weights.yaml'}", "-k", "1", "-q", "-n",
         "1", "--max-moves", "400"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    kept = {name: (out / name).read_bytes() for name in ("weights.yaml", "comparison.csv",
                                                          "candidates.csv")}
    tournament("tune", "tune.yaml", cwd=tmp_path)
    assert runs(out / "results.sqlite") == [("finished", 20), ("finished", 0)]
    assert {name: (out / name).read_bytes() for name in kept} == kept
    # Other settings are refused before any game, named by the tune file's own keys.
    (tmp_path / "tune.yaml").write_text(SMOKE.replace("max_moves: 400", "max_moves: 300"))
    before = (out / "results.sqlite").read_bytes()
    refused = tournament("tune", "tune.yaml", cwd=tmp_path, check=False)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "other settings: protocol.max_moves (400, now 300);" in refused.stderr
    assert (out / "results.sqlite").read_bytes() == before


#: A feature function that takes at least half a millisecond a call, whatever the machine:
#: a game (about 1,500 calls) then takes at least 0.75 s, so the 34 games after the fifth
#: stored one take at least 12 s on two workers, far longer than the test takes to send
#: Ctrl-C once it sees the fifth. (It plays in the sandbox, which sees no file of the test's,
#: so a flag file cannot hold it.)
SLOW_FEATURES = """\
import time

def phi(state):
    time.sleep(0.0005)
    return {"score": state.getScore(), "dots": state.getNumFood(),
             "ghost_near": min(abs(state.getPacmanPosition()[0] - g[0])
                               + abs(state.getPacmanPosition()[1] - g[1])
                               for g in state.getGhostPositions())}
"""

RESUMABLE = """\
name: resumable
evaluation: {{features: feats.py:phi}}
weights:
  score: {{start: 1, scale: 0.2}}
  dots: -10
  ghost_near: 2
protocol:
  layout: testClassic
  num_ghosts: 1
  depth: 1
  max_moves: 400
  limits: {{move_soft: null, move_hard: null}}
games: 3
budget: {{generations: 3}}
population: 3
seed: 5
sigma: 2
comparison: {{games: 3}}
workers: 2
output: out
secret_file: {secret}
"""


def resumable(parent: Path, secret: Path) -> Path:
    # The feature file's folder is named alike in both runs: a snapshot is named by its
    # folder (and its content), which is part of every candidate's hash.
    folder = parent / "run"
    folder.mkdir(parents=True)
    (folder / "feats.py").write_text(SLOW_FEATURES)
    (folder / "tune.yaml").write_text(RESUMABLE.format(secret=secret) + accept_missing())
    return folder


def test_ctrl_c_keeps_what_is_stored_and_the_same_command_resumes_without_replaying(
        tmp_path: Path) -> None:
    """Ctrl-C after the fifth stored game (the feature function is slow enough that the run
    cannot end first, `SLOW_FEATURES`) stops the run. The resumed run plays only the missing
    games (the runs' counts add up to the games stored, each stored once) and ends where an
    uninterrupted run with the same secret ends."""
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    reference = resumable(tmp_path / "reference", secret)
    tournament("tune", "tune.yaml", cwd=reference)
    folder = resumable(tmp_path / "interrupted", secret)
    database = folder / "out" / "results.sqlite"
    # An earlier run's results in the folder (review 20: a changed config's run, stopped
    # midway, left them beside its own candidates.csv, as if they were its result).
    (folder / "out").mkdir()
    for name in ("comparison.csv", "weights.yaml"):
        (folder / "out" / name).write_text((reference / "out" / name).read_text())
    proc, out = stopped_midway(["tune", "tune.yaml"], folder,
                               lambda: stored(database) >= 5, "fifth stored game")
    assert proc.returncode == 130, out
    assert "run the same command again to go on from there" in out
    (ended, kept), = runs(database)
    assert ended == "stopped" and 5 <= kept == stored(database) < 39
    assert "removed the last run's weights.yaml and comparison.csv" in out
    assert not (folder / "out" / "weights.yaml").exists()
    assert not (folder / "out" / "comparison.csv").exists()
    tournament("tune", "tune.yaml", cwd=folder)
    total = (1 + 3 * 3 + 1) * 3 + 2 * 3  # start, candidates, final mean; comparison
    assert runs(database) == [("stopped", kept), ("finished", total - kept)]
    assert stored(database) == total  # each game stored once: none played twice
    for name in ("candidates.csv", "comparison.csv", "weights.yaml"):
        assert (folder / "out" / name).read_text() == (reference / "out" / name).read_text()
    weights = (folder / "out" / "weights.yaml").read_text()
    assert "For features=feats.py:phi." in weights
    # After an update of the platform's code, the stored games are not the tuning's: the
    # same command says so and plays each again; the same code ends where it ended.
    with contextlib.closing(sqlite3.connect(database)) as conn, conn:
        conn.execute("UPDATE games SET version = '0.1.0'")
    again = tournament("tune", "tune.yaml", cwd=folder)
    assert (f"{total} stored games were played by another version of the platform (0.1.0) "
            "than this one") in " ".join(again.stdout.split())
    assert runs(database)[-1] == ("finished", total)
    for name in ("candidates.csv", "comparison.csv", "weights.yaml"):
        assert (folder / "out" / name).read_text() == (reference / "out" / name).read_text()


TEAM_AGENT = """\
class TunedAgent:
    \"\"\"Goes for food first and away from ghosts, as its weights say; with a `ghost` weight
    above 5, it crashes at its first move.\"\"\"

    def __init__(self, weights=""):
        pairs = [part.split(":") for part in weights.split(";") if part]
        self.weights = {name: float(value) for name, value in pairs}
        print("weights", sorted(self.weights.items()))

    def getAction(self, state):
        if self.weights["ghost"] > 5:
            raise RuntimeError("too bold")
        legal = [a for a in state.getLegalActions(0) if a != "Stop"] or ["Stop"]

        def value(action):
            after = state.generateSuccessor(0, action)
            x, y = after.getPacmanPosition()
            ghost = min(abs(x - gx) + abs(y - gy) for gx, gy in after.getGhostPositions())
            return (self.weights["food"] * after.getNumFood()
                    + self.weights["ghost"] * min(ghost, 3) + after.getScore())

        return max(legal, key=value)
"""


def test_sigterm_before_the_first_game_stops_as_ctrl_c_and_leaves_nothing(
        tmp_path: Path) -> None:
    """SIGTERM (`kill`, `timeout`, a scheduler) stops the command as Ctrl-C does: exit 130,
    and since no game was stored, the output folder it made is removed. (Each game takes at
    least 15 s, 1,500 calls of a function that sleeps 10 ms, so none can end between the
    store's appearing and the signal.) Python's default would die at once, leaving an empty
    store and its folder."""
    accept = accept_missing()
    (tmp_path / "feats.py").write_text(SLOW_FEATURES.replace("0.0005", "0.01"))
    (tmp_path / "tune.yaml").write_text(RESUMABLE.format(secret=tmp_path / "secret")
                                        .replace("output: out", "output: deep/out") + accept)
    store = tmp_path / "deep" / "out" / "results.sqlite"
    proc, out = stopped_midway(["tune", "tune.yaml"], tmp_path, store.exists, "the store",
                               signal.SIGTERM)
    assert proc.returncode == 130, out
    assert "stopped before any game was stored; nothing is kept" in out
    assert not (tmp_path / "deep").exists(), out


def test_a_teams_own_agent_is_tuned_in_its_sandbox(tmp_path: Path) -> None:
    accept = accept_missing()
    # A team folder under a folder whose name holds a colon: its path is taken whole, never
    # split as `file.py:Class`.
    tmp_path = tmp_path / "co:lon"
    team = tmp_path / "team"
    team.mkdir(parents=True)
    (team / "myAgents.py").write_text(TEAM_AGENT)
    (team / "team.yaml").write_text("agent: myAgents.py:TunedAgent\n")
    (tmp_path / "tune.yaml").write_text(textwrap.dedent("""\
        name: team
        agent: team
        weights: {food: -10, ghost: 5}
        protocol: {layout: testClassic, num_ghosts: 1, max_moves: 200}
        games: 1
        budget: {generations: 1}
        population: 4
        comparison: {games: 2}
        result: best
        workers: 2
        output: out
        """) + accept)
    first = tournament("tune", "tune.yaml", cwd=tmp_path).stdout
    assert "sandbox layers on:" in first
    out = tmp_path / "out"
    assert runs(out / "results.sqlite") == [("finished", 9)]
    with sqlite3.connect(out / "results.sqlite") as conn:
        layers = {row[0] for row in conn.execute("SELECT sandbox FROM games")}
    assert "" not in layers  # every game played sandboxed
    candidates = table(out / "candidates.csv")
    # Each candidate's own weights reached the team's agent (its log says what it got).
    for row in candidates:
        log = (out / "logs" / row["entrant"] / "testClassic" / "d-" / "RandomGhost1" /
               "classic" / "0.log").read_text()
        expected = sorted({"food": float(row["food"]), "ghost": float(row["ghost"])}.items())
        assert f"weights {expected}" in log
    # Candidates whose agent crashed have no value and rank last, however they scored.
    crashed = [row for row in candidates if float(row["ghost"]) > 5]
    played = [row for row in candidates if float(row["ghost"]) <= 5]
    assert crashed and played
    for row in crashed:
        assert (row["failures"], row["feasible"], row["objective"]) == ("1", "False", "")
    assert all((row["failures"], row["feasible"]) == ("0", "True") for row in played)
    # result: best: the best candidate's own weights, and no final mean played.
    best = max(played, key=lambda c: (float(c["objective"]), -candidates.index(c)))
    assert load_weights(out / "weights.yaml", None) == {"food": float(best["food"]),
                                                        "ghost": float(best["ghost"])}
    assert f"candidate {best['entrant']}. For agent team." in \
        (out / "weights.yaml").read_text()
    # The team's agent reads its option itself, in a sandbox that shows it no file of ours: the
    # header says the option to play them with, and it plays.
    use = re.search(r"^# Play them with: -a '(weights=.*)'$", (out / "weights.yaml").read_text(),
                    re.M)
    assert use, (out / "weights.yaml").read_text()
    assert parse_weights_text(use[1].partition("=")[2], None) == load_weights(
        out / "weights.yaml", None)
    played = subprocess.run([*PACMAN, "-l", "testClassic", "-p", "team", "-a", use[1], "-k",
                             "1", "-q", "-n", "1", "--seed", "1"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert played.returncode == 0 and "Average Score:" in played.stdout, played.stderr
    # A change to the team's file makes its games stale: played again, not taken as stored.
    (team / "myAgents.py").write_text(TEAM_AGENT + "\n# changed\n")
    tournament("tune", "tune.yaml", cwd=tmp_path)
    assert runs(out / "results.sqlite") == [("finished", 9), ("finished", 9)]


FEATURES = """\
def phi(state):
    return {"score": state.getScore(), "dots": state.getNumFood()}
"""


def test_on_dask_a_feature_function_travels_in_the_runs_snapshot(tmp_path: Path) -> None:
    """The candidates name the feature function by its place in the run's snapshot
    (`<digest>/<folder>/feats.py:phi`), which no worker's folder holds: a Dask worker plays
    it from the bundle it was sent, and the games are those of the local pool."""
    distributed = pytest.importorskip("distributed")
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    results = {}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        for where in ("pool", "dask"):
            folder = tmp_path / where / "run"
            folder.mkdir(parents=True)
            (folder / "feats.py").write_text(FEATURES)
            scheduler = f"scheduler: {cluster.scheduler_address}\n" if where == "dask" else ""
            (folder / "tune.yaml").write_text(textwrap.dedent(f"""\
                name: travels
                evaluation: {{features: feats.py:phi}}
                weights: {{score: {{start: 1, scale: 0.2}}, dots: -10}}
                protocol: {{layout: testClassic, num_ghosts: 1, depth: 1, max_moves: 300}}
                games: 2
                budget: {{generations: 1}}
                population: 2
                comparison: {{games: 2}}
                output: out
                secret_file: {secret}
                """) + scheduler + accept_missing())
            log = tournament("tune", "tune.yaml", cwd=folder).stdout
            assert ("Dask cluster at" in log) == (where == "dask")
            with sqlite3.connect(folder / "out" / "results.sqlite") as conn:
                assert conn.execute("SELECT count(*) FROM games WHERE outcome IN "
                                    "('win', 'loss', 'move_limit')").fetchone() == (12,)
            results[where] = (folder / "out" / "candidates.csv").read_text()
    assert results["dask"] == results["pool"]


def test_a_feature_function_that_ends_its_process_mid_game_is_the_agents_crash(
        tmp_path: Path) -> None:
    """A feature function runs in the built-in agent's sandbox: one that ends its process on
    any state but the start passes the check (on the start state), then crashes each game
    at Pacman's first move, whatever the ghosts do (the run's secret is new each time),
    stored as the agent's `crash` (culprit 0), never as the worker's `infra_error` that the
    ranking leaves out; a generation of nothing but its failures stops the run (exit 1)."""
    accept = accept_missing()
    start = GameState.initial(load_layout("testClassic"), 1, "classic")
    (tmp_path / "feats.py").write_text(
        "import os\n\n"
        "def phi(state):\n"
        f"    if state.getPacmanPosition() != {start.getPacmanPosition()!r}:\n"
        "        os._exit(3)\n"
        "    return {'score': state.getScore(), 'dots': state.getNumFood()}\n")
    (tmp_path / "tune.yaml").write_text(textwrap.dedent("""\
        name: ends
        evaluation: {features: feats.py:phi}
        weights: {score: 1, dots: -10}
        protocol: {layout: testClassic, num_ghosts: 1, depth: 1, max_moves: 300}
        games: 2
        budget: {generations: 1}
        population: 2
        comparison: {games: 2}
        output: out
        """) + accept)
    out = tournament("tune", "tune.yaml", cwd=tmp_path, check=False)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "crash: " in out.stderr and "exited with status 3" in out.stderr, out.stderr
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as conn:
        played = conn.execute("SELECT outcome, culprit, sandbox != '' FROM games").fetchall()
    assert played and set(played) == {("crash", 0, 1)}


def test_an_edited_feature_module_makes_its_games_stale(tmp_path: Path) -> None:
    """A feature function named by module (`featmod:phi`, found on the import path) plays as
    its source file does: from the run's snapshot, in the sandbox, its games keyed by its
    content, so a second run plays nothing and one after the module changed plays every game
    again rather than taking the old module's as stored."""
    module = tmp_path / "lib" / "featmod.py"
    module.parent.mkdir()
    module.write_text(FEATURES)
    (tmp_path / "tune.yaml").write_text(textwrap.dedent("""\
        name: module
        evaluation: {features: "featmod:phi"}
        weights: {score: {start: 1, scale: 0.2}, dots: -10}
        protocol: {layout: testClassic, num_ghosts: 1, depth: 1, max_moves: 200}
        games: 1
        budget: {generations: 1}
        population: 2
        comparison: {games: 2}
        output: out
        """) + accept_missing())
    env = {**os.environ, "PYTHONPATH": str(module.parent)}

    def tune() -> None:
        out = subprocess.run([*TOURNAMENT, "tune", "tune.yaml"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
        assert out.returncode == 0, out.stdout + out.stderr

    tune()
    tune()
    database = tmp_path / "out" / "results.sqlite"
    assert runs(database) == [("finished", 8), ("finished", 0)]
    with contextlib.closing(sqlite3.connect(database)) as conn:
        assert conn.execute("SELECT count(*) FROM games WHERE sandbox = ''").fetchone() == (0,)
    assert "For features=featmod.py:phi." in (tmp_path / "out" / "weights.yaml").read_text()
    module.write_text(FEATURES + "\n# changed\n")
    tune()
    assert runs(database)[-1] == ("finished", 8)


def test_candidates_meet_the_same_ghosts_on_the_same_seed(tmp_path: Path) -> None:
    """Common random numbers: on testClassic (no capsule) the capsule weights never change a
    move, so candidates that differ only there must play identical games, random ghosts
    included: the same scores as the start, and comparison differences of exactly 0. (With
    each candidate's streams keyed by its own submission, as tournaments key entrants, their
    random ghosts drew apart and so did the scores.)"""
    (tmp_path / "tune.yaml").write_text(
        "name: crn\nagent: ExpectimaxAgent\nevaluation: better\n"
        "weights:\n  capsules_left: {start: -600, scale: 300}\n"
        "  edible_with_capsule: {start: 100, scale: 300}\n"
        "protocol: {layout: testClassic, num_ghosts: 1, depth: 1, rules: cs221, "
        "max_moves: 400}\n"
        "games: 6\nobjective: mean_score\nbudget: {generations: 1}\npopulation: 4\nseed: 5\n"
        "comparison: {games: 6}\nworkers: 2\noutput: out\n")
    tournament("tune", "tune.yaml", cwd=tmp_path)
    out = tmp_path / "out"
    candidates = table(out / "candidates.csv")
    assert len(candidates) == 5  # 4 candidates and the final mean
    assert len({c["capsules_left"] for c in candidates}) == 5  # different weights, ...
    assert len({c["mean_score"] for c in candidates}) == 1  # ... the same games
    scores = sqlite3.connect(out / "results.sqlite").execute(
        "SELECT entrant, seed, score, moves FROM games").fetchall()
    by_game: dict[int, set[tuple[float, int]]] = {}
    for _, seed, score, moves in scores:
        by_game.setdefault(seed, set()).add((score, moves))
    assert len(by_game) == 12  # the tuning's 6 seeds and the comparison's 6
    assert all(len(found) == 1 for found in by_game.values())
    assert len({next(iter(found)) for found in by_game.values()}) > 1  # the ghosts do vary
    comparison = table(out / "comparison.csv")
    assert all(float(c["difference"]) == 0 for c in comparison)


def test_a_second_tuning_may_not_replace_the_games_of_another_in_its_folder(
        tmp_path: Path) -> None:
    """Two tune files share candidate names, so the second would mark the first's games stale
    and replace them; it is refused (its attempt is in the runs table), and the first's games
    are left as they were."""
    (tmp_path / "tune.yaml").write_text(SMOKE)
    tournament("tune", "tune.yaml", cwd=tmp_path)
    database = tmp_path / "out" / "results.sqlite"

    def games() -> list[tuple[object, ...]]:
        with sqlite3.connect(database) as conn:
            return conn.execute("SELECT * FROM games ORDER BY game_id").fetchall()

    before = games()
    (tmp_path / "other.yaml").write_text(SMOKE.replace("name: smoke", "name: other"))
    refused = tournament("tune", "other.yaml", cwd=tmp_path, check=False)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert ("holds the games of tuning 'smoke'; tuning 'other' would replace them"
            in refused.stderr)
    assert games() == before and len(before) == 20


CUP_CONFIG = """\
name: cup
entrants:
  baselines: [{name: start, agent: GreedyAgent}]
grid: {layouts: [testClassic]}
games_per_cell: 2
output: out
"""


def test_a_tuning_and_a_tournament_may_not_share_a_results_folder(tmp_path: Path) -> None:
    """A tournament's entrant may be named as a tuning's candidates are (`start`), so either
    run would mark the other's games stale and replace them: each refuses the other's folder,
    naming it, and leaves its games as they were."""
    for first, second in (("cup.yaml", "tune.yaml"), ("tune.yaml", "cup.yaml")):
        folder = tmp_path / first.removesuffix(".yaml")
        folder.mkdir()
        (folder / "tune.yaml").write_text(SMOKE)
        (folder / "cup.yaml").write_text(CUP_CONFIG)
        tournament("run" if first == "cup.yaml" else "tune", first, cwd=folder)
        database = folder / "out" / "results.sqlite"
        with sqlite3.connect(database) as conn:
            before = conn.execute("SELECT * FROM games ORDER BY game_id").fetchall()
        refused = tournament("run" if second == "cup.yaml" else "tune", second, cwd=folder,
                             check=False)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        held = ("a tournament's games; tuning 'smoke'" if first == "cup.yaml"
                else "the games of tuning 'smoke'; a tournament's games")
        assert f"results.sqlite: holds {held}" in refused.stderr
        with sqlite3.connect(database) as conn:
            assert conn.execute("SELECT * FROM games ORDER BY game_id").fetchall() == before
        assert before
