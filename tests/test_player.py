"""The report's replay player (tournament/static/player.js) in headless Chromium.

A small page is built from real games played in-process: a table of rows with `data-game`
and `data-frames`, one row without a replay, one whose frame file is missing, one corrupt,
one of another format version. The player is checked against the frame data Python wrote:
what is drawn where (pixels at the agents' cells), which move is shown (`data-move`), that
stepping back gives the very same pixels, the controls and keys, and the messages for games
that cannot be shown. Every wait has a deadline (Playwright's `expect`, `wait_for_function`);
playing is checked by waiting for the move to advance, never by timing it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

import tournament
from pacman import frames as framing
from pacman import replay as replays
from pacman.display import render
from pacman.game import GameSpec, play
from pacman.layout import load_layout
from pacman.loader import resolve
from tests.browser import BrowserPage
from tournament.report import write_assets

STATIC = Path(tournament.__file__).parent / "static"
HOSTILE = "</script><script>alert(1)</script>"

SMALL = "alpha@smallClassic#0"
CAPSULE = "alpha@mediumClassic#4"
OTHER = "beta@smallClassic#1"
CRASH = "gamma@smallClassic#3"
NO_REPLAY = "delta@smallClassic#5"
MISSING = "delta@smallClassic#6"
CORRUPT = "delta@smallClassic#7"
FUTURE = "delta@smallClassic#8"


@dataclass(frozen=True)
class Site:
    index: Path
    #: The frame data of each game with a frame file, as Python wrote it.
    data: dict[str, dict[str, Any]]

    def url(self, game: str | None = None) -> str:
        return self.index.as_uri() + (f"#game={quote(game, safe='')}" if game else "")


def _play(layout: str, pacman: str, seed: int, max_moves: int | None, folder: Path) -> Path:
    lay = load_layout(layout)
    result = play(GameSpec(lay, resolve(pacman), resolve("RandomGhost", kind="ghost"),
                           seed=seed, max_moves=max_moves))
    return replays.write(result, lay, folder / f"{layout}-{seed}.json")


def _read(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text[len(framing.CALLBACK) + 1:-3])
    return data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    root = tmp_path_factory.mktemp("site")
    replays_dir = root / "replays"
    write_assets(root)
    games = root / "games"
    names = ["Team Alpha", "RandomGhost", "RandomGhost"]
    kept = {
        SMALL: _play("smallClassic", "GreedyAgent", 0, None, replays_dir),
        CAPSULE: _play("mediumClassic", "GreedyAgent", 4, 600, replays_dir),
        OTHER: _play("smallClassic", "GreedyAgent", 1, None, replays_dir),
    }
    for number, (game, path) in enumerate(kept.items()):
        framing.write_frames(path, games / f"game-{number}.js", names, game)
    # A ghost team that crashed after 20 moves, with hostile names and message.
    raw = json.loads(kept[SMALL].read_text())
    raw.update(actions=raw["actions"][:20], scores=raw["scores"][:20], hashes=raw["hashes"][:20],
               outcome="crash", culprit=2, message="ghost said " + HOSTILE)
    crash = replays_dir / "crash.json"
    crash.write_text(json.dumps(raw))
    framing.write_frames(crash, games / "crash.js", [HOSTILE, "Ghosts", "Ghosts " + HOSTILE],
                         CRASH)
    (games / "corrupt.js").write_text(
        (games / "game-0.js").read_text()[:300], encoding="utf-8")
    future = _read(games / "game-2.js")
    future.update(version=99, game=FUTURE)
    (games / "future.js").write_text(framing.script_text(future), encoding="utf-8")

    frames = {
        SMALL: "games/game-0.js",
        CAPSULE: "games/game-1.js",
        OTHER: "games/game-2.js",
        CRASH: "games/crash.js",
        NO_REPLAY: None,
        MISSING: "games/missing.js",
        CORRUPT: "games/corrupt.js",
        FUTURE: "games/future.js",
    }
    rows = []
    for game, src in frames.items():
        attrs = f'data-game="{game}"' + (f' data-frames="{src}"' if src else "")
        rows.append(f'<tr {attrs}><td><a href="#game={quote(game, safe="")}">{game}</a></td></tr>')
    index = root / "team.html"
    index.write_text(
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8><title>Team</title>"
        '<link rel=stylesheet href="assets/player.css"></head><body>'
        '<section id="player"></section>'
        '<input id="filter" type="search" aria-label="filter">'
        f'<table id="games"><tbody>{"".join(rows)}</tbody></table>'
        '<script src="assets/palette.js"></script>'
        '<script src="assets/player.js"></script></body></html>',
        encoding="utf-8",
    )
    data = {game: _read(root / src) for game, src in frames.items()
            if game in (SMALL, CAPSULE, OTHER, CRASH)}
    return Site(index, data)


# --- reading the page ---------------------------------------------------------------------------

def player(page: Page) -> Any:
    return page.locator("#player")


def shown(page: Page, **attributes: str) -> None:
    """Wait until the player's data attributes say all this at once (`move="3"`,
    `state="ready"`). One selector, not one wait per attribute: waited for in turn, `ready`
    could be the game before's and `game` the next one's, still loading, and a key pressed
    then was lost (a flaky test, seen once in CI)."""
    def quoted(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    conditions = "".join(f"[data-{name}={quoted(value)}]" for name, value in attributes.items())
    expect(page.locator(f"#player{conditions}")).to_have_count(1)


def pixels(page: Page) -> str:
    return str(page.eval_on_selector(".player-canvas", "c => c.toDataURL()"))


def pixel_at(page: Page, data: dict[str, Any], x: float, y: float) -> tuple[int, int, int]:
    """The canvas colour at the centre of board position (x, y)."""
    width, height = data["layout"]["width"], data["layout"]["height"]
    rgb = page.eval_on_selector(
        ".player-canvas",
        """(c, [x, y, w, h]) => {
            const cell = c.width / w;
            const px = Math.floor((x + 0.5) * cell), py = Math.floor((h - 1 - y + 0.5) * cell);
            return Array.from(c.getContext('2d').getImageData(px, py, 1, 1).data.slice(0, 3));
        }""",
        [x, y, width, height],
    )
    return (rgb[0], rgb[1], rgb[2])


def agent(data: dict[str, Any], k: int, i: int) -> tuple[float, float, int]:
    at = framing.FRAME_HEAD + framing.AGENT_FIELDS * i
    frame = data["frames"][k]
    return frame[at] / 2, frame[at + 1] / 2, frame[at + 3]


def check_agents_drawn(page: Page, data: dict[str, Any], k: int) -> None:
    """Pacman's yellow and each ghost's body colour at their cells of frame k (each one not
    covered by a ghost drawn after it: ghosts are drawn last, in index order)."""
    agents = [agent(data, k, i) for i in range(len(data["agents"]))]
    for i, (x, y, scared) in enumerate(agents):
        if any(abs(x - ox) < 1 and abs(y - oy) < 1 for ox, oy, _ in agents[i + 1:]):
            continue
        expected = render.PACMAN_COLOR if i == 0 else render.ghost_body_color(i, scared)
        assert pixel_at(page, data, x, y) == expected, (k, i)


def status(page: Page) -> str:
    return str(page.locator("#player .player-status").inner_text())


# --- tests --------------------------------------------------------------------------------------

def test_the_first_game_is_drawn_at_its_start(site: Site, browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto(site.url())
    data = site.data[SMALL]
    moves = str(len(data["frames"]) - 1)
    shown(page, state="ready", game=SMALL, move="0", moves=moves, speed="1")
    expect(page.locator(".player-canvas")).to_be_visible()
    check_agents_drawn(page, data, 0)
    rows = data["layout"]["rows"]
    height = len(rows)
    cells = {rows[height - 1 - y][x]: (x, y) for y in range(height) for x in range(len(rows[0]))}
    assert pixel_at(page, data, *cells["%"]) == render.WALL_COLOR
    assert pixel_at(page, data, *cells["."]) == render.FOOD_COLOR
    assert pixel_at(page, data, *cells["o"]) == render.CAPSULE_COLOR
    text = status(page)
    for part in ("Score: 0", f"move 0/{moves}", "paused 1x", "Team Alpha vs 2 x RandomGhost",
                 "smallClassic", "1/8"):
        assert part in text
    expect(page.locator(f'tr[data-game="{SMALL}"]')).to_have_class("player-current")


def test_forward_back_seek_first_last_and_speed(site: Site, browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto(site.url())
    data = site.data[SMALL]
    total = len(data["frames"]) - 1
    shown(page, state="ready", move="0")
    for _ in range(3):
        page.click(".player-forward")
    shown(page, move="3")
    check_agents_drawn(page, data, 3)
    page.click(".player-back")
    shown(page, move="2")
    page.locator(".player-seek").fill("30")
    shown(page, move="30", state="ready")
    check_agents_drawn(page, data, 30)
    assert f"Score: {data['frames'][30][0]}" in status(page)
    page.click(".player-last")
    shown(page, move=str(total), state="ready")
    check_agents_drawn(page, data, total)
    text = status(page)
    assert f"move {total}/{total}" in text and "LOSS" in text and "end 1x" in text
    page.click(".player-first")
    shown(page, move="0")
    page.click(".player-faster")
    page.click(".player-faster")
    shown(page, speed="4")
    for _ in range(10):
        page.click(".player-faster")
    shown(page, speed="64")
    for _ in range(12):
        page.click(".player-slower")
    shown(page, speed="0.125")
    assert "paused 1/8x" in status(page)


def test_stepping_back_shows_the_identical_frame(site: Site, browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto(site.url(CAPSULE))
    data = site.data[CAPSULE]
    shown(page, state="ready", game=CAPSULE, move="0")
    start = pixels(page)
    # Moves with scared ghosts on half cells, a capsule eaten, and ordinary ones.
    half = [k for k, _ in enumerate(data["frames"])
            if any(agent(data, k, i)[0] % 1 or agent(data, k, i)[1] % 1 for i in (1, 2))]
    capsule = [k for k, frame in enumerate(data["frames"]) if frame[3] >= 0
               and data["layout"]["rows"][data["layout"]["height"] - 1
                                          - frame[3] // data["layout"]["width"]]
               [frame[3] % data["layout"]["width"]] == "o"]
    assert half and capsule
    changed = 0
    for k in sorted({5, 40, half[0], half[-1] - 1, capsule[0] - 1}):
        page.locator(".player-seek").fill(str(k))
        shown(page, move=str(k))
        before = pixels(page)
        check_agents_drawn(page, data, k)
        page.keyboard.press("ArrowRight")
        shown(page, move=str(k + 1))
        check_agents_drawn(page, data, k + 1)
        changed += pixels(page) != before
        page.keyboard.press("ArrowLeft")
        shown(page, move=str(k))
        assert pixels(page) == before, f"move {k} looks different after a step forward and back"
    assert changed >= 4
    page.keyboard.press("End")
    shown(page, move=str(len(data["frames"]) - 1))
    page.keyboard.press("Home")
    shown(page, move="0")
    assert pixels(page) == start


def test_playing_advances_to_the_end_and_space_plays_again(
    site: Site, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    page.goto(site.url(OTHER))
    total = len(site.data[OTHER]["frames"]) - 1
    shown(page, state="ready", game=OTHER, move="0")
    page.keyboard.press("Space")
    shown(page, state="playing")
    page.wait_for_function("() => +document.getElementById('player').dataset.move > 0")
    for _ in range(6):
        page.keyboard.press("+")
    shown(page, speed="64")
    # At 64x playing ends by itself, paused on the last move with the outcome.
    shown(page, move=str(total), state="ready")
    assert "end 64x" in status(page)
    # At the end space plays again from the start (slowly now, so that it is still playing).
    for _ in range(9):
        page.keyboard.press("-")
    shown(page, speed="0.125")
    page.keyboard.press("Space")
    shown(page, state="playing")
    page.wait_for_function("() => +document.getElementById('player').dataset.move >= 1")
    page.keyboard.press("Space")
    shown(page, state="ready")
    stopped = int(player(page).get_attribute("data-move"))
    assert 1 <= stopped < total
    # Paused stays put: a step forward goes on from where it stopped.
    page.keyboard.press("ArrowRight")
    shown(page, move=str(stopped + 1))


def test_next_and_previous_follow_the_visible_rows(site: Site, browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto(site.url())
    shown(page, state="ready", game=SMALL)
    page.keyboard.press("p")  # the first game has no previous one
    shown(page, game=SMALL)
    page.eval_on_selector(f'tr[data-game="{CAPSULE}"]', "row => { row.hidden = true; }")
    page.keyboard.press("n")
    shown(page, game=OTHER, state="ready", move="0")
    assert page.evaluate("location.hash") == f"#game={quote(OTHER, safe='')}"
    assert "2/7" in status(page)
    page.keyboard.press("p")
    shown(page, game=SMALL)
    # The table re-sorted: the crash row first. Previous of the first visible row follows it.
    page.evaluate(f"""() => {{
        const row = document.querySelector('tr[data-game="{CRASH}"]');
        row.parentNode.insertBefore(row, row.parentNode.firstChild);
    }}""")
    page.click(".player-previous")
    shown(page, game=CRASH, state="ready")
    page.click(".player-next")
    shown(page, game=SMALL)
    page.keyboard.press("n")
    shown(page, game=OTHER)
    # Hidden rows are skipped whatever their place; the current row keeps its place.
    page.eval_on_selector(f'tr[data-game="{OTHER}"]', "row => { row.hidden = true; }")
    page.keyboard.press("n")
    shown(page, game=NO_REPLAY, state="error")
    page.keyboard.press("p")
    shown(page, game=SMALL, state="ready")


def test_keys_typed_in_a_text_box_are_left_alone(site: Site, browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto(site.url())
    shown(page, state="ready", game=SMALL, move="0")
    page.click("#filter")
    page.keyboard.type("n p+")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    assert page.input_value("#filter") == "n p+"
    shown(page, state="ready", game=SMALL, move="0", speed="1")
    page.locator("#filter").blur()
    page.keyboard.press("ArrowRight")
    shown(page, move="1")
    # A focused control still takes the player's keys (the seek bar moves with the arrows).
    page.focus(".player-seek")
    page.keyboard.press("ArrowRight")
    shown(page, move="2")
    page.keyboard.press("n")
    shown(page, game=CAPSULE)


def test_the_address_opens_a_game(site: Site, browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto(site.url(CAPSULE))
    shown(page, state="ready", game=CAPSULE, move="0")
    page.click(f'a[href="#game={quote(OTHER, safe="")}"]')
    shown(page, state="ready", game=OTHER, move="0")
    # The focus is on the link followed, and space plays; after a click on a control too.
    page.keyboard.press("Space")
    shown(page, state="playing")
    page.click(".player-forward")
    shown(page, state="ready")
    page.keyboard.press("Space")
    shown(page, state="playing")
    page.keyboard.press("Space")
    shown(page, state="ready")
    page.evaluate("location.hash = '#game=' + encodeURIComponent('no such game')")
    shown(page, state="error", game="no such game")
    assert "There is no game no such game on this page." in status(page)


@pytest.mark.parametrize(
    ("game", "message", "logged"),
    [
        (NO_REPLAY, f"No replay of game {NO_REPLAY} was kept", None),
        (MISSING, "games/missing.js of game", "ERR_FILE_NOT_FOUND"),
        (CORRUPT, "is damaged: it delivered no frames", "page error: Invalid or unexpected token"),
        (FUTURE, "key 'version': expected 1", None),
    ],
)
def test_a_game_that_cannot_be_shown_says_why(
    site: Site, browser_page: BrowserPage, game: str, message: str, logged: str | None
) -> None:
    page = browser_page.page
    page.goto(site.url(game))
    shown(page, state="error", game=game, move="0", moves="0")
    expect(page.locator(".player-canvas")).to_be_hidden()
    expect(page.locator(".player-message")).to_be_visible()
    expect(page.locator(".player-message")).to_contain_text(message)
    assert message in status(page)
    if logged:
        browser_page.expect_error(logged)
    # The player goes on: another game shows.
    page.evaluate(f"location.hash = '#game=' + encodeURIComponent({json.dumps(SMALL)})")
    shown(page, state="ready", game=SMALL)
    expect(page.locator(".player-canvas")).to_be_visible()
    expect(page.locator(".player-message")).to_be_hidden()


def test_hostile_names_and_messages_are_shown_as_text(
    site: Site, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    page.goto(site.url(CRASH))
    shown(page, state="ready", game=CRASH, moves="20")
    page.keyboard.press("End")
    shown(page, move="20")
    text = status(page)
    assert f"{HOSTILE} vs Ghosts, Ghosts {HOSTILE}" in text
    assert f"CRASH (Ghosts {HOSTILE})" in text
    assert f"Ghosts {HOSTILE}: ghost said {HOSTILE}" in text
    assert page.locator("#player script").count() == 0
    assert page.evaluate("document.scripts.length") == 2  # palette.js and player.js


def test_a_page_without_replays_says_so(site: Site, browser_page: BrowserPage) -> None:
    page = browser_page.page
    empty = site.index.with_name("empty.html")
    empty.write_text(
        '<!doctype html><html lang=en><head><meta charset=utf-8><title>Team</title></head>'
        '<body><section id="player"></section><table><tbody>'
        f'<tr data-game="{NO_REPLAY}"><td>no replay</td></tr></tbody></table>'
        '<script src="assets/palette.js"></script>'
        '<script src="assets/player.js"></script></body></html>', encoding="utf-8")
    page.goto(empty.as_uri())
    shown(page, state="empty", move="0", moves="0")
    expect(page.locator(".player-message")).to_have_text(
        "No replay of a game on this page to show.")
    expect(page.locator(".player-canvas")).to_be_hidden()
    page.keyboard.press("n")  # the row without a replay: a message, not a blank canvas
    shown(page, state="error", game=NO_REPLAY)


def test_a_page_without_the_palette_says_why_it_cannot_play(
        site: Site, browser_page: BrowserPage) -> None:
    """The colours come from assets/palette.js alone: without it the player says so rather
    than drawing in colours of its own."""
    page = browser_page.page
    bare = site.index.with_name("no-palette.html")
    bare.write_text(
        '<!doctype html><html lang=en><head><meta charset=utf-8><title>Team</title></head>'
        '<body><section id="player"></section><table><tbody>'
        f'<tr data-game="{NO_REPLAY}"><td>no replay</td></tr></tbody></table>'
        '<script src="assets/player.js"></script></body></html>', encoding="utf-8")
    page.goto(bare.as_uri())
    expect(page.locator("#player")).to_have_attribute("data-state", "error")
    expect(page.locator("#player")).to_contain_text("assets/palette.js is missing")
