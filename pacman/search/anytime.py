"""Anytime search: iterative deepening within a deadline, over the game protocol.

Competition agents get a time budget per move rather than a depth. Iterative deepening
searches depth 1, 2, 3... and, when the deadline passes in the middle of an iteration, answers
with the last completed one, so an answer is always ready. Two things make the repeated work
cheap and the deeper searches faster:
- a transposition table keyed by the game's state, holding each searched node's value, the
  depth it was searched to, whether the value is exact or a bound (alpha-beta), and its best
  move;
- move ordering: the table's best move is searched first, which is where alpha-beta prunes.

`mode` chooses the backup: `alphabeta` (MIN nodes adversarial; CHANCE nodes as expectations)
or `expectimax` (MIN and CHANCE nodes alike as expectations). An expectation weighs each
action by the game's `chances` when it has them (`pacman.search.core.outcomes`), else
uniformly. Depth counts plies; `step` is how many plies one iteration adds (a Pacman agent
steps by a full round).

`cutoff` bounds the work spent on unlikely lines: the chance of a line is the product of the
chances taken along it, and a line whose chance falls below `cutoff` is searched only to the
end of its round (the next multiple of `step` plies from the root) and evaluated there, where
every evaluation is made. What that line adds to the expectation is its chance times its value,
so the error it can make is small, and a search that weighs every combination of the ghosts'
unlikely moves spends most of its nodes on such lines. 0, the default, searches every line to
the full depth. Which lines below a position are cut depends on the chance of the line that
reached it, but the table keys positions: a position is stored at its own depth whatever was
cut below it, and the same position met along a likelier line (in this search, or as the next
move's position) takes that value, though it would have cut less. So a value can depend on the
order in which lines meet a position. Keeping each entry's line chance, and letting only
less likely lines take it, was measured against this and gained nothing (the README's strength
section), so the simpler table stays. A deeper iteration cuts the same lines at the same
places, so deepening stops once only cut lines reach the horizon.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from typing import Generic

from pacman.search.core import MAX, MIN, A, Evaluation, Game, S, SearchStats, outcomes
from pacman.search.decision import AnytimeResult as AnytimeResult

EXACT, LOWER, UPPER = 0, 1, 2
#: The stored depth of a subtree searched to its end: its value holds at every depth.
SOLVED = 1 << 30
MODES = ("alphabeta", "expectimax")


class _OutOfTime(Exception):
    pass


class AnytimeSearch(Generic[S, A]):
    """One search object per agent: its transposition table lives across moves.

    The table is cleared when it outgrows `table_size` entries, so memory stays bounded over
    a long game. `cutoff`: see the module's docstring.
    """

    def __init__(
        self,
        mode: str = "alphabeta",
        key: Callable[[S], Hashable] | None = None,
        table_size: int = 1_000_000,
        cutoff: float = 0.0,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
        self.mode = mode
        self.key: Callable[[S], Hashable] = key or (lambda s: s)
        self.table_size = table_size
        self.table: dict[Hashable, tuple[int, float, int, A | None]] = {}
        self._horizon_hit = False
        #: Whether a line not cut reached the horizon in this iteration: if none did, a deeper
        #: one would search the same tree.
        self._uncut_hit = False
        if not 0 <= cutoff < 1:
            raise ValueError(f"cutoff: expected at least 0 and below 1, got {cutoff!r}")
        self.cutoff = cutoff
        #: The current search's plies a round (`search`'s `step`): a cut line ends its round.
        self._step = 1

    def search(
        self,
        game: Game[S, A],
        state: S,
        deadline: float,
        evaluate: Evaluation[S],
        step: int = 1,
        max_depth: int | None = None,
    ) -> AnytimeResult[A]:
        """Deepen by `step` plies until `deadline` (a `time.perf_counter()` value) or
        `max_depth` plies; always completes the first iteration's root moves in order."""
        if len(self.table) > self.table_size:
            self.table.clear()
        stats = SearchStats()
        actions = list(game.actions(state))
        if game.is_terminal(state) or not actions:
            return AnytimeResult(None, game.utility(state), 0, True, stats)
        result: AnytimeResult[A] = AnytimeResult(actions[0], -math.inf, 0, False, stats)
        depth = step
        self._step = step
        while max_depth is None or depth <= max_depth:
            self._horizon_hit = self._uncut_hit = False
            try:
                value, action = self._root(game, state, depth, evaluate, stats, deadline)
            except _OutOfTime:
                break
            result = AnytimeResult(action, value, depth, not self._horizon_hit, stats)
            if not self._uncut_hit or time.perf_counter() > deadline:
                break
            depth += step
        return result

    # --- one iteration ------------------------------------------------------------------------

    def _root(
        self,
        game: Game[S, A],
        state: S,
        depth: int,
        evaluate: Evaluation[S],
        stats: SearchStats,
        deadline: float,
    ) -> tuple[float, A]:
        kind = game.player(state)
        actions = self._ordered(game, state)
        alpha, beta = -math.inf, math.inf
        best: tuple[float, A] | None = None
        for a in actions:
            v = self._value(game.successor(state, a), depth - 1, alpha, beta, game, evaluate,
                            stats, deadline, 1.0)
            better = best is None or (v < best[0] if kind == MIN else v > best[0])
            if better:
                best = (v, a)
            if self.mode == "alphabeta":
                if kind == MAX:
                    alpha = max(alpha, v)
                elif kind == MIN:
                    beta = min(beta, v)
        assert best is not None
        self.table[self.key(state)] = (depth, best[0], EXACT, best[1])
        return best

    def _ordered(self, game: Game[S, A], state: S) -> list[A]:
        actions = list(game.actions(state))
        entry = self.table.get(self.key(state))
        if entry is not None and entry[3] is not None and entry[3] in actions:
            actions.remove(entry[3])
            actions.insert(0, entry[3])
        return actions

    def _value(
        self,
        s: S,
        depth: int,
        alpha: float,
        beta: float,
        game: Game[S, A],
        evaluate: Evaluation[S],
        stats: SearchStats,
        deadline: float,
        prob: float,
    ) -> float:
        stats.nodes += 1
        if not stats.nodes & 127 and time.perf_counter() > deadline:
            raise _OutOfTime
        if game.is_terminal(s):
            stats.terminals += 1
            return game.utility(s)
        if depth == 0:
            self._horizon_hit = True
            if prob >= self.cutoff:
                self._uncut_hit = True
            stats.evaluations += 1
            return evaluate(s)
        key = self.key(s)
        entry = self.table.get(key)
        if entry is not None and entry[0] >= depth:
            stored_depth, stored, flag, _ = entry
            if (
                flag == EXACT
                or (flag == LOWER and stored > beta)
                or (flag == UPPER and stored < alpha)
            ):
                if stored_depth < SOLVED:
                    self._horizon_hit = self._uncut_hit = True
                return stored
        # Whether this node's own subtree reaches the horizon decides if its value holds at
        # every depth (stored as SOLVED) or only at this one.
        outer_hit, self._horizon_hit = self._horizon_hit, False
        v = self._expand(s, key, depth, alpha, beta, game, evaluate, stats, deadline, prob)
        self._horizon_hit = outer_hit or self._horizon_hit
        return v

    def _expand(
        self,
        s: S,
        key: Hashable,
        depth: int,
        alpha: float,
        beta: float,
        game: Game[S, A],
        evaluate: Evaluation[S],
        stats: SearchStats,
        deadline: float,
        prob: float,
    ) -> float:
        kind = game.player(s)
        if (self.mode == "expectimax" and kind != MAX) or kind not in (MAX, MIN):
            v = 0.0
            for a, p in outcomes(game, s):
                q = prob * p
                below = depth - 1
                if q < self.cutoff:  # an unlikely line: to the end of its round only
                    below %= self._step
                v += p * self._value(game.successor(s, a), below, -math.inf, math.inf,
                                     game, evaluate, stats, deadline, q)
            self._store(key, depth, v, EXACT, None)
            return v
        alpha0, beta0 = alpha, beta
        best_action: A | None = None
        if kind == MAX:
            v = -math.inf
            for a in self._ordered(game, s):
                child = self._value(game.successor(s, a), depth - 1, alpha, beta, game,
                                    evaluate, stats, deadline, prob)
                if child > v:
                    v, best_action = child, a
                if v > beta:
                    break
                alpha = max(alpha, v)
        else:
            v = math.inf
            for a in self._ordered(game, s):
                child = self._value(game.successor(s, a), depth - 1, alpha, beta, game,
                                    evaluate, stats, deadline, prob)
                if child < v:
                    v, best_action = child, a
                if v < alpha:
                    break
                beta = min(beta, v)
        if v <= alpha0:
            flag = UPPER
        elif v >= beta0:
            flag = LOWER
        else:
            flag = EXACT
        self._store(key, depth, v, flag, best_action)
        return v

    def _store(self, key: Hashable, depth: int, value: float, flag: int, move: A | None) -> None:
        if not self._horizon_hit:
            depth = SOLVED
        old = self.table.get(key)
        if old is None or old[0] <= depth:
            self.table[key] = (depth, value, flag, move)
