"""One test per rule of /work/shared/RULES.md, on tiny hand-drawn boards.

Coordinates: x counts columns from the left, y counts rows from the *bottom* (row y=0 is the
last line of the drawing). Every expected score is worked out by hand from the rules in a
comment next to the assertion; the engine is never used to compute an expected value.
"""

from __future__ import annotations

import pytest

from pacman.layout import parse_layout
from pacman.rules import IllegalMove
from pacman.state import GameState, TerminalStateError

W, STOP, E, N, S = "West", "Stop", "East", "North", "South"


def start(*rows: str, **kwargs: object) -> GameState:
    """The start state of the board drawn by `rows` (top row first)."""
    return GameState.initial(parse_layout("\n".join(rows), name="t"), **kwargs)  # type: ignore[arg-type]


def play(state: GameState, *moves: tuple[int, str]) -> GameState:
    """Apply (agent index, action) moves in the given order."""
    for agent, action in moves:
        state = state.generateSuccessor(agent, action)
    return state


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------

# %%%%%%%   y=2
# %P  .G%   y=1   P (1,1), empty (2,1) (3,1), food (4,1), ghost (5,1)
# %%%%%%%   y=0
CORRIDOR = ("%%%%%%%", "%P  .G%", "%%%%%%%")


def test_start_score_is_zero() -> None:
    s = start(*CORRIDOR)
    assert s.getScore() == 0
    assert not s.isWin() and not s.isLose()


def test_move_costs_one() -> None:
    s = start(*CORRIDOR)
    s1 = s.generateSuccessor(0, E)
    assert s1.getPacmanPosition() == (2, 1)
    assert s1.getScore() == -1  # one Pacman move onto an empty cell: -1


def test_stop_costs_one_too() -> None:
    s = start(*CORRIDOR)
    s1 = s.generateSuccessor(0, STOP)
    assert s1.getPacmanPosition() == (1, 1)
    assert s1.getScore() == -1  # Stop is a move: -1
    assert s1.generateSuccessor(0, STOP).getScore() == -2


def test_ghost_move_costs_nothing() -> None:
    s = start(*CORRIDOR)
    s1 = s.generateSuccessor(1, W)  # ghost (5,1) -> (4,1)
    assert s1.getGhostPosition(1) == (4, 1)
    assert s1.getScore() == 0


# %%%%%%%
# %P.. G%   food (2,1) and (3,1)
# %%%%%%%
def test_eating_food_is_plus_ten_net_nine() -> None:
    s = start("%%%%%%%", "%P.. G%", "%%%%%%%")
    assert s.getNumFood() == 2
    s1 = s.generateSuccessor(0, E)
    assert s1.getScore() == 9  # -1 + 10
    assert s1.getNumFood() == 1
    assert not s1.hasFood(2, 1) and s1.hasFood(3, 1)
    assert s1.getFood().asList() == [(3, 1)]
    assert not s1.isWin()


# %%%%%%
# %P. G%   the only food dot is (2,1)
# %%%%%%
def test_eating_last_dot_gives_500_more_and_wins() -> None:
    s = start("%%%%%%", "%P. G%", "%%%%%%")
    s1 = s.generateSuccessor(0, E)
    assert s1.getScore() == 509  # -1 + 10 + 500
    assert s1.isWin() and not s1.isLose()
    assert s1.getNumFood() == 0


# %%%%%%%%%%   y=3
# %Poo...G %   y=2   capsules (2,2) (3,2); food (4,2) (5,2) (6,2); ghost 'G' (7,2)
# %%%%%%%%G%   y=1   ghost 'G' (8,1)
# %%%%%%%%%%   y=0
# Ghost order: (1,(7,2)) < (1,(8,1)), so ghost 1 is at (7,2) and ghost 2 at (8,1).
CAPSULES = ("%%%%%%%%%%", "%Poo...G %", "%%%%%%%%G%", "%%%%%%%%%%")


def test_capsule_scores_nothing_and_scares_every_ghost() -> None:
    s = start(*CAPSULES)
    assert sorted(s.getCapsules()) == [(2, 2), (3, 2)]
    s1 = s.generateSuccessor(0, E)
    assert s1.getScore() == -1  # only the move's -1
    assert s1.getCapsules() == [(3, 2)]
    assert s1.getNumFood() == 3
    assert s1.getGhostState(1).scaredTimer == 40
    assert s1.getGhostState(2).scaredTimer == 40


