"""GameState: an immutable value with the course's full method set.

Student agents call `generateSuccessor` millions of times, so a successor is a new object with
a handful of slots (see `pacman.rules` for the representation), never a deep copy, and nothing
is recorded globally. The course's richer objects are built on demand: `AgentState` and
`Configuration` as copies, food grids as fresh writable grids; the walls grid is one read-only
view shared by every state. Whatever an agent does to them cannot change a state.
"""

from __future__ import annotations

from functools import partialmethod
from types import FunctionType
from typing import Any

from pacman import rules
from pacman.actions import Actions, Directions, Position
from pacman.errors import TerminalStateError as TerminalStateError
from pacman.grid import Grid
from pacman.layout import Cell, Layout
from pacman.rules import LOST, RUNNING, WON, AgentTuple, Board
from pacman.rules import ghost_step as _ghost_step
from pacman.rules import pacman_step as _pacman_step

_new = object.__new__


class Configuration:
    """An agent's position and facing direction (a copy; changing it changes no state)."""

    __slots__ = ("direction", "pos")

    def __init__(self, pos: Position, direction: str) -> None:
        self.pos = pos
        self.direction = direction

    def getPosition(self) -> Position:
        return self.pos

    def getDirection(self) -> str:
        return self.direction

    def isInteger(self) -> bool:
        x, y = self.pos
        return x == int(x) and y == int(y)

    def generateSuccessor(self, vector: Position) -> Configuration:
        x, y = self.pos
        dx, dy = vector
        direction = Actions.vectorToDirection(vector)
        if direction == Directions.STOP:
            direction = self.direction
        return Configuration((x + dx, y + dy), direction)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Configuration):
            return NotImplemented
        return self.pos == other.pos and self.direction == other.direction

    def __hash__(self) -> int:
        return hash((self.pos, self.direction))

    def __reduce__(self) -> tuple[Any, ...]:
        """Copies and pickles in both builds (compiled, a class is rebuilt from its
        constructor's arguments only, so without this `copy.deepcopy` of it raised)."""
        return (Configuration, (self.pos, self.direction))

    def __str__(self) -> str:
        return f"(x={self.pos[0]},y={self.pos[1]}), {self.direction}"

    # A method rather than `__repr__ = __str__`, an alias the compiled build would drop.
    def __repr__(self) -> str:
        return self.__str__()


class AgentState:
    """What the course calls an agent's state: start, configuration, scaredTimer, isPacman."""

    __slots__ = ("configuration", "isPacman", "numCarrying", "numReturned", "scaredTimer", "start")

    def __init__(self, startConfiguration: Configuration, isPacman: bool) -> None:
        self.start = startConfiguration
        self.configuration: Configuration | None = startConfiguration
        self.isPacman = isPacman
        self.scaredTimer = 0
        self.numCarrying = 0
        self.numReturned = 0

    def getPosition(self) -> Position | None:
        return None if self.configuration is None else self.configuration.getPosition()

    def getDirection(self) -> str:
        assert self.configuration is not None
        return self.configuration.getDirection()

    def copy(self) -> AgentState:
        other = AgentState(self.start, self.isPacman)
        other.configuration = self.configuration
        other.scaredTimer = self.scaredTimer
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentState):
            return NotImplemented
        return self.configuration == other.configuration and self.scaredTimer == other.scaredTimer

    def __hash__(self) -> int:
        return hash((self.configuration, self.scaredTimer))

    def __reduce__(self) -> tuple[Any, ...]:
        """Copies and pickles in both builds (see `Configuration.__reduce__`)."""
        return (_agent_state, (self.start, self.configuration, self.isPacman, self.scaredTimer,
                               self.numCarrying, self.numReturned))

    def __str__(self) -> str:
        kind = "Pacman" if self.isPacman else "Ghost"
        return f"{kind}: {self.configuration}"

    def __repr__(self) -> str:
        return self.__str__()


