"""Tic-tac-toe on the search core: known tree sizes, optimal play, evaluation, and the program.

The checks of optimal play use `solve` below, a memoised game solver that shares no code with
`pacman.search` or `pacman.games.tictactoe` (its own win test, its own move generation), so
they are a real check of both rather than the code agreeing with itself.
"""

from __future__ import annotations

import functools
import io
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pacman.games.tictactoe import (
    EVAL_SCALE,
    Position,
    TicTacToe,
    ai_move,
    line_score,
    main,
    parse_position,
    render,
)
from pacman.search.core import MAX, MIN, Decision, SearchStats, alphabeta, expectimax, minimax

ROOT = Path(__file__).resolve().parent.parent
EMPTY_BOARD = " " * 9

# --- an independent solver ---------------------------------------------------------------


def _lines(cells: str) -> list[str]:
    rows = [cells[i : i + 3] for i in (0, 3, 6)]
    cols = [cells[i::3] for i in range(3)]
    return [*rows, *cols, cells[0::4], cells[2:7:2]]


def _won(cells: str) -> str | None:
    for line in _lines(cells):
        if line in ("XXX", "OOO"):
            return line[0]
    return None


def _finished(cells: str) -> bool:
    return _won(cells) is not None or " " not in cells


def _flip(symbol: str) -> str:
    return {"X": "O", "O": "X"}[symbol]


def _play(cells: str, square: int, symbol: str) -> str:
    assert cells[square] == " "
    return cells[:square] + symbol + cells[square + 1 :]


@functools.cache
def solve(cells: str, to_move: str) -> int:
    """The game value for X (+1 win, 0 draw, -1 loss) under perfect play: plain minimax."""
    won = _won(cells)
    if won is not None:
        return 1 if won == "X" else -1
    if " " not in cells:
        return 0
    values = [solve(_play(cells, i, to_move), _flip(to_move)) for i in range(9) if cells[i] == " "]
    return max(values) if to_move == "X" else min(values)


@functools.cache
def reachable(first: str) -> frozenset[tuple[str, str]]:
    """Every unfinished (cells, to_move) reachable from the empty board with `first` to move."""
    seen: set[tuple[str, str]] = set()
    stack = [(EMPTY_BOARD, first)]
    while stack:
        cells, to_move = stack.pop()
        if (cells, to_move) in seen or _finished(cells):
            continue
        seen.add((cells, to_move))
        stack.extend(
            (_play(cells, i, to_move), _flip(to_move)) for i in range(9) if cells[i] == " "
        )
    return frozenset(seen)


@functools.cache
def ai_square(
    cells: str, to_move: str, algorithm: str = "pruning", depth: int | None = None
) -> int:
    """The program's AI move (cached: several tests ask about the same positions)."""
    square, _, _ = ai_move(Position(cells, to_move), algorithm, depth)
    return square


def test_the_independent_solver_knows_the_classic_facts() -> None:
    # 5,478 legal positions, 958 of them finished (X-first play); 4,520 unfinished.
    assert len(reachable("X")) == 4520
    assert solve(EMPTY_BOARD, "X") == 0


# --- the game itself -----------------------------------------------------------------------


def test_game_protocol_basics() -> None:
    game = TicTacToe()
    start = game.start()
    assert start == Position(EMPTY_BOARD, "X")
    assert game.player(start) == MAX
    assert game.actions(start) == list(range(9))
    after = game.successor(start, 4)
    assert after == Position("    X    ", "O")
    assert game.player(after) == MIN
    assert game.actions(after) == [0, 1, 2, 3, 5, 6, 7, 8]
    assert not game.is_terminal(after)
    for bad in (4, -1, 9):
        with pytest.raises(ValueError, match="not free"):
            game.successor(after, bad)
    # The AI's own symbol can be MAX, which flips the sign of the utility.
    o_wins = parse_position(["OOO", "XX ", "X  "], to_move="X")
    assert game.is_terminal(o_wins)
    assert game.utility(o_wins) == -1
    assert TicTacToe(max_symbol="O").utility(o_wins) == 1
    full_draw = parse_position(["XOX", "XOO", "OXX"])
    assert game.is_terminal(full_draw) and game.utility(full_draw) == 0