def test_second_capsule_sets_timer_to_40_not_adds() -> None:
    s = start(*CAPSULES)
    s = play(s, (0, E), (1, W), (2, N))  # capsule 1; both ghosts move once while scared
    assert s.getGhostState(1).scaredTimer == 39
    assert s.getGhostState(2).scaredTimer == 39
    s = s.generateSuccessor(0, E)  # capsule 2 at (3,2)
    assert s.getScore() == -2
    assert s.getCapsules() == []
    assert s.getGhostState(1).scaredTimer == 40  # set, not 79 and not 40 + 39
    assert s.getGhostState(2).scaredTimer == 40
    # The ghosts stay where they were (on half cells).
    assert s.getGhostPosition(1) == (6.5, 2)
    assert s.getGhostPosition(2) == (8, 1.5)


def test_scared_timer_drops_only_on_that_ghosts_own_move() -> None:
    s = start(*CAPSULES)
    s = s.generateSuccessor(0, E)
    s = s.generateSuccessor(1, W)
    assert s.getGhostState(1).scaredTimer == 39
    assert s.getGhostState(2).scaredTimer == 40  # ghost 2 has not moved
    s = s.generateSuccessor(0, STOP)  # a Pacman move changes no timer
    assert s.getGhostState(1).scaredTimer == 39
    assert s.getGhostState(2).scaredTimer == 40
    s = s.generateSuccessor(1, W)
    s = s.generateSuccessor(1, W)
    assert s.getGhostState(1).scaredTimer == 37
    assert s.getGhostState(2).scaredTimer == 40
    s = s.generateSuccessor(2, N)
    assert s.getGhostState(1).scaredTimer == 37
    assert s.getGhostState(2).scaredTimer == 39


# --------------------------------------------------------------------------------------------
# Collisions with one ghost
# --------------------------------------------------------------------------------------------

# %%%%%%%
# %Po G.%   P (1,1), capsule (2,1), empty (3,1), ghost (4,1), food (5,1)
# %%%%%%%
SCARED_CORRIDOR = ("%%%%%%%", "%Po G.%", "%%%%%%%")


def test_scared_ghost_half_speed_and_straight_on_between_cells() -> None:
    s = start(*SCARED_CORRIDOR)
    # Not scared, on a cell: may go West or East (never Stop).
    assert s.getLegalActions(1) == [W, E]
    s = s.generateSuccessor(0, E)
    s = s.generateSuccessor(1, W)
    assert s.getGhostPosition(1) == (3.5, 1)  # speed 0.5 while scared
    assert s.getGhostState(1).configuration.direction == W
    # Between cells: only straight on (reversing East is not offered).
    assert s.getLegalActions(1) == [W]
    with pytest.raises(IllegalMove):
        s.generateSuccessor(1, E)
    s = s.generateSuccessor(1, W)
    assert s.getGhostPosition(1) == (3, 1)
    assert s.getGhostState(1).scaredTimer == 38


def test_pacman_touching_scared_ghost_eats_it() -> None:
    s = start(*SCARED_CORRIDOR)
    s = play(s, (0, E), (1, W))  # capsule (-1); ghost to (3.5,1), 1.5 from Pacman (2,1)
    assert s.getScore() == -1 and not s.isLose()
    s = s.generateSuccessor(0, E)  # Pacman to (3,1): 0.5 from the ghost -> contact
    assert s.getScore() == -1 - 1 + 200  # 198
    assert not s.isLose() and not s.isWin()
    g = s.getGhostState(1)
    assert g.getPosition() == (4, 1)  # back to its start cell
    assert g.getDirection() == STOP
    assert g.scaredTimer == 0
    assert g.start.getPosition() == (4, 1)


def test_scared_ghost_moving_onto_pacman_gets_eaten() -> None:
    s = start(*SCARED_CORRIDOR)
    s = play(s, (0, E), (1, W), (0, STOP), (1, W), (0, STOP))
    # Ghost at (3,1), Pacman at (2,1): distance 1.0, no contact; score -3.
    assert s.getGhostPosition(1) == (3, 1)
    assert s.getScore() == -3 and not s.isLose()
    assert s.getLegalActions(1) == [W]  # on a cell facing West: no reverse
    s = s.generateSuccessor(1, W)  # ghost to (2.5,1): distance 0.5 -> eaten
    assert s.getScore() == -3 + 200
    assert not s.isLose()
    g = s.getGhostState(1)
    assert (g.getPosition(), g.getDirection(), g.scaredTimer) == ((4, 1), STOP, 0)


