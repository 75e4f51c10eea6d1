"""The tournament as a static HTML site: `index.html` and one page per entrant in a folder.

Organizers publish the report by copying a folder and teams read it on any machine, so
everything is local: plain HTML with inline CSS, plots as PNG files beside the pages, no
JavaScript and no external URLs. Messages in the results come from untrusted agents (an
exception text is whatever a team's code chose to raise), so every string taken from the
results is escaped before it reaches a page.

The plots are drawn on bare `matplotlib.figure.Figure` objects, never through pyplot: that
needs no display, touches no process-wide backend setting, and keeps no figures alive
between reports. matplotlib is imported only when a report is written, so commands that
merely import this module do not pay for it.

The previous report's leaderboard is kept as `leaderboard.json` beside the pages; the next
report reads it before overwriting it, to show how each entrant's rank moved since then.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pandas as pd  # type: ignore[import-untyped, unused-ignore]

from pacman.outcomes import FAILURES, GHOSTS, INFRA_ERROR, PACMAN, side_of
from tournament.config import TournamentConfig
from tournament.leaderboard import cell_table, leaderboard
from tournament.ranking import words as ranking_words
from tournament.ratings import expected_score
from tournament.results import split_formats
from tournament.resume import Outdated
from tournament.standings import Standings, anchor_of, standings

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The previous report's leaderboard, one record per entrant (the leaderboard's columns).
PREVIOUS_LEADERBOARD = "leaderboard.json"
HEATMAP_PNG = "win-rate.png"
SCORES_PNG = "scores.png"
MOVE_TIME_PNG = "move-time.png"
#: A failure message longer than this is cut: a hostile agent must not bloat the pages.
MESSAGE_LIMIT = 2000

_STAT_HEADERS = ("Games", "Win rate", "Mean score", "Mean score (wins)", "Failures", "Move time")
_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 75rem;
       padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { padding: 0.3rem 0.6rem; border-bottom: 1px solid #ddd; text-align: right;
         vertical-align: top; }
th { background: #f0f0f0; }
.text { text-align: left; }
tr.shade td { background: #f5f7fb; }
.ci, .meta { color: #777; }
.ci { font-size: 0.85em; }
.up { color: #1a7f37; } .down { color: #c62828; }
td.message { white-space: pre-wrap; max-width: 40rem; font-family: monospace; }
img { max-width: 100%; height: auto; display: block; margin: 1rem 0; }
.problem { color: #c62828; }
.scroll { overflow-x: auto; max-width: 100%; }
#crosstable td { text-align: center; min-width: 4rem; }
#crosstable th:first-child { position: sticky; left: 0; z-index: 1; }
#crosstable td.none { color: #999; }
.bar { position: relative; width: 10rem; height: 0.9rem; background: #f4f4f4; }
.bar span { position: absolute; top: 0; height: 0.9rem; }
.bar .span { top: 0.25rem; height: 0.4rem; background: #8fb3de; }
.bar .mark { width: 2px; margin-left: -1px; background: #1f4e8c; }
.bar .zero { width: 1px; background: #999; }
"""


