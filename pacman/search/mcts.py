"""Monte Carlo tree search (UCT) over the game protocol of `pacman.search.core`.

One playout walks down the tree from the root, adds one node, values it and adds that value
to every node on the way:

- at a MAX node, an action not tried yet is expanded first (in `actions()` order); once all
  are, the child with the best UCB1 score is followed: `q + c * sqrt(ln N / n)`, where `q` is
  the child's mean value scaled into [0, 1] and N, n are the parent's and the child's visits;
- at a MIN node the same, with `q` replaced by `1 - q` (MIN maximises the negated value);
- at a CHANCE node an action is drawn uniformly; its child is kept in the tree (one slot per
  action), so repeated draws of the same action share statistics;
- the new node is valued by a random rollout of at most `rollout_depth` plies, then the
  evaluation function (or the utility, at a terminal state); `rollout_depth=0` evaluates the
  node directly, `rollout_depth=None` plays out to the end of the game (no evaluation needed).

Values are from MAX's point of view and unbounded (Pacman scores), so `q` is scaled by the
smallest and largest value seen so far in the search.

The budget is a number of playouts and/or a deadline (a `time.perf_counter()` value); the
search stops at whichever comes first, but never before every root action has had a playout.
The root's decision is the action with the most visits (ties: the better mean for the player to
move, then the first in `actions()` order). With a playout budget only, the search depends on
nothing but its arguments, so a seeded `rng` makes it deterministic.

A search may continue an earlier one: pass a node of the earlier tree (`Node.find` locates the
state reached after the moves since) as `tree`, and the earlier result's `bounds`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol

from pacman.search.core import CHANCE, MAX, MIN, A, Game, S

#: The UCB1 constant for values in [0, 1].
DEFAULT_EXPLORATION = math.sqrt(2.0)

# Node kinds, as small ints for the inner loop.
_MAX, _MIN, _CHANCE, _TERMINAL = 0, 1, 2, 3
_KINDS = {MAX: _MAX, MIN: _MIN, CHANCE: _CHANCE}
_KIND_NAMES = {_MAX: MAX, _MIN: MIN, _CHANCE: CHANCE, _TERMINAL: "terminal"}


class RandomSource(Protocol):
    """What the search needs of a random stream (`random.Random`, or the `random` module)."""

    def random(self) -> float: ...


class Node(Generic[S, A]):
    """One state of the search tree.

    `visits` counts the playouts through the node, `total` sums their values (MAX's point of
    view). A MAX or MIN node keeps its children in `children`, in `actions` order, expanded
    one at a time (`len(children)` of them so far); a CHANCE node keeps them in `sampled`, one
    slot per action, None until that action is first drawn. `actions` is filled in the first
    time the search passes through the node.
    """

    __slots__ = ("actions", "children", "kind", "sampled", "state", "total", "utility", "visits")

    def __init__(self, state: S, kind: int, utility: float = 0.0) -> None:
        self.state = state
        self.kind = kind
        self.utility = utility
        self.actions: Sequence[A] | None = None
        self.children: list[Node[S, A]] = []
        self.sampled: list[Node[S, A] | None] = []
        self.visits = 0
        self.total = 0.0

    @property
    def player(self) -> str:
        """MAX, MIN, CHANCE, or "terminal"."""
        return _KIND_NAMES[self.kind]

    @property
    def mean(self) -> float:
        """The mean value of the playouts through this node (0 if none yet)."""
        return self.total / self.visits if self.visits else 0.0

    def expanded(self) -> list[tuple[A, Node[S, A]]]:
        """(action, child) for every child created so far, in `actions` order."""
        if self.actions is None:
            return []
        if self.kind == _CHANCE:
            return [(a, c) for a, c in zip(self.actions, self.sampled) if c is not None]
        return list(zip(self.actions, self.children))

    def child(self, action: A) -> Node[S, A] | None:
        """The child reached by `action`, if the search created it."""
        for a, c in self.expanded():
            if a == action:
                return c
        return None

    def find(self, state: S, plies: int) -> Node[S, A] | None:
        """The node `plies` moves below this one whose state equals `state`, if any (the first
        in breadth-first order). This is how a later search finds where to continue."""
        frontier: list[Node[S, A]] = [self]
        for _ in range(plies):
            frontier = [c for node in frontier for _, c in node.expanded()]
        for node in frontier:
            if node.state == state:
                return node
        return None

    def __repr__(self) -> str:
        return f"<Node {self.player} visits={self.visits} mean={self.mean:.4g}>"


@dataclass(frozen=True)
class MCTSStats:
    """What one search did: playouts run, nodes created, the deepest node reached (plies below
    the root), and the wall-clock time taken."""

    playouts: int = 0
    nodes: int = 0
    max_depth: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class ActionStats(Generic[A]):
    """One root action: its playouts and the mean value (MAX's point of view) they found."""

    action: A
    visits: int
    mean: float


@dataclass(frozen=True)
class MCTSResult(Generic[S, A]):
    """The decision (None at a terminal or CHANCE root), the value behind it (the chosen
    child's mean; the root's mean or utility without a decision), the per-action statistics,
    the search statistics, and what a later search needs to continue: the tree and the value
    bounds used to scale UCB scores."""

    action: A | None
    value: float
    actions: tuple[ActionStats[A], ...]
    stats: MCTSStats
    root: Node[S, A]
    bounds: tuple[float, float]


def _no_evaluation(state: object) -> float:
    raise AssertionError("unreachable: rollouts without an evaluation play to the end")


def mcts(
    game: Game[S, A],
    state: S,
    *,
    evaluate: Callable[[S], float] | None = None,
    playouts: int | None = None,
    deadline: float | None = None,
    rollout_depth: int | None = None,
    exploration: float = DEFAULT_EXPLORATION,
    rng: RandomSource | None = None,
    tree: Node[S, A] | None = None,
    bounds: tuple[float, float] | None = None,
) -> MCTSResult[S, A]:
    """Search `state` of `game` by UCT and return the decision with its statistics.

    `playouts` and `deadline` (a `time.perf_counter()` value) are the budget, at least one of
    them; the search stops at whichever is reached first, after at least one playout per root
    action. `rollout_depth` plies of uniformly random moves value a new node before
    `evaluate` (None: play to the end of the game; 0: evaluate at once). `rng` defaults to
    the global `random` stream. `tree`, a node whose state is `state`, continues an earlier
    search (its statistics are kept and added to); pass that search's `bounds` with it.
    """
    started = time.perf_counter()
    if playouts is None and deadline is None:
        raise ValueError("mcts needs a budget: playouts, a deadline, or both")
    if playouts is not None and playouts < 1:
        raise ValueError(f"playouts must be at least 1, got {playouts}")
    if rollout_depth is not None:
        if rollout_depth < 0:
            raise ValueError(f"rollout_depth must be 0 or more, got {rollout_depth}")
        if evaluate is None:
            raise ValueError("a depth-limited rollout needs an evaluation function")
    if not exploration >= 0 or math.isinf(exploration):
        raise ValueError(f"exploration must be a finite number >= 0, got {exploration}")
    evaluation: Callable[[S], float] = evaluate if evaluate is not None else _no_evaluation
    source: RandomSource = rng if rng is not None else random
    rand = source.random

    is_terminal = game.is_terminal
    utility = game.utility
    successor = game.successor
    game_actions = game.actions
    player = game.player

    def make(s: S) -> Node[S, A]:
        if is_terminal(s):
            return Node(s, _TERMINAL, utility(s))
        kind = _KINDS.get(player(s))
        if kind is None:
            raise ValueError(f"player() must be MAX, MIN or CHANCE, got {player(s)!r}")
        return Node(s, kind)

    def rollout(s: S) -> float:
        """The value of a new non-terminal node's state: random moves, then evaluate."""
        if rollout_depth is None:
            while True:
                acts = game_actions(s)
                s = successor(s, acts[int(rand() * len(acts))])
                if is_terminal(s):
                    return utility(s)
        for _ in range(rollout_depth):
            acts = game_actions(s)
            s = successor(s, acts[int(rand() * len(acts))])
            if is_terminal(s):
                return utility(s)
        return evaluation(s)

    def open_node(node: Node[S, A]) -> Sequence[A]:
        acts = game_actions(node.state)
        if not acts:
            raise ValueError(f"a non-terminal state has no legal action: {node.state!r}")
        node.actions = acts
        if node.kind == _CHANCE:
            node.sampled = [None] * len(acts)
        return acts

    created = 0
    if tree is None:
        root = make(state)
        created = 1
    else:
        if tree.state != state:
            raise ValueError("tree is the node of another state")
        root = tree
    lo, hi = bounds if bounds is not None else (math.inf, -math.inf)

    if root.kind == _TERMINAL:
        stats = MCTSStats(0, created, 0, time.perf_counter() - started)
        return MCTSResult(None, root.utility, (), stats, root, (lo, hi))
    root_actions = root.actions if root.actions is not None else open_node(root)
    root_width = len(root_actions)

    perf = time.perf_counter
    log = math.log
    sqrt = math.sqrt
    done = 0
    deepest = 0
    while True:
        if done and (root.kind == _CHANCE or len(root.children) >= root_width):
            if playouts is not None and done >= playouts:
                break
            if deadline is not None and perf() >= deadline:
                break

        # Selection and expansion.
        node = root
        path = [root]
        while True:
            kind = node.kind
            if kind == _TERMINAL:
                value = node.utility
                break
            acts = node.actions if node.actions is not None else open_node(node)
            if kind == _CHANCE:
                i = int(rand() * len(acts))
                child = node.sampled[i]
                if child is None:
                    child = node.sampled[i] = make(successor(node.state, acts[i]))
                    created += 1
                    path.append(child)
                    value = child.utility if child.kind == _TERMINAL else rollout(child.state)
                    break
                node = child
                path.append(child)
                continue
            children = node.children
            width = len(children)
            if width < len(acts):
                child = make(successor(node.state, acts[width]))
                children.append(child)
                created += 1
                path.append(child)
                value = child.utility if child.kind == _TERMINAL else rollout(child.state)
                break
            if width == 1:
                node = children[0]
                path.append(node)
                continue
            # UCB1 on values scaled into [0, 1]; MIN scores the complement.
            scale = 1.0 / (hi - lo) if hi > lo else 0.0
            explore = exploration * sqrt(log(node.visits))
            best = children[0]
            best_score = -math.inf
            if kind == _MAX:
                for child in children:
                    n = child.visits
                    score = (child.total / n - lo) * scale + explore / sqrt(n)
                    if score > best_score:
                        best, best_score = child, score
            else:
                for child in children:
                    n = child.visits
                    score = (hi - child.total / n) * scale + explore / sqrt(n)
                    if score > best_score:
                        best, best_score = child, score
            node = best
            path.append(best)

        # Backpropagation.
        for node in path:
            node.visits += 1
            node.total += value
        if value < lo:
            lo = value
        if value > hi:
            hi = value
        if len(path) > deepest:
            deepest = len(path)
        done += 1

    stats = MCTSStats(done, created, max(deepest - 1, 0), time.perf_counter() - started)
    table = tuple(ActionStats(a, c.visits, c.mean) for a, c in root.expanded())
    if root.kind == _CHANCE:
        return MCTSResult(None, root.mean, table, stats, root, (lo, hi))
    sign = 1.0 if root.kind == _MAX else -1.0
    best_index = 0
    for i, entry in enumerate(table):
        chosen = table[best_index]
        if entry.visits > chosen.visits or (
            entry.visits == chosen.visits and sign * entry.mean > sign * chosen.mean
        ):
            best_index = i
    chosen = table[best_index]
    return MCTSResult(chosen.action, chosen.mean, table, stats, root, (lo, hi))


__all__ = [
    "DEFAULT_EXPLORATION",
    "ActionStats",
    "MCTSResult",
    "MCTSStats",
    "Node",
    "RandomSource",
    "mcts",
]
