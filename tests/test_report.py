"""The HTML report on hand-made results: pages, plots, order, escaping, rank changes."""

from __future__ import annotations

import json
import re
import socket
import sys
from pathlib import Path
from tempfile import gettempdir
from typing import Any
from urllib.parse import parse_qsl

import pandas as pd
import pytest

import tournament
from tests.commands import TOURNAMENT
from tests.site import Page
from tournament.config import TournamentConfig, parse_config
from tournament.gamelist import RESULTS
from tournament.privacy import Redactor
from tournament.report import PREVIOUS_LEADERBOARD, write_report
from tournament.results import SCORED_COLUMNS
from tournament.resume import Outdated
from tournament.runs import RunRecord

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


def leaderboard_rows(index: Path) -> list[tuple[str, str]]:
    """(first column, entrant) per leaderboard row, top to bottom; the first column is the
    change of rank when there was a previous report."""
    rows = Page(index).tables["leaderboard"]
    entrant = rows[0].cells.index("Entrant")
    return [(row.cells[0], row.cells[entrant]) for row in rows[1:]]


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


def test_report_is_a_site_of_pages_assets_and_inline_plots(
    tmp_path: Path, results: pd.DataFrame
) -> None:
    config = make_config(tmp_path)
    out = tmp_path / "report"
    index = write_report(results, config, out)

    assert index == out / "index.html"
    page = Page(index)
    assert "Spring <Cup>" in page.words()  # the name, unescaped by the parser: escaped in HTML
    assert "Spring &lt;Cup&gt;" in page.source
    team_pages = sorted({link.partition("#")[0] for link in page.links})
    assert team_pages == ["team-ace.html", "team-low.html", "team-mid.html"]
    assert page.source.count("<svg") == 2 and page.images == []
    for name in ["index.html", *team_pages]:
        site_page = Page(out / name)
        for table_id, rows in site_page.tables.items():  # every row as wide as the header
            assert {len(row.cells) for row in rows} == {len(rows[0].cells)}, (name, table_id)
        if name != "index.html":
            assert "index.html" in site_page.links
        for local in [*site_page.scripts, *site_page.styles, *site_page.images]:
            assert not local.startswith(("http:", "https:", "//", "/"))
            assert (out / local).is_file(), local
    assets = {p.name for p in (out / "assets").iterdir()}
    assert {"site.css", "table.js", "player.js", "player.css"} <= assets


def test_heat_map_cells_link_to_the_games_they_count(
    tmp_path: Path, results: pd.DataFrame
) -> None:
    config = make_config(tmp_path)
    out = tmp_path / "report"
    page = Page(write_report(results, config, out))
    heat = page.body_rows("heatmap")
    assert [row.cells[0] for row in heat] == ["ace", "mid", "low"]
    assert heat[0].cells[1:] == ["90%"] * 4  # ace won 9 of 10 in every cell
    for row in heat:
        for href, title in zip(row.links[1:], [a.get("title", "") for a in row.cell_attrs[1:]]):
            target, _, fragment = href.partition("#")
            filters = dict(parse_qsl(fragment))
            games = [r for r in Page(out / target).body_rows("games")
                     if r.attrs["data-layout"] == filters["layout"]
                     and r.attrs["data-depth"] == filters["depth"]]
            scored = [g for g in games if g.attrs["data-result"] != "not scored"]
            assert f"of {len(scored)} scored games" in title


