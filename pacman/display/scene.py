"""What one picture shows, as plain data: the bridge between a game and the pygame renderer.

A `Scene` is everything the renderer needs for one frame - agent poses (possibly between two
cells), the board's contents, the status bar's text, a banner, an overlay - and nothing of
how it is drawn. Keeping it free of pygame lets the live window, the replay viewer and the
picture export share one renderer, and lets tests check animation maths (where is a ghost a
third of the way through its move? how wide is Pacman's mouth?) without a display.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pacman.actions import Directions
from pacman.state import GameState

Point = tuple[float, float]

#: Pacman's mouth half-opening (degrees) fully open and nearly shut. Never quite shut, so
#: even a still picture shows which way he faces.
MOUTH_OPEN = 40.0
MOUTH_SHUT = 6.0

#: The farthest an agent travels in one move is one cell; anything farther is a jump (an eaten
#: ghost sent home), which is shown at once rather than as a slide across the maze.
_MAX_SLIDE = 1.01


@dataclass(frozen=True)
class Pose:
    """Where one agent is drawn, which way it looks, and its scared timer (colour)."""

    pos: Point
    direction: str
    scared: int


@dataclass(frozen=True)
class StatusRow:
    """One line of the status bar: text flush left, centred and flush right.

    When they do not all fit, the left text is shortened first: the centre (move number,
    outcome) and right (layout, playback state) are what a viewer glances at.
    """

    left: str = ""
    centre: str = ""
    right: str = ""
    #: Colour key of the centre text: "" for plain, else an outcome (`win`, `loss`, ...).
    centre_tone: str = ""


@dataclass(frozen=True)
class StatusRoom:
    """Every text each part of each status line may show during one game: what the picture's
    width is made for, once per game.

    The width is chosen before the first frame and kept (a window or a GIF that changed width
    as the score grew would jump), so it must hold the widest text the game will ever show
    there: the owner of the status text lists them all (every move's, every playback note,
    the outcome) and the renderer measures them. `lines[i]` is line i's (left, centre, right)
    texts.
    """

    lines: tuple[tuple[frozenset[str], frozenset[str], frozenset[str]], ...] = ()

    @staticmethod
    def of(frames: Iterable[Sequence[StatusRow]]) -> StatusRoom:
        """The room for these status bars (one per frame), line by line."""
        lines: list[tuple[set[str], set[str], set[str]]] = []
        for rows in frames:
            for i, row in enumerate(rows):
                if i == len(lines):
                    lines.append((set(), set(), set()))
                left, centre, right = lines[i]
                left.add(row.left)
                centre.add(row.centre)
                right.add(row.right)
        return StatusRoom(tuple((frozenset(a), frozenset(b), frozenset(c))
                                for a, b, c in lines))


@dataclass(frozen=True)
class Scene:
    """One frame. Discrete things (food, capsules, score) come from `state`; agents from `poses`.

    During a slide between two states `state` is whichever of the two is nearer, so food
    vanishes when Pacman is half-way into its cell, not before he starts moving.
    """

    state: GameState
    poses: tuple[Pose, ...]
    #: Pacman's mouth direction: his last real direction (Stop keeps the previous one).
    facing: str
    #: Pacman's chewing phase: whole numbers alternate open (even) and nearly shut (odd).
    chew: float
    status: tuple[StatusRow, ...] = ()
    #: A big word over the board (the outcome at the end), with its colour key.
    banner: str = ""
    banner_tone: str = ""
    #: Lines of a help box drawn over everything (empty: no box).
    overlay: tuple[str, ...] = ()


def poses(state: GameState) -> tuple[Pose, ...]:
    """The agents of a state exactly where they are."""
    return tuple(Pose((float(p[0]), float(p[1])), d, t) for p, d, t in state.agents)


def tween(before: GameState, after: GameState, t: float) -> tuple[Pose, ...]:
    """Agents a fraction `t` (0..1) of the way from `before` to `after`.

    Each agent slides in a straight line (a move is at most one cell, so a straight line is
    the path it took). Its direction is the new one from the start, so eyes and mouth look
    where it is going; its scared timer switches half-way, with everything else discrete.
    """
    t = min(1.0, max(0.0, t))
    out: list[Pose] = []
    for (p0, _, s0), (p1, d1, s1) in zip(before.agents, after.agents):
        x0, y0 = float(p0[0]), float(p0[1])
        x1, y1 = float(p1[0]), float(p1[1])
        if abs(x1 - x0) + abs(y1 - y0) <= _MAX_SLIDE:
            pos = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
        else:
            pos = (x1, y1)
        out.append(Pose(pos, d1, s0 if t < 0.5 else s1))
    return tuple(out)


def nearer(before: GameState, after: GameState, t: float) -> GameState:
    """The state whose food, capsules and score a frame `t` of the way between them shows."""
    return before if t < 0.5 else after


def mouth_degrees(chew: float) -> float:
    """Pacman's mouth half-opening for a chewing phase: a smooth open-shut-open cycle.

    Whole even phases are fully open, odd ones nearly shut, so still frames (an exported GIF,
    a paused replay) alternate between the two as he moves, and a slide between cells closes
    and reopens the mouth continuously.
    """
    return MOUTH_SHUT + (MOUTH_OPEN - MOUTH_SHUT) * (0.5 + 0.5 * math.cos(math.pi * chew))


def facing(previous: str, direction: str) -> str:
    """Pacman's mouth keeps pointing his last real way when he stops."""
    return previous if direction == Directions.STOP else direction


#: An agent reference as replays before names-for-people wrote it: `/any/folder/file.py:Class`.
_PATH_REFERENCE = re.compile(r"^.*[/\\](?P<file>[^/\\]+:[A-Za-z_][A-Za-z0-9_]*)$")


def shown_agent(name: str) -> str:
    """An agent's name from a replay file, as people are shown it: never a path.

    Replays name agents for people (`example-team (ExpectimaxAgent)`, `multiAgents.py:Class`);
    older ones wrote the file's path (`/home/ta/cup/submissions/team/multiAgents.py:Class`),
    which says where the organizer keeps things: only the file's own name and the class are
    shown then. Names that are not such a path (a team name with a slash) are kept.
    """
    match = _PATH_REFERENCE.match(name)
    return match.group("file") if match else name


def describe_agents(names: Sequence[str]) -> str:
    """`GreedyAgent vs 2 x RandomGhost` for a status bar: Pacman first, equal ghosts counted."""
    if not names:
        return ""
    pacman, ghosts = names[0], list(names[1:])
    if not ghosts:
        return pacman
    if len(set(ghosts)) == 1:
        them = ghosts[0] if len(ghosts) == 1 else f"{len(ghosts)} x {ghosts[0]}"
    else:
        them = ", ".join(ghosts)
    return f"{pacman} vs {them}"


def outcome_label(outcome: str, culprit: int | None = None) -> str:
    """The banner for an outcome: `WIN`, `MOVE LIMIT`, `TIMEOUT (GHOST 2)`."""
    label = outcome.replace("_", " ").upper()
    if culprit is not None:
        label += " (PACMAN)" if culprit == 0 else f" (GHOST {culprit})"
    return label
