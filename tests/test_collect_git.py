"""`tournament collect` from a list of git repositories made in the test: the newest commit
at or before the deadline (the one after it set aside, or taken with --late take), the commit
pinned in the manifest, a second collect that changes nothing, a new commit that changes its
team only, a repository that cannot be fetched keeping the team's files, nothing a
repository or a URL controls run (ext::, options), the list's bad lines with file and line,
and the YAML form."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from tests.collect_helpers import agent, sha, snapshot, tree, write
from tournament import gitsource
from tournament.collect import CollectError
from tournament.collect import collect as collect_any
from tournament.gitsource import CACHE_FOLDER, cache_path
from tournament.manifest import read_manifest
from tournament.sources import RepositoryPolicy, same_repository
from tournament.times import parse_time

#: The repositories here are made in the test, on this machine: allowed on purpose.
LOCAL = RepositoryPolicy(local=True)
collect = partial(collect_any, repositories=LOCAL)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

DEADLINE = parse_time("2024-03-01T23:59:00Z")


def git(repo: Path, *args: str, at: str = "2024-03-01T10:00:00Z") -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": at, "GIT_COMMITTER_DATE": at,
           "GIT_AUTHOR_NAME": "Student", "GIT_AUTHOR_EMAIL": "s@example.edu",
           "GIT_COMMITTER_NAME": "Student", "GIT_COMMITTER_EMAIL": "s@example.edu",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def commit(repo: Path, files: dict[str, bytes], at: str) -> str:
    """Commit `files` (written over the work tree) at the time `at`; its sha."""
    if not (repo / ".git").exists():
        repo.mkdir(parents=True)
        git(repo, "init", "-q", "-b", "main")
    for name, data in files.items():
        write(repo / name, data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"work at {at}", at=at)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repos(tmp_path: Path) -> dict[str, object]:
    """alpha: one commit before the deadline, one after; beta: its own later deadline, a
    README beside the agent; delta: a tag."""
    alpha = tmp_path / "repos" / "alpha"
    early = commit(alpha, {"multiAgents.py": agent("alpha-1")}, "2024-03-01T10:00:00Z")
    late = commit(alpha, {"multiAgents.py": agent("alpha-2")}, "2024-03-02T10:00:00Z")
    beta = tmp_path / "repos" / "beta"
    beta_sha = commit(beta, {"multiAgents.py": agent("beta"), "README.md": b"# beta\n"},
                      "2024-03-03T10:00:00Z")
    delta = tmp_path / "repos" / "delta"
    tagged = commit(delta, {"submission.py": agent("delta-tagged")}, "2024-03-01T09:00:00Z")
    git(delta, "tag", "final")
    commit(delta, {"submission.py": agent("delta-later")}, "2024-03-01T11:00:00Z")
    listing = write(tmp_path / "repos.csv", (
        "team,url,ref,deadline,members\n"
        f"alpha,{alpha},main,,s1;s2\n"
        f"beta,{beta},main,2024-03-04T00:00:00+01:00,s3\n"
        f"delta,{delta},final,,\n").encode())
    return {"list": listing, "alpha": alpha, "early": early, "late": late, "beta": beta,
            "beta_sha": beta_sha, "delta": delta, "tagged": tagged}


def test_the_commit_before_the_deadline_and_the_late_one_aside(tmp_path: Path,
                                                                 repos: dict) -> None:
    into = tmp_path / "teams"
    result = collect([repos["list"]], into, deadline=DEADLINE)
    assert result.new == ["alpha", "beta", "delta"]
    assert tree(into / "alpha") == {"multiAgents.py": agent("alpha-1")}
    assert tree(into / "beta") == {"multiAgents.py": agent("beta"), "README.md": b"# beta\n"}
    assert tree(into / "delta") == {"submission.py": agent("delta-tagged")}
    manifest = read_manifest(into)
    assert manifest is not None
    alpha = manifest.team("alpha")
    assert alpha is not None
    assert alpha.commit == repos["early"]
    assert alpha.source == f"git: {repos['alpha']}@main ({repos['early'][:12]})"
    assert alpha.submitted_at == "2024-03-01T10:00:00Z"
    assert [m.id for m in alpha.members] == ["s1", "s2"]
    assert alpha.files == {"multiAgents.py": sha(agent("alpha-1"))}
    [late] = [e for e in manifest.entries if e.status == "late"]
    assert (late.team, late.commit, late.submitted_at) == ("alpha", repos["late"],
                                                           "2024-03-02T10:00:00Z")
    assert late.reason == "after the deadline (2024-03-01T23:59:00Z) by 10 h 01 min"
    # beta's own deadline (23:00 UTC on the 3rd) lets its commit of the 3rd count.
    beta = manifest.team("beta")
    assert beta is not None and (beta.commit, beta.late) == (repos["beta_sha"], False)
    delta = manifest.team("delta")
    assert delta is not None and delta.commit == repos["tagged"]
    # The repositories are cached inside the collected folder, under a name no team has.
    assert sorted(p.name for p in (into / ".git-cache").iterdir()) and \
        not (into / ".git-cache" / "HEAD").exists()


def test_late_take(tmp_path: Path, repos: dict) -> None:
    into = tmp_path / "teams"
    collect([repos["list"]], into, deadline=DEADLINE, late_policy="take")
    assert tree(into / "alpha") == {"multiAgents.py": agent("alpha-2")}
    manifest = read_manifest(into)
    assert manifest is not None
    alpha = manifest.team("alpha")
    assert alpha is not None
    assert (alpha.commit, alpha.late, alpha.late_seconds) == (repos["late"], True, 36060.0)
    [older] = [e for e in manifest.entries if e.status == "superseded"]
    assert older.commit == repos["early"]


def test_collect_again_then_a_new_commit(tmp_path: Path, repos: dict) -> None:
    into = tmp_path / "teams"
    collect([repos["list"]], into, deadline=DEADLINE)
    first = snapshot(into)
    again = collect([repos["list"]], into, deadline=DEADLINE)
    assert again.unchanged == ["alpha", "beta", "delta"]
    assert snapshot(into) == first
    newer = commit(repos["beta"], {"multiAgents.py": agent("beta-2")}, "2024-03-03T12:00:00Z")
    third = collect([repos["list"]], into, deadline=DEADLINE)
    assert (third.changed, third.unchanged) == (["beta"], ["alpha", "delta"])
    assert tree(into / "beta")["multiAgents.py"] == agent("beta-2")
    manifest = read_manifest(into)
    assert manifest is not None
    beta = manifest.team("beta")
    assert beta is not None and beta.commit == newer


def test_a_repository_that_cannot_be_fetched_keeps_the_team(tmp_path: Path,
                                                            repos: dict) -> None:
    into = tmp_path / "teams"
    collect([repos["list"]], into, deadline=DEADLINE)
    kept = snapshot(into / "alpha")
    repos["alpha"].rename(tmp_path / "gone")
    result = collect([repos["list"]], into, deadline=DEADLINE)
    assert "alpha" in result.kept and "alpha" not in result.collected
    assert snapshot(into / "alpha") == kept
    manifest = read_manifest(into)
    assert manifest is not None
    alpha = manifest.team("alpha")
    assert alpha is not None and alpha.commit == repos["early"]
    [problem] = manifest.problems
    assert problem.startswith(f"repos.csv:2: team alpha: {repos['alpha']} cannot be fetched "
                              "(git fetch failed: ")
    assert problem.endswith("the team keeps the files collected before")
    [refused] = [e for e in manifest.entries if e.status == "refused"]
    assert refused.team == "alpha" and refused.reason.startswith("cannot be fetched")
    # What the manifest said of the kept team's other submissions stays (its late commit).
    [late] = [e for e in manifest.entries if e.status == "late"]
    assert (late.team, late.commit) == ("alpha", repos["late"])


def test_nothing_a_url_or_a_repository_controls_runs(tmp_path: Path) -> None:
    witness = tmp_path / "ran"
    hostile = tmp_path / "hostile"
    commit(hostile, {"multiAgents.py": agent("hostile")}, "2024-03-01T08:00:00Z")
    os.symlink("/etc/passwd", hostile / "passwd.py")
    git(hostile, "add", "-A")
    git(hostile, "commit", "-q", "-m", "a link", at="2024-03-01T09:00:00Z")
    listing = write(tmp_path / "repos.csv", (
        "team,url,ref\n"
        f"ext,ext::sh -c touch% {witness},main\n"
        f"option,--upload-pack=touch {witness},main\n"
        f"badref,{hostile},--help\n"
        f"hostile,{hostile},main\n"
        f"hostile,{hostile},main\n").encode())
    into = tmp_path / "teams"
    result = collect([listing], into)
    assert not witness.exists()
    assert result.collected == []
    problems = result.manifest.problems
    assert problems[0] == (f"repos.csv:3: the URL '--upload-pack=touch {witness}' starts with "
                           "'-'; left out")
    assert problems[1] == "repos.csv:4: '--help' is not a branch or tag name; left out"
    assert problems[2] == ("repos.csv:6: team 'hostile' is given twice (first at "
                           "repos.csv:5); left out: a team has one repository")
    assert "transport 'ext' not allowed" in problems[3]
    [link] = [e for e in result.manifest.entries if e.team == "hostile"]
    assert link.status == "refused" and "link" in link.reason
    assert not (into / "hostile").exists()


def test_yaml_list(tmp_path: Path, repos: dict) -> None:
    listing = write(tmp_path / "repos.yaml", (
        f"- team: Alpha Team\n  url: {repos['alpha']}\n  ref: main\n"
        "  deadline: 2024-03-03T00:00:00Z\n  members: [s1, s2]\n"
        "- team: beta\n  url: x\n").encode())
    into = tmp_path / "teams"
    result = collect([listing], into, deadline=DEADLINE)
    folder = result.new[0]
    assert tree(into / folder) == {"multiAgents.py": agent("alpha-2")}
    assert result.manifest.problems == ("repos.yaml: entry 2: no ref; left out",)


def test_a_list_that_cannot_be_read_stops_before_anything(tmp_path: Path) -> None:
    listing = write(tmp_path / "repos.csv", b"team,repository\nalpha,x\n")
    into = tmp_path / "teams"
    with pytest.raises(CollectError, match=r"repos\.csv:1: expected the columns team, url, ref"):
        collect([listing], into)
    assert not into.exists()


def test_a_server_that_never_answers_is_a_timeout(tmp_path: Path) -> None:
    """A git server that accepts the connection and then says nothing: the fetch is stopped
    at the collection's time limit and reported; the collection goes on."""
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)  # connections complete in the backlog, and nothing ever answers
        port = server.getsockname()[1]
        listing = write(tmp_path / "repos.csv",
                        f"team,url,ref\nsilent,git://127.0.0.1:{port}/x.git,main\n".encode())
        result = collect([listing], tmp_path / "teams", git_timeout=2)
    [problem] = result.manifest.problems
    assert problem.startswith(f"repos.csv:2: team silent: git://127.0.0.1:{port}/x.git cannot "
                              "be fetched (git ")
    assert "took longer than 2 s" in problem


