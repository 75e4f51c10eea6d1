"""Match games shown: the split from fixed-format games, ratings.csv and crosstable.csv, the
console tables of `tournament leaderboard`, and the report's Ratings and Crosstable sections,
on a hand-made league whose order is clear."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qsl, unquote

import pandas as pd
import pytest
from rich.console import Console

import tournament.cli as cli
from tests.site import Page
from tests.test_report import COLUMNS, game, make_config, record
from tournament.config import MatchConfig, TournamentConfig
from tournament.exports import write_leaderboard_files
from tournament.leaderboard import leaderboard
from tournament.ratings import CROSSTABLE_COLUMNS, RATING_COLUMNS, crosstable, fit_ratings
from tournament.report import write_report
from tournament.results import split_formats
from tournament.standings import ANCHOR_KEYS, anchor_of, standings

MATCH_COLUMNS = [*COLUMNS, "ghost_entrant", "ghost_hash"]
ANCHOR = ("RandomGhost", "ghosts")
#: A team whose name a page must escape: it plays on both sides.
ODD = "a<b>&c"


def page_of(name: str) -> str:
    """A team's page (a name that is not already safe takes a hash: `report._slugs`)."""
    from tournament.report import _slugs

    return f"team-{_slugs([name])[name]}.html"


def match(pacman: str, ghost: str, index: int, outcome: str = "win",
          culprit: int | None = None) -> dict[str, Any]:
    row = game(pacman, index, outcome, culprit=culprit)
    cell = "smallClassic/d2/2g/classic"
    row.update(game_id=f"{pacman}~{ghost}@{cell}#{index}", cell=cell, ghost="AlphaBetaGhost",
               ghost_entrant=ghost, ghost_hash="def456")
    return row


def pairing(pacman: str, ghost: str, wins: int, n: int = 20) -> list[dict[str, Any]]:
    return [match(pacman, ghost, i, "win" if i < wins else "loss") for i in range(n)]


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=MATCH_COLUMNS).fillna({"ghost_entrant": "",
                                                              "ghost_hash": ""})


#: The league: `ODD` is the best Pacman and the better ghost team; greedy the weaker Pacman;
#: RandomGhost the weaker ghosts.
LEAGUE = (pairing(ODD, "RandomGhost", 18) + pairing(ODD, ODD, 12)
          + pairing("greedy", "RandomGhost", 12) + pairing("greedy", ODD, 4))
#: In rating order, by construction (the fit is pinned against it below).
ORDER = [(ODD, "pacman"), (ODD, "ghosts"), ("greedy", "pacman"), ("RandomGhost", "ghosts")]


@pytest.fixture
def league() -> pd.DataFrame:
    return frame(LEAGUE)


@pytest.fixture
def mixed() -> pd.DataFrame:
    """Fixed-format games of ace and low beside the league's match games."""
    return frame(record("ace", 9, 10) + record("low", 1, 6) + LEAGUE)


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def league_config(base: Path, names: tuple[str, ...]) -> TournamentConfig:
    """A config of these baselines whose ratings are anchored at `ANCHOR` (its matches
    section; the games themselves come from the hand-made tables)."""
    config = make_config(base, names)
    return dataclasses.replace(config, matches=MatchConfig(anchor=ANCHOR[0],
                                                           anchor_side=ANCHOR[1]))


def test_the_anchor_is_the_configs() -> None:
    assert anchor_of(SimpleNamespace(matches=None)) is None  # type: ignore[arg-type]
    section = MatchConfig(anchor="random", anchor_side="ghosts")
    assert anchor_of(SimpleNamespace(matches=section)) == ("random", "ghosts")  # type: ignore[arg-type]


def printed(monkeypatch: pytest.MonkeyPatch, config: Any, results: pd.DataFrame) -> tuple[
        str, Any]:
    """What `show_results` prints, and what it returns."""
    out = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=out, width=200, highlight=False))
    shown = cli.show_results(config, results)
    return out.getvalue(), shown


def words(text: str) -> str:
    """`text` with every run of white space as one space: a title may wrap."""
    return " ".join(text.split())


def test_split_formats_keeps_every_column_and_row(mixed: pd.DataFrame) -> None:
    fixed, matches = split_formats(mixed)
    assert list(fixed.columns) == list(matches.columns) == list(mixed.columns)
    assert set(fixed["entrant"]) == {"ace", "low"} and len(fixed) == 4 * 10 + 4 * 6
    assert set(matches["ghost_entrant"]) == {ODD, "RandomGhost"} and len(matches) == 80
    # A missing ghost entrant (NaN, a CSV's empty cell) is a fixed-format game.
    fixed, matches = split_formats(mixed.assign(ghost_entrant=mixed["ghost_entrant"].replace(
        "", None)))
    assert len(fixed) == 64 and len(matches) == 80
    # A table from before match games: every game is fixed-format.
    old = mixed.iloc[:64].drop(columns=["ghost_entrant", "ghost_hash"])
    fixed, matches = split_formats(old)
    assert len(fixed) == 64 and matches.empty and list(matches.columns) == list(old.columns)


