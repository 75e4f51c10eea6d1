"""The course's `util`, `game` and agent API, as student code uses them."""

import random
import subprocess
import sys

import pytest

from pacman.compat import util
from pacman.layout import load_layout
from pacman.state import GameState


def test_counter_defaults_arithmetic_and_sorted_keys():
    c = util.Counter()
    assert c["missing"] == 0
    c["a"], c["b"], c["c"] = 3, 1, 2
    # Reading a missing key stores it with 0, as the course's Counter does.
    assert c.sortedKeys() == ["a", "c", "b", "missing"]  # broken in the course's Python 3 port
    assert c.argMax() == "a"
    assert c.totalCount() == 6
    d = util.Counter({"a": 1, "b": 1})
    assert c * d == 4
    assert (c + d)["a"] == 4 and (c - d)["b"] == 0
    c.normalize()
    assert abs(sum(c.values()) - 1.0) < 1e-12


def test_lookup_finds_names_in_a_namespace_and_dotted_paths():
    def better():
        return 1

    assert util.lookup("better", {"better": better}) is better
    assert util.lookup("os.path.join", {}) is __import__("os").path.join
    with pytest.raises(Exception, match="not found"):
        util.lookup("nope", {})


def test_sample_uses_sorted_keys_and_one_draw():
    dist = util.Counter({"West": 0.5, "East": 0.5})
    rng = random.Random(0)
    draw = random.Random(0).random()
    expected = "East" if draw <= 0.5 else "West"  # sorted: East first
    assert util.sample(dist, rng=rng) == expected


def test_random_ghost_fast_path_matches_course_sampling():
    from pacman.agents.ghosts import GhostAgent, RandomGhost

    state = GameState.initial(load_layout("mediumClassic"))
    for seed in range(50):
        fast = RandomGhost(1)
        fast.rng = random.Random(seed)
        slow = RandomGhost(1)
        slow.rng = random.Random(seed)
        # The generic course path: build the distribution, sample it.
        assert fast.getAction(state) == GhostAgent.getAction(slow, state)
        state = state.generateSuccessor(0, state.getLegalActions(0)[seed % 2])
        if state.isTerminal():
            break


def test_priority_queue_and_stack():
    pq = util.PriorityQueue()
    for item, p in [("c", 3), ("a", 1), ("b", 2), ("a2", 1)]:
        pq.push(item, p)
    assert [pq.pop() for _ in range(4)] == ["a", "a2", "b", "c"]
    st = util.Stack()
    st.push(1)
    st.push(2)
    assert st.pop() == 2 and not st.isEmpty()


def test_state_api_members():
    s = GameState.initial(load_layout("smallClassic"))
    assert s.getLegalActions() == s.getLegalPacmanActions() == ["West", "Stop", "East"]
    assert s.getPacmanPosition() == (9, 1)
    assert s.getGhostPositions() == [s.getGhostPosition(1), s.getGhostPosition(2)]
    assert s.getNumAgents() == 3 and s.getScore() == 0.0
    assert s.getNumFood() == 55 == s.getFood().count() == len(s.getFood().asList())
    assert s.hasWall(0, 0) and not s.hasWall(9, 1) and s.hasFood(1, 1)
    pac = s.getPacmanState()
    assert pac.isPacman and pac.getPosition() == (9, 1) and pac.getDirection() == "Stop"
    assert pac.start.pos == (9, 1) and pac.configuration.pos == (9, 1)
    ghost = s.getGhostStates()[0]
    assert not ghost.isPacman and ghost.scaredTimer == 0
    assert s.deepCopy() == s and hash(s.deepCopy()) == hash(s)
    assert s.generatePacmanSuccessor("West") == s.generateSuccessor(0, "West")
    assert s.data.layout.width == 20 and s.data.score == 0
    # Changing a handed-out view changes no state.
    pac.scaredTimer = 99
    s.getFood().copy()[1][1] = False
    s.getFood()[1][1] = False  # type: ignore[index]
    assert s.getPacmanState().scaredTimer == 0 and s.hasFood(1, 1)
    assert "Score: 0" in str(s)


def test_from_pacman_import_gamestate_and_course_modules():
    from pacman import GameState as Exported
    from pacman.compat import game

    assert Exported is GameState
    assert game.Directions.LEFT["North"] == "West"
    assert game.Actions.reverseDirection("East") == "West"
    assert game.Actions.vectorToDirection((0, -1)) == "South"