def test_parse_and_render() -> None:
    pos = TicTacToe.from_rows(["X O", " X ", "  O"], to_move="X")
    assert pos == Position("X O X   O", "X")
    assert parse_position("X.O\n.X.\n..O") == pos  # inferred: equal counts, X to move
    assert parse_position("X O X   O") == pos
    assert parse_position(["X", "", "O"]) == Position("X     O  ", "X")  # short rows padded
    assert render(pos) == " X |   | O \n---+---+---\n   | X |   \n---+---+---\n   |   | O "
    assert render(pos, numbered=True).splitlines()[0] == " X | 2 | O "
    assert render(pos, numbered=True).splitlines()[4] == " 7 | 8 | O "
    for bad, message in [
        (["X O", "   "], "3 rows"),
        (["XQO", "   ", "   "], "cells must be"),
        (["XX ", "   ", "   "], "cannot occur"),  # two X, no O, X to move
        ("XXXOOO   ", "both sides"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_position(bad)
    with pytest.raises(ValueError, match="cannot occur"):
        parse_position(["X  ", "   ", "   "], to_move="X")  # X has just moved
    with pytest.raises(ValueError, match="to_move"):
        parse_position(EMPTY_BOARD, to_move="Z")


def test_every_game_of_tictactoe_ends_as_known() -> None:
    # Of the 255,168 possible games, X wins 131,184, O wins 77,904, and 46,080 are drawn.
    game = TicTacToe()
    outcomes = {1.0: 0, -1.0: 0, 0.0: 0}

    def walk(state: Position) -> None:
        if game.is_terminal(state):
            outcomes[game.utility(state)] += 1
            return
        for action in game.actions(state):
            walk(game.successor(state, action))

    walk(game.start())
    assert outcomes == {1.0: 131_184, -1.0: 77_904, 0.0: 46_080}


# --- minimax and alpha-beta ----------------------------------------------------------------


@functools.cache
def search_empty_board(algorithm: str) -> tuple[Decision[int], SearchStats]:
    """One full search from the empty board, shared by the tests (minimax takes ~1 s)."""
    search = {"minimax": minimax, "alphabeta": alphabeta}[algorithm]
    stats = SearchStats()
    return search(TicTacToe(), TicTacToe().start(), stats=stats), stats


def test_minimax_value_and_tree_size_from_the_empty_board() -> None:
    decision, stats = search_empty_board("minimax")
    assert decision.value == 0  # perfect play draws
    assert decision.action == 0  # every first move draws: the first in actions() order
    # Known facts: the full game tree has 549,946 nodes (with the root), 255,168 games.
    assert stats.nodes == 549_946
    assert stats.terminals == 255_168
    assert stats.evaluations == 0
    assert stats.generated == 549_945


def _strict_alphabeta_nodes(cells: str, to_move: str) -> int:
    """Nodes of alpha-beta as the core defines it (cut on v > beta / v < alpha), re-derived."""
    count = 0

    def value(cells: str, to_move: str, alpha: float, beta: float) -> float:
        nonlocal count
        count += 1
        if _finished(cells):
            return solve(cells, to_move)
        best = -math.inf if to_move == "X" else math.inf
        for i in range(9):
            if cells[i] != " ":
                continue
            v = value(_play(cells, i, to_move), _flip(to_move), alpha, beta)
            if to_move == "X":
                best = max(best, v)
                if best > beta:
                    return best
                alpha = max(alpha, best)
            else:
                best = min(best, v)
                if best < alpha:
                    return best
                beta = min(beta, best)
        return best

    value(cells, to_move, -math.inf, math.inf)
    return count


def test_alphabeta_matches_minimax_from_the_empty_board_with_far_fewer_nodes() -> None:
    expected, full = search_empty_board("minimax")
    decision, pruned = search_empty_board("alphabeta")
    assert decision == expected
    assert pruned.nodes < full.nodes
    # The core prunes only on strict inequality (the course's definition, which autograders
    # count), and tic-tac-toe's values -1/0/+1 tie a lot, so it saves ~73%, not ~97%: pruning
    # on v >= beta / v <= alpha would visit 18,297 nodes.
    assert pruned.nodes == 146_120
    assert pruned.nodes == _strict_alphabeta_nodes(EMPTY_BOARD, "X")
    assert pruned.nodes < full.nodes * 0.3


HAND_MADE = [
    (["X O", " X ", "  O"], "X"),  # X to move, 0-4-8 is blocked, X wins by a double threat
    (["X O", " X ", "  O"], "O"),  # the same stones with O to move (O started)
    (["OO ", "X  ", "  X"], "X"),  # X must block at 3
    ([" O ", "   ", "   "], "X"),  # O started on an edge
    (["   ", " X ", "   "], "O"),  # O's reply to the centre: corners draw, edges lose
    (["X  ", "   ", "   "], "O"),  # O's reply to a corner: only the centre draws
]


@pytest.mark.parametrize(("rows", "to_move"), HAND_MADE)
def test_alphabeta_matches_minimax_on_hand_made_positions(rows: list[str], to_move: str) -> None:
    game = TicTacToe()
    pos = parse_position(rows, to_move)
    full, pruned = SearchStats(), SearchStats()
    expected = minimax(game, pos, stats=full)
    assert alphabeta(game, pos, stats=pruned) == expected
    assert expected.value == solve(pos.cells, pos.to_move)
    assert pruned.nodes < full.nodes


def test_alphabeta_matches_minimax_on_every_late_position() -> None:
    """Every reachable unfinished position with at most four free squares, both sides to move."""
    game = TicTacToe()
    positions = [Position(c, m) for first in "XO" for c, m in reachable(first) if c.count(" ") <= 4]
    assert len(positions) > 3000
    total_full = total_pruned = 0
    for pos in positions:
        full, pruned = SearchStats(), SearchStats()
        expected = minimax(game, pos, stats=full)
        assert alphabeta(game, pos, stats=pruned) == expected, pos
        assert expected.value == solve(pos.cells, pos.to_move), pos
        assert pruned.nodes <= full.nodes
        total_full += full.nodes
        total_pruned += pruned.nodes
    assert total_pruned < total_full


# --- the AI never loses --------------------------------------------------------------------


def test_the_ai_move_keeps_the_game_value_in_every_reachable_position() -> None:
    """Wherever the AI is to move (as X or O, whoever began), its move is an optimal one.

    The value after the AI's move must equal the value before it; since the AI does this at
    every turn, the value it holds can never drop, so it never loses a game it could draw and
    never draws a game it could win.
    """
    checked = 0
    for first in "XO":
        for cells, ai in reachable(first):
            square = ai_square(cells, ai)
            assert cells[square] == " "
            after = solve(_play(cells, square, ai), _flip(ai))
            assert after == solve(cells, ai), (cells, ai, square)
            checked += 1
    assert checked == 2 * 4520


@pytest.mark.parametrize(("ai", "first"), [("X", "X"), ("O", "X"), ("X", "O"), ("O", "O")])
def test_the_ai_never_loses_against_any_sequence_of_replies(ai: str, first: str) -> None:
    """Play the AI against every possible opponent: no game ever ends with the AI losing."""
    games = {"won": 0, "drawn": 0}

    def explore(cells: str, to_move: str) -> None:
        won = _won(cells)
        if won is not None:
            assert won == ai, f"the AI ({ai}) lost: {cells!r}"
            games["won"] += 1
            return
        if " " not in cells:
            games["drawn"] += 1
            return
        if to_move == ai:
            explore(_play(cells, ai_square(cells, ai), ai), _flip(ai))
            return
        for i in range(9):
            if cells[i] == " ":
                explore(_play(cells, i, to_move), _flip(to_move))

    explore(EMPTY_BOARD, first)
    assert games["won"] > 0 and games["drawn"] > 0


# --- the line-count evaluation -------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # Empty: no line holds a stone.
        (["   ", "   ", "   "], 0),
        # X in the centre: row 1, column 1 and both diagonals hold one X: 4 * 10.
        (["   ", " X ", "   "], 40),
        # X in a corner against O in the centre: the main diagonal holds both (0); X's row 0
        # and column 0 score +10 each, O's row 1, column 1 and anti-diagonal -10 each.
        # 20 - 30 = -10.
        (["X  ", " O ", "   "], -10),
        # X on 0 and 1: row 0 holds two X (+100), column 0 one (+10), column 1 and the main
        # diagonal are mixed with O's centre (0); O: row 1 and anti-diagonal (-10 each).
        # 100 + 10 - 20 = 90.
        (["XX ", " O ", "   "], 90),
        # X on 0 and 8, O on 4 and 2: main diagonal mixed; X: row 2 (+10), column 0 (+10),
        # column 2 is mixed (O on 2, X on 8), row 0 mixed; O: row 1 (-10), column 1 (-10),
        # anti-diagonal 2-4-6 holds two O (-100). 20 - 120 = -100.
        (["X O", " O ", "  X"], -100),
        # A finished board: row 0 is three X (+1000); row 1 two O (-100); column 2 one X (+10);
        # columns 0 and 1 and both diagonals mixed; row 2 empty. 1000 - 100 + 10 = 910.
        (["XXX", "OO ", "   "], 910),
    ],
)
def test_line_score_by_hand(rows: list[str], expected: int) -> None:
    cells = "".join(rows)
    assert line_score(cells) == expected
    assert line_score(cells, "X") == expected
    assert line_score(cells, "O") == -expected  # the same lines seen from the other side


