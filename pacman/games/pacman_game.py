"""Pacman as a game of the search protocol (`pacman.search.core.Game`).

A search state is a `Turn`: the GameState and the index of the agent to move. Pacman is MAX;
every ghost is one MIN layer (minimax, alpha-beta) or one CHANCE layer (expectimax), so one
round is `getNumAgents()` plies and "depth d" in the course's sense is `d * getNumAgents()`
plies.

As in the course, the evaluation function is also the value of a won or lost state: a search
calls it both at the horizon and at terminal states.

A third ghost model, `DIRECTIONAL`, is for the competition searchers: ghosts are CHANCE layers
whose moves carry the probabilities a DirectionalGhost draws them with (`chances`), so an
expectimax search weighs a chasing ghost's likely move as likely. Ghosts farther than `focus`
steps (Manhattan) from Pacman are searched along their likeliest moves only. They still move,
and get their whole distribution back as soon as they come within `focus` (checked at every
node); until then their unlikely moves would multiply the tree for lines that seldom matter.
This trade is what lets a one-second search reach 5 to 13 rounds on contestClassic. The model
is the DirectionalGhost with its default probabilities (0.8 to chase, 0.8 to flee).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from pacman.actions import Position
from pacman.ghost_model import directional_weights
from pacman.rules import Board
from pacman.search.core import CHANCE, MAX, MIN
from pacman.state import GameState

DIRECTIONAL = "directional"
#: The ghost models a `PacmanGame` knows.
GHOST_MODELS = (MIN, CHANCE, DIRECTIONAL)

StateEvaluation = Callable[[GameState], float]


class Turn(NamedTuple):
    state: GameState
    agent: int


_new_turn = tuple.__new__


class PacmanGame:
    """Pacman and its ghosts as MAX against MIN (or CHANCE) layers."""

    def __init__(
        self,
        root: GameState,
        evaluation: StateEvaluation,
        ghosts: str = MIN,
        focus: int = 1 << 20,
    ) -> None:
        if ghosts not in GHOST_MODELS:
            raise ValueError(
                f"ghosts are searched as {', '.join(map(repr, GHOST_MODELS))}, not {ghosts!r}"
            )
        self.root = root
        self.evaluation = evaluation
        self.ghosts = ghosts
        self.kind = CHANCE if ghosts == DIRECTIONAL else ghosts
        self.focus = focus
        self.num_agents = root.getNumAgents()

    def plies(self, depth: int) -> int:
        """The course's depth (full rounds) in plies."""
        return depth * self.num_agents

    def start(self) -> Turn:
        return Turn(self.root, 0)

    def player(self, turn: Turn) -> str:
        return MAX if turn.agent == 0 else self.kind

    def actions(self, turn: Turn) -> list[str]:
        return turn.state.getLegalActions(turn.agent)

    def chances(self, turn: Turn) -> Sequence[tuple[str, float]]:
        """A ghost's moves with their probabilities (uniform unless the model is DIRECTIONAL)."""
        if self.ghosts != DIRECTIONAL:
            legal = turn.state.getLegalActions(turn.agent)
            return [(a, 1.0 / len(legal)) for a in legal]
        agents = turn.state.agents
        pacman = agents[0][0]
        pos, facing, timer = agents[turn.agent]
        far = abs(pos[0] - pacman[0]) + abs(pos[1] - pacman[1]) > self.focus
        return _directional_chances(turn.state.board, pos, facing, pacman, timer > 0, far)

    def successor(self, turn: Turn, action: str) -> Turn:
        state, agent = turn
        nxt = agent + 1
        # tuple.__new__ builds the Turn without the Python-level __new__ of a NamedTuple (a
        # search makes one per node).
        return _new_turn(Turn, (
            state.generateSuccessor(agent, action), 0 if nxt == self.num_agents else nxt
        ))

    def is_terminal(self, turn: Turn) -> bool:
        return turn.state.isTerminal()

    def utility(self, turn: Turn) -> float:
        return self.evaluation(turn.state)

    def evaluate(self, turn: Turn) -> float:
        return self.evaluation(turn.state)


def turn_key(turn: Turn) -> tuple[object, ...]:
    """A position as one flat tuple of numbers and strings, for a search's table.

    Here, compiled with the rest of the game (`pacman.compiled`), because a deep search asks
    for one key per node: in Python it was a fifth of the anytime agent's time.

    Flat, because Python's cycle collector stops tracking a tuple of plain values at the first
    collection it survives, but untracks nested tuples one level per full collection: keyed by
    GameStates (or nested tuples), a table of a million positions kept a million tracked objects,
    and the collector's full passes over them paused moves by up to 0.6 s, past the budget.
    Capsule cells never hold food, so one mask holds both.
    """
    state = turn.state
    bits = state.board.bits
    dots = state.food_mask
    for cell in state.getCapsules():
        dots |= bits[cell]
    key: list[object] = [turn.agent, state.getScore(), dots]
    for (x, y), facing, timer in state.agents:
        key += (x, y, facing, timer)
    return tuple(key)


@lru_cache(maxsize=1 << 17)
def _directional_chances(
    board: Board, pos: Position, facing: str, pacman: Position, scared: bool, far: bool
) -> tuple[tuple[str, float], ...]:
    """A DirectionalGhost's moves and their probabilities (its likeliest ones only when `far`).

    Memoised, process-wide: with the probabilities fixed, the answer depends on these few values
    alone, and a deep search asks for the same ones over and over (a quarter of its time went
    to recomputing them). About 400 bytes an entry, so at most ~50 MB; a tuple, so no caller can
    change what the next one reads.
    """
    weights = directional_weights(pos, board.ghost_actions(pos, facing), pacman, scared)
    if far:
        top = max(weights.values())
        weights = {a: w for a, w in weights.items() if w == top}
    total = sum(weights.values())
    return tuple((a, w / total) for a, w in weights.items())