class GameState:
    """One position of a game. Immutable: successors are new values.

    Slots: `_board` (static tables), `_agents` (one (pos, direction, scared timer) per agent),
    `_food` (bitmask), `_nfood`, `_caps`, `_score`, `_status`, and `_eaten` (bit i: ghost i
    was eaten since Pacman's last move, included; the course's `data._eaten`).
    """

    __slots__ = ("_agents", "_board", "_caps", "_eaten", "_food", "_nfood", "_score", "_status")

    _board: Board
    _agents: tuple[AgentTuple, ...]
    _food: int
    _nfood: int
    _caps: tuple[Cell, ...]
    _score: int
    _status: int
    _eaten: int

    def __init__(
        self,
        prevState: GameState | None = None,
        _board: Board | None = None,
        _agents: tuple[AgentTuple, ...] = (),
        _food: int = 0,
        _nfood: int = 0,
        _caps: tuple[Cell, ...] = (),
        _score: int = 0,
        _status: int = RUNNING,
        _eaten: int = 0,
    ) -> None:
        """`GameState(state)` copies `state`, as the course's constructor does. (The other
        parameters are how `_make` builds a state in the compiled build; see there.)"""
        if prevState is not None:
            _board, _agents, _food, _nfood = (
                prevState._board, prevState._agents, prevState._food, prevState._nfood)
            _caps, _score, _status, _eaten = (
                prevState._caps, prevState._score, prevState._status, prevState._eaten)
        elif _board is None:
            raise TypeError(
                "build a start state with GameState.initial(layout) (or copy one with "
                "GameState(state))"
            )
        # object.__setattr__ passes by the __setattr__ below that refuses every change; in
        # the compiled build each of these is a plain store.
        object.__setattr__(self, "_board", _board)
        object.__setattr__(self, "_agents", _agents)
        object.__setattr__(self, "_food", _food)
        object.__setattr__(self, "_nfood", _nfood)
        object.__setattr__(self, "_caps", _caps)
        object.__setattr__(self, "_score", _score)
        object.__setattr__(self, "_status", _status)
        object.__setattr__(self, "_eaten", _eaten)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"GameState is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"GameState is immutable; cannot delete {name!r}")

    @classmethod
    def initial(
        cls, layout: Layout, num_ghosts: int | None = None, ruleset: str = "classic"
    ) -> GameState:
        """The start state of a game: Pacman and the first `num_ghosts` ghosts (all if None)."""
        board = rules.board_for(layout, rules.get_ruleset(ruleset))
        food = layout.food_mask
        return _make(
            board,
            rules.initial_agents(layout, num_ghosts),
            food,
            food.bit_count(),
            layout.capsules,
            0,
            RUNNING,
        )

    # --- successors -------------------------------------------------------------------------

    def generateSuccessor(self, agentIndex: int, action: object) -> GameState:
        """The state after agent `agentIndex` plays `action`; anything but the name of one of
        its legal moves is an `IllegalMove` (`pacman.rules`)."""
        if self._status:
            raise TerminalStateError("Can't generate a successor of a terminal state.")
        board = self._board
        if agentIndex == 0:
            # A Pacman move starts the course's `_eaten` afresh (ghosts eaten in this move).
            agents, food, nfood, caps, score, status, eaten = _pacman_step(
                board, self._agents, self._food, self._nfood, self._caps, self._score, action
            )
            return _make(board, agents, food, nfood, caps, score, status, eaten)
        if not 0 < agentIndex < len(self._agents):
            raise IndexError(f"no agent {agentIndex}: this game has {len(self._agents)} agents")
        agents, score, status, eaten = _ghost_step(
            board, self._agents, agentIndex, self._score, action
        )
        return _make(board, agents, self._food, self._nfood, self._caps, score, status,
                     self._eaten | eaten)

    @staticmethod
    def getAndResetExplored() -> set[GameState]:
        """The states `generateSuccessor` was called on or returned since the last call (a
        set: equal states count once), as the course's; the course's autograder calls it
        before and after a move to count the states a search explored.

        The engine's own searches never pay for this: recording starts at the first call, in
        the process that makes it (so that first call returns an empty set; the course's would
        also hold everything generated before, which no caller relies on). In the compiled
        build (`pacman.fastbuild`) the compiled searches' own successors are not recorded,
        course code's are.
        """
        global _explored
        found = _explored
        if found is None:
            # partialmethod binds the state whether the function is Python or compiled (a
            # compiled function is no descriptor).
            GameState.generateSuccessor = partialmethod(  # type: ignore[method-assign, assignment]
                _recording_successor)
            found = set()
        _explored = set()
        return found

    def generatePacmanSuccessor(self, action: object) -> GameState:
        return self.generateSuccessor(0, action)

    def getLegalActions(self, agentIndex: int = 0) -> list[str]:
        if self._status:
            return []
        if agentIndex == 0:
            return list(self._board.pacman_legal[self._agents[0][0]])
        if not 0 < agentIndex < len(self._agents):
            raise IndexError(f"no agent {agentIndex}: this game has {len(self._agents)} agents")
        pos, facing, _ = self._agents[agentIndex]
        return self._board.ghost_actions(pos, facing)

    def getLegalPacmanActions(self) -> list[str]:
        return self.getLegalActions(0)

    # --- agents -------------------------------------------------------------------------------

    def _agent_state(self, index: int) -> AgentState:
        pos, facing, timer = self._agents[index]
        start = self._board.starts[index]
        agent = AgentState(Configuration(start[0], start[1]), index == 0)
        agent.configuration = Configuration(pos, facing)
        agent.scaredTimer = timer
        return agent

    def getPacmanState(self) -> AgentState:
        return self._agent_state(0)

    def getPacmanPosition(self) -> Position:
        return self._agents[0][0]

    def getGhostStates(self) -> list[AgentState]:
        return [self._agent_state(i) for i in range(1, len(self._agents))]

    def getGhostState(self, agentIndex: int) -> AgentState:
        if not 0 < agentIndex < len(self._agents):
            raise IndexError(f"no ghost {agentIndex}: ghosts are 1..{len(self._agents) - 1}")
        return self._agent_state(agentIndex)

    def getGhostPosition(self, agentIndex: int) -> Position:
        if not 0 < agentIndex < len(self._agents):
            raise IndexError(f"no ghost {agentIndex}: ghosts are 1..{len(self._agents) - 1}")
        return self._agents[agentIndex][0]

    def getGhostPositions(self) -> list[Position]:
        return [a[0] for a in self._agents[1:]]

    def getNumAgents(self) -> int:
        return len(self._agents)

    # --- board --------------------------------------------------------------------------------

    def getScore(self) -> float:
        return float(self._score)

    def getCapsules(self) -> list[Cell]:
        return list(self._caps)

    def getNumFood(self) -> int:
        return self._nfood

    def getFood(self) -> Grid:
        """A fresh grid of the dots left, writable as the course's is: course code marks the
        dots it has planned for in it, which here changes no state."""
        layout = self._board.layout
        return Grid.from_mask(layout.width, layout.height, self._food, readonly=False)

    def getWalls(self) -> Grid:
        return self._board.layout.walls

    def hasFood(self, x: int, y: int) -> bool:
        layout = self._board.layout
        if not (0 <= x < layout.width and 0 <= y < layout.height):
            return False
        return bool(self._food >> (x * layout.height + y) & 1)

    def hasWall(self, x: float, y: float) -> bool:
        """(A ghost's coordinates are floats: (3.0, 4.0) is the cell (3, 4).)"""
        return (x, y) in self._board.layout.wall_cells

    def isWin(self) -> bool:
        return self._status == WON

    def isLose(self) -> bool:
        return self._status == LOST

    def isTerminal(self) -> bool:
        return self._status != RUNNING

    # --- values -------------------------------------------------------------------------------

    def deepCopy(self) -> GameState:
        """A distinct state, equal to this one and hashed alike, as the course's (whose states
        are mutable). Ours are immutable, so nothing needs copying but the object itself:
        course code and autograders that check `copy is not state` get what they expect."""
        return GameState(self)

    def __copy__(self) -> GameState:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles as its layout and ruleset (the board's tables are rebuilt from them when
        unpickled): the tables themselves hold what pickle cannot store."""
        board = self._board
        return (_restore, (board.layout, board.ruleset.name, self._agents, self._food,
                           self._nfood, self._caps, self._score, self._status, self._eaten))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return (
            self._agents == other._agents
            and self._food == other._food
            and self._caps == other._caps
            and self._score == other._score
        )

    def __hash__(self) -> int:
        return hash((self._agents, self._food, self._caps, self._score))

    # --- compact views, for evaluation functions that run millions of times --------------------

    @property
    def agents(self) -> tuple[AgentTuple, ...]:
        """One `(position, direction, scared timer)` per agent, Pacman first."""
        return self._agents

    @property
    def food_mask(self) -> int:
        """The food left as a bitmask: bit `x * height + y` (see `Layout.food_mask`)."""
        return self._food

    @property
    def board(self) -> Board:
        """The static tables of this (layout, ruleset): legal moves and next cells per cell."""
        return self._board

    @property
    def layout(self) -> Layout:
        return self._board.layout

    @property
    def ruleset(self) -> str:
        return self._board.ruleset.name

    @property
    def data(self) -> StateData:
        """The course's `state.data`, for student code that reaches into it (read-only)."""
        return StateData(self)

    def __str__(self) -> str:
        return render_text(self)

    def __repr__(self) -> str:
        return f"<GameState {self._board.layout.name} score={self._score} status={self._status}>"


