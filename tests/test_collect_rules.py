"""The rules of `tournament collect` on their own: the mapping's lines and its errors (file
and line), times and deadlines, which team a submission belongs to, lateness, the choice of
each team's submission, Canvas's resubmitted names, junk; and a mapping's bad lines through a
whole collection (a student in two teams, a name that matches no student)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.collect_helpers import agent, make_zip, tree, when, write
from tournament.collect import (
    Candidate,
    Team,
    choose,
    collect,
    impostors,
    lateness,
    resolve_team,
)
from tournament.config import team_entrant_name
from tournament.gather import junk_kind
from tournament.manifest import Member, read_manifest
from tournament.roster import RosterError, parse_roster, read_roster
from tournament.sources import (
    FOLDER,
    GIT,
    GRADESCOPE,
    LooseFiles,
    Student,
    Submission,
    archive_stem,
    restored_name,
)
from tournament.times import TimeProblem, duration_text, parse_time, utc_text

# --- the mapping -----------------------------------------------------------------------------


def test_mapping_reads_teams_members_and_names() -> None:
    roster = parse_roster("\ufeffTeam;Student;Name\r\nNight Shift;S1001;Jane Smith\r\n"
                          "Night Shift; s1002 ;\r\n\r\nalpha;s1003;Ann\r\n", "m.csv")
    assert roster.problems == ()
    night = roster.team_named("night shift")
    assert night is not None
    assert (night.name, night.folder, night.line) == ("Night Shift",
                                                       team_entrant_name("Night Shift"), 2)
    assert night.members == (Member("S1001", "Jane Smith"), Member("s1002", ""))
    assert roster.team_of("s1001") == night  # ids without case or spaces
    assert roster.team_of(" S1002") == night
    assert roster.team_of("s9") is None
    assert roster.team_named("alpha") == roster.team_in("alpha")


def test_mapping_line_problems_name_file_and_line() -> None:
    roster = parse_roster(
        "student,team,name\n"
        "s1,Alpha,Ann\n"          # 2
        "s2,Alpha,Bob\n"          # 3
        "s2,Beta,Bob\n"           # 4: in two teams
        "s3,,Cat\n"               # 5: no team
        ",Beta,Dan\n"             # 6: no student
        "s4,Beta\n"               # 7: a cell short
        "s5,alpha,Eve\n"          # 8: differs from Alpha only in case
        "s1,Alpha,Ann\n",         # 9: listed again
        "mapping.csv")
    assert roster.problems == (
        "mapping.csv:4: student s2 is in two teams in mapping.csv: 'Alpha' (line 3) and "
        "'Beta' (line 4); left out of both, so their uploads are refused until the mapping "
        "says one team",
        "mapping.csv:5: student s3 has no team (the team cell is empty); line left out",
        "mapping.csv:6: no student id; line left out",
        "mapping.csv:7: 2 cells, expected 3 (student, team, name); line left out",
        "mapping.csv:8: team 'alpha' differs from team 'Alpha' (line 2) only in case, so "
        "their folders would be one on some disks; its lines are left out: write the team's "
        "name once, one way",
        "mapping.csv:9: student s1 is listed again in team 'Alpha' (line 2); line ignored",
    )
    assert roster.team_of("s2") is None
    assert roster.doubt_about("S2") == ("student s2 is in two teams in mapping.csv: 'Alpha' "
                                        "(line 3) and 'Beta' (line 4)")
    alpha = roster.team_named("Alpha")
    assert alpha is not None and [m.id for m in alpha.members] == ["s1"]
    assert roster.team_of("s5") is None


@pytest.mark.parametrize(("text", "message"), [
    ("", "m.csv: empty; expected a header line `student,team,name`"),
    ("student,name\ns1,Ann\n", "m.csv:1: no column 'team'; the header must name student, team"),
    ("student,team,email\n", "m.csv:1: unknown column 'email'; expected student, team and "
                             "optionally name"),
    ("student,team,team\n", "m.csv:1: the column 'team' is given twice"),
    ('student,team\n"s1,alpha\n', "m.csv:2: not CSV"),
])
def test_mapping_that_cannot_be_read(text: str, message: str) -> None:
    with pytest.raises(RosterError) as raised:
        parse_roster(text, "m.csv")
    assert str(raised.value).startswith(message)


def test_mapping_file_problems(tmp_path: Path) -> None:
    with pytest.raises(RosterError, match=r"the mapping .*missing\.csv: no such file"):
        read_roster(tmp_path / "missing.csv")
    (tmp_path / "latin.csv").write_bytes("student,team\ns1,Équipe\n".encode("latin-1"))
    with pytest.raises(RosterError, match=r"latin\.csv: not UTF-8 text"):
        read_roster(tmp_path / "latin.csv")


def test_mapping_problems_through_a_collection(tmp_path: Path) -> None:
    """A student in two teams: their upload refused naming both lines; an upload named by no
    student of the mapping: refused; a mapped team's folder from its name."""
    mapping = write(tmp_path / "mapping.csv",
                    b"student,team\ns1,Alpha\ns2,Alpha\ns2,Beta\ns3,Beta\n")
    plain = tmp_path / "uploads"
    make_zip(plain.mkdir() or plain / "s1.zip", {"multiAgents.py": agent("s1")})
    make_zip(plain / "s2.zip", {"multiAgents.py": agent("s2")})
    make_zip(plain / "s9.zip", {"multiAgents.py": agent("s9")})
    make_zip(plain / "Beta.zip", {"multiAgents.py": agent("beta")})
    into = tmp_path / "teams"
    result = collect([plain], into, mapping=mapping)
    assert result.new == ["Alpha", "Beta"]
    assert tree(into / "Beta") == {"multiAgents.py": agent("beta")}
    manifest = read_manifest(into)
    assert manifest is not None
    assert manifest.problems[0].startswith("mapping.csv:4: student s2 is in two teams")
    reasons = {e.source: (e.status, e.reason) for e in manifest.entries}
    assert reasons["folder: uploads: s2.zip"] == (
        "refused", "student s2 is in two teams in mapping.csv: 'Alpha' (line 3) and 'Beta' "
        "(line 4)")
    assert reasons["folder: uploads: s9.zip"] == (
        "refused", "'s9' matches no student or team of mapping.csv (if it is a whole LMS "
        "export, give it to collect as a source of its own)")