def test_the_horizon_evaluation_is_line_score_scaled_below_a_real_win() -> None:
    game, as_o = TicTacToe(), TicTacToe(max_symbol="O")
    for first in "XO":
        for cells, to_move in reachable(first):
            pos = Position(cells, to_move)
            assert game.evaluate(pos) == line_score(cells) / EVAL_SCALE
            assert as_o.evaluate(pos) == -game.evaluate(pos)
            # A guess never outranks a proven win or loss (utility +-1).
            assert -1 < game.evaluate(pos) < 1


# --- depth-limited search ------------------------------------------------------------------


def test_depth_limited_search_evaluates_at_the_horizon() -> None:
    game = TicTacToe()
    stats = SearchStats()
    decision = alphabeta(game, game.start(), depth=2, evaluate=game.evaluate, stats=stats)
    assert stats.evaluations > 0
    assert stats.terminals == 0  # nobody can win in two plies
    assert stats.nodes < 100  # root + 9 + at most 72
    # Centre first: 4 lines for X (+40), and O's best reply (a corner) leaves 40 - 30 = 10,
    # every other X opening does worse.
    assert decision.action == 4 and decision.value == pytest.approx(10 / EVAL_SCALE)
    _, _, ai_stats = ai_move(game.start(), "limited", 2)
    assert ai_stats.evaluations > 0


