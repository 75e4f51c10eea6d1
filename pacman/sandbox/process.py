"""The referee's side of a sandboxed agent: start it, ask it for moves, time it, kill it.

`SandboxedHandle` is the game runner's handle on such an agent (`pacman.handles`): every
call is a request to a child process, timed by the referee
against its `Limits`. The child is stopped (SIGSTOP) whenever it is not its turn, so an idle
agent cannot burn CPU the opponent is thinking with; when a move runs past the hard limit the
child is killed. Whatever goes wrong on the agent's side raises `AgentFault` (kind, message,
trace), which the runner records; a failure to start a sandbox at all (before any team code
runs) raises `SandboxError` and is never blamed on the agent.

Everything read from or about the agent's process is hostile bytes: its answers, its log,
/proc/<pid>/stat (whose command name the agent chooses). Once the agent's code may have run,
anything that goes wrong while handling it is its own failure (`AgentFault`), never the
platform's: otherwise an agent about to lose could make its game an unscored `infra_error`.
And `close()` runs every step of the clean-up whatever the one before it raised.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pacman
from pacman.describe import clean, describe_parts
from pacman.handles import AgentFault, AgentRecord, InfraFailure
from pacman.layout import Layout
from pacman.limits import SCRATCH_FILES_PER_MB, Limits, TimeKeeper
from pacman.loader import AgentRef
from pacman.problems import Detail
from pacman.sandbox import confine, guarantees, slots, wire
from pacman.sandbox.cgroup import AgentCgroup, sweep_cgroups
from pacman.sandbox.held import HeldProcess
from pacman.sandbox.owners import alive, owner_tag, stale
from pacman.sandbox.zygote import Zygote, ZygoteGone, discard_zygote, zygote
from pacman.state import GameState
from pacman.teamfolder import TeamFolderError, team_digest

PACKAGE_DIR = Path(pacman.__file__).resolve().parent
#: Seconds the platform allows itself to start a sandbox (before any team code runs).
SPAWN_LIMIT = 30.0
#: How a sandbox ends when its harness (not the agent's code) fails: see zygote.py.
HARNESS_FAILED = 70
#: While waiting for an answer with a window open, how often its events are pumped.
WAIT_SLICE_MS = 30
#: Bytes of an agent's output past its cap that the referee reads (and drops) per wake-up.
DROP_PER_WAKE = 1 << 20
#: Seconds an agent gets for `final()`; the process is killed after it either way.
FINAL_LIMIT = 1.0
#: Seconds an untimed agent's threads get to stop after it answered (`_stopped_by`).
STOP_LIMIT = 60.0
#: A thread's states in /proc that run nothing: stopped, traced, dead.
STOPPED_STATES = (b"T", b"t", b"Z", b"X", b"x")
#: The system's files an agent reads: its shared libraries (what the interpreter's compiled
#: modules load, and the links `update-alternatives` makes to some, such as Debian's BLAS),
#: the time zones, random bytes. Not `/usr` whole: a checkout of the platform under
#: `/usr/local/src`, its results and secret among it, would be in every team's view. The
#: library folders are shown whole, other interpreters' site folders in them covered
#: (`foreign_sites`).
SYSTEM_READ_PATHS = ("/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/local/lib",
                     "/usr/share/zoneinfo", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache",
                     "/etc/localtime", "/etc/alternatives", "/dev/urandom", "/dev/zero")
SIGNAL_NAMES: dict[int, str] = {
    signal.SIGSEGV: "segmentation fault",
    signal.SIGBUS: "bus error",
    signal.SIGILL: "illegal instruction",
    signal.SIGFPE: "arithmetic fault",
    signal.SIGABRT: "abort",
    signal.SIGSYS: "forbidden system call",
}


#: A sandbox's scratch folder is `<root>/pacman-agent<index>-<pid>-<random>`: the pid lets a
#: later run sweep the folders of dead ones, and `tournament.privacy` finds them in text.
SCRATCH_PREFIX = "pacman-agent"


class SandboxError(InfraFailure):
    """The platform could not run the sandbox; never the agent's fault."""


class _Died(Exception):
    pass