def _make(
    board: Board,
    agents: tuple[AgentTuple, ...],
    food: int,
    nfood: int,
    caps: tuple[Cell, ...],
    score: int,
    status: int,
    eaten: int = 0,
) -> GameState:
    """The one constructor of states: slot stores, nothing copied.

    Interpreted, a state is allocated bare and its slots are stored through their descriptors
    (the cheapest way past `__setattr__`: a search makes millions of states). Compiled
    (`pacman.fastbuild`), a class cannot be allocated bare from outside, and the constructor,
    whose stores are then plain, is the fast way.
    """
    if _COMPILED:
        return GameState(None, board, agents, food, nfood, caps, score, status, eaten)
    s = _new(GameState)
    _set_board(s, board)
    _set_agents(s, agents)
    _set_food(s, food)
    _set_nfood(s, nfood)
    _set_caps(s, caps)
    _set_score(s, score)
    _set_status(s, status)
    _set_eaten(s, eaten)
    return s


def _restore(layout: Layout, ruleset: str, agents: tuple[AgentTuple, ...], food: int, nfood: int,
             caps: tuple[Cell, ...], score: int, status: int, eaten: int) -> GameState:
    """An unpickled state (`GameState.__reduce__`)."""
    board = rules.board_for(layout, rules.get_ruleset(ruleset))
    return _make(board, agents, food, nfood, caps, score, status, eaten)