# --- times -----------------------------------------------------------------------------------


def test_times() -> None:
    assert utc_text(parse_time("2024-03-01T23:59:00+01:00")) == "2024-03-01T22:59:00Z"
    assert utc_text(parse_time("2024-03-01 21:15:04.930736000 -08:00")) == \
        "2024-03-02T05:15:04Z"
    assert parse_time("2024-03-01T12:00Z") == when("2024-03-01 12:00")
    assert parse_time("2024-03-01 12:00", zone_required=False) == when("2024-03-01 12:00")
    with pytest.raises(TimeProblem, match="has no time zone"):
        parse_time("2024-03-01T12:00:00")
    with pytest.raises(TimeProblem, match="is not a time"):
        parse_time("tomorrow")
    with pytest.raises(TimeProblem, match="is not a time"):
        parse_time("2024-02-30T12:00:00Z")
    assert [duration_text(s) for s in (7, 250, 7500, 3 * 86400 + 3600)] == [
        "7 s", "4 min 10 s", "2 h 05 min", "3 d 1 h 00 min"]


# --- teams, lateness, the choice -------------------------------------------------------------


def submission(**fields: object) -> Submission:
    base: dict[str, object] = {"kind": FOLDER, "source": "s", "files": LooseFiles(())}
    base.update(fields)
    return Submission(**base)  # type: ignore[arg-type]


