"""The colours and shape constants of the board's pictures: one home for the pygame renderer
(`pacman.display.render`) and the report's in-page player, which reads them from
`assets/palette.js` (`web_palette`, written by the report) instead of keeping its own copy.

Pure data, no pygame: the report and the frame writer import it without a display.
"""

from __future__ import annotations

from typing import Any

from pacman.display.scene import MOUTH_OPEN, MOUTH_SHUT

Color = tuple[int, int, int]

BACKGROUND: Color = (0, 0, 0)
#: The body of a wall tube (what a wall cell's centre shows).
WALL_COLOR: Color = (20, 30, 125)
#: The bright outline around wall tubes.
WALL_EDGE: Color = (70, 110, 255)
FOOD_COLOR: Color = (255, 255, 255)
CAPSULE_COLOR: Color = (255, 255, 255)
PACMAN_COLOR: Color = (255, 230, 40)
#: One colour per ghost (agent 1 takes the first, ...); cycled if a layout has more ghosts.
GHOST_COLORS: tuple[Color, ...] = (
    (230, 30, 30),  # red
    (255, 150, 210),  # pink
    (255, 160, 20),  # orange
    (60, 210, 90),  # green
    (170, 80, 230),  # purple
    (150, 90, 40),  # brown
)
SCARED_COLOR: Color = (35, 45, 230)
#: The colour a scared ghost flashes when its fright is about to end.
SCARED_BLINK_COLOR: Color = (240, 240, 255)
SCARED_FACE: Color = (255, 200, 160)
SCARED_BLINK_FACE: Color = (230, 20, 20)
EYE_WHITE: Color = (255, 255, 255)
PUPIL_COLOR: Color = (20, 20, 90)
STATUS_BACKGROUND: Color = (15, 15, 15)
STATUS_TEXT: Color = (255, 255, 255)
HELP_KEY: Color = (255, 230, 40)
#: Colours of outcome words (status bar and banner); anything else is `OTHER_TONE`.
TONES: dict[str, Color] = {
    "win": (90, 230, 90),
    "loss": (240, 70, 70),
    "move_limit": (230, 230, 140),
}
OTHER_TONE: Color = (255, 160, 60)

#: A scared ghost starts blinking when its timer falls below this (its last few moves).
BLINK_THRESHOLD = 8


#: Every named colour, for exporters that build a fixed palette (GIF) and must keep them exact.
NAMED_COLORS: tuple[Color, ...] = (
    BACKGROUND, WALL_COLOR, WALL_EDGE, FOOD_COLOR, PACMAN_COLOR, *GHOST_COLORS, SCARED_COLOR,
    SCARED_BLINK_COLOR, SCARED_FACE, SCARED_BLINK_FACE, EYE_WHITE, PUPIL_COLOR,
    STATUS_BACKGROUND, HELP_KEY, *TONES.values(), OTHER_TONE,
)


def css(color: Color) -> str:
    return f"rgb({color[0]},{color[1]},{color[2]})"


def web_palette() -> dict[str, Any]:
    """The palette as the in-page player takes it (CSS colours, the blink and mouth rules)."""
    return {
        "background": css(BACKGROUND),
        "wall": css(WALL_COLOR),
        "wallEdge": css(WALL_EDGE),
        "food": css(FOOD_COLOR),
        "capsule": css(CAPSULE_COLOR),
        "pacman": css(PACMAN_COLOR),
        "ghosts": [css(c) for c in GHOST_COLORS],
        "scared": css(SCARED_COLOR),
        "scaredBlink": css(SCARED_BLINK_COLOR),
        "scaredFace": css(SCARED_FACE),
        "scaredBlinkFace": css(SCARED_BLINK_FACE),
        "eyeWhite": css(EYE_WHITE),
        "pupil": css(PUPIL_COLOR),
        "tones": {outcome: css(c) for outcome, c in TONES.items()},
        "otherTone": css(OTHER_TONE),
        "blinkThreshold": BLINK_THRESHOLD,
        "mouthOpen": MOUTH_OPEN,
        "mouthShut": MOUTH_SHUT,
    }
