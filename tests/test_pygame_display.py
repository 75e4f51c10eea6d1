"""The pygame window, run headless (SDL's dummy drivers): pixels, events, keys, lifecycle."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from pacman.display import WindowClosed, keys
from pacman.display.pygame_display import (
    BLINK_THRESHOLD,
    FINISH_LINGER,
    FOOD_COLOR,
    GHOST_COLORS,
    PACMAN_COLOR,
    PUMP_INTERVAL,
    SCARED_BLINK_COLOR,
    SCARED_COLOR,
    SLIDE_FPS,
    WALL_COLOR,
    WALL_EDGE,
    PygameDisplay,
    ghost_body_color,
    key_name,
)
from pacman.display.render import status_margin
from pacman.layout import load_layout, parse_layout
from pacman.loader import AgentRef
from pacman.state import GameState
from tests.conftest import assert_status_whole

# Pacman next to a capsule; the ghost runs in its own corridor so it is never eaten.
CAPSULE_LAYOUT = """
%%%%%%%
%oP   %
%%%%%%%
%    G%
%%%%%%%
"""


@pytest.fixture(autouse=True)
def _clean_pygame() -> Iterator[None]:
    keys.reset()
    yield
    keys.reset()
    pygame.quit()


class FakeClock:
    """The display's clock in tests: sleeping moves it on at once, and events scheduled for a
    time are posted when it gets there. Durations are then exact, whatever the machine's
    load, and a test never waits for real time to pass."""

    #: The least a sleep takes (a real one takes some microseconds): without it, sleeping
    #: what is left of a slide could be too little to move a float clock at all.
    TICK = 1e-6

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps = 0
        self.due: list[tuple[float, pygame.event.Event]] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.now += max(seconds, self.TICK)
        self.sleeps += 1
        assert self.now < 3600 and self.sleeps < 10**6, "the display would wait forever"
        for when, event in [d for d in self.due if d[0] <= self.now]:
            self.due.remove((when, event))
            pygame.event.post(event)

    def at(self, when: float, event: pygame.event.Event) -> None:
        self.due.append((when, event))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    from pacman.display import pygame_display

    fake = FakeClock()
    monkeypatch.setattr(pygame_display, "time", fake)
    return fake


@pytest.fixture
def start() -> GameState:
    return GameState.initial(load_layout("smallClassic"))


@pytest.fixture
def display(start: GameState) -> PygameDisplay:
    d = PygameDisplay(frame_time=0)
    d.initialize(start)
    return d


def color_at(display: PygameDisplay, pos: tuple[float, float]) -> tuple[int, int, int]:
    c = display.surface().get_at(display.cell_center(pos))
    return (c.r, c.g, c.b)


def test_window_size_follows_layout_and_zoom(start: GameState) -> None:
    d = PygameDisplay(zoom=0.5, frame_time=0)
    d.initialize(start)
    w, h = d.surface().get_size()
    assert d.cell == 15
    # The board's width, or a little more for the status texts (about as wide at this size).
    assert start.layout.width * 15 <= w <= start.layout.width * 15 * 1.2
    assert h > start.layout.height * 15  # plus the status bar
    assert pygame.display.get_surface().get_size() == (w, h)


def test_cell_center_flips_y(display: PygameDisplay, start: GameState) -> None:
    height = start.layout.height
    assert display.cell_center((0, height - 1)) == (15, 15)
    assert display.cell_center((0, 0)) == (15, 15 + 30 * (height - 1))
    assert display.cell_center((2.5, height - 1)) == (90, 15)


def test_walls_are_drawn_and_open_cells_are_not(display: PygameDisplay, start: GameState) -> None:
    walls = start.layout.wall_cells
    for cell in walls:
        assert color_at(display, cell) == WALL_COLOR, cell
    empty = next(
        (x, y)
        for x in range(start.layout.width)
        for y in range(start.layout.height)
        if (x, y) not in walls
        and (x, y) not in start.getFood().asList()
        and (x, y) not in start.getCapsules()
        and (x, y) != start.getPacmanPosition()
        and (x, y) not in start.getGhostPositions()
    )
    assert color_at(display, empty) not in (WALL_COLOR, WALL_EDGE)


def test_food_disappears_when_eaten(display: PygameDisplay, start: GameState) -> None:
    px, py = start.getPacmanPosition()
    target = (int(px) - 1, int(py))
    assert start.hasFood(*target)
    assert color_at(display, target) == FOOD_COLOR
    after = start.generateSuccessor(0, "West")
    display.update(after, 0, "West")
    assert not after.hasFood(*target)
    assert color_at(display, target) == PACMAN_COLOR
    # Move on: the cell is now empty.
    later = after.generateSuccessor(0, "West")
    display.update(later, 0, "West")
    assert color_at(display, target) != FOOD_COLOR


def test_pacman_is_yellow_at_his_cell(display: PygameDisplay, start: GameState) -> None:
    assert color_at(display, start.getPacmanPosition()) == PACMAN_COLOR


def test_ghosts_drawn_in_their_own_colours(display: PygameDisplay, start: GameState) -> None:
    positions = start.getGhostPositions()
    assert len(positions) == 2
    for index, pos in enumerate(positions, start=1):
        assert color_at(display, pos) == GHOST_COLORS[index - 1]
    assert GHOST_COLORS[0] != GHOST_COLORS[1]


def test_ghost_moves_are_redrawn(display: PygameDisplay, start: GameState) -> None:
    ghost_start = start.getGhostPosition(1)
    action = start.getLegalActions(1)[0]
    s = start.generateSuccessor(1, action)
    display.update(s, 1, action)
    assert s.getGhostPosition(1) != ghost_start
    assert color_at(display, s.getGhostPosition(1)) == GHOST_COLORS[0]


def test_scared_ghost_at_half_cell_is_scared_coloured() -> None:
    state = GameState.initial(parse_layout(CAPSULE_LAYOUT))
    d = PygameDisplay(frame_time=0)
    d.initialize(state)
    state = state.generateSuccessor(0, "West")  # eats the capsule
    d.update(state, 0, "West")
    assert state.getGhostStates()[0].scaredTimer > 0
    assert color_at(d, state.getGhostPosition(1)) == SCARED_COLOR
    state = state.generateSuccessor(1, "West")
    d.update(state, 1, "West")
    pos = state.getGhostPosition(1)
    assert pos == (4.5, 1.0)  # half speed
    assert color_at(d, pos) == SCARED_COLOR
    # Not where a whole-cell move would have put it.
    assert color_at(d, (4, 1)) != SCARED_COLOR


def test_scared_ghost_blinks_before_fright_ends() -> None:
    state = GameState.initial(parse_layout(CAPSULE_LAYOUT))
    d = PygameDisplay(frame_time=0)
    d.initialize(state)
    state = state.generateSuccessor(0, "West")
    d.update(state, 0, "West")
    seen: dict[int, tuple[int, int, int]] = {}
    while state.getGhostStates()[0].scaredTimer > 0:
        state = state.generateSuccessor(0, "Stop")
        d.update(state, 0, "Stop")
        action = state.getLegalActions(1)[0]
        state = state.generateSuccessor(1, action)
        d.update(state, 1, action)
        timer = state.getGhostStates()[0].scaredTimer
        if timer:
            seen[timer] = color_at(d, state.getGhostPosition(1))
    assert seen[BLINK_THRESHOLD + 4] == SCARED_COLOR
    assert seen[BLINK_THRESHOLD + 5] == SCARED_COLOR
    blinking = [seen[t] for t in range(1, BLINK_THRESHOLD)]
    assert SCARED_BLINK_COLOR in blinking and SCARED_COLOR in blinking
    assert all(a != b for a, b in itertools.pairwise(blinking))
    # Fright over: back to its own colour, on a whole cell again.
    pos = state.getGhostPosition(1)
    assert pos == (int(pos[0]), int(pos[1]))
    assert color_at(d, pos) == GHOST_COLORS[0]


def test_ghost_body_color() -> None:
    assert ghost_body_color(1, 0) == GHOST_COLORS[0]
    assert ghost_body_color(len(GHOST_COLORS) + 1, 0) == GHOST_COLORS[0]
    assert ghost_body_color(2, 40) == SCARED_COLOR
    assert {ghost_body_color(1, 3), ghost_body_color(1, 2)} == {SCARED_COLOR, SCARED_BLINK_COLOR}


def test_quit_event_raises_window_closed(display: PygameDisplay, start: GameState) -> None:
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    s = start.generateSuccessor(0, "West")
    with pytest.raises(WindowClosed):
        display.update(s, 0, "West")
    assert not pygame.display.get_init()


def test_escape_raises_window_closed(display: PygameDisplay, start: GameState) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE))
    with pytest.raises(WindowClosed):
        display.update(start, 1, "West")
    assert not pygame.display.get_init()


def test_quit_is_noticed_during_the_pause(start: GameState, clock: FakeClock) -> None:
    d = PygameDisplay(frame_time=2.0)
    d.initialize(start)
    clock.at(0.05, pygame.event.Event(pygame.QUIT))
    s = start.generateSuccessor(0, "West")
    d.update(s, 0, "West")
    action = s.getLegalActions(1)[0]
    s = s.generateSuccessor(1, action)
    d.update(s, 1, action)
    action = s.getLegalActions(2)[0]
    s = s.generateSuccessor(2, action)
    with pytest.raises(WindowClosed):
        d.update(s, 2, action)  # the round's slide
    assert 0.05 <= clock.now <= 0.05 + 1 / SLIDE_FPS  # the next frame, not the 2 s slide


def play_round(d: PygameDisplay, state: GameState, clock: FakeClock,
               pacman: str = "West") -> list[float]:
    """One round (Pacman, then each ghost's first legal move); the seconds each update took
    on the display's clock."""
    took = []
    for agent in range(state.getNumAgents()):
        action = pacman if agent == 0 else state.getLegalActions(agent)[0]
        state = state.generateSuccessor(agent, action)
        t0 = clock.now
        d.update(state, agent, action)
        took.append(clock.now - t0)
    return took


def test_one_slide_per_round_after_its_last_move(start: GameState, clock: FakeClock) -> None:
    d = PygameDisplay(frame_time=0.15)
    d.initialize(start)
    took = play_round(d, start, clock)
    assert took[:-1] == [0.0] * (len(took) - 1)
    assert took[-1] == pytest.approx(0.15, abs=1e-4)


def test_the_slide_moves_everyone_together_then_lands_exactly(start: GameState,
                                                             clock: FakeClock) -> None:
    d = PygameDisplay(frame_time=0.1)
    d.initialize(start)
    s1 = start.generateSuccessor(0, "West")
    d.update(s1, 0, "West")
    # Mid-round nothing new is drawn: Pacman is still at his start.
    assert color_at(d, start.getPacmanPosition()) == PACMAN_COLOR
    assert color_at(d, s1.getPacmanPosition()) != PACMAN_COLOR
    frames: list[bytes] = []
    real_show = d._window.show

    def spy(canvas: pygame.Surface) -> None:
        frames.append(pygame.image.tobytes(canvas, "RGB"))
        real_show(canvas)

    d._window.show = spy  # type: ignore[method-assign]
    s = s1
    for agent in (1, 2):
        action = s.getLegalActions(agent)[0]
        s = s.generateSuccessor(agent, action)
        d.update(s, agent, action)
    assert len(set(frames)) >= 3  # in-between pictures, not one jump
    assert color_at(d, s.getPacmanPosition()) == PACMAN_COLOR
    for index, pos in enumerate(s.getGhostPositions(), start=1):
        assert color_at(d, pos) == GHOST_COLORS[index - 1]


def test_arrow_key_is_published(display: PygameDisplay, start: GameState) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_LEFT))
    display.update(start, 1, "West")
    assert "Left" in keys.take()
    # Still held on the next read, until released.
    display.update(start, 1, "West")
    assert keys.take() == {"Left"}
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_LEFT))
    display.update(start, 1, "West")
    assert keys.take() == set()