def test_resolve_team() -> None:
    roster = parse_roster("student,team,name\ns1,Alpha,Ann\ns2,Alpha,\ns3,Beta,Cat\n",
                          "m.csv")
    group = submission(kind=GRADESCOPE, students=(Student("s1", "Ann A"), Student("s2", "Ben")))
    team, warning = resolve_team(group, roster)
    assert (team, warning) == (Team("Alpha", "Alpha", (Member("s1", "Ann"),
                                                      Member("s2", "Ben"))), "")
    split = submission(students=(Student("s1"), Student("s3")))
    assert resolve_team(split, roster) == (
        None, "its submitters are in different teams of m.csv: 'Alpha', 'Beta'")
    # A submitter outside the mapping naming a team's student: refused, never that team's.
    partly = submission(source="gs: x", students=(Student("s1"), Student("s7", "Zed")))
    assert resolve_team(partly, roster) == (
        None, "submitter s7 (Zed) is in no team of m.csv, so this upload of theirs does not "
              "count for team 'Alpha' of its other submitters; add them to m.csv if they "
              "belong to it")
    by_email = submission(students=(Student("x", email="S3"),))
    assert resolve_team(by_email, roster)[0] == Team("Beta", "Beta", (Member("s3", "Cat"),))
    assert resolve_team(submission(team="s3"), roster)[0] == \
        Team("Beta", "Beta", (Member("s3", "Cat"),))
    own_repo = submission(kind=GIT, team="Gamma Ray", students=(Student("s9"),))
    assert resolve_team(own_repo, roster)[0] == Team(team_entrant_name("Gamma Ray"),
                                                     "Gamma Ray", (Member("s9"),))
    # Without a mapping: a group is named by its ids, a source's team is its own.
    assert resolve_team(group, None)[0] == Team("s1+s2", "Ann A, Ben",
                                                (Member("s1", "Ann A"), Member("s2", "Ben")))
    assert resolve_team(submission(team="José García"), None)[0] == Team(
        team_entrant_name("José García"), "José García", ())
    # A folder named as the manifest's files would never be written.
    assert resolve_team(submission(team="manifest.json"), None) == (
        None, "the team's folder would be named manifest.json, which is the manifest's")
    assert resolve_team(submission(team="Manifest.CSV"), None) == (
        None, "the team's folder would be named Manifest.CSV, which is the manifest's")


def test_lateness() -> None:
    deadline = when("2024-03-01 12:00")
    assert lateness(when("2024-03-01 12:00"), deadline, False) == (False, 0.0)
    assert lateness(when("2024-03-01 12:30"), deadline, False) == (True, 1800.0)
    assert lateness(None, deadline, False) == (False, 0.0)
    assert lateness(None, deadline, True) == (True, 0.0)
    assert lateness(when("2024-03-01 12:30"), None, False) == (False, 0.0)


def candidate(team: str, at: str | None, late: bool = False, order: int = 0) -> Candidate:
    sub = submission(source=f"{team}@{at}#{order}",
                     submitted_at=None if at is None else when(at), order=(order, ""))
    return Candidate(sub, Team(team, team, ()), late, 60.0 if late else 0.0)


def test_choose() -> None:
    early, later, tied = (candidate("a", "2024-03-01 10:00"),
                          candidate("a", "2024-03-01 11:00"),
                          candidate("a", "2024-03-01 11:00", order=1))
    late, unknown = candidate("a", "2024-03-02 10:00", late=True), candidate("a", None)
    other = candidate("b", "2024-03-01 09:00")
    plans = choose([early, late, later, other, unknown, tied], "aside")
    assert plans["a"].tries == (tied, later, early, unknown)
    assert plans["a"].aside == (late,)
    assert plans["b"].tries == (other,)
    taken = choose([early, late, later], "take")
    assert taken["a"].tries == (late, later, early) and taken["a"].aside == ()
    with pytest.raises(ValueError):
        choose([], "whenever")