def test_a_repository_of_this_machine_needs_local_repositories(tmp_path: Path,
                                                               repos: dict) -> None:
    """A URL in the list may come from a student: by default one naming a repository of this
    machine (a path, file://) is refused, so that no student can make the staff's solutions
    or another team's cached repository their submission."""
    into = tmp_path / "teams"
    listing = write(tmp_path / "student-urls.csv", (
        "team,url,ref\n"
        f"alpha,{repos['alpha']},main\n"
        f"beta,file://{repos['beta']},main\n").encode())
    result = collect_any([listing], into, deadline=DEADLINE)
    assert result.collected == []
    reasons = {e.team: e.reason for e in result.manifest.entries}
    for team in ("alpha", "beta"):
        assert reasons[team].startswith("a repository of this machine (a path or file://) is "
                                        "collected only with --local-repositories")
    assert not (into / "alpha").exists()
    # Allowed on purpose, they are fetched (beta's commit came after the deadline: late).
    allowed = collect([listing], into, deadline=DEADLINE)
    assert allowed.new == ["alpha"]
    assert {(e.team, e.status) for e in allowed.manifest.entries} == {("alpha", "late"),
                                                                      ("beta", "late")}


def test_what_git_reads_from_this_machine() -> None:
    from tournament.sources import is_local_url
    for url in ("/srv/repo.git", "repo", "./r", "file:///srv/r.git", "FILE://x", "a/b:c"):
        assert is_local_url(url), url
    for url in ("https://host/r.git", "ssh://host/r", "git@github.com:team/r.git",
                "host:path/r.git", "git://host/r"):
        assert not is_local_url(url), url