def test_team_page_lists_every_game_failures_first_with_logs_and_replays(
    tmp_path: Path, results: pd.DataFrame
) -> None:
    config = make_config(tmp_path)
    out = tmp_path / "report"
    log = tmp_path / "out" / "logs" / "low" / "smallClassic" / "d2" / "RandomGhost2" / "classic"
    log.mkdir(parents=True)
    (log / "7.log").write_text("x" * 5000 + "\nprinted <b>bold</b> before the crash\n",
                               encoding="utf-8")
    write_report(results, config, out)
    page = Page(out / "team-low.html")

    games = page.body_rows("games")
    assert len(games) == len(results[results["entrant"] == "low"]) == 30
    assert len({row.attrs["data-game"] for row in games}) == 30
    # Its own failures first, in cell and game order (12 after 9, unlike their ids as text),
    # then its losses; the platform's error and the ghost's crash are not its failures.
    failed = [row.attrs["data-game"].rpartition("#")[2] for row in games
              if row.attrs["data-result"] == "failed"]
    assert failed == ["7", "8", "9", "12"]
    order = [row.attrs["data-result"] for row in games]
    assert order == sorted(order, key=RESULTS.index)
    assert order[:5] == ["failed"] * 4 + ["lost"]
    by_id = {row.attrs["data-game"]: row for row in games}
    ghost_crash = by_id["low@smallClassic/d2/RandomGhost2/classic#10"]
    assert ghost_crash.attrs["data-result"] == "opponent failed"
    assert by_id["low@smallClassic/d2/RandomGhost2/classic#11"].attrs["data-result"] == (
        "not scored")

    assert "<script>alert" not in page.source
    assert HOSTILE in page.words()  # shown as text: escaped in the markup
    failures = [i for i in page.ids if i.startswith("failure-")]
    assert len(failures) == 4
    words = page.words()
    assert "Culprit: low (Pacman)" in words
    assert "ghost broke" not in words and "worker died" not in words
    # A game the platform failed says so, not its own words, which name the machine that
    # failed (a Dask worker's folders, its user's home: the eighteenth hostile review).
    assert "worker died" not in page.source
    assert "never scored, and played again by the next run" in page.source
    # The end of the failing agent's log, escaped, cut from the front.
    assert "printed <b>bold</b> before the crash" in words
    assert "&lt;b&gt;bold&lt;/b&gt;" in page.source and "x" * 4500 not in page.source

    # No game here has a replay the player can show: each says why, none links to a file.
    assert not any(row.attrs.get("data-frames") for row in games)
    assert "its replay cannot be shown" in page.source  # "{}" is no replay
    assert "its replay file is missing" in page.source  # replays/gone.json
    assert "no replay kept (record.replays: failures)" in page.source
    assert not [link for link in page.links if link.endswith(".json")]
    assert "No failures." in Page(out / "team-ace.html").words()