def test_depth_limited_alphabeta_matches_depth_limited_minimax() -> None:
    """Pruning must not change a cut-off search either: same value and move at 2 plies."""
    game = TicTacToe()
    total_full = total_pruned = 0
    for cells, to_move in reachable("X"):
        pos = Position(cells, to_move)
        full, pruned = SearchStats(), SearchStats()
        expected = minimax(game, pos, depth=2, evaluate=game.evaluate, stats=full)
        decision = alphabeta(game, pos, depth=2, evaluate=game.evaluate, stats=pruned)
        assert decision == expected, pos
        assert pruned.evaluations <= full.evaluations
        total_full += full.nodes
        total_pruned += pruned.nodes
    assert total_pruned < total_full


def test_limited_2_takes_an_immediate_win() -> None:
    # ' | O | X' / '  |   |  ' / '  | O | X': X wins at 5 (column 2). With the unscaled line
    # score as the evaluation, depth 2 would prefer the centre (two open X lines, +200) to
    # the win (+1); the scaled evaluation keeps the win on top.
    pos = parse_position([" OX", "   ", " OX"])
    assert ai_square(pos.cells, pos.to_move, "limited", 2) == 5
    # The same for O, and in every reachable position that has a winning move.
    assert ai_square(" XO    XO", "O", "limited", 2) == 5
    for first in "XO":
        for cells, me in reachable(first):
            wins = [i for i in range(9) if cells[i] == " " and _won(_play(cells, i, me)) == me]
            if wins:
                assert ai_square(cells, me, "limited", 2) in wins, (cells, me)