def write_report(
    results: Any,
    config: TournamentConfig,
    out_dir: Path,
    pictures: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    anchor: tuple[str, str] | None = None,
    outdated: Sequence[Outdated] = (),
    command: str = "tournament run CONFIG",
) -> Path:
    """Write the site into `out_dir` (created if needed) and return its `index.html`.

    `results` is the results table (one row per game, `tournament.leaderboard`'s columns plus
    `replay`, and `ghost_entrant` where there are match games). The leaderboard, its plots and
    a team's statistics and cells are those of the fixed-format games; the ratings (anchored
    at `anchor`, (entrant, side), by default the config's `matches.anchor`) and the
    crosstable are those of the match games.
    The previous report's ranks are read first and the new leaderboard is saved last, so a
    report that fails half-way leaves the old ranks in place for the next try. `pictures`
    maps an entrant to (caption, image file relative to `out_dir`) pairs shown on its page:
    a GIF or a frame strip of its best and worst game.
    `outdated` (`tournament.resume.outdated`) are the entrants with games stored for an
    earlier version of their files, which no table here counts: the index lists them and
    each one's page says so, with `command`, the command that plays the current ones.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    previous = _previous_ranks(out_dir / PREVIOUS_LEADERBOARD)
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    meta = f'<p class="meta">Generated {generated}.</p>'
    index = out_dir / "index.html"
    stale = _stale_games(outdated)
    if len(results) == 0:
        slugs = _slugs(list(stale))
        body = (f"<h1>{_e(config.name)}</h1>{meta}"
                f"{_outdated_notice(stale, slugs, command)}"
                "<p>No games have been played yet for the current submissions.</p>")
        index.write_text(_page(config.name, body), encoding="utf-8")
        for name in stale:
            page = _team_page(name, None, 0, results, None, None, config, out_dir, (),
                              stale[name], command)
            (out_dir / f"team-{slugs[name]}.html").write_text(page, encoding="utf-8")
        _save_leaderboard(None, out_dir)
        return index

    fixed, matches = split_formats(results)
    anchor = anchor or anchor_of(config)
    shown = None if anchor is None else standings(matches, anchor, config.ranking.confidence)
    board = leaderboard(fixed, config.ranking) if len(fixed) or shown is None else None
    cells = cell_table(fixed, config.ranking.confidence)
    ranked_names = [] if board is None else list(board["entrant"])
    entrants = list(dict.fromkeys([*ranked_names, *(shown.entrants() if shown else []),
                                   *stale]))
    slugs = _slugs(entrants)

    absent = [e.name for e in config.entrants if e.name not in slugs]
    parts = [f"<h1>{_e(config.name)}</h1>", _outdated_notice(stale, slugs, command)]
    if board is None:
        parts.append(f'<p class="meta">Generated {generated} from {len(results)} games.</p>')
    else:
        _heatmap(cells, ranked_names, out_dir / HEATMAP_PNG)
        _scores(fixed, ranked_names, out_dir / SCORES_PNG)
        _move_times(board, out_dir / MOVE_TIME_PNG)
        ranked_by = ranking_words(config.ranking.by)
        first = ranking_words(config.ranking.by[:1])
        unscored = int(board["infra_errors"].sum())
        parts += [
            f'<p class="meta">Generated {generated} from {len(results)} games. Ranked by '
            f"{_e(ranked_by)}; intervals at {config.ranking.confidence:.0%} confidence.</p>",
            "<h2>Leaderboard</h2>",
            _leaderboard_table(board, slugs, previous),
            f"<p>Entrants in one group have overlapping {_e(first)} intervals: the games "
            "played so far cannot tell them apart.</p>",
        ]
        if unscored:
            games = "1 game" if unscored == 1 else f"{unscored} games"
            parts.append(f"<p>Not scored: {games} that failed in the platform itself.</p>")
    if absent:
        parts.append(f"<p>No games yet for {_e(', '.join(absent))}.</p>")
    if board is not None:
        parts += [
            "<h2>Win rate per layout and depth</h2>",
            f'<img src="{HEATMAP_PNG}" alt="Heat map of win rate per entrant, layout and '
            'depth">',
            "<h2>Score distributions</h2>",
            f'<img src="{SCORES_PNG}" alt="Box plots of the scores of each entrant">',
            "<h2>Thinking time per move</h2>",
            f'<img src="{MOVE_TIME_PNG}" alt="Mean and longest move time of each entrant">',
        ]
    if shown is not None:
        parts += _standings_sections(shown, slugs)
    index.write_text(_page(config.name, "\n".join(parts)), encoding="utf-8")

    rows = {} if board is None else {row["entrant"]: row for row in board.to_dict("records")}
    for name in entrants:
        page = _team_page(name, rows.get(name), len(rows), results, cells, shown, config,
                          out_dir, (pictures or {}).get(name, ()), stale.get(name, 0), command)
        (out_dir / f"team-{slugs[name]}.html").write_text(page, encoding="utf-8")
    _save_leaderboard(board, out_dir)
    return index


# ---- pages ---------------------------------------------------------------------------------


def _stale_games(outdated: Sequence[Outdated]) -> dict[str, int]:
    """Entrant -> its games stored for an earlier version of its files, both sides summed (a
    team's hash covers its whole folder: its two sides change together)."""
    games: dict[str, int] = {}
    for found in outdated:
        games[found.entrant] = games.get(found.entrant, 0) + found.games
    return games


def _outdated_notice(stale: Mapping[str, int], slugs: dict[str, str], command: str) -> str:
    """The index's notice of the entrants whose stored games are outdated ('' if none)."""
    if not stale:
        return ""
    listed = ", ".join(f"{_team_link(name, slugs)} ({n})" for name, n in stale.items())
    return (f'<p class="problem">Games stored for an earlier version of these entrants\' '
            f"files, not counted here: {listed}. <code>{_e(command)}</code> plays the "
            "current ones.</p>")



def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )


