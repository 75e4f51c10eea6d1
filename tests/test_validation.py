"""The validation table: `tournament validate` tries every team for one short game and says
who loads, who fails and why, in kinds an organizer can mail a team about.

Teams made here fail in every way an organizer meets before a deadline (a syntax error, a
missing class, `import numpyy`, a start-up that never ends, a bad team.yaml, a symbolic link,
no agent file, a ghost that crashes), beside a good team and a baseline. The command's rows
(kind, where, message), its CSV, its exit status and the report's page are checked; so are the
pure rules (the classification, a detail a sandbox sends, the CSV read back), the report's
links to the page from the index and from each team's page in a browser, and Ctrl-C.
"""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import pandas as pd  # type: ignore[import-untyped, unused-ignore]
import pytest
from playwright.sync_api import expect

from pacman.problems import (
    CRASH_AT_START,
    MISSING_MODULE,
    MOVE,
    REGISTER,
    START,
    STARTUP_TIMEOUT,
    SYNTAX_ERROR,
    Detail,
)
from pacman.sandbox.process import SCRATCH_PREFIX
from tests.browser import BrowserPage
from tests.commands import TOURNAMENT
from tests.site import Page
from tests.test_report import game, make_config
from tests.test_sandbox_zoo import UNAVAILABLE
from tests.test_tournament_run import ACCEPT, REPO, ctrl_c_for_children
from tournament.report import write_report
from tournament.validation import (
    COLUMNS,
    FAILED,
    OK,
    ValidationFileError,
    ValidationRow,
    classify,
    failures_first,
    read_validation,
    write_validation,
)

sandboxed = pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")

GOOD = textwrap.dedent('''\
    from game import Agent


    class GoodAgent(Agent):
        def getAction(self, state):
            return state.getLegalActions(0)[0]
    ''')

#: Each failing team: its files, and the row `validate` must give it (kind, where, a part of
#: its message). Lines are counted in the files as written.
TEAMS: dict[str, tuple[dict[str, str], str, str, str]] = {
    "syntax": ({"team.yaml": "agent: agent.py:SyntaxAgent\n",
                "agent.py": "from game import Agent\n\nclass SyntaxAgent(Agent)\n    pass\n"},
               SYNTAX_ERROR, "agent.py:3", "SyntaxError"),
    "misnamed": ({"team.yaml": "agent: agent.py:SmartAgent\n",
                  "agent.py": GOOD.replace("GoodAgent", "SmartAgnt")},
                 "missing_class", "", "defines no class 'SmartAgent' (did you mean SmartAgnt?)"),
    "unbound": ({"team.yaml": "agent: agent.py:SmartAgent\n",
                 "agent.py": GOOD + "\n\nSmartAgent = None\n"},
                "missing_class", "", "defines no class 'SmartAgent'"),
    "numpyy": ({"team.yaml": "agent: agent.py:GoodAgent\n",
                "agent.py": "import random\nimport numpyy\n" + GOOD},
               MISSING_MODULE, "agent.py:2", "No module named 'numpyy'"),
    "sleepy": ({"team.yaml": "agent: agent.py:SleepyAgent\n",
                "agent.py": textwrap.dedent('''\
                    import time
                    from game import Agent


                    class SleepyAgent(Agent):
                        def registerInitialState(self, state):
                            while True:  # never done: past any start-up limit
                                time.sleep(1)

                        def getAction(self, state):
                            return state.getLegalActions(0)[0]
                    ''')},
               STARTUP_TIMEOUT, "", "start-up took more than"),
    "crashy": ({"team.yaml": "agent: agent.py:CrashyAgent\n",
                "agent.py": textwrap.dedent('''\
                    from game import Agent


                    def weights():
                        raise ValueError("no weights file")


                    class CrashyAgent(Agent):
                        def __init__(self):
                            self.weights = weights()
                    ''')},
               CRASH_AT_START, "agent.py:5", 'ValueError: "no weights file"'),
    "badyaml": ({"team.yaml": "name: Bad\nagent: [agent.py:GoodAgent\n", "agent.py": GOOD},
                "bad_team_yaml", "team.yaml:3", "badyaml/team.yaml: line 3"),
    "linked": ({"team.yaml": "agent: agent.py:GoodAgent\n", "agent.py": GOOD},
               "folder_refused", "", "linked/notes.txt: is a symbolic link"),
    "empty": ({"README.txt": "our agent is coming\n"},
              "no_agent_file", "", "no team.yaml and no *gents.py"),
    "haunted": ({"team.yaml": "ghost: ghosts.py:CrashGhost\n",
                 "ghosts.py": textwrap.dedent('''\
                     from game import Agent


                     class CrashGhost(Agent):
                         def getAction(self, state):
                             raise RuntimeError("boo")
                     ''')},
                "crash", "ghosts.py:6", 'getAction raised RuntimeError: "boo"'),
}
SIDE = {"haunted": "ghosts"}


