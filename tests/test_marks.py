"""Marks: the scheme's checks with their key paths, the pure evaluation on results tables
built here (thresholds at their boundaries, gates, caps, penalties, the paired comparison,
rank and rating bands), rows per student from a manifest, the CSV files, and the course's
scheme on a real tiny tournament through `tournament marks`."""

from __future__ import annotations

import csv
import dataclasses
import math
import re
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pacman.outcomes import FAILURES
from pacman.yamlfile import parse_yaml
from tournament.config import TournamentConfig, load_config
from tournament.manifest import (
    Entry,
    Manifest,
    ManifestError,
    Member,
    TeamRecord,
    read_manifest,
    write_manifest,
)
from tournament.marks import (
    TeamMark,
    UnmarkableError,
    evaluate,
    pacman_moves,
    student_table,
    students_in_several_teams,
    team_table,
)
from tournament.markscheme import (
    STUDENT_COLUMNS,
    TEAM_COLUMNS,
    Scheme,
    SchemeError,
    load_scheme,
    parse_scheme,
)
from tournament.results import SCORED_COLUMNS
from tournament.tables import write_csv

REPO = Path(__file__).parent.parent
COURSE_SCHEME = REPO / "tournaments" / "marks-evaluation.yaml"
COLUMNS = (*SCORED_COLUMNS, "warnings", "ghost_entrant")

# ---- building tournaments, results and schemes ----------------------------------------------


def make_config(root: Path, teams: tuple[str, ...] = ("alpha", "beta", "gamma"),
                matches: bool = False) -> TournamentConfig:
    """A config in `root` whose teams are tiny folders (never played here) and whose
    baselines are greedy and random; with `matches`, the teams' Pacmen meet a ghost
    baseline `chasers` (rated 0) in match games as well."""
    for name in teams:
        folder = root / "submissions" / name
        folder.mkdir(parents=True)
        (folder / "agent.py").write_text(
            "class A:\n    def getAction(self, state):\n        return 'Stop'\n")
        (folder / "team.yaml").write_text("agent: agent.py:A\n")
    ghost_side = ("  ghost_baselines:\n    - {name: chasers, agent: DirectionalGhost}\n"
                  if matches else "")
    (root / "t.yaml").write_text(textwrap.dedent("""\
        name: Cup
        entrants:
          submissions: submissions
          baselines:
            - {name: greedy, agent: GreedyAgent}
            - {name: random, agent: RandomAgent}
        """) + ghost_side + textwrap.dedent("""\
        grid:
          layouts: [smallClassic, testClassic]
          depths: [1, 2]
        output: out
        """) + ("matches: {anchor: chasers, games: 10}\n" if matches else ""))
    return load_config(root / "t.yaml")


def game(entrant: str, index: int, outcome: str = "win", score: float | None = None,
         layout: str = "smallClassic", depth: int = 2, culprit: int | None = None,
         wall: float | None = 0.01, cpu: float | None = None, moves: int = 120,
         ghost_entrant: str = "") -> dict[str, Any]:
    """One stored game as `current_results` gives it (the columns the marks read)."""
    if score is None:
        score = 1000 if outcome == "win" else -300
    if culprit is None and outcome in FAILURES:
        culprit = 0
    cell = (f"{layout}/d{depth}/2g/classic" if ghost_entrant
            else f"{layout}/d{depth}/RandomGhost2/classic")
    who = f"{entrant}~{ghost_entrant}" if ghost_entrant else entrant
    return {
        "game_id": f"{who}@{cell}#{index}", "entrant": entrant, "cell": cell,
        "layout": layout, "depth": depth, "ghost": "RandomGhost", "num_ghosts": 2,
        "ruleset": "classic", "seed": 100 + index, "game_index": index, "outcome": outcome,
        "culprit": culprit, "message": "", "score": score, "win": outcome == "win",
        "moves": moves, "wall_mean": wall, "wall_max": wall, "cpu_mean": cpu, "cpu_max": cpu,
        "warnings": 0, "ghost_entrant": ghost_entrant,
    }


def record(entrant: str, wins: int, n: int = 10, **kw: Any) -> list[dict[str, Any]]:
    """`wins` won games, then losses: `n` games of one entrant."""
    return [game(entrant, i, "win" if i < wins else "loss", **kw) for i in range(n)]


