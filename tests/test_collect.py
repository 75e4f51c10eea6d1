"""`tournament collect` on exports made here the way each LMS makes them (Canvas, Moodle,
Gradescope, a plain folder), with late, duplicate, broken, hostile and bare-file submissions:
the team folders (names and bytes), the manifest (members, source, times, lateness, hashes,
refusals with their reasons), nothing written outside the collected folder, a second collect
that changes nothing, a changed source that changes only its team, teams kept, the lock, the
crash recovery, and the command's summary and exit statuses."""

from __future__ import annotations

import csv
import io
import os
import struct
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.collect_helpers import (
    agent,
    clear_utf8_flags,
    everything_under,
    make_zip,
    sha,
    snapshot,
    tree,
    when,
    write,
    zip_bytes,
)
from tournament.cli import main
from tournament.collect import WORK_FOLDER, CollectError, collect, recover
from tournament.config import team_entrant_name
from tournament.manifest import MANIFEST_NAME, MANIFEST_TABLE, read_manifest
from tournament.sources import universal_time

REPO = Path(__file__).parent.parent
NIGHT = team_entrant_name("Night Shift")
MAPPING = """student,team,name
1001,Night Shift,Jane Smith
1002,Night Shift,Bob Roe
1003,Latecomers,John Doe
1004,Zipped,Ann Lee
1005,Evil,E Vil
1006,Linky,L Inky
1007,Broken,B Roken
1008,Paper,P Aper
"""


def clock(text: str):  # type: ignore[no-untyped-def]
    return lambda: when(text)


def entry(manifest, source_end: str):  # type: ignore[no-untyped-def]
    """The manifest entry whose source ends with `source_end`."""
    found = [e for e in manifest.entries if e.source.endswith(source_end)]
    assert len(found) == 1, (source_end, manifest.entries)
    return found[0]


# --- Canvas ----------------------------------------------------------------------------------


#: Bob's team.yaml, resubmitted: Canvas renames it `team-1.yaml` as it does the agent file.
BOB_TEAM = b"agent: multiAgents.py:TestAgent\n# the agent reads weights.json beside it\n"
#: Bob's data: a resubmitted file his team names (Canvas's `weights-1.json`), and a first
#: upload of his own whose name merely ends as Canvas's renaming does.
BOB_WEIGHTS, BOB_TABLE = b'{"food": -4}\n', b"a,b\n1,2\n"


def canvas_export(tmp: Path) -> Path:
    """Canvas's "Download submissions" zip: flat names, a LATE mark, a resubmitted `-1`
    file, a student's zip with a top folder and macOS junk, a zip slip, a symbolic link, a
    file that is no zip, a PDF, a student the mapping does not know, a stray file."""
    members = {
        "smithjane_1001_5001_multiAgents.py": agent("jane"),
        "roebob_1002_5002_multiAgents-1.py": agent("bob"),
        "roebob_1002_5002_team-1.yaml": BOB_TEAM,
        "roebob_1002_5002_weights-1.json": BOB_WEIGHTS,
        "roebob_1002_5002_table-3.csv": BOB_TABLE,
        "doejohn_LATE_1003_5003_multiAgents.py": agent("john"),
        "leeann_1004_5004_proj2.zip": zip_bytes(tmp, {
            "proj2/multiAgents.py": agent("ann"), "proj2/.DS_Store": b"\0\0",
            "__MACOSX/proj2/._multiAgents.py": b"\0\5"}),
        "vile_1005_5005_evil.zip": zip_bytes(tmp, {
            "multiAgents.py": agent("evil"), "../../../../../../escape.py": b"owned"}),
        "inky_1006_5006_link.zip": zip_bytes(tmp, {}, links={"multiAgents.py": "/etc/passwd"}),
        "roken_1007_5007_broken.zip": b"this is not a zip at all\n",
        "aper_1008_5008_report.pdf": b"%PDF-1.4\n",
        "stranger_1009_5009_multiAgents.py": agent("stranger"),
        "README.txt": b"downloaded from Canvas\n",
    }
    times = {
        "smithjane_1001_5001_multiAgents.py": when("2024-03-01 10:00"),
        "roebob_1002_5002_multiAgents-1.py": when("2024-03-01 11:00"),
        "doejohn_LATE_1003_5003_multiAgents.py": when("2024-03-02 10:00"),
    }
    return make_zip(tmp / "submissions.zip", members, times=times)


def test_canvas_export_with_mapping(tmp_path: Path) -> None:
    export = canvas_export(tmp_path)
    mapping = write(tmp_path / "mapping.csv", MAPPING.encode())
    into = tmp_path / "teams"
    before = everything_under(tmp_path)
    result = collect([export], into, mapping=mapping, deadline=when("2024-03-01 23:59"),
                     clock=clock("2024-03-05 12:00"))
    # Two students of one team each uploaded: the newer counts, under the course's name.
    assert sorted(result.new) == sorted([NIGHT, "Zipped"])
    assert tree(into / NIGHT) == {"multiAgents.py": agent("bob"), "team.yaml": BOB_TEAM,
                                  "weights.json": BOB_WEIGHTS, "table-3.csv": BOB_TABLE}
    # A student's zip: unpacked, its one top folder flattened, its junk left out.
    assert tree(into / "Zipped") == {"multiAgents.py": agent("ann")}
    manifest = read_manifest(into)
    assert manifest is not None and manifest.deadline == "2024-03-01T23:59:00Z"
    night = manifest.team(NIGHT)
    assert night is not None
    assert night.name == "Night Shift"
    assert [(m.id, m.name) for m in night.members] == [("1001", "Jane Smith"),
                                                        ("1002", "Bob Roe")]
    assert night.source == ("canvas: submissions.zip: roebob_1002_5002_multiAgents-1.py "
                            "and 3 more")
    assert night.submitted_at == "2024-03-01T11:00:00Z"
    assert (night.late, night.late_seconds, night.commit) == (False, 0.0, None)
    assert night.files == {"multiAgents.py": sha(agent("bob")), "team.yaml": sha(BOB_TEAM),
                           "weights.json": sha(BOB_WEIGHTS), "table-3.csv": sha(BOB_TABLE)}
    assert night.changed_at == "2024-03-05T12:00:00Z"
    assert any("multiAgents-1.py saved as multiAgents.py" in n for n in night.notes)
    # Every file Canvas renamed, not only the agent's (the fourteenth hostile review).
    assert any("team-1.yaml saved as team.yaml" in n for n in night.notes)
    # A data file only where the team's files name it (the seventeenth hostile review).
    assert any("weights-1.json saved as weights.json" in n for n in night.notes)
    assert not any("table-3.csv" in n for n in night.notes)
    zipped = manifest.team("Zipped")
    assert zipped is not None
    assert "left out as junk: .DS_Store, __MACOSX/" in zipped.notes
    assert "flattened proj2/" in zipped.notes
    # The earlier upload of the team is superseded; the late one set aside with its delay.
    jane = entry(manifest, "smithjane_1001_5001_multiAgents.py")
    assert (jane.team, jane.status) == (NIGHT, "superseded")
    john = entry(manifest, "doejohn_LATE_1003_5003_multiAgents.py")
    assert (john.team, john.status, john.submitted_at) == (team_entrant_name("Latecomers"),
                                                          "late", "2024-03-02T10:00:00Z")
    assert "after the deadline (2024-03-01T23:59:00Z) by 10 h 01 min" in john.reason
    assert not (into / "Latecomers").exists()
    # Hostile, broken and unusable submissions: refused, each with its reason.
    reasons = {e.source.rsplit(": ", 1)[1]: e for e in manifest.entries if e.status == "refused"}
    assert "leaves" in reasons["vile_1005_5005_evil.zip"].reason
    assert "link" in reasons["inky_1006_5006_link.zip"].reason
    assert "not an archive" in reasons["roken_1007_5007_broken.zip"].reason
    assert "holds no Python file" in reasons["aper_1008_5008_report.pdf"].reason
    assert reasons["stranger_1009_5009_multiAgents.py"].reason == (
        "student 1009 (stranger) matches no student of mapping.csv")
    assert "not named as Canvas names a submission" in reasons["README.txt"].reason
    for name in ("Evil", "Linky", "Broken", "Paper"):
        assert not (into / name).exists()
    # Nothing outside the collected folder; nothing left of the work inside it.
    after = everything_under(tmp_path)
    assert {p for p in after - before if not p.startswith("teams")} == set()
    assert not any(p.endswith("escape.py") for p in after)
    assert not (into / WORK_FOLDER).exists()
    assert sorted(p.name for p in into.iterdir()) == sorted(
        [".lock", MANIFEST_NAME, MANIFEST_TABLE, NIGHT, "Zipped"])


