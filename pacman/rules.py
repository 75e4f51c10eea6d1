"""The classic Pacman rules as pure functions over a state's small dynamic parts.

A state's dynamic part is: one `(position, direction, scared_timer)` triple per agent, the food
as a bitmask (bit `x * height + y`), the remaining capsules, the score and a status. The
functions here take those values and return new ones; `pacman.state.GameState` wraps them in
the course's API. Everything that depends only on the layout and the ruleset (legal moves per
cell, next cells, food bits) is a table in `Board`, computed once per (layout, ruleset).

The order of events inside a move is the reference engine's (RULES.md): move, eat, time
penalty, collisions for a Pacman move; move, scared timer, collision for a ghost move.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pacman.actions import ACTION_ORDER, VECTORS, Directions, Position
from pacman.layout import Cell, Layout

AgentTuple = tuple[Position, str, int]

RUNNING, WON, LOST = 0, 1, 2

TIME_PENALTY = 1
FOOD_SCORE = 10
WIN_SCORE = 500
EAT_GHOST_SCORE = 200
DEATH_PENALTY = 500
SCARED_TIME = 40
COLLISION_TOLERANCE = 0.7

STOP = Directions.STOP
REVERSE = Directions.REVERSE


class IllegalMove(ValueError):
    """An action that is not legal for that agent in that state."""


@dataclass(frozen=True)
class Ruleset:
    """A variant of the rules: which moves exist and in what order they are listed."""

    name: str
    pacman_can_stop: bool
    #: The order in which legal actions are listed (search results depend on it).
    action_order: tuple[str, ...]
    description: str


RULESETS: dict[str, Ruleset] = {
    "classic": Ruleset(
        "classic", True, ACTION_ORDER, "the Berkeley CS188 rules: Pacman may Stop"
    ),
    "cs221": Ruleset(
        "cs221",
        False,
        (Directions.NORTH, Directions.SOUTH, Directions.EAST, Directions.WEST, STOP),
        "the Stanford CS221 variant: Pacman may not Stop; moves listed N, S, E, W",
    ),
}


def get_ruleset(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown ruleset {name!r}; expected one of {', '.join(RULESETS)}"
        ) from None


class Board:
    """Tables for one (layout, ruleset): shared by every state of every game played on it."""

    __slots__ = (
        "bits",
        "ghost_steps",
        "layout",
        "pacman_legal",
        "pacman_moves",
        "ruleset",
        "starts",
    )

    def __init__(self, layout: Layout, ruleset: Ruleset) -> None:
        self.layout = layout
        self.ruleset = ruleset
        h = layout.height
        order = {d: i for i, d in enumerate(ruleset.action_order)}
        self.bits: dict[Cell, int] = {
            cell: 1 << (cell[0] * h + cell[1]) for cell in layout.neighbours
        }
        self.pacman_moves: dict[Position, dict[str, Cell]] = {}
        self.pacman_legal: dict[Position, tuple[str, ...]] = {}
        #: (cell, facing) -> {legal ghost move: next position at speed 1}, in legal order
        self.ghost_steps: dict[tuple[Position, str], dict[str, Position]] = {}
        for cell, steps in layout.neighbours.items():
            ordered = sorted(steps, key=lambda s: order[s[0]])
            pac = [(d, nxt) for d, nxt in ordered if ruleset.pacman_can_stop or d != STOP]
            self.pacman_moves[cell] = dict(pac)
            self.pacman_legal[cell] = tuple(d for d, _ in pac)
            # Ghost speed is 1.0 (a float), so ghost positions become floats after a move,
            # exactly as in the reference engine.
            moves = {d: (float(nxt[0]), float(nxt[1])) for d, nxt in ordered if d != STOP}
            for facing in ACTION_ORDER:
                legal = [d for d in moves if d != REVERSE[facing]] if len(moves) > 1 else moves
                self.ghost_steps[(cell, facing)] = {d: moves[d] for d in legal}
        self.starts: tuple[AgentTuple, ...] = tuple(
            (pos, STOP, 0) for _, pos in layout.agentPositions
        )

    def ghost_actions(self, pos: Position, facing: str) -> list[str]:
        """Legal ghost moves: on a cell from the table, between cells only straight on
        (`ghost_step` applies the same rule inline, on the hot path)."""
        step = self.ghost_steps.get((pos, facing))
        if step is not None:
            return list(step)
        return [facing] if facing != STOP else []


@lru_cache(maxsize=64)
def board_for(layout: Layout, ruleset: Ruleset) -> Board:
    return Board(layout, ruleset)


def initial_agents(layout: Layout, num_ghosts: int | None) -> tuple[AgentTuple, ...]:
    """Pacman plus the first `num_ghosts` ghosts of the layout (all when None): `-k`."""
    agents = []
    ghosts = 0
    for is_pacman, pos in layout.agentPositions:
        if not is_pacman:
            if num_ghosts is not None and ghosts >= num_ghosts:
                continue
            ghosts += 1
        agents.append((pos, STOP, 0))
    return tuple(agents)


def pacman_step(
    board: Board,
    agents: tuple[AgentTuple, ...],
    food: int,
    nfood: int,
    caps: tuple[Cell, ...],
    score: int,
    action: object,
) -> tuple[tuple[AgentTuple, ...], int, int, tuple[Cell, ...], int, int, int]:
    """Apply a Pacman move: (agents, food, nfood, capsules, score, status, eaten), where
    `eaten` has bit i set for each ghost i eaten in this move (the course's `_eaten`). Anything
    but the name of a legal move (a string) is an `IllegalMove`."""
    pos, facing, _ = agents[0]
    if not isinstance(action, str) or (nxt := board.pacman_moves[pos].get(action)) is None:
        raise IllegalMove(f"Illegal action {action!r} for Pacman at {pos}")
    score -= TIME_PENALTY
    status = RUNNING
    bit = board.bits[nxt]
    if food & bit:
        food ^= bit
        score += FOOD_SCORE
        nfood -= 1
        if not nfood:
            score += WIN_SCORE
            status = WON
    pacman = (nxt, facing if action == STOP else action, 0)
    if caps and nxt in caps:
        caps = tuple(c for c in caps if c != nxt)
        new = [pacman] + [(g[0], g[1], SCARED_TIME) for g in agents[1:]]
    else:
        new = [pacman, *agents[1:]]
    px, py = nxt
    eaten = 0
    for i in range(1, len(new)):
        (gx, gy), _, timer = new[i]
        if abs(gx - px) + abs(gy - py) <= COLLISION_TOLERANCE:
            if timer > 0:
                score += EAT_GHOST_SCORE
                new[i] = board.starts[i]
                eaten |= 1 << i
            elif status != WON:
                score -= DEATH_PENALTY
                status = LOST
    return tuple(new), food, nfood, caps, score, status, eaten


def ghost_step(
    board: Board,
    agents: tuple[AgentTuple, ...],
    index: int,
    score: int,
    action: object,
) -> tuple[tuple[AgentTuple, ...], int, int, int]:
    """Apply ghost `index`'s move: (agents, score, status, eaten), `eaten` the bit of this
    ghost if Pacman ate it in this move, else 0."""
    pos, facing, timer = agents[index]
    step = board.ghost_steps.get((pos, facing))
    # Between cells (no table entry: a scared ghost) only straight on is legal.
    if not isinstance(action, str) or not (
        action in step if step is not None else action == facing != STOP
    ):
        raise IllegalMove(f"Illegal action {action!r} for ghost {index} at {pos}")
    if timer > 0:
        # Scared ghosts move at half speed; when the timer runs out on this move the ghost
        # snaps to the nearest cell.
        dx, dy = VECTORS[action]
        nx, ny = pos[0] + dx * 0.5, pos[1] + dy * 0.5
        timer -= 1
        npos: Position = (int(nx + 0.5), int(ny + 0.5)) if timer == 0 else (nx, ny)
    else:
        npos = step[action]  # type: ignore[index]  # a ghost that is not scared is on a cell
    ghost: AgentTuple = (npos, action, timer)
    status = RUNNING
    eaten = 0
    px, py = agents[0][0]
    if abs(npos[0] - px) + abs(npos[1] - py) <= COLLISION_TOLERANCE:
        if timer > 0:
            score += EAT_GHOST_SCORE
            ghost = board.starts[index]
            eaten = 1 << index
        else:
            score -= DEATH_PENALTY
            status = LOST
    return (*agents[:index], ghost, *agents[index + 1 :]), score, status, eaten
