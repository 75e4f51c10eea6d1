"""The report as a published site, end to end: a real tournament, `tournament report`, then
the folder checked as a visitor's browser sees it.

A small tournament is played for real (baselines in-process, and a team folder whose agent
prints its own path and then crashes, in the sandbox), with every replay kept. Then:
every link, script, style sheet and image of every page resolves, links to games name games
listed there and filter links match rows; nothing in the folder names the organizer's folders
or machine; and in headless Chromium (tests/browser.py) the pages load without an error, the
leaderboard sorts, a heat-map cell opens the team's games of that cell, the filters narrow
the list, and every listed game opens in the player and plays to its end.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlsplit

import pytest
from playwright.sync_api import expect

import tournament
from tests.browser import BrowserPage
from tests.commands import TOURNAMENT
from tests.site import Page
from tournament.manifest import Manifest, Member, TeamRecord, write_manifest

REPO = Path(tournament.__file__).resolve().parent.parent

CRASHING_AGENT = '''
from game import Agent


class CrashAgent(Agent):
    """Moves a few times, prints where its file is, then crashes."""

    def __init__(self):
        self.moves = 0

    def getAction(self, state):
        self.moves += 1
        if self.moves == 3:
            print("my file is", __file__)
            raise RuntimeError("deliberate crash at move 3")
        return state.getLegalPacmanActions()[0]
'''


@dataclass(frozen=True)
class Published:
    folder: Path
    #: Strings that name the organizer's machine, none of which may appear in the folder.
    secrets: tuple[str, ...]


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Published:
    base = tmp_path_factory.mktemp("course")
    team = base / "submissions" / "crashers"
    team.mkdir(parents=True)
    (team / "multiAgents.py").write_text(CRASHING_AGENT, encoding="utf-8")
    (team / "team.yaml").write_text("agent: multiAgents.py:CrashAgent\n", encoding="utf-8")
    config = base / "cup.yaml"
    config.write_text(
        "name: Site test cup\n"
        "seed: 11\n"
        "entrants:\n"
        "  submissions: submissions\n"
        "  baselines:\n"
        "    - {name: greedy, agent: GreedyAgent}\n"
        "    - {name: expectimax, agent: ExpectimaxAgent, args: {evalFn: better}}\n"
        "grid:\n"
        "  layouts: [minimaxClassic, testClassic]\n"
        "  depths: [1]\n"
        "  ghosts: [{agent: RandomGhost, count: 2}]\n"
        "  max_moves: 400\n"
        "games_per_cell: 3\n"
        "workers: 2\n"
        "record: {replays: all}\n"
        "output: out\n",
        encoding="utf-8",
    )
    # Collected by `tournament collect`: the manifest names where the files came from, on the
    # organizer's machine, which the published folder must not.
    write_manifest(base / "submissions", Manifest(teams=(TeamRecord(
        team="crashers", name="Crashers", members=(Member("s1", "Student One"),),
        source=f"git: {base}/repositories/crashers.git@main",
        submitted_at="2025-03-01T09:00:00+00:00", late=False, late_seconds=0.0, files={},
        commit="0123456789abcdef0123456789abcdef01234567",
        changed_at="2025-03-01T09:00:00+00:00"),)))
    for command in (["run", str(config)], ["report", str(config)]):
        done = subprocess.run([*TOURNAMENT, *command], cwd=base,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    secrets = [str(base), os.path.realpath(base), str(REPO), sys.prefix, str(Path.home())]
    host = socket.gethostname()
    if len(host) >= 3:
        secrets.append(host)
    return Published(base / "out" / "report", tuple(secrets))


def pages(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.html"))


def test_every_link_script_and_image_resolves(published: Published) -> None:
    folder = published.folder
    assert (folder / "index.html").is_file() and len(pages(folder)) == 4
    for path in pages(folder):
        page = Page(path)
        for target in [*page.links, *page.scripts, *page.styles, *page.images]:
            parts = urlsplit(target)
            assert not parts.scheme and not parts.netloc, (path.name, target)
            file = folder / unquote(parts.path) if parts.path else path
            assert file.is_file(), (path.name, target)
            if not parts.fragment:
                continue
            wanted = dict(parse_qsl(parts.fragment))
            rows = Page(file).body_rows("games")
            if "game" in wanted:
                found = [r for r in rows if r.attrs["data-game"] == wanted["game"]]
                assert found and found[0].attrs.get("data-frames"), (path.name, target)
                assert (folder / found[0].attrs["data-frames"]).is_file()
            else:
                matching = [r for r in rows
                            if all(r.attrs.get(f"data-{k}") == v for k, v in wanted.items())]
                assert matching, (path.name, target)


def test_the_folder_names_no_organizer_path_or_machine(published: Published) -> None:
    files = [p for p in published.folder.rglob("*") if p.is_file()]
    assert any(p.suffix == ".js" and p.parent.name == "games" for p in files)
    for file in files:
        text = file.read_text(encoding="utf-8")
        for secret in published.secrets:
            assert secret not in text, (file.relative_to(published.folder), secret)
    crashers = Page(published.folder / "team-crashers.html").words()
    # The failure is shown, named by the team, with what the agent printed.
    assert "deliberate crash at move 3" in crashers and "my file is" in crashers


def test_every_listed_game_opens_in_the_player(published: Published,
                                               browser_page: BrowserPage) -> None:
    page = browser_page.page
    for path in pages(published.folder):
        if not path.name.startswith("team-"):
            continue
        rows = Page(path).body_rows("games")
        assert rows and all(r.attrs.get("data-frames") for r in rows)  # every replay kept
        page.goto(path.as_uri())
        player = page.locator("#player")
        for row in rows:
            game = row.attrs["data-game"]
            page.evaluate("id => { window.location.hash = 'game=' + encodeURIComponent(id); }",
                          game)
            expect(player).to_have_attribute("data-game", game)
            expect(player).to_have_attribute("data-state", "ready")
        # The last one, played to its end with End: the status names the outcome.
        page.keyboard.press("End")
        moves = player.get_attribute("data-moves")
        expect(player).to_have_attribute("data-move", str(moves))
        expect(page.locator("#player .player-status")).to_contain_text(
            re.compile(re.escape(rows[-1].attrs["data-outcome"].replace("_", " ")), re.I))


def test_team_page_lists_failures_first_and_opens_them(published: Published,
                                                       browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto((published.folder / "team-crashers.html").as_uri())
    first = page.locator("#games tbody tr").first
    expect(first).to_have_attribute("data-result", "failed")
    first.locator("td.watch a").click()
    player = page.locator("#player")
    expect(player).to_have_attribute("data-game", str(first.get_attribute("data-game")))
    expect(player).to_have_attribute("data-state", "ready")
    page.keyboard.press("End")
    expect(page.locator("#player .player-status")).to_contain_text(re.compile("crash", re.I))


def test_index_sorts_and_a_heat_map_cell_opens_its_games(published: Published,
                                                         browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto((published.folder / "index.html").as_uri())
    names = page.locator("#leaderboard tbody td.entrant")
    ranked = names.all_inner_texts()
    header = page.locator("#leaderboard thead th", has_text="Entrant")
    header.click()
    expect(names).to_have_text(sorted(ranked, key=str.lower))
    header.click()
    expect(names).to_have_text(sorted(ranked, key=str.lower, reverse=True))

    cell = page.locator("#heatmap tbody td a").first
    title = str(page.locator("#heatmap tbody td[title]").first.get_attribute("title"))
    cell.click()
    expect(page).to_have_url(re.compile(r"team-[^#]+#.*layout="))
    shown = page.locator("#games tbody tr:not([hidden])")
    scored = page.locator("#games tbody tr:not([hidden]):not([data-result='not scored'])")
    expect(scored).to_have_count(int(title.split(" of ")[1].split()[0]))
    wanted = dict(parse_qsl(urlsplit(page.url).fragment))
    for row in shown.all():
        assert row.get_attribute("data-layout") == wanted["layout"]
        assert row.get_attribute("data-depth") == wanted["depth"]


def test_filters_narrow_the_list_and_next_follows_it(published: Published,
                                                     browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto((published.folder / "team-greedy.html").as_uri())
    rows = page.locator("#games tbody tr")
    total = rows.count()
    page.select_option("#game-filters select[name=layout]", "testClassic")
    shown = page.locator("#games tbody tr:not([hidden])")
    expect(shown).to_have_count(3)
    expect(page.locator("#game-filters-count")).to_have_text(f"3 of {total} shown")
    visible = [str(r.get_attribute("data-game")) for r in shown.all()]
    shown.first.locator("td.watch a").click()
    player = page.locator("#player")
    expect(player).to_have_attribute("data-game", visible[0])
    page.keyboard.press("n")
    expect(player).to_have_attribute("data-game", visible[1])
    page.keyboard.press("p")
    expect(player).to_have_attribute("data-game", visible[0])


def test_report_recreates_missing_replays_when_asked(tmp_path: Path) -> None:
    """A tournament that kept no replay: the pages say why each game cannot be watched, and
    `--recreate-replays` plays them again so that every game opens."""
    config = tmp_path / "cup.yaml"
    config.write_text(
        "name: No replays cup\n"
        "entrants:\n"
        "  baselines: [{name: greedy, agent: GreedyAgent}]\n"
        "grid: {layouts: [testClassic], ghosts: [{agent: RandomGhost, count: 1}]}\n"
        "games_per_cell: 2\n"
        "workers: 1\n"
        "record: {replays: none}\n"
        "output: out\n",
        encoding="utf-8",
    )

    def tournament_command(*args: str) -> str:
        done = subprocess.run([*TOURNAMENT, *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    tournament_command("run", str(config))
    tournament_command("report", str(config))
    team = tmp_path / "out" / "report" / "team-greedy.html"
    rows = Page(team).body_rows("games")
    assert len(rows) == 2 and not any(r.attrs.get("data-frames") for r in rows)
    assert "no replay kept (record.replays: none)" in Page(team).source
    assert "--recreate-replays" in Page(tmp_path / "out" / "report" / "index.html").words()

    printed = tournament_command("report", str(config), "--recreate-replays")
    assert "re-created 2 of 2 replay(s)" in printed
    rows = Page(team).body_rows("games")
    assert all((team.parent / str(r.attrs.get("data-frames"))).is_file() for r in rows)


#: The element's top is in the upper half of the window (the player: taller than some windows).
IN_VIEW = """selector => {
    const box = document.querySelector(selector).getBoundingClientRect();
    return box.top >= -1 && box.top < window.innerHeight / 2;
}"""
#: The element is wholly in the window (the filters, at the end of a page the list shortened).
WHOLLY_IN_VIEW = """selector => {
    const box = document.querySelector(selector).getBoundingClientRect();
    return box.top >= -1 && box.bottom <= window.innerHeight + 1;
}"""


def test_links_bring_what_they_open_into_view(published: Published,
                                              browser_page: BrowserPage) -> None:
    """A link that opens a game or filters the list scrolls to it, also when it asks for
    what is already shown (which changes no address); at a laptop's window size."""
    page = browser_page.page
    page.set_viewport_size({"width": 1366, "height": 600})
    team = published.folder / "team-greedy.html"
    rows = Page(team).body_rows("games")
    # A link from elsewhere to a game: the player is in view once the game is shown.
    page.goto(f"{team.as_uri()}#game={quote(rows[-1].attrs['data-game'], safe='')}")
    expect(page.locator("#player")).to_have_attribute("data-state", "ready")
    page.wait_for_function(IN_VIEW, arg="#player")
    # "watch" on the game already shown, from the bottom of the page.
    page.goto(team.as_uri())
    expect(page.locator("#player")).to_have_attribute("data-game", rows[0].attrs["data-game"])
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function(f"!({IN_VIEW})('#player')")
    page.locator("#games tbody tr").first.locator("td.watch a").click()
    page.wait_for_function(IN_VIEW, arg="#player")
    # A cell's "show games": the filtered list comes into view, twice in a row.
    for _ in range(2):
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_function(f"!({WHOLLY_IN_VIEW})('#game-filters')")
        page.locator("#cells a", has_text="show games").first.click()
        page.wait_for_function(WHOLLY_IN_VIEW, arg="#game-filters")