def test_engine_never_imports_pygame_and_leaves_generic_names_alone():
    code = (
        "import sys\n"
        "import pacman, pacman.game, pacman.cli, pacman.replay, pacman.loader, pacman.state\n"
        "from pacman.display import make_display\n"
        "make_display('quiet'); make_display('text')\n"
        "assert 'pygame' not in sys.modules, 'pygame was imported'\n"
        "assert 'util' not in sys.modules and 'game' not in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_keyboard_agent_follows_keys_and_keeps_going():
    from pacman.agents.keyboard import KeyboardAgent
    from pacman.display import keys

    s = GameState.initial(load_layout("smallClassic"))
    agent = KeyboardAgent()
    keys.reset()
    assert agent.getAction(s) == "Stop"
    keys.publish(frozenset(), {"Left"})
    assert agent.getAction(s) == "West"
    keys.publish(frozenset(), set())
    assert agent.getAction(s) == "West"  # keeps its direction without a key
    keys.publish(frozenset({"d"}), set())
    assert agent.getAction(s) == "East"
    keys.publish(frozenset({"Up"}), set())  # a wall north: keep going East
    assert agent.getAction(s) == "East"
    keys.reset()


def test_course_file_importing_directions_from_pacman_runs():
    from pacman.game import GameSpec, play
    from pacman.loader import resolve
    from tests.conftest import ROOT

    ref = resolve(f"{ROOT / 'tests' / 'agents' / 'courseAgents.py'}:CourseStyleAgent")
    result = play(GameSpec(load_layout("smallClassic"), ref, resolve("RandomGhost", kind="ghost"),
                           seed=1))
    assert result.outcome in ("win", "loss") and result.moves > 0


def test_counter_addition_keeps_the_course_key_order():
    a = util.Counter({"x": 1, "y": 2})
    b = util.Counter({"z": 3, "x": 1})
    assert list(a + b) == ["x", "y", "z"]
    assert list(a - b) == ["x", "y", "z"] and (a - b)["z"] == -3


# --- course internals that course code and autograders read ---------------------------------

# %%%%%%%%
# %Po G..%   Pacman (1,1), capsule (2,1), empty (3,1), ghost 1 (4,1), food (5,1) (6,1)
# %%%%%%%%
SCARED = "%%%%%%%%\n%Po G..%\n%%%%%%%%"


def scared_start() -> GameState:
    from pacman.layout import parse_layout

    return GameState.initial(parse_layout(SCARED, name="scared"))


def test_eaten_marks_a_ghost_eaten_in_pacmans_move_until_pacman_moves_again():
    s = scared_start()
    assert s.data._eaten == [False, False]
    s = s.generateSuccessor(0, "East").generateSuccessor(1, "West")  # capsule; ghost to 3.5
    assert s.data._eaten == [False, False]
    s = s.generateSuccessor(0, "East")  # Pacman to (3,1), 0.5 from the scared ghost: eaten
    assert s.getGhostPosition(1) == (4, 1) and s.getScore() == 198
    assert s.data._eaten == [False, True]
    # The course keeps the mark through the ghosts' moves and clears it at Pacman's next.
    s = s.generateSuccessor(1, "East")
    assert s.data._eaten == [False, True]
    s = s.generateSuccessor(0, "West")
    assert s.data._eaten == [False, False]


def test_eaten_marks_a_scared_ghost_that_moves_onto_pacman():
    s = scared_start()
    for agent, action in [(0, "East"), (1, "West"), (0, "Stop"), (1, "West"), (0, "Stop")]:
        s = s.generateSuccessor(agent, action)
    before = s
    assert before.data._eaten == [False, False]
    s = s.generateSuccessor(1, "West")  # ghost from (3,1) to (2.5,1): 0.5 from Pacman, eaten
    assert s.getScore() == -3 + 200
    assert s.data._eaten == [False, True]
    assert s.deepCopy().data._eaten == [False, True]
    # The course's list is shared with the state before (and its other successors), which a
    # ghost's move then marks too; here states are values and the state before is unchanged.
    assert before.data._eaten == [False, False]


def test_deep_copy_is_a_distinct_equal_state_with_the_same_hash():
    s = scared_start().generateSuccessor(0, "East")
    copy = s.deepCopy()
    assert copy is not s
    assert copy == s and hash(copy) == hash(s)
    assert {s: "seen"}[copy] == "seen"
    assert copy.getLegalActions(1) == s.getLegalActions(1)
    assert copy.generateSuccessor(1, "West") == s.generateSuccessor(1, "West")
    with pytest.raises(AttributeError):
        copy._score = 5  # type: ignore[misc]
    assert s.getScore() == -1


@pytest.fixture
def explored():
    """`GameState.getAndResetExplored`, switched off again after the test (tests share a
    process; recording would otherwise go on for every later test)."""
    from pacman import state as state_module

    yield GameState.getAndResetExplored
    state_module.stop_recording_explored()


def key(s: GameState) -> tuple:
    """A state's identity as the course compares states, read through the public API."""
    agents = tuple((a.getPosition(), a.getDirection(), a.scaredTimer)
                   for a in [s.getPacmanState(), *s.getGhostStates()])
    return agents, tuple(s.getFood().asList()), tuple(s.getCapsules()), s.getScore()


def test_get_and_reset_explored_counts_what_a_search_generated(explored):
    start = GameState.initial(load_layout("smallClassic"))
    start.generateSuccessor(0, "West")  # before anyone asked: not recorded
    assert explored() == set()
    # A depth-2 minimax as a student writes it, the way the course's autograder counts it.
    seen = {key(start)}
    calls = 0

    def value(s: GameState, ply: int) -> float:
        nonlocal calls
        agent = ply % s.getNumAgents()
        if ply == 2 * s.getNumAgents() or s.isWin() or s.isLose():
            return s.getScore()
        results = []
        for action in s.getLegalActions(agent):
            child = s.generateSuccessor(agent, action)
            calls += 1
            seen.add(key(child))
            results.append(value(child, ply + 1))
        return max(results) if agent == 0 else min(results)

    value(start, 0)
    found = explored()
    assert len(found) == len(seen)
    assert len(seen) < calls + 1  # some states were reached twice (West-East, Stop-Stop...)
    assert start in found
    assert explored() == set()  # reset
    # Equal states count once, however often they are generated.
    for _ in range(3):
        start.generateSuccessor(0, "Stop")
    assert len(explored()) == 2


def test_a_failed_successor_records_nothing(explored):
    from pacman.rules import IllegalMove

    start = GameState.initial(load_layout("smallClassic"))
    explored()
    with pytest.raises(IllegalMove):
        start.generateSuccessor(0, "North")
    assert explored() == set()


COPIES = {
    "copy.copy": lambda o: __import__("copy").copy(o),
    "copy.deepcopy": lambda o: __import__("copy").deepcopy(o),
    "pickle": lambda o: __import__("pickle").loads(__import__("pickle").dumps(o)),
}


@pytest.mark.parametrize("how", COPIES)
def test_everything_a_state_hands_out_copies_and_pickles_as_in_the_course(how):
    """Course agents deep-copy food grids and ghost states to plan in: in both builds (this
    file runs on each), every object a state hands out copies and pickles to an equal value,
    and a copied grid is writable."""
    copy_of = COPIES[how]
    s = scared_start().generateSuccessor(0, "East")
    pacman = s.getPacmanState()
    for original in (pacman, pacman.configuration, s.getGhostStates(), s.getGhostState(1)):
        assert copy_of(original) == original
    moved = copy_of(pacman)
    assert (moved.start, moved.isPacman, moved.getDirection()) == (
        pacman.start, True, pacman.getDirection())
    assert copy_of(s) == s and hash(copy_of(s)) == hash(s)
    assert copy_of(s).generateSuccessor(1, "West") == s.generateSuccessor(1, "West")
    data = copy_of(s.data)
    assert data.score == s.data.score and data.agentStates == s.data.agentStates
    for grid in (s.getFood(), s.getWalls(), s.getFood().copy()):
        copied = copy_of(grid)
        assert copied == grid and copied.asList() == grid.asList()
        x, y = grid.asList()[0]
        copied[x][y] = False
        assert not copied[x][y] and grid[x][y]
        assert copied.count() == grid.count() - 1


@pytest.mark.parametrize("how", ["copy()", *COPIES])
def test_a_grid_of_a_students_values_copies_them(how):
    """A student's table in a Grid (distances, visited marks: the course's own code stores
    strings in one) copies with its values, and a written food grid with its writes."""
    from pacman.grid import Grid

    copy_of = (lambda g: g.copy()) if how == "copy()" else COPIES[how]
    table = Grid(3, 2, 0)
    table[1][1] = 7
    table[2][0] = "a"
    copied = copy_of(table)
    assert [list(c) for c in copied.data] == [[0, 0], [0, 7], ["a", 0]]
    copied[0][0] = 5
    assert table[0][0] == 0
    food = scared_start().getFood()
    x, y = food.asList()[0]
    food[x][y] = False
    again = copy_of(food)
    assert not again[x][y] and again.count() == food.count() and again == food


def test_the_food_grid_a_state_hands_out_is_writable_and_changes_no_state():
    s = scared_start()
    food = s.getFood()
    x, y = food.asList()[0]
    food[x][y] = False
    assert not food[x][y] and (x, y) not in food.asList()
    assert food.count() == s.getNumFood() - 1
    assert s.getFood()[x][y] and s.getFood().count() == s.getNumFood()
    with pytest.raises(TypeError):
        s.getWalls()[0][0] = False  # the walls view is shared by every state of the layout


TEAM_UTIL = '''import random
from helpers import double  # a sibling module of the team's

def twice(x):
    return double(x)

def manhattanDistance(a, b):  # the course's name: ours stays
    return 999

def closestFood(pos, foods):
    return min(manhattanDistance(pos, f) for f in foods)
'''
TEAM_GAME = '''from util import *

class Directions:  # the course's class, in the team's copy
    NORTH = 'North'

def teamHelper():
    return "team's " + Directions.NORTH
'''
CHECK = '''import util
from util import *
from game import Agent, teamHelper

def check():
    return [util.manhattanDistance((0, 0), (1, 2)), closestFood((0, 0), [(1, 1)]),
            random.__name__, teamHelper(), Agent.__module__.startswith("pacman."), twice(4)]
'''


def load_and_check(folder) -> list:
    """`check()` of the folder's multiAgents.py, loaded as the sandbox loads it, in a process
    of its own (loading installs `util` and `game` for the whole process)."""
    code = ("import sys; from pathlib import Path; from pacman.loader import load_file; "
            "print(repr(load_file(Path(sys.argv[1])).check()))")
    proc = subprocess.run([sys.executable, "-c", code, str(folder / "multiAgents.py")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    load_and_check.stderr = proc.stderr  # type: ignore[attr-defined]
    return eval(proc.stdout)


def test_what_a_teams_util_and_game_add_is_kept_and_the_course_names_stay_ours(tmp_path):
    """A team's copy of the course's util.py with a helper of its own added: under the
    course, `import util` finds the helper; here too (review 19), while the course's names
    remain the platform's (an old copy could differ from the engine's objects)."""
    (tmp_path / "util.py").write_text(TEAM_UTIL)
    (tmp_path / "game.py").write_text(TEAM_GAME)
    (tmp_path / "helpers.py").write_text("def double(x):\n    return 2 * x\n")
    (tmp_path / "multiAgents.py").write_text(CHECK)
    assert load_and_check(tmp_path) == [3, 999, "random", "team's North", True, 8]


def test_a_teams_util_that_cannot_run_leaves_ours(tmp_path):
    """An old Python 2 copy of the course's util.py (or one that raises) is not the team's
    failure: it never ran before copies were read, and ours has every course name."""
    (tmp_path / "util.py").write_text("print 'python 2'\n")
    (tmp_path / "game.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "multiAgents.py").write_text(
        "import util\nfrom game import Agent\n\n"
        "def check():\n    return [util.manhattanDistance((0, 0), (1, 2)), Agent.__name__]\n")
    assert load_and_check(tmp_path) == [3, "Agent"]
    said = load_and_check.stderr  # type: ignore[attr-defined]
    assert "util.py in the agent's folder was left out (SyntaxError" in said
    assert "game.py in the agent's folder was left out (SystemExit: " in said


def test_star_imports_give_what_the_course_modules_export():
    """`from util import *` and `from game import *` in a course file: the course's modules
    export every public name (util's through game too), and course files rely on it."""
    from pacman import compat

    compat.install()
    names: dict = {}
    exec("from util import *\nfrom game import *\nfrom pacman import *", names)
    for name in ("sign", "nSample", "sampleFromCounter", "getProbability", "arrayInvert",
                 "matrixAsList", "random", "manhattanDistance", "Counter", "Agent",
                 "Directions", "SCARED_TIME", "GameState"):
        assert name in names, name
    game_only: dict = {}
    exec("from game import *", game_only)
    assert game_only["manhattanDistance"]((0, 0), (1, 2)) == 3
    assert names["sign"](-2) == -1 and names["SCARED_TIME"] == 40


def test_a_teams_util_helper_is_there_in_its_sandbox(tmp_path):
    """The same, through the sandbox a tournament plays it in (its own view of the folder)."""
    from pacman.game import GameSpec, play
    from pacman.loader import resolve
    from tests.test_sandbox_zoo import UNAVAILABLE

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    (tmp_path / "util.py").write_text(
        TEAM_UTIL.replace("from helpers import double", "double = abs"))
    (tmp_path / "multiAgents.py").write_text(
        "import util\nfrom game import Agent\n\n\nclass HelperAgent(Agent):\n"
        "    def getAction(self, state):\n"
        "        legal = state.getLegalActions()\n"
        "        return min(legal, key=lambda a: util.closestFood(\n"
        "            state.generateSuccessor(0, a).getPacmanPosition(),"
        " state.getFood().asList()))\n")
    result = play(GameSpec(load_layout("testClassic"),
                           resolve(f"{tmp_path / 'multiAgents.py'}:HelperAgent"),
                           resolve("RandomGhost", kind="ghost"), seed=1, max_moves=20))
    assert result.sandbox[0], "it played sandboxed"
    assert result.outcome not in ("crash", "load_error"), result.message
