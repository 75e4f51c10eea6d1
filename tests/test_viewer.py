"""The replay viewer, headless: the pure controls, the timeline, and the window driven by events."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from pacman import replay as replays
from pacman.display.controls import COMMANDS, NORMAL_SPEED, SPEEDS, ViewerModel, speed_label
from pacman.display.render import GHOST_COLORS, PACMAN_COLOR, SCARED_COLOR, status_margin
from pacman.display.scene import describe_agents, mouth_degrees, outcome_label, tween
from pacman.display.timeline import ReplayMismatch, load_timeline
from pacman.display.viewer import ReplayViewer, watch
from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import resolve
from pacman.replay import ReplayError
from pacman.state import GameState
from tests.conftest import assert_status_whole, replay_states

# smallClassic, GreedyAgent against two RandomGhosts: 281 moves, a capsule eaten (ghosts are
# scared for 47 of them), lost in the end.
SEED = 4


@pytest.fixture(autouse=True)
def _clean_pygame() -> Iterator[None]:
    yield
    pygame.quit()


def record(folder: Path, seed: int, layout: str = "smallClassic") -> Path:
    lay = load_layout(layout)
    result = play(GameSpec(lay, resolve("GreedyAgent"), resolve("RandomGhost", kind="ghost"),
                           seed=seed))
    return replays.write(result, lay, folder / f"{layout}-{seed}.json")


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("replays"), SEED)


@pytest.fixture(scope="module")
def other_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("replays"), 5)


def key(k: int) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k))


def pixel(viewer: ReplayViewer, pos: tuple[float, float]) -> tuple[int, int, int]:
    c = viewer.surface().get_at(viewer.cell_center(pos))
    return (c.r, c.g, c.b)


@pytest.fixture
def viewer(replay_file: Path) -> Iterator[ReplayViewer]:
    v = ReplayViewer([replay_file], frame_time=0.1)
    v.open()
    yield v
    v.close()


# --- the pure model ---------------------------------------------------------------------------


def test_model_plays_at_speed_over_frame_time() -> None:
    m = ViewerModel(total=10)
    m = m.tick(0.25, frame_time=0.1)
    assert (m.index, round(m.progress, 6)) == (2, 0.5)
    m = m.handle("faster").tick(0.1, frame_time=0.1)  # 2x: two moves
    assert (m.index, round(m.progress, 6)) == (4, 0.5)
    assert m.tick(0.0, 0.1) is m


def test_model_pauses_at_the_end_and_space_plays_again() -> None:
    m = ViewerModel(total=10).tick(5.0, frame_time=0.1)
    assert (m.index, m.progress, m.paused, m.at_end) == (10, 0.0, True, True)
    assert m.tick(1.0, 0.1) == m
    m = m.handle("pause")
    assert (m.index, m.paused) == (0, False)


def test_model_pause_shows_the_nearer_whole_state() -> None:
    playing = ViewerModel(total=10, index=3, progress=0.7)
    assert (playing.handle("pause").index, playing.handle("pause").progress) == (4, 0.0)
    assert ViewerModel(total=10, index=3, progress=0.2).handle("pause").index == 3
    paused = ViewerModel(total=10, index=3, paused=True)
    assert paused.handle("pause") == ViewerModel(total=10, index=3, paused=False)
    assert paused.tick(1.0, 0.1) == paused


def test_model_steps_one_move_and_arrows_pause() -> None:
    m = ViewerModel(total=3, paused=True)
    assert m.handle("back").index == 0
    for expected in (1, 2, 3, 3):
        m = m.handle("forward")
        assert (m.index, m.paused) == (expected, True)
    for expected in (2, 1, 0, 0):
        m = m.handle("back")
        assert m.index == expected
    playing = ViewerModel(total=10, index=3, progress=0.4)
    assert (playing.handle("forward").index, playing.handle("forward").paused) == (4, True)
    assert playing.handle("back").index == 3
    assert ViewerModel(total=10, index=3).handle("back").index == 2


def test_model_jumps_restarts_and_speeds() -> None:
    m = ViewerModel(total=50, index=20, paused=True)
    assert (m.handle("start").index, m.handle("start").paused) == (0, True)
    assert (m.handle("end").index, m.handle("end").paused) == (50, True)
    assert (m.handle("restart").index, m.handle("restart").paused) == (0, False)
    fast = m
    for _ in range(len(SPEEDS) + 2):
        fast = fast.handle("faster")
    assert fast.speed == SPEEDS[-1]
    slow = m
    for _ in range(len(SPEEDS) + 2):
        slow = slow.handle("slower")
    assert slow.speed == SPEEDS[0]
    assert m.speed == 1.0 and m.speed_level == NORMAL_SPEED
    assert [speed_label(i) for i in (0, NORMAL_SPEED, len(SPEEDS) - 1)] == ["1/8x", "1x", "64x"]


def test_model_moves_along_the_list() -> None:
    m = ViewerModel(total=10, index=5, paused=True, count=3)
    assert m.handle("previous") is m  # already the first
    nxt = m.handle("next")
    assert (nxt.position, nxt.total, nxt.index, nxt.paused) == (1, 0, 0, False)
    assert nxt.loaded(42) == ViewerModel(total=42, position=1, count=3)
    last = nxt.handle("next")
    assert last.position == 2 and last.handle("next") is last
    assert last.handle("previous").position == 1


def test_model_help_quit_and_unknown_commands() -> None:
    m = ViewerModel(total=1)
    assert m.handle("help").help and not m.handle("help").handle("help").help
    assert m.handle("quit").closed
    assert m.handle("quit").tick(1.0, 0.1).index == 0
    for command in COMMANDS:
        m.handle(command)
    with pytest.raises(ValueError, match="unknown viewer command"):
        m.handle("jump")


# --- timeline and scenes ----------------------------------------------------------------------


def test_timeline_holds_the_engines_states(replay_file: Path) -> None:
    timeline = load_timeline(replay_file)
    assert list(timeline.states) == replay_states(replay_file)
    assert timeline.total == len(replays.load(replay_file).actions) == 281
    assert timeline.outcome == "loss" and timeline.mismatch is None
    assert timeline.agents == ("GreedyAgent", "RandomGhost", "RandomGhost")
    assert timeline.banner() == "LOSS"
    # Pacman's facing is his last real direction.
    for index, (agent, action) in enumerate(timeline.replay.actions, start=1):
        if agent == 0 and action != "Stop":
            assert timeline.facings[index] == action


def test_timeline_stops_where_a_tampered_replay_diverges(replay_file: Path,
                                                         tmp_path: Path) -> None:
    data = json.loads(replay_file.read_text())
    data["scores"][10] += 5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    timeline = load_timeline(bad)
    assert timeline.total == 10 and timeline.outcome == "mismatch"
    assert "10" in timeline.banner()
    with pytest.raises(ReplayMismatch, match="move 10"):
        timeline.require_exact()


def test_tween_slides_one_cell_and_jumps_home(replay_file: Path) -> None:
    start = load_layout("smallClassic")
    state = GameState.initial(start)
    after = state.generateSuccessor(0, "West")
    (x0, y0), (x1, y1) = state.getPacmanPosition(), after.getPacmanPosition()
    halfway = tween(state, after, 0.5)
    assert halfway[0].pos == ((x0 + x1) / 2, (y0 + y1) / 2)
    assert halfway[0].direction == "West"
    assert tween(state, after, 0.0)[0].pos == (x0, y0)
    assert tween(state, after, 1.0)[0].pos == (x1, y1)
    # An eaten ghost sent home does not slide across the maze.
    timeline = load_timeline(replay_file)
    for k in range(timeline.total):
        a, b = timeline.states[k], timeline.states[k + 1]
        for (p0, _, _), (p1, _, _), pose in zip(a.agents, b.agents, tween(a, b, 0.25)):
            if abs(p1[0] - p0[0]) + abs(p1[1] - p0[1]) > 1.01:
                assert pose.pos == (float(p1[0]), float(p1[1]))


def test_mouth_chews_and_labels_read_well() -> None:
    assert mouth_degrees(0) > mouth_degrees(0.5) > mouth_degrees(1)
    assert mouth_degrees(2) == mouth_degrees(0)
    assert mouth_degrees(1) > 0  # never quite shut: the direction still shows
    assert describe_agents(["A", "G", "G"]) == "A vs 2 x G"
    assert describe_agents(["A", "G", "H"]) == "A vs G, H"
    assert describe_agents(["A"]) == "A" and describe_agents([]) == ""
    assert outcome_label("move_limit") == "MOVE LIMIT"
    assert outcome_label("timeout", 2) == "TIMEOUT (GHOST 2)"


# --- the window, driven by posted events ------------------------------------------------------


def test_stepping_forward_and_back_matches_the_engine_at_every_move(
    viewer: ReplayViewer, replay_file: Path
) -> None:
    states = replay_states(replay_file)
    key(pygame.K_SPACE)
    viewer.frame(0.0)
    assert viewer.model.paused and viewer.model.index == 0

    def check(k: int) -> None:
        assert viewer.model.index == k
        state = viewer.state()
        assert state == states[k]
        if not state.isLose():  # at the loss a ghost is drawn over Pacman
            assert pixel(viewer, state.getPacmanPosition()) == PACMAN_COLOR, k
        for ghost, (pos, _, scared) in enumerate(state.agents[1:], start=1):
            # A ghost is visible at its centre unless another agent shares its cell.
            alone = all(abs(p[0] - pos[0]) + abs(p[1] - pos[1]) >= 1
                        for i, (p, _, _) in enumerate(state.agents) if i != ghost)
            if alone and scared == 0:
                assert pixel(viewer, pos) == GHOST_COLORS[ghost - 1], (k, ghost)
            elif alone and scared > 8:
                assert pixel(viewer, pos) == SCARED_COLOR, (k, ghost)

    check(0)
    for k in range(1, len(states)):
        key(pygame.K_RIGHT)
        viewer.frame(0.05)
        check(k)
    key(pygame.K_RIGHT)  # past the end: stays
    viewer.frame(0.05)
    check(len(states) - 1)
    for k in range(len(states) - 2, -1, -1):
        key(pygame.K_LEFT)
        viewer.frame(0.05)
        check(k)


def test_home_end_and_restart_keys(viewer: ReplayViewer, replay_file: Path) -> None:
    states = replay_states(replay_file)
    key(pygame.K_END)
    viewer.frame(0.0)
    assert viewer.model.index == len(states) - 1 and viewer.state() == states[-1]
    key(pygame.K_HOME)
    viewer.frame(0.0)
    assert viewer.model.index == 0 and viewer.model.paused
    key(pygame.K_r)
    viewer.frame(0.0)
    assert viewer.model.index == 0 and not viewer.model.paused
    viewer.frame(0.35)
    assert viewer.model.index == 3


def test_playing_advances_with_the_clock_and_speed_keys(viewer: ReplayViewer) -> None:
    viewer.frame(0.25)
    assert viewer.model.index == 2
    key(pygame.K_EQUALS)
    key(pygame.K_KP_PLUS)
    viewer.frame(0.0)
    assert viewer.model.speed == 4.0
    viewer.frame(0.5)  # 4x: 20 moves
    assert viewer.model.index == 22
    for k in (pygame.K_MINUS, pygame.K_KP_MINUS, pygame.K_MINUS):
        key(k)
    viewer.frame(0.0)
    assert viewer.model.speed == 0.5


def test_help_overlay_is_drawn_and_removed(viewer: ReplayViewer) -> None:
    key(pygame.K_SPACE)
    viewer.frame(0.0)
    plain = pygame.image.tobytes(viewer.surface(), "RGB")
    key(pygame.K_h)
    viewer.frame(0.0)
    assert viewer.model.help
    assert pygame.image.tobytes(viewer.surface(), "RGB") != plain
    key(pygame.K_h)
    viewer.frame(0.0)
    assert pygame.image.tobytes(viewer.surface(), "RGB") == plain


@pytest.mark.parametrize("event", [
    pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q),
    pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE),
    pygame.event.Event(pygame.QUIT),
])
def test_q_escape_and_window_close_end_the_viewer(viewer: ReplayViewer,
                                                 event: pygame.event.Event) -> None:
    pygame.event.post(event)
    assert viewer.frame(0.0) is False
    assert viewer.model.closed


def test_next_and_previous_games_including_an_unreadable_one(
    replay_file: Path, other_file: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    v = ReplayViewer([replay_file, broken, other_file], frame_time=0.1)
    v.open()
    v.frame(0.3)
    key(pygame.K_p)  # already the first: nothing happens
    v.frame(0.0)
    assert v.model.position == 0 and v.model.index == 3
    key(pygame.K_n)
    v.frame(0.0)
    assert v.model.position == 1 and v.timeline is None and v.state() is None
    assert v.error is not None and "broken.json" in v.error
    key(pygame.K_n)
    v.frame(0.0)
    assert v.model.position == 2 and v.model.index == 0
    assert v.state() == replay_states(other_file)[0]
    assert v.model.total == len(replays.load(other_file).actions)
    key(pygame.K_p)
    key(pygame.K_p)
    v.frame(0.0)
    assert v.model.position == 0 and v.model.total == 281
    v.close()


def test_resizing_the_window_scales_the_board(viewer: ReplayViewer) -> None:
    before = viewer.surface().get_size()
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, w=1000, h=700, size=(1000, 700)))
    viewer.frame(0.0)
    after = viewer.surface().get_size()
    assert after[0] > before[0] and after[0] <= 1000 and after[1] <= 700
    assert pygame.display.get_surface().get_size() == (1000, 700)
    state = viewer.state()
    assert state is not None
    key(pygame.K_SPACE)
    viewer.frame(0.0)
    assert pixel(viewer, state.getPacmanPosition()) == PACMAN_COLOR
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, w=200, h=100, size=(200, 100)))
    viewer.frame(0.0)
    assert viewer.surface().get_width() <= 200


def test_a_small_boards_status_is_whole_and_a_wider_window_widens_the_bar(
        tmp_path: Path) -> None:
    """minimaxClassic: every status text whole at every playback note, in the first window and
    after the person widens it (the bar then spans the window, not the board)."""
    path = record(tmp_path, 3, "minimaxClassic")
    v = ReplayViewer([path, path], frame_time=0.1)  # a list: `1/2` is on the status bar too
    v.open()
    layout = load_layout("minimaxClassic")
    assert v.cell == 30
    assert v.surface().get_width() > layout.width * 30
    assert pygame.display.get_surface().get_size() == v.surface().get_size()
    for keys in ([], [pygame.K_SPACE], [pygame.K_MINUS] * 3, [pygame.K_END]):
        for k in keys:
            key(k)
        v.frame(0.05)
        scene = v.scene()
        assert scene is not None
        assert_status_whole(v.status_placed(), scene.status, v.surface().get_width())
    shown = {text for text, _ in v.status_placed()}
    assert {"minimaxClassic  1/2", "end 1/8x  h: help"} <= shown
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, w=1200, h=500, size=(1200, 500)))
    v.frame(0.0)
    assert v.surface().get_width() == 1200
    right = max(rect.right for _, rect in v.status_placed())
    assert right == 1200 - status_margin(v.cell)
    scene = v.scene()
    assert scene is not None
    assert_status_whole(v.status_placed(), scene.status, 1200)
    v.close()


def test_zoom_sets_the_first_size(replay_file: Path) -> None:
    v = ReplayViewer([replay_file], zoom=0.5)
    v.open()
    layout = load_layout("smallClassic")
    assert v.surface().get_width() == layout.width * 15
    assert pygame.display.get_surface().get_size() == v.surface().get_size()
    v.close()


def test_watch_returns_when_closed(replay_file: Path, other_file: Path) -> None:
    pygame.display.init()
    key(pygame.K_n)
    key(pygame.K_END)
    key(pygame.K_q)
    # A safety net: the test must not hang if a key were ignored.
    pygame.time.set_timer(pygame.event.Event(pygame.QUIT), 5000, loops=1)
    watch([replay_file, other_file], index=0, zoom=0.5, frame_time=0.05)
    assert not pygame.display.get_init()


def test_watch_refuses_a_bad_first_file_before_opening(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    with pytest.raises(ReplayError, match=r"bad\.json"):
        watch([bad])
    assert not pygame.display.get_init()
    with pytest.raises(ValueError):
        watch([])


def test_the_pure_display_modules_do_not_import_pygame() -> None:
    code = (
        "import sys, pacman.display.controls, pacman.display.timeline, pacman.display.scene; "
        "assert 'pygame' not in sys.modules, 'pygame imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})


# --- `pacman --replay FILE` -----------------------------------------------------------------


def test_cli_replay_opens_the_viewer(replay_file: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    import pacman.display.viewer as viewer_module
    from pacman.cli import main

    calls: list[tuple[list[Path], int, float, float]] = []

    def fake_watch(paths: list[Path], index: int = 0, zoom: float = 1.0,
                   frame_time: float = 0.1) -> None:
        calls.append((list(paths), index, zoom, frame_time))

    monkeypatch.setattr(viewer_module, "watch", fake_watch)
    result = CliRunner().invoke(main, ["--replay", str(replay_file), "-z", "1.5",
                                       "--frameTime", "0.05"])
    assert result.exit_code == 0, result.output
    assert calls == [([replay_file], 0, 1.5, 0.05)]
    # A replay that stops reproducing is still shown (up to there), and the command says so.
    data = json.loads(replay_file.read_text())
    data["scores"][7] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["--replay", str(bad)])
    assert result.exit_code == 1 and "move 7" in result.output
    assert calls[-1][0] == [bad]


def test_cli_replay_without_a_display_says_what_to_do(replay_file: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    import pacman.display.viewer as viewer_module
    from pacman.cli import main
    from pacman.display import WindowUnavailable

    def no_window(*args: object, **kwargs: object) -> None:
        raise WindowUnavailable("cannot open a window: no available video device")

    monkeypatch.setattr(viewer_module, "watch", no_window)
    result = CliRunner().invoke(main, ["--replay", str(replay_file)])
    assert result.exit_code == 2
    assert "cannot open a window" in result.output and "--export" in result.output


def test_viewer_shows_a_diverging_replay_up_to_where_it_diverges(replay_file: Path,
                                                                 tmp_path: Path) -> None:
    data = json.loads(replay_file.read_text())
    data["scores"][7] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    v = ReplayViewer([bad])
    v.open()
    key(pygame.K_END)
    v.frame(0.0)
    assert v.model.index == 7 and v.state() == replay_states(replay_file)[7]
    v.close()


def test_viewer_refuses_an_invisible_window_sdl_fell_back_to(
    replay_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a server SDL quietly picks its `offscreen` driver: the viewer would wait unseen."""
    from pacman.display import WindowUnavailable

    pygame.display.init()  # the dummy driver, chosen on purpose by this test module
    monkeypatch.delenv("SDL_VIDEODRIVER")
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "offscreen")
    with pytest.raises(WindowUnavailable, match="no display"):
        watch([replay_file])
    assert not pygame.display.get_init()


