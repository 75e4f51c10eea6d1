"""The sandboxed side: a process that confines itself, then imports and runs one team's agent.

Forked by the referee's zygote (see `zygote.py`) with the request and answer pipes as `rfd`
and `wfd`. Two processes come out of it:
- the first (the "keeper") unshares namespaces, forks, tells the referee the agent's pid and
  waits; an agent that kills its parent kills only the keeper;
- the second (the agent process) is process 1 of a fresh PID namespace. It sets its limits,
  imports what the engine needs, applies Landlock, drops its uid and capabilities, installs
  the seccomp filter, and only then imports the team's code. It answers the referee's requests
  one line at a time until told to stop or killed.

Everything the agent does wrong is turned into an answer (`["error", kind, message, trace]`)
when the process survives it; when it does not, the referee reads the death from outside.
"""

from __future__ import annotations

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


def warm_up() -> None:
    """Import what the agent process needs, so a zygote's forks start with it loaded."""
    import random  # noqa: F401
    import traceback  # noqa: F401

    from pacman import compat  # noqa: F401
    from pacman.describe import describe  # noqa: F401
    from pacman.layout import parse_layout  # noqa: F401
    from pacman.loader import load_file  # noqa: F401
    from pacman.state import GameState  # noqa: F401


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

    def namespaces() -> None:
        try:
            confine.unshare_namespaces(as_root, with_user=not switch_uid)
        except confine.LayerUnavailable:
            if not as_root or switch_uid:
                raise
            confine.unshare_namespaces(as_root, with_user=False)

    report.run("namespaces", plan, namespaces)
    go_read, go_write = os.pipe()
    pid = os.fork()
    if pid:
        _keep(pid, wfd, go_read, go_write, rfd)
    os.close(go_write)
    os.read(go_read, 1)
    os.close(go_read)
    _agent_process(reader, wfd, init, plan, report, switch_uid)


def _keep(pid: int, wfd: int, go_read: int, go_write: int, rfd: int) -> None:
    """The keeper: report the agent's pid, then wait for it and exit as it did."""
    os.close(go_read)
    send(wfd, ["pid", pid])
    os.write(go_write, b"x")
    os.close(go_write)
    os.close(rfd)
    os.close(wfd)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        os._exit(0)
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
) -> None:
    # Die with the keeper (and so with the referee), whatever happens to the pipes.
    confine.libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    report.run("rlimits", plan, lambda: confine.apply_rlimits(plan))
    # As process 1 of its namespace it would ignore the kernel's SIGXCPU; end as the signal
    # would, so the referee can tell a CPU limit from other deaths.
    signal.signal(signal.SIGXCPU, lambda *_: os._exit(128 + signal.SIGXCPU))
    # Everything the harness needs is imported before the file system shrinks.
    import random
    import traceback  # noqa: F401  (used on errors, after Landlock)

    from pacman import compat
    from pacman.describe import describe, safe_text
    from pacman.layout import parse_layout
    from pacman.loader import describe_signature, load_file  # noqa: F401
    from pacman.state import GameState

    compat.install()
    layout = parse_layout(init["layout_text"], name=init["layout_name"])
    template = GameState.initial(layout, init["num_ghosts"], init["ruleset"])
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
    sys.stdout = sys.stderr = _CappedStream(int(init["output_bytes"]))
    send(wfd, ["ready", report.active, report.missing])
    _serve(reader, wfd, init, template, random, describe, safe_text)


def _serve(
    reader: LineReader,
    wfd: int,
    init: dict[str, Any],
    template: Any,
    random: Any,
    describe: Any,
    safe_text: Any,
) -> None:
    import traceback

    from pacman.loader import SubmissionError, describe_signature, load_file

    reserve = bytearray(1 << 20)  # freed on MemoryError so the answer can still be built
    cpu = time.process_time
    agent: Any = None
    index = int(init["index"])

    def error(kind: str, what: str, exc: BaseException) -> list[Any]:
        nonlocal reserve
        reserve = bytearray()
        if isinstance(exc, MemoryError):
            kind = "memory" if kind != "load_error" else kind
        try:
            trace = "".join(traceback.format_exception(exc)[-12:])[-TRACE_LIMIT:]
        except BaseException:
            trace = ""
        return ["error", seq, kind, f"{what}{describe(exc)}"[:MESSAGE_LIMIT], trace]

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
                action = agent.getAction(state)
            except BaseException as exc:
                answer = error("crash", "getAction raised ", exc)
            else:
                used = cpu() - t0
                if type(action) is str and len(action) <= 40:
                    answer = ["action", seq, action, "", used]
                else:
                    answer = ["action", seq, None, safe_text(action), used]
        elif op == "load":
            ref = message[2]
            random.seed(int(message[3]))
            folder = os.path.dirname(ref["path"])
            sys.path.insert(0, folder)
            try:
                module = load_file(__import__("pathlib").Path(ref["path"]))
                cls = getattr(module, ref["name"], None)
                if not isinstance(cls, type):
                    raise SubmissionError(f"{ref['path']} defines no class {ref['name']!r}")
            except SubmissionError as exc:
                answer = ["error", seq, "load_error", str(exc)[:MESSAGE_LIMIT],
                          _cause_trace(exc, traceback)]
            except BaseException as exc:
                answer = error("load_error", "", exc)
            else:
                args = dict(ref["args"])
                try:
                    agent = cls(**args) if index == 0 else cls(index, **args)
                except TypeError as exc:
                    answer = error("load_error",
                                   f"{ref['name']} (its options: {describe_signature(cls)}): ",
                                   exc)
                except BaseException as exc:
                    answer = error("load_error", f"{ref['name']}: ", exc)
                else:
                    answer = ["ok", seq, hasattr(agent, "registerInitialState"),
                              hasattr(agent, "final")]
        elif op == "register":
            state = wire.state_from_fields(template, message[2])
            try:
                agent.registerInitialState(state)
                answer = ["ok", seq]
            except BaseException as exc:
                answer = error("crash", "registerInitialState raised ", exc)
        elif op == "final":
            state = wire.state_from_fields(template, message[2])
            try:
                agent.final(state)
                answer = ["ok", seq]
            except BaseException as exc:
                answer = error("crash", "final() raised ", exc)
        else:
            answer = ["error", seq, "crash", f"unknown request {op!r}", ""]
        try:
            send(wfd, answer)
        except BaseException:
            os._exit(4)


def _cause_trace(exc: BaseException, traceback: Any) -> str:
    cause = exc.__cause__
    if cause is None:
        return ""
    try:
        return "".join(traceback.format_exception(cause)[-12:])[-TRACE_LIMIT:]
    except BaseException:
        return ""
