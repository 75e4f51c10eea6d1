"""The sandboxed side: a process that confines itself, then imports and runs one team's agent.

Forked by the referee's zygote (see `zygote.py`) with the request and answer pipes as `rfd`
and `wfd`. Two processes come out of it:
- the first (the "keeper") unshares namespaces, forks, tells the referee the agent's pid and
  waits; an agent that kills its parent kills only the keeper;
- the second (the agent process) is process 1 of a fresh PID namespace. It closes every
  descriptor it does not need, sets its limits, imports what the engine needs, moves into its
  own minimal root (the mounts layer), applies Landlock, drops its uid and capabilities,
  installs the seccomp filter, and only then imports the team's code. It answers the
  referee's requests one line at a time until told to stop or killed.

Everything the agent does wrong is turned into an answer (`["error", seq, kind, exception
type, exception text, trace, detail]`) when the process survives it; when it does not, the
referee reads the death from outside. The referee words every message itself: the child only
says which exception the agent raised and what it tells (`pacman.problems.Detail`: a syntax
error's file and line, a missing module's name, where in the team's files it came from); the
agent could write any answer anyway, so the referee checks what it reads.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from typing import Any

from pacman.sandbox import confine, wire

MESSAGE_LIMIT = 300
PR_SET_PDEATHSIG = 1
TRACE_LIMIT = 4000


class LineReader:
    """Lines from a pipe; the referee is trusted, so no size cap is needed here."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def next(self) -> list[Any] | None:
        while b"\n" not in self.buf:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return wire.decode(line)


def send(fd: int, message: list[Any]) -> None:
    data = wire.encode(message)
    while data:
        data = data[os.write(fd, data):]


class _CappedStream:
    """stdout and stderr of the agent: the first `budget` bytes reach the log, then nothing.

    Writing straight to file descriptor 1 bypasses it, but the file-size limit still applies.
    """

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, budget: int) -> None:
        self.left = budget

    def write(self, text: str) -> int:
        if self.left > 0:
            data = str(text).encode("utf-8", "replace")[: self.left]
            self.left -= len(data)
            try:
                os.write(1, data)
                if self.left <= 0:
                    os.write(1, b"\n[output truncated by the sandbox]\n")
            except OSError:
                self.left = 0
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return 1


#: The platform's own agents and search code: a team plays its own code, not a subclass of the
#: platform's baselines under its name (the course API, `game`, `util` and `pacman` itself,
#: stays importable).
PLATFORM_ONLY = ("pacman.agents", "pacman.search", "pacman.games", "tournament")
#: What course code may import from `pacman.agents` (the `Agent` base the course's `game` is).
TEAM_IMPORTABLE = ("pacman.agents.base",)


class PlatformOnly:
    """A meta path finder, first in line in the agent's process, that refuses to import the
    platform's baselines and search code for a team."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name in TEAM_IMPORTABLE or not any(
                name == own or name.startswith(own + ".") for own in PLATFORM_ONLY):
            return None
        raise ModuleNotFoundError(
            f"{name} is the platform's own code: a team plays code of its own", name=name)


def warm_up() -> None:
    """Import what the agent process needs, so a zygote's forks start with it loaded."""
    import random  # noqa: F401
    import traceback  # noqa: F401

    from pacman import compat  # noqa: F401
    from pacman.actions import action_name  # noqa: F401
    from pacman.describe import describe  # noqa: F401
    from pacman.layout import parse_layout  # noqa: F401
    from pacman.loader import load_file  # noqa: F401
    from pacman.problems import detail_of  # noqa: F401
    from pacman.sandbox import mounts, seccomp  # noqa: F401
    from pacman.state import GameState  # noqa: F401

    # The filter of an agent that is process 1 of its PID namespace (the usual case),
    # compiled once here rather than in every sandbox (which also loads libseccomp before
    # any file system shrinks).
    with contextlib.suppress(seccomp.SeccompUnavailable):
        seccomp.program_for(1)