def test_pacman_touching_non_scared_ghost_loses() -> None:
    # %%%%%
    # %PG.%   P (1,1), ghost (2,1), food (3,1)
    # %%%%%
    s = start("%%%%%", "%PG.%", "%%%%%")
    s1 = s.generateSuccessor(0, E)
    assert s1.getScore() == -501  # -1 - 500
    assert s1.isLose() and not s1.isWin()


def test_ghost_moving_onto_pacman_kills_him() -> None:
    # %%%%%%
    # %P G.%   P (1,1), empty (2,1), ghost (3,1), food (4,1)
    # %%%%%%
    s = start("%%%%%%", "%P G.%", "%%%%%%")
    s = s.generateSuccessor(0, STOP)  # -1
    s = s.generateSuccessor(1, W)  # ghost (2,1): distance 1.0 -> no contact, no cost
    assert s.getScore() == -1 and not s.isLose()
    s = s.generateSuccessor(1, W)  # ghost (1,1) onto Pacman
    assert s.getScore() == -501  # the ghost's move costs nothing, the death -500
    assert s.isLose()


def test_contact_tolerance() -> None:
    # Distance 1.0 is not a contact (Pacman next to a ghost), 0.5 is (a half-cell ghost).
    s = start("%%%%%%", "%P G.%", "%%%%%%")
    s = s.generateSuccessor(0, E)  # Pacman (2,1), ghost (3,1): distance 1
    assert not s.isLose() and s.getScore() == -1
    # Only a scared ghost can be on a half cell; one at distance 0.5 is a contact (here
    # reached by the ghost's move; test_pacman_touching_scared_ghost_eats_it has Pacman's).
    s = start(*SCARED_CORRIDOR)
    s = play(s, (0, E), (0, E))  # capsule, then Pacman (3,1); ghost (4,1) at distance 1
    assert s.getScore() == -2 and s.getGhostState(1).scaredTimer == 40
    s = s.generateSuccessor(1, W)  # ghost (3.5,1): distance 0.5 -> eaten
    assert s.getScore() == -2 + 200
    assert s.getGhostPosition(1) == (4, 1)


def test_last_dot_onto_non_scared_ghost_is_a_win() -> None:
    # %%%%%
    # %P.G%   P (1,1), last food (2,1), ghost (3,1) (dead end: its only move is West)
    # %%%%%
    s = start("%%%%%", "%P.G%", "%%%%%")
    s = s.generateSuccessor(1, W)  # ghost onto the food cell (2,1); distance 1 to Pacman
    assert not s.isLose()
    s = s.generateSuccessor(0, E)  # eat last dot and touch the ghost
    assert s.isWin() and not s.isLose()
    assert s.getScore() == 509  # -1 + 10 + 500, and no -500


def test_last_dot_onto_scared_ghost_wins_and_eats_it() -> None:
    # %%%%%%
    # %Po.G%   P (1,1), capsule (2,1), last food (3,1), ghost (4,1)
    # %%%%%%
    s = start("%%%%%%", "%Po.G%", "%%%%%%")
    s = play(s, (0, E), (1, W))  # capsule (-1); ghost (3.5,1), 1.5 from Pacman
    s = s.generateSuccessor(0, E)  # Pacman (3,1): last dot, and the ghost at 0.5
    assert s.isWin()
    assert s.getScore() == -1 - 1 + 10 + 500 + 200  # 708
    assert s.getGhostPosition(1) == (4, 1)


def test_capsule_under_a_ghost_scares_it_before_the_collision() -> None:
    # %%%%%%
    # %PoG.%   P (1,1), capsule (2,1), ghost (3,1), food (4,1)
    # %%%%%%
    s = start("%%%%%%", "%PoG.%", "%%%%%%")
    s = s.generateSuccessor(1, W)  # ghost onto the capsule cell
    s = s.generateSuccessor(0, E)  # eat capsule (timer 40), then contact -> eaten
    assert s.getScore() == -1 + 200
    assert not s.isLose()
    assert s.getGhostPosition(1) == (3, 1)
    assert s.getGhostState(1).scaredTimer == 0


