"""The tournament as a static web site: `index.html`, one page per entrant, and every kept game
watchable in the page.

Organizers publish the report by copying its folder to any static web host, and most students
will only ever see the report, so the folder is self-contained and works offline, from the
host or from the folder itself (`file://`): no CDN, no server, no build step.

- Pages are Jinja2 templates (`tournament/templates/`, autoescape on: every string from the
  results, such as a team's name or the message of an exception its code raised, is escaped).
- `assets/` holds the static files (`tournament/static/`): the style sheet, `table.js` (sort
  and filter tables) and `player.js` (the replay player, embedded in each team page).
- `games/` holds one frame file per kept replay (`pacman.frames`): the game move by move as
  Python re-simulated it, so the rules stay in one place and the page only draws. It is a
  script, not JSON, because a page under `file://` may load scripts but not fetch files.
- Plots are inline SVG (`tournament.plots`); the heat map is an HTML table whose cells link to
  the games they count.
- Nothing in the folder names the organizer's paths or machine (`tournament.privacy`): agents
  are named by entrant, and every stored text is redacted before it reaches a page.
- When `tournament validate` wrote `validation.csv` in the output folder, `validation.html`
  shows it (who loads, who fails and why, failures first), linked from the index and from
  each team's page (`tournament.validation`).

The previous report's leaderboard is kept as `leaderboard.json` beside the pages; the next
report reads it before overwriting it, to show how each entrant's rank moved since then.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import jinja2
import pandas as pd  # type: ignore[import-untyped, unused-ignore]
from markupsafe import Markup

from pacman.describe import clean
from pacman.files import FileProblem, open_regular, write_atomic
from pacman.outcomes import FAILURES, GHOSTS, INFRA_ERROR, LOAD_ERROR, PACMAN
from pacman.problems import KINDS
from pacman.replay import ReplayError
from tournament.browse import replay_of
from tournament.config import TournamentConfig
from tournament.gamelist import RESULTS, TeamGame, agent_names, frames_name, team_games
from tournament.history import TeamHistory, TeamRun, team_histories
from tournament.leaderboard import cell_table, leaderboard
from tournament.manifest import Manifest
from tournament.plots import move_times_svg, scores_svg
from tournament.privacy import Redactor
from tournament.ranking import ranked
from tournament.ranking import words as ranking_words
from tournament.ratings import expected_score
from tournament.results import split_formats
from tournament.resume import Outdated
from tournament.runner import LOG_SUFFIXES, replay_path
from tournament.runs import RunRecord, short_time
from tournament.standings import Standings, anchor_of, standings
from tournament.times import duration_text
from tournament.validation import (
    Validation,
    ValidationFileError,
    ValidationRow,
    failures_first,
    kind_counts,
    read_validation,
)

#: The previous report's leaderboard, one record per entrant (the leaderboard's columns).
PREVIOUS_LEADERBOARD = "leaderboard.json"
#: Sub-folders of the report: static files, and the frames of each kept replay.
ASSETS = "assets"
GAMES = "games"
#: The page of the validation table (written when the output folder holds one).
VALIDATION_PAGE = "validation.html"
#: Files of earlier report versions that this one no longer writes (removed when found).
RETIRED = ("win-rate.png", "scores.png", "move-time.png")
#: A failure message or traceback longer than this is cut: a hostile agent must not bloat
#: the pages.
MESSAGE_LIMIT = 2000
#: How much of the end of an agent's log a failure shows.
LOG_TAIL = 4000

_STATIC = Path(__file__).with_name("static")
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


@dataclass(frozen=True)
class SiteGame:
    """A game as a page shows it: the team's view (`game`) and what the site holds of it."""

    game: TeamGame
    #: The frame file, relative to the report folder; None when there is nothing to watch.
    frames: str | None
    #: Why there is nothing to watch (shown instead of the player's link).
    no_replay_why: str
    #: The end of the failing agent's log, for a failure of the team's own agent.
    log: str

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    @property
    def anchor(self) -> str:
        return "g-" + frames_name(self.game.game_id).removesuffix(".js")

    @property
    def failure_link(self) -> bool:
        return self.game.failed_here


