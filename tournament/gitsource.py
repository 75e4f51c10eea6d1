"""Students' git repositories: the organizer's list, fetching, the commit taken, its files.

A course that hands out repositories gives the organizer a list, CSV or YAML:

    team,url,ref,deadline,members
    alpha,https://git.example.edu/cs188/alpha.git,main,2024-03-01T23:59:00+01:00,s1001;s1002

`team`, `url` and `ref` (a branch or a tag) are required; `deadline` (ISO 8601 with a zone)
overrides the collection's `--deadline` for that repository; `members` (student ids separated
by `;`, `,` or spaces) names the team's students when no mapping does. The YAML form is a list
of mappings with the same keys (`members` may be a list).

Each repository is fetched into a bare cache, `<into>/.git-cache/<hash of the URL>.git`
(cloned the first time, fetched afterwards; a name starting with `.` is never a team), and
the ref's first-parent history is listed with its commit dates. The commit taken is the
latest of that history dated at or before the deadline (commit dates are what the student's
machine said: a student can write any date into a commit, so a course that needs proof of
time uses the server's push log or a tag the server protects), and its files are exported
with `git archive` as a tar stream through `tournament.unpack`, so a repository is unpacked
under the same limits and refusals as an uploaded archive.

A repository is someone else's: nothing it controls runs here. Only the file, git, http(s)
and ssh transports are allowed (`GIT_ALLOW_PROTOCOL`, so no `ext::` command), the cache is
made without hook templates and every command runs with hooks pointed at /dev/null, the
repository's own attributes are overridden (`NEUTRAL_ATTRIBUTES`) and no signature verifier
runs, what git prints is bounded, no submodule is fetched, objects are checked as they
arrive (`transfer.fsckObjects`), git never prompts (`GIT_TERMINAL_PROMPT=0`, ssh in batch
mode) and every command has a time limit after which its whole process group is killed. A
URL or ref that starts with `-` is refused (it would be read as an option). What a fetch may
put on disk is bounded too (`--repository-limit`): the pack it writes by the kernel, the
cache as a whole after it.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import hashlib
import io
import os
import re
import resource
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, cast

from pacman.files import FileProblem, read_text_bounded
from pacman.yamlfile import ORGANIZER_FILE, YamlProblem, parse_yaml
from tournament.config import team_entrant_name
from tournament.times import TimeProblem, parse_time
from tournament.unpack import MIB, ArchiveRefused, UnpackLimits, unpack

#: The cache of fetched repositories inside the collected folder.
CACHE_FOLDER = ".git-cache"
#: Seconds a single git command may take (a fetch of a large repository over a slow link).
GIT_TIMEOUT = 300.0
#: The transports git may use; anything else (ext::, fd::, a remote helper) is refused.
ALLOWED_PROTOCOLS = "file:git:http:https:ssh"
#: The list's columns: required, then optional.
REQUIRED_COLUMNS = ("team", "url", "ref")
COLUMNS = (*REQUIRED_COLUMNS, "deadline", "members")
#: Largest list read.
MAX_LIST_BYTES = 4 * 1024 * 1024
#: The most MiB one repository's cache may take by default (`--repository-limit`): a course's
#: code with its history is a few MiB; room is left for committed weights.
REPOSITORY_LIMIT_MIB = 256
MAX_REPOSITORY_BYTES = REPOSITORY_LIMIT_MIB * MIB
#: The most commits of a ref's history looked at (newest first).
MAX_COMMITS = 100_000
#: Characters a ref never holds (git's own rules, and nothing a shell or an option parser
#: would read).
_BAD_REF = re.compile(r"[\s~^:?*\[\\]|\.\.|@\{|^-|^/|/$|\.lock$|\.$")
#: How much of git's own message is kept in a reason.
_MESSAGE_CHARS = 400


class GitListError(ValueError):
    """A repository list that cannot be read at all; the message names the file."""


class GitProblem(Exception):
    """A repository that cannot be fetched or exported; the message says why in words."""


class RepositoryTooLarge(GitProblem):
    """A repository's cache grew past the limit and was removed (`repo`): whatever was read
    from it before, for another row on the same URL, is gone too."""

    def __init__(self, message: str, repo: Path) -> None:
        super().__init__(message)
        self.repo = repo


@dataclass(frozen=True)
class GitListRow:
    """One repository of the organizer's list."""

    team: str
    url: str
    ref: str
    deadline: dt.datetime | None
    members: tuple[str, ...]
    #: Where it is in the list, for messages: `repos.csv:4`, `repos.yaml: entry 3`.
    where: str