def make_course(root: Path, teams: dict[str, dict[str, str]], extra: str = "",
                limits: str = "{startup: 3, move_soft: 2, move_hard: 3, memory_mb: 512}") -> Path:
    """A course folder with `teams` (name -> files), the example team as `good`, a baseline,
    a ghost baseline and matches (so that ghost teams are entrants); returns its config."""
    subs = root / "submissions"
    shutil.copytree(REPO / "submissions" / "example-team", subs / "good")
    for name, files in teams.items():
        (subs / name).mkdir(parents=True)
        for file, text in files.items():
            (subs / name / file).write_text(text, encoding="utf-8")
    config = root / "cup.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: Validation cup
        seed: 5
        sandbox: {{accept_missing: [{ACCEPT}]}}
        entrants:
          submissions: submissions
          baselines: [{{name: greedy, agent: GreedyAgent}}]
          ghost_baselines: [{{name: random-ghosts, agent: RandomGhost}}]
        grid:
          layouts: [testClassic]
          depths: [1]
          ghosts: [{{agent: RandomGhost, count: 1}}]
        matches: {{ghosts: 1}}
        games_per_cell: 1
        limits: {limits}
        workers: 2
        output: out
        """) + extra, encoding="utf-8")
    return config


def tournament(*args: str, cwd: Path = REPO, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TOURNAMENT, *args],  # type: ignore[call-overload, no-any-return]
                          capture_output=True, text=True, timeout=600, cwd=cwd, **kw)


@dataclass(frozen=True)
class Validated:
    root: Path
    done: subprocess.CompletedProcess[str]
    #: validation.csv as any CSV reader reads it.
    rows: list[dict[str, str]]
    report: Path


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> Validated:
    root = tmp_path_factory.mktemp("course")
    config = make_course(root, {name: files for name, (files, *_) in TEAMS.items()})
    (root / "submissions" / "linked" / "notes.txt").symlink_to(
        root / "submissions" / "good" / "team.yaml")
    done = tournament("validate", str(config))
    with open(root / "out" / "validation.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    report = tournament("report", str(config))
    assert report.returncode == 0, report.stdout + report.stderr
    return Validated(root, done, rows, root / "out" / "report")


def row_of(rows: list[dict[str, str]], entrant: str, side: str = "pacman") -> dict[str, str]:
    found = [r for r in rows if r["entrant"] == entrant and r["side"] == side]
    assert len(found) == 1, (entrant, side, rows)
    return found[0]


@sandboxed
def test_each_failing_team_gets_its_kind_where_and_message(validated: Validated) -> None:
    done = validated.done
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    for name, (_, kind, where, words) in TEAMS.items():
        row = row_of(validated.rows, name, SIDE.get(name, "pacman"))
        assert (row["status"], row["kind"], row["where"]) == (FAILED, kind, where), row
        assert words in row["message"], row
        assert "\n" not in row["message"] and len(row["message"]) <= 300
        # The command's line says the same, one line per entrant.
        label = name if name not in SIDE else f"{name} (ghosts)"
        at = f" at {where}" if where else ""
        assert f"  {label}: FAILED {kind}{at}: " in done.stdout, done.stdout
    # The sandbox named what only it could see: the module, and where the class should be.
    assert "module" in row_of(validated.rows, "numpyy")["message"]
    unbound = row_of(validated.rows, "unbound")["message"]
    assert unbound.startswith("unbound (SmartAgent): could not be loaded")


@sandboxed
def test_good_teams_and_baselines_are_ok_with_how_they_played(validated: Validated) -> None:
    rows = validated.rows
    good = row_of(rows, "good")
    assert (good["status"], good["kind"], good["where"], good["message"]) == (OK, "", "", "")
    assert "seccomp" in good["layers"] or "landlock" in good["layers"]
    assert int(good["moves"]) > 0 and good["outcome"] in ("win", "loss", "move_limit")
    ghosts = row_of(rows, "good", "ghosts")  # the example team's ghosts, against GreedyAgent
    assert ghosts["status"] == OK and int(ghosts["moves"]) > 0
    greedy = row_of(rows, "greedy")
    assert (greedy["status"], greedy["layers"], greedy["folder"]) == (OK, "", "")
    assert row_of(rows, "random-ghosts", "ghosts")["status"] == OK
    assert "good: ok, sandboxed (" in validated.done.stdout
    assert "greedy: ok, in-process (built-in)" in validated.done.stdout


@sandboxed
def test_the_csv_has_every_entrant_in_order_with_one_check_time(validated: Validated) -> None:
    rows = validated.rows
    assert tuple(rows[0]) == COLUMNS
    # The config's order: Pacman entrants (teams by folder name, then baselines), then
    # ghost entrants.
    pacmen = [*sorted(["good", *(n for n in TEAMS if n not in SIDE)]), "greedy"]
    ghosts = ["good", "haunted", "random-ghosts"]
    assert [(r["entrant"], r["side"]) for r in rows] == (
        [(n, "pacman") for n in pacmen] + [(n, "ghosts") for n in ghosts])
    assert len({r["checked_at"] for r in rows}) == 1 and rows[0]["checked_at"].endswith("Z")
    assert {r["folder"] for r in rows if r["entrant"] in TEAMS} == set(TEAMS)
    # Mail-ready: the organizer's folders are not in it, the team's own names are.
    text = (validated.root / "out" / "validation.csv").read_text(encoding="utf-8")
    assert str(validated.root) not in text and os.path.realpath(validated.root) not in text
    # And the summary names the kinds, with what each means.
    assert "1 x startup_timeout: import, construction and registerInitialState" in \
        validated.done.stdout
    assert "missing_class" in validated.done.stdout.split("Not ready")[1]
    assert f"{len(TEAMS)} entrant(s) not ready" in validated.done.stdout


@sandboxed
def test_the_report_shows_the_table_failures_first(validated: Validated) -> None:
    page = Page(validated.report / "validation.html")
    body = page.body_rows("validation")
    statuses = [r.attrs["data-status"] for r in body]
    assert statuses == sorted(statuses, key=lambda s: s != FAILED)  # failures first
    assert len(body) == len(validated.rows)
    shown = {(r.attrs["data-entrant"], r.attrs["data-side"]): r for r in body}
    for name, (_, kind, where, words) in TEAMS.items():
        row = shown[(name, SIDE.get(name, "pacman"))]
        assert row.attrs["data-kind"] == kind
        assert where in row.cells and any(words in c for c in row.cells), row.cells
    assert "Checked " + validated.rows[0]["checked_at"] in page.words()
    index = Page(validated.report / "index.html")
    assert "validation.html" in index.links
    ready = sum(r["status"] == OK for r in validated.rows)
    assert f"{ready} of {len(validated.rows)} entrants ready" in index.words()
    for file in validated.report.rglob("*.html"):
        text = file.read_text(encoding="utf-8")
        assert str(validated.root) not in text, file


# ---- the report, with games: links both ways -------------------------------------------------

@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A report from hand-made games of ace, mid and low, with a validation table in which
    low failed (its message naming the organizer's folder) and a team without games failed."""
    config = make_config(tmp_path)
    rows = [game("ace", i, "win" if i else "loss") for i in range(4)]
    rows += [game("mid", i, "win" if i % 2 else "loss") for i in range(4)]
    rows += [game("low", i, "loss") for i in range(4)]
    low = config.output.parent / "submissions" / "low" / "agent.py"
    validation = [
        ValidationRow("ace", "pacman", "ace", OK, layers=("seccomp",), moves=40,
                      outcome="win", score=500),
        ValidationRow("mid", "pacman", "mid", OK, moves=40, outcome="loss", score=-400),
        ValidationRow("low", "pacman", "low", FAILED, SYNTAX_ERROR, "agent.py:7",
                      f"{low}:7:1: syntax error: invalid syntax", ("seccomp",)),
        ValidationRow("late", "pacman", "late", FAILED, "no_agent_file", "",
                      "late: no team.yaml and no *gents.py"),
    ]
    write_validation(validation, config.output, "2025-03-01T09:00:00Z")
    write_report(pd.DataFrame(rows), config, config.output / "report")
    return config.output / "report"