def write_report(
    results: Any,
    config: TournamentConfig,
    out_dir: Path,
    pictures: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    anchor: tuple[str, str] | None = None,
    outdated: Sequence[Outdated] = (),
    command: str = "tournament run CONFIG",
    redact: Redactor | None = None,
    recreate_command: str = "tournament report CONFIG --recreate-replays",
    *,
    runs: Sequence[RunRecord] = (),
    manifest: Manifest | None = None,
) -> Path:
    """Write the site into `out_dir` (created if needed) and return its `index.html`.

    `results` is the results table (one row per game, `tournament.leaderboard`'s columns plus
    `replay`, and `ghost_entrant` where there are match games). The leaderboard, its plots and
    a team's statistics and cells are those of the fixed-format games; the ratings (anchored
    at `anchor`, (entrant, side), by default the config's `matches.anchor`) and the
    crosstable are those of the match games. Every game is listed on the page of each team
    that played it, with its frames when its replay was kept.
    The previous report's ranks are read first and the new leaderboard is saved last, so a
    report that fails half-way leaves the old ranks in place for the next try. `pictures`
    maps an entrant to (caption, image file relative to `out_dir`) pairs shown on its page:
    a GIF or a frame strip of its best and worst game.
    `outdated` (`tournament.resume.outdated`) are the entrants with games stored for an
    earlier version of their files, which no table here counts: the index lists them and
    each one's page says so, with `command`, the command that plays the current ones.
    `redact` rewrites the organizer's paths in every stored text (by default the config's
    `Redactor`); `recreate_command` is what the pages suggest for games with no replay.
    `runs` are the store's run records (`Store.runs`): the index lists the last few, and
    each team's page (and leaderboard row) says which runs its games come from; `manifest`
    (the collected submissions', `tournament.manifest`) adds when each team's files
    changed, when it submitted and its commit. Neither is needed: without them the pages
    say what the results alone say.
    """
    redact = redact or Redactor.for_config(config)
    out_dir.mkdir(parents=True, exist_ok=True)
    previous = _previous_ranks(out_dir / PREVIOUS_LEADERBOARD, config.ranking.by)
    write_assets(out_dir)
    for name in RETIRED:
        (out_dir / name).unlink(missing_ok=True)
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    stale = _stale_games(outdated)
    validation = _validation(config.output, redact)
    context: dict[str, Any] = {
        "tournament": config.name,
        "generated": generated,
        "command": redact(command),
        "stale": list(stale.items()),
        "message_limit": MESSAGE_LIMIT,
        "validation": validation,
    }

    fixed, matches = split_formats(results)
    anchor = anchor or anchor_of(config)
    shown = (None if anchor is None or not len(results)
             else standings(matches, anchor, config.ranking.confidence))
    board = (leaderboard(fixed, config.ranking)
             if len(results) and (len(fixed) or shown is None) else None)
    ranked_names = [] if board is None else [str(e) for e in board["entrant"]]
    entrants = list(dict.fromkeys([*ranked_names, *(shown.entrants() if shown else []),
                                   *stale]))
    slugs = _slugs(entrants)
    context["slugs"] = slugs
    histories = team_histories(results, entrants, runs, manifest, config.team_folders())
    context["runs_known"] = bool(runs)
    frames = _write_frames(results, config, out_dir, redact)
    kept = sum(1 for f in frames.values() if f.frames is not None)
    context["replays_note"] = _replays_note(kept, len(results), config, redact(recreate_command))

    index = out_dir / "index.html"
    cells = cell_table(fixed, config.ranking.confidence) if board is not None else None
    page: dict[str, Any] = {
        **context,
        "title": config.name,
        "name": config.name,
        "games": len(results),
        "board": None,
        "previous": previous,
        # Both sides: a team that plays ghosts only and has no game is absent too.
        "absent": (list(dict.fromkeys(e.name for e in config.all_entrants if e.name not in slugs))
                   if len(results) else []),
        "heatmap": None,
        "standings": None,
        "ranked_by": "",
        "runs": [_run_view(run) for run in reversed(runs[-INDEX_RUNS:])],
        "played": {name: _played_view(history, redact)
                   for name, history in histories.items()} if runs else {},
    }
    if board is not None:
        page.update(
            board=_board_rows(board, previous),
            ranked_by=ranking_words(config.ranking.by),
            first_key=ranking_words(config.ranking.by[:1]),
            confidence=config.ranking.confidence,
            unscored=int(board["infra_errors"].sum()),
            heatmap=_heatmap(cells, ranked_names, slugs, config.ranking.confidence),
            scores_svg=Markup(scores_svg(fixed, ranked_names)),
            move_times_svg=Markup(move_times_svg(board)),
        )
    if shown is not None:
        page["standings"] = _standings_view(shown, slugs)
    write_atomic(index, _render("index.html.j2", page))

    rows = {} if board is None else {row["entrant"]: row for row in board.to_dict("records")}
    for name in entrants:
        games = [frames[g.game_id].with_game(g) for g in team_games(results, name)]
        team = _team_view(name, rows.get(name), len(rows), cells, shown, games, config,
                          redact)
        team["files"] = _files_view(histories[name], manifest is not None,
                                    _is_team(config, name), redact)
        text = _render("team.html.j2", {
            **context, **team,
            "title": f"{name}: {config.name}",
            "stale": stale.get(name, 0),
            "pictures": list((pictures or {}).get(name, ())),
            "validated": [] if validation.rows is None else
            [row for row in validation.rows if row.entrant == name],
        })
        write_atomic(out_dir / f"team-{slugs[name]}.html", text)
    _write_validation_page(validation, out_dir, context)
    _save_leaderboard(board, out_dir)
    return index


