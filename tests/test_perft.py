"""Perft: pin the number of move sequences (and distinct states) N single-agent moves deep.

As in chess engines, these counts pin move generation, move order-independent legality,
terminal detection and state equality at once: any change to the rules that changes which
moves are legal, where agents end up, or when a game ends changes a number below.

Counting convention: agents move in the order 0, 1, ..., k, 0, 1, ...; `perft(state, n)` is the
number of legal action sequences of n single moves, where a sequence that reaches a won or lost
state stops there and counts as one leaf (a terminal state is not expanded). `distinct` is the
number of different states (GameState equality) among those leaves.

How the small numbers were checked by hand (y counts rows from the bottom):

smallClassic: Pacman starts at (9,1) on the bottom corridor; (9,2) above is a wall, so his
  moves are West, Stop, East: depth 1 = 3. Ghost 1 (8,5) has walls West, North and South, so
  its only move is East: depth 2 = 3 * 1 = 3. Ghost 2 (11,5) can only go West: depth 3 = 3.
  Depth 4: from (8,1), (9,1) and (10,1) Pacman again has West, Stop, East (the cells above
  are walls): 9. Distinct 7 because West+Stop equals Stop+West and East+Stop equals
  Stop+East (same cell, same facing, same food, same score). Depth 5: ghost 1 at (9,5) facing
  East may go East or South (not back West): 18 = 9 * 2, distinct 14. Depth 6: ghost 2 at
  (10,5) facing West may go West or South: 36, distinct 28.
smallClassic, cs221: no Stop, so 2, 2, 2, then 4 (West/East from (8,1) and (10,1), all
  different), 8, 16 with the same ghost branching as above.
testClassic: Pacman (1,1) has Stop, East, North: 3. The ghost (2,7) has four open neighbours:
  12. Depth 3: Pacman at (1,1) has 3 moves, at (2,1) 4 (West, Stop, East, North), at (1,2) 4
  (Stop, East, North, South): (3 + 4 + 4) * 4 = 44.
minimaxClassic: Pacman (2,3): West, Stop, East = 3. Ghosts sorted by (x, y): (1,1) with
  North/East = 2 -> 6; (5,2) with North/South = 2 -> 12; (7,3) with West only -> 12.
trappedClassic: Pacman (4,3): West, Stop, East = 3; ghost 1 (1,2): North/South -> 6; ghost 2
  (6,3): West only -> 6 (after Pacman's East it lands on him: 2 of those 6 are lost, terminal
  leaves). Depth 4: 4 live leaves * 3 Pacman moves + 2 terminal leaves = 14; distinct 12
  because Stop+West equals West+Stop for each of ghost 1's two choices.
mediumClassic -k 1: Pacman (9,1): West, Stop, East = 3; the ghost (8,5) can only go East: 3;
  Pacman again 3 from each: 9, distinct 7 (as in smallClassic); the ghost at (9,5) facing East
  may go East or North: 18, distinct 14.
capsuleBox (below): Pacman (3,3): West (the capsule), Stop, East = 3; ghost 1 (4,1): West/East
  -> 6; ghost 2 (5,3): West/South -> 12. Depth 4: the 2 sequences East then ghost 2 West are
  lost (terminal leaves); the other 10 leaves give Pacman 3 moves each: 30 + 2 = 32, distinct
  30 (Stop+East equals East+Stop when ghost 2 went South, for each of ghost 1's two moves).

The larger numbers were then pinned from one run of this engine after those checks passed.
"""

from __future__ import annotations

import pytest

from pacman.layout import load_layout, parse_layout
from pacman.state import GameState


def perft(state: GameState, depth: int) -> tuple[int, int]:
    """(number of move sequences of `depth` single moves, number of distinct leaf states)."""
    num_agents = state.getNumAgents()
    leaves: set[GameState] = set()

    def count(s: GameState, d: int, agent: int) -> int:
        if d == 0 or s.isWin() or s.isLose():
            leaves.add(s)
            return 1
        nxt = (agent + 1) % num_agents
        return sum(
            count(s.generateSuccessor(agent, a), d - 1, nxt) for a in s.getLegalActions(agent)
        )

    return count(state, depth, 0), len(leaves)


def distinct_by_levels(state: GameState, depth: int) -> int:
    """Distinct leaves computed another way: expand each distinct state of a level only once."""
    num_agents = state.getNumAgents()
    level = {state}
    for d in range(depth):
        agent = d % num_agents
        nxt: set[GameState] = set()
        for s in level:
            if s.isWin() or s.isLose():
                nxt.add(s)
            else:
                nxt.update(s.generateSuccessor(agent, a) for a in s.getLegalActions(agent))
        level = nxt
    return len(level)