def test_report_links_the_table_from_the_index_and_each_team(site: Path) -> None:
    page = Page(site / "validation.html")
    body = page.body_rows("validation")
    assert [r.attrs["data-entrant"] for r in body] == ["low", "late", "ace", "mid"]
    # A team with a page is linked to it; a team without games has none.
    assert body[0].links == ["team-low.html"] and body[1].links == []
    for path in site.glob("*.html"):
        for target in Page(path).links:
            parts = urlsplit(target)
            file = site / unquote(parts.path) if parts.path else path
            assert file.is_file(), (path.name, target)
            if file.name == "validation.html" and parts.fragment:
                wanted = dict(parse_qsl(parts.fragment))
                assert [r for r in body if all(r.attrs.get(f"data-{k}") == v
                                               for k, v in wanted.items())], target
    low = Page(site / "team-low.html")
    assert "validation.html#entrant=low" in low.links
    assert "not ready: syntax_error at agent.py:7" in low.words()
    ace = Page(site / "team-ace.html").words()
    assert "Validation (checked 2025-03-01T09:00:00Z): ready" in ace
    assert "2 of 4 entrants ready; not ready: 1 no_agent_file, 1 syntax_error" in \
        Page(site / "index.html").words()


def test_the_page_names_no_organizer_folder(site: Path) -> None:
    text = (site / "validation.html").read_text(encoding="utf-8")
    root = str(site.parent.parent)
    assert root not in text
    assert "low/agent.py:7:1: syntax error" in Page(site / "validation.html").words()