def test_canvas_export_as_folder_without_mapping(tmp_path: Path) -> None:
    """The unpacked export on disk: times are the files' modification times, and without a
    mapping every student is a team of their own named by their id."""
    folder = tmp_path / "canvas"
    write(folder / "smithjane_1001_5001_multiAgents.py", agent("jane"), when("2024-03-01 10:00"))
    write(folder / "roebob_1002_5002_multiAgents-1.py", agent("bob"), when("2024-03-01 11:00"))
    write(folder / "roebob_1002_5002_multiAgents.py", agent("bob-first"),
          when("2024-03-01 11:00"))
    into = tmp_path / "teams"
    result = collect([folder], into)
    assert result.new == ["1001", "1002"]
    # The course's name is already taken in that submission: the `-1` file keeps its name.
    assert tree(into / "1002") == {"multiAgents-1.py": agent("bob"),
                                   "multiAgents.py": agent("bob-first")}
    manifest = read_manifest(into)
    assert manifest is not None
    jane = manifest.team("1001")
    assert jane is not None
    assert (jane.name, jane.submitted_at) == ("smithjane", "2024-03-01T10:00:00Z")
    assert [(m.id, m.name) for m in jane.members] == [("1001", "smithjane")]


# --- Moodle ----------------------------------------------------------------------------------


def moodle_export(tmp: Path) -> Path:
    folder = tmp / "moodle"
    write(folder / "Jane Smith_201_assignsubmission_file_" / "multiAgents.py", agent("jane"),
          when("2024-03-01 10:00"))
    write(folder / "Jane Smith_201_assignsubmission_onlinetext_" / "onlinetext.html",
          b"<p>see file</p>")
    write(folder / "Bob Roe_202_assignsubmission_file_" / "submission.zip",
          zip_bytes(tmp, {"multiAgents.py": agent("bob")}), when("2024-03-01 11:00"))
    hostile = folder / "Eve Hack_203_assignsubmission_file_"
    hostile.mkdir()
    (hostile / "multiAgents.py").symlink_to("/etc/passwd")
    write(folder / "notes.txt", b"grading notes\n")
    return folder


def test_moodle_export(tmp_path: Path) -> None:
    into = tmp_path / "teams"
    result = collect([moodle_export(tmp_path)], into)
    assert result.new == ["201", "202"]
    # A bare course file is a team as it is: no team.yaml is written for it.
    assert tree(into / "201") == {"multiAgents.py": agent("jane")}
    assert tree(into / "202") == {"multiAgents.py": agent("bob")}
    manifest = read_manifest(into)
    assert manifest is not None
    jane = manifest.team("201")
    assert jane is not None
    assert jane.source == "moodle: moodle: Jane Smith_201_assignsubmission_file_"
    assert [(m.id, m.name) for m in jane.members] == [("201", "Jane Smith")]
    assert jane.submitted_at == "2024-03-01T10:00:00Z"
    bob = manifest.team("202")
    assert bob is not None and "unpacked submission.zip" in bob.notes
    eve = entry(manifest, "Eve Hack_203_assignsubmission_file_")
    assert (eve.team, eve.status) == ("203", "refused")
    assert "multiAgents.py is a symbolic link" in eve.reason
    assert "not named as Moodle names a submission" in entry(manifest, "notes.txt").reason
    assert not any("onlinetext" in e.source for e in manifest.entries)


def test_special_files_named_as_canvas_names_uploads_are_refused_as_what_they_are(
        tmp_path: Path) -> None:
    """A fifo and a link in a Canvas export folder, named as Canvas names uploads: refused
    without being opened or followed, saying what they are (not "not named as Canvas")."""
    export = tmp_path / "canvas"
    write(export / "smithjane_1001_5001_multiAgents.py", agent("jane"))
    os.mkfifo(export / "evehack_1003_5003_multiAgents.py")
    os.symlink("/etc/passwd", export / "malmallory_1004_5004_multiAgents.py")
    result = collect([export], tmp_path / "teams")
    assert result.new == ["1001"]
    reasons = {e.source.rsplit(": ", 1)[-1]: e.reason for e in result.entries("refused")}
    assert reasons == {
        "evehack_1003_5003_multiAgents.py": "a named pipe (fifo), not a file: Canvas's export "
                                            "holds the files students uploaded",
        "malmallory_1004_5004_multiAgents.py": "a symbolic link, not a file: Canvas's export "
                                               "holds the files students uploaded"}


def test_a_canvas_name_that_reads_as_two_students_uploads_is_refused(tmp_path: Path) -> None:
    """Found by a hostile review: the name part of a Canvas entry is the student's, so
    student 1001 named `x_1002` uploads as `x_1002_1001_600_...`, which read first as
    student 1002's upload: her zip replaced his team's files. A name whose readings name
    two students is refused, never given to either; his own upload stays his."""
    export = tmp_path / "canvas"
    write(export / "smithvictor_1002_500_multiAgents.py", agent("victor"),
          when("2024-03-01 10:00"))
    write(export / "x_1002_1001_600_sabotage.zip",
          zip_bytes(tmp_path, {"multiAgents.py": agent("mallory")}), when("2024-03-01 11:00"))
    write(export / "roebob_1003_700_multiAgents.py", agent("bob"), when("2024-03-01 09:00"))
    into = tmp_path / "teams"
    result = collect([export], into)
    assert result.new == ["1002", "1003"]
    assert tree(into / "1002") == {"multiAgents.py": agent("victor")}
    [refused] = result.entries("refused")
    assert refused.source.endswith("x_1002_1001_600_sabotage.zip")
    assert refused.reason == ("a file: its name reads as the upload of more than one student "
                              "(user ids 1001, 1002): refused, never given to either")
    # A name part that hides Canvas's LATE mark (one student, two readings of the mark).
    hidden = tmp_path / "hidden"
    write(hidden / "smith_1001_5001_jane_LATE_1001_5004_sub.zip",
          zip_bytes(tmp_path, {"multiAgents.py": agent("jane")}))
    write(hidden / "doejohn_LATE_1003_5003_multiAgents.py", agent("john"))
    result = collect([hidden], tmp_path / "teams-hidden")
    assert [e.status for e in result.manifest.entries if e.team == "1003"] == ["late"]
    [refused] = result.entries("refused")
    assert refused.reason.startswith("a file: its name reads as more than one submission")