def test_a_final_commit_dated_before_its_parent_is_still_the_one_collected(
        tmp_path: Path) -> None:
    """Found by the eighth hostile review: the commit taken was the newest by date anywhere
    in the history, so a final commit from a laptop whose clock was behind lost to its own
    parent, listed as superseded. The latest commit of the history dated before the
    deadline is taken, with or without one."""
    repo = tmp_path / "repos" / "skew"
    commit(repo, {"multiAgents.py": agent("first")}, "2024-03-01T19:00:00Z")
    final = commit(repo, {"multiAgents.py": agent("final")}, "2024-03-01T16:00:00Z")
    listing = write(tmp_path / "repos.csv", f"team,url,ref\nskew,{repo},main\n".encode())
    for deadline, late in ((DEADLINE, "aside"), (DEADLINE, "take"), (None, "aside")):
        into = tmp_path / f"teams-{late}-{deadline is None}"
        collect([listing], into, deadline=deadline, late_policy=late)
        assert (into / "skew" / "multiAgents.py").read_bytes() == agent("final")
        record = read_manifest(into).team("skew")  # type: ignore[union-attr]
        assert record is not None and record.commit == final


def test_a_repositorys_attributes_run_nothing_and_change_no_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the eighth hostile review: `git archive` honoured the repository's own
    `.gitattributes`. With `export-subst` it expanded `$Format:...$` in the student's files
    (`%G?` verifying the commit's signature with a program the signature chose), and with
    `filter` it ran a driver of the organizer's git config. Files are collected as their
    bytes."""
    marker = tmp_path / "filter-ran"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f'[filter "lfs"]\n\tsmudge = sh -c "touch {marker}; cat"\n\trequired = true\n')
    monkeypatch.setenv("HOME", str(home))
    repo = tmp_path / "repos" / "attrs"
    source = b"# $Format:%H %G?$\n" + agent("attrs")
    commit(repo, {".gitattributes": b"*.py export-subst filter=lfs\n",
                  "multiAgents.py": source}, "2024-03-01T10:00:00Z")
    listing = write(tmp_path / "repos.csv", f"team,url,ref\nattrs,{repo},main\n".encode())
    collect([listing], tmp_path / "teams", deadline=DEADLINE)
    assert (tmp_path / "teams" / "attrs" / "multiAgents.py").read_bytes() == source
    assert not marker.exists()


def test_what_git_says_is_kept_as_its_tail_and_a_long_command_is_ended(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository's server can make git print without end (its "remote:" lines): what
    git prints is read as it comes, and only the tail of its errors kept (the eighth
    hostile review saw the organizer's memory grow at the speed of the server)."""
    from tournament.gitsource import GitProblem, run_git

    spew = tmp_path / "ssh"
    spew.write_text("#!/bin/sh\nyes 'remote: noise' | head -c 20000000 >&2\n"
                    "echo 'the last words' >&2\nexit 1\n")
    spew.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(spew))
    with pytest.raises(GitProblem) as problem:
        run_git(None, "ls-remote", "ssh://example.invalid/repo.git", timeout=120)
    assert "the last words" in str(problem.value) and len(str(problem.value)) < 1000
    forever = tmp_path / "forever"
    forever.write_text("#!/bin/sh\nwhile :; do echo remote: still here >&2; done\n")
    forever.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(forever))
    with pytest.raises(GitProblem, match="took longer than 2 s"):
        run_git(None, "ls-remote", "ssh://example.invalid/repo.git", timeout=2)
    # What it prints is bounded too.
    from tournament import gitsource

    monkeypatch.setattr(gitsource, "OUTPUT_LIMIT", 100)
    with pytest.raises(GitProblem, match="printed more than 100 bytes"):
        run_git(None, "help", "-a")
    monkeypatch.setattr(gitsource, "ERROR_TAIL", 10)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(spew))
    with pytest.raises(GitProblem) as tail:
        run_git(None, "ls-remote", "ssh://example.invalid/repo.git", timeout=120)
    assert str(tail.value).startswith("git ls-remote failed: ") and len(str(tail.value)) < 40