# ---- the validation table ----------------------------------------------------------------------


@dataclass(frozen=True)
class ValidationView:
    """What the pages show of `validation.csv`: its rows (failures first, every text
    redacted), or None with `problem` when there is none or it cannot be read."""

    rows: tuple[ValidationRow, ...] | None
    checked_at: str = ""
    problem: str = ""

    @property
    def ready(self) -> int:
        return sum(1 for row in self.rows or () if row.ready)

    @property
    def counts(self) -> list[tuple[str, int]]:
        return kind_counts(self.rows or ())

    @property
    def entrants(self) -> list[str]:
        return sorted({row.entrant for row in self.rows or ()}, key=str.lower)

    @property
    def kinds(self) -> list[str]:
        return sorted({row.kind for row in self.rows or () if row.kind})


def _validation(output: Path, redact: Redactor) -> ValidationView:
    """The output folder's validation table as the pages show it; one that cannot be read is
    said on the index, never the report's failure."""
    try:
        found: Validation | None = read_validation(output)
    except ValidationFileError as exc:
        return ValidationView(None, problem=redact(str(exc)))
    if found is None:
        return ValidationView(None)
    rows = tuple(replace(row, entrant=redact(row.entrant), folder=redact(row.folder),
                         where=redact(row.where), message=redact(row.message))
                 for row in failures_first(found.rows))
    return ValidationView(rows, redact(found.checked_at))


def _write_validation_page(validation: ValidationView, out_dir: Path,
                           context: Mapping[str, Any]) -> None:
    """`validation.html` from the table, or no such page (an old one removed) without one."""
    page = out_dir / VALIDATION_PAGE
    if validation.rows is None:
        page.unlink(missing_ok=True)
        return
    text = _render("validation.html.j2", {
        **context, "title": f"Validation: {context['tournament']}", "kinds_meaning": KINDS,
    })
    write_atomic(page, text)


# ---- what the site holds of each game --------------------------------------------------------


@dataclass(frozen=True)
class _Watchable:
    """A game's frame file (None when there is none) and why not."""

    frames: str | None
    why: str
    logs: tuple[str, str]

    def with_game(self, game: TeamGame) -> SiteGame:
        log = ""
        if game.failed_here and game.culprit is not None:
            log = self.logs[0 if game.culprit == 0 else 1]
        return SiteGame(game, self.frames, self.why, log)