def test_a_moodle_name_that_reads_as_two_students_uploads_is_refused(tmp_path: Path) -> None:
    """Found by the twelfth hostile review: Moodle's name part is the student's full name, so
    student 1001 named `Eve X_1002_assignsubmission_file_` had a folder that read first as
    student 1002's upload, and it replaced his team's files. Read as Canvas names are: a name
    whose readings name two students is refused, never given to either."""
    export = tmp_path / "moodle"
    write(export / "Bob Victim_1002_assignsubmission_file_" / "multiAgents.py", agent("bob"),
          when("2024-03-01 10:00"))
    write(export / "Eve X_1002_assignsubmission_file__1001_assignsubmission_file_"
          / "multiAgents.py", agent("eve"), when("2024-03-01 11:00"))
    write(export / "Carl C_1003_assignsubmission_file_" / "multiAgents.py", agent("carl"),
          when("2024-03-01 09:00"))
    into = tmp_path / "teams"
    result = collect([export], into)
    assert result.new == ["1002", "1003"]
    assert tree(into / "1002") == {"multiAgents.py": agent("bob")}
    [refused] = result.entries("refused")
    assert refused.source.endswith("Eve X_1002_assignsubmission_file__1001_assignsubmission_file_")
    assert refused.reason.endswith("its name reads as the upload of more than one student "
                                   "(participant ids 1001, 1002): refused, never given to either")


def test_an_export_zipped_without_the_utf8_flag_keeps_its_entries_times(tmp_path: Path) -> None:
    """macOS zips UTF-8 names without the zip's UTF-8 flag. The unpacker reads them as UTF-8;
    the entries' times must be found under the same names, or a late upload's time is
    unknown and it counts as on time."""
    export = make_zip(tmp_path / "moodle.zip", {
        "José García_301_assignsubmission_file_/multiAgents.py": agent("jose"),
        "Ann Lee_302_assignsubmission_file_/multiAgents.py": agent("ann"),
    }, times={"José García_301_assignsubmission_file_/multiAgents.py": when("2024-03-05 12:00"),
              "Ann Lee_302_assignsubmission_file_/multiAgents.py": when("2024-03-01 12:00")})
    clear_utf8_flags(export)
    into = tmp_path / "teams"
    result = collect([export], into, deadline=when("2024-03-02 00:00"))
    assert result.new == ["302"]
    late = entry(result.manifest, "José García_301_assignsubmission_file_")
    assert (late.status, late.submitted_at) == ("late", "2024-03-05T12:00:00Z")
    assert late.reason.startswith("after the deadline (2024-03-02T00:00:00Z) by 3 d 12 h")


@pytest.mark.parametrize("mode", ["w", "w:gz", "w:bz2", "w:xz"])
def test_a_tar_export_s_entries_have_their_members_times(tmp_path: Path, mode: str) -> None:
    """A Canvas export handed over as a tar (`./` first, as `tar -C folder .` writes it): each
    entry's time is its member's (the unpacker writes no times, and every entry was as old
    as the collection: all late), the folder's own time aside."""
    export = tmp_path / "canvas.tar"
    with tarfile.open(export, mode) as archive:
        folder = tarfile.TarInfo("./")
        folder.type, folder.mtime = tarfile.DIRTYPE, int(when("2024-04-01 00:00").timestamp())
        archive.addfile(folder)
        uploads = (("smithjane_1001_5001_multiAgents.py", "jane", "2024-03-01 10:00"),
                   ("roebob_1002_5002_multiAgents.py", "bob", "2024-03-02 10:00"))
        for name, tag, moment in uploads:
            data = agent(tag)
            info = tarfile.TarInfo(f"./{name}")
            info.size, info.mtime = len(data), int(when(moment).timestamp())
            archive.addfile(info, io.BytesIO(data))
    result = collect([export], tmp_path / "teams", deadline=when("2024-03-01 12:00"))
    assert result.new == ["1001"]
    jane = result.manifest.team("1001")
    assert jane is not None and jane.submitted_at == "2024-03-01T10:00:00Z"
    late = entry(result.manifest, "roebob_1002_5002_multiAgents.py")
    assert (late.status, late.submitted_at) == ("late", "2024-03-02T10:00:00Z")


def test_a_zip_s_extended_timestamp_is_its_entry_s_time(tmp_path: Path) -> None:
    """A zip made in Berlin keeps 23:30 as its DOS time (local, no zone) and 22:30 UTC in its
    extended timestamp (Info-ZIP's `UT`, as `zip` and macOS write it). The deadline is
    23:59 in Berlin, 22:59 UTC: the upload is on time, not 31 minutes late."""
    dos = when("2024-03-01 23:30")
    export = tmp_path / "canvas.zip"
    with zipfile.ZipFile(export, "w") as archive:
        info = zipfile.ZipInfo("smithjane_1001_5001_multiAgents.py", dos.timetuple()[:6])
        info.extra = struct.pack("<HHBI", 0x5455, 5, 1, int(when("2024-03-01 22:30").timestamp()))
        archive.writestr(info, agent("jane"))
    result = collect([export], tmp_path / "teams", deadline=when("2024-03-01 22:59"))
    assert result.new == ["1001"]
    jane = result.manifest.team("1001")
    assert jane is not None and (jane.submitted_at, jane.late) == ("2024-03-01T22:30:00Z", False)
    # A missing, damaged or empty field says nothing: the DOS time is used then.
    for extra in (b"", b"UT\x05\x00\x01\x00", struct.pack("<HHB", 0x5455, 1, 1),
                  struct.pack("<HHBI", 0x5455, 5, 0, 12345),
                  struct.pack("<HH", 0x000A, 2) + b"xx"):
        assert universal_time(extra) is None, extra
    assert universal_time(struct.pack("<HH", 0x000A, 2) + b"xx"
                          + struct.pack("<HHBI", 0x5455, 5, 1, 0)) == when("1970-01-01 00:00")


# --- Gradescope ------------------------------------------------------------------------------

METADATA = """\
submission_11:
  :submitters:
  - :name: Ann A
    :sid: 's1'
    :email: ann@example.edu
  - :name: Ben B
    :sid: 's2'
    :email: ben@example.edu
  :created_at: 2024-03-01 09:00:00.123456789 -08:00
  :score: 10.0
  :history: []
submission_12:
  :submitters:
  - :name: Cat C
    :sid: 3
    :email: cat@example.edu
  :created_at: 2024-03-02 08:00:00.000000000 -08:00
  :score: 9.0
submission_13:
  :submitters:
  - :name: Cat C
    :sid: 3
    :email: cat@example.edu
  :created_at: 2024-03-01 08:00:00.000000000 -08:00
"""


