"""Ghost entrants in the sandbox: a ghost team is one sandbox process for every ghost of the
game, its failures are its own (culprit on the ghost side, the Pacman side credited), it
cannot touch the Pacman side's game, and the hostile zoo is contained on the ghost side too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pacman.game import GameResult, GameSpec, play
from pacman.layout import load_layout
from pacman.loader import resolve
from pacman.outcomes import GHOSTS, culprit_side, pacman_points
from pacman.sandbox import process as sandbox_process
from pacman.sandbox.process import Placement
from tests.test_sandbox_zoo import (  # noqa: F401  (fixtures)
    ACTIVE,
    LIMITS,
    UNAVAILABLE,
    ZOO,
    Arena,
    arena,
    neighbour,
    resimulated_scores,
)
from tests.zoo.cases import CASES, Case

pytestmark = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")

GHOST_FILE = ZOO / "ghost_team.py"


def ghost_team(tmp_path: Path, **options: object) -> GameSpec:
    """GreedyAgent (in-process) against the course-style ghost team, sandboxed."""
    folder = tmp_path / "ghost-team"
    folder.mkdir(exist_ok=True)
    shutil.copy(GHOST_FILE, folder / "ghostAgents.py")
    ghost = resolve(f"{folder}/ghostAgents.py:ChasingGhost",
                    tuple((k, str(v)) for k, v in options.items()), kind="ghost")
    return GameSpec(load_layout("smallClassic"), resolve("GreedyAgent"), ghost, num_ghosts=2,
                    seed=3, max_moves=80, limits=LIMITS)


def test_a_course_ghost_plays_the_same_game_sandboxed_and_in_process(tmp_path: Path) -> None:
    spec = ghost_team(tmp_path, prob_attack="0.6")
    boxed = play(spec)
    local = play(GameSpec(**{**spec.__dict__, "sandbox": False}))
    assert boxed.outcome not in ("crash", "load_error", "infra_error"), boxed.message
    assert boxed.moves > 10
    assert (boxed.actions, boxed.scores, boxed.outcome) == (
        local.actions, local.scores, local.outcome)
    assert boxed.sandbox[1] and boxed.sandbox[2] and not local.sandbox[1]


def test_one_sandbox_process_plays_every_ghost(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[tuple[int, ...]] = []
    start = sandbox_process.AgentProcess.start

    def counted(self: sandbox_process.AgentProcess) -> None:
        started.append(self.indices)
        start(self)

    monkeypatch.setattr(sandbox_process.AgentProcess, "start", counted)
    spec = GameSpec(**{**ghost_team(tmp_path).__dict__, "num_ghosts": 3,
                       "layout": load_layout("trickyClassic")})
    result = play(spec)
    assert started == [(1, 2, 3)]
    log = result.logs[1]
    pids = {line.split(" IN ")[1] for line in log.splitlines() if line.startswith("BUILT")}
    assert [line for line in log.splitlines() if line.startswith("BUILT")] == [
        f"BUILT {i} IN {next(iter(pids))}" for i in (1, 2, 3)]
    # registerInitialState and final reach every ghost, in index order.
    assert [line for line in log.splitlines() if line.startswith(("REGISTERED", "FINAL"))] == [
        "REGISTERED 1", "REGISTERED 2", "REGISTERED 3", "FINAL 1", "FINAL 2", "FINAL 3"]
    # Each ghost's moves are counted for its own index; the team's log on the first.
    assert all(result.timing[i].moves > 0 for i in (1, 2, 3))
    assert result.logs[2] == result.logs[3] == ""


@pytest.mark.parametrize("how, outcome, words", [
    ("crash", "crash", ("getAction raised RuntimeError", "ghost 2 gave up")),
    ("illegal", "illegal_action", ("ghost 2 returned 'Jump'",)),
    ("sleep", "timeout", ("took more than 1.500s; killed",)),
])
def test_a_ghost_teams_failure_names_the_ghost_and_forfeits_the_game(
        tmp_path: Path, how: str, outcome: str, words: tuple[str, ...]) -> None:
    spec = ghost_team(tmp_path, fail_index=2, how=how, after=2)
    spec = GameSpec(**{**spec.__dict__, "limits": LIMITS.with_changes(move_hard=1.5)})
    result = play(spec)
    assert (result.outcome, result.culprit) == (outcome, 2), result.message
    for word in words:
        assert word in result.message
    # Ghost 2 made its two moves, then failed on its third.
    assert [i for i, _ in result.actions].count(2) == 2
    assert culprit_side(result.outcome, result.culprit) == GHOSTS
    assert pacman_points(result.outcome, result.culprit) == 1.0


def test_a_ghost_team_that_cannot_load_is_blamed_on_its_first_ghost(tmp_path: Path) -> None:
    spec = ghost_team(tmp_path, prob_attack="not a number")
    result = play(spec)
    assert (result.outcome, result.culprit) == ("load_error", 1), result.message
    assert pacman_points(result.outcome, result.culprit) == 1.0


PACMAN_DRAWS = (
    "import random\n"
    "class Drawer:\n"
    "    def getAction(self, state):\n"
    "        print(f'DRAW {random.random()!r}')\n"
    "        legal = [a for a in state.getLegalActions(0) if a != 'Stop']\n"
    "        return legal[0]\n"
)


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "in-process"])
def test_pacmans_random_stream_is_its_own_whatever_the_ghosts_draw(
        tmp_path: Path, sandbox: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pacman").mkdir()
    (tmp_path / "pacman" / "drawer.py").write_text(PACMAN_DRAWS)
    pacman = resolve(f"{tmp_path}/pacman/drawer.py:Drawer")
    printed: list[str] = []
    draws = []
    for ghost_draws in (0, 7):
        printed.clear()
        spec = GameSpec(**{**ghost_team(tmp_path, draws=ghost_draws, prob_attack="1.0").__dict__,
                           "pacman": pacman, "sandbox": sandbox, "max_moves": 30})
        if sandbox:
            log = play(spec).logs[0]
        else:
            with monkeypatch.context() as patched:
                patched.setattr("builtins.print", lambda *a, **k: printed.append(str(a[0])))
                play(spec)
            log = "\n".join(printed)
        draws.append([line for line in log.splitlines() if line.startswith("DRAW")])
    assert len(draws[0]) == len(draws[1]) == 10
    assert draws[0] == draws[1]


# --- the hostile zoo as a ghost team ------------------------------------------------------------

def zoo_ghosts(arena: Arena, case: Case) -> GameSpec:  # noqa: F811
    """The honest Pacman (sandboxed) against the zoo agent played as a ghost team."""
    folder = arena.team(case.name, folder=f"{case.name}-ghosts")
    shutil.copy(ZOO / "as_ghost.py", folder / "ghost.py")
    options = {k: v.format(outside=arena.outside, other=arena.teams / "other-team")
               for k, v in case.options.items()}
    ghost = resolve(f"{folder}/ghost.py:ZooGhost", tuple(options.items()), kind="ghost")
    honest = resolve(f"{arena.team('honest', folder='pacman')}/agent.py:ZooAgent")
    return GameSpec(load_layout("smallClassic"), honest, ghost, num_ghosts=2, seed=1,
                    max_moves=60, limits=LIMITS.with_changes(**case.limits))


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_zoo_played_as_ghosts_is_contained(arena: Arena, case: Case) -> None:  # noqa: F811
    if case.needs and not ACTIVE & set(case.needs):
        pytest.skip(f"needs one of the layers {', '.join(case.needs)}")
    result: GameResult = play(zoo_ghosts(arena, case),
                              placement=Placement(root=arena.sandboxes))
    if case.outcome == "plays":
        assert result.culprit is None and result.outcome in ("win", "loss", "move_limit"), (
            result.outcome, result.message)
        assert result.moves > 0 and result.scores == resimulated_scores(result)
    else:
        assert result.outcome in (case.outcome, *case.also), (result.outcome, result.message)
        # The ghost side is the culprit, and the one it names is a ghost of the game.
        assert result.culprit in (1, 2), result.culprit
        assert pacman_points(result.outcome, result.culprit) == 1.0
    if result.outcome == case.outcome != "plays":
        for word in case.words:
            assert word in result.message, result.message
        if case.one_of:
            assert any(word in result.message for word in case.one_of), result.message
    # Pacman's sandbox played on unharmed: whatever it printed, it printed in its own log.
    assert result.sandbox[0]
    # The arena fixture then checks: no process, cgroup or file left, nothing outside
    # changed, and the neighbour's next game unchanged.