def test_the_league_is_rated_in_its_order(league: pd.DataFrame) -> None:
    shown = standings(league, ANCHOR, 0.95)
    assert shown is not None and shown.problem is None
    assert list(zip(shown.ratings["entrant"], shown.ratings["side"])) == ORDER
    assert shown.order("pacman") == [ODD, "greedy"]
    assert shown.order("ghosts") == [ODD, "RandomGhost"]
    assert shown.entrants() == [ODD, "greedy", "RandomGhost"]
    assert shown.grid().loc["greedy", "RandomGhost"] == pytest.approx(0.6)
    assert standings(league.iloc[0:0], ANCHOR, 0.95) is None


def test_files_of_a_mixed_tournament(tmp_path: Path, mixed: pd.DataFrame) -> None:
    config = league_config(tmp_path, ("ace", "low"))
    config.output.mkdir()
    fixed, matches = split_formats(mixed)
    board = leaderboard(fixed, config.ranking)
    shown = standings(matches, ANCHOR, config.ranking.confidence)
    written = write_leaderboard_files(config, mixed, board, shown)
    assert [p.name for p in written] == ["leaderboard.csv", "leaderboard.md", "leaderboard.json",
                                         "cells.csv", "games.csv", "ratings.csv",
                                         "crosstable.csv"]
    # The leaderboard and cells: fixed-format games only. games.csv: every game.
    assert [r["entrant"] for r in read_csv(tmp_path / "out" / "leaderboard.csv")] == [
        "ace", "low"]
    assert {r["entrant"] for r in read_csv(tmp_path / "out" / "cells.csv")} == {"ace", "low"}
    assert len(read_csv(tmp_path / "out" / "games.csv")) == len(mixed)

    ratings = read_csv(tmp_path / "out" / "ratings.csv")
    assert list(ratings[0]) == list(RATING_COLUMNS)
    assert [(r["entrant"], r["side"]) for r in ratings] == ORDER
    expected = fit_ratings(matches, ANCHOR)
    for row, fit in zip(ratings, expected.to_dict("records")):
        assert float(row["rating"]) == pytest.approx(fit["rating"])
        assert float(row["rating_low"]) == pytest.approx(fit["rating_low"])
        assert float(row["rating_high"]) == pytest.approx(fit["rating_high"])
        assert row["rank_group"] == fit["rank_group"]
        assert int(row["games"]) == fit["games"] == 40
    anchor = next(r for r in ratings if r["entrant"] == "RandomGhost")
    assert float(anchor["rating"]) == float(anchor["rating_low"]) == 0.0

    cross = read_csv(tmp_path / "out" / "crosstable.csv")
    assert list(cross[0]) == list(CROSSTABLE_COLUMNS)
    pairs = {(r["entrant"], r["ghost_entrant"]): r for r in cross}
    assert {k: (int(r["games"]), float(r["points_rate"])) for k, r in pairs.items()} == {
        (ODD, ODD): (20, 0.6), (ODD, "RandomGhost"): (20, 0.9),
        ("greedy", ODD): (20, 0.2), ("greedy", "RandomGhost"): (20, 0.6)}
    assert len(cross) == len(crosstable(matches))


def test_no_match_games_write_no_ratings_files_and_remove_stale_ones(
        tmp_path: Path, mixed: pd.DataFrame) -> None:
    config = league_config(tmp_path, ("ace", "low"))
    config.output.mkdir()
    fixed, matches = split_formats(mixed)
    write_leaderboard_files(config, mixed, leaderboard(fixed),
                            standings(matches, ANCHOR, 0.95))
    assert (tmp_path / "out" / "ratings.csv").is_file()
    written = write_leaderboard_files(config, fixed, leaderboard(fixed))
    assert [p.name for p in written] == ["leaderboard.csv", "leaderboard.md", "leaderboard.json",
                                         "cells.csv", "games.csv"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        p.name for p in written)


def test_a_ratings_problem_is_one_line_and_the_crosstable_still_written(
        tmp_path: Path, league: pd.DataFrame) -> None:
    # A Pacman and a ghost team that only met each other: nothing ties them to the anchor.
    apart = frame(LEAGUE + pairing("loner", "hermit", 5))
    shown = standings(apart, ANCHOR, 0.95)
    assert shown is not None and shown.ratings is None
    assert shown.problem is not None and "\n" not in shown.problem
    assert ANCHOR_KEYS in shown.problem and "'loner' (pacman)" in shown.problem
    assert shown.order("pacman") == sorted([ODD, "greedy", "loner"])  # by name
    config = league_config(tmp_path, ("ace",))
    config.output.mkdir()
    (config.output / "ratings.csv").write_text("stale", encoding="utf-8")
    written = write_leaderboard_files(config, apart, None, shown)
    assert [p.name for p in written] == ["games.csv", "crosstable.csv"]
    assert not (config.output / "ratings.csv").exists()
    assert not (config.output / "leaderboard.csv").exists()