def test_quick_tap_is_not_lost(display: PygameDisplay, start: GameState) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_w))
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_w))
    display.update(start, 1, "West")
    assert keys.take() == {"w"}
    assert keys.take() == set()


def test_key_names() -> None:
    assert key_name(pygame.K_LEFT) == "Left"
    assert key_name(pygame.K_RIGHT) == "Right"
    assert key_name(pygame.K_UP) == "Up"
    assert key_name(pygame.K_DOWN) == "Down"
    assert [key_name(k) for k in (pygame.K_w, pygame.K_a, pygame.K_s, pygame.K_d)] == list("wasd")
    assert key_name(pygame.K_q) == "q"
    assert key_name(pygame.K_SPACE) == "space"


def test_finish_shows_outcome_and_closes_window(display: PygameDisplay, start: GameState) -> None:
    before = display.surface().copy()
    display.finish(start, "win")
    assert not pygame.display.get_init()
    # The final picture (with the outcome banner and status text) differs from the first.
    after = display.surface()
    assert pygame.image.tobytes(after, "RGB") != pygame.image.tobytes(before, "RGB")
    assert color_at(display, start.getPacmanPosition()) == PACMAN_COLOR


def test_space_pauses_the_game_until_pressed_again(start: GameState, clock: FakeClock) -> None:
    d = PygameDisplay(frame_time=0)
    d.initialize(start)
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE))
    clock.at(0.3, pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE))
    d.update(start.generateSuccessor(0, "West"), 0, "West")
    assert 0.3 <= clock.now <= 0.3 + 2 * PUMP_INTERVAL  # held until the second press
    assert not d.paused
    # Control keys are not steering: the keyboard agent never sees them.
    assert "space" not in keys.take()


