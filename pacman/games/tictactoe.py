"""Tic-tac-toe on the adversarial search core, and a terminal program to play it against the AI.

Why tic-tac-toe sits in a Pacman project: its game tree is small enough to search in full and
its sizes are known facts (549,946 nodes counting the empty board, 255,168 finished games), so
it checks `pacman.search.core` against numbers nobody has to trust us for, and it lets a
student feel minimax, alpha-beta, expectimax and a depth-limited search by playing them.

The game logic is pure: a state is an immutable `Position` (nine cells and whose turn it is),
and `TicTacToe` implements the `Game` protocol over it. Input and output happen only in `play`,
which takes its streams as arguments (so tests drive it with `io.StringIO`), and in `main`.

    python -m pacman.games.tictactoe minimax|pruning|expectimax|limited N
                                     [--first human|ai] [--symbol X|O]

`pruning` is alpha-beta, `limited N` is alpha-beta cut off after N plies with the line-count
evaluation (`line_score`) at the horizon. The human types a square number 1-9.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from typing import NamedTuple, TextIO

from pacman.search.core import MAX, MIN, Decision, SearchStats, alphabeta, expectimax, minimax

CROSS, NOUGHT, EMPTY = "X", "O", " "
SYMBOLS = (CROSS, NOUGHT)

# Squares are numbered 0..8 row by row; the human sees them as 1..9.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)

# Points for a line that holds only one side's stones, by how many it holds (index 0..3).
LINE_POINTS = (0, 10, 100, 1000)

# `line_score` of a position that is not finished lies within +-800 (eight lines of at most two
# stones of one side each score at most 100), so dividing by this keeps every horizon estimate
# strictly between -1 and +1: a proven win (+1) or loss (-1) always outranks a guess.
EVAL_SCALE = 1000.0

_EMPTY_ALIASES = frozenset(" ._-")


class Position(NamedTuple):
    """A tic-tac-toe state: the nine cells row by row ('X', 'O' or ' ') and who moves next.

    A string and a symbol: immutable, hashable and cheap to copy, which is what a search that
    creates half a million states wants. Whose turn it is is stored, not inferred from the
    stone counts, because the program lets either symbol move first.
    """

    cells: str
    to_move: str


def other(symbol: str) -> str:
    """The opponent of `symbol`."""
    return NOUGHT if symbol == CROSS else CROSS


@functools.cache
def winner(cells: str) -> str | None:
    """The symbol with three in a line, or None.

    Cached: there are at most 3**9 boards, while a full search asks this about half a million
    times, so most answers are looked up rather than recomputed.
    """
    for a, b, c in LINES:
        if cells[a] != EMPTY and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


def line_score(cells: str, me: str = CROSS) -> int:
    """The classic line-count evaluation of a board from the point of view of `me`.

    Each of the eight lines (three rows, three columns, two diagonals) scores on its own:
    a line holding only `me`'s stones is worth +10, +100 or +1000 for one, two or three of
    them; a line holding only the opponent's stones the negative of that; an empty line 0,
    and a line holding both sides' stones 0 too, since nobody can complete it any more. The
    evaluation is the sum over the lines. It rewards open lines and near-complete ones, which
    is what makes a shallow search prefer moves that build threats and block the opponent's.
    """
    you = other(me)
    total = 0
    for line in LINES:
        mine = sum(1 for i in line if cells[i] == me)
        yours = sum(1 for i in line if cells[i] == you)
        if mine and not yours:
            total += LINE_POINTS[mine]
        elif yours and not mine:
            total -= LINE_POINTS[yours]
    return total


def parse_position(board: str | Sequence[str], to_move: str | None = None) -> Position:
    """A `Position` from text: nine cells, or three rows (a list, or one string with newlines).

    Empty cells may be written ' ', '.', '_' or '-'; rows shorter than three characters are
    padded with empty cells (editors strip trailing spaces). Without `to_move` the side to
    move is inferred assuming X moved first. The stone counts must be possible in a real game
    (they differ by at most one) and agree with `to_move`, so a test or a user cannot search a
    position that no game reaches without being told.
    """
    if isinstance(board, str):
        rows: Sequence[str] = board.splitlines() if "\n" in board else [board]
    else:
        rows = board
    if len(rows) == 1 and len(rows[0]) == 9:
        text = rows[0]
    elif len(rows) == 3 and all(len(row) <= 3 for row in rows):
        text = "".join(row.ljust(3) for row in rows)
    else:
        raise ValueError(f"a board is 9 cells or 3 rows of at most 3 cells, got {board!r}")
    cells = "".join(EMPTY if ch in _EMPTY_ALIASES else ch.upper() for ch in text)
    bad = sorted(set(cells) - {CROSS, NOUGHT, EMPTY})
    if bad:
        raise ValueError(f"cells must be X, O or empty (' ', '.', '_', '-'), got {bad}")
    xs, os_ = cells.count(CROSS), cells.count(NOUGHT)
    if to_move is None:
        to_move = NOUGHT if xs > os_ else CROSS
    to_move = to_move.upper()
    if to_move not in SYMBOLS:
        raise ValueError(f"to_move must be 'X' or 'O', got {to_move!r}")
    mover, waiter = cells.count(to_move), cells.count(other(to_move))
    if mover not in (waiter, waiter - 1):
        raise ValueError(f"{xs} X and {os_} O cannot occur in a game with {to_move} to move")
    completed = {
        cells[a] for a, b, c in LINES if cells[a] != EMPTY and cells[a] == cells[b] == cells[c]
    }
    if len(completed) > 1:
        raise ValueError("both sides cannot have three in a line")
    return Position(cells, to_move)


def render(state: Position | str, numbered: bool = False) -> str:
    """The board as three text rows; with `numbered`, free squares show their number 1-9."""
    cells = state.cells if isinstance(state, Position) else state
    shown = [str(i + 1) if numbered and c == EMPTY else c for i, c in enumerate(cells)]
    rows = [" " + " | ".join(shown[r : r + 3]) + " " for r in (0, 3, 6)]
    return "\n---+---+---\n".join(rows)


class TicTacToe:
    """Tic-tac-toe as a `Game[Position, int]` for `pacman.search.core`.

    MAX plays `max_symbol` (X unless told otherwise) and utilities are from its point of
    view: +1 when it wins, -1 when it loses, 0 for a draw. Letting the AI's own symbol be MAX
    is what makes expectimax usable for an AI playing O: the core treats MIN as the uniform
    chance player, so the AI must be MAX. Actions are the free squares 0..8 in increasing
    order, which fixes tie-breaking (the lowest-numbered best square) and node counts.
    """

    def __init__(self, max_symbol: str = CROSS, first: str = CROSS) -> None:
        if max_symbol not in SYMBOLS or first not in SYMBOLS:
            raise ValueError(f"symbols are 'X' and 'O', got {max_symbol!r}, {first!r}")
        self.max_symbol = max_symbol
        self.first = first

    def start(self) -> Position:
        return Position(EMPTY * 9, self.first)

    def player(self, state: Position) -> str:
        return MAX if state.to_move == self.max_symbol else MIN

    def actions(self, state: Position) -> list[int]:
        return [i for i, c in enumerate(state.cells) if c == EMPTY]

    def successor(self, state: Position, action: int) -> Position:
        cells = state.cells
        if not 0 <= action < 9 or cells[action] != EMPTY:
            raise ValueError(f"square {action} is not free in {cells!r}")
        return Position(cells[:action] + state.to_move + cells[action + 1 :], other(state.to_move))

    def is_terminal(self, state: Position) -> bool:
        return winner(state.cells) is not None or EMPTY not in state.cells

    def utility(self, state: Position) -> float:
        won = winner(state.cells)
        if won is None:
            return 0.0
        return 1.0 if won == self.max_symbol else -1.0

    def evaluate(self, state: Position) -> float:
        """Horizon estimate for depth-limited search: `line_score` for MAX, scaled into (-1, 1).

        Unscaled, +100 for two in a line would outrank the +1 of an actual win, and a
        depth-limited AI would walk past a winning move or fail to block a losing one.
        """
        return line_score(state.cells, self.max_symbol) / EVAL_SCALE

    @staticmethod
    def from_rows(rows: str | Sequence[str], to_move: str | None = None) -> Position:
        """A position to search from, e.g. `TicTacToe.from_rows(["X O", " X ", "  O"], "O")`."""
        return parse_position(rows, to_move)


# The program's algorithm names; `pruning` is alpha-beta, `limited` depth-limited alpha-beta.
ALGORITHMS = ("minimax", "pruning", "expectimax", "limited")


def ai_move(
    position: Position, algorithm: str, depth: int | None = None
) -> tuple[int, Decision[int], SearchStats]:
    """The square the AI picks for the side to move, with the decision and the search's stats.

    The AI's symbol is MAX (see `TicTacToe`). `limited` needs `depth` >= 1: at depth 0 the
    core only evaluates the root and returns no action.
    """
    game = TicTacToe(max_symbol=position.to_move)
    stats = SearchStats()
    if algorithm == "minimax":
        decision = minimax(game, position, stats=stats)
    elif algorithm == "pruning":
        decision = alphabeta(game, position, stats=stats)
    elif algorithm == "expectimax":
        decision = expectimax(game, position, stats=stats)
    elif algorithm == "limited":
        if depth is None or depth < 1:
            raise ValueError(f"limited search needs a depth of 1 ply or more, got {depth}")
        decision = alphabeta(game, position, depth=depth, evaluate=game.evaluate, stats=stats)
    else:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if decision.action is None:
        raise ValueError(f"no move to make: the game is over in {position.cells!r}")
    return decision.action, decision, stats


AI = Callable[[Position], tuple[int, Decision[int], SearchStats]]


def _read_human_move(position: Position, inp: TextIO, out: TextIO) -> int | None:
    """Prompt until the human names a free square; its index 0..8, or None at end of input."""
    free = [i + 1 for i, c in enumerate(position.cells) if c == EMPTY]
    while True:
        out.write(f"Your move ({position.to_move}), square 1-9: ")
        out.flush()
        line = inp.readline()
        if not line:
            out.write("\nEnd of input: goodbye.\n")
            return None
        text = line.strip()
        try:
            square = int(text)
        except ValueError:
            shown = f"{text!r} is not" if text else "That is not"
            out.write(f"{shown} a square number: type a number from 1 to 9.\n")
            continue
        if not 1 <= square <= 9:
            out.write(f"There is no square {square}: type a number from 1 to 9.\n")
            continue
        if position.cells[square - 1] != EMPTY:
            choices = ", ".join(map(str, free))
            out.write(f"Square {square} is taken: choose a free square ({choices}).\n")
            continue
        return square - 1


def play(ai: AI, human: str, first: str, inp: TextIO, out: TextIO) -> str | None:
    """Play one game between a human on `inp`/`out` and `ai`; who won ('X', 'O', 'draw').

    `human` is the human's symbol and `first` the symbol that moves first. Returns None when
    the input ends before the game does.
    """
    game = TicTacToe(first=first)
    state = game.start()
    ai_symbol = other(human)
    out.write(f"You are {human}, the AI is {ai_symbol}. {first} moves first.\n")
    out.write("Squares are numbered:\n" + render(state, numbered=True) + "\n")
    while not game.is_terminal(state):
        if state.to_move == human:
            square = _read_human_move(state, inp, out)
            if square is None:
                return None
        else:
            square, _, stats = ai(state)
            out.write(f"AI ({ai_symbol}) plays {square + 1} (searched {stats.nodes:,} nodes).\n")
        state = game.successor(state, square)
        out.write("\n" + render(state, numbered=True) + "\n")
    won = winner(state.cells)
    if won is None:
        out.write("Draw.\n")
        return "draw"
    out.write("You win!\n" if won == human else f"The AI ({won}) wins.\n")
    return won


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"depth must be 1 ply or more, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pacman.games.tictactoe",
        description="Play tic-tac-toe against a search AI. Type a square number 1-9 to move.",
        epilog="Example: python -m pacman.games.tictactoe limited 2 --first ai --symbol O",
    )
    parser.add_argument(
        "algorithm",
        choices=ALGORITHMS,
        help="minimax, pruning (alpha-beta), expectimax, or limited N (alpha-beta, N plies)",
    )
    parser.add_argument("depth", nargs="?", type=_positive_int, help="plies, for limited only")
    parser.add_argument("--first", choices=("human", "ai"), default="human", help="who moves first")
    parser.add_argument(
        "--symbol", type=str.upper, choices=SYMBOLS, default=CROSS, help="the human's symbol"
    )
    return parser


def main(
    argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run the program; the exit status (argparse exits with 2 on bad arguments)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.algorithm == "limited" and args.depth is None:
        parser.error("limited needs a depth: limited N, with N >= 1 plies")
    if args.algorithm != "limited" and args.depth is not None:
        parser.error(f"only limited takes a depth, not {args.algorithm}")
    algorithm: str = args.algorithm
    depth: int | None = args.depth
    human: str = args.symbol
    first = human if args.first == "human" else other(human)

    def ai(position: Position) -> tuple[int, Decision[int], SearchStats]:
        return ai_move(position, algorithm, depth)

    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    try:
        play(ai, human, first, inp, out)
    except KeyboardInterrupt:
        out.write("\nInterrupted: goodbye.\n")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