# --------------------------------------------------------------------------------------------
# Collisions with two ghosts
# --------------------------------------------------------------------------------------------

# %%%%%%%   y=3
# %Po G.%   y=2   P (1,2), capsule (2,2), empty (3,2), ghost 'G' (4,2), food (5,2)
# %%%G%%%   y=1   ghost 'G' (3,1)
# %%%%%%%   y=0
# Ghost order by (x, y): ghost 1 = (3,1), ghost 2 = (4,2). Cell (3,2) is a T junction.
T_CAPSULE = ("%%%%%%%", "%Po G.%", "%%%G%%%", "%%%%%%%")
T_PLAIN = ("%%%%%%%", "%P  G.%", "%%%G%%%", "%%%%%%%")


def test_ghost_numbering_in_t_board() -> None:
    s = start(*T_CAPSULE)
    assert s.getGhostPositions() == [(3, 1), (4, 2)]


def test_two_scared_ghosts_in_one_move_give_400() -> None:
    s = start(*T_CAPSULE)
    s = play(s, (0, E), (1, N), (2, W))
    # Pacman (2,2); ghost 1 (3,1.5) and ghost 2 (3.5,2): both 1.5 away.
    assert s.getGhostPositions() == [(3, 1.5), (3.5, 2)]
    assert s.getScore() == -1
    s = s.generateSuccessor(0, E)  # Pacman (3,2): both at 0.5
    assert s.getScore() == -1 - 1 + 400  # 398
    assert not s.isLose()
    assert s.getGhostPositions() == [(3, 1), (4, 2)]
    assert [g.scaredTimer for g in s.getGhostStates()] == [0, 0]
    assert [g.getDirection() for g in s.getGhostStates()] == [STOP, STOP]


def test_two_non_scared_ghosts_in_one_move_cost_1001() -> None:
    s = start(*T_PLAIN)
    s = play(s, (0, E), (1, N), (2, W))
    # Pacman (2,2); both ghosts on (3,2), each at distance 1.0: no contact yet.
    assert s.getGhostPositions() == [(3, 2), (3, 2)]
    assert s.getScore() == -1 and not s.isLose()
    s2 = s.generateSuccessor(0, E)
    assert s2.getScore() - s.getScore() == -1001  # -1 - 500 - 500
    assert s2.getScore() == -1002
    assert s2.isLose()


def test_one_move_eats_a_scared_ghost_and_dies_to_another() -> None:
    s = start(*T_CAPSULE)
    s = play(s, (0, E), (1, N))  # capsule (-1); ghost 1 to (3,1.5)
    s = s.generateSuccessor(0, E)  # Pacman (3,2) eats ghost 1: -1 + 200
    assert s.getScore() == 198
    assert s.getGhostState(1).scaredTimer == 0  # ghost 1 is back home, not scared
    assert s.getGhostState(2).scaredTimer == 40
    s = play(s, (0, W), (1, N), (2, W))
    # Pacman (2,2) (197); ghost 1 (3,2) not scared; ghost 2 (3.5,2) scared 39.
    assert s.getScore() == 197
    assert s.getGhostPositions() == [(3, 2), (3.5, 2)]
    s = s.generateSuccessor(0, E)  # Pacman (3,2): touches both
    assert s.getScore() == 197 - 1 - 500 + 200  # -104
    assert s.isLose()
    assert s.getGhostPosition(2) == (4, 2)  # the scared one was still eaten


# --------------------------------------------------------------------------------------------
# Scared timer running out
# --------------------------------------------------------------------------------------------

# A ghost that is on a half cell when a capsule (re)sets its timer to 40 is still on a half
# cell 40 moves later, so the snap of its last scared move matters.