def gradescope_export(tmp: Path) -> Path:
    root = "assignment_77_export/"
    return make_zip(tmp / "gradescope.zip", {
        root + "submission_metadata.yml": METADATA.encode(),
        root + "submission_11/multiAgents.py": agent("ann-ben"),
        root + "submission_12/multiAgents.py": agent("cat-late"),
        root + "submission_13/proj/multiAgents.py": agent("cat-early"),
        root + "submission_14/multiAgents.py": agent("nobody"),
        "__MACOSX/assignment_77_export/._submission_metadata.yml": b"\0",
    })


#: The deadline, 23:59 in California: 07:59 the next day in UTC.
PACIFIC_DEADLINE = "2024-03-01T23:59:00-08:00"


@pytest.mark.parametrize("late", ["aside", "take"])
def test_gradescope_export(tmp_path: Path, late: str) -> None:
    from tournament.times import parse_time

    into = tmp_path / "teams"
    result = collect([gradescope_export(tmp_path)], into, late_policy=late,
                     deadline=parse_time(PACIFIC_DEADLINE))
    assert result.new == ["3", "s1+s2"]
    manifest = read_manifest(into)
    assert manifest is not None
    group = manifest.team("s1+s2")
    assert group is not None
    assert group.name == "Ann A, Ben B"
    assert [(m.id, m.name) for m in group.members] == [("s1", "Ann A"), ("s2", "Ben B")]
    assert group.submitted_at == "2024-03-01T17:00:00Z"
    assert group.source == ("gradescope: gradescope.zip: assignment_77_export: "
                            "submission_11")
    cat = manifest.team("3")
    assert cat is not None
    if late == "aside":
        assert tree(into / "3") == {"multiAgents.py": agent("cat-early")}
        assert "flattened proj/" in cat.notes
        assert (cat.late, cat.submitted_at) == (False, "2024-03-01T16:00:00Z")
        late_one = entry(manifest, "submission_12")
        assert (late_one.status, late_one.submitted_at) == ("late", "2024-03-02T16:00:00Z")
        assert "by 8 h 01 min" in late_one.reason
    else:
        assert tree(into / "3") == {"multiAgents.py": agent("cat-late")}
        assert (cat.late, cat.late_seconds) == (True, 8 * 3600 + 60)
        assert cat.source.endswith("submission_12")
        assert entry(manifest, "submission_13").status == "superseded"
    orphan = entry(manifest, "submission_14")
    assert (orphan.status, orphan.reason) == (
        "refused", "submission_metadata.yml: submission_14: not in the metadata")


def test_the_table_names_the_students_of_a_submission_of_no_team(tmp_path: Path) -> None:
    """Cat is in no team of the mapping: her uploads are refused, and manifest.csv says whose
    they are (a Gradescope source names no one: `submission_12`)."""
    mapping = write(tmp_path / "m.csv", b"student,team\ns1,Duo\ns2,Duo\n")
    into = tmp_path / "teams"
    collect([gradescope_export(tmp_path)], into, mapping=mapping)
    with open(into / MANIFEST_TABLE, newline="", encoding="utf-8") as fh:
        rows = {row["source"].rsplit(": ", 1)[-1]: row for row in csv.DictReader(fh)}
    assert rows["submission_12"]["status"] == "refused"
    assert rows["submission_12"]["members"] == "3 Cat C"
    assert rows["submission_11"]["members"] == "s1 Ann A; s2 Ben B"


def test_gradescope_submitters_without_a_student_id_never_name_a_folder(
        tmp_path: Path) -> None:
    """Without a mapping a team is named by its students' ids, and team names are published
    (the report, game ids, file names). A Gradescope submitter without `:sid:` has only an
    e-mail address or a name: refused, saying how to fix it, rather than publishing
    `jane.smith_uni.example.edu-...`; a mapping by e-mail places them."""
    export = tmp_path / "gs"
    write(export / "submission_metadata.yml", (
        b"submission_11:\n  :submitters:\n  - :name: Jane Smith\n"
        b"    :email: jane.smith@uni.example.edu\n"
        b"  :created_at: 2024-03-01 09:00:00.0 -08:00\n"))
    write(export / "submission_11" / "multiAgents.py", agent("jane"))
    into = tmp_path / "teams"
    result = collect([export], into)
    assert result.collected == []
    [refused] = result.entries("refused")
    assert refused.reason.startswith("submitter jane.smith@uni.example.edu (Jane Smith) has "
                                     "no student id in the export")
    assert "give a mapping (--mapping)" in refused.reason
    assert not any("jane" in name for name in os.listdir(into))
    mapping = write(tmp_path / "m.csv", b"student,team\njane.smith@uni.example.edu,Owls\n")
    assert collect([export], into, mapping=mapping).new == ["Owls"]


def test_gradescope_metadata_that_cannot_be_read(tmp_path: Path) -> None:
    """A metadata file the plain reader refuses: said with its line, every folder refused."""
    export = tmp_path / "gs"
    write(export / "submission_metadata.yml", b"submission_1: &a\n  :submitters: []\n")
    write(export / "submission_1" / "multiAgents.py", agent("x"))
    result = collect([export], tmp_path / "teams")
    assert result.collected == []
    [problem] = result.manifest.problems
    assert problem.startswith("gs: line 1, column 15: an anchor (&name) is not allowed")
    [refused] = result.entries("refused")
    assert refused.reason == "submitters unknown: submission_metadata.yml cannot be read"


# --- plain folders, idempotency, changes -----------------------------------------------------


def plain_folder(tmp: Path) -> Path:
    folder = tmp / "plain"
    make_zip(folder.mkdir() or folder / "alpha.zip", {"multiAgents.py": agent("alpha-new")})
    os.utime(folder / "alpha.zip", (when("2024-03-01 12:00").timestamp(),) * 2)
    write(folder / "alpha" / "multiAgents.py", agent("alpha-old"), when("2024-03-01 08:00"))
    os.utime(folder / "alpha", (when("2024-03-01 08:00").timestamp(),) * 2)
    write(folder / "beta" / "multiAgents.py", agent("beta"), when("2024-03-01 09:30"))
    write(folder / "gamma.zip", b"PK but not really\n")
    make_zip(folder / "delta.zip", {"multiAgents.py": agent("delta"),
                                    str(tmp / "abs-escape.py"): b"owned"})
    write(folder / "notes.txt", b"hello\n")
    write(folder / "empty" / "README.md", b"# nothing here\n")
    write(folder / "yaml-team" / "team.yaml", b"name: Yaml Team\nagent: my.py:MyAgent\n")
    write(folder / "yaml-team" / "my.py", agent("yaml"))
    write(folder / "junky" / "multiAgents.py", agent("junky"))
    write(folder / "junky" / "__pycache__" / "multiAgents.cpython-311.pyc", b"\0")
    write(folder / "junky" / ".DS_Store", b"\0")
    return folder