def test_published_folder_names_no_organizer_path_or_machine(
    tmp_path: Path, results: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stored texts naming the organizer's folders reach the pages redacted; the test looks
    for every prefix the organizer's machine has in every file written."""
    config = make_config(tmp_path)
    host = "organizer-laptop-17"
    monkeypatch.setattr(socket, "gethostname", lambda: host)
    monkeypatch.setattr(socket, "getfqdn", lambda: f"{host}.example.edu")
    package = Path(tournament.__file__).resolve().parent
    secrets = [str(tmp_path), str(package.parent), sys.prefix, host]
    results = results.copy()
    crash = results["game_id"] == "low@smallClassic/d2/RandomGhost2/classic#7"
    results.loc[crash, "message"] = (f"crash in {tmp_path}/out/teams/low/multiAgents.py "
                                     f"line 3 on {host}")
    results.loc[crash, "trace"] = f'File "{package}/runner.py", line 9\n{sys.prefix}/lib'
    log = tmp_path / "out" / "logs" / "low" / "smallClassic" / "d2" / "RandomGhost2" / "classic"
    log.mkdir(parents=True)
    (log / "7.log").write_text(f"reading {tmp_path}/data.txt on {host}.local\n",
                               encoding="utf-8")
    out = tmp_path / "published"
    write_report(results, config, out, command=f"tournament run {tmp_path}/test.yaml")
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files
    for file in files:
        text = file.read_text(encoding="utf-8")
        for secret in secrets:
            assert secret not in text, (file.name, secret)
    words = Page(out / "team-low.html").words()
    assert "crash in <output>/teams/low/multiAgents.py line 3 on <host>" in words
    assert "on <host>.local" in words  # the host's name in another domain is its name still


def test_redactor_replaces_whole_prefixes_longest_first() -> None:
    redact = Redactor([(Path("/home/me"), "~"), (Path("/home/me/course/teams/alpha"), "alpha")],
                      hosts=["lab-pc-7", "pc"])
    assert redact("/home/me/course/teams/alpha/multiAgents.py") == "alpha/multiAgents.py"
    assert redact("/home/me/notes and /home/meg/notes") == "~/notes and /home/meg/notes"
    assert redact('"/home/me" on lab-pc-7, a pc') == '"~" on <host>, a pc'
    assert redact("lab-pc-77 and xlab-pc-7") == "lab-pc-77 and xlab-pc-7"


def test_a_ghost_only_teams_folder_is_redacted_as_its_name(tmp_path: Path) -> None:
    """Found with the fourteenth hostile review (teams enumerated by their Pacman side only):
    a team that plays ghosts only has a folder too, and the report's texts must name it as
    the team, not as the organizer's path."""
    from tournament.config import load_config

    team = tmp_path / "submissions" / "spooky"
    team.mkdir(parents=True)
    (team / "ghostAgents.py").write_text(
        "from game import Agent\n\n\nclass Spook(Agent):\n"
        "    def getAction(self, state):\n        return state.getLegalActions(self.index)[0]\n")
    (team / "team.yaml").write_text("ghost: ghostAgents.py:Spook\n")
    config_file = tmp_path / "t.yaml"
    config_file.write_text(
        "name: cup\nentrants:\n  submissions: submissions\n"
        "  baselines: [{name: greedy, agent: GreedyAgent}]\n"
        "  ghost_baselines: [{name: random, agent: RandomGhost}]\n"
        "grid: {layouts: [testClassic], ghosts: [{agent: RandomGhost, count: 1}]}\n"
        "matches: {ghosts: 1, games: 1}\noutput: out\n")
    config = load_config(config_file)
    assert [e.name for e in config.ghost_entrants if e.kind == "team"] == ["spooky"]
    redact = Redactor.for_config(config, config_file)
    assert redact(f"crash in {team.resolve()}/ghostAgents.py line 5") == \
        "crash in spooky/ghostAgents.py line 5"
    # With games of others and none of its own, the index names it among those without.
    index = write_report(table(record("greedy", 4, 10)), config, tmp_path / "report")
    assert "No games yet for spooky, random." in index.read_text()


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


def test_a_tie_ranked_by_an_older_rule_shows_no_change(tmp_path: Path) -> None:
    """Reports written before equal entrants shared their rank stored 1 and 2 for a tie;
    the first report after showed one of the two as moving. The previous board is ranked
    again by today's rule: equal results, no change shown."""
    config = make_config(tmp_path, ("aaron", "zed", "low"))
    out = tmp_path / "report"
    tied = table(record("zed", 6, 10) + record("aaron", 6, 10) + record("low", 1, 10))
    write_report(tied, config, out)
    stored = json.loads((out / PREVIOUS_LEADERBOARD).read_text(encoding="utf-8"))
    assert [row["rank"] for row in stored] == [1, 1, 3]
    for position, row in enumerate(stored, start=1):
        row["rank"] = position  # as the older rule wrote it
    (out / PREVIOUS_LEADERBOARD).write_text(json.dumps(stored), encoding="utf-8")
    index = write_report(tied, config, out)
    assert [marker for marker, _ in leaderboard_rows(index)] == ["="] * 3


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
    assert "<svg" not in text and "leaderboard" not in Page(index).tables
    # A team whose every game is outdated: its page says so, with no games listed.
    index = write_report(empty, make_config(tmp_path), out,
                         outdated=[Outdated("ace", "pacman", games=3, current=0)])
    assert "ace (3)" in Page(index).words()
    ace = Page(out / "team-ace.html")
    assert "3 games are stored for an earlier version" in ace.words()
    assert "No games of the current submissions yet." in ace.words()
    assert (out / PREVIOUS_LEADERBOARD).read_text(encoding="utf-8") == "[]"


def test_single_entrant_default_depth_and_no_scored_games(tmp_path: Path) -> None:
    config = make_config(tmp_path, ("solo", "ghostly"))
    rows = [game("solo", i, "win" if i % 2 else "loss", depth=None) for i in range(4)]
    # An entrant whose every game failed in the platform: in the board, with nothing scored.
    rows += [game("ghostly", i, "infra_error", depth=None) for i in range(2)]
    out = tmp_path / "report"
    index = write_report(table(rows), config, out)

    assert [name for _, name in leaderboard_rows(index)] == ["solo", "ghostly"]
    assert Page(index).source.count("<svg") == 2
    solo = Page(out / "team-solo.html")
    assert [row.cells[:2] for row in solo.body_rows("cells")] == [["smallClassic", "default"]]
    assert {row.attrs["data-depth"] for row in solo.body_rows("games")} == {"default"}
    ghostly = Page(out / "team-ghostly.html")
    assert ["Not scored (platform errors)", "2"] in [r.cells for r in ghostly.tables["overall"]]
    assert ["Games scored", "0"] in [r.cells for r in ghostly.tables["overall"]]
    assert [row.attrs["data-result"] for row in ghostly.body_rows("games")] == ["not scored"] * 2

    only = write_report(table(rows[:4]), config, tmp_path / "solo-report")
    assert [name for _, name in leaderboard_rows(only)] == ["solo"]
    assert "No games yet for ghostly" in only.read_text(encoding="utf-8")


def test_redactor_names_sandbox_and_snapshot_folders_of_any_machine() -> None:
    """A worker's or another TMPDIR's sandbox scratch and team snapshots, which no prefix
    names: a snapshot path becomes the team's folder name, a scratch folder `<sandbox>`."""
    redact = Redactor([])
    digest = "0123456789abcdef" * 4
    assert redact(f'File "/scratch/w-3/pacman-arena-teams/{digest}/alpha/multiAgents.py"'
                  ) == 'File "alpha/multiAgents.py"'
    assert redact(f"/srv/t/pacman-arena-run-81-ab_c9/{digest}/alpha/x.py, "
                  f"/tmp/pacman-arena-teams-1000/{digest}/beta/y.py") == "alpha/x.py, beta/y.py"
    assert redact("cwd /local/me/pacman-agent0-6844-vmsxz9yt/work; HOME='/x/pacman-agent12-1-q'"
                  ) == "cwd <sandbox>/work; HOME='<sandbox>'"
    assert redact("cut at /srv/me/pacman-agent0-6844-...") == "cut at <sandbox>..."
    assert redact("a pacman-agent of mine") == "a pacman-agent of mine"


# ---- what changed when: the run records and the collected submissions' manifest ----------

TINY_AGENT = "from game import Agent\n\nclass TinyAgent(Agent):\n    def getAction(self, s):\n" \
             "        return s.getLegalActions(0)[0]\n"


def collected_config(base: Path) -> TournamentConfig:
    """Teams ace and mid (folders without team.yaml) and the baseline low."""
    for name in ("ace", "mid"):
        (base / "subs" / name).mkdir(parents=True)
        (base / "subs" / name / "multiAgents.py").write_text(TINY_AGENT, encoding="utf-8")
    data = {
        "name": "Nightly",
        "entrants": {"submissions": "subs",
                     "baselines": [{"name": "low", "agent": "ReflexAgent"}]},
        "grid": {"layouts": ["smallClassic", "minimaxClassic"], "depths": [2, 3]},
        "output": "out",
    }
    return parse_config(data, "test.yaml", base)


RUNS = [
    RunRecord(1, "2025-03-01T02:00:00+00:00", "2025-03-01T02:10:00+00:00", "0.1.0", "finished",
              48),
    RunRecord(2, "2025-03-02T02:00:00+00:00", "2025-03-02T02:04:00+00:00", "0.1.0", "finished",
              16),
    RunRecord(3, "2025-03-03T02:00:00+00:00", None, "0.1.0", None, 0),
]


def nightly_results() -> pd.DataFrame:
    """ace's games from run 2 (it changed), mid's from run 1, low's stored before runs."""
    rows = record("ace", 3, 4) + record("mid", 2, 4) + record("low", 1, 4)
    frame = table(rows)
    frame["run_id"] = [2 if e == "ace" else 1 if e == "mid" else None for e in frame["entrant"]]
    return frame


def test_pages_say_when_files_changed_and_which_run_played_them(tmp_path: Path) -> None:
    from tournament.manifest import Manifest, Member, TeamRecord

    config = collected_config(tmp_path)
    source = f"git: {tmp_path}/repos/ace.git@main"
    manifest = Manifest(teams=(
        TeamRecord(team="ace", name=HOSTILE, members=(Member("s1234", "Ann Example"),),
                   source=source, submitted_at="2025-03-01T19:58:00+00:00", late=True,
                   late_seconds=7500.0, files={"multiAgents.py": "0" * 64},
                   commit=f"deadbeef {HOSTILE} {tmp_path}/checkout",
                   changed_at="2025-03-01T20:00:00+00:00"),
        TeamRecord(team="mid", name="Mid", members=(), source="canvas: subs.zip: mid_1.py",
                   submitted_at="2025-02-20T11:00:00+00:00", late=False, late_seconds=0.0,
                   files={}, commit=None, changed_at="2025-02-20T11:00:00+00:00"),
    ))
    out = tmp_path / "report"
    index = write_report(nightly_results(), config, out, runs=RUNS, manifest=manifest)

    page = Page(index)
    assert [row.cells for row in page.tables["runs"][1:]] == [
        ["3", "2025-03-03 02:00 UTC", "\u2013", "0", "did not finish"],
        ["2", "2025-03-02 02:00 UTC", "2025-03-02 02:04 UTC", "16", "finished"],
        ["1", "2025-03-01 02:00 UTC", "2025-03-01 02:10 UTC", "48", "finished"],
    ]
    board = page.tables["leaderboard"]
    column = board[0].cells.index("Games from")
    played = {row.cells[board[0].cells.index("Entrant")]: row for row in board[1:]}
    assert {name: row.cells[column] for name, row in played.items()} == {
        "ace": "run 2 collected 2025-03-01", "mid": "run 1 collected 2025-02-20",
        "low": "before runs"}
    assert "team-ace.html#files" in played["ace"].links
    assert played["ace"].cell_attrs[column]["title"] == (
        "games from run 2 (started 2025-03-02 02:00 UTC, finished): 16; files changed "
        "2025-03-01 20:00 UTC")

    ace = Page(out / "team-ace.html")
    assert [row.cells for row in ace.tables["files-table"]] == [
        ["Submission", "abc123"],
        ["Files collected (last changed)", "2025-03-01 20:00 UTC"],
        ["Submitted", "2025-03-01 19:58 UTC late by 2 h 05 min"],
        ["Commit", f"deadbeef {HOSTILE} <tmp>/{tmp_path.relative_to(gettempdir())}/checkout"],
        ["Games from", "run 2 (started 2025-03-02 02:00 UTC, finished): 16 games"],
    ]
    assert HOSTILE not in ace.source  # shown as text, escaped
    mid = Page(out / "team-mid.html")
    assert [row.cells for row in mid.tables["files-table"]] == [
        ["Submission", "abc123"],
        ["Files collected (last changed)", "2025-02-20 11:00 UTC"],
        ["Submitted", "2025-02-20 11:00 UTC (on time)"],  # an upload: no commit
        ["Games from", "run 1 (started 2025-03-01 02:00 UTC, finished): 16 games"],
    ]
    low = Page(out / "team-low.html")  # a baseline: the manifest knows nothing of it
    assert [row.cells for row in low.tables["files-table"]] == [
        ["Submission", "abc123"], ["Games from", "before runs were recorded: 16 games"]]

    # What the manifest holds of the organizer and the students is never shown: its source,
    # the members, the team's name from the mapping.
    for file in (p for p in out.rglob("*") if p.is_file()):
        text = file.read_text(encoding="utf-8")
        for secret in (str(tmp_path), "repos/ace.git", "s1234", "Ann Example"):
            assert secret not in text, (file.name, secret)


def test_without_runs_or_manifest_the_pages_are_as_before(tmp_path: Path) -> None:
    """Results from before run records, submissions not collected: no runs list, no column,
    and a team's page names its submission and the games' provenance it knows."""
    config = collected_config(tmp_path)
    out = tmp_path / "report"
    index = write_report(nightly_results().drop(columns=["run_id"]), config, out)
    page = Page(index)
    assert "runs" not in page.tables
    assert "Games from" not in page.tables["leaderboard"][0].cells
    ace = Page(out / "team-ace.html")
    assert [row.cells for row in ace.tables["files-table"]] == [
        ["Submission", "abc123"], ["Games from", "before runs were recorded: 16 games"]]
    # A manifest that does not list a team says so on its page.
    from tournament.manifest import Manifest

    write_report(nightly_results(), config, out, runs=RUNS, manifest=Manifest())
    assert ["Collected", "not in the collected submissions' manifest"] in [
        row.cells for row in Page(out / "team-ace.html").tables["files-table"]]
    assert "Collected" not in [row.cells[0] for row in
                               Page(out / "team-low.html").tables["files-table"]]


def test_an_unreadable_manifest_stops_the_report_naming_it(tmp_path: Path) -> None:
    import subprocess

    config = collected_config(tmp_path)
    assert config.submissions is not None
    (config.submissions / "manifest.json").write_text("{ not json", encoding="utf-8")
    path = tmp_path / "test.yaml"
    path.write_text("name: Nightly\nentrants: {submissions: subs}\n"
                    "grid: {layouts: [smallClassic]}\noutput: out\n", encoding="utf-8")
    done = subprocess.run([*TOURNAMENT, "report", str(path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"tournament: error: {config.submissions / 'manifest.json'}: "
                                  "not a manifest (invalid JSON")
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_teams_page_name_does_not_depend_on_the_rank_order() -> None:
    """Found by a hostile review: two names that clean to one page name were numbered in rank
    order (`foo-bar`, `foo-bar-2`), so a link a lecturer posted showed the other team once
    their ranks swapped. Each page name is now the name's own."""
    from tournament.report import _slugs

    names = ["foo+bar", "foo-bar", "Alice", "alice", "Bob", "carol"]
    slugs = _slugs(names)
    assert _slugs(list(reversed(names))) == slugs
    assert slugs["foo-bar"] == "foo-bar" and slugs["alice"] == "alice"
    assert slugs["carol"] == "carol" and re.fullmatch(r"bob-[0-9a-f]{8}", slugs["Bob"])
    assert slugs["foo+bar"].startswith("foo-bar-") and slugs["Alice"].startswith("alice-")
    assert len({slug.lower() for slug in slugs.values()}) == len(names)
    # Nor on who else plays (a review of this change): a name's page alone or among others.
    assert all(_slugs([name]) == {name: slugs[name]} for name in names)