def test_timer_running_out_snaps_ghost_onto_pacman_and_kills() -> None:
    # x:  0 1 2 ... 21 22 23 24 25
    #     % G .  (spaces) o  o  P  %     y=1 (rows y=0 and y=2 are walls)
    row = "%G." + " " * 19 + "ooP%"
    assert len(row) == 26
    s = start("%" * 26, row, "%" * 26)
    s = s.generateSuccessor(0, W)  # capsule (23,1): timer 40; score -1
    s = s.generateSuccessor(1, E)  # ghost (1.5,1), timer 39
    s = s.generateSuccessor(0, W)  # capsule (22,1): timer 40 again; score -2
    assert s.getGhostState(1).scaredTimer == 40
    assert s.getPacmanPosition() == (22, 1)
    for _ in range(39):
        assert s.getLegalActions(1) == [E]
        s = s.generateSuccessor(1, E)
    # 40 half moves so far: ghost (1 + 20, 1) = (21,1), distance 1.0 from Pacman, timer 1.
    assert s.getGhostPosition(1) == (21, 1)
    assert s.getGhostState(1).scaredTimer == 1
    assert not s.isLose() and s.getScore() == -2
    s = s.generateSuccessor(1, E)  # (21.5,1), timer 0 -> snaps to int(22.0) = 22: on Pacman
    assert s.getGhostState(1).scaredTimer == 0
    assert s.getGhostPosition(1) == (22, 1)
    assert s.isLose()
    assert s.getScore() == -2 - 500  # killed, not eaten (+200 would give 198)


def test_timer_running_out_snaps_ghost_away_from_pacman() -> None:
    # x:  0 1 2 3 4 ... 22 23 24 25
    #     % P o o (spaces) .  G  %     y=1
    row = "%Poo" + " " * 19 + ".G%"
    assert len(row) == 26
    s = start("%" * 26, row, "%" * 26)
    s = s.generateSuccessor(0, E)  # capsule (2,1)
    s = s.generateSuccessor(1, W)  # ghost (23.5,1), timer 39
    s = s.generateSuccessor(0, E)  # capsule (3,1): timer 40; Pacman (3,1); score -2
    for _ in range(39):
        s = s.generateSuccessor(1, W)
    assert s.getGhostPosition(1) == (4, 1)  # 23.5 - 19.5; distance 1.0
    assert s.getGhostState(1).scaredTimer == 1
    # Last scared move: (3.5,1) would be 0.5 from Pacman, but it snaps to int(4.0) = 4 first.
    s = s.generateSuccessor(1, W)
    assert s.getGhostPosition(1) == (4, 1)
    assert s.getGhostState(1).scaredTimer == 0
    assert s.getGhostState(1).getDirection() == W
    assert not s.isLose() and s.getScore() == -2
    # Full speed again: one move West lands on Pacman and kills him.
    s = s.generateSuccessor(1, W)
    assert s.getGhostPosition(1) == (3, 1)
    assert s.isLose() and s.getScore() == -502


# --------------------------------------------------------------------------------------------
# Legal actions
# --------------------------------------------------------------------------------------------


# %%%%%%%
# %P. G %   P (1,1), food (2,1), empty (3,1), ghost (4,1), empty (5,1) (a dead end)
# %%%%%%%
def test_ghost_may_not_stop_nor_reverse_except_at_dead_end() -> None:
    s = start("%%%%%%%", "%P. G %", "%%%%%%%")
    assert s.getLegalActions(1) == [W, E]  # start (facing Stop): no Stop offered
    with pytest.raises(IllegalMove):
        s.generateSuccessor(1, STOP)
    s = s.generateSuccessor(1, E)  # (5,1) facing East: a dead end
    assert s.getLegalActions(1) == [W]  # reversing is its only move
    s = s.generateSuccessor(1, W)  # (4,1) facing West
    assert s.getLegalActions(1) == [W]  # East would reverse
    with pytest.raises(IllegalMove):
        s.generateSuccessor(1, E)


def test_ghost_at_junction_may_not_reverse() -> None:
    s = start(*T_PLAIN)
    s = s.generateSuccessor(1, N)  # ghost 1 from (3,1) onto the junction (3,2), facing North
    assert s.getLegalActions(1) == [W, E]  # South (reverse) removed


# %%%%%
# %%.%%   y=3
# %.P.%   y=2   Pacman (2,2) with all four neighbours open
# %%.%%   y=1
# %%%%%
CROSS = ("%%%%%", "%%.%%", "%.P.%", "%%.%%", "%%%%%")


def test_classic_legal_action_order() -> None:
    s = start(*CROSS)
    assert s.getLegalActions(0) == [W, STOP, E, N, S]
    assert s.getLegalPacmanActions() == [W, STOP, E, N, S]
    s = start(*CORRIDOR)  # walls West, North, South
    assert s.getLegalActions(0) == [STOP, E]


