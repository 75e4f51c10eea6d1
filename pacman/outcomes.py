"""How a game can end, and what each ending means for each side: the one home of these names.

The engine (`pacman.game`) produces outcomes, the tournament stores, counts and rates them;
all of them read the names and their meaning here.

The rules end a game in `ENDINGS`. An agent's failure ends it too, as one of `FAILURES`,
with the failing agent's index as the game's culprit (0 is Pacman, 1.. the ghosts, all of
which belong to one side). `INFRA_ERROR` is the platform's own failure: recorded, never
scored, played again by the next run.
"""

from __future__ import annotations

#: The rules' endings.
ENDINGS = ("win", "loss", "move_limit")
#: An agent could not be loaded, built or registered (the first of the failures).
LOAD_ERROR = "load_error"
#: An agent failed; the game's culprit says which. It ends the game.
FAILURES = (LOAD_ERROR, "crash", "timeout", "illegal_action", "memory", "killed")
#: The platform itself failed (a sandbox could not start...): recorded, never scored.
INFRA_ERROR = "infra_error"
#: Every outcome a stored game may have.
OUTCOMES = (*ENDINGS, *FAILURES, INFRA_ERROR)
#: A game stopped from outside before its end (its window closed, Escape, Ctrl-C): the
#: `pacman` command keeps its replay so far under this outcome. Never a tournament game's.
STOPPED = "stopped"

#: The two sides of a game. Every ghost of a game belongs to one side (one team or one
#: built-in ghost setting), so a failure of any ghost is the ghost side's.
PACMAN = "pacman"
GHOSTS = "ghosts"
SIDES = (PACMAN, GHOSTS)


def side_of(index: int) -> str:
    """The side agent `index` plays for."""
    return PACMAN if index == 0 else GHOSTS


def culprit_side(outcome: str, culprit: int | None) -> str | None:
    """The side whose agent failed, or None when no agent failed (a rules ending, the
    platform's own failure, or a failure with no known culprit)."""
    if outcome not in FAILURES or culprit is None:
        return None
    return side_of(culprit)


def pacman_points(outcome: str, culprit: int | None) -> float | None:
    """What a game gives the Pacman side in a match (the ghost side gets 1 minus it), or None
    for a game that counts for nobody (`infra_error`).

    A win is 1 and a loss 0; a failure costs the failing side the game (a ghost team that
    crashes, times out or answers illegally forfeits it; a Pacman that does loses it); a game
    stopped by the move limit is a draw, 1/2: Pacman did not clear the board, and the ghosts
    did not catch it either.
    """
    if outcome == "win":
        return 1.0
    if outcome == "move_limit":
        return 0.5
    if outcome == "loss":
        return 0.0
    side = culprit_side(outcome, culprit)
    if side is None:
        return None
    return 1.0 if side == GHOSTS else 0.0