def test_console_prints_ratings_in_order_and_the_crosstable_grid(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mixed: pd.DataFrame) -> None:
    config = league_config(tmp_path, ("ace", "low"))
    config.output.mkdir()
    text, shown = printed(monkeypatch, config, mixed)
    assert shown is not None and shown.anchor == ANCHOR  # the config's matches.anchor
    assert "ranked by win rate" in text  # the fixed leaderboard, as before
    assert "ratings (Elo, RandomGhost (ghosts) = 0; 95% intervals)" in words(text)
    ratings = text[text.index("ratings (Elo"):text.index("crosstable")]
    rows = [(m.group(1), m.group(2)) for m in
            re.finditer(r"│ +[\d-]+ │ (\S+) +│ (pacman|ghosts) ", ratings)]
    assert rows == ORDER
    assert re.search(r"RandomGhost +│ ghosts +│ +0 \[0, 0\] │ +40 │ +25% │", ratings)
    grid = text[text.index("crosstable"):]
    header = next(line for line in grid.splitlines() if "Pacman \\ ghosts" in line)
    assert header.index(ODD) < header.index("RandomGhost")  # ghosts in rating order
    lines = [line for line in grid.splitlines() if line.startswith("│ ")]
    assert [line.split("│")[1].strip() for line in lines] == [ODD, "greedy"]
    assert re.search(r"│ 60% \(20\) │ +90% \(20\) │", lines[0])
    assert re.search(r"│ 20% \(20\) │ +60% \(20\) │", lines[1])
    assert "wrote " in text and "ratings.csv, crosstable.csv (144 games)" in text


def test_console_without_fixed_games_prints_no_empty_leaderboard(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, league: pd.DataFrame) -> None:
    config = league_config(tmp_path, ("ace",))
    config.output.mkdir()
    text, _ = printed(monkeypatch, config, league)
    assert "ranked by" not in text and "ratings (Elo" in text
    assert not (config.output / "leaderboard.csv").exists()


def test_console_without_match_games_prints_no_ratings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mixed: pd.DataFrame) -> None:
    config = league_config(tmp_path, ("ace", "low"))
    config.output.mkdir()
    fixed, _ = split_formats(mixed)
    text, shown = printed(monkeypatch, config, fixed)
    assert shown is None and "ranked by win rate" in text
    assert "ratings" not in text.replace("ratings.csv", "") and "crosstable" not in text


def test_console_shows_a_ratings_problem_and_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mixed: pd.DataFrame) -> None:
    config = league_config(tmp_path, ("ace", "low"))
    config.output.mkdir()
    # The anchor comes from the config's matches section once it has one.
    # (Set on the frozen config as that section will be: an attribute with these names.)
    object.__setattr__(config, "matches", SimpleNamespace(anchor="nobody", anchor_side="pacman"))
    text, shown = printed(monkeypatch, config, mixed)
    assert shown is not None and shown.anchor == ("nobody", "pacman")
    problem = [line for line in text.splitlines() if line.startswith("ratings: ")]
    assert len(problem) == 1 and ANCHOR_KEYS in problem[0] and "is no rated entity" in problem[0]
    assert "ranked by win rate" in text and "Pacman \\ ghosts" in text
    assert "ratings (Elo" not in text


def cells(page: Page, table: str) -> list[list[str]]:
    """The text of each body row's cells of a page's table."""
    return [row.cells for row in page.body_rows(table)]