WHERE_AM_I_AGENT = '''
import os

from game import Agent


class WhereAgent(Agent):
    """Prints where its file and its working folder are, then crashes naming both."""

    def getAction(self, state):
        print("file", __file__, "cwd", os.getcwd())
        raise RuntimeError("crash in " + __file__ + " from " + os.getcwd())
'''


def test_a_run_elsewhere_leaves_no_scratch_or_snapshot_path(tmp_path: Path) -> None:
    """Games played with another TMPDIR than the report's (a run started from another shell,
    a Dask worker's machine) name the sandbox's scratch folder and the team's snapshot in a
    cache there: folders no prefix of the report's knows. Neither reaches the folder; the
    team's file is named as the team's."""
    team = tmp_path / "submissions" / "wanderer"
    team.mkdir(parents=True)
    (team / "multiAgents.py").write_text(WHERE_AM_I_AGENT, encoding="utf-8")
    (team / "team.yaml").write_text("agent: multiAgents.py:WhereAgent\n", encoding="utf-8")
    report_tmp = tmp_path / "tmp-of-the-report"
    report_tmp.mkdir()
    config = tmp_path / "cup.yaml"
    config.write_text(
        "name: Elsewhere cup\n"
        "entrants: {submissions: submissions}\n"
        "grid: {layouts: [testClassic], ghosts: [{agent: RandomGhost, count: 1}]}\n"
        "games_per_cell: 1\n"
        "workers: 1\n"
        "record: {replays: all}\n"
        "output: out\n",
        encoding="utf-8",
    )
    # The run in the usual TMPDIR (a short one: the sandbox check binds a socket there),
    # the report with another.
    for command, tmp in ((["run", str(config)], None), (["report", str(config)], report_tmp)):
        env = {**os.environ, "TMPDIR": str(tmp)} if tmp else dict(os.environ)
        done = subprocess.run([*TOURNAMENT, *command], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    folder = tmp_path / "out" / "report"
    frames = list((folder / "games").glob("*.js"))
    assert frames
    for file in [*folder.rglob("*.html"), *frames]:
        text = file.read_text(encoding="utf-8")
        for secret in ("pacman-arena-run-", "pacman-agent0-"):
            assert secret not in text, (file.relative_to(folder), secret)
    words = Page(folder / "team-wanderer.html").words()
    assert "crash in wanderer/multiAgents.py from <sandbox>/work" in words
    assert "crash in wanderer/multiAgents.py" in frames[0].read_text(encoding="utf-8")


def test_values_missing_sort_last_both_ways(tmp_path: Path, browser_page: BrowserPage) -> None:
    """A column's dashes (no value: a team without wins has no mean score over wins) stay
    below the figures whichever way it is sorted: sorting "highest first" must show the
    highest, not every team without one."""
    from tournament.report import write_assets

    write_assets(tmp_path)
    cells = [("a", "3"), ("b", ""), ("c", "10"), ("d", ""), ("e", "-2")]
    rows = "".join(f'<tr><td class="name">{name}</td><td data-sort="{value}">'
                   f'{value or "&ndash;"}</td></tr>' for name, value in cells)
    page_file = tmp_path / "sorting.html"
    page_file.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body>'
        '<table id="t" class="sortable"><thead><tr><th>Name</th><th>Value</th></tr></thead>'
        f'<tbody>{rows}</tbody></table><script src="assets/table.js"></script></body></html>',
        encoding="utf-8")
    page = browser_page.page
    page.goto(page_file.as_uri())
    names = page.locator("#t tbody td.name")
    header = page.locator("#t thead th", has_text="Value")
    header.click()
    expect(names).to_have_text(["e", "a", "c", "b", "d"])
    header.click()
    expect(names).to_have_text(["c", "a", "e", "b", "d"])