# x:  0123456
#     %%%%%%%   y=4
#     %.oP G%   y=3   Pacman (3,3), capsule (2,3), ghost (5,3)
#     %.%%% %   y=2
#     %.. G.%   y=1   ghost (4,1)
#     %%%%%%%   y=0
# A small board where the capsule, scared half-speed ghosts, eaten ghosts and deaths all
# happen within a few moves.
CAPSULE_BOX = "%%%%%%%\n%.oP G%\n%.%%% %\n%.. G.%\n%%%%%%%"


def initial(name: str, **kwargs: object) -> GameState:
    layout = parse_layout(CAPSULE_BOX, name=name) if name == "capsuleBox" else load_layout(name)
    return GameState.initial(layout, **kwargs)  # type: ignore[arg-type]


# (layout, GameState.initial options) -> [(nodes, distinct) at depth 1, 2, ...]
PERFT = {
    ("smallClassic", ()): [(3, 3), (3, 3), (3, 3), (9, 7), (18, 14), (36, 28)],
    ("testClassic", ()): [
        (3, 3),
        (12, 12),
        (44, 36),
        (99, 81),
        (378, 162),
        (630, 234),
        (2505, 416),
        (5500, 699),
    ],
    ("minimaxClassic", ()): [(3, 3), (6, 6), (12, 12), (12, 12), (40, 32), (40, 32)],
    ("trappedClassic", ()): [(3, 3), (6, 6), (6, 6), (14, 12), (14, 12), (14, 12)],
    ("mediumClassic", (("num_ghosts", 1),)): [
        (3, 3),
        (3, 3),
        (9, 7),
        (18, 14),
        (54, 26),
        (108, 52),
    ],
    ("smallClassic", (("ruleset", "cs221"),)): [(2, 2), (2, 2), (2, 2), (4, 4), (8, 8), (16, 16)],
    ("capsuleBox", ()): [
        (3, 3),
        (6, 6),
        (12, 12),
        (32, 30),
        (32, 30),
        (32, 30),
        (84, 56),
        (84, 56),
        (88, 60),
        (240, 113),
        (240, 113),
        (260, 123),
    ],
    ("capsuleBox", (("ruleset", "cs221"),)): [
        (2, 2),
        (4, 4),
        (8, 8),
        (14, 14),
        (14, 14),
        (14, 14),
        (26, 26),
        (26, 26),
        (28, 28),
        (51, 43),
        (51, 43),
        (55, 47),
    ],
}

# Deeper regression pins (not checked by hand): cheap, and they reach food, wins and deaths.
PERFT_DEEP = {
    ("smallClassic", ()): {9: (432, 208), 12: (4018, 864)},
    ("testClassic", ()): {10: (51241, 1337)},
    ("minimaxClassic", ()): {9: (167, 83), 12: (435, 200)},
    ("trappedClassic", ()): {10: (32, 20), 14: (42, 23)},
}


def case_id(case: tuple[str, tuple[tuple[str, object], ...]]) -> str:
    name, options = case
    return name + "".join(f"-{k}={v}" for k, v in options)


@pytest.mark.parametrize("case", list(PERFT), ids=case_id)
def test_perft(case: tuple[str, tuple[tuple[str, object], ...]]) -> None:
    name, options = case
    s = initial(name, **dict(options))
    expected = PERFT[case]
    got = [perft(s, d) for d in range(1, len(expected) + 1)]
    assert got == expected


@pytest.mark.parametrize("case", list(PERFT_DEEP), ids=case_id)
def test_perft_deep(case: tuple[str, tuple[tuple[str, object], ...]]) -> None:
    name, options = case
    s = initial(name, **dict(options))
    for depth, expected in PERFT_DEEP[case].items():
        assert perft(s, depth) == expected, depth


@pytest.mark.parametrize("case", list(PERFT), ids=case_id)
def test_distinct_counts_agree_with_level_by_level_expansion(
    case: tuple[str, tuple[tuple[str, object], ...]],
) -> None:
    # A state determines its future: expanding each distinct state once per level must reach
    # exactly the distinct leaves of the full tree (this checks equality/hashing against moves).
    name, options = case
    s = initial(name, **dict(options))
    expected = PERFT[case]
    for depth in range(1, len(expected) + 1):
        assert distinct_by_levels(s, depth) == expected[depth - 1][1], depth


@pytest.mark.parametrize("case", list(PERFT), ids=case_id)
def test_perft_first_levels_match_legal_action_counts(
    case: tuple[str, tuple[tuple[str, object], ...]],
) -> None:
    # depth 1 = Pacman's legal moves; depth 2 = sum over them of ghost 1's legal moves.
    name, options = case
    s = initial(name, **dict(options))
    pac = s.getLegalActions(0)
    assert perft(s, 1)[0] == len(pac) == PERFT[case][0][0]
    if s.getNumAgents() > 1:
        two = sum(len(s.generateSuccessor(0, a).getLegalActions(1)) for a in pac)
        assert perft(s, 2)[0] == two == PERFT[case][1][0]