class _Interrupted(Exception):
    """Something the waiting hook raised (a closed window, Ctrl-C): not the agent's doing."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


#: What the agent was asked, in the referee's words (the messages' subjects).
PHASES = {"load": "loading it", "register": "registerInitialState", "move": "getAction",
          "final": "final()"}


def fault_message(op: str, kind: str, exc_type: object, text: object) -> str:
    """The referee's sentence for a failure the child reported; the agent's own words (its
    exception's type and text) appear only quoted inside it."""
    what = describe_parts(exc_type, text)
    if kind == "memory":
        return f"ran out of memory in {PHASES[op]}: {what}"
    if op == "load":
        return f"could not be loaded: {what}"
    return f"{PHASES[op]} raised {what}"


@dataclass
class Placement:
    """Where a game's sandboxes live and which uid slot they use."""

    root: Path | None = None
    #: The uid slot; None (the default) takes a free one machine-wide for each sandbox
    #: (`pacman.sandbox.slots`), held until the sandbox is closed.
    slot: int | None = None
    keep: bool = False
    #: The confinement layers to apply (all by default; tests switch one off to see the
    #: others still hold).
    layers: tuple[str, ...] = confine.LAYERS
    #: The layers a tournament's check found: a sandbox that would give fewer guarantees than
    #: they do is refused before any team code runs (the platform's failure, never played
    #: less confined). None: play with what the machine gives (the `pacman` command).
    expected: tuple[str, ...] | None = None


@dataclass
class CpuRecord:
    total: float | None = None
    #: The same as RLIMIT_CPU counts it (`AgentProcess._prof_now`), read before the process
    #: is killed: what its CPU limit is checked against.
    charged: float | None = None
    #: Per agent index: the CPU time of each of its moves, as the harness measured it.
    moves: dict[int, list[float]] = field(default_factory=dict)


@functools.cache
def interpreter_paths() -> tuple[str, ...]:
    """The interpreter's library folders, as its own configuration names them: the standard
    library (its compiled modules, `lib-dynload`, within it) and the environment's
    site-packages. An allow list, not the interpreter's prefixes whole: a prefix holds
    whatever else was installed there (the twenty-second hostile review: the platform
    installed into the base interpreter a virtual environment was made from, seen by every
    team through the base prefix, baselines and compiled build included). The zygote forks
    its sandboxes from a running interpreter, so its executable and start-up files are not
    read again. Base site folders inside these are covered (`foreign_sites`). With them: the
    interpreter's own shared libraries (`LIBDIR`, the standard library's parent: a conda or
    relocatable build's compiled modules load their libssl, libffi, BLAS from there, not the
    system's), its time zones (`TZPATH`), and the folders within the interpreter's prefixes
    that `.pth` files of the site folders add to the search path (a library the organizer
    installed with `pip install -e`, whose sources pip keeps in `<venv>/src`)."""
    names = sysconfig.get_paths()
    found = {names[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    # The folder holding the standard library's: a relocated build's (conda's) `LIBDIR` may
    # still name where it was built, and its compiled modules find it as `$ORIGIN/../..`.
    found |= {str(sysconfig.get_config_var("LIBDIR") or ""), os.path.dirname(names["stdlib"])}
    found |= set(str(sysconfig.get_config_var("TZPATH") or "").split(os.pathsep))
    for site_dir in {names["purelib"], names["platlib"]}:
        found |= _pth_folders(site_dir)
    return tuple(sorted(path for path in found if os.path.isabs(path) and os.path.isdir(path)))


def _pth_folders(site_dir: str) -> set[str]:
    """The folders the `.pth` files of `site_dir` add to the search path, as `site` reads
    them (a line that is no `import` and names a folder), within the interpreter's prefixes
    (which sandboxes showed whole before: a folder elsewhere, another project of the
    organizer's, was never in view), and never one holding the platform's package (an
    editable install of the platform names its checkout, whose results and teams a sandbox
    must not see: only the engine's allow list is shown)."""
    prefixes = {os.path.realpath(p).rstrip("/") + "/" for p in (sys.prefix, sys.base_prefix)}
    found: set[str] = set()
    try:
        names = sorted(name for name in os.listdir(site_dir) if name.endswith(".pth"))
    except OSError:
        return found
    for name in names:
        try:
            lines = Path(site_dir, name).read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if not line.strip() or line.startswith(("#", "import ", "import\t")):
                continue
            folder = os.path.realpath(os.path.join(site_dir, line.rstrip()))
            holds_engine = str(PACKAGE_DIR).startswith(folder.rstrip("/") + "/")
            within = any(folder.startswith(prefix) for prefix in prefixes)
            if (os.path.isdir(folder) and within and not holds_engine
                    and folder != str(PACKAGE_DIR)):
                found.add(folder)
    return found


@functools.cache
def foreign_sites() -> tuple[Path, ...]:
    """Site folders that the interpreter's search path does not hold: the base interpreter's
    site-packages, seen from a virtual environment made without the system's packages, and
    the system's (`OTHER_SITES`: Debian's, an organizer's `sudo pip install`) seen from
    another Python. They lie inside the folders a sandbox shows (a self-built, pyenv or
    conda Python's standard library folder, `/usr/lib`, `/usr/local/lib`) and hold what the
    organizer installed there; a sandbox covers them whole."""
    import site

    own = {Path(p).resolve() for p in (*sys.path, *site.getsitepackages()) if p}
    return tuple(sorted({Path(p).resolve() for p in _other_sites() if os.path.isdir(p)} - own))


def _other_sites() -> list[str]:
    """Site folders beside the interpreter's own: the base interpreter's and the system's
    (`OTHER_SITES`), where the organizer may have installed anything, the platform too."""
    import glob
    import site

    return [*site.getsitepackages([sys.base_prefix, sys.base_exec_prefix]),
            *(found for pattern in OTHER_SITES for found in glob.glob(pattern))]


def read_paths(ref: AgentRef) -> tuple[str, ...]:
    """What an agent may read: the interpreter's libraries, the engine, its team folder,
    the system's libraries."""
    paths = {*interpreter_paths(), str(PACKAGE_DIR)}
    folder = team_folder(ref)
    if folder is not None:
        paths.add(str(folder))
    return tuple(sorted(paths)) + SYSTEM_READ_PATHS


#: The engine as a sandbox sees it, an allow list: the Python sources of these folders of the
#: package (its own modules, among them the course API `game`, `util`, `pacman`; the compat
#: layer; the display code `pacman.game` imports; the sandbox's own harness) and these files
#: (the `Agent` base). Nothing else of the package is there: not the
#: platform's baselines, search and game code (a team plays code of its own), not the
#: compiled build (`_fast__mypyc*.so` holds the baselines' and search's compiled code too,
#: loadable by hand: the ninth hostile review), not `__pycache__`, not whatever file an
#: organizer or a future build drops into the package. A deny list of folders missed the
#: build's library beside them; what is not named here is simply not in the view.
ENGINE_FOLDERS = ("", "compat", "display", "sandbox")
ENGINE_FILES = ("agents/__init__.py", "agents/base.py")
#: Beside the package, the organizer's side when installed next to it (site-packages).
PLATFORM_HIDDEN: tuple[Path, ...] = (PACKAGE_DIR.parent / "tournament",)
#: Where another copy of the platform may be installed in a sandbox's view (beside the
#: interpreter's own search path): a wheel left in the virtual environment while a checkout
#: runs, an install into the system's Python. Its compiled build holds the baselines too.
OTHER_SITES = ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages")


@functools.cache
def other_copies() -> tuple[Path, ...]:
    """The platform's packages (`pacman`, `tournament`) of other installs than the one
    running, found in the interpreter's search path, its site folders and `OTHER_SITES`: a
    sandbox shows nothing of them (it sees those folders, read-only, since it sees the
    interpreter and the system's libraries)."""
    import site

    places = {*sys.path, *site.getsitepackages(), site.getusersitepackages(), *_other_sites()}
    ours = {PACKAGE_DIR, *(path.resolve() for path in PLATFORM_HIDDEN)}
    copies = set()
    for place in places:
        folder = Path(place or ".").resolve()
        if (folder / "pacman" / "sandbox" / "process.py").is_file():
            copies |= {folder / "pacman", folder / "tournament"}
    return tuple(sorted(p for p in copies if p.is_dir() and p.resolve() not in ours))


@functools.cache
def engine_view() -> tuple[str, ...]:
    """The package's files a sandbox shows, relative to it: `ENGINE_FILES` and the regular
    `.py` files of `ENGINE_FOLDERS` (no link, nothing compiled)."""
    shown = []
    for folder in ENGINE_FOLDERS:
        with os.scandir(PACKAGE_DIR / folder) as listing:
            shown += [os.path.join(folder, entry.name) for entry in listing
                      if entry.name.endswith(".py") and entry.is_file(follow_symlinks=False)]
    shown += [name for name in ENGINE_FILES if (PACKAGE_DIR / name).is_file()]
    return tuple(sorted(shown))


#: What numeric libraries read for how many threads to start (OpenBLAS, OpenMP, MKL,
#: numexpr, Apple's Accelerate): one, as the agent has one CPU (`_environment`).
ONE_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                        "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")

#: Folders of a team walked to find its `__pycache__`s.
MAX_WALKED = 5000


def hidden_paths(ref: AgentRef, bound: bool = True) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What the mounts layer covers in an agent's view: the platform's own code and, when the
    team's folder is `bound` as it is rather than copied, every `__pycache__` in it (a copy
    has none; and a team able to write its folder could swap one for a link between this walk
    and the mounts, so a copied folder is never walked again)."""
    hidden = [(str(PACKAGE_DIR), engine_view())]
    hidden += [(str(folder), ()) for folder in PLATFORM_HIDDEN if folder.is_dir()]
    hidden += [(str(folder), ()) for folder in other_copies()]
    hidden += [(str(folder), ()) for folder in foreign_sites()]
    team = team_folder(ref)
    if team is not None and bound:
        for seen, (folder, dirs, _) in enumerate(os.walk(team)):
            if seen >= MAX_WALKED:  # a team folder holds at most 5,000 entries anyway
                break
            cache = os.path.join(folder, "__pycache__")
            if "__pycache__" in dirs and not os.path.islink(cache):
                hidden.append((cache, ()))
    return tuple(hidden)


def team_folder(ref: AgentRef) -> Path | None:
    """The folder an agent reads its files from: its team's (a built-in's that plays with
    files too), or its file's."""
    if ref.team:
        return Path(ref.team)
    return None if ref.path is None else Path(ref.path).resolve().parent