def test_speed_keys_shorten_the_round(start: GameState, clock: FakeClock) -> None:
    d = PygameDisplay(frame_time=0.4)
    d.initialize(start)
    for k in (pygame.K_EQUALS, pygame.K_PLUS, pygame.K_KP_PLUS):
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k))
    took = play_round(d, start, clock)
    assert d.speed == 8.0
    assert took[-1] == pytest.approx(0.4 / 8, abs=1e-4)
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_MINUS))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_MINUS))
    d.update(start, 1, "West")
    assert d.speed == 2.0
    assert keys.take() == set()


def test_help_overlay_in_a_live_game(display: PygameDisplay, start: GameState) -> None:
    def board() -> bytes:  # the status bar counts moves; the board is what the box covers
        surface = display.surface()
        height = start.layout.height * display.cell
        return pygame.image.tobytes(surface.subsurface((0, 0, surface.get_width(), height)),
                                    "RGB")

    plain = board()
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h))
    display.update(start, 1, "West")
    assert board() != plain
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h))
    display.update(start, 1, "West")
    assert board() == plain


def test_resizing_the_live_window_scales_the_board(display: PygameDisplay,
                                                   start: GameState) -> None:
    width = display.surface().get_width()
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, w=900, h=600, size=(900, 600)))
    display.update(start, 1, "West")
    assert pygame.display.get_surface().get_size() == (900, 600)
    assert width < display.surface().get_width() <= 900
    assert display.cell == 900 // start.layout.width
    assert color_at(display, start.getPacmanPosition()) == PACMAN_COLOR