def test_plain_folder(tmp_path: Path) -> None:
    into = tmp_path / "teams"
    result = collect([plain_folder(tmp_path)], into, clock=clock("2024-03-05 12:00"))
    assert result.new == ["alpha", "beta", "junky", "yaml-team"]
    assert tree(into / "alpha") == {"multiAgents.py": agent("alpha-new")}
    assert tree(into / "yaml-team") == {
        "team.yaml": b"name: Yaml Team\nagent: my.py:MyAgent\n", "my.py": agent("yaml")}
    assert tree(into / "junky") == {"multiAgents.py": agent("junky")}
    manifest = read_manifest(into)
    assert manifest is not None
    alpha = manifest.team("alpha")
    assert alpha is not None
    assert (alpha.source, alpha.submitted_at, alpha.members) == (
        "folder: plain: alpha.zip", "2024-03-01T12:00:00Z", ())
    assert entry(manifest, "plain: alpha").status == "superseded"
    junky = manifest.team("junky")
    assert junky is not None
    assert junky.notes == ("left out as junk: .DS_Store, __pycache__/",)
    assert "not an archive" in entry(manifest, "gamma.zip").reason
    assert entry(manifest, "delta.zip").status == "refused"
    assert not (tmp_path / "abs-escape.py").exists()
    assert "neither a folder nor an archive" in entry(manifest, "notes.txt").reason
    assert entry(manifest, "plain: empty").reason == \
        "holds no Python file (it holds README.md)"
    # The table: a row per team and per submission considered.
    table = (into / MANIFEST_TABLE).read_bytes().decode()
    assert table.split("\r\n")[0] == "team,members,source,submitted_at,status,reason,commit"
    assert ("alpha,,folder: plain: alpha.zip,2024-03-01T12:00:00Z,collected,"
            "unpacked alpha.zip,\r\n") in table
    assert ",folder: plain: gamma.zip," in table and ",refused," in table


def test_a_plain_folder_stays_plain_whatever_one_student_names_an_upload(
        tmp_path: Path) -> None:
    """In a plain folder the names are the students' own. One upload named as Canvas names
    its files (`proj_2_1_final.zip`), one folder named as Moodle names its entries: the
    folder is still a plain folder, and every team is collected (the whole folder was read
    as a Canvas export, every other team refused)."""
    folder = tmp_path / "uploads"
    folder.mkdir()
    for team in ("alpha", "beta", "gamma", "proj_2_1_final"):
        make_zip(folder / f"{team}.zip", {"multiAgents.py": agent(team)})
    write(folder / "x_9_assignsubmission_file_" / "multiAgents.py", agent("moodle-like"))
    result = collect([folder], tmp_path / "teams")
    assert result.new == sorted(["alpha", "beta", "gamma", "proj_2_1_final",
                                 "x_9_assignsubmission_file_"])
    assert result.entries("refused") == []
    # An upload named as Gradescope's metadata file neither.
    write(folder / "submission_metadata.yml", b"submission_1: {}\n")
    result = collect([folder], tmp_path / "teams-2")
    assert len(result.new) == 5
    assert [e.source for e in result.entries("refused")] == [
        "folder: uploads: submission_metadata.yml"]
    # An export whose entries are mostly Canvas's is Canvas's, a stray file refused.
    canvas = tmp_path / "canvas"
    canvas.mkdir()
    write(canvas / "smithjane_1001_5001_multiAgents.py", agent("jane"))
    write(canvas / "roebob_1002_5002_multiAgents.py", agent("bob"))
    write(canvas / "README.txt", b"downloaded from Canvas\n")
    result = collect([canvas], tmp_path / "canvas-teams")
    assert result.new == ["1001", "1002"]
    assert [e.source for e in result.entries("refused")] == ["canvas: canvas: README.txt"]


def test_a_whole_export_given_as_one_team_s_upload_is_refused(tmp_path: Path) -> None:
    """`collect exports` with exports/canvas.zip in it reads exports/ as a plain folder whose
    entry canvas.zip is one upload: it made a team `canvas` of every student's files. Each
    LMS's layout, holding several students' uploads, is refused saying what to do."""
    exports = tmp_path / "exports"
    exports.mkdir()
    canvas_export(exports)  # exports/submissions.zip
    moodle = exports / "moodle"
    write(moodle / "Jane Smith_201_assignsubmission_file_" / "multiAgents.py", agent("jane"))
    write(moodle / "Bob Roe_202_assignsubmission_file_" / "multiAgents.py", agent("bob"))
    gradescope_export(exports)  # exports/gradescope.zip, in a top folder
    result = collect([exports], tmp_path / "teams")
    assert result.collected == []
    reasons = {e.source: e.reason for e in result.entries("refused")}
    for source, kind in (("folder: exports: submissions.zip", "canvas"),
                         ("folder: exports: moodle", "moodle"),
                         ("folder: exports: gradescope.zip", "gradescope")):
        assert reasons[source] == (
            f"it is laid out as a whole {kind} export (the uploads of several students), not "
            "one team's files: give the export to tournament collect as a source of its own")
    # One student's upload named as Canvas names files is no export: collected.
    single = tmp_path / "single"
    make_zip(single.mkdir() or single / "alpha.zip",
             {"smithjane_1001_5001_multiAgents.py": agent("jane")})
    assert collect([single], tmp_path / "single-teams").new == ["alpha"]


def test_a_team_named_as_the_folder_made_for_another_cannot_take_it(tmp_path: Path) -> None:
    """Found by a hostile review: `José García` is collected into `Jos__Garc_a-978edf99`,
    and a team named so shared that folder and, submitting later, superseded José García's
    submission. It is refused, whether the other team's submission is in this collection or
    only in the manifest of an earlier one."""
    made = team_entrant_name("José García")
    source = tmp_path / "plain"
    write(source / "José García" / "multiAgents.py", agent("jose"), when("2024-03-01 09:00"))
    write(source / made / "multiAgents.py", agent("taker"), when("2024-03-01 10:00"))
    into = tmp_path / "teams"
    first = collect([source], into, clock=clock("2024-03-05 12:00"))
    assert first.new == [made]
    assert tree(into / made) == {"multiAgents.py": agent("jose")}
    manifest = read_manifest(into)
    assert manifest is not None
    refused = entry(manifest, f"plain: {made}")
    assert refused.status == "refused"
    assert refused.reason == (f"its team {made!r} would take the folder {made} of team "
                              "'José García', whose name it was made from: rename the team")
    # Later, José García's submission gone from the sources: the manifest says whose it is.
    write(source / made / "multiAgents.py", agent("taker-2"), when("2024-03-02 10:00"))
    (source / "José García" / "multiAgents.py").unlink()
    (source / "José García").rmdir()
    second = collect([source], into, clock=clock("2024-03-06 12:00"))
    assert second.changed == [] and tree(into / made) == {"multiAgents.py": agent("jose")}