def _write_frames(results: Any, config: TournamentConfig, out_dir: Path,
                  redact: Redactor) -> dict[str, _Watchable]:
    """Each game's frames written into `games/` from its kept replay; files of games no
    longer listed are removed. A replay that cannot be read (or no longer reproduces) is
    that game's problem, said on its row, never the report's."""
    from pacman.frames import write_frames

    folder = out_dir / GAMES
    folder.mkdir(exist_ok=True)
    written: set[str] = set()
    out: dict[str, _Watchable] = {}
    logs_dir = config.output / "logs"
    for row in results.to_dict("records"):
        game_id = str(row["game_id"])
        found = replay_of(row, config.output)
        logs = _log_tails(logs_dir, game_id, redact)
        if found.file is None:
            policy = config.record.replays
            never_loaded = row.get("outcome") == LOAD_ERROR and not row.get("moves")
            why = ("its replay file is missing" if found.status == "missing"
                   else "nothing to watch: the agent never loaded (its message says why)"
                   if never_loaded
                   else "no replay was written for it" if policy == "all"
                   else f"no replay kept (record.replays: {policy})")
            out[game_id] = _Watchable(None, why, logs)
            continue
        name = frames_name(game_id)
        try:
            write_frames(found.file, folder / name, agent_names(row), game_id, redact)
        except ReplayError as exc:
            out[game_id] = _Watchable(None, redact(f"its replay cannot be shown: {exc}"), logs)
            continue
        written.add(name)
        out[game_id] = _Watchable(f"{GAMES}/{name}", "", logs)
    for old in folder.iterdir():
        if old.name not in written:
            old.unlink(missing_ok=True)
    return out


def _log_tails(logs_dir: Path, game_id: str, redact: Redactor) -> tuple[str, str]:
    """The end of the Pacman side's and the ghost side's logs of a game ('' when none).

    The logs hold what agents printed: read size-capped from the end, decoded leniently,
    redacted (an agent may print its own path) and escaped by the template."""
    tails = []
    for suffix in LOG_SUFFIXES:
        path = replay_path(str(logs_dir), game_id).with_suffix(suffix)
        try:
            with open_regular(path, follow_links=False) as (fd, info):
                size = info.st_size
                data = os.pread(fd, LOG_TAIL, max(0, size - LOG_TAIL))
        except (FileProblem, OSError):
            tails.append("")
            continue
        text = data.decode("utf-8", errors="replace")
        if size > LOG_TAIL:
            text = "[...]" + text
        tails.append(redact(text))
    return tails[0], tails[1]


def _replays_note(kept: int, games: int, config: TournamentConfig, recreate: str) -> str:
    """What the player can show, and how to watch the rest."""
    if not games or kept == games:
        return ""
    policy = config.record.replays
    return (f"Replays kept: {kept} of {games} games (record.replays: {policy}); only those "
            f"can be watched here. `{recreate}` plays the others again to keep theirs, or "
            "`record: {replays: all}` keeps every replay from the next run on.")


def write_assets(out_dir: Path) -> None:
    """The static files, copied afresh so that a newer platform's report gets its own, and
    `palette.js`, the board's colours from `pacman.display.palette` (the player's only copy)."""
    from pacman.frames import palette_script

    assets = out_dir / ASSETS
    assets.mkdir(parents=True, exist_ok=True)
    for source in sorted(_STATIC.iterdir()):
        if source.is_file() and source.suffix in (".js", ".css"):
            shutil.copyfile(source, assets / source.name)
    write_atomic(assets / "palette.js", palette_script())


# ---- page views ------------------------------------------------------------------------------

#: How many of the latest runs the index lists.
INDEX_RUNS = 5
#: A value from the manifest (a time, a commit) longer than this is cut: the manifest holds
#: text that came with submissions.
MANIFEST_TEXT_LIMIT = 200


def _is_team(config: TournamentConfig, name: str) -> bool:
    return name in config.team_folders()


def _run_view(run: RunRecord) -> dict[str, Any]:
    """A run as the index's list shows it."""
    return {"id": run.run_id, "started": short_time(run.started_at),
            "finished": short_time(run.finished_at), "games": run.games, "how": run.how}


def _run_words(run: TeamRun) -> str:
    """`run 2 (started 2025-03-02 02:00 UTC, finished)`, or what stands for no run."""
    if run.run_id is None:
        return "before runs were recorded"
    if run.record is None:
        return f"run {run.run_id}"
    return f"run {run.run_id} (started {short_time(run.record.started_at)}, {run.record.how})"


