"""The game runner: determinism, fresh agents, failures as data, the move limit."""

import random
from pathlib import Path

import pytest

from pacman.game import AgentFailure, GameSpec, play
from pacman.layout import load_layout, parse_layout
from pacman.limits import UNTIMED
from pacman.loader import resolve
from pacman.outcomes import FAILURES
from pacman.replay import check, from_json, to_json
from pacman.seeds import derive_seed
from tests.conftest import TEST_AGENTS


def spec(pacman="GreedyAgent", layout="smallClassic", seed=1, **kw):
    return GameSpec(load_layout(layout), resolve(pacman), resolve("RandomGhost", kind="ghost"),
                    seed=seed, **kw)


def test_same_seed_same_game_whatever_ran_before():
    first = play(spec(seed=5))
    random.seed(123)  # disturb the global stream: the game must not care
    play(spec(seed=9))
    again = play(spec(seed=5))
    assert first.actions == again.actions
    assert first.scores == again.scores
    assert first.outcome == again.outcome


def test_different_seeds_give_different_games():
    games = {tuple(play(spec(seed=s)).actions) for s in range(5)}
    assert len(games) > 1


def test_derive_seed_is_stable_and_label_sensitive():
    assert derive_seed(1, "game", 0) == derive_seed(1, "game", 0)
    assert derive_seed(1, "game", 0) != derive_seed(1, "game", 1)
    assert 0 <= derive_seed(2**40, "x") < 2**63


def test_scores_follow_every_move_and_end_in_outcome():
    result = play(spec(seed=3))
    assert len(result.actions) == len(result.scores) == result.moves
    assert result.score == result.scores[-1]
    assert result.outcome in ("win", "loss")
    assert [i for i, _ in result.actions][:6] == [0, 1, 2, 0, 1, 2]


def test_move_limit_is_its_own_outcome():
    # Pacman with no ghosts on an open board and a LeftTurnAgent that circles forever.
    result = play(spec("LeftTurnAgent", "openClassic", num_ghosts=0, max_moves=50))
    assert result.outcome == "move_limit"
    assert result.moves == 50


def test_num_ghosts_limits_agents():
    result = play(spec(num_ghosts=1))
    assert result.num_ghosts == 1
    assert {i for i, _ in result.actions} <= {0, 1}


def test_agent_returning_none_is_a_recorded_illegal_action():
    result = play(spec(f"{TEST_AGENTS}:NoneAgent"))
    assert result.outcome == "illegal_action"
    assert result.culprit == 0
    assert "None" in result.message and "legal:" in result.message
    assert result.moves == 0 and result.score == 0


def test_crash_is_recorded_with_trace_and_ends_as_loss_at_current_score():
    result = play(spec(f"{TEST_AGENTS}:CrashAgent"))
    assert result.outcome == "crash"
    assert result.culprit == 0
    assert "ZeroDivisionError" in result.message
    assert "1 / 0" in result.trace
    assert not result.win


def test_without_catch_the_agent_failure_propagates_with_its_cause():
    with pytest.raises(AgentFailure) as info:
        play(spec(f"{TEST_AGENTS}:CrashAgent", sandbox=False), catch=False)
    assert info.value.kind == "crash" and info.value.culprit == 0
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    with pytest.raises(AgentFailure, match="returned None"):
        play(spec(f"{TEST_AGENTS}:NoneAgent"), catch=False)


def test_without_catch_a_sandboxed_failure_carries_the_agents_traceback():
    with pytest.raises(AgentFailure) as info:
        play(spec(f"{TEST_AGENTS}:CrashAgent"), catch=False)
    assert info.value.kind == "crash" and info.value.culprit == 0
    assert "ZeroDivisionError" in info.value.trace and "1 / 0" in info.value.trace
    assert info.value.result is not None and info.value.result.sandbox[0]


class _Unprintable:
    def __repr__(self):
        raise RuntimeError("no repr")

    __str__ = __repr__