def test_report_shows_ratings_in_order_and_the_crosstable(
        tmp_path: Path, mixed: pd.DataFrame) -> None:
    config = league_config(tmp_path, ("ace", "low"))
    out = tmp_path / "report"
    index = write_report(mixed, config, out, anchor=ANCHOR)
    page = Page(index)
    assert "<script>" not in page.source and ODD not in page.source and ODD in page.words()
    # The fixed leaderboard and its plots, as before.
    assert "leaderboard" in page.tables and page.source.count("<svg") == 2
    ratings = cells(page, "ratings")
    assert [(r[2], r[3]) for r in ratings] == [
        (ODD, "Pacman"), (ODD, "ghosts"), ("greedy", "Pacman"), ("RandomGhost", "ghosts")]
    assert ratings[-1][4] == "0 [0, 0]" and ratings[-1][6:] == ["40", "25%"]
    assert "anchored at RandomGhost (ghosts) = 0" in page.words()
    assert '<div class="bar"' in page.source

    assert cells(page, "crosstable") == [[ODD, "60% 20 games", "90% 20 games"],
                                         ["greedy", "20% 20 games", "60% 20 games"]]
    cross = page.source[page.source.index('<table id="crosstable">'):]
    assert "background: hsl(108, 70%, 80%)" in cross  # 90%: nearly green
    assert "background: hsl(24, 70%, 80%)" in cross  # 20%: nearly red
    # Each crosstable cell links to the Pacman's games against that ghost team.
    first = page.body_rows("crosstable")[0].links[1:]
    assert [dict(parse_qsl(link.partition("#")[2])) for link in first] == [
        {"opponent": ODD, "side": "pacman", "format": "match"},
        {"opponent": "RandomGhost", "side": "pacman", "format": "match"}]

    # A page per team, by name; the two-sided team's shows both ratings, its row and column,
    # and every game of both its sides.
    links = {unquote(link.partition("#")[0]) for link in page.links}
    assert {"team-ace.html", "team-low.html", page_of(ODD), "team-greedy.html",
            page_of("RandomGhost")} <= links
    both = Page(out / page_of(ODD))
    assert [r[3] for r in cells(both, "ratings")] == ["Pacman", "ghosts"]
    assert "As Pacman, against each ghost team" in both.words()
    assert [r[0] for r in cells(both, "as-pacman")] == [ODD, "RandomGhost"]  # rating order
    assert [(r[0], r[1], r[2]) for r in cells(both, "as-ghosts")] == [
        (ODD, "20", "40%"), ("greedy", "20", "80%")]
    assert "overall" not in both.tables  # no fixed-format games
    games = both.body_rows("games")
    assert len(games) == len(mixed[(mixed["entrant"] == ODD) | (mixed["ghost_entrant"] == ODD)])
    assert {g.attrs["data-side"] for g in games} == {"pacman", "ghosts"}
    # As ghosts against itself: the game is on the page once per side it played.
    own = [g for g in games if g.attrs["data-opponent"] == ODD]
    assert {g.attrs["data-side"] for g in own} == {"pacman"}
    # The heat map counts the games against the grid's ghosts only, and so do its links.
    heat = Page(index).body_rows("heatmap")
    for row in heat:
        for href, cell in zip(row.links[1:], row.cell_attrs[1:]):
            target, _, fragment = href.partition("#")
            wanted = dict(parse_qsl(fragment))
            assert wanted["format"] == "fixed"
            games = [g for g in Page(out / target).body_rows("games")
                     if all(g.attrs[f"data-{k}"] == v for k, v in wanted.items())]
            assert f"of {len(games)} scored games" in cell["title"]
    ace = Page(out / "team-ace.html")
    assert "overall" in ace.tables and "ratings" not in ace.tables


def test_report_of_a_league_alone_has_no_leaderboard_and_shows_failures_by_side(
        tmp_path: Path) -> None:
    rows = [*LEAGUE, match("greedy", ODD, 30, "crash", culprit=1),
            match("greedy", ODD, 31, "timeout", culprit=0)]
    config = league_config(tmp_path, ("greedy",))
    out = tmp_path / "report"
    page = Page(write_report(frame(rows), config, out))
    assert "leaderboard" not in page.tables and "<svg" not in page.source
    assert "Ranked by" not in page.words() and "anchored at RandomGhost (ghosts)" in page.words()
    odd = Page(out / page_of(ODD))
    failed = [g for g in odd.body_rows("games") if g.attrs["data-result"] == "failed"]
    assert [(g.attrs["data-game"], g.attrs["data-side"]) for g in failed] == [
        (f"greedy~{ODD}@smallClassic/d2/2g/classic#30", "ghosts")]
    assert f"Culprit: {ODD} (ghost 1)" in odd.words()
    greedy = Page(out / "team-greedy.html")
    failed = [g for g in greedy.body_rows("games") if g.attrs["data-result"] == "failed"]
    assert [g.attrs["data-game"].rpartition("#")[2] for g in failed] == ["31"]
    beaten = [g for g in greedy.body_rows("games") if g.attrs["data-result"] == "opponent failed"]
    assert [g.attrs["data-game"].rpartition("#")[2] for g in beaten] == ["30"]


def test_report_shows_a_ratings_problem_and_the_rest(tmp_path: Path) -> None:
    apart = frame(LEAGUE + pairing("loner", "hermit", 5))
    page = Page(write_report(apart, league_config(tmp_path, ("greedy",)), tmp_path / "report"))
    problem = re.findall(r'<p class="problem">(.*?)</p>', page.source)
    assert len(problem) == 1 and ANCHOR_KEYS in problem[0] and "&#39;loner&#39;" in problem[0]
    assert "ratings" not in page.tables
    assert len(cells(page, "crosstable")) == 3