def test_ghost_legal_action_order_classic() -> None:
    # %%%%%
    # %%.%%
    # %.G.%   ghost (2,2) with four open neighbours, not facing anything
    # %%P%%
    # %%%%%
    s = start("%%%%%", "%%.%%", "%.G.%", "%%P%%", "%%%%%")
    assert s.getLegalActions(1) == [W, E, N, S]


def test_cs221_pacman_has_no_stop_and_lists_north_south_east_west() -> None:
    s = start(*CROSS, ruleset="cs221")
    assert s.getLegalActions(0) == [N, S, E, W]
    with pytest.raises(IllegalMove):
        s.generateSuccessor(0, STOP)
    s = start(*CORRIDOR, ruleset="cs221")
    assert s.getLegalActions(0) == [E]
    s1 = s.generateSuccessor(0, E)
    assert s1.getScore() == -1


def test_cs221_ghost_order() -> None:
    # The CS221 engine lists every agent's moves North, South, East, West.
    s = start("%%%%%", "%%.%%", "%.G.%", "%%P%%", "%%%%%", ruleset="cs221")
    assert s.getLegalActions(1) == [N, S, E, W]


def test_pacman_direction_after_stop_stays() -> None:
    s = start(*CORRIDOR)
    assert s.getPacmanState().configuration.direction == STOP
    s = s.generateSuccessor(0, E)
    assert s.getPacmanState().configuration.direction == E
    s = s.generateSuccessor(0, STOP)
    assert s.getPacmanState().configuration.direction == E
    assert s.getPacmanPosition() == (2, 1)
    s = s.generateSuccessor(0, W)
    assert s.getPacmanState().getDirection() == W


@pytest.mark.parametrize("agent", [0, 1])
def test_unhashable_action_is_an_illegal_move(agent: int) -> None:
    s = start(*CORRIDOR)
    with pytest.raises(IllegalMove):
        s.generateSuccessor(agent, [E])  # type: ignore[arg-type]


def test_illegal_actions_raise() -> None:
    s = start(*CORRIDOR)
    with pytest.raises(IllegalMove):
        s.generateSuccessor(0, W)  # into the wall
    with pytest.raises(IllegalMove):
        s.generateSuccessor(0, N)
    with pytest.raises(IllegalMove):
        s.generateSuccessor(0, "Up")
    with pytest.raises(IllegalMove):
        s.generateSuccessor(0, "east")
    with pytest.raises(IllegalMove):
        s.generateSuccessor(0, None)  # type: ignore[arg-type]
    with pytest.raises(IllegalMove):
        s.generateSuccessor(1, E)  # ghost (5,1) into the wall
    with pytest.raises(IllegalMove):
        s.generateSuccessor(1, STOP)  # ghosts never stop


# --------------------------------------------------------------------------------------------
# End of a game
# --------------------------------------------------------------------------------------------


def test_terminal_states_have_no_moves_and_no_successors() -> None:
    won = start("%%%%%%", "%P. G%", "%%%%%%").generateSuccessor(0, E)
    lost = start("%%%%%", "%PG.%", "%%%%%").generateSuccessor(0, E)
    assert won.isWin() and lost.isLose()
    for s in (won, lost):
        assert s.getLegalActions(0) == []
        assert s.getLegalActions(1) == []
        assert s.getLegalPacmanActions() == []
        with pytest.raises(TerminalStateError):
            s.generateSuccessor(0, STOP)
        with pytest.raises(TerminalStateError):
            s.generateSuccessor(1, W)


# --------------------------------------------------------------------------------------------
# Ghost order and -k
# --------------------------------------------------------------------------------------------

# %%%%%%%%
# %2 G 1P%   '2' (1,1), 'G' (3,1), '1' (5,1), P (6,1)
# %%%%%%%%
# kinds: '2' -> 2, 'G' -> 1, '1' -> 1. Sorted (kind, (x, y)):
# (1,(3,1)) 'G', (1,(5,1)) '1', (2,(1,1)) '2'.
ORDERED = ("%%%%%%%%", "%2 G 1P%", "%%%%%%%%")


def test_ghost_numbering_follows_kind_then_position() -> None:
    s = start(*ORDERED)
    assert s.getNumAgents() == 4
    assert s.getPacmanPosition() == (6, 1)
    assert s.getGhostPositions() == [(3, 1), (5, 1), (1, 1)]