class _BadError(Exception):
    def __str__(self):
        raise RuntimeError("no str")


@pytest.mark.parametrize("behaviour", ["unprintable", "bad_error", "generator_exit", "huge",
                                       "delete_food"])
def test_hostile_agents_become_recorded_failures(behaviour):
    from pacman.agents.ghosts import RandomGhost

    class Hostile:
        def getAction(self, state):
            if behaviour == "unprintable":
                return _Unprintable()
            if behaviour == "bad_error":
                raise _BadError()
            if behaviour == "generator_exit":
                raise GeneratorExit
            if behaviour == "huge":
                return "x" * 10_000_000
            del state._food
            return "Stop"

    result = play(spec(), agents=[Hostile(), RandomGhost(1), RandomGhost(2)])
    assert result.outcome in ("crash", "illegal_action")
    assert result.culprit == 0 and len(result.message) <= 300


def test_final_not_called_when_the_game_never_started():
    calls = []

    class P:
        def getAction(self, state):
            return "Stop"

        def final(self, state):
            calls.append("final")

    class BadGhost:
        def registerInitialState(self, state):
            raise ValueError("no")

        def getAction(self, state):
            return "North"

    lay = parse_layout("%%%%%\n%P.G%\n%%%%%")
    result = play(GameSpec(lay, resolve("RandomAgent"), resolve("RandomGhost", kind="ghost")),
                  agents=[P(), BadGhost()])
    assert result.outcome == "crash" and result.culprit == 1
    assert calls == []