def table(*groups: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([row for group in groups for row in group], columns=COLUMNS)


def scheme_of(config: TournamentConfig, text: str) -> Scheme:
    return parse_scheme(parse_yaml(textwrap.dedent(text), "marks.yaml"), "marks.yaml", config)


def problems(config: TournamentConfig, text: str) -> list[str]:
    with pytest.raises(SchemeError) as caught:
        scheme_of(config, text)
    return list(caught.value.problems)


def by_team(marks: list[TeamMark]) -> dict[str, TeamMark]:
    return {mark.team: mark for mark in marks}


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> TournamentConfig:
    return make_config(tmp_path_factory.mktemp("cup"))


@pytest.fixture(scope="module")
def course(cup: TournamentConfig) -> Scheme:
    return load_scheme(COURSE_SCHEME, cup)


WINS = textwrap.dedent("""\
    criteria:
      - name: wins
        kind: wins
        thresholds: [{at: 1, points: 1}, {at: 5, points: 2}, {at: 10, points: 3}]
    """)

# ---- the scheme's checks -------------------------------------------------------------------


def test_the_course_scheme_reads_as_the_autograder_scores(course: Scheme) -> None:
    assert course.out_of == 6
    assert [c.name for c in course.criteria] == ["no-failure", "wins", "five-wins", "score",
                                                 "time"]
    # Gated criteria come after what they require.
    order = course.gate_order
    for criterion in course.criteria:
        assert all(order.index(r) < order.index(criterion.name) for r in criterion.requires)
    assert all(c.games.layouts == ("smallClassic",) for c in course.criteria)


@pytest.mark.parametrize("config,scheme", [("evaluation", "marks-evaluation"),
                                           ("example", "marks-cup")])
def test_the_shipped_schemes_fit_their_tournaments(config: str, scheme: str) -> None:
    tournaments = REPO / "tournaments"
    checked = load_scheme(tournaments / f"{scheme}.yaml",
                          load_config(tournaments / f"{config}.yaml"))
    assert checked.out_of == {"marks-evaluation": 6, "marks-cup": 10}[scheme]


def test_unknown_kind_entrant_column_and_bad_thresholds_are_named_with_their_key_paths(
        cup: TournamentConfig) -> None:
    found = problems(cup, """\
        criteria:
          - {name: a, kind: winz, points: 1}
          - {name: b, kind: beats, entrant: greedyy, points: 1}
          - {name: c, kind: mean, column: scor, thresholds: [{at: 1, points: 1}]}
          - name: d
            kind: wins
            thresholds: [{at: 5, points: 1}, {at: five, points: 2}, {at: 2.5, points: 1},
                         {at: 0, points: 1}, {at: 5, points: 3}, {below: 9, points: 1},
                         {at: 7, points: -1}, {at: 8}]
        """)
    assert found == [
        "criteria[0].kind: unknown criterion kind 'winz' (did you mean wins?); expected one "
        "of wins, mean, no_failures, time, beats, rank, rating",
        "criteria[1].entrant: unknown entrant 'greedyy' (did you mean greedy?); the Pacman "
        "entrants of 'Cup': alpha, beta, gamma, greedy, random",
        "criteria[2].column: unknown column 'scor' (did you mean score?); a mean can be taken "
        "of score, win, moves, wall_mean, wall_max, cpu_mean, cpu_max, warnings",
        "criteria[3].thresholds[1].at: expected a number, got 'five'",
        "criteria[3].thresholds[2].at: expected a whole number of wins, got 2.5",
        "criteria[3].thresholds[3].at: expected wins >= 1, got 0",
        "criteria[3].thresholds[5].below: wins thresholds take at:, not below:",
        "criteria[3].thresholds[6].points: expected points >= 0, got -1",
        "criteria[3].thresholds[7].points: required: the points for reaching it (0 or more)",
        "criteria[3].thresholds[4]: the threshold 'at 5' is already given at "
        "thresholds[0]",
    ]


def test_names_of_the_tournament_and_of_the_scheme_are_checked(cup: TournamentConfig) -> None:
    found = problems(cup, """\
        games: {layout: smalClassic, depth: 3, colour: red, ruleset: [classic, cs221]}
        criteria:
          - {name: wins, kind: wins, thresholds: [{at: 1, points: 1}], requires: [no-timout]}
          - {name: no-timeout, kind: no_failures, failures: [timout], points: 0,
             requires: no-timeout}
          - {name: mark, kind: rank, bands: [{top: 150%, points: 1}]}
          - {name: r, kind: rating, bands: [{top: 1, points: 1}]}
          - {name: t, kind: time, thresholds: [{at: 3, points: 1}], clock: cpux,
             games: {cell: smallClassic/d2/RandomGhost2/clasic}}
          - {name: e, kind: wins, each: 1}
        late: {per: week, fraction: 2}
        """)
    assert found == [
        "games.colour: unknown key; expected one of layout, depth, cell, ruleset",
        "games.layout: unknown layout 'smalClassic' (did you mean smallClassic?); the "
        "tournament's grid.layouts: smallClassic, testClassic",
        "games.depth: no depth 3 in the tournament's grid.depths (1, 2)",
        "games.ruleset[1]: unknown ruleset 'cs221'; the tournament's grid.rules: classic",
        "criteria[1].failures[0]: unknown failure kind 'timout' (did you mean timeout?); "
        "expected any, or failure kinds among load_error, crash, timeout, illegal_action, "
        "memory, killed",
        "criteria[2].name: 'mark' is a column of marks-teams.csv already; name the "
        "criterion otherwise",
        "criteria[2].bands[0].top: expected a number of positions >= 1 (top: 3) or a share "
        "between 0% and 100% (top: 10%), got '150%'",
        "criteria[3].kind: the tournament plays no match games (no matches: in its config), "
        "so there are no ratings to mark",
        "criteria[4].games.cell: unknown cell 'smallClassic/d2/RandomGhost2/clasic' (did you "
        "mean smallClassic/d2/RandomGhost2/classic?); the tournament's cells: "
        "smallClassic/d1/RandomGhost2/classic, smallClassic/d2/RandomGhost2/classic, "
        "testClassic/d1/RandomGhost2/classic, testClassic/d2/RandomGhost2/classic",
        "criteria[4].clock: unknown clock 'cpux' (did you mean cpu?); expected one of wall, "
        "cpu",
        "criteria[4].thresholds[0].at: seconds thresholds take below:, not at:",
        "criteria[5].points: required with each: the points for each",
        "criteria[0].requires[0]: unknown criterion 'no-timout' (did you mean no-timeout?); "
        "the scheme's criteria are wins, no-timeout, mark, r, t, e",
        "criteria[1].requires: a criterion cannot require itself",
        "late.per: unknown unit 'week'; expected one of day, hour",
        "late.fraction: expected a fraction of the mark up to 1 (0.1 is 10%), got 2",
    ]


def test_criteria_of_every_shape_are_checked(cup: TournamentConfig) -> None:
    assert problems(cup, """\
        criteria:
          - 5
          - {name: x}
          - {name: y, kind: wins, thresholds: [{at: 1, points: 1}], colour: 3}
          - {name: z, kind: mean, column: score,
             thresholds: [{at: 1, points: 1}, {below: 5, points: 2}]}
          - {name: v, kind: beats, entrant: greedy}
          - {name: a, kind: rank, bands: [{top: 3, points: 1}], among: everyone}
          - {name: b, kind: no_failures, failures: [], points: 1}
          - {name: c, kind: time, thresholds: [{below: 0, points: 1}]}
        late: {per: day, fraction: 0.1, max: 2}
        """) == [
        "criteria[0]: expected a mapping with name, kind and its keys, got 5",
        "criteria[1].kind: required: what it measures, one of wins, mean, no_failures, time, "
        "beats, rank, rating",
        "criteria[2].colour: unknown key; expected one of name, kind, games, requires, max, "
        "each, points, thresholds",
        "criteria[3].thresholds: give every threshold of a list as at: or every one as "
        "below:",
        "criteria[4].points: required: the points for beating it",
        "criteria[5].among: unknown value 'everyone'; expected one of teams, all",
        "criteria[6].failures: expected any, or failure kinds among load_error, crash, "
        "timeout, illegal_action, memory, killed",
        "criteria[7].thresholds[0].below: expected seconds > 0, got 0",
        "late.max: expected the most of the mark taken, a fraction up to 1, got 2",
    ]
    assert problems(cup, WINS + "late: {per: day}\n") == [
        "late: give fraction: (of the mark, 0.1 per unit) or points: (per unit), one of them"]


def test_circles_unbounded_points_and_an_empty_scheme(cup: TournamentConfig) -> None:
    assert problems(cup, """\
        criteria:
          - {name: a, kind: wins, thresholds: [{at: 1, points: 1}], requires: [b]}
          - {name: b, kind: wins, thresholds: [{at: 2, points: 1}], requires: [a]}
        """) == ["criteria[0].requires: the requirements of a, b go round in a circle: none "
                 "of them could ever give points"]
    assert problems(cup, """\
        criteria:
          - {name: per-win, kind: wins, each: 1, points: 0.5}
        """) == ["out_of: required: criterion 'per-win' gives points for each unit with no "
                 "max:, so the scheme cannot tell what a mark is out of"]
    assert problems(cup, "criteria: []\n") == ["criteria: expected at least one criterion"]
    assert problems(cup, "name: x\n") == [
        "criteria: required: a list of criteria, each with a name and a kind"]
    with pytest.raises(SchemeError, match="the scheme is empty"):
        parse_scheme(None, "marks.yaml", cup)


def test_a_scheme_file_s_problems_name_the_file(cup: TournamentConfig, tmp_path: Path) -> None:
    path = tmp_path / "marks.yaml"
    path.write_text("criteria:\n  - {name: a, kind: wins, thresholds: [{at: 1, points: 1}]}\n"
                    "  - {name: a, kind: wins, thresholds: [{at: 2, points: 1}]}\n")
    with pytest.raises(SchemeError) as caught:
        load_scheme(path, cup)
    assert str(caught.value) == (f"{path}: criteria[1]: the criterion name 'a' is already "
                                 "given at criteria[0]")
    path.write_text("criteria: [\n")
    with pytest.raises(SchemeError, match=r"marks\.yaml.*line 2"):
        load_scheme(path, cup)
    with pytest.raises(SchemeError, match=r"no-such\.yaml"):
        load_scheme(tmp_path / "no-such.yaml", cup)


# ---- thresholds, conditions, time ----------------------------------------------------------


@pytest.mark.parametrize("wins,points", [(0, 0), (1, 1), (4, 1), (5, 2), (9, 2), (10, 3)])
def test_win_thresholds_at_their_boundaries(cup: TournamentConfig, wins: int,
                                            points: int) -> None:
    mark = by_team(evaluate(scheme_of(cup, WINS), table(record("alpha", wins)), cup,
                            None))["alpha"]
    assert mark.mark == points and mark.out_of == 3
    if points:
        at = {1: 1, 2: 5, 3: 10}[points]
        assert mark.reason == f"wins {wins}/10: +{points} (>= {at})"
    else:
        assert mark.reason == "wins 0/10: 0 (needs at least 1 win)"


def test_infra_errors_are_never_counted(cup: TournamentConfig) -> None:
    games = record("alpha", 5) + [game("alpha", 10 + i, "infra_error", score=0)
                                  for i in range(3)]
    assert by_team(evaluate(scheme_of(cup, WINS), table(games), cup, None))["alpha"].reason \
        == "wins 5/10: +2 (>= 5)"


@pytest.mark.parametrize("scores,points", [([500, 500], 1), ([499, 500], 0),
                                           ([2000, 0], 2), ([1000, 999.99], 1)])
def test_mean_thresholds_at_their_boundaries(cup: TournamentConfig, scores: list[float],
                                             points: int) -> None:
    scheme = scheme_of(cup, """\
        criteria:
          - {name: score, kind: mean, column: score,
             thresholds: [{at: 500, points: 1}, {at: 1000, points: 2}]}
        """)
    games = [game("alpha", i, "loss", score=s) for i, s in enumerate(scores)]
    mark = by_team(evaluate(scheme, table(games), cup, None))["alpha"]
    assert mark.mark == points
    assert mark.reason.endswith("(needs a mean score >= 500)" if not points
                                else f"(>= {500 * points})")


def test_no_failures_counts_the_team_s_own_of_the_kinds_named(cup: TournamentConfig) -> None:
    scheme = scheme_of(cup, """\
        criteria:
          - {name: no-timeout, kind: no_failures, failures: timeout, points: 1}
          - {name: clean, kind: no_failures, points: 2}
        """)
    games = table(
        record("alpha", 3, n=4),
        # A ghost's time-out (culprit 1) is the ghosts' failure, not alpha's.
        [*record("beta", 3, n=3), game("beta", 3, "timeout", culprit=1)],
        [*record("gamma", 2, n=2), game("gamma", 2, "timeout"), game("gamma", 3, "crash")],
    )
    marks = by_team(evaluate(scheme, games, cup, None))
    assert marks["alpha"].mark == 3 and marks["beta"].mark == 3
    assert marks["alpha"].reason == ("no time-out in 4 games: +1 (no time-out); no failure "
                                     "in 4 games: +2 (no failure)")
    assert marks["gamma"].mark == 0
    assert marks["gamma"].reason == (
        "time-out in 1 of 4 games: 0 (needs no time-out); failure in 2 of 4 games (crash 1, "
        "timeout 1): 0 (needs no failure)")


def test_pacman_moves_alternate_with_the_ghosts() -> None:
    """Pacman moves first, then each ghost; a move of his that failed was timed too."""
    games = pd.DataFrame({
        "moves": [0, 1, 3, 4, 7, 0, 6, 6],
        "num_ghosts": [2, 2, 2, 2, 1, 2, 2, 2],
        "outcome": ["loss"] * 5 + ["timeout", "illegal_action", "crash"],
        "culprit": [None] * 5 + [0, 0, 1],
    })
    assert list(pacman_moves(games)) == [0, 1, 1, 2, 4, 1, 3, 2]


@pytest.mark.parametrize("moves,points", [(175, 1), (178, 0), (181, 0)])
def test_thinking_time_per_game_below_a_threshold(cup: TournamentConfig, moves: int,
                                                  points: int) -> None:
    """0.5 s per move: 175 moves of three agents are 59 of Pacman's (29.5 s), 178 are 60
    (30 s: not below 30), 181 are 61."""
    scheme = scheme_of(cup, """\
        criteria:
          - {name: time, kind: time, thresholds: [{below: 30, points: 1}]}
          - {name: cpu, kind: time, per: move, clock: cpu, thresholds: [{below: 0.2, points: 1}]}
        """)
    games = table([game("alpha", 0, wall=0.5, moves=moves, cpu=0.1)],
                  [game("beta", 0, wall=0.5, moves=moves)])
    marks = by_team(evaluate(scheme, games, cup, None))
    seconds = 0.5 * math.ceil(moves / 3)
    assert marks["alpha"].given[0].points == points
    assert marks["alpha"].reason.startswith(f"thinking time {seconds:.3g} s per game: ")
    assert "CPU time 0.1 s per move: +1 (< 0.2 s)" in marks["alpha"].reason
    # An in-process agent has no CPU time measured: the criterion is not met.
    assert ("no CPU time measured: 0 (needs a CPU time per move < 0.2 s)"
            in marks["beta"].reason)


def test_thinking_time_never_rewards_failing_fast(cup: TournamentConfig) -> None:
    """A game the team's own agent failed (a crash at its second move) is short: it does not
    count towards the time, and a team that failed every game gets no time points."""
    scheme = scheme_of(cup, """\
        criteria:
          - {name: time, kind: time, thresholds: [{below: 30, points: 1}]}
        """)
    games = table([game("alpha", i, "crash", wall=0.001, moves=3) for i in range(3)],
                  [game("beta", 0, "crash", wall=0.001, moves=3),
                   game("beta", 1, wall=1.0, moves=300)],
                  # A ghost's failure is not beta's: gamma's game with one counts.
                  [game("gamma", 0, "crash", culprit=1, wall=0.1, moves=30)])
    marks = by_team(evaluate(scheme, games, cup, None))
    assert marks["alpha"].mark == 0
    assert marks["alpha"].reason == ("no game finished without a failure of its own: 0 (needs "
                                     "a thinking time per game < 30 s)")
    assert marks["beta"].mark == 0  # 100 s per game over the game it did not fail
    assert marks["beta"].reason.startswith(
        "thinking time 100 s per game (over the 1 game it did not fail): 0")
    assert marks["gamma"].mark == 1


@pytest.mark.parametrize("column", ["wall_max", "moves", "warnings"])
def test_a_mean_of_what_was_played_never_rewards_failing_fast(cup: TournamentConfig,
                                                               column: str) -> None:
    """A `mean` of a column measured over the moves played (thinking time, moves, warnings)
    with `below:` thresholds: a failed game is short, so it is left out, as for `time`; with
    `at:`, and for a mean score, a failed game counts as the loss it is."""
    scheme = scheme_of(cup, f"""\
        criteria:
          - {{name: played, kind: mean, column: {column}, thresholds: [{{below: 50, points: 1}}]}}
          - {{name: score, kind: mean, column: score, thresholds: [{{at: 0, points: 1}}]}}
        """)
    def played(entrant: str, index: int, outcome: str, value: float) -> dict[str, Any]:
        return {**game(entrant, index, outcome, score=-500 if outcome == "crash" else 100),
                column: value}

    games = table([played("alpha", 0, "crash", 0), played("alpha", 1, "loss", 60)],
                  [played("beta", i, "crash", 0) for i in range(2)])
    marks = by_team(evaluate(scheme, games, cup, None))
    assert [g.points for g in marks["alpha"].given] == [0, 0]
    assert "60 (over the 1 game it did not fail): 0" in marks["alpha"].reason
    assert marks["beta"].reason.startswith("no game finished without a failure of its own: 0")
    assert marks["beta"].mark == 0
    # Where more is better, the failed game's short count stays in: failing before a bad end
    # (a crash at move 0 rather than a game of 30 moves) must not pay either.
    at = scheme_of(cup, f"""\
        criteria:
          - {{name: played, kind: mean, column: {column}, thresholds: [{{at: 50, points: 1}}]}}
        """)
    games = table([played("alpha", 0, "crash", 0), played("alpha", 1, "loss", 60)])
    assert by_team(evaluate(at, games, cup, None))["alpha"].mark == 0  # a mean of 30


# ---- gates, caps, penalties ------------------------------------------------------------------


def test_the_course_scheme_gates(cup: TournamentConfig, course: Scheme) -> None:
    quick = {"wall": 0.05}
    games = table(
        record("alpha", 10, **quick),                       # everything: 6
        record("beta", 4, **quick),                          # fewer than 5 wins: 1
        [*record("gamma", 9, n=9, **quick), game("gamma", 9, "timeout", **quick)],  # 0
        record("greedy", 10),                                # a baseline: never marked
        # Games on another layout are not the question's.
        record("beta", 10, layout="testClassic"),
    )
    marks = by_team(evaluate(course, games, cup, None))
    assert set(marks) == {"alpha", "beta", "gamma"}
    assert marks["alpha"].mark == 6
    assert marks["alpha"].reason == ("wins 10/10: +3 (>= 10); mean score 1000: +2 (>= 1000); "
                                     "thinking time 2 s per game: +1 (< 30 s)")
    assert marks["beta"].mark == 1
    assert marks["beta"].reason == (
        "wins 4/10: +1 (>= 1); wins 4/10: needs at least 5 wins; mean score 220: 0 (needs a "
        "mean score >= 500); thinking time 2 s per game: 0 (only with at least 5 wins)")
    assert marks["gamma"].mark == 0
    assert marks["gamma"].reason == (
        "failure in 1 of 10 games (timeout 1): needs no failure; wins 9/10: 0 (only with no "
        "failure); mean score 870: 0 (only with no failure); thinking time 2 s per game (over "
        "the 9 games it did not fail): 0 (only with no failure)")
    points = {g.criterion: (g.points, g.met, g.counted) for g in marks["gamma"].given}
    assert points["wins"] == (0, True, False) and points["no-failure"] == (0, False, False)


def test_the_course_scheme_gives_a_crash_what_it_gives_a_time_out(
        cup: TournamentConfig, course: Scheme) -> None:
    """Found by the eighth hostile review: gated on time-outs alone, the course's scheme let
    an agent that raises when it would run long keep its wins, score and time points (4 of 6
    where the same agent, honestly slow, got 0). Any failure of the team's own is the gate:
    as in the course, whose autograder stops at an exception as at a time-out."""
    quick = {"wall": 0.05}
    for failure in ("timeout", "crash", "illegal_action", "memory"):
        games = table([*record("alpha", 9, n=9, **quick), game("alpha", 9, failure, **quick)])
        [mark] = [m for m in evaluate(course, games, cup, None) if m.team == "alpha"]
        assert mark.mark == 0, (failure, mark.reason)
        assert mark.reason.startswith(f"failure in 1 of 10 games ({failure} 1): needs no "
                                      "failure;"), mark.reason
    # A ghost's failure is not the team's.
    games = table([*record("alpha", 9, n=9, **quick), game("alpha", 9, "crash", culprit=1,
                                                            **quick)])
    [mark] = [m for m in evaluate(course, games, cup, None) if m.team == "alpha"]
    assert mark.mark == 4 and mark.reason.startswith("wins 9/10: +2"), mark.reason


@pytest.mark.parametrize("wins", range(11))
def test_points_per_each_count_every_whole_unit_reached(cup: TournamentConfig,
                                                        wins: int) -> None:
    """A win rate of 3/10 holds three whole tenths, although 0.3 / 0.1 is 2.9999999999999996
    in floating point: every unit reached counts."""
    scheme = scheme_of(cup, """\
        criteria:
          - {name: rate, kind: mean, column: win, each: 0.1, points: 1, max: 10}
        """)
    mark = by_team(evaluate(scheme, table(record("alpha", wins)), cup, None))["alpha"]
    assert mark.mark == wins


def test_caps_per_criterion_and_on_the_total(cup: TournamentConfig) -> None:
    scheme = scheme_of(cup, """\
        out_of: 4
        max: 4
        criteria:
          - {name: per-win, kind: wins, each: 1, points: 0.5, max: 3}
          - {name: score, kind: mean, column: score, each: 250, points: 1, max: 2}
        """)
    games = table(record("alpha", 10), record("beta", 3), record("gamma", 0))
    marks = by_team(evaluate(scheme, games, cup, None))
    assert marks["alpha"].reason == ("wins 10/10: +3 (+0.5 per 1, at most 3); mean score "
                                     "1000: +2 (+1 per 250, at most 2); total capped at 4")
    assert (marks["alpha"].total, marks["alpha"].mark) == (4, 4)
    assert marks["beta"].reason == "wins 3/10: +1.5 (+0.5 per 1); mean score 90: 0 (needs a " \
                                   "mean score >= 250)"
    assert marks["gamma"].mark == 0  # a negative mean gives no negative points
    assert scheme_of(cup, """\
        criteria:
          - {name: per-win, kind: wins, each: 1, points: 0.5, max: 3}
          - {name: clean, kind: no_failures, points: 1}
        """).out_of == 4


def late_manifest(seconds: dict[str, float]) -> Manifest:
    return Manifest(teams=tuple(
        TeamRecord(team=team, name=team, members=(), source="test", submitted_at=None,
                   late=late > 0, late_seconds=late, files={}, commit=None,
                   changed_at="2025-01-01T00:00:00+00:00")
        for team, late in seconds.items()))


@pytest.mark.parametrize("late,units,taken", [(0, 0, 0), (1, 1, 0.1), (86400, 1, 0.1),
                                              (86401, 2, 0.2), (10 * 86400, 10, 0.3)])
def test_a_fraction_per_started_day_with_a_maximum(cup: TournamentConfig, late: float,
                                                   units: int, taken: float) -> None:
    scheme = scheme_of(cup, WINS + "late: {per: day, fraction: 0.1, max: 0.3}\n")
    manifest = late_manifest({"alpha": late})
    mark = by_team(evaluate(scheme, table(record("alpha", 10)), cup, manifest))["alpha"]
    assert mark.total == 3 and mark.penalty == pytest.approx(3 * taken)
    assert mark.mark == pytest.approx(3 * (1 - taken))
    if units:
        days = f"{units} started day{'s' if units > 1 else ''}"
        assert mark.reason.endswith(f"({days}): -{taken * 100:g}% (-{3 * taken:.3g})")
    else:
        assert "late" not in mark.reason


def test_points_per_started_hour_never_below_zero(cup: TournamentConfig) -> None:
    scheme = scheme_of(cup, WINS + "late: {per: hour, points: 1, max: 5}\n")
    manifest = late_manifest({"alpha": 3600 * 2 + 60, "beta": 3600 * 30})
    marks = by_team(evaluate(scheme, table(record("alpha", 10), record("beta", 1),
                                            record("gamma", 10)), cup, manifest))
    assert marks["alpha"].mark == 0 and marks["alpha"].penalty == 3
    assert marks["alpha"].reason.endswith("late by 2 h 01 min (3 started hours): -3")
    # At most 5 points, and never more than the team has.
    assert marks["beta"].penalty == 1 and marks["beta"].mark == 0
    assert marks["beta"].reason.endswith("late by 1 d 6 h 00 min (30 started hours): -5")
    # gamma has no record in the manifest: on time.
    assert marks["gamma"].mark == 3 and "late" not in marks["gamma"].reason


def test_a_submission_marked_late_without_seconds_is_charged_one_started_unit(
        cup: TournamentConfig) -> None:
    """Canvas's LATE mark on a submission whose time says it was on time: the manifest says
    late with 0 seconds. Late is late: at least one started day is charged."""
    scheme = scheme_of(cup, WINS + "late: {per: day, fraction: 0.5}\n")
    manifest = Manifest(teams=(TeamRecord(
        team="alpha", name="alpha", members=(), source="canvas: x", submitted_at=None,
        late=True, late_seconds=0.0, files={}, commit=None,
        changed_at="2025-01-01T00:00:00Z"),))
    mark = by_team(evaluate(scheme, table(record("alpha", 10)), cup, manifest))["alpha"]
    assert (mark.total, mark.penalty, mark.mark) == (3, 1.5, 1.5)
    assert mark.reason.endswith("marked late, by how much unknown (1 started day): -50% (-1.5)")


def test_a_team_without_current_games_gets_0_saying_so(cup: TournamentConfig,
                                                        course: Scheme) -> None:
    games = table(record("alpha", 10), record("greedy", 3),
                  [game("beta", 0, "infra_error", score=0)])
    marks = by_team(evaluate(course, games, cup, late_manifest({"beta": 99999})))
    for team in ("beta", "gamma"):
        assert marks[team].mark == 0 and marks[team].games == 0
        assert marks[team].reason == "no games played yet with its current files: 0"
    # Games of another layout are games: the filter's own words say none count.
    scheme = scheme_of(cup, """\
        criteria:
          - {name: big, kind: wins, thresholds: [{at: 1, points: 1}],
             games: {layout: testClassic}}
        """)
    alpha = by_team(evaluate(scheme, games, cup, None))["alpha"]
    assert alpha.reason == "no games on testClassic: 0 (needs at least 1 win on testClassic)"


# ---- relative criteria ---------------------------------------------------------------------


BEATS = textwrap.dedent("""\
    criteria:
      - {name: beats-greedy, kind: beats, entrant: greedy, points: 2}
      - {name: outscores-greedy, kind: beats, entrant: greedy, by: mean_score, points: 1}
    """)


def test_beating_a_baseline_on_paired_games(cup: TournamentConfig) -> None:
    games = table(
        record("greedy", 0, n=20),
        record("alpha", 18, n=20),   # a clear win, on the same 20 games
        record("gamma", 0, n=20),    # the same results as greedy: nothing to tell them apart
    )
    marks = by_team(evaluate(scheme_of(cup, BEATS), games, cup, None))
    assert marks["alpha"].mark == 3
    assert marks["alpha"].reason == (
        "win rate 90% against greedy's 0% on the same 20 games (difference +90 points, 95% "
        "interval [+75, +100]): +2 (beats greedy); mean score 870 against greedy's -300 on "
        "the same 20 games (difference +1170, 95% interval [+975, +1300]): +1 (beats greedy)")
    assert marks["gamma"].mark == 0
    assert marks["gamma"].reason.startswith(
        "win rate 0% against greedy's 0% on the same 20 games (difference +0 points, 95% "
        "interval [+0, +0]): 0 (needs a win rate above greedy's by the whole interval); ")


def test_a_tie_whose_interval_includes_0_does_not_beat(cup: TournamentConfig) -> None:
    """Each side wins 10 of the same 20 games, on different seeds: the win rates are equal;
    and a team that wins 2 more of 20 games is not clearly better either."""
    greedy = [game("greedy", i, "win" if i % 2 else "loss") for i in range(20)]
    tie = [game("alpha", i, "loss" if i % 2 else "win") for i in range(20)]
    near = [game("beta", i, "win" if i % 2 or i < 4 else "loss") for i in range(20)]
    marks = by_team(evaluate(scheme_of(cup, BEATS), table(greedy, tie, near), cup, None))
    assert [(g.met, g.points) for g in marks["alpha"].given] == [(False, 0), (False, 0)]
    assert marks["alpha"].reason.startswith(
        "win rate 50% against greedy's 50% on the same 20 games (difference +0 points, 95% "
        "interval [-50, +50]): 0 (needs a win rate above greedy's by the whole interval)")
    assert [(g.met, g.points) for g in marks["beta"].given] == [(False, 0), (False, 0)]
    assert marks["beta"].reason.startswith(
        "win rate 60% against greedy's 50% on the same 20 games (difference +10 points, 95% "
        "interval [+0, +25]): 0")


def test_games_are_paired_by_cell_and_index(cup: TournamentConfig) -> None:
    """Only the games both played count: greedy's games on testClassic and alpha's extra
    games have no partner."""
    games = table(record("greedy", 0, n=8),
                  record("greedy", 8, n=8, layout="testClassic"),
                  record("alpha", 12, n=12))
    reason = by_team(evaluate(scheme_of(cup, BEATS), games, cup, None))["alpha"].reason
    assert reason.startswith("win rate 100% against greedy's 0% on the same 8 games")


def test_the_interval_s_confidence_comes_from_the_scheme_or_the_config(
        cup: TournamentConfig) -> None:
    assert scheme_of(cup, BEATS).criteria[0].rule.confidence == 0.95  # type: ignore[union-attr]
    own = scheme_of(cup, "confidence: 0.8\n" + BEATS)
    assert own.criteria[0].rule.confidence == 0.8  # type: ignore[union-attr]
    games = table(record("greedy", 0, n=20), record("alpha", 18, n=20))
    assert "80% interval" in by_team(evaluate(own, games, cup, None))["alpha"].reason


def test_rank_bands(tmp_path: Path) -> None:
    config = make_config(tmp_path, teams=("a1", "a2", "a3", "a4", "a5"))
    games = table(record("a1", 40, n=40), record("a2", 30, n=40), record("a3", 28, n=40),
                  record("a4", 5, n=40), record("a5", 0, n=40), record("greedy", 39, n=40))
    scheme = scheme_of(config, """\
        criteria:
          - {name: rank, kind: rank, bands: [{top: 1, points: 2}, {top: 40%, points: 1}]}
          - {name: overall, kind: rank, among: all, bands: [{top: 1, points: 1}]}
          - {name: grouped, kind: rank, position: group, bands: [{top: 2, points: 1}]}
        """)
    marks = by_team(evaluate(scheme, games, config, None))
    points = {team: [g.points for g in mark.given] for team, mark in marks.items()}
    # Among teams: a1 first, a2 within the top 40% of 5 (positions 1-2). Among all, greedy
    # (39 of 40) is second. a2 and a3 (30 and 28 of 40) have overlapping intervals, so they
    # share the rank group 2-3, whose first position is in the top 2; a4 and a5 share 4-5.
    assert points == {"a1": [2, 1, 1], "a2": [1, 0, 1], "a3": [0, 0, 1], "a4": [0, 0, 0],
                      "a5": [0, 0, 0]}
    assert marks["a2"].reason.startswith("rank 2 of 5 teams: +1 (top 40%); rank 3 of 6 "
                                         "entrants: 0 (needs a rank in the top 1)")
    assert "rank 2-3 of 5 teams: +1 (top 2)" in marks["a3"].reason
    assert "rank 4-5 of 5 teams: 0 (needs a rank in the top 2)" in marks["a5"].reason


def test_equal_results_share_a_position_whatever_the_names(tmp_path: Path) -> None:
    """Found by the tenth hostile review: two teams with equal results were ranked by name,
    and the band went to the name that sorts first (a team renamed `aaron` took it). Equal
    teams share the first of their positions, for ranks and ratings alike."""
    config = make_config(tmp_path, teams=("zed", "amy", "mid"), matches=True)
    scheme = scheme_of(config, """\
        criteria:
          - {name: rank, kind: rank, bands: [{top: 1, points: 1}]}
          - {name: rated, kind: rating, bands: [{top: 1, points: 1}]}
        """)
    games = table(record("zed", 8, n=10), record("amy", 8, n=10), record("mid", 5, n=10),
                  match_games("zed", 7), match_games("amy", 7), match_games("mid", 2))
    marks = by_team(evaluate(scheme, games, config, None))
    assert {team: [g.points for g in mark.given] for team, mark in marks.items()} == {
        "zed": [1, 1], "amy": [1, 1], "mid": [0, 0]}
    assert "rank 1 of 3 teams: +1" in marks["zed"].reason
    assert ", rank 3 of 3 teams" in marks["mid"].reason


def match_games(pacman: str, wins: int, n: int = 10) -> list[dict[str, Any]]:
    return [game(pacman, i, "win" if i < wins else "loss", ghost_entrant="chasers")
            for i in range(n)]


def test_rating_bands_and_thresholds(tmp_path: Path) -> None:
    config = make_config(tmp_path, matches=True)
    games = table(match_games("alpha", 9), match_games("beta", 5), match_games("gamma", 1),
                  match_games("greedy", 10))
    scheme = scheme_of(config, """\
        criteria:
          - {name: rated, kind: rating, bands: [{top: 1, points: 2}],
             thresholds: [{at: 0, points: 1}]}
          - {name: ghosts, kind: rating, side: ghosts, among: all, bands: [{top: 1, points: 1}]}
        """)
    marks = by_team(evaluate(scheme, games, config, None))
    assert [g.points for g in marks["alpha"].given] == [2, 0]
    assert marks["alpha"].reason.startswith("Pacman rating +")
    assert ", rank 1 of 3 teams: +2 (top 1)" in marks["alpha"].reason
    # beta took half the points from the anchor's team, and the prior pulls the anchor, whose
    # other games went badly, further down: beta is just above 0, gamma below.
    assert re.match(r"Pacman rating \+\d+ \[-\d+, \+\d+\], rank 2 of 3 teams: \+1 \(>= 0\); ",
                    marks["beta"].reason), marks["beta"].reason
    assert [g.points for g in marks["gamma"].given] == [0, 0]
    assert "rank 3 of 3 teams: 0 (needs a Pacman rating in the top 1 or >= 0)" in \
        marks["gamma"].reason
    # The teams play no ghosts here: no ghost rating.
    assert marks["gamma"].reason.endswith("no ghost team rating (no games): 0 (needs a ghost "
                                          "team rating in the top 1)")
    # Without a scored match game there are no ratings: refused, not every team's 0 (the
    # review of the change that refused unlinked games; all the platform's infra_error too).
    with pytest.raises(UnmarkableError, match="criterion 'rated': no scored match games"):
        evaluate(scheme, table(record("alpha", 3)), config, None)
    broken = [{**g, "outcome": "infra_error"} for g in match_games("alpha", 3)]
    with pytest.raises(UnmarkableError, match="no scored match games"):
        evaluate(scheme, table(record("alpha", 3), broken), config, None)


def test_thresholds_on_ratings_anchored_at_a_team_are_refused(tmp_path: Path) -> None:
    """Found by the sixteenth hostile review: a team as the anchor (required without a ghost
    baseline) moves every rating with its own games; its ghosts forfeiting every game put
    each Pacman's rating, its own too, over `at: 0`. Bands of the order are not moved."""
    folder = tmp_path / "submissions" / "haunt"
    folder.mkdir(parents=True)
    (folder / "ghosts.py").write_text(
        "class G:\n    def __init__(self, index):\n        self.index = index\n"
        "    def getAction(self, state):\n        return 'Stop'\n")
    (folder / "team.yaml").write_text("ghost: ghosts.py:G\n")
    (tmp_path / "t.yaml").write_text(textwrap.dedent("""\
        name: Cup
        entrants:
          submissions: submissions
          baselines: [{name: greedy, agent: GreedyAgent}]
        grid: {layouts: [testClassic], ghosts: []}
        matches: {anchor: haunt}
        output: out
        """))
    config = load_config(tmp_path / "t.yaml")
    with pytest.raises(SchemeError, match=r"criteria\[0\]\.thresholds: .*the team 'haunt'"):
        scheme_of(config, """\
            criteria:
              - {name: rated, kind: rating, thresholds: [{at: 0, points: 1}]}
            """)
    banded = scheme_of(config, """\
        criteria:
          - {name: rated, kind: rating, among: all, bands: [{top: 1, points: 1}]}
        """)
    assert banded.criteria[0].name == "rated"


def test_match_games_that_give_no_ratings_are_refused_not_marked_0(tmp_path: Path) -> None:
    """Found by the sixteenth hostile review: when the match games split into groups no game
    links, the fit gives no ratings, and every team, linked to the anchor or not, was marked
    0 on the criterion with exit 0. Refused instead, saying why."""
    config = make_config(tmp_path, matches=True)
    games = table(match_games("alpha", 6), match_games("gamma", 4),
                  [{**g, "ghost_entrant": "lonely"} for g in match_games("beta", 5)])
    scheme = scheme_of(config, """\
        criteria:
          - {name: rated, kind: rating, thresholds: [{at: 0, points: 1}]}
        """)
    with pytest.raises(UnmarkableError, match=r"criterion 'rated'.*give no Pacman ratings.*"
                                              r"do not connect"):
        evaluate(scheme, games, config, None)


# ---- per student, and the files ------------------------------------------------------------


def test_a_row_per_student_and_the_csv_files(cup: TournamentConfig, course: Scheme,
                                              tmp_path: Path) -> None:
    manifest = Manifest(teams=(
        TeamRecord(team="alpha", name="Alpha", source="canvas: x.zip: a",
                   members=(Member("s1", "Ada L."), Member("s2", "=HYPERLINK(\"x\")")),
                   submitted_at=None, late=False, late_seconds=0, files={}, commit=None,
                   changed_at="2025-01-01T00:00:00+00:00"),
        TeamRecord(team="beta", name="Beta", source="git: u", members=(), submitted_at=None,
                   late=False, late_seconds=0, files={}, commit=None,
                   changed_at="2025-01-01T00:00:00+00:00"),
    ))
    marks = evaluate(course, table(record("alpha", 10), record("beta", 4)), cup, manifest)
    students = student_table(marks, cup, manifest)
    write_csv(students, tmp_path / "marks.csv")
    write_csv(team_table(marks, course), tmp_path / "marks-teams.csv")
    with open(tmp_path / "marks.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == list(STUDENT_COLUMNS)
    assert [row[:5] for row in rows[1:]] == [
        ["s1", "Ada L.", "alpha", "6.0", "6.0"],
        ["s2", "'=HYPERLINK(\"x\")", "alpha", "6.0", "6.0"],   # text, never a formula
        ["", "", "beta", "1.0", "6.0"],     # no members listed
        ["", "", "gamma", "0.0", "6.0"],    # not in the manifest (and no games)
    ]
    assert rows[4][5] == "no games played yet with its current files: 0"
    assert rows[3][5].startswith("wins 4/10: +1 (>= 1); ")
    with open(tmp_path / "marks-teams.csv", newline="", encoding="utf-8") as fh:
        teams = list(csv.reader(fh))
    assert teams[0] == ["team", "no-failure", "wins", "five-wins", "score", "time",
                        *TEAM_COLUMNS[1:]]
    assert teams[1][:10] == ["alpha", "0.0", "3.0", "0.0", "2.0", "1.0", "6.0", "0.0", "6.0",
                             "6.0"]
    assert teams[2][:10] == ["beta", "0.0", "1.0", "0.0", "0.0", "0.0", "1.0", "0.0", "1.0",
                             "6.0"]


def test_students_with_no_collected_submission_get_a_row_saying_why(
        cup: TournamentConfig, course: Scheme) -> None:
    record_alpha = TeamRecord(team="alpha", name="Alpha", source="s", members=(Member("s1"),),
                              submitted_at=None, late=False, late_seconds=0, files={},
                              commit=None, changed_at="2025-01-01T00:00:00+00:00")
    manifest = Manifest(teams=(record_alpha,), entries=(
        # alpha's older upload: alpha is marked, s1 is listed once.
        Entry("alpha", "s", "2025-01-01T00:00:00Z", "superseded", "newer", members=(
            Member("s1"),)),
        # s7 only uploaded late (set aside), then a refused archive: the newest says why.
        Entry("zeta", "a", "2025-01-02T00:00:00Z", "late", "after the deadline by 1 d",
              members=(Member("s7", "Zed"),)),
        Entry("zeta", "b", "2025-01-03T00:00:00Z", "refused", "not an archive",
              members=(Member("s7", "Zed"),)),
        # s9 is in no team of the mapping.
        Entry(None, "c", None, "refused", "student s9 is in no team", members=(Member("s9"),)),
    ))
    marks = evaluate(course, table(record("alpha", 10)), cup, manifest)
    rows = student_table(marks, cup, manifest)
    extra = rows[rows["student_id"].isin(["s7", "s9"])]
    assert list(extra["student_id"]) == ["s7", "s9"]
    assert list(extra["team"]) == ["zeta", ""]
    assert list(extra["mark"]) == [0, 0]
    assert list(extra["reason"]) == ["no submission collected: refused: not an archive",
                                     "no submission collected: refused: student s9 is in no team"]
    assert list(rows["student_id"]).count("s1") == 1


def test_a_student_with_a_mark_gets_no_second_row_however_the_export_spells_their_id(
        cup: TournamentConfig, course: Scheme) -> None:
    """The mapping says `S1001` (alpha's member, marked); a Gradescope group upload of theirs
    with a student of another team was refused, naming them as the export spells them,
    `s1001 `. One row for them: alpha's mark, never a second with 0."""
    manifest = Manifest(teams=(TeamRecord(
        team="alpha", name="Alpha", source="s", members=(Member("S1001"),), submitted_at=None,
        late=False, late_seconds=0, files={}, commit=None,
        changed_at="2025-01-01T00:00:00Z"),), entries=(
        Entry(None, "gs: group", "2025-01-02T00:00:00Z", "refused",
              "its submitters are in different teams", members=(Member("s1001 "),
                                                                  Member("s2002"))),
        Entry(None, "gs: other", "2025-01-01T00:00:00Z", "refused", "unknown",
              members=(Member("S2002"),)),
    ))
    marks = evaluate(course, table(record("alpha", 10)), cup, manifest)
    rows = student_table(marks, cup, manifest)
    mine = rows[rows["student_id"].str.strip().str.casefold() == "s1001"]
    assert list(mine["mark"]) == [6]
    # s2002 is listed once too, by the newest of their entries.
    theirs = rows[rows["student_id"].str.casefold() == "s2002"]
    assert list(theirs["reason"]) == [
        "no submission collected: refused: its submitters are in different teams"]


def test_a_student_listed_by_two_teams_is_named(cup: TournamentConfig, course: Scheme) -> None:
    """beta was kept from an earlier collection, when the mapping still placed s1 there; the
    mapping now places s1 in alpha. marks.csv has a row per team for s1: said, by name."""
    def team_record(team: str, *ids: str) -> TeamRecord:
        return TeamRecord(team=team, name=team, source="s", members=tuple(map(Member, ids)),
                          submitted_at=None, late=False, late_seconds=0, files={},
                          commit=None, changed_at="2025-01-01T00:00:00Z")

    manifest = Manifest(teams=(team_record("alpha", "S1", "s2"), team_record("beta", "s1"),
                               team_record("gamma", "s3")))
    marks = evaluate(course, table(record("alpha", 10), record("beta", 2)), cup, manifest)
    rows = student_table(marks, cup, manifest)
    assert students_in_several_teams(rows) == [("S1", ["alpha", "beta"])]


def test_without_a_manifest_each_team_is_one_row(cup: TournamentConfig,
                                                  course: Scheme) -> None:
    marks = evaluate(course, table(record("alpha", 10)), cup, None)
    students = student_table(marks, cup, None)
    assert list(students["team"]) == ["alpha", "beta", "gamma"]
    assert list(students["student_id"]) == ["", "", ""]


# ---- the command, on a real tiny tournament ----------------------------------------------------


def test_the_course_scheme_on_a_real_tiny_tournament(tmp_path: Path) -> None:
    """The example team plays the question's 10 games (smallClassic, two random ghosts,
    depth 2), and a team whose agent never answers times out; `tournament marks` marks them
    by the course scheme, one row per student of the manifest, and the good team's mark is
    the one the course's rules give its stored games."""
    from tests.test_sandbox_zoo import UNAVAILABLE
    from tests.test_tournament_run import make_tournament, tournament

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    config_path = make_tournament(tmp_path, {"good": "example", "stuck": "infinite_loop"},
                                  games=10, layouts="[smallClassic]")
    # The question's games: smallClassic with two random ghosts, depth 2.
    text = config_path.read_text().replace("depths: [1]", "depths: [2]").replace(
        "count: 1", "count: 2").replace("max_moves: 200", "max_moves: 3000")
    config_path.write_text(text)
    subs = tmp_path / "submissions"
    write_manifest(subs, Manifest(teams=(
        TeamRecord(team="good", name="Good", source="test", submitted_at=None, late=True,
                   late_seconds=3600, files={}, commit=None,
                   changed_at="2025-01-01T00:00:00+00:00",
                   members=(Member("s1", "Ada"), Member("s2", "Grace"))),
    )))
    scheme = tmp_path / "q5.yaml"
    scheme.write_text(COURSE_SCHEME.read_text() + "late: {per: day, fraction: 0.1}\n")

    tournament("run", str(config_path))
    # A team that comes after the run has no games: it gets 0, and the command says so.
    shutil.copytree(REPO / "submissions" / "example-team", subs / "newcomer")
    ran = tournament("marks", str(config_path), "--scheme", str(scheme))
    assert "warning: team newcomer has no current games, so its mark is 0" in ran.stdout
    assert ("warning: 10 of 40 games are not played yet (missing, stale or to retry) and "
            f"count for no one; tournament run {config_path} plays them") in ran.stdout
    out = tmp_path / "out"
    games = pd.read_csv(out / "games.csv")
    good = games[games["entrant"] == "good"]
    assert len(good) == 10
    # The course's rules, applied here by hand to the stored games.
    wins = int(good["win"].sum())
    mean = good["score"].mean()
    own_failures = good["outcome"].isin(FAILURES) & (good["culprit"] == 0)
    seconds = (good["wall_mean"] * ((good["moves"] / 3).apply(math.ceil) + own_failures)).mean()
    expected = 0.0
    if wins >= 1 and not own_failures.any():  # any failure of its own: 0 for the question
        expected = 1 + (2 if wins == 10 else 1 if wins >= 5 else 0)
        if wins >= 5:
            expected += (2 if mean >= 1000 else 1 if mean >= 500 else 0)
            expected += 1 if seconds < 30 else 0
    expected = round(expected * 0.9, 4)  # an hour late: one started day, -10%
    with open(out / "marks.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["student_id"], r["student_name"], r["team"]) for r in rows] == [
        ("s1", "Ada", "good"), ("s2", "Grace", "good"), ("", "", "newcomer"),
        ("", "", "stuck")]
    assert rows[2]["reason"] == "no games played yet with its current files: 0"
    assert float(rows[0]["mark"]) == pytest.approx(expected)
    # Its games are timed by the wall clock: on a loaded machine one may time out, and the
    # reason then starts with that failure (the mark above follows it either way).
    failed = int(own_failures.sum())
    assert rows[0]["reason"].startswith(
        f"failure in {failed} of 10 games" if failed else f"wins {wins}/10: ")
    assert f"wins {wins}/10: " in rows[0]["reason"]
    assert rows[0]["reason"].endswith("late by 1 h 00 min (1 started day): -10%"
                                      + (f" (-{_fig(expected / 9)})" if expected else ""))
    assert float(rows[0]["out_of"]) == 6
    stuck = rows[3]
    assert float(stuck["mark"]) == 0
    assert stuck["reason"].startswith(
        "failure in 10 of 10 games (timeout 10): needs no failure; wins 0/10: 0 (needs at "
        "least 1 win)")
    # Baselines are never marked; the teams' table has a column per criterion.
    with open(out / "marks-teams.csv", newline="", encoding="utf-8") as fh:
        teams = list(csv.DictReader(fh))
    assert [t["team"] for t in teams] == ["good", "newcomer", "stuck"]
    assert float(teams[0]["mark"]) == pytest.approx(expected)
    assert "good" in ran.stdout and "stuck" in ran.stdout
    assert f"wrote {out / 'marks.csv'} (4 rows), marks-teams.csv (3 teams)" in ran.stdout

    # --out: both files there, the teams' named after it.
    tournament("marks", str(config_path), "--scheme", str(scheme), "--out",
               str(tmp_path / "lms" / "q5.csv"))
    with open(tmp_path / "lms" / "q5.csv", newline="", encoding="utf-8") as fh:
        assert list(csv.DictReader(fh)) == rows
    assert (tmp_path / "lms" / "q5-teams.csv").read_bytes() == \
        (out / "marks-teams.csv").read_bytes()
    # Again: a marks table of ours is replaced. Found by the fourteenth hostile review: any
    # other file was too (the results store, a team's agent), so a slip of --out lost the
    # results. An existing file that is no marks table, or a path where an agent plays from,
    # is now refused: exit 2, nothing written or replaced.
    tournament("marks", str(config_path), "--scheme", str(scheme), "--out",
               str(tmp_path / "lms" / "q5.csv"))
    agent_file = subs / "good" / "multiAgents.py"
    before = {path: path.read_bytes()
              for path in (out / "results.sqlite", agent_file, config_path, scheme)}
    for target, why in ((out / "results.sqlite", "exists and is not a marks table"),
                        (agent_file, "is inside the folder of entrant good"),
                        (subs / "good" / "marks.csv", "is inside the folder of entrant good"),
                        (config_path, "exists and is not a marks table"),
                        (scheme, "exists and is not a marks table")):
        refused = tournament("marks", str(config_path), "--scheme", str(scheme), "--out",
                             str(target), check=False)
        assert refused.returncode == 2, (target, refused.stdout)
        assert f"--out: {target}" in refused.stderr and why in refused.stderr, refused.stderr
        assert {path: path.read_bytes() for path in before} == before
        assert not (subs / "good" / "marks.csv").exists()
        assert not list(subs.glob("good/*-teams*"))

    # A bad scheme: exit 2, every problem with its key path, nothing written.
    (out / "marks.csv").unlink()
    (out / "marks-teams.csv").unlink()
    scheme.write_text("criteria:\n  - {name: a, kind: wins, thresholds: [{at: x, points: 1}]}\n"
                      "  - {name: b, kind: beats, entrant: nobody, points: 1}\n")
    bad = tournament("marks", str(config_path), "--scheme", str(scheme), "--out",
                     str(tmp_path / "elsewhere" / "m.csv"), check=False)
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert f"{scheme}: criteria[0].thresholds[0].at: expected a number, got 'x'" in bad.stderr
    assert f"{scheme}: criteria[1].entrant: unknown entrant 'nobody'" in bad.stderr
    assert not (out / "marks.csv").exists() and not (tmp_path / "elsewhere").exists()


def _fig(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


@pytest.mark.parametrize("late", ["NaN", "Infinity", "-5", "true"])
def test_a_manifest_whose_lateness_is_no_number_of_seconds_is_refused(
        tmp_path: Path, late: str) -> None:
    """A manifest is JSON, which Python reads with NaN and Infinity: a late penalty made of
    them is no mark (math.ceil raised), so the manifest is refused, naming the field."""
    record = TeamRecord(team="alpha", name="alpha", members=(), source="s", submitted_at=None,
                        late=True, late_seconds=1.0, files={}, commit=None,
                        changed_at="2025-01-01T00:00:00Z")
    write_manifest(tmp_path, Manifest(teams=(record,)))
    path = tmp_path / "manifest.json"
    path.write_text(path.read_text().replace('"late_seconds": 1.0', f'"late_seconds": {late}'))
    with pytest.raises(ManifestError, match="late_seconds: expected a number"):
        read_manifest(tmp_path)


def test_a_ghost_only_teams_change_after_the_draws_refuses_marks_too(tmp_path: Path) -> None:
    """Found by the fourteenth hostile review: the check that no team's files changed after
    the seed's first run looked at Pacman entrants only, so a team playing ghosts only could
    resubmit once the draws were out, see its match games drawn anew and keep the better
    ones, and be marked. Its change now refuses the marks as a Pacman team's does."""
    from tests.test_sandbox_zoo import UNAVAILABLE
    from tests.test_tournament_run import make_tournament, tournament

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    config_path = make_tournament(tmp_path, {"good": "example"}, games=1,
                                  layouts="[testClassic]")
    subs, out = tmp_path / "submissions", tmp_path / "out"
    (subs / "spooky").mkdir()
    shutil.copy(subs / "good" / "ghostAgents.py", subs / "spooky")
    (subs / "spooky" / "team.yaml").write_text("ghost: ghostAgents.py:ExampleGhost\n")
    text = config_path.read_text().replace(
        "      agent: GreedyAgent\n",
        "      agent: GreedyAgent\n  ghost_baselines:\n    - {name: random, agent: RandomGhost}\n")
    config_path.write_text(text + "matches: {ghosts: 1, games: 1}\n")
    tournament("run", str(config_path))
    config = load_config(config_path)
    assert [e.name for e in config.ghost_entrants if e.kind == "team"] == ["good", "spooky"]
    assert "spooky" not in [e.name for e in config.entrants]

    def record(team: str, changed_at: str) -> TeamRecord:
        return TeamRecord(team=team, name=team, source="test", submitted_at=None, late=False,
                          late_seconds=0, files={}, commit=None, changed_at=changed_at,
                          members=(Member(f"s-{team}", team),))

    (tmp_path / "wins.yaml").write_text(
        "criteria: [{name: wins, kind: wins, thresholds: [{at: 1, points: 1}]}]\n")
    scheme = ["--scheme", str(tmp_path / "wins.yaml")]
    early = "2025-01-01T00:00:00+00:00"
    # The deadline passed before the seed's first run; no team changed since: marked.
    write_manifest(subs, Manifest(teams=(record("good", early), record("spooky", early)),
                                  deadline="2020-01-01T00:00:00Z"))
    tournament("marks", str(config_path), *scheme)
    (out / "marks.csv").unlink()
    # The ghost-only team's files changed after that run: refused, nothing written.
    write_manifest(subs, Manifest(
        teams=(record("good", early), record("spooky", "2999-01-01T00:00:00Z")),
        deadline="2020-01-01T00:00:00Z"))
    ran = tournament("marks", str(config_path), *scheme, check=False)
    assert ran.returncode == 2, ran.stderr
    assert "team spooky's files changed on 2999-01-01T00:00:00Z, after run " in ran.stderr
    assert not (out / "marks.csv").exists()


def test_no_results_yet_or_a_bad_manifest_is_an_error_that_writes_nothing(
        tmp_path: Path) -> None:
    from tests.test_tournament_run import tournament

    config = make_config(tmp_path)
    assert config.source is not None
    ran = tournament("marks", str(config.source), "--scheme", str(COURSE_SCHEME), check=False)
    assert ran.returncode == 2
    assert f"no results in {config.output} yet" in ran.stderr
    assert not config.output.exists()
    (tmp_path / "submissions" / "manifest.json").write_text("{")
    ran = tournament("marks", str(config.source), "--scheme", str(COURSE_SCHEME), check=False)
    assert ran.returncode == 2
    assert "manifest.json: not a manifest (invalid JSON" in ran.stderr
    assert not config.output.exists()


def test_marks_after_the_deadline_refuse_games_whose_draws_were_published_before_it(
        tmp_path: Path) -> None:
    """Found by the seventh hostile review: results are published every night until the
    deadline, and a game's draws follow from its seed, the secret and the team's files, so a
    team that submitted versions differing by a comment could submit again the files of its
    luckiest night and get those very games back for its marks. After the deadline, `marks`
    refuses games on a master seed that a run played before it (exit 2, nothing written),
    until the seed is changed and the games played again."""
    import sqlite3

    from tests.test_sandbox_zoo import UNAVAILABLE
    from tests.test_tournament_run import make_tournament, tournament
    from tournament.store import seed_key

    if UNAVAILABLE:
        pytest.skip(f"no sandbox here: {UNAVAILABLE}")
    config_path = make_tournament(tmp_path, {"good": "example"}, games=1, layouts="[testClassic]")
    subs, out = tmp_path / "submissions", tmp_path / "out"
    record = TeamRecord(team="good", name="Good", source="test", submitted_at=None, late=False,
                        late_seconds=0, files={}, commit=None,
                        changed_at="2025-01-01T00:00:00+00:00", members=(Member("s1", "Ada"),))
    write_manifest(subs, Manifest(teams=(record,), deadline="2999-01-01T00:00:00Z"))
    (tmp_path / "wins.yaml").write_text(
        "criteria: [{name: wins, kind: wins, thresholds: [{at: 1, points: 1}]}]\n")
    scheme = ["--scheme", str(tmp_path / "wins.yaml")]
    tournament("run", str(config_path))
    tournament("marks", str(config_path), *scheme)  # before the deadline: a preview
    # The deadline has passed, and the seed was first played before it.
    write_manifest(subs, Manifest(teams=(record,), deadline="2020-01-01T00:00:00Z"))
    with sqlite3.connect(out / "results.sqlite") as db:
        db.execute("UPDATE meta SET value = '1 2019-12-31T00:00:00+00:00' WHERE key = ?",
                   (seed_key(11),))
    db.close()
    (out / "marks.csv").unlink()
    ran = tournament("marks", str(config_path), *scheme, check=False)
    assert ran.returncode == 2
    assert ("the games are on master seed 11, which run 1 first played on "
            "2019-12-31T00:00:00+00:00, before the submissions' deadline "
            "(2020-01-01T00:00:00Z)") in ran.stderr
    assert "Freeze the submissions" in ran.stderr and "set a new `seed:`" in ran.stderr
    assert not (out / "marks.csv").exists()
    tournament("marks", str(config_path), *scheme, "--published-seeds")
    assert (out / "marks.csv").exists()
    # A new seed: every game is played again, on draws no one has seen; marks go through.
    config_path.write_text(config_path.read_text().replace("seed: 11", "seed: 12"))
    tournament("run", str(config_path))
    # (A record of a folder the organizer took out of the tournament changes no game.)
    gone = dataclasses.replace(record, team="gone", changed_at="2999-01-01T00:00:00Z")
    write_manifest(subs, Manifest(teams=(record, gone), deadline="2020-01-01T00:00:00Z"))
    tournament("marks", str(config_path), *scheme)
    # Found by the tenth hostile review: a team that can still submit after the deadline
    # (`--late take`, an extension) changes its files once the new seed's draws are out, and
    # keeps the better draw (or puts its files back). Its files changed after the seed's
    # first run: refused again, until a seed is set once no team can submit any more.
    later = dataclasses.replace(record, changed_at="2999-01-01T00:00:00Z")
    write_manifest(subs, Manifest(teams=(later,), deadline="2020-01-01T00:00:00Z"))
    (out / "marks.csv").unlink()
    ran = tournament("marks", str(config_path), *scheme, check=False)
    assert ran.returncode == 2
    assert "team good's files changed on 2999-01-01T00:00:00Z, after run " in ran.stderr
    assert "first played master seed 12" in ran.stderr
    assert not (out / "marks.csv").exists()
    tournament("marks", str(config_path), *scheme, "--published-seeds")