def test_limited_2_blocks_an_immediate_loss() -> None:
    # O threatens 0-1-2; X has no win of its own and must take square 2.
    pos = parse_position(["OO ", "X  ", "  X"], to_move="X")
    assert ai_square(pos.cells, pos.to_move, "limited", 2) == 2
    # And everywhere: no own win, exactly one square the opponent would win on.
    blocks = 0
    for first in "XO":
        for cells, me in reachable(first):
            free = [i for i in range(9) if cells[i] == " "]
            if any(_won(_play(cells, i, me)) == me for i in free):
                continue
            threats = [i for i in free if _won(_play(cells, i, _flip(me))) == _flip(me)]
            if len(threats) == 1:
                assert ai_square(cells, me, "limited", 2) == threats[0], (cells, me)
                blocks += 1
    assert blocks > 100


def test_limited_needs_a_positive_depth() -> None:
    with pytest.raises(ValueError, match="depth"):
        ai_move(TicTacToe().start(), "limited", 0)
    with pytest.raises(ValueError, match="unknown algorithm"):
        ai_move(TicTacToe().start(), "random")


# --- expectimax ----------------------------------------------------------------------------


def test_expectimax_takes_the_uniform_mean_by_hand() -> None:
    #  . | . | O     X to move, free squares 0, 1, 4; X holds 5, 6, 7; O holds 2, 3, 8.
    #  O | . | X
    #  X | X | O
    # X on 0: O plays 1 or 4 (no O line), X fills the last square, no X line: 0 and 0 -> 0.
    # X on 1: O on 0 -> X on 4 completes 1-4-7 (+1); O on 4 -> X on 0, draw (0): mean 1/2.
    # X on 4: O on 0 -> X on 1 completes 1-4-7 (+1); O on 1 -> X on 0, draw (0): mean 1/2.
    # Max of 0, 1/2, 1/2 is 1/2, first reached by square 1. Minimax, against a real opponent
    # who always blocks, sees only draws and plays square 0.
    game = TicTacToe()
    pos = parse_position(["  O", "O X", "XXO"])
    stats = SearchStats()
    decision = expectimax(game, pos, stats=stats)
    assert decision.value == pytest.approx(0.5) and decision.action == 1
    assert minimax(game, pos).value == 0
    # 1 root + 3 X moves + 6 O replies + 6 last X moves, and no game ends early.
    assert stats.nodes == 16 and stats.terminals == 6
    # At the chance node after X on 1 the value is the plain mean (1 + 0) / 2, no action.
    after = game.successor(pos, 1)
    assert expectimax(game, after).value == pytest.approx(0.5)
    assert expectimax(game, after).action is None
    # The program's expectimax AI playing O on the mirrored board picks the same square.
    square, decision_o, _ = ai_move(parse_position(["  X", "X O", "OOX"], "O"), "expectimax")
    assert square == 1 and decision_o.value == pytest.approx(0.5)


# --- the terminal program ------------------------------------------------------------------