def _leaderboard_table(board: Any, slugs: dict[str, str], previous: dict[str, int] | None) -> str:
    """Rows shaded by rank group, so that entrants who share a group read as one block."""
    change = ['<th title="since the previous report">Change</th>'] if previous is not None else []
    head = ["<th>Rank</th>", "<th>Group</th>", '<th class="text">Entrant</th>']
    rows = [
        '<table id="leaderboard">',
        "<tr>" + "".join([*change, *head, *(f"<th>{h}</th>" for h in _STAT_HEADERS)]) + "</tr>",
    ]
    shade, group = True, None
    for row in board.to_dict("records"):
        if row["rank_group"] != group:
            shade, group = not shade, row["rank_group"]
        cells = [f"<td>{_change(row['entrant'], row['rank'], previous)}</td>"] if change else []
        href = quote(f"team-{slugs[row['entrant']]}.html")
        cells += [
            f"<td>{row['rank']}</td>",
            f"<td>{_e(row['rank_group'])}</td>",
            f'<td class="text entrant"><a href="{href}">{_e(row["entrant"])}</a></td>',
            *_stat_cells(row),
        ]
        rows.append(f'<tr class="{"shade" if shade else "plain"}">' + "".join(cells) + "</tr>")
    return "\n".join([*rows, "</table>"])


def _stat_cells(row: dict[str, Any]) -> list[str]:
    """The statistics both the leaderboard and a team's cells table show, as <td>s."""
    kinds = ", ".join(f"{kind} {row[kind]}" for kind in FAILURES if row[kind])
    failures = f"{row['failures']}" + (f' <span class="ci">({kinds})</span>' if kinds else "")
    return [
        f"<td>{row['games']}</td>",
        f"<td>{_estimate(row['win_rate'], row['win_low'], row['win_high'], _percent)}</td>",
        f"<td>{_estimate(row['mean_score'], row['score_low'], row['score_high'], _score)}</td>",
        "<td>"
        + _estimate(row["mean_score_wins"], row["score_wins_low"], row["score_wins_high"], _score)
        + "</td>",
        f"<td>{failures}</td>",
        f'<td>{_seconds(row["move_time_mean"])} <span class="ci">max '
        f"{_seconds(row['move_time_max'])}</span></td>",
    ]


def _team_page(
    name: str,
    row: dict[str, Any] | None,
    entrants: int,
    results: Any,
    cells: Any,
    shown: Standings | None,
    config: TournamentConfig,
    out_dir: Path,
    pictures: Sequence[tuple[str, str]] = (),
    stale: int = 0,
    command: str = "tournament run CONFIG",
) -> str:
    """A team's page: its fixed-format statistics and cells (`row`, its leaderboard row, when
    it played such games), its ratings and crosstable row and column (when it played match
    games), the failures it caused on either side, and its pictures; first, when `stale`
    games are stored for an earlier version of its files, a line saying so."""
    parts = [
        '<p><a href="index.html">&larr; The tournament</a></p>',
        f"<h1>{_e(name)}</h1>",
    ]
    if stale:
        games = "1 game is" if stale == 1 else f"{stale} games are"
        parts.append(f'<p class="problem">{games} stored for an earlier version of this '
                     f"team's files; <code>{_e(command)}</code> plays the current ones.</p>")
    if row is not None:
        parts += _fixed_sections(row, entrants, cells, config)
    else:
        parts.append(f'<p class="meta">In {_e(config.name)}.</p>')
    if shown is not None and name in shown.entrants():
        parts += _team_standings(name, shown)
    parts += ["<h2>Failures</h2>", _failures(results, name, config, out_dir, shown is not None)]
    if pictures:
        parts.append("<h2>Best and worst games</h2>")
        parts += [
            f'<figure><img src="{quote(path)}" alt="{_e(caption)}">'
            f"<figcaption>{_e(caption)}</figcaption></figure>"
            for caption, path in pictures
        ]
    return _page(f"{name}: {config.name}", "\n".join(parts))