def test_without_a_table_there_is_no_page(site: Path, tmp_path: Path) -> None:
    config = make_config(tmp_path)
    (config.output / "validation.csv").unlink()
    write_report(pd.DataFrame([game("ace", 0, "win")]), config, site)
    assert not (site / "validation.html").exists()
    assert "validation.html" not in Page(site / "index.html").links


def test_a_table_that_cannot_be_read_is_said_on_the_index(site: Path, tmp_path: Path) -> None:
    config = make_config(tmp_path)
    (config.output / "validation.csv").write_text("entrant,status\nace,ok\n")
    write_report(pd.DataFrame([game("ace", 0, "win")]), config, site)
    words = Page(site / "index.html").words()
    assert "The validation table cannot be shown" in words and "no column" in words
    assert not (site / "validation.html").exists()


def test_the_page_sorts_filters_and_opens_a_teams_rows(site: Path,
                                                      browser_page: BrowserPage) -> None:
    page = browser_page.page
    page.goto((site / "index.html").as_uri())
    page.locator("#validation-note a").click()
    expect(page).to_have_url(f"{(site / 'validation.html').as_uri()}")
    rows = page.locator("#validation tbody tr:not([hidden])")
    expect(rows).to_have_count(4)
    page.select_option("#validation-filters select[name=status]", "failed")
    expect(rows).to_have_count(2)
    expect(page.locator("#validation-filters-count")).to_have_text("2 of 4 shown")
    page.select_option("#validation-filters select[name=status]", "")
    entrants = page.locator("#validation tbody td.entrant")
    page.locator("#validation thead th", has_text="Entrant").click()
    expect(entrants).to_have_text(["ace", "late", "low", "mid"])
    # From a team's page, its own row.
    page.goto((site / "team-low.html").as_uri())
    page.locator("#validation-note a").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-entrant", "low")


# ---- the pure rules ----------------------------------------------------------------------------

@pytest.mark.parametrize("outcome, stage, detail, kind", [
    ("load_error", START, Detail(SYNTAX_ERROR, "a.py:3"), SYNTAX_ERROR),
    ("load_error", START, None, CRASH_AT_START),
    ("crash", REGISTER, None, CRASH_AT_START),
    ("timeout", START, None, STARTUP_TIMEOUT),
    ("timeout", REGISTER, Detail("", "a.py:9"), STARTUP_TIMEOUT),
    ("memory", START, None, "memory"),
    ("crash", MOVE, Detail(MISSING_MODULE, "a.py:12", "scipy"), MISSING_MODULE),
    ("crash", MOVE, Detail("", "a.py:12"), "crash"),
    ("timeout", MOVE, None, "timeout"),
    ("illegal_action", MOVE, None, "illegal_action"),
    ("infra_error", START, Detail(SYNTAX_ERROR), "infra_error"),
])
def test_a_failure_is_classified_from_its_facts(outcome: str, stage: str,
                                                detail: Detail | None, kind: str) -> None:
    assert classify(outcome, stage, detail) == kind