def test_keyboard_agent_plays_from_posted_keys(clock: FakeClock) -> None:
    """A person's key reaches Pacman on his next move, with the window sliding in between."""
    from pacman.agents.keyboard import KeyboardAgent
    from pacman.game import GameSpec, play
    from pacman.loader import resolve

    layout = parse_layout("%%%%%%%\n%.   .%\n%  P  %\n%.   .%\n%%%%%%%")
    spec = GameSpec(layout, resolve("KeyboardAgent"), resolve("RandomGhost", kind="ghost"),
                    max_moves=4)
    d = PygameDisplay(frame_time=0.02)
    pygame.display.init()
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_UP))
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_UP))
    result = play(spec, display=d, agents=[KeyboardAgent()])
    # The tap made before the first move steers it; then the wall stops him.
    assert result.actions == [(0, "North"), (0, "Stop"), (0, "Stop"), (0, "Stop")]
    # The window waited only for its four slides and the final linger, never for a key.
    assert clock.now == pytest.approx(4 * 0.02 + 10 * 0.02, abs=1e-4)


@pytest.mark.parametrize("frame_time, linger", [(0.02, 0.2), (0.5, FINISH_LINGER)])
def test_finish_lingers_ten_frames_at_most_a_second(start: GameState, clock: FakeClock,
                                                    frame_time: float, linger: float) -> None:
    d = PygameDisplay(frame_time=frame_time)
    d.initialize(start)
    d.finish(start, "loss")
    assert clock.now == pytest.approx(linger, abs=1e-4)
    assert not pygame.display.get_init()