def _fixed_sections(
    row: dict[str, Any], entrants: int, cells: Any, config: TournamentConfig
) -> list[str]:
    """A team's rank, overall statistics and cells in the fixed-format games."""
    name = row["entrant"]
    overall = [
        ("Games scored", str(row["games"])),
        ("Wins", str(row["wins"])),
        ("Win rate", _estimate(row["win_rate"], row["win_low"], row["win_high"], _percent)),
        ("Mean score", _estimate(row["mean_score"], row["score_low"], row["score_high"], _score)),
        (
            "Mean score over wins",
            _estimate(
                row["mean_score_wins"], row["score_wins_low"], row["score_wins_high"], _score
            ),
        ),
        ("Own failures", str(row["failures"])),
        *((f"&nbsp;&nbsp;{kind}", str(row[kind])) for kind in FAILURES if row[kind]),
        ("Failures of ghosts", str(row["other_failures"])),
        ("Not scored (platform errors)", str(row["infra_errors"])),
        (
            "Move time, mean / max",
            f"{_seconds(row['move_time_mean'])} / {_seconds(row['move_time_max'])}",
        ),
        (
            "CPU time, mean / max",
            f"{_seconds(row['cpu_time_mean'])} / {_seconds(row['cpu_time_max'])}",
        ),
    ]
    own = cells[cells["entrant"] == name]
    cell_rows = [
        f'<tr><td class="text">{_e(c["layout"])}</td><td>{_depth(c["depth"])}</td>'
        + "".join(_stat_cells(c))
        + "</tr>"
        for c in own.to_dict("records")
    ]
    return [
        f'<p class="meta">Rank {row["rank"]} of {entrants} (group {_e(row["rank_group"])}) in '
        f"{_e(config.name)}.</p>",
        "<h2>Overall</h2>",
        "<table>"
        + "".join(f'<tr><th class="text">{k}</th><td>{v}</td></tr>' for k, v in overall)
        + "</table>",
        "<h2>Cells</h2>",
        '<table><tr><th class="text">Layout</th><th>Depth</th>'
        + "".join(f"<th>{h}</th>" for h in _STAT_HEADERS)
        + "</tr>"
        + "".join(cell_rows)
        + "</table>",
    ]


def _failures(
    results: Any, name: str, config: TournamentConfig, out_dir: Path, sides: bool = False
) -> str:
    """The games this team failed: as Pacman (culprit 0) and, in match games, as the ghost
    entrant (a culprit from 1 on); never the failures of its opponents. With `sides`, a
    column says which side of the team failed.

    In cell, then game order: game ids sort as text, which would put game 10 before game 7.
    """
    culprit = pd.to_numeric(results["culprit"], errors="coerce")
    failed = results["outcome"].isin(FAILURES)
    as_pacman = failed & (results["entrant"] == name) & (culprit == 0)
    as_ghosts = failed & (culprit >= 1)
    if "ghost_entrant" in results.columns:
        as_ghosts &= results["ghost_entrant"].fillna("").astype(str) == name
    else:
        as_ghosts &= False
    mine = results[as_pacman | as_ghosts].sort_values(
        ["cell", "game_index", "game_id"], kind="mergesort"
    )
    if mine.empty:
        return "<p>No failures.</p>"
    head = ("Kind", "Message", "Game", "Seed", "Replay", *(("Side",) if sides else ()))
    rows = [
        '<table id="failures"><tr>' + "".join(f'<th class="text">{h}</th>' for h in head) + "</tr>"
    ]
    for game in mine.to_dict("records"):
        message = "" if _missing(game["message"]) else str(game["message"])
        if len(message) > MESSAGE_LIMIT:
            message = message[:MESSAGE_LIMIT] + " [...]"
        side = ""
        if sides:
            culprit_value = pd.to_numeric(game["culprit"], errors="coerce")
            side = f'<td class="text">{_side(side_of(int(culprit_value)))}</td>'
        rows.append(
            f'<tr><td class="text">{_e(game["outcome"])}</td>'
            f'<td class="text message">{_e(message)}</td>'
            f'<td class="text">{_e(game["game_id"])}</td><td>{_e(game["seed"])}</td>'
            f'<td class="text">{_replay(game.get("replay"), config, out_dir)}</td>{side}</tr>'
        )
    return "\n".join([*rows, "</table>"])