def test_a_second_collect_changes_nothing_and_a_change_changes_only_its_team(
        tmp_path: Path) -> None:
    source = plain_folder(tmp_path)
    into = tmp_path / "teams"
    collect([source], into, clock=clock("2024-03-05 12:00"))
    first = snapshot(into)
    again = collect([source], into, clock=clock("2024-03-06 12:00"))
    assert again.new == again.changed == []
    assert again.unchanged == ["alpha", "beta", "junky", "yaml-team"]
    assert snapshot(into) == first  # bytes and times, the manifest and its table included
    # One team submits again: only its folder and its changed_at change.
    write(source / "beta" / "multiAgents.py", agent("beta-2"), when("2024-03-02 09:00"))
    third = collect([source], into, clock=clock("2024-03-07 12:00"))
    assert third.changed == ["beta"]
    after = snapshot(into)
    changed = {path for path in first.keys() | after.keys() if first.get(path) != after.get(path)}
    assert changed == {"beta", "beta/multiAgents.py", MANIFEST_NAME, MANIFEST_TABLE}
    manifest = read_manifest(into)
    assert manifest is not None
    beta, alpha = manifest.team("beta"), manifest.team("alpha")
    assert beta is not None and alpha is not None
    assert (beta.changed_at, beta.submitted_at) == ("2024-03-07T12:00:00Z",
                                                    "2024-03-02T09:00:00Z")
    assert beta.files == {"multiAgents.py": sha(agent("beta-2"))}
    assert alpha.changed_at == "2024-03-05T12:00:00Z"


def test_teams_not_in_the_sources_are_kept(tmp_path: Path) -> None:
    source = plain_folder(tmp_path)
    into = tmp_path / "teams"
    collect([source], into)
    (into / "hand-made").mkdir()
    write(into / "hand-made" / "multiAgents.py", agent("hand"))
    for name in ("beta", "junky"):
        for path in sorted((source / name).rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
        (source / name).rmdir()
    result = collect([source], into)
    assert result.kept == ["beta", "hand-made", "junky"]
    assert tree(into / "beta") == {"multiAgents.py": agent("beta")}
    manifest = read_manifest(into)
    assert manifest is not None
    beta = manifest.team("beta")
    assert beta is not None and beta.files == {"multiAgents.py": sha(agent("beta"))}
    assert manifest.team("hand-made") is None
    assert ",kept,not in this collection: files kept," in (into / MANIFEST_TABLE).read_text()


def test_a_crash_while_replacing_a_team_is_recovered(tmp_path: Path) -> None:
    into = tmp_path / "teams"
    aside = into / WORK_FOLDER / "replaced" / "alpha"
    write(aside / "multiAgents.py", agent("alpha"))
    write(into / WORK_FOLDER / "staging" / "0" / "multiAgents.py", agent("half"))
    write(into / "beta" / "multiAgents.py", agent("beta"))
    write(into / WORK_FOLDER / "replaced" / "beta" / "multiAgents.py", agent("beta-old"))
    assert recover(into) == ["alpha"]
    assert tree(into / "alpha") == {"multiAgents.py": agent("alpha")}
    assert tree(into / "beta") == {"multiAgents.py": agent("beta")}
    assert not (into / WORK_FOLDER).exists()


def test_a_second_collect_at_the_same_time_is_refused(tmp_path: Path) -> None:
    into = tmp_path / "teams"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; "
         "from tournament.lock import acquire; "
         f"acquire(Path({str(into)!r}), 'tournament collect elsewhere'); "
         "print('held', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(CollectError, match="in use by tournament collect elsewhere"):
            collect([plain_folder(tmp_path)], into)
        assert sorted(p.name for p in into.iterdir()) == [".lock"]
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)


# --- the command -----------------------------------------------------------------------------


def run_cli(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["collect", *args], catch_exceptions=False)


def test_command_summary_and_exit_statuses(tmp_path: Path) -> None:
    into = tmp_path / "teams"
    source = plain_folder(tmp_path)
    ran = run_cli(str(source), "--into", str(into), "--deadline", "2024-03-01T23:59:00+01:00")
    assert ran.exit_code == 0, ran.output
    assert "deadline: 2024-03-01T22:59:00Z (UTC)" in ran.output
    # The folders made today are after that deadline: set aside and listed.
    assert "alpha, beta" in ran.output
    assert "late, set aside: folder: plain: junky: after the deadline " \
           "(2024-03-01T22:59:00Z) by " in ran.output
    assert "refused: folder: plain: notes.txt: neither a folder nor an archive" in ran.output
    # --strict: any refusal is a failure.
    strict = run_cli(str(source), "--into", str(into), "--strict")
    assert strict.exit_code == 1, strict.output
    # Nothing usable: exit 1.
    broken = tmp_path / "broken"
    write(broken / "gamma.zip", b"not a zip\n")
    nothing = run_cli(str(broken), "--into", str(tmp_path / "other"))
    assert nothing.exit_code == 1
    assert "nothing usable was collected" in nothing.output
    assert "gamma.zip (team gamma): gamma.zip: not an archive" in nothing.output
    assert not (tmp_path / "other" / MANIFEST_NAME).exists()
    # A wrong source on a folder collected before: a failure that leaves its manifest (and
    # so every student of it, for the marks) as the last collection that worked wrote it.
    manifest_before = (into / MANIFEST_NAME).read_bytes()
    table_before = (into / "manifest.csv").read_bytes()
    wrong = run_cli(str(broken), "--into", str(into))
    assert wrong.exit_code == 1, wrong.output
    assert (into / MANIFEST_NAME).read_bytes() == manifest_before
    assert (into / "manifest.csv").read_bytes() == table_before


def test_command_bad_options_write_nothing(tmp_path: Path) -> None:
    source = plain_folder(tmp_path)
    into = tmp_path / "teams"
    naive = run_cli(str(source), "--into", str(into), "--deadline", "2024-03-01 23:59")
    assert naive.exit_code == 2
    assert "--deadline: '2024-03-01 23:59' has no time zone" in naive.output
    bad = write(tmp_path / "m.csv", b"student,name\ns1,Ann\n")
    unreadable = run_cli(str(source), "--into", str(into), "--mapping", str(bad))
    assert unreadable.exit_code == 2
    assert "tournament: error: m.csv:1: no column 'team'" in unreadable.output
    late = run_cli(str(source), "--into", str(into), "--late", "never")
    assert late.exit_code == 2
    assert not into.exists()


def test_a_collected_folder_inside_a_source_or_a_source_inside_it_is_refused(
        tmp_path: Path) -> None:
    """`collect exports --into exports/teams` read the collected folder as a submission of
    its own (a team named teams, copied into itself until too deep), and a source inside the
    collected folder would be taken for a team: both exit 2, writing nothing."""
    source = plain_folder(tmp_path)
    for into in (source / "teams", source):
        ran = run_cli(str(source), "--into", str(into))
        assert ran.exit_code == 2, ran.output
        assert f"--into {into} is inside the source {source}" in ran.output
    assert not (source / "teams").exists()
    assert not (source / ".lock").exists()
    ran = run_cli(str(source), "--into", str(tmp_path))
    assert ran.exit_code == 2
    assert f"the source {source} is inside --into {tmp_path}" in ran.output
    assert not (tmp_path / ".lock").exists() and not (tmp_path / MANIFEST_NAME).exists()
    # An export archive may lie in the collected folder: a file is never a team.
    (tmp_path / "teams").mkdir()
    export = make_zip(tmp_path / "teams" / "export.zip", {"alpha/multiAgents.py": agent("a")})
    assert run_cli(str(export), "--into", str(tmp_path / "teams")).exit_code == 0