def main(rfd: int, wfd: int) -> None:
    reader = LineReader(rfd)
    first = reader.next()
    if first is None or first[0] != "init":
        os._exit(3)
    init: dict[str, Any] = first[1]
    # The keeper dies with the referee, and the agent with the keeper (below).
    confine.libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    plan = confine.Plan.from_json(init["plan"])
    report = confine.Report()
    as_root = os.geteuid() == 0
    switch_uid = plan.uid is not None and "uid" in plan.layers

    want_mounts = "mounts" in plan.layers
    state = {"mount_ns": False}

    def namespaces() -> None:
        # With the user namespace when it can (not when the uid layer needs real root), with
        # a mount namespace for the mounts layer; each missing piece is tried without.
        attempts = [(user, mount) for user in ((not switch_uid, False) if as_root and
                                                not switch_uid else (not switch_uid,))
                    for mount in ((True, False) if want_mounts else (False,))]
        problem: confine.LayerUnavailable | None = None
        for with_user, mount in attempts:
            try:
                confine.unshare_namespaces(as_root, with_user=with_user, mount=mount)
            except confine.LayerUnavailable as exc:
                problem = problem or exc
                continue
            state["mount_ns"] = mount
            return
        assert problem is not None
        raise problem

    report.run("namespaces", plan, namespaces)
    if want_mounts and not state["mount_ns"]:
        report.missing["mounts"] = "no mount namespace could be made"
    go_read, go_write = os.pipe()
    pid = os.fork()
    if pid:
        _keep(pid, wfd, go_read, go_write, rfd, plan.cpu_limit())
    os.close(go_write)
    os.read(go_read, 1)
    os.close(go_read)
    _agent_process(reader, wfd, init, plan, report, switch_uid, state["mount_ns"])