# ---- ratings and crosstable ----------------------------------------------------------------


def _standings_sections(shown: Standings, slugs: dict[str, str]) -> list[str]:
    """The index's Ratings and Crosstable sections."""
    name, side = shown.anchor
    parts = ["<h2>Ratings</h2>"]
    if shown.ratings is None:
        parts.append(f'<p class="problem">{_e(shown.problem)}</p>')
    else:
        parts += [
            f'<p class="meta">Bradley-Terry ratings on the Elo scale from {shown.games} match '
            f"games, anchored at {_e(name)} ({_e(_side(side))}) = 0; intervals at "
            f"{shown.confidence:.0%} confidence. A Pacman rated 200 above a ghost team is "
            "expected to take "
            f"{expected_score(200):.0%} of the points against it.</p>",
            _ratings_table(shown.ratings, slugs),
            "<p>Entrants in one group have overlapping rating intervals: the games played so "
            "far cannot tell them apart.</p>",
        ]
    parts += [
        "<h2>Crosstable</h2>",
        '<p class="meta">Each cell: the Pacman&#x27;s points rate against that ghost team (a '
        "win 1, a move-limit draw &frac12;, a failure counts for the other side) and the games "
        "counted; green where Pacman took the points, red where the ghosts did. Rows and "
        "columns in rating order.</p>",
        _crosstable_grid(shown, slugs),
    ]
    return parts


def _ratings_table(ratings: Any, slugs: dict[str, str] | None) -> str:
    """Rows shaded by rank group, each interval drawn as a bar on one scale for all rows."""
    finite = [v for v in (*ratings["rating_low"], *ratings["rating_high"]) if math.isfinite(v)]
    scale = (min([0.0, *finite]), max([0.0, *finite]))
    head = ["Rank", "Group", "Entrant", "Side", "Rating", "Interval", "Games", "Points rate"]
    rows = ['<table id="ratings">', _head(head, ("Entrant", "Side"))]
    shade, group = True, None
    for row in ratings.to_dict("records"):
        if row["rank_group"] != group:
            shade, group = not shade, row["rank_group"]
        entrant = _e(row["entrant"]) if slugs is None else _team_link(row["entrant"], slugs)
        rows.append(
            f'<tr class="{"shade" if shade else "plain"}">'
            f"<td>{row['rank']}</td><td>{_e(row['rank_group'])}</td>"
            f'<td class="text entrant">{entrant}</td>'
            f'<td class="text">{_side(row["side"])}</td>'
            f"<td>{_estimate(row['rating'], row['rating_low'], row['rating_high'], _elo)}</td>"
            f"<td>{_bar(row['rating'], row['rating_low'], row['rating_high'], scale)}</td>"
            f"<td>{row['games']}</td><td>{_percent(row['score'])}</td></tr>"
        )
    return "\n".join([*rows, "</table>"])


def _bar(value: Any, low: Any, high: Any, scale: tuple[float, float]) -> str:
    """An interval as a bar in a box spanning `scale` (Elo), with the estimate and 0 marked."""
    if _missing(value) or not math.isfinite(value):
        return "&ndash;"
    width = scale[1] - scale[0] or 1.0

    def at(x: float) -> float:
        return 100 * (x - scale[0]) / width

    return (
        f'<div class="bar" title="{_e(_elo(low))} to {_e(_elo(high))}">'
        f'<span class="zero" style="left: {at(0.0):.1f}%"></span>'
        f'<span class="span" style="left: {at(low):.1f}%; width: {at(high) - at(low):.1f}%">'
        f'</span><span class="mark" style="left: {at(value):.1f}%"></span></div>'
    )