def test_a_repository_named_by_two_teams_is_said_and_prefixes_bound_the_urls(
        tmp_path: Path) -> None:
    """Found by the eighth hostile review: a student who gave another team's repository URL
    (or `.../alpha/` for `.../alpha`), or the staff's, had it collected as their own without
    a word. Two teams on one repository, or on one commit, are said as problems; and
    `--repository-prefix` collects only the course's repositories."""
    course = tmp_path / "repos" / "course"
    alpha = course / "alpha"
    sha_alpha = commit(alpha, {"multiAgents.py": agent("alpha")}, "2024-03-01T10:00:00Z")
    staff = tmp_path / "repos" / "staff"
    commit(staff, {"multiAgents.py": agent("solution")}, "2024-03-01T10:00:00Z")
    listing = write(tmp_path / "repos.csv", (
        "team,url,ref\n"
        f"alpha,{alpha},main\n"
        f"mallory,{alpha}/,main\n"
        f"eve,{staff},main\n").encode())
    result = collect([listing], tmp_path / "teams", deadline=DEADLINE)
    problems = read_manifest(tmp_path / "teams").problems  # type: ignore[union-attr]
    assert any("teams alpha, mallory name the same repository" in p for p in problems)
    assert any(f"teams alpha, mallory have the same commit {sha_alpha[:12]}" in p
               for p in problems)
    assert sorted(result.collected) == ["alpha", "eve", "mallory"]
    # With the course's prefix, the staff's repository is not collected.
    result = collect([listing], tmp_path / "bounded", deadline=DEADLINE,
                     repositories=RepositoryPolicy(local=True, prefixes=(f"{course}/",)))
    assert sorted(result.collected) == ["alpha", "mallory"]
    [refused] = [e for e in result.manifest.entries if e.team == "eve"]
    assert refused.status == "refused" and "--repository-prefix" in refused.reason