@pytest.mark.parametrize("raw, expected", [
    ({"problem": "syntax_error", "where": "a.py:3", "module": ""}, Detail(SYNTAX_ERROR, "a.py:3")),
    ({"problem": "missing_module", "where": "", "module": "numpyy"},
     Detail(MISSING_MODULE, "", "numpyy")),
    ({}, Detail()),
    # What an agent writing on the channel might send instead.
    ({"problem": "startup_timeout"}, None),  # not the harness's to say
    ({"problem": "win"}, None),
    ({"problem": 3}, None),
    ({"problem": "crash", "extra": "x"}, None),
    (["syntax_error"], None),
    ("syntax_error", None),
    # The escape character goes (what is left of the sequence is harmless text); one line.
    ({"where": "a.py:3\n\x1b[31mred\n" + "x" * 500},
     Detail("", "a.py:3 [31mred " + "x" * 185)),
    ({"problem": "missing_module", "module": "os; rm -rf /"}, Detail(MISSING_MODULE)),
])
def test_a_detail_from_a_sandbox_is_checked(raw: object, expected: Detail | None) -> None:
    assert Detail.from_wire(raw) == expected


def test_failures_come_first_in_their_order() -> None:
    rows = [ValidationRow(n, "pacman", n, s) for n, s in
            [("a", OK), ("b", FAILED), ("c", OK), ("d", FAILED)]]
    assert [r.entrant for r in failures_first(rows)] == ["b", "d", "a", "c"]