@dataclass(frozen=True)
class Commit:
    """A commit of a ref's history and the date its committer wrote."""

    sha: str
    committed_at: dt.datetime


def read_git_list(path: Path) -> tuple[list[GitListRow], list[str]]:
    """The rows of a repository list (`.csv`, or `.yaml`/`.yml`) and the problems of the rows
    left out, each naming the file and line (or entry). GitListError when the file cannot be
    read at all."""
    try:
        text = read_text_bounded(path, MAX_LIST_BYTES).removeprefix("\ufeff")
    except FileProblem as exc:
        raise GitListError(f"the repository list {exc}") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            data = parse_yaml(text, path.name, ORGANIZER_FILE)
        except YamlProblem as exc:
            raise GitListError(str(exc)) from None
        return _yaml_rows(data, path.name)
    return _csv_rows(text, path.name)


def _csv_rows(text: str, name: str) -> tuple[list[GitListRow], list[str]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise GitListError(f"{name}: empty; expected a header line `{','.join(COLUMNS)}`")
        columns = [cell.strip().casefold() for cell in header]
        unknown = [c for c in columns if c not in COLUMNS]
        if unknown or len(set(columns)) != len(columns):
            raise GitListError(f"{name}:1: expected the columns {', '.join(REQUIRED_COLUMNS)} "
                               f"and optionally deadline, members, each once; found "
                               f"{', '.join(columns)}")
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            raise GitListError(f"{name}:1: no column {' or '.join(missing)}; expected "
                               f"{', '.join(REQUIRED_COLUMNS)} and optionally deadline, members")
        lines = [(reader.line_num, cells) for cells in reader]
    except csv.Error as exc:
        raise GitListError(f"{name}:{reader.line_num}: not CSV: {exc}") from None
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for line, cells in lines:
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(columns):
            problems.append(f"{name}:{line}: {len(cells)} cells, expected {len(columns)}; "
                            "line left out")
            continue
        rows.append({"where": f"{name}:{line}", **dict(zip(columns, cells))})
    return _rows(rows, problems)


def _yaml_rows(data: Any, name: str) -> tuple[list[GitListRow], list[str]]:
    if not isinstance(data, list):
        raise GitListError(f"{name}: expected a list of repositories (- team: ..., url: ..., "
                           "ref: ...)")
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for index, item in enumerate(data, start=1):
        where = f"{name}: entry {index}"
        if not isinstance(item, dict):
            problems.append(f"{where}: expected a mapping with team, url and ref; left out")
            continue
        unknown = sorted(str(k) for k in item if k not in COLUMNS)
        if unknown:
            problems.append(f"{where}: unknown key {', '.join(unknown)}; expected "
                            f"{', '.join(COLUMNS)}; left out")
            continue
        members = item.get("members", "")
        if isinstance(members, list):
            members = " ".join(str(m) for m in members)
        rows.append({"where": where, **{k: "" if v is None else str(v) for k, v in item.items()},
                     "members": str(members)})
    return _rows(rows, problems)


def _rows(raw: list[dict[str, Any]], problems: list[str]) -> tuple[list[GitListRow], list[str]]:
    rows: list[GitListRow] = []
    seen: dict[str, str] = {}
    for item in raw:
        where = item["where"]
        team = " ".join(str(item.get("team", "")).split())
        url = str(item.get("url", "")).strip()
        ref = str(item.get("ref", "")).strip()
        empty = [k for k, v in (("team", team), ("url", url), ("ref", ref)) if not v]
        if empty:
            problems.append(f"{where}: no {' or '.join(empty)}; left out")
            continue
        if url.startswith("-"):
            problems.append(f"{where}: the URL {url!r} starts with '-'; left out")
            continue
        if _BAD_REF.search(ref):
            problems.append(f"{where}: {ref!r} is not a branch or tag name; left out")
            continue
        deadline = None
        if str(item.get("deadline", "")).strip():
            try:
                deadline = parse_time(str(item["deadline"]))
            except TimeProblem as exc:
                problems.append(f"{where}: deadline {exc}; left out")
                continue
        key = team_entrant_name(team).casefold()
        if key in seen:
            problems.append(f"{where}: team {team!r} is given twice (first at {seen[key]}); "
                            "left out: a team has one repository")
            continue
        seen[key] = where
        members = tuple(m for m in re.split(r"[;,\s]+", str(item.get("members", ""))) if m)
        rows.append(GitListRow(team, url, ref, deadline, members, where))
    return rows, problems


# --- running git ---------------------------------------------------------------------------


def git_environment() -> dict[str, str]:
    """The environment of every git command: the organizer's, less what would point git at
    another repository, plus the restrictions of the module's docstring."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("GIT_") and k not in ("GIT_SSH", "GIT_SSH_COMMAND",
                                                      "GIT_SSL_CAINFO", "GIT_PROXY_COMMAND"))}
    env.update(GIT_ALLOW_PROTOCOL=ALLOWED_PROTOCOLS, GIT_TERMINAL_PROMPT="0",
               GIT_ASKPASS="true", SSH_ASKPASS="true", LC_ALL="C")
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


#: Settings given to every command: no hooks, no submodules, no fsmonitor, checked objects,
#: and no signature verifier (a student's signature header chooses gpg, gpgsm or ssh-keygen:
#: `false` stands in for all three).
_SAFE_CONFIG = ("-c", "core.hooksPath=/dev/null", "-c", "protocol.ext.allow=never",
                "-c", "submodule.recurse=false", "-c", "fetch.recurseSubmodules=false",
                "-c", "core.fsmonitor=false", "-c", "transfer.fsckObjects=true",
                "-c", "log.showSignature=false", "-c", "credential.interactive=false",
                "-c", "gpg.program=false", "-c", "gpg.x509.program=false",
                "-c", "gpg.ssh.program=false",
                # A fetch keeps what arrives as one pack file (whose size the fetch's file
                # limit bounds), never as loose objects; large blobs are streamed, not held;
                # and no garbage collection starts behind our back (a detached `gc --auto`
                # outlives every time limit, races the cache's removal and writes unreachable
                # history out as loose objects).
                "-c", "fetch.unpackLimit=1", "-c", "transfer.unpackLimit=1",
                "-c", "core.bigFileThreshold=16m", "-c", "gc.auto=0",
                "-c", "gc.autoDetach=false", "-c", "maintenance.auto=false")

#: Attributes that override every `.gitattributes` a repository holds (`info/attributes` of
#: each cache): with `export-subst`, `git archive` expands `$Format:%G?$` by verifying the
#: commit's signature (a verifier the student's signature header chooses, run on bytes the
#: student wrote); with `filter`, it runs whatever driver the organizer's git config names
#: (git-lfs, say). Files are exported as their bytes, nothing run (the eighth hostile review).
NEUTRAL_ATTRIBUTES = ("* -export-subst -export-ignore -filter -ident -text -eol "
                      "-working-tree-encoding\n")


def git_command(repo: Path | None, *args: str) -> list[str]:
    """The argument list of a git command on the bare repository `repo`."""
    where = ("--git-dir", str(repo)) if repo is not None else ()
    return ["git", *_SAFE_CONFIG, *where, *args]


#: The most of a git command's standard output kept (a log of `MAX_COMMITS` lines is far less).
OUTPUT_LIMIT = 16 * 1024 * 1024
#: The most of its error output kept: its tail, which says why it failed.
ERROR_TAIL = 64 * 1024
#: Seconds its error output is waited for once it has ended.
ERROR_WAIT = 5.0


def run_git(repo: Path | None, *args: str, timeout: float = GIT_TIMEOUT,
            file_limit: int | None = None) -> str:
    """Run a git command and return its output; GitProblem with git's own words when it
    fails, and when it takes longer than `timeout` (its process group is then killed).
    `file_limit`: the most bytes any file it writes may hold (RLIMIT_FSIZE: the kernel stops
    a process that writes past it).

    What git prints is read as it comes and bounded: a repository's server can make git
    print its "remote:" lines at a gigabyte a second, which kept whole filled the organizer's
    memory (the eighth hostile review). Of the errors only the tail is kept; an output past
    `OUTPUT_LIMIT` ends the command."""
    try:
        proc = subprocess.Popen(git_command(repo, *args), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=git_environment(), start_new_session=True,
                                preexec_fn=None if file_limit is None
                                else partial(_limit_files, file_limit))
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitProblem(f"git cannot be started: {getattr(exc, 'strerror', None) or exc}") \
            from None
    assert proc.stdout is not None and proc.stderr is not None
    tail = bytearray()
    errors = proc.stderr

    def drain() -> None:
        while chunk := os.read(errors.fileno(), 1 << 16):
            tail.extend(chunk)
            del tail[:-ERROR_TAIL]

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    watchdog, expired = _watchdog(proc, timeout)
    out = bytearray()
    try:
        while chunk := os.read(proc.stdout.fileno(), 1 << 16):
            out.extend(chunk)
            if len(out) > OUTPUT_LIMIT:
                _kill_group(proc)
                raise GitProblem(f"git {args[0]} printed more than {OUTPUT_LIMIT} bytes")
    except BaseException:
        _kill_group(proc)
        raise
    finally:
        proc.stdout.close()
        proc.wait()  # the watchdog ends it at the latest
        watchdog.cancel()
        # A helper git started that outlives it (an ssh left running) may hold the error
        # pipe open: its last words are not worth waiting for (the reader, a daemon thread,
        # ends with that helper).
        reader.join(ERROR_WAIT)
        if not reader.is_alive():
            errors.close()
    if expired.is_set() and proc.returncode != 0:  # the watchdog ended it, not its own exit
        raise GitProblem(f"git {args[0]} took longer than {timeout:g} s")
    if proc.returncode != 0:
        raise GitProblem(f"git {args[0]} failed: {_message(bytes(tail))}")
    return out.decode("utf-8", "replace")


def _limit_files(size: int) -> None:
    """In a child before it runs git: no file it writes may pass `size` bytes (or the
    organizer's own hard limit, when lower; git never raises its soft limit)."""
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    soft = size if hard == resource.RLIM_INFINITY else min(size, hard)
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def _watchdog(proc: subprocess.Popen[bytes],
              timeout: float) -> tuple[threading.Timer, threading.Event]:
    """A started timer that kills `proc`'s process group after `timeout` seconds (cancel it
    once the command ended), and the event it sets when it did."""
    expired = threading.Event()

    def stop() -> None:
        expired.set()
        _kill_group(proc)

    watchdog = threading.Timer(timeout, stop)
    watchdog.daemon = True  # never what keeps the organizer's process from exiting
    watchdog.start()
    return watchdog, expired


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _message(err: bytes) -> str:
    text = " ".join(err.decode("utf-8", "replace").split())
    return text[-_MESSAGE_CHARS:] or "(no message)"


def cache_path(cache_root: Path, url: str) -> Path:
    """The bare repository that caches `url`."""
    return cache_root / f"{hashlib.sha256(url.encode('utf-8')).hexdigest()[:24]}.git"


def _ref_name(ref: str) -> str:
    return f"refs/collect/{hashlib.sha256(ref.encode('utf-8')).hexdigest()[:24]}"


def fetch(row: GitListRow, cache_root: Path, timeout: float = GIT_TIMEOUT,
          max_bytes: int = MAX_REPOSITORY_BYTES) -> tuple[Path, list[Commit]]:
    """Fetch `row`'s ref into its cache (made the first time) and return the cache and the
    ref's first-parent history, newest first. GitProblem when it cannot be fetched, or when
    the cache would hold more than `max_bytes` (then it is removed)."""
    repo = cache_path(cache_root, row.url)
    if not (repo / "HEAD").is_file():
        cache_root.mkdir(parents=True, exist_ok=True)
        run_git(None, "init", "--bare", "--quiet", "--template=", str(repo), timeout=timeout)
    # Every time: a cache made before this rule gets it too.
    (repo / "info").mkdir(exist_ok=True)
    (repo / "info" / "attributes").write_text(NEUTRAL_ATTRIBUTES, encoding="utf-8")
    local = _ref_name(row.ref)
    _bounded_fetch(repo, row, local, timeout, max_bytes)
    log = run_git(repo, "log", "--first-parent", f"--max-count={MAX_COMMITS}",
                  "--format=%H %ct", local, "--", timeout=timeout)
    commits = []
    for line in log.splitlines():
        sha, _, stamp = line.partition(" ")
        try:
            commits.append(Commit(sha, dt.datetime.fromtimestamp(int(stamp), dt.timezone.utc)))
        except (ValueError, OverflowError, OSError):
            continue  # a commit whose date git cannot say: never the newest before a deadline
    if not commits:
        raise GitProblem(f"{row.ref} has no commit")
    return repo, commits


def _bounded_fetch(repo: Path, row: GitListRow, local: str, timeout: float,
                   max_bytes: int) -> None:
    """Fetch into `repo` with no file larger than `max_bytes` and the whole cache no larger
    either. A repository's history is the student's to fill: a file once committed is
    fetched even when deleted since, and each force-push of new junk adds to the cache,
    which lives across collections (the eighth hostile review: 200 MB on disk for 8 KB of
    files). The one pack a fetch writes is bounded by the kernel as it is written; the sum
    over earlier fetches is checked after each."""
    too_large = RepositoryTooLarge(
        f"its fetched history is larger than {_size(max_bytes)} (a file once committed "
        f"counts even when deleted since); its cache is removed (--repository-limit)", repo)
    try:
        run_git(repo, "fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--force",
                "--no-write-fetch-head", "--", row.url, f"+{row.ref}:{local}",
                timeout=timeout, file_limit=max_bytes)
    except GitProblem:
        # What a stopped fetch left (a pack cut at the limit) is never used again; a fetch
        # that failed after storing its pack (a server that errs at the end) counts too.
        cut = [_drop(path) >= max_bytes for path in (repo / "objects" / "pack").glob("tmp_*")]
        if any(cut) or _disk_bytes(repo) > max_bytes:
            _remove(repo)
            raise too_large from None
        raise
    if _disk_bytes(repo) > max_bytes:
        _remove(repo)
        raise too_large


def _drop(path: Path) -> int:
    """Remove a file; the bytes it held (0 when it could not be read)."""
    try:
        size = path.lstat().st_size
        path.unlink()
    except OSError:
        return 0
    return size


def _disk_bytes(folder: Path) -> int:
    """The bytes of the files beneath `folder` (links not followed)."""
    total = 0
    for parent, _, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(parent, name)).st_size
    return total


def _size(count: int) -> str:
    return f"{count // MIB} MiB" if count % MIB == 0 else f"{count} bytes"


def newest_by(commits: list[Commit], deadline: dt.datetime | None) -> Commit | None:
    """The latest commit of the history (newest first, as `fetch` gives it) dated at or
    before `deadline` (the tip without one), or None.

    Latest in the history's order, not by date: a commit's date is its author's machine's
    clock, and a laptop a few hours behind dated a final commit before its parent, whose
    older files were then collected, the final version listed as superseded (found by the
    eighth hostile review)."""
    return next((c for c in commits if deadline is None or c.committed_at <= deadline), None)


def export(repo: Path, commit: str, into: Path, limits: UnpackLimits,
           skip: Callable[[str], bool] | None = None, timeout: float = GIT_TIMEOUT) -> list[str]:
    """The files of `commit` unpacked into `into` (made here) from `git archive`'s tar
    stream, under `limits`. ArchiveRefused as `unpack`; GitProblem when git fails or takes
    longer than `timeout`. Nothing is left in `into`'s place on either."""
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(git_command(repo, "archive", "--format=tar", commit),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=err, env=git_environment(), start_new_session=True)
        except OSError as exc:
            raise GitProblem(f"git cannot be started: {exc.strerror or exc}") from None
        watchdog, expired = _watchdog(proc, timeout)
        assert proc.stdout is not None
        refused: ArchiveRefused | None = None
        files: list[str] = []
        try:
            files = unpack(cast(BinaryIO, proc.stdout), into, limits, skip=skip)
        except ArchiveRefused as exc:
            refused = exc
        finally:
            proc.stdout.close()  # a git still writing gets SIGPIPE and ends
            proc.wait()  # the watchdog ends it at the latest
            watchdog.cancel()
        err.seek(0)
        message = _message(err.read(64 * 1024))
    # git's own failure (exit status > 0: a missing commit, a corrupt object) explains an
    # empty or cut stream better than the unpacker can; a git killed by SIGPIPE only
    # stopped because the unpacker had refused its stream.
    if expired.is_set() or proc.returncode > 0:
        _remove(into)
        if expired.is_set():
            raise GitProblem(f"git archive took longer than {timeout:g} s")
        raise GitProblem(f"git archive failed: {message}")
    if refused is not None:
        raise refused
    return files


def _remove(folder: Path) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