def test_a_repository_prefix_is_a_folder_that_dot_segments_cannot_leave(
        tmp_path: Path) -> None:
    """`--repository-prefix .../course` admits `.../course/alpha`, not `.../course-staff/x`
    nor `.../course/../staff`."""
    course = tmp_path / "repos" / "course"
    commit(course / "alpha", {"multiAgents.py": agent("alpha")}, "2024-03-01T10:00:00Z")
    commit(tmp_path / "repos" / "course-staff", {"multiAgents.py": agent("staff")},
           "2024-03-01T10:00:00Z")
    commit(tmp_path / "repos" / "staff", {"multiAgents.py": agent("staff")},
           "2024-03-01T10:00:00Z")
    listing = write(tmp_path / "repos.csv", (
        "team,url,ref\n"
        f"alpha,{course}/alpha,main\n"
        f"sibling,{course}-staff,main\n"
        f"climber,{course}/../staff,main\n"
        f"encoded,{course}/..%2fstaff,main\n"
        f"slashed,{course}/..\\staff,main\n").encode())
    result = collect([listing], tmp_path / "teams", deadline=DEADLINE,
                     repositories=RepositoryPolicy(local=True, prefixes=(str(course),)))
    assert result.collected == ["alpha"]
    reasons = {e.team: e.reason for e in result.manifest.entries if e.status == "refused"}
    assert "starts with none of" in reasons["sibling"]
    assert "'..' segment" in reasons["climber"]
    assert "an escape (%)" in reasons["encoded"] and "a backslash" in reasons["slashed"]


