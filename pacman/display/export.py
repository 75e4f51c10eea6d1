"""Pictures of a recorded game, made headless: an animated GIF, PNG frames, a frame strip.

`pacman --replay FILE --export game.gif` (or `frames/`, or `strip.png`) and the tournament
report use these. No window is opened: drawing goes to plain pygame surfaces and only
`pygame.font` is initialised, so this runs on a server without a display (the SDL dummy
video driver is not even needed).

Design notes:

* Frame k is the state after k moves, drawn exactly as the viewer shows it paused (same
  renderer, same `Timeline`), so a picture in a report is what the engine computed. Frame 0
  is the start, so a game of N moves gives N + 1 frames.
* The GIF is written frame by frame as it is drawn, each frame only the rectangle that
  changed since the previous one: memory stays at one frame whatever the game's length
  (Pillow's own multi-frame writer keeps every frame until the end, hundreds of megabytes for
  a 3000-move game). Pillow still does the LZW encoding of each rectangle.
* One fixed palette for the whole GIF: the renderer's named colours exactly (so Pacman is
  the same yellow in every frame and a test can find him), plus the anti-aliased shades of a
  sample frame. No dithering: flat colours stay flat.
* GIF delays are in hundredths of a second; each frame's delay is rounded so the total stays
  in step with the requested rate (at 3 fps: 33, 34, 33, ... cs).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
from PIL import GifImagePlugin, Image, ImageChops

from pacman.display.palette import NAMED_COLORS, Color
from pacman.display.render import Renderer, picture_width, zoom_cell
from pacman.display.timeline import ReplayMismatch, Timeline, load_timeline

__all__ = [
    "END_HOLD",
    "MAX_FPS",
    "ReplayMismatch",
    "export_frames",
    "export_gif",
    "export_strip",
    "frame_delays",
    "picture_renderer",
    "render_frames",
    "strip_indices",
]

#: Highest frame rate: GIF viewers treat delays under 2 cs as 10 cs (slower, not faster).
MAX_FPS = 50.0
#: How long the final frame (with the outcome) stays before a GIF loops, in seconds.
END_HOLD = 1.5
#: Pixels between the frames of a strip.
STRIP_GAP = 4
STRIP_GAP_COLOR: Color = (60, 60, 60)
#: Shades this close (per channel) to a named colour are left out of a GIF palette.
_NEAR = 8


def picture_renderer(timeline: Timeline, zoom: float = 1.0) -> Renderer:
    """The renderer of a game's pictures: cells of `zoom`, two status lines, and as wide as
    the widest status text of any move needs (a small board with long names gets a picture
    wider than the board, its status whole on every frame)."""
    layout = timeline.replay.layout
    cell = zoom_cell(zoom)
    return Renderer(layout, cell, status_rows=2,
                    width=picture_width(layout, cell, timeline.status_room()))


def render_frames(timeline: Timeline, zoom: float = 1.0) -> Iterator[pygame.Surface]:
    """One picture per state, start first. The same surface is yielded each time, redrawn:
    use (or copy) it before asking for the next."""
    renderer = picture_renderer(timeline, zoom)
    canvas = renderer.new_canvas()
    for index in range(timeline.total + 1):
        renderer.draw(canvas, timeline.scene(index))
        yield canvas


def frame_delays(count: int, fps: float, end_hold: float = END_HOLD) -> list[int]:
    """GIF delays in centiseconds for `count` frames at `fps`; the last one also holds.

    Rounded cumulatively, so frame k starts at round(k * 100 / fps) cs and the animation
    keeps its rate however the division falls.
    """
    step = 100.0 / fps
    delays = [round((k + 1) * step) - round(k * step) for k in range(count)]
    if delays:
        delays[-1] += round(end_hold * 100)
    return delays


def export_gif(
    replay_path: Path,
    out: Path,
    fps: float = 10.0,
    zoom: float = 1.0,
    *,
    end_hold: float = END_HOLD,
) -> int:
    """Write an animated GIF of the replay, one frame per move plus the start; the count.

    The last frame (with the outcome) is held `end_hold` seconds longer before the GIF loops.
    Raises ReplayError for an unreadable file and ReplayMismatch (a ReplayError) for one that
    stops reproducing: a picture must not show a game that did not happen.
    """
    _check_rate(fps, zoom)
    timeline = load_timeline(replay_path).require_exact()
    delays = frame_delays(timeline.total + 1, fps, end_hold)
    out.parent.mkdir(parents=True, exist_ok=True)
    frames = render_frames(timeline, zoom)
    first = _to_image(next(frames))
    palette = _palette(first, _to_image(_last_frame(timeline, zoom)))
    count = 0
    with out.open("wb") as fp:
        previous: Image.Image | None = None
        for image in _chain_first(first, frames):
            indexed = image.quantize(palette=palette, dither=Image.Dither.NONE)
            if previous is None:
                header, _ = GifImagePlugin.getheader(indexed, None, {"loop": 0, "duration": 1})
                _write(fp, header)
                box: tuple[int, int, int, int] = (0, 0, *indexed.size)
            else:
                box = _changed_box(previous, indexed)
            part = indexed if box == (0, 0, *indexed.size) else indexed.crop(box)
            _write(fp, GifImagePlugin.getdata(part, offset=box[:2], duration=delays[count] * 10))
            previous = indexed
            count += 1
        fp.write(b";")
    return count


def export_frames(replay_path: Path, out_dir: Path, zoom: float = 1.0) -> int:
    """Write `frame-0000.png` (the start), `frame-0001.png` (after move 1), ...; the count."""
    _check_rate(1.0, zoom)
    timeline = load_timeline(replay_path).require_exact()
    out_dir.mkdir(parents=True, exist_ok=True)
    digits = max(4, len(str(timeline.total)))
    count = 0
    for index, canvas in enumerate(render_frames(timeline, zoom)):
        pygame.image.save(canvas, str(out_dir / f"frame-{index:0{digits}d}.png"))
        count += 1
    return count


def strip_indices(total: int, frames: int) -> list[int]:
    """`frames` states spread evenly over a game of `total` moves, start and end included."""
    if frames < 1:
        raise ValueError(f"a strip needs at least 1 frame, got {frames}")
    if frames == 1:
        return [total]
    return sorted({round(i * total / (frames - 1)) for i in range(frames)})


def export_strip(replay_path: Path, out_png: Path, frames: int = 8, zoom: float = 0.5) -> int:
    """One PNG of a few frames side by side (start ... end), for reports; the frame count."""
    _check_rate(1.0, zoom)
    timeline = load_timeline(replay_path).require_exact()
    indices = strip_indices(timeline.total, frames)
    renderer = picture_renderer(timeline, zoom)
    width, height = renderer.size
    strip = pygame.Surface((len(indices) * width + (len(indices) - 1) * STRIP_GAP, height))
    strip.fill(STRIP_GAP_COLOR)
    canvas = renderer.new_canvas()
    for n, index in enumerate(indices):
        renderer.draw(canvas, timeline.scene(index))
        strip.blit(canvas, (n * (width + STRIP_GAP), 0))
    out_png.parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(strip, str(out_png))
    return len(indices)


# --- helpers ----------------------------------------------------------------------------------


def _check_rate(fps: float, zoom: float) -> None:
    if not 0 < fps <= MAX_FPS:
        raise ValueError(f"fps must be above 0 and at most {MAX_FPS:g}, got {fps}")
    if not 0 < zoom <= 10:
        raise ValueError(f"zoom must be above 0 and at most 10, got {zoom}")


def _to_image(canvas: pygame.Surface) -> Image.Image:
    return Image.frombytes("RGB", canvas.get_size(), pygame.image.tobytes(canvas, "RGB"))


def _last_frame(timeline: Timeline, zoom: float) -> pygame.Surface:
    """The final picture (outcome banner and its colour), for the palette sample."""
    renderer = picture_renderer(timeline, zoom)
    canvas = renderer.new_canvas()
    renderer.draw(canvas, timeline.scene(timeline.total))
    return canvas


def _palette(*samples: Image.Image) -> Image.Image:
    """A 256-colour palette image: every named colour exactly, then a sample's other shades."""
    named: list[Color] = list(dict.fromkeys(NAMED_COLORS))
    width = sum(s.width for s in samples)
    sheet = Image.new("RGB", (width, max(s.height for s in samples)))
    x = 0
    for sample in samples:
        sheet.paste(sample, (x, 0))
        x += sample.width
    shades = sheet.quantize(colors=256 - len(named), method=Image.Quantize.MEDIANCUT)
    extra = shades.getpalette() or []
    # Pillow maps colours to a palette through a cache of 6-bit boxes: a shade a level or two
    # off a named colour could take that colour's box, and Pacman would come out (254, 230, 40).
    others = [
        color
        for color in zip(extra[0::3], extra[1::3], extra[2::3])
        if all(max(abs(a - b) for a, b in zip(color, n)) > _NEAR for n in named)
    ]
    flat = [channel for color in named + others for channel in color]
    flat = (flat + [0] * 768)[:768]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat)
    return palette


def _changed_box(before: Image.Image, after: Image.Image) -> tuple[int, int, int, int]:
    """The rectangle where two palette images differ (a 1x1 corner when they do not).

    Palette indices are compared as grey levels: the palette is the same for every frame,
    so equal indices mean equal colours.
    """
    a = Image.frombytes("L", before.size, before.tobytes())
    b = Image.frombytes("L", after.size, after.tobytes())
    box = ImageChops.difference(a, b).getbbox()
    return box if box is not None else (0, 0, 1, 1)


def _chain_first(first: Image.Image, rest: Iterator[pygame.Surface]) -> Iterator[Image.Image]:
    yield first
    for canvas in rest:
        yield _to_image(canvas)


def _write(fp: BinaryIO, parts: list[bytes]) -> None:
    for part in parts:
        fp.write(part)