def _shown(text: str | None, redact: Redactor) -> str:
    """A value from the manifest as a page may show it: cleaned, redacted, then cut (a path
    cut first could escape its redaction)."""
    return _cut(redact(clean(text or "", 4 * MANIFEST_TEXT_LIMIT)), MANIFEST_TEXT_LIMIT)


def _played_view(history: TeamHistory, redact: Redactor) -> dict[str, Any]:
    """The leaderboard's cell for a team: the newest run its games come from, and the day
    its files last changed when the manifest says."""
    latest = history.latest
    record = history.collected
    changed = _shown(short_time(record.changed_at), redact) if record else ""
    words = [f"games from {_run_words(r)}: {r.games}" for r in history.runs]
    if changed:
        words.append(f"files changed {changed}")
    return {
        "run": ("\u2013" if latest is None else
                "before runs" if latest.run_id is None else f"run {latest.run_id}"),
        "sort": -1 if latest is None or latest.run_id is None else latest.run_id,
        "changed": changed[:10],  # the day: the title has the time
        "title": "; ".join(words),
    }


def _files_view(history: TeamHistory, collected: bool, team: bool,
                redact: Redactor) -> dict[str, Any]:
    """A team page's "Files and runs": its submission hashes, the runs its games come from
    and, from the manifest, when its files changed, when it submitted and its commit (the
    manifest's `source`, which names the organizer's files, is never shown)."""
    sides = {side for side, _ in history.submissions}
    view: dict[str, Any] = {
        "submissions": [(_side(side) if len(sides) > 1 else "", digest)
                        for side, digest in history.submissions],
        "runs": [{"words": _run_words(run), "games": run.games} for run in history.runs],
        "manifest": collected and team,
        "collected": None,
    }
    record = history.collected
    if record is not None:
        view["collected"] = {
            "changed": _shown(short_time(record.changed_at), redact),
            "submitted": _shown(short_time(record.submitted_at), redact),
            "late": record.late,
            "late_by": duration_text(record.late_seconds),
            "commit": _shown(record.commit, redact),
        }
    return view


def _render(template: str, context: Mapping[str, Any]) -> str:
    return _ENV.get_template(template).render(context)


def _stale_games(outdated: Sequence[Outdated]) -> dict[str, int]:
    """Entrant -> its games stored for an earlier version of its files, both sides summed (a
    team's hash covers its whole folder: its two sides change together)."""
    games: dict[str, int] = {}
    for found in outdated:
        games[found.entrant] = games.get(found.entrant, 0) + found.games
    return games