def test_a_history_larger_than_the_repository_limit_is_not_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file once committed is fetched even when deleted since, and the cache lives across
    collections: a history over the limit (here 1 MiB) is not collected and its cache is
    removed, whether it arrives in one fetch (the kernel stops the pack at the limit) or
    over several force-pushes of new junk (the sum is checked after each fetch); its team
    keeps what it had, and the other teams are collected."""
    policy = RepositoryPolicy(local=True, max_bytes=1024 * 1024)

    def grow(repo: Path, size: int, at: str, branch: str | None = None) -> None:
        """Commit `size` random bytes and delete them in the next commit; on a new history
        made `main` (a force-push) when `branch` is given."""
        if branch:
            git(repo, "checkout", "-q", "--orphan", branch)
        commit(repo, {"junk.bin": os.urandom(size)}, at)
        (repo / "junk.bin").unlink()
        commit(repo, {"multiAgents.py": agent(f"{repo.name} {at}")}, at)
        if branch:
            git(repo, "branch", "-f", "main", branch)

    def collected(listing: Path, into: Path) -> tuple[list[str], dict[str, str]]:
        result = collect([listing], into, deadline=DEADLINE, repositories=policy)
        return result.collected, {e.team or "": e.reason for e in result.manifest.entries
                                  if e.status == "refused"}

    alpha = tmp_path / "repos" / "alpha"
    commit(alpha, {"multiAgents.py": agent("alpha")}, "2024-03-01T08:00:00Z")
    honest = tmp_path / "repos" / "honest"
    commit(honest, {"multiAgents.py": agent("honest")}, "2024-03-01T08:00:00Z")
    listing = write(tmp_path / "repos.csv", (
        f"team,url,ref\nalpha,{alpha},main\nhonest,{honest},main\n").encode())
    into = tmp_path / "teams"
    assert sorted(collected(listing, into)[0]) == ["alpha", "honest"]
    kept = snapshot(into / "alpha")
    # One fetch of 3 MiB: the kernel stops its pack at the limit, as it is written.
    grow(alpha, 3 * 1024 * 1024, "2024-03-01T09:00:00Z")
    commit(honest, {"multiAgents.py": agent("honest 2")}, "2024-03-01T09:00:00Z")
    dropped: list[int] = []
    drop = gitsource._drop
    monkeypatch.setattr(gitsource, "_drop", lambda path: dropped.append(drop(path)) or dropped[-1])
    new, refused = collected(listing, into)
    assert dropped == [1024 * 1024]  # the pack cut at exactly the limit, then removed
    assert new == ["honest"] and snapshot(into / "alpha") == kept
    assert "its fetched history is larger than 1 MiB" in refused["alpha"]
    assert not cache_path(into / CACHE_FOLDER, str(alpha)).exists()
    assert not list((into / CACHE_FOLDER).glob("*/objects/pack/tmp_*"))
    # Two fetches of 700 KiB each: each under the limit, the cache over it.
    beta = tmp_path / "repos" / "beta"
    commit(beta, {"multiAgents.py": agent("beta")}, "2024-03-01T08:00:00Z")
    grow(beta, 700 * 1024, "2024-03-01T09:00:00Z")
    listing = write(tmp_path / "beta.csv", f"team,url,ref\nbeta,{beta},main\n".encode())
    assert collected(listing, into)[0] == ["beta"]
    grow(beta, 700 * 1024, "2024-03-01T09:30:00Z", branch="fresh")
    new, refused = collected(listing, into)
    assert new == [] and "its fetched history is larger than 1 MiB" in refused["beta"]
    assert not cache_path(into / CACHE_FOLDER, str(beta)).exists()


def test_a_failed_fetch_and_a_shared_url_are_bounded_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fetch that stores its pack and then fails (a server that errs at the end) is
    size-checked too; and when one row's ref takes a cache over the limit, another row on the
    same URL, read from that cache before, is not collected from the removed cache either:
    both teams keep their files, saying why."""
    policy = RepositoryPolicy(local=True, max_bytes=1024 * 1024)
    shared = tmp_path / "repos" / "shared"
    commit(shared, {"multiAgents.py": agent("small")}, "2024-03-01T08:00:00Z")
    git(shared, "checkout", "-q", "-b", "big")
    commit(shared, {"junk.bin": os.urandom(600 * 1024)}, "2024-03-01T08:10:00Z")
    commit(shared, {"junk2.bin": os.urandom(600 * 1024)}, "2024-03-01T08:20:00Z")
    listing = write(tmp_path / "repos.csv", (
        f"team,url,ref\nsmall,{shared},main\nbig,{shared},big\n").encode())
    result = collect([listing], tmp_path / "teams", deadline=DEADLINE, repositories=policy)
    assert result.collected == []
    reasons = {e.team: e.reason for e in result.manifest.entries if e.status == "refused"}
    assert set(reasons) == {"small", "big"}
    assert all("larger than 1 MiB" in reason for reason in reasons.values())
    # A fetch that stored its pack, then failed: over the limit, removed.
    solo = tmp_path / "repos" / "solo"
    commit(solo, {"multiAgents.py": agent("solo")}, "2024-03-01T08:00:00Z")
    commit(solo, {"junk.bin": os.urandom(1200 * 1024)}, "2024-03-01T08:30:00Z")
    listing = write(tmp_path / "solo.csv", f"team,url,ref\nsolo,{solo},main\n".encode())
    run = gitsource.run_git

    def erring(repo: Path | None, *args: str, **kw: object) -> str:
        out = run(repo, *args, **kw)  # type: ignore[arg-type]
        if args[0] == "fetch":
            raise gitsource.GitProblem("git fetch failed: the server hung up at the end")
        return out

    monkeypatch.setattr(gitsource, "run_git", erring)
    monkeypatch.setattr(gitsource, "_limit_files", lambda size: None)  # the pack lands whole
    into = tmp_path / "solo-teams"
    result = collect([listing], into, deadline=DEADLINE, repositories=policy)
    [refused] = [e for e in result.manifest.entries if e.team == "solo"]
    assert "larger than 1 MiB" in refused.reason
    assert not cache_path(into / CACHE_FOLDER, str(solo)).exists()