def test_ghost_numbering_digits_and_y_from_bottom() -> None:
    # %%%%%
    # %3G %   y=3  '3' (1,3), 'G' (2,3)
    # %G4 %   y=2  'G' (1,2), '4' (2,2)
    # %1 P%   y=1  '1' (1,1)
    # %%%%%
    # kind 1: 'G' (1,2), '1' (1,1), 'G' (2,3) -> sorted (1,1), (1,2), (2,3); then '3', '4'.
    s = start("%%%%%", "%3G %", "%G4 %", "%1 P%", "%%%%%")
    assert s.getPacmanPosition() == (3, 1)
    assert s.getGhostPositions() == [(1, 1), (1, 2), (2, 3), (1, 3), (2, 2)]


def test_num_ghosts_keeps_the_first_k() -> None:
    assert start(*ORDERED, num_ghosts=2).getGhostPositions() == [(3, 1), (5, 1)]
    assert start(*ORDERED, num_ghosts=1).getGhostPositions() == [(3, 1)]
    assert start(*ORDERED, num_ghosts=0).getNumAgents() == 1
    assert start(*ORDERED, num_ghosts=None).getNumAgents() == 4
    assert start(*ORDERED, num_ghosts=9).getNumAgents() == 4  # more than there are: all


# --------------------------------------------------------------------------------------------
# States are values
# --------------------------------------------------------------------------------------------


def test_states_are_immutable() -> None:
    s = start(*CAPSULES)
    with pytest.raises(AttributeError):
        s._score = 100  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s.score = 100  # type: ignore[attr-defined]
    food = s.getFood()
    food[4][2] = False  # a grid of its own, as the course hands out
    with pytest.raises(TypeError):
        s.getWalls()[1][1] = True
    # What an agent does to the copies it is handed changes no state.
    mine = food.copy()
    mine[4][2] = False
    pac = s.getPacmanState()
    pac.scaredTimer = 7
    pac.configuration.pos = (5, 5)  # type: ignore[union-attr]
    ghost = s.getGhostState(1)
    ghost.scaredTimer = 9
    assert s.hasFood(4, 2)
    assert s.getFood()[4][2] is True
    assert s.getPacmanPosition() == (1, 2)
    assert s.getGhostState(1).scaredTimer == 0


def test_successors_do_not_change_their_parent() -> None:
    s = start(*CAPSULES)

    def snapshot(st: GameState) -> tuple[object, ...]:
        return (
            st.getScore(),
            st.getPacmanPosition(),
            st.getPacmanState().getDirection(),
            st.getGhostPositions(),
            [g.scaredTimer for g in st.getGhostStates()],
            [g.getDirection() for g in st.getGhostStates()],
            st.getFood().asList(),
            st.getCapsules(),
            st.getNumFood(),
            st.getLegalActions(0),
            st.getLegalActions(1),
            st.getLegalActions(2),
            st.isWin(),
            st.isLose(),
            hash(st),
        )

    before = snapshot(s)
    s1 = s.generateSuccessor(0, E)  # capsule: scares the ghosts in s1 only
    s2 = s1.generateSuccessor(1, W)
    s3 = s2.generateSuccessor(0, E)
    for a in s.getLegalActions(1):
        s.generateSuccessor(1, a)
    assert snapshot(s) == before
    assert s.getGhostState(1).scaredTimer == 0 and s1.getGhostState(1).scaredTimer == 40
    assert s2.getGhostPosition(1) == (6.5, 2) and s1.getGhostPosition(1) == (7, 2)
    assert s3.getCapsules() == [] and s2.getCapsules() == [(3, 2)]
    assert s.deepCopy() == s


def test_equal_states_from_two_paths_hash_equal() -> None:
    s = start("%%%%%%%", "%P.. G%", "%%%%%%%")
    # Path A: East (eat (2,1)), Stop. Path B: Stop, East. Both: Pacman (2,1) facing East,
    # food {(3,1)}, score -2 + 10 = 8; the ghost moves West in between on both paths.
    a = play(s, (0, E), (1, W), (0, STOP))
    b = play(s, (0, STOP), (1, W), (0, E))
    assert a is not b
    assert a.getScore() == b.getScore() == 8
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
    # A different score, position or food makes a different state.
    c = play(s, (0, STOP), (1, W), (0, STOP))
    assert c != a
    assert len({a, b, c}) == 2