# --- names, never paths -----------------------------------------------------------------------


def test_the_viewer_and_pictures_name_agents_never_by_path(tmp_path: Path) -> None:
    """A tournament's replay names its entrant and class; an older replay that held the
    file's path shows only the file's own name: no folder of the organizer's on screen."""
    from dataclasses import replace

    from pacman.display.export import picture_renderer

    repo = Path(__file__).resolve().parent.parent
    team = replace(resolve(str(repo / "submissions" / "example-team")), entrant="example-team")
    lay = load_layout("minimaxClassic")
    result = play(GameSpec(lay, team, resolve("RandomGhost", kind="ghost"), seed=2,
                           max_moves=12, sandbox=False))
    modern = replays.write(result, lay, tmp_path / "modern.json")
    raw = json.loads(modern.read_text())
    assert raw["agents"] == ["example-team (ExampleExpectimaxAgent)", "RandomGhost",
                             "RandomGhost", "RandomGhost"]
    old = tmp_path / "old.json"
    raw["agents"] = [f"{repo}/submissions/example-team/multiAgents.py:ExampleExpectimaxAgent",
                     "RandomGhost", "RandomGhost", "RandomGhost"]
    old.write_text(json.dumps(raw))
    expected = {
        modern: "example-team (ExampleExpectimaxAgent) vs 3 x RandomGhost",
        old: "multiAgents.py:ExampleExpectimaxAgent vs 3 x RandomGhost",
    }
    for path, agents in expected.items():
        timeline = load_timeline(path)
        renderer = picture_renderer(timeline)  # what GIFs and strips draw
        renderer.draw(renderer.new_canvas(), timeline.scene(timeline.total))
        shown = [text for text, _ in renderer.status_placed]
        assert agents in shown
        v = ReplayViewer([path])
        v.open()
        assert agents in [text for text, _ in v.status_placed()]
        assert not any(str(repo) in text or "submissions" in text
                       for text, _ in v.status_placed())
        assert "/" not in pygame.display.get_caption()[0]
        v.close()