class AgentProcess:
    """One sandboxed agent for one game, or one ghost team: every ghost of the game, built
    once per index in this one process."""

    def __init__(
        self,
        ref: AgentRef,
        index: int | tuple[int, ...],
        layout: Layout,
        num_ghosts: int,
        ruleset: str,
        seed: int,
        limits: Limits,
        placement: Placement | None = None,
    ) -> None:
        self.ref = ref
        #: The agent indices it plays; the first names its folder and uid slot.
        self.indices = (index,) if isinstance(index, int) else tuple(index)
        self.index = self.indices[0]
        self.limits = limits
        self.placement = placement or Placement()
        self.seed = seed
        self.pid: int | None = None
        self.started_at = 0.0
        self.keeper_pid: int | None = None
        self._zygote: Zygote | None = None
        self.cgroup: AgentCgroup | None = None
        self.active: list[str] = []
        self.missing: dict[str, str] = {}
        self.log = ""
        #: Called with what the agent printed, as it arrives (the CLI shows it live).
        self.on_output: Callable[[str], None] | None = None
        #: The read end of the agent's output pipe (its stdout and stderr): drained while the
        #: referee waits for it; the first `output_kb` are kept, the rest is read and dropped,
        #: so nothing the agent prints ever lands on a disk.
        self._log_fd: int | None = None
        self._log = bytearray()
        self._log_dropped = 0
        #: Whether `on_output` was told that the rest is dropped (once).
        self._drop_said = False
        self._log_shown = 0
        self._log_decoder = codecs.getincrementaldecoder("utf-8")("replace")
        #: The first error a clean-up step raised (the others still ran), for diagnosis.
        self.cleanup_error: BaseException | None = None
        self.cpu = CpuRecord()
        self._buf = b""
        self._seq = 0
        #: Called about every 30 ms while the referee waits for an answer (a window's pump).
        self.on_wait: Callable[[], None] | None = None
        self._stopped = False
        #: Killed (or found dead): its pid is not read again.
        self._killed = False
        self._stat_fd: int | None = None
        #: The agent's threads' folder in /proc (`_all_stopped`).
        self._task_fd: int | None = None
        #: The agent's and its keeper's processes, held from when each is known to be the
        #: one meant (`pacman.sandbox.held`): signals never reach a process that took over
        #: a pid.
        self._agent: HeldProcess | None = None
        self._keeper: HeldProcess | None = None
        #: The confinement plan the child was started with (None before `start`).
        self._plan: confine.Plan | None = None
        self._slot: slots.Slot | None = None
        self._layout = layout
        self._num_ghosts = num_ghosts
        self._ruleset = ruleset
        self._closed = False
        #: What interrupted the referee's wait for an answer (from `on_wait`), if anything.
        self.interruption: BaseException | None = None
        sweep_leftovers(self.placement.root)
        self._home = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{self.index}-{owner_tag()}-",
                                           dir=self.placement.root))
        self.workdir = self._home / "work"
        self.workdir.mkdir()
        #: Where the mounts layer builds the agent's root (an empty folder on the host).
        self.root = self._home / "root"
        self.root.mkdir()

    # --- life cycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Spawn and confine the child; raises SandboxError if the platform cannot."""
        team, team_source = self._team_view()
        uid_problem = confine.uid_problem()
        if not uid_problem and team_folder(self.ref) is not None and not team_source:
            folder = str(team_folder(self.ref))
            if not confine.world_readable(folder):
                uid_problem = f"the team folder {folder} is not readable by other users"
        uid = None
        if not uid_problem:
            slot = self.placement.slot
            if slot is None:
                self._slot = slots.take()
                slot = self._slot.number
            uid = confine.FIRST_SLOT_UID + 8 * slot + self.index
        mem = self.limits.memory_mb * 1024 * 1024 if self.limits.memory_mb else None
        plan = self._plan = confine.Plan(
            workdir=str(self.workdir),
            read_paths=read_paths(self.ref),
            root=str(self.root),
            scratch_bytes=self.limits.scratch_mb * 1024 * 1024,
            scratch_files=self.limits.scratch_mb * SCRATCH_FILES_PER_MB,
            hidden=hidden_paths(self.ref, bound=not team_source),
            team=team,
            team_source=team_source,
            memory_bytes=mem,
            cpu_seconds=self._cpu_budget(),
            processes=self.limits.processes,
            uid=uid,
            layers=self.placement.layers,
        )
        if uid is not None:
            os.chown(self.workdir, uid, uid)
        if "cgroup" not in self.placement.layers:
            self.missing["cgroup"] = "switched off"
        else:
            self._make_cgroup(mem)
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        self._log_fd, log = os.pipe()
        os.set_blocking(self._log_fd, False)
        try:
            fds = [to_child_r, from_child_w, log]
            self._zygote = zygote()
            try:
                self.keeper_pid = self._zygote.spawn(fds, str(self.workdir),
                                                     self._environment(), SPAWN_LIMIT)
            except ZygoteGone:  # it died since the last game: one more try with a new one
                discard_zygote()
                self._zygote = zygote()
                self.keeper_pid = self._zygote.spawn(fds, str(self.workdir),
                                                     self._environment(), SPAWN_LIMIT)
        except (ZygoteGone, OSError) as exc:
            raise SandboxError(f"cannot start a sandbox: {exc}") from exc
        finally:
            os.close(log)
            os.close(to_child_r)
            os.close(from_child_w)
        # Just spawned, it waits for the agent, which waits for its start message.
        self._keeper = HeldProcess(self.keeper_pid)
        if self.cgroup is not None:
            try:
                self.cgroup.add(self.keeper_pid)
            except OSError as exc:
                self.missing["cgroup"] = f"cgroup: cannot join: {exc}"
                self.cgroup.remove()
                self.cgroup = None
        if self.cgroup is not None:
            self.active.append("cgroup")
            if self.cgroup.cpu_problem:
                self.missing["cpu share"] = self.cgroup.cpu_problem
            else:
                self.active.append("cpu share")
        os.set_blocking(self._to_child, False)
        deadline = time.perf_counter() + SPAWN_LIMIT
        init = {
            "plan": plan.to_json(),
            "layout_text": self._layout.text,
            "layout_name": self._layout.name,
            "num_ghosts": self._num_ghosts,
            "ruleset": self._ruleset,
            "indices": list(self.indices),
            # A built-in's module, imported before the file system shrinks (the platform's
            # agents are hidden from team code); '' for a team's own agent.
            "builtin": self.ref.module if self.ref.path is None else "",
            "uid_problem": uid_problem,
            "output_bytes": self.limits.output_kb * 1024,
        }
        sent = False
        with contextlib.suppress(_Died):
            sent = self._send(["init", init], deadline)
        if not sent:
            raise SandboxError(f"the sandbox did not take its start message: {self._tail()}")
        try:
            pid_msg = self._read(deadline)
            ready = self._read(deadline)
        except _Interrupted as stop:
            # The window closed (or Ctrl-C) while the sandbox started: the person's doing,
            # passed on as it is, as during a request.
            self.interruption = stop.original
            raise stop.original from None
        except (_Died, wire.ProtocolError) as exc:
            raise SandboxError(f"the sandbox died while starting: {self._tail()}") from exc
        if pid_msg is None or ready is None:
            raise SandboxError(f"the sandbox did not start within {SPAWN_LIMIT}s")
        if (pid_msg[0] != "pid" or ready[0] != "ready" or len(pid_msg) != 2
                or len(ready) != 3 or not isinstance(pid_msg[1], int)):
            raise SandboxError(f"unexpected start messages {pid_msg!r:.100}, {ready!r:.100}")
        self.pid = pid_msg[1]
        # Held at once: from here on every way out (a guarantee lost, below) kills it.
        self._open_handles(self.pid)
        #: When the child was confined and ready (perf_counter), for the start-up figures.
        self.started_at = time.perf_counter()
        self.active += [str(x) for x in ready[1]]
        self.missing.update({str(k): str(v) for k, v in dict(ready[2]).items()})
        if self.placement.expected is not None:
            lost = guarantees.lost(self.placement.expected, self.active)
            if lost:
                why = "; ".join(f"{layer}: {reason}" for layer, reason in self.missing.items())
                raise SandboxError(
                    f"this sandbox lacks the guarantees {', '.join(g.name for g in lost)} "
                    f"that the run's check found ({why}); no team code ran in it")

    def _open_handles(self, pid: int) -> None:
        """Take hold of the agent's process (`pacman.sandbox.held`), then of its /proc stat
        file. Taken now, while the agent has just said it is ready and waits for its first
        request (no team code has run), so the pid is still its own; should it have died in
        between, both are let go, and it is signalled no more."""
        self._agent = HeldProcess(pid)
        if self._agent.fd is None and not self._agent.by_pid:
            return
        with contextlib.suppress(OSError):
            self._stat_fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        with contextlib.suppress(OSError):
            self._task_fd = os.open(f"/proc/{pid}/task", os.O_RDONLY | os.O_DIRECTORY)
        if self._agent.gone() or self._parent() not in (None, self.keeper_pid):
            # Ended, or the pid is another process's already (its parent is not the keeper).
            self._let_go_of_agent()

    def _parent(self) -> int | None:
        """The agent's parent as its /proc stat file says (None when it cannot be read)."""
        if self._stat_fd is None:
            return None
        try:
            return int(stat_fields(os.pread(self._stat_fd, 4096, 0))[1])
        except (OSError, ValueError, IndexError):
            return None

    def _let_go_of_agent(self) -> None:
        for fd in (self._stat_fd, self._task_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._stat_fd = self._task_fd = None
        if self._agent is not None:
            self._agent.close()

    def _close_handles(self) -> None:
        self._let_go_of_agent()
        if self._keeper is not None:
            self._keeper.close()

    def _signal(self, sig: int) -> None:
        """Send `sig` to the agent's process, and to no other."""
        if self._agent is not None:
            self._agent.signal(sig)

    def _team_view(self) -> tuple[str, str]:
        """The team's folder and the referee's copy of its hashed files that the mounts layer
        shows there (`pacman.teamfolder.team_digest`), or ('', '') to bind the folder as it is.

        Copied for every sandbox, into its own folder (a few files; a 250 MiB team costs a
        fraction of a second), through descriptors, following no link: so a team that can
        write to its folder meanwhile cannot make the copy read anything else. A folder that
        is no team folder in the `pacman` command (a course folder holding a virtual
        environment) is bound as it is, as is one that holds another bound path.

        A team whose files a tournament hashed (`AgentRef.team_hash`) plays those files or
        none. Its folder is then the run's snapshot of the team (`tournament.bundles`;
        `AgentRef.snapshot` for a baseline's files as well), which only the platform writes:
        whatever the team did to its files was judged when the snapshot was taken. So a
        snapshot that cannot be read, is gone, or holds other bytes than the run hashed is the
        platform's failure (`SandboxError`: `infra_error`, played again), never the team's
        `load_error` (found by the seventh hostile review: another
        run's cleanup deleted a live run's snapshots, and every later game of the team was
        stored as its own failure, never to be played again).
        """
        team = team_folder(self.ref)
        if team is None:
            return "", ""
        for other in read_paths(self.ref):
            real = os.path.realpath(other)
            if real.startswith(str(team).rstrip("/") + "/"):
                return "", ""
        copy = self._home / "team"
        copy.mkdir()
        try:
            digest = team_digest(team, copy_to=copy)
        except TeamFolderError as exc:
            remove_tree(copy)
            if self.ref.team_hash or self.ref.snapshot:
                raise SandboxError(f"the run's snapshot of the team cannot be read: "
                                   f"{clean(str(exc))}") from None
            return "", ""
        except OSError as exc:
            # No room (say): the platform's failure. The partial copy goes first, so that it
            # takes no other sandbox's room meanwhile.
            remove_tree(copy)
            raise SandboxError(f"cannot copy the team's files for its sandbox: {exc}") from exc
        if self.ref.team_hash and not digest.startswith(self.ref.team_hash):
            # The copy's own bytes, not a new read.
            remove_tree(copy)
            now = digest[:len(self.ref.team_hash)]
            raise SandboxError(f"{team}: the run's snapshot of the team holds other files than "
                               f"the run hashed ({self.ref.team_hash} then, {now} now)")
        os.chmod(copy, 0o755)
        os.utime(copy, ns=(0, 0))
        return str(team), str(copy)

    def _keeper_status(self, timeout: float) -> int | None:
        """How the keeper ended, from the zygote that forked it (None: unknown or running)."""
        if self.keeper_pid is None or self._zygote is None or not self._zygote.alive():
            return None
        return self._zygote.wait(self.keeper_pid, timeout)

    def _make_cgroup(self, memory_bytes: int | None) -> None:
        try:
            self.cgroup = AgentCgroup.create(memory_bytes, self.limits.processes)
        except OSError as exc:
            self.missing["cgroup"] = f"cgroup: {exc}"

    def _environment(self) -> dict[str, str]:
        """The agent's whole environment. Numeric libraries start a thread per CPU of the
        host when imported (numpy's OpenBLAS up to 64): on a large server that is more
        than the agent's `processes`, and `import numpy` failed as the team's `load_error`
        (the fifteenth hostile review), while the threads could only share the one CPU the
        agent is given. So they are told of one CPU, as the agent has."""
        return {
            "PATH": "/usr/bin:/bin",
            "HOME": str(self.workdir),
            "TMPDIR": str(self.workdir),
            "LANG": "C.UTF-8",
            **dict.fromkeys(ONE_THREAD_VARIABLES, "1"),
        }

    def load(self, keeper: TimeKeeper) -> tuple[bool, bool]:
        """Import the team's code and build the agent, within the start-up limit.

        Returns whether the agent has `registerInitialState` and `final`.
        """
        path = self.ref.path
        # A built-in names no file: its module came with the start message (`builtin`).
        where = {} if path is None else {"path": str(Path(path).resolve())}
        answer, _ = self._ask(
            ["load", {"name": self.ref.name, **where,
                      "args": [list(a) for a in self.ref.args]}, self.seed],
            keeper.startup_left(), "start-up", account=keeper.account_startup,
        )
        self._expect(answer, "load", "ok", 4)
        return answer[2] is True, answer[3] is True

    def register(self, state: GameState, keeper: TimeKeeper, index: int) -> None:
        answer, _ = self._ask(["register", wire.state_fields(state), index],
                              keeper.startup_left(), "start-up", account=keeper.account_startup)
        self._expect(answer, "register", "ok", 2)

    def move(self, state: GameState, keeper: TimeKeeper, number: int,
             index: int) -> tuple[Any, str, float]:
        """Agent `index`'s (action or None, description of a non-string answer, wall
        seconds)."""
        before = self._cpu_now()
        # The referee's clock and the kernel's CPU count first (`_ask`): a move that ran out
        # of time is a timeout, whatever the agent answered or did (an error it chose, such as
        # "memory", its own exit).
        answer, wall = self._ask(["move", wire.state_fields(state), index], keeper.allowed(),
                                 f"move {number}", keeper.cut_off(number),
                                 account=lambda seconds: keeper.account(seconds, number))
        after = self._cpu_now()
        self._expect(answer, "move", "action", 5)
        _, _, action, description, _ = answer
        if not (action is None or isinstance(action, str)) or not isinstance(description, str):
            self._kill()
            raise AgentFault("crash", "broke the sandbox protocol (a malformed answer)")
        # The move's CPU as the kernel counts it (in clock ticks), read by the referee: the
        # harness's own figure in the answer runs in the agent's process, which can rewrite it
        # (a team once reported 0 for 50 ms moves), so it is never recorded.
        if before is not None and after is not None:
            self.cpu.moves.setdefault(index, []).append(max(0.0, after - before))
        return action, clean(description, 80), wall

    def final(self, state: GameState, index: int) -> None:
        """`final(state)` in the agent; its failure (a raise, `FINAL_LIMIT` passed) is an
        `AgentFault`, which the game reports as the in-process handle's (the game's outcome
        stands; without -c it ends the batch, as the course's would)."""
        answer, _ = self._ask(["final", wire.state_fields(state), index], FINAL_LIMIT,
                              "final()")
        self._expect(answer, "final", "ok", 2)

    def close(self) -> None:
        """Kill the agent and everything it started; collect its log; remove its folders.

        Every step runs whatever the ones before it raised (the first error is kept in
        `cleanup_error`); it never raises itself, except for Ctrl-C.
        """
        if self._closed:
            return
        self._closed = True
        for step in (self._record_cpu, self._kill_agent, self._end_keeper,
                     self._remove_cgroup, self._release_slot, self._collect_log,
                     self._close_fds, self._remove_home):
            try:
                step()
            except Exception as exc:
                self.cleanup_error = self.cleanup_error or exc

    def _record_cpu(self) -> None:
        self.cpu.total = self._cpu_total()

    def _kill_agent(self) -> None:
        self._signal(signal.SIGKILL)

    def _end_keeper(self) -> None:
        if self.keeper_pid is not None:
            if self._keeper_status(2) is None and self._keeper is not None:
                self._keeper.signal(signal.SIGKILL)
                self._keeper_status(2)
            if self._zygote is not None:
                self._zygote.forget(self.keeper_pid)

    def _remove_cgroup(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()

    def _release_slot(self) -> None:
        """Only once its processes are gone: the next holder of the slot plays as its uid."""
        if self._slot is not None:
            self._slot.release()

    def _collect_log(self) -> None:
        self._drain_output()
        self.log = self._log_text()

    def _close_fds(self) -> None:
        for fd in (self._to_child, self._from_child, self._log_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._log_fd = None
        self._close_handles()

    def _remove_home(self) -> None:
        if not self.placement.keep:
            remove_tree(self._home)

    # --- talking -----------------------------------------------------------------------------

    def _ask(self, message: list[Any], limit: float | None, what: str,
             cut_off: str = "",
             account: Callable[[float], str | None] | None = None) -> tuple[list[Any], float]:
        """Send a request, wait at most `limit` seconds; kill the child when it runs over.

        The request gets a fresh random number, which the answer must repeat; an answer sent
        before the request (an agent writing on the pipe itself) is a protocol error. Random,
        not counted: an agent could write the answers to requests not yet sent, and the referee
        pauses it between moves, so whether they reached the pipe before the check or only
        after the next request went out is a race; an unguessable number makes them wrong
        either way.

        `account` is the time keeper's: given the request's wall time, whether it broke a
        limit. It is asked first, whatever came back, and the kernel's CPU count next (the
        agent paused or dead): a request that ran out of time or past the CPU limit is a
        timeout however the agent then failed (an error it chose, garbage on the pipe, its
        own exit or a signal), never a kinder outcome. Both are checked here, once, for every
        request, so that no path through the answer can skip them.
        """
        self._seq = secrets.randbits(53)  # exact in JSON (a double)
        request = [message[0], self._seq, *message[1:]]
        self._resume()
        t0 = time.perf_counter()
        deadline = None if limit is None else t0 + limit
        answer: list[Any] | None = None
        fault: AgentFault | None = None
        ran_on = False
        try:
            if self._buf or self._unread():
                raise wire.ProtocolError("it answered before it was asked")
            answer = self._read(deadline) if self._send(request, deadline) else None
            if answer is not None and not self._stopped_by(deadline):
                answer, ran_on = None, True
        except _Interrupted as stop:
            # The referee's own waiting was interrupted (the window closed, Ctrl-C): not the
            # agent's doing, so it passes through `_blaming` as it is.
            self.interruption = stop.original
            raise stop.original from None
        except _Died:
            fault = self._death(what)
        except wire.ProtocolError as exc:
            self._kill()
            fault = AgentFault("crash", f"broke the sandbox protocol during {what}: "
                               f"{clean(str(exc), 120)}")
        except Exception as exc:
            # Whatever else failed while handling this agent (its code has run by now) is its
            # failure: it must never be able to turn its game into an unscored infra_error.
            self._kill()
            fault = AgentFault("crash", f"the referee could not handle it during {what} "
                               f"({type(exc).__name__})")
            fault.__cause__ = exc
        finally:
            self._drain_output()
        wall = time.perf_counter() - t0
        if answer is None and fault is None:
            self._kill()
            if ran_on:
                by = (f"by {limit:.3f}s" if limit is not None
                      else f"{STOP_LIMIT:.0f}s after it answered")
                raise AgentFault("timeout", f"{what} answered, but its threads had not stopped "
                                 f"{by} (a move ends when they have); killed")
            raise AgentFault("timeout", cut_off or f"{what} took more than {limit:.3f}s; killed")
        over = account(wall) if account is not None else None
        if over:
            self._kill()
            raise AgentFault("timeout", over)
        if fault is None:
            self._pause()  # its CPU count stops here (a faulty one is dead already)
        # An agent that caught SIGXCPU and answered (or failed) on is past its CPU limit: a
        # timeout (it would play on until the hard limit's SIGKILL).
        spent = self._cpu_spent(what)
        if spent is not None:
            self._kill()
            raise spent
        if fault is not None:
            raise fault
        assert answer is not None
        if len(answer) < 2 or answer[1] != self._seq or self._buf:
            self._kill()
            raise AgentFault("crash", f"broke the sandbox protocol during {what} "
                             "(an answer out of turn)")
        return answer, wall

    def _stopped_by(self, deadline: float | None) -> bool:
        """Stop the agent, and wait until every thread of it has stopped, by `deadline` (the
        request's hard limit; `STOP_LIMIT` from now without one): False when it has not.

        A request ends when the agent has stopped, not when it answered: SIGSTOP takes a
        thread only when it returns from the kernel, so a thread left inside a long system
        call (populating a large mapping, unmapping one) ran on while the agent was "paused",
        on the CPU of its opponent's turn and of the other worker's games, which then timed
        out (the thirteenth hostile review: a ghost team took 40% of its opponent's search and
        made a bystander's games time out). The time until it has stopped is its own: it
        counts in its move, against its own limits. Read from /proc through the descriptor
        of its threads' folder, bound to its process (`_open_handles`); where that cannot be
        read, the stop is taken as done, as before."""
        self._pause()
        now = time.perf_counter()
        until = deadline if deadline is not None else now + STOP_LIMIT
        # A thread stops within tens of microseconds once it is scheduled: looked at without
        # sleeping first (a sleep costs more than that), then less and less often.
        spin_until, pause = now + 0.0005, 0.0001
        while not self._all_stopped():
            now = time.perf_counter()
            if now >= until:
                return False
            if now < spin_until:
                os.sched_yield()
                continue
            self._waiting()  # its prints shown, the window pumped, while it takes long
            time.sleep(pause)
            pause = min(2 * pause, 0.002)
        return True

    def _all_stopped(self) -> bool:
        """Whether no thread of the agent runs (stopped, or ended); True when that cannot be
        read (its process gone, no /proc). Its main thread first, through the descriptor
        already open: while that one runs, the others need no look."""
        if self._task_fd is None:
            return True
        with contextlib.suppress(OSError):  # its process gone: nothing runs
            if self._stat_fd is not None and not self._stopped_state(self._stat_fd):
                return False
        try:
            with os.scandir(self._task_fd) as threads:
                names = [entry.name for entry in threads]
        except OSError:
            return True
        for name in names:
            try:
                fd = os.open(f"{name}/stat", os.O_RDONLY, dir_fd=self._task_fd)
            except OSError:
                continue  # that thread ended since the listing: the others still count
            try:
                if not self._stopped_state(fd):
                    return False
            except OSError:
                continue
            finally:
                os.close(fd)
        return True

    @staticmethod
    def _stopped_state(stat_fd: int) -> bool:
        """Whether the thread whose /proc stat file `stat_fd` is runs nothing (raises OSError
        once it is gone)."""
        state = stat_fields(os.pread(stat_fd, 4096, 0))[:1]
        return not state or state[0] in STOPPED_STATES

    def _unread(self) -> bool:
        """Whether the child wrote anything since its last answer (it never should)."""
        poller = select.poll()
        poller.register(self._from_child, select.POLLIN)
        return any(event & select.POLLIN for _, event in poller.poll(0))

    def _expect(self, answer: list[Any], op: str, kind: str, length: int) -> None:
        """Check an answer's shape; an error the child may report becomes the agent's fault,
        worded by the referee (`fault_message`)."""
        if answer[0] == kind and len(answer) == length:
            return
        if (answer[0] == "error" and len(answer) in (6, 7)
                and answer[2] in wire.CHILD_FAULTS.get(op, ())
                and all(isinstance(x, str) for x in answer[3:6])):
            self._kill()
            # (Past its CPU limit it timed out, whatever error it chose: `_ask` said so.)
            detail = Detail.from_wire(answer[6]) if len(answer) == 7 else None
            raise AgentFault(answer[2], fault_message(op, answer[2], answer[3], answer[4]),
                             clean(answer[5], 4000), detail=detail)
        self._kill()
        raise AgentFault("crash", "broke the sandbox protocol (answered "
                         f"{clean(str(answer[0]), 20)!r} to a request for {kind!r})")

    def _send(self, message: list[Any], deadline: float | None) -> bool:
        """Write a request without ever blocking past `deadline`; False when it passes.

        The pipe is non-blocking: a child that stops reading (and shrank its pipe) cannot
        hang the referee.
        """
        data = wire.encode(message)
        while data:
            try:
                data = data[os.write(self._to_child, data):]
                continue
            except BlockingIOError:
                pass
            except OSError as exc:  # a broken pipe: the child is gone
                raise _Died() from exc
            if deadline is None:
                timeout = WAIT_SLICE_MS
            else:
                left = deadline - time.perf_counter()
                if left <= 0:
                    return False
                timeout = min(WAIT_SLICE_MS, max(1, int(left * 1000) + 1))
            poller = self._poller(self._to_child, select.POLLOUT)
            if not any(fd == self._to_child for fd, _ in poller.poll(timeout)):
                self._waiting()
        return True

    def _poller(self, fd: int, event: int) -> select.poll:
        """A poll on `fd` and on the agent's output pipe (drained as it fills, so that an
        agent printing much never blocks on it while the referee waits)."""
        poller = select.poll()
        poller.register(fd, event)
        if self._log_fd is not None and not self._log_full():
            poller.register(self._log_fd, select.POLLIN)
        return poller

    def _log_full(self) -> bool:
        """Whether the output cap is reached and more was written. From then on the referee
        no longer waits on the pipe: it drops up to DROP_PER_WAKE each time it wakes anyway
        (every WAIT_SLICE_MS), so an agent that writes on, on its descriptor, is slowed (to
        some 30 MB/s) in its own time rather than keeping the referee busy draining, and is
        never stuck."""
        return self._log_dropped > 0

    def _waiting(self) -> None:
        """While an answer is awaited: show what the agent printed, pump the window."""
        self._drain_output()
        if self.on_wait is not None:
            try:
                self.on_wait()
            except BaseException as exc:
                raise _Interrupted(exc) from exc

    def _read(self, deadline: float | None) -> list[Any] | None:
        """The next answer line, or None when the deadline passes first."""
        while b"\n" not in self._buf:
            if deadline is None:
                timeout = -1
            else:
                left = deadline - time.perf_counter()
                if left <= 0:
                    return None
                timeout = max(1, int(left * 1000) + 1)
            if self.on_wait is not None or self.on_output is not None or self._log_full():
                timeout = WAIT_SLICE_MS if timeout < 0 else min(timeout, WAIT_SLICE_MS)
            poller = self._poller(self._from_child, select.POLLIN)
            if not any(fd == self._from_child for fd, _ in poller.poll(timeout)):
                self._waiting()
                continue
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise _Died()
            self._buf += chunk
            if len(self._buf) > wire.ANSWER_LIMIT:
                raise wire.ProtocolError(f"an answer longer than {wire.ANSWER_LIMIT} bytes")
        line, _, self._buf = self._buf.partition(b"\n")
        return wire.decode(line)

    def _pause(self) -> None:
        if self.pid is not None and not self._stopped:
            self._signal(signal.SIGSTOP)
            self._stopped = True

    def _resume(self) -> None:
        if self.pid is not None and self._stopped:
            self._signal(signal.SIGCONT)
            self._stopped = False

    def kill(self) -> None:
        """Stop the agent at once (SIGKILL), its CPU total read first; `close` cleans up."""
        self._kill()

    def _kill(self) -> None:
        self.cpu.total = self._cpu_total()
        self.cpu.charged = self._charged()
        self._killed = True
        self._signal(signal.SIGKILL)

    def _death(self, what: str) -> AgentFault:
        """Why the child is gone, read from outside: its exit status and its cgroup."""
        self._kill()
        status = self._keeper_status(2)
        if status is not None:
            self.keeper_pid = None
        # An agent past its CPU limit ends as SIGXCPU would end it, however it died (its
        # keeper's word, from the kernel's count: `child._keep`), out of memory included.
        if status == 128 + signal.SIGXCPU:
            return self._cpu_timeout(what)
        if self.cgroup is not None and self.cgroup.out_of_memory():
            return AgentFault("memory", f"killed for using more than {self.limits.memory_mb} MiB "
                              f"during {what}")
        if self.cgroup is not None and self.cgroup.killed_from_outside():
            # Within its own limit, taken by the machine's out-of-memory killer. Still its
            # `killed`, said as what happened: made the platform's unscored failure, a losing
            # team could fill its own memory until the machine's killer took it, run after
            # run (the review of that change), and the killer takes the largest process, most
            # often the one that filled the memory. Runs bound the games at once so that the
            # sandboxes' limits fit the machine (`tournament.runner.memory_workers`,
            # `tournament.executors.MemorySlots`), so an honest team meets this only where the
            # machine's memory is taken by something else.
            return AgentFault("killed", f"was killed by the machine's out-of-memory killer "
                              f"during {what}, within its own limit of "
                              f"{self.limits.memory_mb} MiB")
        if status is None:
            return AgentFault("killed", f"its process vanished during {what}")
        if status >= 128 or status < 0:
            sig = status - 128 if status >= 128 else -status
            if sig == signal.SIGXCPU:
                return self._cpu_timeout(what)
            if sig in SIGNAL_NAMES:
                return AgentFault("crash", f"died of {signal.Signals(sig).name} "
                                  f"({SIGNAL_NAMES[sig]}) during {what}")
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
            return AgentFault("killed", f"was killed by {name} during {what}")
        if status == HARNESS_FAILED:
            return AgentFault("crash", f"its sandbox's harness failed during {what} (often a "
                              f"memory limit too small: {self.limits.memory_mb} MiB)",
                              self._tail())
        return AgentFault("crash", f"exited with status {status} during {what}", self._tail())

    # --- records ------------------------------------------------------------------------------

    def _cpu_budget(self) -> int | None:
        """The CPU seconds of this process (whole ones, as RLIMIT_CPU counts them): a ghost
        team's one process has its ghosts' CPU time together. Its plan (`Plan.cpu_limit`)
        says what the kernel enforces."""
        if self.limits.cpu_seconds is None:
            return None
        return int(self.limits.cpu_seconds) * len(self.indices)  # whole (`limit_problem`)

    def _cpu_spent(self, what: str) -> AgentFault | None:
        """The timeout of an agent whose process used its CPU limit, as the kernel counts it
        (None while it has not, or without /proc)."""
        limit = None if self._plan is None else self._plan.cpu_limit()
        if limit is None:
            return None
        charged = self._charged()
        if charged is not None:
            return self._cpu_timeout(what) if charged >= limit else None
        total = self._cpu_total()
        # Without the kernel's own count: /proc rounds the four times it sums (user, system,
        # children's) down to clock ticks each, so a process the kernel signalled at its
        # limit can read four ticks short (and less again on a busy machine, see `_prof_now`).
        if total is None or total < limit - 4 / os.sysconf("SC_CLK_TCK"):
            return None
        return self._cpu_timeout(what)

    def _charged(self) -> float | None:
        """Its CPU as RLIMIT_CPU counts it: live, or as read when it was killed (never read
        again after: its pid may be another process's by then)."""
        if self._killed:
            return self.cpu.charged
        return self._prof_now()

    def _prof_now(self) -> float | None:
        """The agent's CPU seconds as RLIMIT_CPU counts them (None when it cannot be read):
        the kernel's profiling clock of its process, a whole tick for each tick it was found
        running. /proc shows the runtime itself, which on a busy machine can be less than
        that count: an agent the kernel signalled at its limit read as under it, and the
        error it chose passed for its failure (a CPU hog on both cores showed it)."""
        if self.pid is None:
            return None
        try:
            charged = time.clock_gettime(confine.prof_clock(self.pid))
        except OSError:
            return None
        # Read by pid (there is no pidfd clock): it was the agent's if the agent had not
        # ended by the time it was read.
        return None if self._agent is None or self._agent.gone() else charged

    def _cpu_timeout(self, what: str) -> AgentFault:
        return AgentFault("timeout", f"used more than {self.limits.cpu_seconds} CPU seconds "
                          f"(during {what})")

    def _cpu_total(self) -> float | None:
        if self.cpu.total is not None:
            return self.cpu.total
        return self._cpu_now()

    def _cpu_now(self) -> float | None:
        """The agent's process's CPU seconds so far, from the kernel (None without /proc)."""
        if self._stat_fd is None:
            return None
        try:
            raw = os.pread(self._stat_fd, 4096, 0)
        except OSError:
            return None
        return cpu_seconds_from_stat(raw)

    def _drain_output(self) -> None:
        """Read what the agent printed since the last call: keep it (up to `output_kb`,
        dropping the rest) and hand the new part to `on_output`."""
        if self._log_fd is None:
            return
        limit = self.limits.output_kb * 1024
        # Bounded even before the cap is known to be passed: an agent can refill its pipe
        # (sendfile from a page-cache file) as fast as the referee empties it.
        budget = max(0, limit - len(self._log)) + DROP_PER_WAKE
        while True:
            try:
                data = os.read(self._log_fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                data = b""
            if not data:  # every writer is gone
                os.close(self._log_fd)
                self._log_fd = None
                break
            room = max(0, limit - len(self._log))
            self._log += data[:room]
            self._log_dropped += len(data) - min(room, len(data))
            budget -= len(data)
            if budget <= 0:
                break  # at most DROP_PER_WAKE past the cap per wake-up
        if self.on_output is not None and len(self._log) > self._log_shown:
            text = clean(self._log_decoder.decode(bytes(self._log[self._log_shown:]),
                                                  final=len(self._log) >= limit))
            self._log_shown = len(self._log)
            if text:
                self.on_output(text)
        if self.on_output is not None and self._log_dropped and not self._drop_said:
            # Without a word the output just stops, and a student reads it as their code
            # path stopping (the eleventh hostile review).
            self._drop_said = True
            self.on_output(f"\n[output truncated at {self.limits.output_kb} KiB: the rest "
                           "of this game's prints are dropped; --output-limit raises it]\n")

    def _log_text(self) -> str:
        text = clean(self._log.decode("utf-8", "replace"))
        return text + ("\n[output truncated]\n" if self._log_dropped else "")

    def _tail(self) -> str:
        """The end of what the agent printed (for a harness that died while starting)."""
        self._drain_output()
        return clean(self._log[-2000:].decode("utf-8", "replace"))

def stat_fields(raw: bytes) -> list[bytes]:
    """The fields of a /proc stat file after the command name (state, ppid, ...), as bytes:
    the agent chooses its command name (up to 16 bytes, any of them but NUL, ')' and spaces
    included), so the fields are read after the last ')' and nothing is ever decoded as
    text. Pure."""
    return raw[raw.rfind(b")") + 1:].split()


def cpu_seconds_from_stat(raw: bytes) -> float | None:
    """utime + stime + cutime + cstime from /proc/<pid>/stat (`stat_fields`)."""
    parts = stat_fields(raw)
    try:
        ticks = sum(int(x) for x in parts[11:15])
    except (ValueError, IndexError):
        return None
    if len(parts) < 15 or ticks < 0:
        return None
    return ticks / os.sysconf("SC_CLK_TCK")


_swept: set[tuple[int, str]] = set()


def sweep_leftovers(root: Path | None) -> None:
    """Once per process and folder: remove what sandboxes of dead referees left behind.

    A referee killed outright (SIGKILL, a worker ended by its watchdog) cannot clean up; its
    sandboxes' folders and cgroups carry its pid and pid namespace
    (`pacman-agent<index>-<pid>-<namespace>-<random>`), so a later referee of the same
    namespace can tell they are stale (`pacman.sandbox.owners`), and never takes a live
    sandbox of another namespace for a dead one.
    """
    folder = Path(root) if root is not None else Path(tempfile.gettempdir())
    key = (os.getpid(), str(folder))
    if key in _swept:
        return
    _swept.add(key)
    for path in folder.glob(f"{SCRATCH_PREFIX}*-*-*"):
        parts = path.name.split("-")
        namespace = parts[3] if len(parts) == 5 else None
        if stale(parts[2], namespace, alive):
            remove_tree(path)
    sweep_cgroups(alive)


def remove_tree(path: Path) -> None:
    """Remove a sandbox's folders, whatever the agent left in them (3000 nested folders
    overflow `shutil.rmtree`'s recursion; `rm` has no such limit)."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass
    except (OSError, RecursionError):
        subprocess.run(["rm", "-rf", "--", str(path)], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class SandboxedHandle:
    """The agent handle (`pacman.handles.AgentHandle`) of a team's agent in its sandbox: every
    call is a request to the child process, timed by the referee against its `Limits`.

    A ghost team's handle plays every ghost index in one process. Its limits then count so:
    start-up (loading the team, building all its ghosts, every `registerInitialState`) is one
    budget for the team; each ghost's move has the per-move limits, and each ghost index
    has its own warnings and its own per-game total (`game_total`), as a ghost played alone
    would; the kernel's CPU limit (`cpu_seconds`) is the team's process's, so it is scaled
    by the number of ghosts.
    """

    def __init__(
        self,
        ref: AgentRef,
        index: int | tuple[int, ...],
        layout: Layout,
        num_ghosts: int,
        ruleset: str,
        seed: int,
        limits: Limits,
        placement: Placement | None = None,
        on_output: Callable[[int, str], None] | None = None,
        idle: Callable[[], None] | None = None,
    ) -> None:
        """Nothing starts yet (`start`): `on_output(index, text)` gets what the agent prints as
        it prints it (under its first index), `idle()` is called while the referee waits."""
        self.indices: tuple[int, ...] = (index,) if isinstance(index, int) else tuple(index)
        self._shown = ref.shown
        self._make = functools.partial(AgentProcess, ref, self.indices, layout, num_ghosts,
                                       ruleset, seed, limits, placement)
        self._on_output = on_output
        self._idle = idle
        self._process: AgentProcess | None = None
        self.keepers = {i: TimeKeeper(limits) for i in self.indices}
        #: Start-up is the team's: counted on its first index's keeper.
        self.keeper = self.keepers[self.indices[0]]
        self.has_register = False
        self.has_final = False
        self.moves = {i: 0 for i in self.indices}
        self._records = {i: AgentRecord() for i in self.indices}

    @classmethod
    def launch(cls, *args: Any, **kwargs: Any) -> SandboxedHandle:
        """A started handle (the arguments are the constructor's): AgentFault or SandboxError
        on failure, when the process is already closed; on success the caller must
        `close()` it."""
        handle = cls(*args, **kwargs)
        handle.start()
        return handle

    @property
    def process(self) -> AgentProcess:
        """The sandbox's process (once `start` was called)."""
        if self._process is None:
            raise RuntimeError("the sandbox was not started")
        return self._process

    def start(self) -> None:
        """Start the sandbox and build the agents in it (time spent importing and building
        counts against the start-up limit). On failure the process is closed."""
        process = self._process = self._make()
        if self._on_output is not None:
            process.on_output = functools.partial(self._on_output, self.indices[0])
        process.on_wait = self._idle
        try:
            process.start()
            self.has_register, self.has_final = process.load(self.keeper)
        except AgentFault as fault:
            process.close()
            # Which agent could not start, by its name for people (never its path).
            fault.message = f"{self._shown}: {fault.message}"
            fault.args = (fault.message,)
            raise
        except BaseException:
            process.close()
            raise

    def register(self, state: GameState) -> None:
        if self.has_register:
            for index in self.indices:
                with _blaming(index, self.process):
                    self.process.register(state, self.keeper, index)

    def act(self, index: int, state: GameState, move: int) -> Any:
        timing = self._records[index].timing
        keeper = self.keepers[index]
        t0 = time.perf_counter()
        try:
            with _blaming(index, self.process):
                action, description, _ = self.process.move(state, keeper, self.moves[index],
                                                           index)
        except AgentFault:
            # A move the sandbox ended (a timeout, a death) still counts in its times.
            timing.add(time.perf_counter() - t0)
            timing.warnings = keeper.warnings
            raise
        timing.add(time.perf_counter() - t0)
        timing.warnings = keeper.warnings
        self.moves[index] += 1
        if action is None:
            return _Unprintable(description)
        return action

    def final(self, state: GameState) -> None:
        """As the in-process handle: every agent's `final` is called, and the first failure
        is raised after them (before, a sandboxed agent's failing `final` was dropped in
        silence: the fifteenth hostile review)."""
        if not self.has_final:
            return
        first: AgentFault | None = None
        for index in self.indices:
            try:
                with _blaming(index, self.process):
                    self.process.final(state, index)
            except AgentFault as fault:
                first = first or fault
        if first is not None:
            raise first

    def close(self) -> None:
        """Close the process; record per index. The process's CPU total is recorded on the
        first index (its other indices' moves are in it, and get 0.0); each index keeps the
        largest CPU time of its own moves."""
        process = self._process
        if process is None:
            return
        process.close()
        for index, record in self._records.items():
            first = index == self.indices[0]
            record.timing.cpu = process.cpu.total if first or process.cpu.total is None else 0.0
            moves = process.cpu.moves.get(index, [])
            record.timing.cpu_max = max(moves) if moves else None
            record.log = process.log if first else ""
            record.layers = sorted(process.active)

    def record(self, index: int) -> AgentRecord:
        return self._records[index]


@contextlib.contextmanager
def _blaming(index: int, process: AgentProcess) -> Iterator[None]:
    """A fault raised inside names agent `index` as its culprit; and anything else that fails
    while the referee handles that agent's answers (its code has run: an answer written by
    the agent itself may hold anything the wire can carry) is that agent's crash, never the
    platform's failure that would leave its game unscored."""
    try:
        yield
    except AgentFault as fault:
        if fault.index is None:
            fault.index = index
        raise
    except Exception as exc:
        if exc is process.interruption:
            raise
        process.kill()
        raise AgentFault("crash", "the referee could not handle its answer "
                         f"({type(exc).__name__})", index=index) from exc


class _Unprintable:
    """Stands for a non-string answer (None, an object) so the runner reports it by name."""

    def __init__(self, description: str) -> None:
        self.description = description

    def __repr__(self) -> str:
        return self.description