def run_program(args: list[str], typed: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(args, stdin=io.StringIO(typed), stdout=out)
    return status, out.getvalue()


def test_scripted_game_the_human_plays_badly_and_the_ai_wins() -> None:
    # Human X moves first with 2, 3, 6 and never blocks; the AI (O) answers 1, 4, 7 and
    # completes the left column.
    status, output = run_program(["pruning"], "2\n3\n6\n")
    assert status == 0
    assert "You are X, the AI is O. X moves first." in output
    ai_moves = re.findall(r"AI \(O\) plays (\d) \(searched ([\d,]+) nodes\)", output)
    assert [m for m, _ in ai_moves] == ["1", "4", "7"]
    searched = [int(n.replace(",", "")) for _, n in ai_moves]
    # The same counts as searching those positions directly, and shrinking as the board fills.
    stats = SearchStats()
    alphabeta(TicTacToe(max_symbol="O"), Position(" X       ", "O"), stats=stats)
    assert searched[0] == stats.nodes
    assert searched[0] > searched[1] > searched[2] > 0
    assert output.count("Your move (X), square 1-9: ") == 3
    assert output.rstrip().endswith("The AI (O) wins.")
    assert " O | X | X \n---+---+---\n O | 5 | X \n---+---+---\n O | 8 | 9 " in output


def test_the_ai_can_move_first_and_the_human_play_o() -> None:
    # The AI (X) opens with square 1 (all openings draw; the first is chosen) and reports the
    # nodes of a full alpha-beta search from the empty board.
    status, output = run_program(["pruning", "--first", "ai", "--symbol", "o"], "")
    assert status == 0
    assert "You are O, the AI is X. X moves first." in output
    assert "AI (X) plays 1 (searched 146,120 nodes)." in output
    assert "End of input" in output


def test_bad_input_is_explained_and_asked_again() -> None:
    typed = "\nhello\n0\n10\n-3\n4.5\n²\n2\n2\n3\n6\n"
    status, output = run_program(["limited", "2"], typed)
    assert status == 0
    assert "That is not a square number: type a number from 1 to 9." in output
    assert "'hello' is not a square number" in output
    assert "There is no square 0" in output
    assert "There is no square 10" in output
    assert "There is no square -3" in output
    assert "'4.5' is not a square number" in output
    assert "'²' is not a square number" in output  # a digit to str.isdigit, not to int()
    assert re.search(r"Square 2 is taken: choose a free square \(([1-9], )*[1-9]\)\.", output)
    # Each bad line is followed by a new prompt, and the game still goes on to its end.
    assert output.count("Your move (X), square 1-9: ") == 11
    assert output.rstrip().endswith(("wins.", "You win!", "Draw."))


def test_end_of_input_exits_cleanly() -> None:
    status, output = run_program(["expectimax"], "")
    assert status == 0
    assert output.rstrip().endswith("End of input: goodbye.")
    status, output = run_program(["pruning"], "5\n")  # mid-game
    assert status == 0 and "AI (O) plays" in output and "goodbye" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bogus"], "invalid choice: 'bogus'"),
        ([], "required: algorithm"),
        (["limited"], "limited needs a depth"),
        (["limited", "0"], "depth must be 1 ply or more"),
        (["limited", "two"], "depth must be a whole number"),
        (["minimax", "3"], "only limited takes a depth"),
        (["pruning", "--first", "nobody"], "invalid choice: 'nobody'"),
    ],
)
def test_bad_arguments_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        main(args, stdin=io.StringIO("5\n"), stdout=out)
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
    assert out.getvalue() == ""  # no game was started


def test_bad_arguments_exit_2_as_a_program() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pacman.games.tictactoe", "bogus"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "invalid choice: 'bogus'" in result.stderr
    assert "usage: python -m pacman.games.tictactoe" in result.stderr
    assert result.stdout == ""


def test_a_whole_game_as_a_program() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pacman.games.tictactoe", "pruning"],
        cwd=ROOT,
        input="2\n3\n6\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("The AI (O) wins.")