def test_several_games_in_one_process(start: GameState) -> None:
    d = PygameDisplay(frame_time=0)
    d.initialize(start)
    d.finish(start, "loss")
    other = GameState.initial(load_layout("mediumClassic"))
    d.initialize(other)
    assert pygame.display.get_init()
    size = (other.layout.width * 30, d.surface().get_height())
    assert d.surface().get_size() == size
    assert pygame.display.get_surface().get_size() == size
    assert color_at(d, other.getPacmanPosition()) == PACMAN_COLOR
    d.finish(other, "win")
    # And again after the person closed the window (pygame fully quit).
    d.initialize(start)
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    with pytest.raises(WindowClosed):
        d.update(start, 1, "West")
    d.initialize(start)
    assert color_at(d, start.getPacmanPosition()) == PACMAN_COLOR


def test_display_package_does_not_import_pygame() -> None:
    """Importing the engine's display package alone must not need pygame (lazy import)."""
    import subprocess
    import sys

    code = (
        "import sys, pacman.display, pacman.state; "
        "assert 'pygame' not in sys.modules, 'pygame imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})


class _Pumped:
    """A display that only counts how often the runner lets it handle its events, and
    publishes the count (in memory, and in a file a sandboxed agent can read)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.pumps = 0
        self.folder = folder
        self.changed = threading.Condition()

    def initialize(self, state: object) -> None:
        pass

    def update(self, state: object, moved: int, action: str) -> None:
        pass

    def finish(self, state: object, outcome: str) -> None:
        pass

    def name_agents(self, names: object) -> None:
        pass

    def while_thinking(self) -> object:
        return self.idle

    def idle(self) -> None:
        with self.changed:
            self.pumps += 1
            self.changed.notify_all()
        if self.folder is not None:
            temporary = self.folder / "pumps.tmp"
            temporary.write_text(str(self.pumps))
            temporary.replace(self.folder / "pumps")


#: A sandboxed agent that answers each move only once the window has been pumped `pumps`
#: times while it waited (it reads the count the display publishes in its folder); after a
#: minute without that it raises, and the game ends as its crash.
PATIENT_AGENT = """
import pathlib, time

HERE = pathlib.Path(__file__).parent


def pumps():
    try:
        return int((HERE / "pumps").read_text())
    except (OSError, ValueError):
        return 0


class ZooAgent:
    def __init__(self, pumps="2"):
        self.need = int(pumps)

    def getAction(self, state):
        start = pumps()
        deadline = time.monotonic() + 60
        while pumps() < start + self.need:
            if time.monotonic() > deadline:
                raise RuntimeError("the window was not pumped while I thought")
            time.sleep(0.005)
        return state.getLegalActions(0)[0]
"""


def patient_pacman(kind: str, display: _Pumped, monkeypatch: pytest.MonkeyPatch,
                   pumps: int) -> AgentRef:
    """Pacman, built-in (GreedyAgent, thinking in a thread) or sandboxed, whose every move
    waits until `display` has been pumped `pumps` more times."""
    from pacman.agents.simple import GreedyAgent
    from pacman.loader import resolve

    if kind == "sandboxed":
        assert display.folder is not None
        (display.folder / "agent.py").write_text(PATIENT_AGENT)
        # The sandbox shows a team folder as a copy made at its start; a folder holding a link
        # is no team folder, so it is bound as it is and the agent sees the count change.
        (display.folder / "live").symlink_to(display.folder / "pumps")
        return resolve(f"{display.folder}/agent.py:ZooAgent", (("pumps", str(pumps)),))
    think = GreedyAgent.getAction

    def patient(self: GreedyAgent, state: GameState) -> str:
        with display.changed:
            start = display.pumps
            if not display.changed.wait_for(lambda: display.pumps >= start + pumps, 60):
                raise RuntimeError("the window was not pumped while I thought")
        return think(self, state)

    monkeypatch.setattr(GreedyAgent, "getAction", patient)
    return resolve("GreedyAgent")


@pytest.mark.parametrize("pacman", ["builtin", "sandboxed"])
def test_the_window_is_pumped_while_an_agent_thinks(
        pacman: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each move of Pacman's is answered only after the display was pumped twice while he
    thought: a runner that did not pump would leave the agent waiting until it gave up."""
    from pacman.game import GameSpec, play
    from pacman.loader import resolve

    display = _Pumped(tmp_path)
    ref = patient_pacman(pacman, display, monkeypatch, pumps=2)
    result = play(GameSpec(load_layout("smallClassic"), ref, resolve("RandomGhost", kind="ghost"),
                           seed=2, max_moves=9), display=display)
    assert result.outcome == "move_limit", result.message
    assert display.pumps >= 2 * 3  # three moves of Pacman's, each waited for two pumps


def test_the_live_status_bar_names_the_agents() -> None:
    from pacman.game import GameSpec, play
    from pacman.loader import resolve

    display = PygameDisplay(frame_time=0)
    spec = GameSpec(load_layout("smallClassic"), resolve("GreedyAgent"),
                    resolve("RandomGhost", kind="ghost"), seed=1, max_moves=6)
    result = play(spec, display=display)
    assert display.agents == ("GreedyAgent", "RandomGhost", "RandomGhost")
    assert result.final_state is not None
    rows = display._status(result.final_state)
    assert rows[-1].left == "GreedyAgent vs 2 x RandomGhost"


def test_a_small_boards_live_status_is_whole_and_a_wider_window_widens_it() -> None:
    from pacman.game import GameSpec, play
    from pacman.loader import resolve

    display = PygameDisplay(frame_time=0)
    layout = load_layout("minimaxClassic")
    spec = GameSpec(layout, resolve("ExpectimaxAgent", (("depth", "2"),)),
                    resolve("RandomGhost", kind="ghost"), seed=3)
    result = play(spec, display=display)
    assert result.final_state is not None
    width = display.surface().get_width()
    assert width > layout.width * display.cell
    rows = display._status(result.final_state)
    assert_status_whole(display.status_placed(), rows, width)
    assert {"ExpectimaxAgent vs 3 x RandomGhost", "minimaxClassic", "WIN"} <= {
        text for text, _ in display.status_placed()}
    # Widened by the person: the bar spans the window.
    display.initialize(GameState.initial(layout))
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, w=1100, h=400, size=(1100, 400)))
    display.idle()
    assert display.surface().get_width() == 1100
    assert max(rect.right for _, rect in display.status_placed()) == 1100 - status_margin(
        display.cell)
    display.finish(GameState.initial(layout), "loss")