def test_a_str_subclass_is_the_move_its_value_spells():
    # numpy.str_ (np.random.choice's answer) is such a subclass; a lying __eq__ changes
    # nothing: the value decides, and the referee records a plain str.
    class Sneaky(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    class SneakyAgent:
        def getAction(self, state):
            return Sneaky(state.getLegalActions(0)[-1])

    from pacman.agents.ghosts import RandomGhost

    result = play(spec(), agents=[SneakyAgent(), RandomGhost(1), RandomGhost(2)])
    assert result.outcome not in FAILURES and result.moves > 0
    pacman_moves = [a for i, a in result.actions if i == 0]
    assert all(type(a) is str for a in pacman_moves)


def test_lookalike_action_is_illegal():
    class LookAlike:
        def __eq__(self, other):
            return True

        def __hash__(self):
            return hash("North")

    class SneakyAgent:
        def getAction(self, state):
            return LookAlike()

    from pacman.agents.ghosts import RandomGhost

    result = play(spec(), agents=[SneakyAgent(), RandomGhost(1), RandomGhost(2)])
    assert result.outcome == "illegal_action"


def test_a_str_subclass_that_spells_no_legal_move_is_illegal():
    class Liar(str):
        def __str__(self):
            return "Stop"

    class LiarAgent:
        def getAction(self, state):
            return Liar("Sideways")

    from pacman.agents.ghosts import RandomGhost

    result = play(spec(), agents=[LiarAgent(), RandomGhost(1), RandomGhost(2)])
    assert result.outcome == "illegal_action" and "Sideways" in result.message


def test_slow_agent_times_out():
    import time

    class Slow:
        def getAction(self, state):
            time.sleep(0.05)
            return "Stop"

    from pacman.agents.ghosts import RandomGhost

    result = play(spec(limits=UNTIMED.with_changes(move_hard=0.01)),
                  agents=[Slow(), RandomGhost(1), RandomGhost(2)])
    assert result.outcome == "timeout" and result.culprit == 0
    assert result.timing[0].wall_max >= 0.05


def test_bad_constructor_option_is_a_load_error():
    bad = GameSpec(load_layout("smallClassic"),
                   resolve(f"{TEST_AGENTS}:MinimaxAgent", (("dept", "2"),)),
                   resolve("RandomGhost", kind="ghost"))
    result = play(bad)
    assert result.outcome == "load_error"
    assert "dept" in result.message and "depth" in result.message


@pytest.mark.parametrize("sandbox", [None, False])
def test_a_type_error_in_a_constructors_own_code_is_not_said_to_be_its_options(
        tmp_path: Path, sandbox: bool | None) -> None:
    """Only a call its signature refuses is an options problem: naming the options of a
    constructor whose own code raised sends the student looking in the wrong place (review
    19), sandboxed or in-process."""
    (tmp_path / "multiAgents.py").write_text(
        "from game import Agent\n\n\nclass Buggy(Agent):\n"
        "    def __init__(self, depth='2'):\n        self.table = len(None)\n")
    bad = GameSpec(load_layout("smallClassic"),
                   resolve(f"{tmp_path / 'multiAgents.py'}:Buggy", (("depth", "3"),)),
                   resolve("RandomGhost", kind="ghost"), sandbox=sandbox)
    result = play(bad)
    assert result.outcome == "load_error" and result.culprit == 0
    assert "has no len()" in result.message and "its options" not in result.message


def test_each_game_gets_a_fresh_agent():
    ref = resolve("KeyboardAgent")
    assert ref.build(0) is not ref.build(0)


def test_registered_and_final_hooks_are_called():
    calls = []

    class Hooked:
        def registerInitialState(self, state):
            calls.append(("start", state.getNumAgents()))

        def getAction(self, state):
            return state.getLegalActions(0)[0]

        def final(self, state):
            calls.append(("final", state.isTerminal() or True))

    from pacman.agents.ghosts import RandomGhost

    lay = parse_layout("%%%%%\n%P.G%\n%%%%%")
    play(GameSpec(lay, resolve("RandomAgent"), resolve("RandomGhost", kind="ghost")),
         agents=[Hooked(), RandomGhost(1)])
    assert calls[0] == ("start", 2) and calls[-1][0] == "final"


def test_result_round_trips_through_a_replay():
    result = play(spec(seed=11))
    layout = load_layout("smallClassic")
    replay = from_json(to_json(result, layout))
    assert replay.actions == tuple(result.actions)
    assert check(replay) is None


def test_directional_ghosts_chase():
    """Against DirectionalGhosts, a standing Pacman is caught sooner than by random ghosts."""
    lay = load_layout("smallClassic")
    stand = f"{TEST_AGENTS}:WandererAgent"
    lengths = {}
    for ghost in ("RandomGhost", "DirectionalGhost"):
        moves = [play(GameSpec(lay, resolve(stand), resolve(ghost, kind="ghost"),
                               seed=s)).moves for s in range(15)]
        lengths[ghost] = sum(moves) / len(moves)
    assert lengths["DirectionalGhost"] < lengths["RandomGhost"]


def test_people_read_team_and_class_names_never_paths(tmp_path):
    import json
    import shutil

    from tests.conftest import ROOT

    folder = tmp_path / "night-shift"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "zoo" / "ghost_team.py", folder / "ghostAgents.py")
    (folder / "team.yaml").write_text("name: Night Shift\nghost: ghostAgents.py:ChasingGhost\n")
    pacman = resolve(f"{TEST_AGENTS}:MinimaxAgent", (("depth", "1"),))
    game = GameSpec(load_layout("smallClassic"), pacman, resolve(str(folder), kind="ghost"),
                    seed=2, max_moves=20, sandbox=False)
    named: list[list[str]] = []

    class Recorder:
        def name_agents(self, names):
            named.append(list(names))

        def while_thinking(self):
            return None

        def initialize(self, state):
            pass

        def update(self, state, index, action):
            pass

        def finish(self, state, outcome):
            pass

    result = play(game, display=Recorder())
    expected = ["multiAgents.py:MinimaxAgent", "Night Shift (ChasingGhost)",
                "Night Shift (ChasingGhost)"]
    assert result.agents == expected and named == [expected]
    assert str(tmp_path) not in json.dumps(to_json(result, game.layout))
    assert str(TEST_AGENTS.parent) not in json.dumps(to_json(result, game.layout))
    # The summary of the `pacman` command still says where the agent came from.
    assert pacman.played_by().endswith("multiAgents.py:MinimaxAgent")