def _shaded(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with `shade` alternating by rank group, so a group reads as one block."""
    out, shade, group = [], True, None
    for row in records:
        if row["rank_group"] != group:
            shade, group = not shade, row["rank_group"]
        out.append({**row, "shade": shade})
    return out


def _board_rows(board: Any, previous: dict[str, int] | None) -> list[dict[str, Any]]:
    rows = _shaded(board.to_dict("records"))
    for row in rows:
        before = (previous or {}).get(row["entrant"])
        row["change"] = None if before is None else before - row["rank"]
        row["change_sort"] = -10**9 if before is None else before - row["rank"]
    return rows


def _heatmap(cells: Any, entrants: list[str], slugs: dict[str, str],
             confidence: float) -> dict[str, Any]:
    """Entrants down in rank order, (layout, depth) across; each cell links to the entrant's
    games of that cell."""
    columns = list(dict.fromkeys((c["layout"], _depth(c["depth"]))
                                 for c in cells.to_dict("records")))
    found = {(c["entrant"], c["layout"], _depth(c["depth"])): c
             for c in cells.to_dict("records")}
    lines = []
    for entrant in entrants:
        line: list[dict[str, Any] | None] = []
        for layout, depth in columns:
            cell = found.get((entrant, layout, depth))
            if cell is None or _missing(cell["win_rate"]):
                line.append(None)
                continue
            title = (f"{entrant} on {layout}, depth {depth}: won {cell['wins']} of "
                     f"{cell['games']} scored games, win rate {_percent(cell['win_rate'])} "
                     f"[{_percent(cell['win_low'])}, {_percent(cell['win_high'])}] at "
                     f"{confidence:.0%}; mean score {_score(cell['mean_score'])}")
            href = (quote(f"team-{slugs[entrant]}.html") + "#"
                    + urlencode({"layout": layout, "depth": depth, "format": "fixed"}))
            line.append({"win_rate": cell["win_rate"], "title": title, "href": href})
        lines.append({"entrant": entrant, "cells": line})
    return {"columns": [{"layout": lay, "depth": d} for lay, d in columns], "rows": lines}


def _standings_view(shown: Standings, slugs: dict[str, str]) -> dict[str, Any]:
    """The index's Ratings and Crosstable sections."""
    name, side = shown.anchor
    view: dict[str, Any] = {
        "problem": shown.problem if shown.ratings is None else None,
        "games": shown.games,
        "anchor": name,
        "anchor_side": side,
        "confidence": shown.confidence,
        "expected_200": expected_score(200),
        "ratings": [] if shown.ratings is None else _shaded(shown.ratings.to_dict("records")),
        "scale": _scale(shown.ratings),
    }
    grids = {v: shown.grid(v) for v in ("points_rate", "games", "wins", "mean_score")}
    rates = grids["points_rate"]
    view["ghosts"] = [str(g) for g in rates.columns]
    lines = []
    for pacman in rates.index:
        line: list[dict[str, Any]] = []
        for ghost in rates.columns:
            games = grids["games"].loc[pacman, ghost]
            if _missing(games):
                line.append({"games": None, "rate": None})
                continue
            rate = rates.loc[pacman, ghost]
            title = (f"Pacman won {int(grids['wins'].loc[pacman, ghost])} of {int(games)}; "
                     f"mean score {_score(grids['mean_score'].loc[pacman, ghost])}")
            href = (quote(f"team-{slugs[str(pacman)]}.html") + "#"
                    + urlencode({"opponent": ghost, "side": PACMAN, "format": "match"}))
            line.append({"games": int(games), "rate": rate, "title": title, "href": href})
        lines.append({"pacman": str(pacman), "cells": line})
    view["grid"] = lines
    return view


def _scale(ratings: Any) -> tuple[float, float]:
    if ratings is None:
        return (0.0, 1.0)
    finite = [v for v in (*ratings["rating_low"], *ratings["rating_high"]) if math.isfinite(v)]
    return (min([0.0, *finite]), max([0.0, *finite]))


def _team_view(name: str, row: dict[str, Any] | None, entrants: int, cells: Any,
               shown: Standings | None, games: list[SiteGame], config: TournamentConfig,
               redact: Redactor) -> dict[str, Any]:
    """What a team's page shows: its fixed-format statistics and cells (`row`, its
    leaderboard row, when it played such games), its ratings and crosstable row and column
    (when it played match games), every game it played, and the failures it caused."""
    view: dict[str, Any] = {"name": name, "entrants": entrants, "row": row, "overall": [],
                            "cells": [], "standings": None}
    if row is not None:
        view["overall"] = _overall(row)
        view["cells"] = cells[cells["entrant"] == name].to_dict("records")
    if shown is not None and name in shown.entrants():
        view["standings"] = _team_standings(name, shown)
    games = [SiteGame(_redacted(g.game, redact), g.frames, g.no_replay_why, g.log)
             for g in games]
    view["games"] = games
    view["failures"] = sorted((g for g in games if g.game.failed_here),
                              key=lambda g: g.game.game_id)
    view["sides"] = [s for s in (PACMAN, GHOSTS) if any(g.game.side == s for g in games)]
    view["results_present"] = [r for r in RESULTS if any(g.game.result == r for g in games)]
    view["layouts"] = sorted({g.game.layout for g in games})
    view["depths"] = sorted({_depth(g.game.depth) for g in games},
                            key=lambda d: (d != "default", int(d) if d.isdigit() else 0))
    view["opponents"] = sorted({g.game.opponent for g in games})
    view["formats"] = sorted({g.game.format for g in games})
    return view


#: What the published report says of a game the platform failed: its own words name the
#: machine that failed (a Dask worker's folders, its user's home), which a deny list of known
#: prefixes cannot all catch (the eighteenth hostile review); `tournament replay CONFIG
#: --outcome infra_error --list` shows them to the organizer.
PLATFORM_FAILURE = ("the platform's failure, not the team's: never scored, and played again "
                    "by the next run")


def _redacted(game: TeamGame, redact: Redactor) -> TeamGame:
    if game.outcome == INFRA_ERROR:
        return replace(game, message=PLATFORM_FAILURE, trace="")
    return replace(game, message=redact(game.message), trace=redact(game.trace))


def _overall(row: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        ("Games scored", str(row["games"])),
        ("Wins", str(row["wins"])),
        ("Win rate", _estimate_text(row["win_rate"], row["win_low"], row["win_high"], _percent)),
        ("Mean score", _estimate_text(row["mean_score"], row["score_low"], row["score_high"],
                                      _score)),
        ("Mean score over wins", _estimate_text(row["mean_score_wins"], row["score_wins_low"],
                                                row["score_wins_high"], _score)),
        ("Own failures", str(row["failures"])),
        *((f"\u00a0\u00a0{kind}", str(row[kind])) for kind in FAILURES if row[kind]),
        ("Failures of ghosts", str(row["other_failures"])),
        ("Not scored (platform errors)", str(row["infra_errors"])),
        ("Move time, mean / max",
         f"{_seconds(row['move_time_mean'])} / {_seconds(row['move_time_max'])}"),
        ("CPU time, mean / max",
         f"{_seconds(row['cpu_time_mean'])} / {_seconds(row['cpu_time_max'])}"),
    ]


def _team_standings(name: str, shown: Standings) -> dict[str, Any]:
    """A team's ratings (both its sides) and its crosstable row and column."""
    view: dict[str, Any] = {
        "problem": shown.problem if shown.ratings is None else None,
        "ratings": [] if shown.ratings is None else
        _shaded(shown.ratings[shown.ratings["entrant"] == name].to_dict("records")),
        "scale": _scale(shown.ratings),
    }
    table = shown.crosstable
    own_pacman = table[table["entrant"] == name].set_index("ghost_entrant")
    order = [g for g in shown.order(GHOSTS) if g in own_pacman.index]
    view["as_pacman"] = [_pairing(g, own_pacman.loc[g], True) for g in order]
    own_ghosts = table[table["ghost_entrant"] == name].set_index("entrant")
    order = [p for p in shown.order(PACMAN) if p in own_ghosts.index]
    view["as_ghosts"] = [_pairing(p, own_ghosts.loc[p], False) for p in order]
    return view


def _pairing(other: str, pair: Any, pacman_view: bool) -> dict[str, Any]:
    rate = pair["points_rate"] if pacman_view else 1 - pair["points_rate"]
    return {"other": other, "games": int(pair["games"]), "rate": rate,
            "wins": int(pair["wins"]), "mean_score": pair["mean_score"]}


# ---- template helpers ------------------------------------------------------------------------


def _fmt(value: Any, kind: str) -> str:
    return _FORMATS[kind](value)


def _failure_kinds(row: Mapping[str, Any]) -> str:
    return ", ".join(f"{kind} {row[kind]}" for kind in FAILURES if row.get(kind))


def _interval_positions(value: Any, low: Any, high: Any,
                        scale: tuple[float, float]) -> dict[str, str] | None:
    """An interval's place in a box spanning `scale` (Elo), as CSS percentages."""
    if _missing(value) or not math.isfinite(value):
        return None
    width = scale[1] - scale[0] or 1.0

    def at(x: float) -> float:
        return 100 * (x - scale[0]) / width

    return {"zero": f"{at(0.0):.1f}", "low": f"{at(low):.1f}",
            "width": f"{at(high) - at(low):.1f}", "value": f"{at(value):.1f}"}


def _cut(value: Any, limit: int) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit] + " [...]"