def test_a_hostile_or_broken_export_is_a_problem_and_the_rest_is_collected(
        tmp_path: Path) -> None:
    """A member that would leave the folder is no LMS's doing: the export is hostile or
    broken as a whole and refused, nothing of it written, as is one that cannot be read at
    all; the other sources are still collected."""
    hostile = make_zip(tmp_path / "hostile.zip", {
        "smithjane_1001_5001_multiAgents.py": agent("jane"),
        "../../../../../../export-escape.py": b"owned"})
    broken = write(tmp_path / "broken.zip", b"PK\x03\x04 and then nothing\n")
    plain = tmp_path / "plain"
    write(plain / "alpha" / "multiAgents.py", agent("alpha"))
    into = tmp_path / "teams"
    before = everything_under(tmp_path)
    result = collect([hostile, broken, plain], into)
    assert result.new == ["alpha"]
    hostile_problem, broken_problem = result.manifest.problems
    assert hostile_problem.startswith("hostile.zip: the export is refused: ")
    assert "leaves" in hostile_problem
    assert broken_problem.startswith("broken.zip: the export is refused: ")
    after = everything_under(tmp_path)
    assert {p for p in after - before if not p.startswith("teams")} == set()
    assert not any(p.endswith("export-escape.py") for p in after)


def test_one_students_upload_never_refuses_the_whole_export(tmp_path: Path) -> None:
    """An LMS keeps `multiAgents.py` and `MultiAgents.py` as two files of one submission, and
    takes paths deeper than the unpacker writes: only that student's submission is refused
    (a submission missing a file is not that submission), naming the member and why; every
    other student's is collected. Before, one such upload refused the whole class's export."""
    deep = "/".join(["d"] * 17)
    export = make_zip(tmp_path / "moodle.zip", {
        "Ada Lovelace_101_assignsubmission_file_/multiAgents.py": agent("ada"),
        "Mallory Evil_102_assignsubmission_file_/multiAgents.py": agent("mallory"),
        "Mallory Evil_102_assignsubmission_file_/MultiAgents.py": agent("mallory2"),
        "Mallory Evil_102_assignsubmission_file_/helper.py": b"x = 1\n",
        f"Deep Diver_103_assignsubmission_file_/{deep}/x.py": b"x = 1\n",
        "Deep Diver_103_assignsubmission_file_/multiAgents.py": agent("deep"),
        "Grace Hopper_104_assignsubmission_file_/multiAgents.py": agent("grace"),
    })
    into = tmp_path / "teams"
    result = collect([export], into)
    assert result.new == ["101", "104"]
    assert tree(into / "101") == {"multiAgents.py": agent("ada")}
    assert not (into / "102").exists() and not (into / "103").exists()
    refused = {e.team: e for e in result.entries("refused")}
    assert set(refused) == {"102", "103"}
    assert refused["102"].source.endswith("Mallory Evil_102_assignsubmission_file_")
    assert refused["102"].reason == (
        "the export's member 'Mallory Evil_102_assignsubmission_file_/MultiAgents.py' "
        "collides with member 'Mallory Evil_102_assignsubmission_file_/multiAgents.py' "
        "(names equal once case and Unicode normalisation are ignored); the rest of its "
        "files are not used without it")
    assert "levels deep, more than 16" in refused["103"].reason
    assert not result.manifest.problems


def test_a_name_in_a_windows_code_page_refuses_only_its_upload(tmp_path: Path) -> None:
    """A zip tool on Windows writes names in the machine's code page, without the UTF-8 flag
    (cp850's "\u00dc" is the byte 0x9a): such a name is no text we can write, so the upload
    it belongs to is refused, naming the member; every other student's is collected. Before,
    it refused the whole class's export."""
    export = make_zip(tmp_path / "moodle.zip", {
        "Ada Lovelace_101_assignsubmission_file_/multiAgents.py": agent("ada"),
        "Win Dows_102_assignsubmission_file_/multiAgents.py": agent("win"),
        "Win Dows_102_assignsubmission_file_/Ubung.py": b"x = 1\n",
        "Grace Hopper_103_assignsubmission_file_/multiAgents.py": agent("grace"),
    })
    data = export.read_bytes()
    assert data.count(b"/Ubung.py") == 2  # the local header and the central directory
    export.write_bytes(data.replace(b"/Ubung.py", b"/\x9abung.py"))
    into = tmp_path / "teams"
    result = collect([export], into)
    assert result.new == ["101", "103"]
    assert not (into / "102").exists()
    [(team, reason)] = [(e.team, e.reason) for e in result.entries("refused")]
    assert team == "102"
    assert reason == ("the export's member 'Win Dows_102_assignsubmission_file_/\\udc9abung.py' "
                      "has a name that is not UTF-8; the rest of its files are not used "
                      "without it")
    assert not result.manifest.problems
    assert "\\udc9a" in (into / MANIFEST_NAME).read_text(encoding="utf-8")
    # The review of that change: an export re-zipped on Windows writes the LMS's own folder
    # names in the code page too. That upload is tied to no team, so it is a problem, said,
    # not a student silently missing.
    rezipped = make_zip(tmp_path / "rezipped.zip", {
        "Ada Lovelace_101_assignsubmission_file_/multiAgents.py": agent("ada"),
        "Jurgen Muller_102_assignsubmission_file_/multiAgents.py": agent("jm"),
    })
    rezipped.write_bytes(rezipped.read_bytes().replace(b"Jurgen Muller", b"J\x81rgen M\x81ller"))
    result = collect([rezipped], tmp_path / "teams-rezipped")
    assert result.new == ["101"]
    [problem] = result.manifest.problems
    assert problem == (
        "rezipped.zip: the export's member 'J\\udc81rgen M\\udc81ller_102_assignsubmission_file_/"
        "multiAgents.py' has a name that is not UTF-8, and no submission read holds it: whoever "
        "uploaded it has nothing collected from it")


def test_a_loose_file_set_aside_refuses_its_upload_never_leaves_it_partial(
        tmp_path: Path) -> None:
    """Canvas's flat files and Moodle's older loose files group an upload by the ids in the
    names: a link, or a name too long to write, beside the upload's other files shares no
    path with them, and must still refuse that upload (collected without its helper, the
    agent would be marked on other code than was handed in), naming the member; the other
    students' uploads are collected."""
    long_name = "h" * 250 + ".py"
    canvas = make_zip(tmp_path / "canvas.zip", {
        "lovelaceada_101_9001_multiAgents.py": agent("ada"),
        f"lovelaceada_101_9001_{long_name}": b"x = 1\n",
        "hoppergrace_102_9002_multiAgents.py": agent("grace"),
        "turingalan_103_9003_multiAgents.py": agent("alan"),
    }, links={"turingalan_103_9003_helper.py": "/etc/passwd"})
    moodle = make_zip(tmp_path / "moodle.zip", {
        "Ada Lovelace_201_assignsubmission_file_multiAgents.py": agent("ada"),
        "Grace Hopper_202_assignsubmission_file_multiAgents.py": agent("grace"),
    }, links={"Ada Lovelace_201_assignsubmission_file_helper.py": "/etc/passwd"})
    for export, refused_ids, kept in ((canvas, {"101", "103"}, ["102"]),
                                      (moodle, {"201"}, ["202"])):
        into = tmp_path / f"teams-{export.stem}"
        result = collect([export], into)
        assert result.new == kept
        refused = {e.team: e.reason for e in result.entries("refused")}
        assert set(refused) == refused_ids, refused
        assert all(reason.startswith("the export's member ") for reason in refused.values())
        assert all(not (into / team).exists() for team in refused_ids)


