"""A team is the regular files of its own folder: links, pipes, devices, sockets and odd names
are refused by name, in resolution (`pacman -p folder`), hashing and the tournament config,
and a team.yaml that is not plain bounded data is a clean error, never a crash."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pacman import teamfolder
from pacman.cli import main
from pacman.loader import SubmissionError, resolve
from pacman.teamfolder import TeamFolderError, team_digest, team_files
from tests.conftest import ROOT
from tournament.config import Entrant
from tournament.runner import submission_hash

EXAMPLE = ROOT / "submissions" / "example-team"
AGENT = "agent: multiAgents.py:ExampleExpectimaxAgent\n"


def team(root: Path, name: str, team_yaml: str | None = AGENT) -> Path:
    """A copy of the example team (its sources, and `team_yaml` as its team.yaml)."""
    folder = root / name
    folder.mkdir(parents=True)
    shutil.copy(EXAMPLE / "multiAgents.py", folder / "multiAgents.py")
    if team_yaml is not None:
        (folder / "team.yaml").write_text(team_yaml, encoding="utf-8")
    return folder


def pacman(*args: str) -> Result:
    return CliRunner().invoke(main, ["-l", "testClassic", "-q", "-n", "1", "-k", "1", *args])


def within_deadline(call: Callable[[], object]) -> BaseException | None:
    """Run `call` in a thread; what it raised (None if nothing), failing if it never returns.
    The deadline catches a hang (a fifo opened for reading); it is no timing threshold."""
    raised: list[BaseException] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "blocked"
    return raised[0] if raised else None


# ---- what a team folder may hold ---------------------------------------------------------------


def test_a_plain_team_lists_every_regular_file_caches_included(tmp_path: Path) -> None:
    folder = team(tmp_path, "alpha")
    (folder / "lib").mkdir()
    (folder / "lib" / "helpers.py").write_text("X = 1\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "helpers.cpython-311.pyc").write_bytes(b"\x00compiled")
    assert team_files(folder) == ["__pycache__/helpers.cpython-311.pyc", "lib/helpers.py",
                                  "multiAgents.py", "team.yaml"]


def test_a_symlink_to_another_teams_file_is_refused_by_name(tmp_path: Path) -> None:
    victim = team(tmp_path, "victim")
    thief = team(tmp_path, "thief")
    (thief / "multiAgents.py").unlink()
    (thief / "multiAgents.py").symlink_to(victim / "multiAgents.py")
    with pytest.raises(TeamFolderError) as info:
        team_files(thief)
    assert str(info.value).startswith(f"{thief / 'multiAgents.py'}: is a symbolic link;")
    with pytest.raises(SubmissionError, match=r"multiAgents\.py: is a symbolic link"):
        resolve(str(thief))


@pytest.mark.parametrize("target", ["inside", "outside", "folder", "dangling"])
def test_any_symlink_in_a_team_folder_is_refused_wherever_it_points(tmp_path: Path,
                                                                     target: str) -> None:
    folder = team(tmp_path, "t")
    link = folder / "sub" / "link"
    link.parent.mkdir()
    points = {"inside": folder / "multiAgents.py", "outside": tmp_path,
              "folder": folder, "dangling": tmp_path / "nowhere"}[target]
    link.symlink_to(points)
    with pytest.raises(TeamFolderError, match=f"^{link}: is a symbolic link"):
        team_files(folder)


def test_a_team_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    victim = team(tmp_path, "victim")
    (tmp_path / "copycat").symlink_to(victim)
    with pytest.raises(TeamFolderError, match=f"^{tmp_path / 'copycat'}: the team folder is a "
                       "symbolic link"):
        team_files(tmp_path / "copycat")


def test_a_hard_link_is_refused(tmp_path: Path) -> None:
    victim = team(tmp_path, "victim")
    thief = team(tmp_path, "thief")
    (thief / "multiAgents.py").unlink()
    os.link(victim / "multiAgents.py", thief / "multiAgents.py")
    with pytest.raises(TeamFolderError, match=r"multiAgents.py: is a hard link \(2 names"):
        team_files(thief)
    with pytest.raises(TeamFolderError, match="is a hard link"):
        team_files(victim)  # the victim's file has two names as well: neither plays


def test_a_fifo_and_a_socket_are_refused_and_nothing_blocks(tmp_path: Path) -> None:
    folder = team(tmp_path, "piped")
    os.mkfifo(folder / "data.pkl")
    problem = within_deadline(lambda: team_digest(folder))
    assert str(problem) == (f"{folder / 'data.pkl'}: is a named pipe (fifo); a team folder "
                            "holds only regular files and folders")
    os.unlink(folder / "data.pkl")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    cwd = os.getcwd()
    try:
        os.chdir(folder)  # a relative name: socket paths are short
        sock.bind("s")
    finally:
        os.chdir(cwd)
    try:
        with pytest.raises(TeamFolderError, match="s: is a socket; a team folder holds only"):
            team_files(folder)
    finally:
        sock.close()


def test_a_device_is_refused(tmp_path: Path) -> None:
    folder = team(tmp_path, "dev")
    try:
        os.mknod(folder / "zero", 0o600 | 0o020000, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    with pytest.raises(TeamFolderError, match="zero: is a device"):
        team_files(folder)


@pytest.mark.parametrize("name", ["evil\n.py", "\x1b]0;pwned\x07.py", "bad-\udcff.py"])
def test_a_name_that_is_not_printable_text_is_refused_and_shown_escaped(tmp_path: Path,
                                                                       name: str) -> None:
    folder = team(tmp_path, "odd")
    with open(os.path.join(os.fsencode(folder), os.fsencode(name)), "wb") as fh:
        fh.write(b"x = 1\n")
    with pytest.raises(TeamFolderError) as info:
        team_files(folder)
    assert f"the name {name!a} is not printable text" in str(info.value)
    assert "\n" not in str(info.value) and "\x1b" not in str(info.value)


def test_too_many_entries_or_bytes_are_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    folder = team(tmp_path, "big")
    for i in range(5):
        (folder / f"data{i}.txt").write_text("x" * 100)
    monkeypatch.setattr(teamfolder, "MAX_FILES", 4)
    with pytest.raises(TeamFolderError, match="more than 4 files and folders"):
        team_files(folder)
    monkeypatch.setattr(teamfolder, "MAX_FILES", 100)
    monkeypatch.setattr(teamfolder, "MAX_BYTES", 300)
    with pytest.raises(TeamFolderError, match="its files hold more than"):
        team_files(folder)


# ---- the hash covers what plays ----------------------------------------------------------------


def entrant(folder: Path) -> Entrant:
    return Entrant(folder.name, "team", str(folder), (), folder=folder)


def test_the_hash_covers_every_file_compiled_ones_included(tmp_path: Path) -> None:
    folder = team(tmp_path, "alpha")
    before = submission_hash(entrant(folder))
    (folder / "__pycache__").mkdir()
    cached = folder / "__pycache__" / "multiAgents.cpython-311.pyc"
    cached.write_bytes(b"other code")
    with_cache = submission_hash(entrant(folder))
    assert with_cache != before  # Python would import it: it is part of the submission
    cached.write_bytes(b"yet other code")
    assert submission_hash(entrant(folder)) not in (before, with_cache)
    twin = team(tmp_path / "elsewhere", "alpha")
    shutil.copytree(folder / "__pycache__", twin / "__pycache__")
    assert submission_hash(entrant(twin)) == submission_hash(entrant(folder))  # content only


def test_a_refused_folder_hashes_its_refusal_so_fixing_it_makes_it_stale(tmp_path: Path) -> None:
    victim = team(tmp_path, "victim")
    thief = team(tmp_path, "thief")
    (thief / "multiAgents.py").unlink()
    (thief / "multiAgents.py").symlink_to(victim / "multiAgents.py")
    refused = submission_hash(entrant(thief))
    assert refused != submission_hash(entrant(victim))
    (thief / "multiAgents.py").unlink()
    shutil.copy(victim / "multiAgents.py", thief / "multiAgents.py")
    assert submission_hash(entrant(thief)) not in (refused, "")
    assert submission_hash(entrant(thief)) == submission_hash(entrant(victim))


def test_the_hash_refuses_a_file_swapped_for_a_fifo_after_listing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = team(tmp_path, "racy")
    listed = team_files(folder)
    os.unlink(folder / "multiAgents.py")
    os.mkfifo(folder / "multiAgents.py")
    monkeypatch.setattr(teamfolder, "team_files", lambda _: listed)  # the listing was earlier
    problem = within_deadline(lambda: team_digest(folder))
    assert isinstance(problem, TeamFolderError)
    assert "is a named pipe (fifo); a team folder holds only regular files" in str(problem)


def test_the_hash_never_follows_a_folder_swapped_for_a_link_after_listing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found by the fourth hostile review: a team that could write to its folder during a run
    # swapped a subfolder for a link to the results folder between listing and copying.
    folder = team(tmp_path, "racy")
    (folder / "sub").mkdir()
    (folder / "sub" / ".game-secret").write_text("ours")
    listed = team_files(folder)
    elsewhere = tmp_path / "results"
    elsewhere.mkdir()
    (elsewhere / ".game-secret").write_text("the organizer's")
    shutil.rmtree(folder / "sub")
    (folder / "sub").symlink_to(elsewhere)
    monkeypatch.setattr(teamfolder, "team_files", lambda _: listed)
    copy = tmp_path / "copy"
    copy.mkdir()
    with pytest.raises(TeamFolderError, match=r"/sub: cannot be read as the team's own folder"):
        team_digest(folder, copy_to=copy)
    assert not (copy / "sub" / ".game-secret").exists()


def test_the_copy_holds_the_hashed_bytes_and_nothing_else(tmp_path: Path) -> None:
    folder = team(tmp_path, "team")
    (folder / "book" / "__pycache__").mkdir(parents=True)
    (folder / "book" / "openings.txt").write_text("North")
    (folder / "book" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"compiled")
    (folder / "empty").mkdir()
    os.utime(folder / "multiAgents.py", ns=(5, 5))
    copy = tmp_path / "copy"
    copy.mkdir()
    assert team_digest(folder, copy_to=copy) == team_digest(folder)
    seen = {str(p.relative_to(copy)): p.lstat() for p in copy.rglob("*")}
    assert sorted(seen) == ["book", "book/openings.txt", "multiAgents.py", "team.yaml"]
    assert (copy / "book" / "openings.txt").read_text() == "North"
    assert {oct(s.st_mode & 0o7777) for name, s in seen.items() if "." in name} == {"0o444"}
    assert oct(seen["book"].st_mode & 0o7777) == "0o755"
    assert {s.st_mtime_ns for s in seen.values()} == {0}


# ---- through `pacman -p folder` ----------------------------------------------------------------


def test_an_alias_bomb_in_team_yaml_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 10)]
    folder = team(tmp_path, "bomb", "\n".join(lines) + "\n" + AGENT + "args: {depth: *l9}\n")
    result = pacman("-p", str(folder))
    assert result.exit_code == 2, result.output
    assert result.output == (f"pacman: error: {folder / 'team.yaml'}: line 1, column 5: an "
                             "anchor (&name) is not allowed here: write the value out\n")


def test_deep_nesting_in_team_yaml_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    folder = team(tmp_path, "deep", AGENT + "args: " + "[" * 10_000 + "]" * 10_000 + "\n")
    result = pacman("-p", str(folder))
    assert result.exit_code == 2, result.output
    assert result.output == (f"pacman: error: {folder / 'team.yaml'}: line 2, column 14: "
                             "nested more than 8 levels deep\n")


@pytest.mark.parametrize("team_yaml, message", [
    ("agent: multiAgents.py:ExampleExpectimaxAgent\nargs: {depth: " + "9" * 5000 + "}\n",
     "line 2, column 15: a whole number larger than 9223372036854775807"),
    ("agent: !!python/name:os.system ''\n", "line 1, column 8: a tag (!!python/name:os.system)"),
    ("agent: multiAgents.py:ExampleExpectimaxAgent\nargs: {depth: [2]}\n",
     "args.depth: expected a text, number or true/false"),
    ("agent: multiAgents.py:ExampleExpectimaxAgent\nargs: {1: 2}\n",
     "args: 1 is not an option name"),
    ("agent: ../victim/multiAgents.py:ExampleExpectimaxAgent\n",
     "agent: '../victim/multiAgents.py' is outside the team's folder"),
    ("agent: /etc/passwd:Agent\n", "agent: '/etc/passwd' is outside the team's folder"),
    ("agent: other.py:Agent\n", "agent: 'other.py' no such file in the team's folder"),
    ("agent: \"multiAgents.py\\0:Agent\"\n", "agent: 'multiAgents.py\\x00' no such file"),
])
def test_team_yaml_problems_exit_2_with_the_file_named(tmp_path: Path, team_yaml: str,
                                                       message: str) -> None:
    folder = team(tmp_path, "t", team_yaml)
    result = pacman("-p", str(folder))
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"pacman: error: {folder / 'team.yaml'}: ")
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_symlinked_agent_file_or_team_folder_exits_2_naming_the_link(tmp_path: Path) -> None:
    victim = team(tmp_path, "victim")
    thief = team(tmp_path, "thief", "agent: mine.py:ExampleExpectimaxAgent\n")
    (thief / "mine.py").symlink_to(victim / "multiAgents.py")
    result = pacman("-p", str(thief))
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"pacman: error: {thief / 'mine.py'}: is a symbolic link")
    (tmp_path / "alias").symlink_to(victim)
    result = pacman("-p", str(tmp_path / "alias"))
    assert result.exit_code == 2, result.output
    assert "the team folder is a symbolic link" in result.output


def test_a_fifo_in_a_team_folder_exits_2_at_once(tmp_path: Path) -> None:
    folder = team(tmp_path, "piped", None)
    os.mkfifo(folder / "team.yaml")
    outcome: list[Result] = []
    assert within_deadline(lambda: outcome.append(pacman("-p", str(folder)))) is None
    assert outcome[0].exit_code == 2
    assert outcome[0].output == (f"pacman: error: {folder / 'team.yaml'}: is a named pipe "
                                 "(fifo); a team folder holds only regular files and folders\n")


def test_a_clean_team_folder_still_plays(tmp_path: Path) -> None:
    folder = team(tmp_path, "fine", AGENT + "args: {depth: 1}\n")
    result = pacman("-p", str(folder), "--no-sandbox")
    assert result.exit_code == 0, result.output
    assert "Average Score:" in result.output
    assert not (folder / "__pycache__").exists()  # the platform writes nothing into a team


@pytest.mark.parametrize("name", ["helper.pyc", "sub/agent.pyo", "native.so",
                                  "fast.cpython-311-x86_64-linux-gnu.so"])
def test_compiled_code_outside_pycache_is_refused(tmp_path: Path, name: str) -> None:
    team = tmp_path / "team"
    (team / name).parent.mkdir(parents=True, exist_ok=True)
    (team / name).write_bytes(b"\0compiled")
    (team / "__pycache__").mkdir()
    (team / "__pycache__" / "agent.cpython-311.pyc").write_bytes(b"\0")  # allowed, never read
    with pytest.raises(TeamFolderError, match=r"compiled|native"):
        team_files(team)
    (team / name).unlink()
    assert team_files(team) == ["__pycache__/agent.cpython-311.pyc"]


def test_a_folder_of_many_big_sources_is_refused_before_any_is_parsed(tmp_path: Path) -> None:
    # Found by the second hostile review: 24 files just under the per-file cap cost the
    # organizer 28 s and 450 MB per resolution.
    from pacman.loader import SOURCE_LIMIT

    team = tmp_path / "team"
    team.mkdir()
    for i in range(3):
        (team / f"part{i}Agents.py").write_text("X = [" + "0," * (SOURCE_LIMIT // 5) + "]\n")
    with pytest.raises(SubmissionError, match=r"add a team\.yaml"):
        resolve(str(team))


def test_the_listing_never_follows_a_folder_swapped_for_a_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found by the fifth hostile review: a subfolder swapped for a link between the listing
    # of its parent and its own listed the other folder, whose names reached the error message.
    folder = team(tmp_path, "racy")
    (folder / "sub").mkdir()
    (folder / "sub" / "ours.txt").write_text("")
    private = tmp_path / "organizer-private"
    private.mkdir()
    (private / "AAA-private-name.txt").write_text("")
    listing = teamfolder._listing

    def swapping(top: int, where: Path, relative: str) -> list[tuple[str, os.stat_result]]:
        found = listing(top, where, relative)
        if relative == "":
            shutil.rmtree(folder / "sub")
            (folder / "sub").symlink_to(private)
        return found

    monkeypatch.setattr(teamfolder, "_listing", swapping)
    with pytest.raises(TeamFolderError, match="cannot be read as the team's own folder") as error:
        team_files(folder)
    assert "AAA" not in str(error.value)


def test_a_file_that_grows_after_the_listing_is_read_no_further_than_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found by the fifth hostile review: a file made huge (sparse) once listed was copied
    # whole, past the 256 MiB a team folder may hold, until the disk was full.
    monkeypatch.setattr(teamfolder, "MAX_BYTES", 64 * 1024)
    folder = team(tmp_path, "growing")
    listed = team_files(folder)
    with open(folder / "multiAgents.py", "ab") as fh:
        fh.truncate(10 * 1024 * 1024)
    monkeypatch.setattr(teamfolder, "team_files", lambda _: listed)
    copy = tmp_path / "copy"
    copy.mkdir()
    with pytest.raises(TeamFolderError, match="grew while they were read"):
        team_digest(folder, copy_to=copy)
    assert sum(p.stat().st_size for p in copy.rglob("*") if p.is_file()) <= 2 * 1024 * 1024


@pytest.mark.parametrize("parts", [["d"] * 33, ["n" * 250] * 5, ["\U0001f600" * 63] * 5],
                         ids=["deep", "long", "long-in-bytes"])
def test_a_path_too_deep_or_too_long_is_refused(tmp_path: Path, parts: list[str]) -> None:
    # Found by the sixth and seventh hostile reviews: a 4,080-byte path was hashed but could not
    # be copied beneath a sandbox's folder (every game an unscored infra_error), and a chain of
    # 4,990 folders cost 12 million opens to list.
    folder = team(tmp_path, "deep")
    where = folder.joinpath(*parts)
    where.mkdir(parents=True)
    (where / "notes.txt").write_text("")
    with pytest.raises(TeamFolderError, match="longer than 1024 bytes or deeper than 32"):
        team_files(folder)


def test_a_path_as_deep_and_long_as_allowed_is_copied(tmp_path: Path) -> None:
    folder = team(tmp_path, "deep")
    where = folder.joinpath(*["d" * 30] * 31)
    where.mkdir(parents=True)
    (where / "notes.txt").write_text("deep")
    copy = tmp_path / "copy"
    copy.mkdir()
    team_digest(folder, copy_to=copy)
    assert (copy.joinpath(*["d" * 30] * 31) / "notes.txt").read_text() == "deep"


@pytest.mark.parametrize("team_yaml", [AGENT, None], ids=["team.yaml", "found-by-name"])
def test_resolving_a_team_never_reads_a_file_swapped_for_a_link_after_the_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, team_yaml: str | None) -> None:
    # Found by the seventh hostile review: the agent file was read again by its path after the
    # folder was checked; swapped for a link to another team's file, that team's class names
    # reached the error message and the agent's path pointed into the other folder.
    from pacman import loader

    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "multiAgents.py").write_text("class VictimSecretAgent:\n    pass\n")
    folder = team(tmp_path, "racer", team_yaml)
    listed = team_files(folder)
    (folder / "multiAgents.py").unlink()
    (folder / "multiAgents.py").symlink_to(victim / "multiAgents.py")
    monkeypatch.setattr(loader, "team_files", lambda _: listed)  # the check came first
    try:
        ref = resolve(str(folder))
    except SubmissionError as error:  # no class found: the message names none of the victim's
        assert "symbolic link" in str(error) or "none found" in str(error), str(error)
        assert "VictimSecret" not in str(error)
    else:  # the file named in team.yaml: its sandbox will say it cannot load it
        assert ref.path == str(folder.resolve() / "multiAgents.py")


def test_the_room_a_copy_needs_counts_whole_blocks(tmp_path: Path) -> None:
    # Found by the ninth hostile review: 4,000 one-byte files were counted as 4 kB, and their
    # copy filled a TMPDIR the room check had let through.
    folder = team(tmp_path, "many", team_yaml=None)
    (folder / "data").mkdir()
    for i in range(100):
        (folder / "data" / f"{i}.txt").write_text("x")
    space, inodes = teamfolder.team_size(folder)
    assert space >= 100 * 2 * teamfolder.BLOCK
    assert inodes == 100 + 1 + 2  # the files, the agent's file, data/ and the top folder
