"""The HTML report on hand-made results: pages, plots, order, escaping, rank changes."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pandas as pd
import pytest

from tournament.config import TournamentConfig, parse_config
from tournament.leaderboard import leaderboard
from tournament.report import PREVIOUS_LEADERBOARD, write_report
from tournament.results import SCORED_COLUMNS

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HOSTILE = "<script>alert('pwned')</script> & \"quotes\""
COLUMNS = [*SCORED_COLUMNS, "submission_hash", "host", "replay", "version"]


def game(
    entrant: str,
    index: int,
    outcome: str = "win",
    *,
    layout: str = "smallClassic",
    depth: int | None = 2,
    culprit: int | None = None,
    message: str = "",
    replay: str | None = None,
    wall: float = 0.01,
) -> dict[str, Any]:
    win = outcome == "win"
    key = f"{layout}/d{'-' if depth is None else depth}/RandomGhost2/classic"
    return {
        "game_id": f"{entrant}@{key}#{index}",
        "entrant": entrant,
        "submission_hash": "abc123",
        "cell": key,
        "layout": layout,
        "depth": depth,
        "ghost": "RandomGhost",
        "num_ghosts": 2,
        "ruleset": "classic",
        "seed": 5000 + index,
        "game_index": index,
        "outcome": outcome,
        "culprit": culprit,
        "message": message,
        "score": 1000 + 10 * index if win else -300 - index,
        "win": win,
        "moves": 150,
        "wall_mean": wall,
        "wall_max": wall * 20,
        "cpu_mean": None,
        "cpu_max": None,
        "host": "localhost",
        "replay": replay,
        "version": "0.1.0",
    }


def record(entrant: str, wins: int, n: int, **kw: Any) -> list[dict[str, Any]]:
    """`wins` won games then losses, in every layout x depth cell of the tests."""
    return [
        game(entrant, i, "win" if i < wins else "loss", layout=layout, depth=depth, **kw)
        for layout in ("smallClassic", "minimaxClassic")
        for depth in (2, 3)
        for i in range(n)
    ]


def table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


def make_config(base: Path, names: tuple[str, ...] = ("ace", "mid", "low")) -> TournamentConfig:
    data = {
        "name": "Spring <Cup>",
        "entrants": {
            "baselines": [
                {"name": name, "agent": "ExpectimaxAgent" if i % 2 else "ReflexAgent"}
                for i, name in enumerate(names)
            ]
        },
        "grid": {"layouts": ["smallClassic", "minimaxClassic"], "depths": [2, 3]},
        "output": "out",
    }
    return parse_config(data, "test.yaml", base)


class Page(HTMLParser):
    """The images, links and text of a page."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.images: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "img" and found.get("src"):
            self.images.append(str(found["src"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def leaderboard_rows(index: Path) -> list[tuple[str, str]]:
    """(first column, entrant) per leaderboard row, top to bottom; the first column is the
    change of rank when there was a previous report."""
    text = index.read_text(encoding="utf-8")
    board = text[text.index('<table id="leaderboard">') : text.index("</table>")]
    rows = []
    for row in re.findall(r"<tr class=.*?</tr>", board):
        name = re.search(r'class="text entrant"><a href="[^"]+">([^<]+)</a>', row)
        assert name is not None
        first = re.match(r'<tr class="\w+"><td>(.*?)</td>', row)
        marker = re.sub(r"<[^>]+>", "", first.group(1)) if first else ""
        rows.append((marker, name.group(1)))
    return rows


@pytest.fixture
def results(tmp_path: Path) -> pd.DataFrame:
    replays = tmp_path / "out" / "replays" / "low@smallClassic" / "d2"
    replays.mkdir(parents=True)
    kept = replays / "RandomGhost2#7.json"
    kept.write_text("{}", encoding="utf-8")
    failures = [
        game("low", 7, "crash", culprit=0, message=HOSTILE, replay=str(kept)),
        game("low", 8, "timeout", culprit=0, message="too slow", replay="replays/gone.json"),
        game("low", 9, "illegal_action", culprit=0, message="North into a wall"),
        game("low", 12, "memory", culprit=0, message="over 512 MB"),
        # A ghost failed, not low's Pacman: scored, but not low's failure.
        game("low", 10, "crash", culprit=1, message="ghost broke"),
        # The platform failed: counted, never scored.
        game("low", 11, "infra_error", message="worker died"),
    ]
    return table(record("ace", 9, 10) + record("mid", 5, 10) + record("low", 1, 6) + failures)


def test_report_has_an_index_a_page_per_entrant_and_png_plots(
    tmp_path: Path, results: pd.DataFrame
) -> None:
    config = make_config(tmp_path)
    out = tmp_path / "report"
    index = write_report(results, config, out)

    assert index == out / "index.html"
    page = Page(index)
    assert "Spring <Cup>" in page.text  # the name, unescaped by the parser: escaped in HTML
    assert "Spring &lt;Cup&gt;" in index.read_text(encoding="utf-8")
    team_links = sorted(link for link in page.links if link.startswith("team-"))
    assert team_links == ["team-ace.html", "team-low.html", "team-mid.html"]
    for link in team_links:
        assert (out / link).is_file()
        assert "index.html" in Page(out / link).links
    assert len(page.images) == 3
    for src in page.images:
        assert not src.startswith(("http:", "https:", "//", "/"))
        assert (out / src).read_bytes()[:8] == PNG_MAGIC
    assert "<script" not in index.read_text(encoding="utf-8").lower()


def test_leaderboard_on_the_page_is_in_rank_order(tmp_path: Path, results: pd.DataFrame) -> None:
    config = make_config(tmp_path)
    index = write_report(results, config, tmp_path / "report")
    expected = list(leaderboard(results, config.ranking)["entrant"])
    assert expected == ["ace", "mid", "low"]
    assert [name for _, name in leaderboard_rows(index)] == expected
    # No previous report: no change column.
    assert "Change" not in index.read_text(encoding="utf-8")


def test_team_page_lists_own_failures_escaped_with_replays(
    tmp_path: Path, results: pd.DataFrame
) -> None:
    config = make_config(tmp_path)
    out = tmp_path / "report"
    write_report(results, config, out)
    text = (out / "team-low.html").read_text(encoding="utf-8")
    failures = text[text.index('<table id="failures">') :]
    failures = failures[: failures.index("</table>")]

    assert "<script>" not in text
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt; &amp; &quot;quotes&quot;" in text
    # The entrant's own failures in game order (12 after 9, unlike their ids as text); not
    # the ghost's crash, not the platform's error.
    assert re.findall(r'<tr><td class="text">(\w+)</td>', failures) == [
        "crash",
        "timeout",
        "illegal_action",
        "memory",
    ]
    assert "ghost broke" not in failures and "worker died" not in failures
    assert "5007" in failures and "low@smallClassic/d2/RandomGhost2/classic#7" in failures

    # The kept replay is a relative link (its `#` percent-encoded) that reaches the file.
    links = [link for link in Page(out / "team-low.html").links if link.endswith(".json")]
    assert len(links) == 1 and not links[0].startswith("/") and "#" not in links[0]
    kept = tmp_path / "out" / "replays" / "low@smallClassic" / "d2" / "RandomGhost2#7.json"
    assert (out / unquote(links[0])).resolve() == kept.resolve()
    assert f"pacman --replay &#x27;{kept}&#x27;" in failures
    # A recorded replay whose file is gone: no link, but the command is still shown.
    gone = tmp_path / "out" / "replays" / "gone.json"
    assert f"pacman --replay {gone}" in failures
    # Entrants without failures say so.
    assert "No failures." in (out / "team-ace.html").read_text(encoding="utf-8")


def test_second_report_shows_rank_changes(tmp_path: Path, results: pd.DataFrame) -> None:
    config = make_config(tmp_path, ("ace", "mid", "low", "newcomer"))
    out = tmp_path / "report"
    write_report(results, config, out)
    assert (out / PREVIOUS_LEADERBOARD).is_file()

    # mid now beats ace; low stays last; newcomer joins in the middle.
    changed = table(
        record("ace", 4, 10)
        + record("mid", 10, 10)
        + record("low", 0, 6)
        + record("newcomer", 3, 10)
    )
    index = write_report(changed, config, out)
    assert leaderboard_rows(index) == [
        ("▲1", "mid"),
        ("▼1", "ace"),
        ("new", "newcomer"),
        ("▼1", "low"),
    ]

    # A third report on the same results: nobody moved.
    index = write_report(changed, config, out)
    assert [marker for marker, _ in leaderboard_rows(index)] == ["="] * 4


def test_unreadable_previous_leaderboard_is_ignored(tmp_path: Path, results: pd.DataFrame) -> None:
    out = tmp_path / "report"
    out.mkdir()
    (out / PREVIOUS_LEADERBOARD).write_text("{not json", encoding="utf-8")
    config = make_config(tmp_path)
    index = write_report(results, config, out)
    assert "Change" not in index.read_text(encoding="utf-8")
    # Replaced by this report's leaderboard, so the next report compares with this one.
    index = write_report(results, config, out)
    assert [marker for marker, _ in leaderboard_rows(index)] == ["="] * 3


@pytest.mark.parametrize("empty", [pd.DataFrame(columns=COLUMNS), pd.DataFrame()])
def test_empty_results_give_a_page_saying_so(tmp_path: Path, empty: pd.DataFrame) -> None:
    out = tmp_path / "report"
    index = write_report(empty, make_config(tmp_path), out)
    text = index.read_text(encoding="utf-8")
    assert "No games have been played yet" in text
    assert Page(index).images == []
    assert (out / PREVIOUS_LEADERBOARD).read_text(encoding="utf-8") == "[]"


def test_single_entrant_default_depth_and_no_scored_games(tmp_path: Path) -> None:
    config = make_config(tmp_path, ("solo", "ghostly"))
    rows = [game("solo", i, "win" if i % 2 else "loss", depth=None) for i in range(4)]
    # An entrant whose every game failed in the platform: in the board, with nothing scored.
    rows += [game("ghostly", i, "infra_error", depth=None) for i in range(2)]
    out = tmp_path / "report"
    index = write_report(table(rows), config, out)

    assert [name for _, name in leaderboard_rows(index)] == ["solo", "ghostly"]
    for src in Page(index).images:
        assert (out / src).read_bytes()[:8] == PNG_MAGIC
    solo = (out / "team-solo.html").read_text(encoding="utf-8")
    assert '<td class="text">smallClassic</td><td>default</td>' in solo
    ghostly = (out / "team-ghostly.html").read_text(encoding="utf-8")
    assert "Not scored (platform errors)</th><td>2</td>" in ghostly
    assert "Games scored</th><td>0</td>" in ghostly

    only = write_report(table(rows[:4]), config, tmp_path / "solo-report")
    assert [name for _, name in leaderboard_rows(only)] == ["solo"]
    assert "No games yet for ghostly" in only.read_text(encoding="utf-8")
