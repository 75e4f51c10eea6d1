"""Pictures of recorded games, made headless: GIF frames and rate, PNG frames, strips, the CLI."""

from __future__ import annotations

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import json
import subprocess
import sys
from pathlib import Path

import pygame
import pytest
from click.testing import CliRunner
from PIL import Image

from pacman import replay as replays
from pacman.cli import main
from pacman.display.export import (
    END_HOLD,
    ReplayMismatch,
    export_frames,
    export_gif,
    export_strip,
    frame_delays,
    picture_renderer,
    strip_indices,
)
from pacman.display.render import CELL_SIZE, PACMAN_COLOR, Renderer, status_row_height
from pacman.display.timeline import load_timeline
from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import resolve
from pacman.state import GameState
from tests.conftest import assert_status_whole, replay_states

LAYOUT = "smallClassic"


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lay = load_layout(LAYOUT)
    result = play(GameSpec(lay, resolve("GreedyAgent"), resolve("RandomGhost", kind="ghost"),
                           seed=0))
    return replays.write(result, lay, tmp_path_factory.mktemp("replays") / "game.json")


def pacman_pixel(image: Image.Image, state: GameState, zoom: float = 1.0) -> tuple[int, ...]:
    renderer_cell = round(CELL_SIZE * zoom)
    x, y = state.getPacmanPosition()
    px = int((x + 0.5) * renderer_cell)
    py = int((state.layout.height - 1 - y + 0.5) * renderer_cell)
    return tuple(image.convert("RGB").getpixel((px, py)))  # type: ignore[arg-type]


def durations(path: Path) -> list[int]:
    with Image.open(path) as im:
        out = []
        for k in range(im.n_frames):
            im.seek(k)
            out.append(im.info["duration"])
        return out


def test_gif_has_one_frame_per_move_plus_the_start(replay_file: Path, tmp_path: Path) -> None:
    states = replay_states(replay_file)
    out = tmp_path / "game.gif"
    count = export_gif(replay_file, out, fps=10)
    assert count == len(states) == 58
    with Image.open(out) as im:
        assert im.n_frames == count
        lay = load_layout(LAYOUT)
        assert im.size == (lay.width * CELL_SIZE,
                           lay.height * CELL_SIZE + 2 * status_row_height(CELL_SIZE))
        assert im.info.get("loop") == 0
        # Every frame shows the engine's state of its move: Pacman where the engine puts him.
        for k, state in enumerate(states):
            im.seek(k)
            if not state.isLose():
                assert pacman_pixel(im, state) == PACMAN_COLOR, k
    assert durations(out) == [100] * (count - 1) + [100 + round(END_HOLD * 1000)]


@pytest.mark.parametrize("fps,expected", [(4, 250), (20, 50), (2.5, 400)])
def test_gif_rate_follows_fps(replay_file: Path, tmp_path: Path, fps: float,
                              expected: int) -> None:
    out = tmp_path / "game.gif"
    count = export_gif(replay_file, out, fps=fps, end_hold=0)
    assert durations(out) == [expected] * count


def test_frame_delays_keep_the_rate_when_it_does_not_divide() -> None:
    delays = frame_delays(9, fps=3, end_hold=0)
    assert set(delays) == {33, 34} and sum(delays) == 300
    assert frame_delays(2, fps=10, end_hold=1.5) == [10, 160]
    assert frame_delays(0, fps=10) == []