def test_the_fetch_file_limit_keeps_a_lower_hard_limit_of_the_organizers() -> None:
    """An organizer whose shell set a hard file-size limit below --repository-limit gets
    that limit, not a crash of collect (setrlimit may not raise a hard limit)."""
    code = ("import resource\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
            "from tournament.gitsource import _limit_files\n"
            "_limit_files(1 << 30)\n"
            "print(resource.getrlimit(resource.RLIMIT_FSIZE))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "(4096, 4096)"


@pytest.mark.parametrize("a, b", [
    ("git@github.com:Course/Alpha.git", "https://github.com/course/alpha"),
    ("ssh://git@github.com:22/course/alpha.git/", "https://user@GitHub.com/course/alpha/"),
    ("ssh://github.com/course/alpha", "git@github.com:/course/alpha"),
    ("/srv/repos/alpha.git", "/srv/repos/Alpha/"),
])
def test_one_repository_spelled_two_ways_is_one(a: str, b: str) -> None:
    """A student who gave another team's repository in another spelling (ssh rather than
    https, a user or port added) is said like one who copied the URL as it was."""
    assert same_repository(a) == same_repository(b)


@pytest.mark.parametrize("a, b", [
    ("git@github.com:course/alpha", "git@gitlab.com:course/alpha"),
    ("https://github.com/course/alpha", "https://github.com/course/alpha2"),
    ("https://github.com/course/alpha", "https://github.com/other/alpha"),
    ("https://git.example.edu:8443/course/alpha", "https://git.example.edu/course/alpha"),
])
def test_other_repositories_stay_apart(a: str, b: str) -> None:
    assert same_repository(a) != same_repository(b)