def test_keys_scroll_the_page_when_the_player_is_off_screen(published: Published,
                                                            browser_page: BrowserPage) -> None:
    """Down a long list the page's keys are the page's: End scrolls to the bottom instead of
    moving the player to the last move; on screen, End is the player's."""
    page = browser_page.page
    page.set_viewport_size({"width": 1366, "height": 400})
    page.goto((published.folder / "team-greedy.html").as_uri())
    player = page.locator("#player")
    expect(player).to_have_attribute("data-state", "ready")
    # Just below the player, on a page as long as a big team's (a spacer stands for the rows).
    below = page.evaluate("""() => {
        const spacer = document.createElement('div');
        spacer.style.height = '3000px';
        document.body.appendChild(spacer);
        const box = document.querySelector('#player').getBoundingClientRect();
        window.scrollTo(0, window.scrollY + box.bottom + 5);
        return document.body.scrollHeight - (window.scrollY + window.innerHeight);
    }""")
    assert below > 50, below  # the page goes on: End has somewhere to scroll to
    page.keyboard.press("End")
    page.wait_for_function(
        "Math.ceil(window.scrollY + window.innerHeight) >= document.body.scrollHeight")
    # The key went to the page, not the player (which handles it as it is pressed).
    assert player.get_attribute("data-move") == "0"
    page.evaluate("window.scrollTo(0, 0)")
    player.scroll_into_view_if_needed()
    page.keyboard.press("End")
    expect(player).to_have_attribute("data-move", str(player.get_attribute("data-moves")))