def test_a_member_set_aside_is_matched_within_the_wrapper_folder_only(tmp_path: Path) -> None:
    """An export inside one wrapper folder (Gradescope's `assignment_<id>_export/`): a member
    set aside outside it names no upload of it, even when its name reads as one, and a loose
    file that is no archive in a plain folder is no team's upload."""
    canvas = make_zip(tmp_path / "wrapped.zip", {
        "W/lovelaceada_101_9001_multiAgents.py": agent("ada"),
        "W/hoppergrace_102_9002_multiAgents.py": agent("grace"),
    }, links={"X/lovelaceada_101_9001_notes.py": "/etc/passwd"})
    result = collect([canvas], tmp_path / "teams")
    assert result.new == ["101", "102"]
    [aside] = result.entries("refused")
    assert aside.team is None and aside.source.endswith("X/lovelaceada_101_9001_notes.py")
    plain = make_zip(tmp_path / "plain.zip", {"alpha/multiAgents.py": agent("alpha")},
                     links={"README.txt": "/etc/passwd", "beta.zip": "/etc/passwd"})
    result = collect([plain], tmp_path / "plain-teams")
    assert result.new == ["alpha"]
    teams = {e.source.rsplit(": ", 1)[-1]: e.team for e in result.entries("refused")}
    assert teams == {"README.txt": None, "beta.zip": "beta"}


def test_canvas_files_colliding_by_case_refuse_their_submission_only(tmp_path: Path) -> None:
    """Canvas's flat files: a second name of one submission's file that differs only in case
    refuses that submission (whichever of the two was meant), not the export."""
    export = make_zip(tmp_path / "canvas.zip", {
        "lovelaceada_101_9001_multiAgents.py": agent("ada"),
        "evilmallory_102_9002_multiAgents.py": agent("mallory"),
        "evilmallory_102_9002_MULTIAGENTS.py": agent("mallory2"),
    })
    into = tmp_path / "teams"
    result = collect([export], into)
    assert result.new == ["101"]
    [refused] = result.entries("refused")
    assert refused.team == "102" and "collides with member" in refused.reason


def test_a_manifest_that_cannot_be_read_is_written_anew(tmp_path: Path) -> None:
    into = tmp_path / "teams"
    write(into / MANIFEST_NAME, b"{not json")
    result = collect([plain_folder(tmp_path)], into)
    assert result.manifest.problems[0].startswith(f"{into / MANIFEST_NAME}: not a manifest")
    assert read_manifest(into) == result.manifest


def test_a_whole_export_inside_a_plain_folder_is_no_team(tmp_path: Path) -> None:
    """A folder that holds the LMS's download (rather than being it) is read as a plain folder,
    one submission per entry: the download must then be refused, saying to give it as a source
    of its own, never collected as one team holding the whole class's files."""
    exports = tmp_path / "exports"
    make_zip(exports.mkdir() or exports / "submissions.zip", {
        "lovelaceada_101_9001_multiAgents.py": agent("ada"),
        "hoppergrace_102_9002_multiAgents.py": agent("grace")})
    into = tmp_path / "teams"
    result = collect([exports], into)
    assert result.collected == []
    [refused] = result.manifest.entries
    assert refused.status == "refused" and refused.reason.startswith(
        "it is laid out as a whole canvas export (the uploads of several students), not one "
        "team's files: give the export to tournament collect as a source of its own")
    assert not (into / "submissions").exists()
    # Given as a source of its own, it is the export it is.
    assert collect([exports / "submissions.zip"], into).new == ["101", "102"]


def test_late_take_of_the_same_files_again_is_not_late(tmp_path: Path) -> None:
    """With --late take, a late upload of the very bytes a student handed in on time (checking
    that the upload worked) is that on-time submission: the files were on time."""
    folder = tmp_path / "canvas"
    write(folder / "smithjane_1001_5001_multiAgents.py", agent("jane"), when("2024-03-01 10:00"))
    write(folder / "smithjane_LATE_1001_5004_multiAgents.py", agent("jane"),
          when("2024-03-02 10:00"))
    write(folder / "roebob_1002_5002_multiAgents.py", agent("bob"), when("2024-03-01 10:00"))
    write(folder / "roebob_LATE_1002_5003_multiAgents.py", agent("bob-fixed"),
          when("2024-03-02 10:00"))
    into = tmp_path / "teams"
    collect([folder], into, deadline=when("2024-03-01 23:59"), late_policy="take")
    manifest = read_manifest(into)
    assert manifest is not None
    jane, bob = manifest.team("1001"), manifest.team("1002")
    assert jane is not None and bob is not None
    assert (jane.late, jane.late_seconds, jane.submitted_at) == (False, 0.0,
                                                                 "2024-03-01T10:00:00Z")
    assert jane.source.endswith("smithjane_1001_5001_multiAgents.py")
    again = entry(manifest, "smithjane_LATE_1001_5004_multiAgents.py")
    assert again.status == "superseded" and again.reason.startswith(
        "the same files as the team's submission before the deadline, which counts (not late)")
    # Other files late: taken, and late.
    assert bob.late and bob.late_seconds > 0
    assert tree(into / "1002") == {"multiAgents.py": agent("bob-fixed")}
    assert entry(manifest, "roebob_1002_5002_multiAgents.py").status == "superseded"


def test_a_students_own_words_carry_no_terminal_escape() -> None:
    """A Gradescope `:sid:` written with YAML escapes reached a marks warning, the manifest
    and marks.csv whole: the organizer's window title, a link and the line were the
    student's (the twelfth hostile review). A student's id, name and address are cleaned and
    bounded where they are read."""
    from tournament.sources import STUDENT_TEXT_LIMIT, Student

    student = Student(id="s1\x1b]0;PWNED\x1b\\\x1b]8;;http://evil.example/\x1b\\x",
                      name="Eve\u202e  X\n", email="e@x\x9b2J")
    assert (student.id, student.name, student.email) == (
        "s1]0;PWNED\\]8;;http://evil.example/\\x", "Eve X", "e@x2J")
    assert len(Student(id="7" * 10_000).id) == STUDENT_TEXT_LIMIT


def test_the_tournament_console_draws_no_terminal_escape() -> None:
    """Whatever renderable holds a student's text, the commands' console draws it cleaned;
    its own styles still reach a terminal."""
    import io

    from rich.table import Table

    from tournament.cli import _CleanConsole

    out = io.StringIO()
    console = _CleanConsole(file=out, force_terminal=True, width=100)
    table = Table()
    table.add_column("student")
    table.add_row("s1\x1b]0;PWNED\x07\x1b[2Jok\u202eXY")
    console.print("warning: student s1\x1b[2K\x1b[1GAll marks uploaded OK", markup=False,
                  style="yellow")
    console.print(table)
    text = out.getvalue()
    assert "All marks uploaded OK" in text and "PWNED" in text
    for sequence in ("\x1b]0;", "\x07", "\x1b[2J", "\x1b[2K", "\x1b[1G", "\u202e"):
        assert sequence not in text
    assert "\x1b[33m" in text  # the console's own colour