def _crosstable_grid(shown: Standings, slugs: dict[str, str]) -> str:
    """Pacman rows x ghost columns, in a box that scrolls sideways on a narrow screen."""
    grids = {v: shown.grid(v) for v in ("points_rate", "games", "wins", "mean_score")}
    rates = grids["points_rate"]

    def link(entrant: Any) -> str:
        return _team_link(entrant, slugs)

    rows = [
        '<div class="scroll"><table id="crosstable">',
        '<tr><th class="text">Pacman \\ ghosts</th>'
        + "".join(f'<th class="text">{link(g)}</th>' for g in rates.columns)
        + "</tr>",
    ]
    for pacman in rates.index:
        cells = [f'<th class="text">{link(pacman)}</th>']
        for ghost in rates.columns:
            games = grids["games"].loc[pacman, ghost]
            if _missing(games):
                cells.append('<td class="none">&ndash;</td>')
                continue
            cells.append(
                _rate_cell(rates.loc[pacman, ghost], int(games), grids["wins"].loc[pacman, ghost],
                           grids["mean_score"].loc[pacman, ghost])
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join([*rows, "</table></div>"])


def _rate_cell(rate: Any, games: int, wins: Any, mean_score: Any) -> str:
    """A crosstable cell from the Pacman's view: coloured red (0%) to green (100%)."""
    if _missing(rate):
        return f'<td class="none">&ndash;<br><span class="ci">{games} games</span></td>'
    title = f"Pacman won {int(wins)} of {games}; mean score {_score(mean_score)}"
    return (
        f'<td style="background: {_colour(rate)}" title="{_e(title)}">{_percent(rate)}<br>'
        f'<span class="ci">{games} {"game" if games == 1 else "games"}</span></td>'
    )


def _team_standings(name: str, shown: Standings) -> list[str]:
    """A team's ratings (both its sides) and its crosstable row and column."""
    parts = ["<h2>Ratings</h2>"]
    if shown.ratings is None:
        parts.append(f'<p class="problem">{_e(shown.problem)}</p>')
    else:
        parts.append(_ratings_table(shown.ratings[shown.ratings["entrant"] == name], None))
    table = shown.crosstable
    own_pacman = table[table["entrant"] == name].set_index("ghost_entrant")
    if len(own_pacman):
        order = [g for g in shown.order(GHOSTS) if g in own_pacman.index]
        parts += [
            "<h2>As Pacman, against each ghost team</h2>",
            _pairings(own_pacman.loc[order], "Ghost team", pacman_view=True),
        ]
    own_ghosts = table[table["ghost_entrant"] == name].set_index("entrant")
    if len(own_ghosts):
        order = [p for p in shown.order(PACMAN) if p in own_ghosts.index]
        parts += [
            "<h2>As ghosts, against each Pacman</h2>",
            _pairings(own_ghosts.loc[order], "Pacman", pacman_view=False),
        ]
    return parts


def _pairings(pairs: Any, opponent: str, pacman_view: bool) -> str:
    """One team's crosstable row or column: its own points rate first, then the Pacman's
    wins and mean score (the game's score is always the Pacman's)."""
    head = [opponent, "Games", "Points rate (this team&#x27;s)", "Pacman wins", "Pacman mean score"]
    rows = ["<table>", _head(head, (opponent,))]
    for other, pair in pairs.iterrows():
        rate = pair["points_rate"] if pacman_view else 1 - pair["points_rate"]
        rows.append(
            f'<tr><td class="text">{_e(other)}</td><td>{int(pair["games"])}</td>'
            f"<td>{_percent(rate)}</td><td>{int(pair['wins'])}</td>"
            f"<td>{_score(pair['mean_score'])}</td></tr>"
        )
    return "\n".join([*rows, "</table>"])


def _replay(value: Any, config: TournamentConfig, out_dir: Path) -> str:
    """A link to the replay file when it is there, and the command that shows it.

    A relative replay path is taken as relative to the tournament's output folder; the
    command names the absolute file so that it works from any folder. Link targets are
    percent-encoded, since game ids (and so replay file names) contain `#`.
    """
    if _missing(value) or not str(value).strip():
        return "&ndash;"
    recorded = Path(str(value))
    file = recorded if recorded.is_absolute() else config.output / recorded
    command = f"<code>pacman --replay {_e(shlex.quote(str(file)))}</code>"
    if not file.is_file():
        return f"{_e(recorded.name)} (file missing)<br>{command}"
    try:
        href = quote(Path(os.path.relpath(file, out_dir)).as_posix())
    except ValueError:  # another drive on Windows: no relative path exists
        href = file.as_uri()
    return f'<a href="{_e(href)}">{_e(recorded.name)}</a><br>{command}'


# ---- plots ---------------------------------------------------------------------------------


def _heatmap(cells: Any, entrants: list[str], path: Path) -> None:
    """Entrants down in rank order, (layout, depth) across; grey where nothing was scored."""
    import matplotlib
    import numpy as np
    from matplotlib.figure import Figure

    columns = list(dict.fromkeys(zip(cells["layout"], map(_depth, cells["depth"]))))
    grid = np.full((len(entrants), len(columns)), np.nan)
    for c in cells.to_dict("records"):
        column = columns.index((c["layout"], _depth(c["depth"])))
        grid[entrants.index(c["entrant"]), column] = c["win_rate"]
    fig = Figure(figsize=(max(5.0, 1.2 * len(columns) + 3), max(2.5, 0.45 * len(entrants) + 1.8)))
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(columns)), labels=[f"{lay}\ndepth {d}" for lay, d in columns])
    ax.set_yticks(range(len(entrants)), labels=[_label(e) for e in entrants])
    for (r, c), rate in np.ndenumerate(grid):
        if not math.isnan(rate):
            ax.text(c, r, f"{rate:.0%}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, label="win rate")
    ax.set_title("Win rate per layout and depth (all ghost settings and rules pooled)")
    _save(fig, path)


def _scores(results: Any, entrants: list[str], path: Path) -> None:
    """Every game as a dot over the box: Pacman scores are bimodal (a win is worth about
    1000 points more than a loss), and a box alone would hide one mode as outliers. The
    dots' sideways jitter comes from a fixed seed, so the same results draw the same plot."""
    import numpy as np
    from matplotlib.figure import Figure

    scored = results[results["outcome"] != INFRA_ERROR]
    scores = pd.to_numeric(scored["score"], errors="coerce")
    data = [scores[scored["entrant"] == e].dropna().to_numpy(dtype=float) for e in entrants]
    fig = Figure(figsize=(max(5.0, 0.8 * len(entrants) + 2), 4.0))
    ax = fig.add_subplot()
    ax.boxplot(data, showmeans=True, showfliers=False)
    rng = np.random.default_rng(0)
    for position, values in enumerate(data, start=1):
        jitter = rng.uniform(-0.15, 0.15, size=values.size)
        ax.scatter(position + jitter, values, s=10, alpha=0.4, color="tab:blue")
    ax.set_xticks(range(1, len(entrants) + 1), labels=[_label(e) for e in entrants])
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylabel("score per game")
    ax.set_title("Scores (dot: a game, box: quartiles, line: median, triangle: mean)")
    _save(fig, path)


def _move_times(board: Any, path: Path) -> None:
    """On a log scale when it can be, since the longest move is often 100x the mean one."""
    import numpy as np
    from matplotlib.figure import Figure

    x = np.arange(len(board))
    mean = board["move_time_mean"].to_numpy(dtype=float) * 1000
    longest = board["move_time_max"].to_numpy(dtype=float) * 1000
    fig = Figure(figsize=(max(5.0, 0.8 * len(board) + 2), 4.0))
    ax = fig.add_subplot()
    ax.bar(x - 0.2, mean, width=0.4, label="mean")
    ax.bar(x + 0.2, longest, width=0.4, label="longest")
    measured = np.concatenate([mean, longest])
    measured = measured[np.isfinite(measured)]
    if measured.size and (measured > 0).all():
        ax.set_yscale("log")
    ax.set_xticks(x, labels=[_label(e) for e in board["entrant"]])
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylabel("milliseconds per move (wall clock)")
    ax.set_title("Thinking time per move")
    ax.legend()
    _save(fig, path)


def _save(fig: Figure, path: Path) -> None:
    fig.savefig(path, format="png", dpi=100, bbox_inches="tight")


# ---- ranks across reports ------------------------------------------------------------------


def _previous_ranks(path: Path) -> dict[str, int] | None:
    """Each entrant's rank in the previous report; None when there was none.

    A file that cannot be read or was edited out of shape counts as no previous report: the
    change column is a convenience, not worth failing the whole report over.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, list):
        return None
    return {
        row["entrant"]: row["rank"]
        for row in data
        if isinstance(row, dict)
        and isinstance(row.get("entrant"), str)
        and isinstance(row.get("rank"), int)
        and not isinstance(row.get("rank"), bool)
    }


def _save_leaderboard(board: Any, out_dir: Path) -> None:
    """Written to a temporary file first, so an interrupted write never leaves half a file."""
    text = "[]" if board is None else board.to_json(orient="records", indent=2)
    temporary = out_dir / f".{PREVIOUS_LEADERBOARD}.tmp"
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, out_dir / PREVIOUS_LEADERBOARD)


def _change(entrant: str, rank: int, previous: dict[str, int] | None) -> str:
    before = (previous or {}).get(entrant)
    if before is None:
        return "new"
    if before > rank:
        return f'<span class="up">▲{before - rank}</span>'
    if before < rank:
        return f'<span class="down">▼{rank - before}</span>'
    return "="


# ---- formatting ----------------------------------------------------------------------------


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _missing(value: Any) -> bool:
    return value is None or (not isinstance(value, str) and bool(pd.isna(value)))


def _slugs(entrants: list[str]) -> dict[str, str]:
    """Page names safe on every file system, distinct even where file names ignore case."""
    taken: set[str] = set()
    out: dict[str, str] = {}
    for name in entrants:
        base = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-.") or "entrant"
        slug, n = base, 2
        while slug in taken:
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug)
        out[name] = slug
    return out


def _label(text: str) -> str:
    """A name as plot text: matplotlib would read `$...$` in it as a formula."""
    return str(text).replace("$", r"\$")


def _depth(depth: Any) -> str:
    return "default" if _missing(depth) else str(int(depth))


def _estimate(value: Any, low: Any, high: Any, fmt: Callable[[Any], str]) -> str:
    if _missing(value):
        return "&ndash;"
    return f'{fmt(value)} <span class="ci">[{fmt(low)}, {fmt(high)}]</span>'


def _percent(value: Any) -> str:
    return "&ndash;" if _missing(value) else f"{value:.0%}"


def _score(value: Any) -> str:
    return "&ndash;" if _missing(value) else f"{value:.0f}"


def _elo(value: Any) -> str:
    """A rating with its sign: +153, -40; 0 for the anchor (never -0)."""
    if _missing(value) or not math.isfinite(value):
        return "&ndash;"
    rounded = round(value)
    return "0" if rounded == 0 else f"{rounded:+d}"


def _side(side: str) -> str:
    return "Pacman" if side == PACMAN else "ghosts"


def _colour(rate: float) -> str:
    """Red (0) through yellow to green (1), light enough for dark text on top."""
    return f"hsl({120 * min(max(rate, 0.0), 1.0):.0f}, 70%, 80%)"


def _head(headers: Sequence[str], text: Sequence[str]) -> str:
    """A header row; the `text` columns aligned left."""
    cells = [f'<th class="text">{h}</th>' if h in text else f"<th>{h}</th>" for h in headers]
    return "<tr>" + "".join(cells) + "</tr>"


def _team_link(entrant: Any, slugs: dict[str, str]) -> str:
    href = quote(f"team-{slugs[str(entrant)]}.html")
    return f'<a href="{href}">{_e(entrant)}</a>'


def _seconds(value: Any) -> str:
    if _missing(value):
        return "&ndash;"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"