class _ClosedWhileThinking(_Pumped):
    def idle(self) -> None:
        super().idle()
        raise WindowClosed("closed while an agent thought")


@pytest.mark.parametrize("pacman", ["builtin", "sandboxed"])
def test_closing_the_window_while_an_agent_thinks_stops_the_batch(
        pacman: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pacman waits for the window to be pumped; the pump finds the window closed."""
    from pacman.game import GameSpec, GameStopped, play
    from pacman.loader import resolve

    display = _ClosedWhileThinking(tmp_path)
    ref = patient_pacman(pacman, display, monkeypatch, pumps=1)
    spec = GameSpec(load_layout("smallClassic"), ref, resolve("RandomGhost", kind="ghost"),
                    seed=2, max_moves=9)
    # Not a crash of the agent: the person closed it, and the game so far comes with it.
    with pytest.raises(GameStopped) as stopped:
        play(spec, display=display)
    assert display.pumps == 1
    assert isinstance(stopped.value.__cause__, WindowClosed)
    assert stopped.value.result.outcome == "stopped"
    assert stopped.value.result.message == "closed while an agent thought"


def test_a_window_closed_as_the_game_ends_keeps_the_games_outcome() -> None:
    """Escape while the end is shown: the game ended, so it is that game, not a stopped one."""
    from pacman.game import GameSpec, GameStopped, play
    from pacman.loader import resolve

    class ClosedAtTheEnd(PygameDisplay):
        def finish(self, state: GameState, outcome: str) -> None:
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE))
            super().finish(state, outcome)

    spec = GameSpec(load_layout("smallClassic"), resolve("GreedyAgent"),
                    resolve("RandomGhost", kind="ghost"), seed=1, max_moves=6)
    with pytest.raises(GameStopped) as stopped:
        play(spec, display=ClosedAtTheEnd(frame_time=0))
    assert stopped.value.reason == "Escape was pressed"
    assert stopped.value.result.outcome == "move_limit"
    assert stopped.value.result.moves == 6