def _urlquote(text: Any) -> str:
    return str(quote(str(text)))


# ---- ranks across reports ------------------------------------------------------------------


def _previous_ranks(path: Path, by: Sequence[str]) -> dict[str, int] | None:
    """Each entrant's rank in the previous report; None when there was none.

    Ranked again by today's rule (`ranking.ranked` on the stored columns), so that a change
    of the rule is not shown as a change of rank: reports written before equal entrants
    shared their rank stored 1 and 2 for a tie, and the first report after would have shown
    one of them moving. A file that cannot be read or was edited out of shape counts as no
    previous report (and one whose columns cannot be ranked gives its stored ranks): the
    change column is a convenience, not worth failing the whole report over.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, list):
        return None
    rows = [row for row in data
            if isinstance(row, dict) and isinstance(row.get("entrant"), str)
            and isinstance(row.get("rank"), int) and not isinstance(row.get("rank"), bool)]
    stored = {row["entrant"]: row["rank"] for row in rows}
    try:
        frame = pd.DataFrame(rows).drop(columns=["rank", "rank_group"])
        board = ranked(frame, by)
        return {str(e): int(r) for e, r in zip(board["entrant"], board["rank"])}
    except (KeyError, TypeError, ValueError):
        return stored


def _save_leaderboard(board: Any, out_dir: Path) -> None:
    """Written to a temporary file first, so an interrupted write never leaves half a file."""
    text = "[]" if board is None else board.to_json(orient="records", indent=2)
    temporary = out_dir / f".{PREVIOUS_LEADERBOARD}.tmp"
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, out_dir / PREVIOUS_LEADERBOARD)


# ---- formatting ----------------------------------------------------------------------------


def _missing(value: Any) -> bool:
    return value is None or (not isinstance(value, str) and bool(pd.isna(value)))


def _slugs(entrants: list[str]) -> dict[str, str]:
    """Page names safe on every file system, distinct even where file names ignore case, and
    each entrant's own: they depend on the name alone, never on the list's order or on who
    else plays (pages are linked from outside the report: a lecturer posts
    `team-foo-bar.html`, and a rank order that changes, or a new team, must not send it to
    another team's page). A name that is already safe (lower case, `a-z0-9._-`) is its page
    name; any other name is its cleaned form and 8 hex digits of its hash."""
    out: dict[str, str] = {}
    for name in entrants:
        base = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-.") or "entrant"
        digest = hashlib.blake2b(name.encode(), digest_size=4).hexdigest()
        out[name] = base if base == name else f"{base}-{digest}"
    # A safe name that is another's cleaned form and hash, or two hashes alike (a 32-bit
    # chance): numbered, in sorted order, so still independent of the list's.
    taken: set[str] = set()
    for name in sorted(out):
        slug, n = out[name], 2
        while slug in taken:
            slug, n = f"{out[name]}-{n}", n + 1
        taken.add(slug)
        out[name] = slug
    return out


def _depth(depth: Any) -> str:
    """A grid depth as pages and filters show it: a number, or `default` for none."""
    if isinstance(depth, str):
        return depth
    return "default" if _missing(depth) else str(int(depth))


def _percent(value: Any) -> str:
    return "\u2013" if _missing(value) else f"{value:.0%}"


def _score(value: Any) -> str:
    return "\u2013" if _missing(value) else f"{value:.0f}"


def _elo(value: Any) -> str:
    """A rating with its sign: +153, -40; 0 for the anchor (never -0)."""
    if _missing(value) or not math.isfinite(value):
        return "\u2013"
    rounded = round(value)
    return "0" if rounded == 0 else f"{rounded:+d}"


def _side(side: str) -> str:
    return "Pacman" if side == PACMAN else "ghosts"


def _colour(rate: float) -> str:
    """Red (0) through yellow to green (1), light enough for dark text on top."""
    return f"hsl({120 * min(max(rate, 0.0), 1.0):.0f}, 70%, 80%)"


def _seconds(value: Any) -> str:
    if _missing(value):
        return "\u2013"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def _estimate_text(value: Any, low: Any, high: Any, fmt: Callable[[Any], str]) -> str:
    """An estimate and its interval as plain text: `45% [30%, 60%]`."""
    if _missing(value):
        return "\u2013"
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


_FORMATS: dict[str, Callable[[Any], str]] = {
    "percent": lambda v: _percent(v),
    "score": lambda v: _score(v),
    "elo": lambda v: _elo(v),
    "seconds": lambda v: _seconds(v),
    "depth": lambda v: _depth(v),
}
_ENV.filters.update(fmt=_fmt, side=lambda s: _side(s), colour=lambda r: _colour(r),
                    urlquote=_urlquote, cut=_cut)
_ENV.tests["missing"] = lambda v: _missing(v)
_ENV.globals.update(failure_kinds=_failure_kinds, interval_positions=_interval_positions)