def _keep(pid: int, wfd: int, go_read: int, go_write: int, rfd: int,
          cpu_limit: int | None) -> None:
    """The keeper: report the agent's pid, then wait for it and exit as it did, or as the
    kernel's SIGXCPU would have ended it when the agent used its CPU limit: the agent may
    catch or ignore that signal and die otherwise (of the hard limit's SIGKILL, or any exit
    it chooses), and a timeout must never pass for another failure. The CPU is the kernel's
    count of the reaped process (`wait4`), which the agent cannot change.

    It runs unconfined (outside the agent's PID namespace), so it makes itself undumpable:
    no process of its user may trace it or read its memory.
    """
    confine.libc().prctl(confine.PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.close(go_read)
    send(wfd, ["pid", pid])
    os.write(go_write, b"x")
    os.close(go_write)
    os.close(rfd)
    os.close(wfd)
    charged = None
    try:
        # Ended but not reaped yet: its CPU as RLIMIT_CPU counted it (the profiling clock,
        # by ticks) is still there to read; `wait4`'s is the runtime, which on a busy machine
        # can be less than the count the kernel signalled it at.
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        with contextlib.suppress(OSError):
            charged = time.clock_gettime(confine.prof_clock(pid))
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        os._exit(0)
    # The kernel's user and system times are each rounded down, to the microsecond.
    spent = max(usage.ru_utime + usage.ru_stime + 1e-5, charged or 0.0)
    if cpu_limit is not None and spent >= cpu_limit:
        os._exit(128 + signal.SIGXCPU)
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _agent_process(
    reader: LineReader,
    wfd: int,
    init: dict[str, Any],
    plan: confine.Plan,
    report: confine.Report,
    switch_uid: bool,
    mount_ns: bool,
) -> None:
    # Die with the keeper (and so with the referee), whatever happens to the pipes.
    confine.libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # Nothing the zygote or the keeper had open may reach the agent: only its pipes and its
    # log (stdin, stdout and stderr).
    keep = sorted({0, 1, 2, reader.fd, wfd})
    for low, high in zip(keep, [*keep[1:], 1 << 20]):
        if high > low + 1:
            os.closerange(low + 1, high)
    report.run("rlimits", plan, lambda: confine.apply_rlimits(plan))
    # As process 1 of its namespace it would ignore the kernel's SIGXCPU; end as the signal
    # would, so the referee can tell a CPU limit from other deaths.
    signal.signal(signal.SIGXCPU, lambda *_: os._exit(128 + signal.SIGXCPU))
    # Everything the harness needs is imported before the file system shrinks.
    import random
    import traceback  # noqa: F401  (used on errors, after Landlock)

    from pacman import compat
    from pacman.layout import parse_layout
    from pacman.loader import describe_signature, load_file  # noqa: F401
    from pacman.problems import detail_of  # noqa: F401
    from pacman.sandbox import mounts
    from pacman.state import GameState

    compat.install()
    if init.get("builtin"):
        # A built-in that plays with files (a tuning's feature function): its module and what
        # it imports are the platform's, hidden from the agent's view, so they load now.
        __import__("importlib").import_module(str(init["builtin"]))
    layout = parse_layout(init["layout_text"], name=init["layout_name"])
    template = GameState.initial(layout, init["num_ghosts"], init["ruleset"])
    if mount_ns:
        view = mounts.View(root=plan.root, read_paths=plan.read_paths, scratch=plan.workdir,
                           scratch_bytes=plan.scratch_bytes, scratch_files=plan.scratch_files,
                           owner=plan.uid if switch_uid else None, hidden=plan.hidden,
                           team=plan.team, team_source=plan.team_source)

        def enter() -> None:
            try:
                mounts.enter(view)
            except mounts.MountsUnavailable as exc:
                raise confine.LayerUnavailable(str(exc)) from exc

        if not report.run("mounts", plan, enter):
            # Half-built views stay private to this namespace; the agent works on the host's
            # folder (Landlock still confines it).
            os.chdir("/")
    os.chdir(plan.workdir)
    report.run("landlock", plan,
               lambda: confine.apply_landlock(plan.read_paths, (plan.workdir, "/dev/null")))
    if switch_uid:
        assert plan.uid is not None
        uid = plan.uid
        report.run("uid", plan, lambda: confine.switch_uid(uid))
        # Changing uid clears the parent-death signal: set it again.
        confine.libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    else:
        report.missing["uid"] = init.get("uid_problem") or "switched off"
    report.run("capabilities", plan, confine.drop_capabilities)
    report.run("seccomp", plan, confine.apply_seccomp)
    stream = _CappedStream(int(init["output_bytes"]))
    sys.stdout = sys.stderr = stream
    # The original streams too (code writes to sys.__stdout__ to get past a redirection):
    # left as they are, they would buffer, and lose what they hold when the process is
    # killed. (Through vars(): typing calls them final, as they are for ordinary programs.)
    vars(sys).update(__stdout__=stream, __stderr__=stream)
    send(wfd, ["ready", report.active, report.missing])
    _serve(reader, wfd, init, template, random, plan.team)


def _serve(
    reader: LineReader,
    wfd: int,
    init: dict[str, Any],
    template: Any,
    random: Any,
    team: str = "",
) -> None:
    """Answer the referee's requests. `team` is the team's folder (as the agent sees it),
    which the places in its files that a failure names are relative to ('' when it is
    bound as it is: then the agent file's folder)."""
    import traceback

    from pacman import problems
    from pacman.actions import action_name
    from pacman.describe import exception_text, safe_text
    from pacman.loader import (
        SubmissionError,
        describe_signature,
        load_file,
        options_refused,
        source_only_hook,
    )

    reserve = bytearray(1 << 20)  # freed on MemoryError so the answer can still be built
    cpu = time.process_time
    # One agent per index this sandbox plays: Pacman alone, or every ghost of a ghost team
    # (built once per ghost index, all in this one process, so a team may coordinate them).
    indices = [int(i) for i in init["indices"]]
    agents: dict[int, Any] = {}
    root = team

    def error(kind: str, exc: BaseException, prefix: str = "",
              trace_of: BaseException | None = None) -> list[Any]:
        nonlocal reserve
        reserve = bytearray()
        if isinstance(exc, MemoryError):
            kind = "memory" if kind != "load_error" else kind
        try:
            trace = "".join(traceback.format_exception(trace_of or exc)[-12:])[-TRACE_LIMIT:]
        except BaseException:
            trace = ""
        try:
            name = type(exc).__name__
        except BaseException:
            name = ""
        detail = problems.detail_of(exc, root).to_wire()
        return ["error", seq, kind, name, (prefix + exception_text(exc))[:MESSAGE_LIMIT],
                trace, detail]

    while True:
        message = reader.next()
        if message is None:
            os._exit(0)
        # Every request carries a number its answer repeats: the referee takes nothing that
        # was not asked for.
        op, seq = message[0], message[1]
        if op == "move":
            state = wire.state_from_fields(template, message[2])
            t0 = cpu()
            try:
                action = agents[int(message[3])].getAction(state)
                name = action_name(action)
                answer = ["action", seq, name, "" if name else safe_text(action), cpu() - t0]
            except BaseException as exc:
                answer = error("crash", exc)
        elif op == "load":
            ref = message[2]
            random.seed(int(message[3]))
            # Nothing compiled is written, and the team's modules are compiled from their
            # sources only (`source_only_hook`): a `.pyc` in its __pycache__ must not run in
            # place of its source. The libraries' own compiled files are used as they are.
            sys.dont_write_bytecode = True
            sys.meta_path.insert(0, PlatformOnly())
            libraries = list(sys.path)  # the interpreter's own, before any team folder
            source = ref.get("path")
            if source:
                folder = os.path.dirname(source)
                sys.path.insert(0, folder)
                root = root or folder
            if root:  # an agent's file, or a built-in's files (a tuning's features)
                sys.path_hooks.insert(0, source_only_hook(root, libraries))
                sys.path_importer_cache.clear()
            try:
                # A built-in's module was imported before confinement (`main`).
                module = (load_file(__import__("pathlib").Path(source)) if source
                          else sys.modules[str(init["builtin"])])
                cls = getattr(module, ref["name"], None)
                if not isinstance(cls, type):
                    raise SubmissionError(f"{source} defines no class {ref['name']!r}",
                                          problems.MISSING_CLASS)
            except SubmissionError as exc:
                cause = exc.__cause__
                answer = error("load_error", cause or exc)
                detail = problems.detail_of(exc, root)
                answer[6] = detail.to_wire()
                if isinstance(cause, SyntaxError):  # where, in the team's own file names
                    where = detail.where or os.path.basename(source or "")
                    answer[4] = f"{where}: {cause.msg}"[:MESSAGE_LIMIT]
                elif cause is None:
                    # The harness's own finding (no class of that name): no traceback, which
                    # would show the harness's code as the team's (the fifteenth review).
                    answer[4] = str(exc)[:MESSAGE_LIMIT]
                    answer[5] = ""
            except BaseException as exc:
                answer = error("load_error", exc)
            else:
                args = dict(ref["args"])
                try:
                    for index in indices:
                        agents[index] = cls(**args) if index == 0 else cls(index, **args)
                    first = agents[indices[0]]
                    answer = ["ok", seq, hasattr(first, "registerInitialState"),
                              hasattr(first, "final")]
                except TypeError as exc:
                    refused = options_refused(cls, index, args)
                    answer = error("load_error", exc, f"(its options: {describe_signature(cls)}) "
                                   if refused else "")
                except BaseException as exc:
                    answer = error("load_error", exc)
        elif op == "register":
            state = wire.state_from_fields(template, message[2])
            try:
                agents[int(message[3])].registerInitialState(state)
                answer = ["ok", seq]
            except BaseException as exc:
                answer = error("crash", exc)
        elif op == "final":
            state = wire.state_from_fields(template, message[2])
            try:
                agents[int(message[3])].final(state)
                answer = ["ok", seq]
            except BaseException as exc:
                answer = error("crash", exc)
        else:
            answer = ["error", seq, "crash", "", f"unknown request {op!r}", "", {}]
        try:
            send(wfd, answer)
        except BaseException:
            os._exit(4)