def _agent_state(start: Configuration, configuration: Configuration | None, is_pacman: bool,
                 timer: int, carrying: int, returned: int) -> AgentState:
    """A copied or unpickled `AgentState` (`AgentState.__reduce__`)."""
    agent = AgentState(start, is_pacman)
    agent.configuration = configuration
    agent.scaredTimer = timer
    agent.numCarrying = carrying
    agent.numReturned = returned
    return agent


#: Whether this module runs compiled (a compiled function is no Python function object).
_COMPILED = not isinstance(_make, FunctionType)
_slots = vars(GameState)
_set_board = _slots["_board"].__set__
_set_agents = _slots["_agents"].__set__
_set_food = _slots["_food"].__set__
_set_nfood = _slots["_nfood"].__set__
_set_caps = _slots["_caps"].__set__
_set_score = _slots["_score"].__set__
_set_status = _slots["_status"].__set__
_set_eaten = _slots["_eaten"].__set__

#: The course's `GameState.explored`: None until `getAndResetExplored` is first called.
_explored: set[GameState] | None = None
_plain_successor = GameState.generateSuccessor


def _recording_successor(self: GameState, agentIndex: int, action: object) -> GameState:
    """`generateSuccessor` once course code has asked for explored states: records the state
    and its successor, as the course does (a move that raises records nothing)."""
    state = _plain_successor(self, agentIndex, action)
    explored = _explored
    if explored is not None:
        explored.add(self)
        explored.add(state)
    return state


def stop_recording_explored() -> None:
    """Back to the plain `generateSuccessor`, forgetting what was recorded (for tests, which
    share one process)."""
    global _explored
    _explored = None
    GameState.generateSuccessor = _plain_successor  # type: ignore[method-assign]


class StateData:
    """A read-only stand-in for the course's `GameStateData`."""

    def __init__(self, state: GameState) -> None:
        self._state = state
        self.layout = state.layout
        self.food = state.getFood()
        self.capsules = state.getCapsules()
        self.agentStates = [state._agent_state(i) for i in range(state.getNumAgents())]
        self.score = state._score
        self._win = state.isWin()
        self._lose = state.isLose()
        #: Per agent: a ghost Pacman ate since Pacman's last move (that move included), as
        #: course evaluation functions read it to reward eating ghosts.
        self._eaten = [bool(state._eaten >> i & 1) for i in range(state.getNumAgents())]

    def __reduce__(self) -> tuple[Any, ...]:
        """Copies and pickles in both builds, as a fresh view of the same state."""
        return (StateData, (self._state,))


_PACMAN_CHARS = {
    Directions.NORTH: "^",
    Directions.SOUTH: "v",
    Directions.WEST: "<",
    Directions.EAST: ">",
    Directions.STOP: "<",
}


def render_text(state: GameState) -> str:
    """The board as text, top row first: `%` walls, `.` food, `o` capsules, `G` ghosts."""
    layout = state.layout
    rows: list[list[str]] = [[" "] * layout.width for _ in range(layout.height)]
    for x, y in layout.wall_cells:
        rows[y][x] = "%"
    for x, y in state.getFood().asList():
        rows[y][x] = "."
    for x, y in state.getCapsules():
        rows[y][x] = "o"
    for (gx, gy), _, _ in state._agents[1:]:
        x, y = int(gx + 0.5), int(gy + 0.5)
        rows[y][x] = "G"
    (px, py), facing, _ = state._agents[0]
    rows[int(py)][int(px)] = _PACMAN_CHARS.get(facing, "<")
    lines = ["".join(r) for r in reversed(rows)]
    return "\n".join(lines) + f"\nScore: {state._score}\n"