# --- names -----------------------------------------------------------------------------------


def test_restored_names_and_archive_stems() -> None:
    assert restored_name("multiAgents-1.py", {"multiAgents-1.py"}) == "multiAgents.py"
    assert restored_name("submission-12.py", set()) == "submission.py"
    assert restored_name("multiAgents-1.py", {"multiAgents.py"}) == "multiAgents-1.py"
    # Every file Canvas renamed, not only agent files (the fourteenth hostile review).
    assert restored_name("helpers-1.py", set()) == "helpers.py"
    assert restored_name("team-2.yaml", {"team-2.yaml"}) == "team.yaml"
    assert restored_name("team-1.yaml", {"team.yaml"}) == "team-1.yaml"
    assert restored_name("notes-1", set()) == "notes-1"
    # A data file only where the submission's code names the original and not the upload
    # (the seventeenth hostile review: a first upload of `weights-2.json`, opened by that
    # name, was renamed and the team failed to load).
    code = "open(os.path.join(here, 'weights.json'))"
    assert restored_name("weights-1.json", set(), code) == "weights.json"
    assert restored_name("weights-2.json", set(), "open('weights-2.json')") == "weights-2.json"
    assert restored_name("weights-2.json", set()) == "weights-2.json"
    assert restored_name("weights-1.json", {"weights.json"}, code) == "weights-1.json"
    # Whole names only (the review of this change).
    assert restored_name("weights-1.json", set(), "open('myweights.json')") == "weights-1.json"
    assert restored_name("data-1.csv", set(), "open('data.csv'); open('old_data-1.csv')") \
        == "data.csv"
    assert restored_name("data-1.csv", set(), "path = 'data/data.csv.bak'") == "data-1.csv"
    assert restored_name("multiAgents.py", set()) == "multiAgents.py"
    assert archive_stem("alpha.tar.gz") == "alpha"
    assert archive_stem("Alpha.ZIP") == "Alpha"
    assert archive_stem(".zip") is None
    assert archive_stem("multiAgents.py") is None


def test_junk() -> None:
    assert junk_kind("__MACOSX/proj/._a.py") == "__MACOSX/"
    assert junk_kind("proj/.DS_Store") == ".DS_Store"
    assert junk_kind("proj/._multiAgents.py") == "._* (macOS)"
    assert junk_kind("proj/__pycache__/a.cpython-311.pyc") == "__pycache__/"
    assert junk_kind("a.pyc") == "*.pyc"
    assert junk_kind(".git/config") == ".git/"
    assert junk_kind("proj/multiAgents.py") is None
    assert junk_kind("proj/.gitignore") is None


def test_a_time_as_the_manifest_writes_it() -> None:
    moment = dt.datetime(2024, 3, 1, 12, 0, 0, 999999, tzinfo=dt.timezone.utc)
    assert utc_text(moment) == "2024-03-01T12:00:00Z"


def test_one_folder_made_from_two_names_is_the_first_names() -> None:
    """Two team names made into one folder name (its 8 hex digits alike: a one in 2^32
    chance, or a name searched for) would share a folder and supersede each other: the first
    name in order keeps it, the other is refused; a team named as the made folder itself is
    refused for the team it was made for; one name submitting twice is no clash."""
    def candidate(team: str, folder: str) -> Candidate:
        return Candidate(submission(team=team), Team(folder, team, ()), False, 0.0)

    a, b = candidate("Zoé", "Zo_-1234abcd"), candidate("Zoë", "Zo_-1234abcd")  # é < ë
    assert impostors([b, a], None) == [(b, "Zoé")]
    taker = candidate("Zo_-1234abcd", "Zo_-1234abcd")
    assert impostors([taker, a], None) == [(taker, "Zoé")]
    again = candidate("Zoé", "Zo_-1234abcd")
    assert impostors([a, again], None) == []