def test_an_in_process_ghosts_failure_blames_that_ghost():
    from pacman.agents.ghosts import RandomGhost

    class FailsSecond(RandomGhost):
        def getAction(self, state):
            if self.index == 2:
                raise LookupError("second ghost lost")
            return super().getAction(state)

    result = play(spec(), agents=[resolve("GreedyAgent").build(0), FailsSecond(1),
                                  FailsSecond(2)])
    assert (result.outcome, result.culprit) == ("crash", 2)
    assert "getAction raised LookupError" in result.message
    assert [i for i, _ in result.actions] == [0, 1]


def test_a_tournament_holds_built_ins_to_their_own_clock_not_the_teams_totals() -> None:
    """Found by the seventeenth hostile review: a baseline that searches on a clock spends its
    budget every move, so under the teams' game totals (`game_total`, `cpu_seconds`) it timed
    out partway, and a team that only fled won by forfeit. A tournament (`builtin_totals`
    False) holds the platform's built-ins to their own per-move budget only; the `pacman`
    command holds everyone to what it is given; a built-in playing a team's files is the
    team's and keeps the totals."""
    import dataclasses

    from pacman.game import _handles
    from pacman.limits import Limits

    limits = Limits(game_total=0.1, cpu_seconds=3, move_soft=None, move_hard=None)
    ghost = resolve("AnytimeGhost", (("budget", "0.05"), ("maxDepth", "30")), kind="ghost")
    spec = GameSpec(load_layout("smallClassic"), resolve("GreedyAgent"), ghost, num_ghosts=1,
                    seed=3, max_moves=60, limits=limits)
    held = play(spec)
    assert (held.outcome, held.culprit) == ("timeout", 1), held.message
    free = play(dataclasses.replace(spec, builtin_totals=False))
    assert free.outcome != "timeout" and free.outcome not in FAILURES, free.message
    # Sandboxed on the sources, the sandbox is given the same limits.
    clocked = dataclasses.replace(ghost, on_sources=True)
    teams = dataclasses.replace(ghost, on_sources=True, team="/teams/t")
    for ref, totals in ((clocked, (None, None)), (teams, (0.1, 3))):
        tournament = dataclasses.replace(spec, ghost=ref, builtin_totals=False)
        handle = _handles(tournament, [spec.pacman, ref], None, None, None)[1]
        given = next(a for a in handle._make.args  # type: ignore[attr-defined]
                     if isinstance(a, Limits))
        assert (given.game_total, given.cpu_seconds) == totals


def test_a_failing_final_names_whose_it_was(tmp_path: Path) -> None:
    """Found by the seventeenth hostile review: a ghost's final() raising words of its own
    ("Pacman (agent 0) ran out of time") left them as the message of a game Pacman won, with
    nothing saying whose they were. The outcome stands; the message names the ghost."""
    (tmp_path / "ghosts.py").write_text(
        "class G:\n"
        "    def __init__(self, index):\n        self.index = index\n"
        "    def getAction(self, state):\n        return state.getLegalActions(self.index)[0]\n"
        "    def final(self, state):\n"
        "        raise ValueError('Pacman (agent 0) ran out of time')\n")
    ghost = resolve(f"{tmp_path / 'ghosts.py'}:G", kind="ghost")
    spec = GameSpec(load_layout("testClassic"), resolve("GreedyAgent"), ghost, num_ghosts=1,
                    seed=1, max_moves=100, sandbox=False)
    result = play(spec)
    assert result.outcome in ("win", "loss", "move_limit") and result.culprit is None
    assert result.message.startswith("ghost 1 after the game: final() raised ValueError: "
                                     '"Pacman (agent 0)'), result.message