def test_the_csv_reads_back_as_written(tmp_path: Path) -> None:
    rows = [
        ValidationRow("a", "pacman", "a", OK, layers=("cpu share", "seccomp"), moves=40,
                      outcome="win", score=-3),
        ValidationRow("b", "ghosts", "b", FAILED, "crash", "g.py:4",
                      '=HYPERLINK("x") raised, said the ghost', moves=7, outcome="crash",
                      score=12),
        ValidationRow("c", "pacman", "", FAILED, "unresolved", "", "no", ()),
    ]
    write_validation(rows, tmp_path, "2025-01-01T00:00:00Z")
    raw = (tmp_path / "validation.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK" in raw  # a spreadsheet shows it, runs nothing
    back = read_validation(tmp_path)
    assert back is not None and back.checked_at == "2025-01-01T00:00:00Z"
    assert back.rows == tuple(rows)
    assert read_validation(tmp_path / "none") is None


@pytest.mark.parametrize("text, problem", [
    ("entrant,status\n", "no column checked_at"),
    (",".join(COLUMNS) + "\nt,a,sideways,a,ok,,,,,0,win,1\n", "line 2: side"),
    (",".join(COLUMNS) + "\nt,a,pacman,a,maybe,,,,,0,win,1\n", "line 2: status"),
    (",".join(COLUMNS) + "\nt,a,pacman,a,failed,bogus,,,,0,,\n", "line 2: kind"),
    (",".join(COLUMNS) + "\nt,a,pacman,a,ok,,,,,many,win,1\n", "line 2: moves and score"),
])
def test_a_table_that_is_not_one_is_refused_naming_the_line(tmp_path: Path, text: str,
                                                            problem: str) -> None:
    (tmp_path / "validation.csv").write_text(text, encoding="utf-8")
    with pytest.raises(ValidationFileError, match=problem):
        read_validation(tmp_path)


def test_a_linked_table_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.csv").write_text(",".join(COLUMNS) + "\n", encoding="utf-8")
    (tmp_path / "validation.csv").symlink_to(tmp_path / "elsewhere.csv")
    with pytest.raises(ValidationFileError, match="symbolic link"):
        read_validation(tmp_path)


# ---- the command ------------------------------------------------------------------------------

@sandboxed
def test_all_ready_exits_0_and_a_second_run_replaces_the_table(tmp_path: Path) -> None:
    config = make_course(tmp_path, {})
    first = tournament("validate", str(config), "--workers", "1")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "every entrant is ready" in first.stdout and "(1 at once)" in first.stdout
    table = tmp_path / "out" / "validation.csv"
    before = table.read_text(encoding="utf-8")
    agent = tmp_path / "submissions" / "good" / "multiAgents.py"
    agent.write_text("import numpyy\n" + agent.read_text(encoding="utf-8"), encoding="utf-8")
    second = tournament("validate", str(config))
    assert second.returncode == 1
    after = list(csv.DictReader(table.open(newline="", encoding="utf-8")))
    assert row_of(after, "good")["kind"] == MISSING_MODULE
    assert after[0]["checked_at"] >= before.splitlines()[1].split(",")[0]
    assert not [p for p in table.parent.iterdir() if p.name.endswith(".tmp")]


@sandboxed
def test_validate_refuses_beside_a_run(tmp_path: Path) -> None:
    """It plays games on the organizer's machine: never beside another command holding the
    output folder (it would upset that run's time limits)."""
    from tournament.lock import acquire, release

    config = make_course(tmp_path, {})
    acquire(tmp_path / "out", "tournament run cup.yaml")
    try:
        held = tournament("validate", str(config))
    finally:
        release(tmp_path / "out")
    assert held.returncode == 2
    assert "is in use by tournament run cup.yaml" in held.stderr
    assert not (tmp_path / "out" / "validation.csv").exists()


@sandboxed
def test_ctrl_c_stops_the_games_in_progress_and_writes_nothing(tmp_path: Path) -> None:
    """A team whose start-up never ends, under a start-up limit longer than the test's
    deadline: only stopping its game on Ctrl-C ends the command in time."""
    stuck = TEAMS["sleepy"][0]
    config = make_course(tmp_path, {"stuck": stuck},
                         limits="{startup: 900, move_soft: 2, move_hard: 3}")
    scratch = tmp_path / "t"
    scratch.mkdir()
    with ctrl_c_for_children():
        proc = subprocess.Popen([sys.executable, "-X", "faulthandler", TOURNAMENT[1],
                                 "validate", str(config), "--workers", "2"],
                                cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, "TMPDIR": str(scratch),
                                     "PYTHONUNBUFFERED": "1"})
    # The deadline of the wait for its first line: past it, the command is killed.
    watchdog = threading.Timer(300, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout is not None
        seen = []
        for text in proc.stdout:  # `good` is tried beside `stuck` and done first
            seen.append(text)
            if text.startswith("  good: ok"):
                break
        else:
            pytest.fail("".join(seen))
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # its threads' stacks, from faulthandler
            pytest.fail("not stopped within 120 s:\n" + proc.communicate(timeout=60)[0])
    finally:
        watchdog.cancel()
        proc.kill()
    assert proc.returncode == 130, "".join(seen) + out
    assert "stopped after 1 of 5 entrants; nothing written" in out
    assert not (tmp_path / "out" / "validation.csv").exists()
    assert not [p for p in scratch.iterdir() if p.name.startswith(SCRATCH_PREFIX)]


def test_the_readme_names_every_kind() -> None:
    from pacman.problems import KINDS

    section = (REPO / "README.md").read_text(encoding="utf-8").split(
        "### Validation: who loads")[1].split("\n## ")[0]
    for kind in KINDS:
        assert f"`{kind}`" in section, kind


@sandboxed
def test_closing_the_tries_stops_a_game_that_would_never_end(tmp_path: Path) -> None:
    """What Ctrl-C does, wherever it lands in the command: the rows' iterator closed while a
    team's start-up never ends (under a limit far beyond the deadline) returns, its game
    stopped and its sandbox gone."""
    from tournament.config import load_config
    from tournament.tryout import Setup, trials, try_all

    config = load_config(make_course(tmp_path, {"stuck": TEAMS["sleepy"][0]},
                                     limits="{startup: 900, move_soft: 2, move_hard: 3}"))
    tried = try_all(trials(config), Setup.of(config, (), str), 2)
    first = next(tried)
    assert (first.entrant, first.status) == ("good", OK)
    closer = threading.Thread(target=tried.close)
    closer.start()
    closer.join(timeout=120)
    assert not closer.is_alive(), "the stuck game was not stopped"
    leftovers = [p for p in Path(tempfile.gettempdir()).iterdir()
                 if p.name.startswith(f"{SCRATCH_PREFIX}") and f"-{os.getpid()}-" in p.name]
    assert not leftovers