def test_gif_zoom_and_rate_limits(replay_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "small.gif"
    export_gif(replay_file, out, zoom=0.5)
    with Image.open(out) as im:
        assert im.size[0] == load_layout(LAYOUT).width * 15
        assert pacman_pixel(im, replay_states(replay_file)[0], zoom=0.5) == PACMAN_COLOR
    for bad in (0, -1, 51):
        with pytest.raises(ValueError, match="fps"):
            export_gif(replay_file, out, fps=bad)


def test_png_frames(replay_file: Path, tmp_path: Path) -> None:
    states = replay_states(replay_file)
    folder = tmp_path / "frames"
    assert export_frames(replay_file, folder) == len(states)
    files = sorted(folder.glob("*.png"))
    assert [f.name for f in files[:2]] == ["frame-0000.png", "frame-0001.png"]
    assert len(files) == len(states)
    for k in (0, 1, 30):
        with Image.open(files[k]) as im:
            assert pacman_pixel(im, states[k]) == PACMAN_COLOR


def test_strip_of_frames(replay_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "strip.png"
    assert export_strip(replay_file, out, frames=5, zoom=0.5) == 5
    frame = Renderer(load_layout(LAYOUT), 15, status_rows=2).size
    with Image.open(out) as im:
        assert im.size == (5 * frame[0] + 4 * 4, frame[1])
    assert strip_indices(57, 5) == [0, 14, 28, 43, 57]
    assert strip_indices(2, 8) == [0, 1, 2]
    assert strip_indices(57, 1) == [57]
    with pytest.raises(ValueError):
        strip_indices(5, 0)


def test_a_replay_that_does_not_reproduce_is_not_drawn(replay_file: Path,
                                                       tmp_path: Path) -> None:
    data = json.loads(replay_file.read_text())
    data["scores"][3] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ReplayMismatch, match="move 3"):
        export_gif(bad, tmp_path / "bad.gif")
    assert not (tmp_path / "bad.gif").exists()
    with pytest.raises(ReplayMismatch):
        export_frames(bad, tmp_path / "frames")
    with pytest.raises(replays.ReplayError, match=r"missing\.json"):
        export_gif(tmp_path / "missing.json", tmp_path / "x.gif")


def test_export_needs_no_display(replay_file: Path, tmp_path: Path) -> None:
    """No DISPLAY, no SDL driver chosen: drawing pictures must still work (a server)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "SDL_VIDEODRIVER",
                                                             "WAYLAND_DISPLAY")}
    out = tmp_path / "g.gif"
    code = (
        "import sys; from pathlib import Path; from pacman.display.export import export_gif; "
        f"n = export_gif(Path({str(replay_file)!r}), Path({str(out)!r}), fps=5); "
        "import pygame; assert not pygame.display.get_init(); print(n)"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "58"


# --- the command line -------------------------------------------------------------------------


def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


def test_cli_exports_gif_strip_and_frames(replay_file: Path, tmp_path: Path) -> None:
    gif = tmp_path / "game.gif"
    result = CliRunner().invoke(main, ["--replay", str(replay_file), "--export", str(gif),
                                       "--fps", "5"])
    assert result.exit_code == 0, result.output
    assert "58 frames" in result.output and "5 fps" in result.output
    assert durations(gif)[0] == 200
    strip = tmp_path / "strip.png"
    result = CliRunner().invoke(main, ["--replay", str(replay_file), "--export", str(strip)])
    assert result.exit_code == 0 and "strip of 8 frames" in result.output
    frames = tmp_path / "frames"
    result = CliRunner().invoke(main, ["--replay", str(replay_file), "--export", str(frames),
                                       "-q", "--check"])
    assert result.exit_code == 0, result.output
    assert "OK" in result.output and len(list(frames.glob("*.png"))) == 58


def test_cli_export_errors(replay_file: Path, tmp_path: Path) -> None:
    def invoke(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(main, list(args))
        return result.exit_code, result.output

    code, out = invoke("--export", str(tmp_path / "x.gif"))
    assert code == 2 and "--replay" in out
    code, out = invoke("--replay", str(replay_file), "--fps", "5")
    assert code == 2 and "--fps" in out
    code, out = invoke("--replay", str(replay_file), "--export", str(tmp_path / "x.gif"),
                       "--fps", "500")
    assert code == 2 and "--fps" in out
    code, out = invoke("--replay", str(replay_file), "--export", str(tmp_path / "x.mp4"))
    assert code == 2 and ".gif" in out
    data = json.loads(replay_file.read_text())
    data["scores"][3] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, out = invoke("--replay", str(bad), "--export", str(tmp_path / "bad.gif"))
    assert code == 1 and "move 3" in out
    assert not (tmp_path / "bad.gif").exists()


@pytest.fixture(scope="module")
def small_board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game on minimaxClassic (9 cells wide): its status is far wider than its board."""
    lay = load_layout("minimaxClassic")
    result = play(GameSpec(lay, resolve("ExpectimaxAgent", (("depth", "2"),)),
                           resolve("RandomGhost", kind="ghost"), seed=3))
    return replays.write(result, lay, tmp_path_factory.mktemp("replays") / "small.json")


@pytest.mark.parametrize("zoom", [1.0, 0.5])
def test_a_small_boards_pictures_show_every_status_text_whole(small_board: Path,
                                                              zoom: float) -> None:
    """minimaxClassic's status was cut (`mov...`, `minimaxC...`): the picture is now as wide
    as its widest status text needs, the board centred in it."""
    timeline = load_timeline(small_board)
    renderer = picture_renderer(timeline, zoom)
    board_width = timeline.replay.layout.width * renderer.cell
    assert renderer.size[0] > board_width
    canvas = renderer.new_canvas()
    for index in range(timeline.total + 1):
        scene = timeline.scene(index)
        renderer.draw(canvas, scene)
        assert_status_whole(renderer.status_placed, scene.status, canvas.get_width())
    words = {text for text, _ in renderer.status_placed}
    assert {"ExpectimaxAgent vs 3 x RandomGhost", "minimaxClassic", "WIN"} <= words
    assert f"move {timeline.total}/{timeline.total}" in " ".join(words)
    # Pacman is where the engine says, in the centred board.
    x, y = timeline.states[-1].getPacmanPosition()
    assert renderer.cell_center((x, y))[0] == renderer.left + int((x + 0.5) * renderer.cell)
    assert renderer.left == (renderer.size[0] - board_width) // 2


def test_a_small_boards_gif_and_strip_are_as_wide_as_their_status(small_board: Path,
                                                                  tmp_path: Path) -> None:
    timeline = load_timeline(small_board)
    export_gif(small_board, tmp_path / "g.gif")
    with Image.open(tmp_path / "g.gif") as im:
        assert im.size == picture_renderer(timeline, 1.0).size
    frames = export_strip(small_board, tmp_path / "s.png", frames=3)
    width, height = picture_renderer(timeline, 0.5).size
    with Image.open(tmp_path / "s.png") as im:
        assert im.size == (frames * width + (frames - 1) * 4, height)


@pytest.mark.parametrize("rows_taken", [(2,), (1, 2, 3)])
def test_the_end_banner_hides_no_agent(rows_taken: tuple[int, ...]) -> None:
    """The banner used to sit over the board's middle, over whoever was there; now it takes
    the band nearest the middle that no agent touches (here, with an agent on every inner
    row of minimaxClassic, a wall row)."""
    from pacman.display.render import GHOST_COLORS
    from pacman.display.scene import Pose, Scene, poses

    layout = load_layout("minimaxClassic")
    state = GameState.initial(layout)
    renderer = Renderer(layout, CELL_SIZE, status_rows=2)
    middle_x = layout.width // 2
    placed = [Pose((float(middle_x), float(y)), "Stop", 0) for y in rows_taken]
    # Pacman keeps his place; ghost 1 sits right where the banner used to go (the middle).
    agents = (poses(state)[0], *placed)
    scene = Scene(state=state, poses=agents, facing="West", chew=0.0, banner="ILLEGAL ACTION",
                  banner_tone="illegal_action")
    canvas = renderer.new_canvas()
    renderer.draw(canvas, scene)
    box = renderer.banner_placed
    assert box is not None and box.bottom <= renderer.board_height
    for pose in agents:
        cx, cy = renderer.cell_center(pose.pos)
        half = CELL_SIZE // 2
        assert not box.colliderect(pygame.Rect(cx - half, cy - half, 2 * half, 2 * half))
    ghost = canvas.get_at(renderer.cell_center(placed[0].pos))
    assert (ghost.r, ghost.g, ghost.b) == GHOST_COLORS[0]
    if len(rows_taken) == 1:  # room next to the middle: as near it as the ghost allows
        assert abs(box.centery - renderer.board_height // 2) <= CELL_SIZE * 1.5
