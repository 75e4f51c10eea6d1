"""Why an agent could not play, in kinds an organizer can mail a team about: the one home of
these names.

An outcome (`pacman.outcomes`) says how a game ended; a problem kind says what a team has to
fix. `tournament validate` tries every team once and sorts each failure into one of `KINDS`:
a file that does not compile is a `syntax_error` at a file and line, an import of a module
that is not there a `missing_module` naming it, and so on; failures during play keep their
outcome's name (`crash`, `timeout`, ...).

The kind is read from typed facts, never from a message's words: the exception the agent
raised (`detail_of`, where the exception object is at hand: in the sandbox's harness, or in
the referee's process for an agent playing there), the loader's error classes
(`pacman.loader.SubmissionError.problem`), the outcome, and the stage of the game the
failure happened in (`STAGES`). A sandbox's harness sends what it found as a `Detail` on the
wire; the agent's code shares its process and could write a detail of its own choosing, so the
referee checks it field by field (`Detail.from_wire`): a team can at worst misname its own
problem, never another's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from pacman.describe import clean
from pacman.outcomes import FAILURES, INFRA_ERROR

#: A file of the team does not compile (`where` names the file and line).
SYNTAX_ERROR = "syntax_error"
#: The class the team names (or the reference names) is not in the file.
MISSING_CLASS = "missing_class"
#: The team's code imports a module that is not installed or not submitted (`module`).
MISSING_MODULE = "missing_module"
#: Import, construction and registerInitialState took longer than the start-up limit.
STARTUP_TIMEOUT = "startup_timeout"
#: The team's code raised (or its process died) while being imported, built or registered.
CRASH_AT_START = "crash_at_start"
#: The team's `team.yaml` is not what it should be (not plain YAML, a missing key...).
BAD_TEAM_YAML = "bad_team_yaml"
#: There is no agent file to play (no team.yaml and no `*gents.py`, or the named file is
#: missing).
NO_AGENT_FILE = "no_agent_file"
#: No team.yaml, and the agent files hold no class or several classes that could play.
UNCLEAR_AGENT = "unclear_agent"
#: The class a team gives as its ghost cannot be built as a ghost (no index argument).
NOT_A_GHOST = "not_a_ghost"
#: The folder holds what a team may not: a link, a special file, compiled code, too much.
FOLDER_REFUSED = "folder_refused"
#: Any other reason the reference could not be resolved.
UNRESOLVED = "unresolved"

#: What each kind means, as an organizer would tell the team. Failures during play are the
#: outcomes' own (`pacman.outcomes.FAILURES`), and the platform's own failure is no team's.
KINDS: dict[str, str] = {
    SYNTAX_ERROR: "a file does not compile",
    MISSING_CLASS: "the agent class named is not in its file",
    MISSING_MODULE: "the code imports a module that is not installed or not submitted",
    STARTUP_TIMEOUT: "import, construction and registerInitialState took longer than the "
                     "start-up limit",
    CRASH_AT_START: "the code failed while being imported, built or registered",
    BAD_TEAM_YAML: "team.yaml is not valid",
    NO_AGENT_FILE: "there is no agent file to play",
    UNCLEAR_AGENT: "without team.yaml, the agent files hold no class or several classes "
                   "that could play",
    NOT_A_GHOST: "the ghost class cannot be built as a ghost (no index argument)",
    FOLDER_REFUSED: "the folder holds something a team may not (a link, a special file, "
                    "compiled code, too many files or bytes)",
    UNRESOLVED: "the agent could not be found",
    "crash": "the agent raised an exception, or its process died, during the game",
    "timeout": "a move took longer than the limits allow",
    "illegal_action": "the agent returned an illegal move",
    "memory": "the agent used more memory than allowed",
    "killed": "the agent's process was killed",
    INFRA_ERROR: "the platform itself failed (not the team's fault): validate again",
}
#: Failures during play keep their outcome's name (a `load_error` only happens at start-up,
#: where it is one of the kinds above).
PLAY_KINDS = tuple(kind for kind in FAILURES if kind != "load_error")
assert all(kind in KINDS for kind in PLAY_KINDS)

#: What the sandbox's harness may report about a failure: the facts only it can see (the
#: others the referee knows itself).
CHILD_PROBLEMS = (SYNTAX_ERROR, MISSING_MODULE, MISSING_CLASS)

#: The stages of a game in which an agent can fail: building it (import and construction),
#: `registerInitialState`, a move, `final()`. The first two are its start-up.
START = "start"
REGISTER = "register"
MOVE = "move"
FINAL = "final"
STAGES = (START, REGISTER, MOVE, FINAL)
STARTUP_STAGES = (START, REGISTER)

#: Longest `where` (a file and line) and module name kept from a detail.
WHERE_LIMIT = 200
MODULE_LIMIT = 100
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_LINE_BREAKS = re.compile(r"\s+")


@dataclass(frozen=True)
class Detail:
    """What is known of a failure beyond its outcome: a kind only the code's own exception
    tells (`problem`, one of `KINDS`, or '' when none), the place in the team's files
    (`where`, `file.py:line`, '' when unknown) and, for a missing module, its name."""

    problem: str = ""
    where: str = ""
    module: str = ""

    def to_wire(self) -> dict[str, str]:
        return {"problem": self.problem, "where": self.where, "module": self.module}

    @classmethod
    def from_wire(cls, raw: object, allowed: tuple[str, ...] = CHILD_PROBLEMS) -> Detail | None:
        """A detail read from a sandbox's answer, or None when it is not one: only known
        keys of text, a problem among `allowed`, a place on one bounded line, a module that
        is a dotted name."""
        if not isinstance(raw, dict) or not set(raw) <= {"problem", "where", "module"}:
            return None
        if not all(isinstance(value, str) for value in raw.values()):
            return None
        problem, where, module = (raw.get(k, "") for k in ("problem", "where", "module"))
        if problem and problem not in allowed:
            return None
        if module and not (len(module) <= MODULE_LIMIT and _MODULE_NAME.fullmatch(module)):
            module = ""
        return cls(problem, place(where), module)


def place(text: str) -> str:
    """A `where` as shown: cleaned, on one line, bounded."""
    return _LINE_BREAKS.sub(" ", clean(text)).strip()[:WHERE_LIMIT]


def where_in(path: str, line: int | None, root: str) -> str:
    """`file.py:12`: a file's path relative to `root` (its team folder, or the agent file's
    folder) when it is inside it, else its name alone; the line when known."""
    try:
        rel = os.path.relpath(path, root) if root else os.path.basename(path)
    except ValueError:
        rel = os.path.basename(path)
    if rel.startswith(".."):
        rel = os.path.basename(path)
    return place(f"{rel}:{line}" if line else rel)


class KindedError(ValueError):
    """An error about a team's files that knows which kind of problem it is (`problem`, one
    of KINDS): the loader's SubmissionError is one. Here, so that `detail_of` reads the kind
    without importing the loader (which imports this module)."""

    def __init__(self, message: str, problem: str = UNRESOLVED) -> None:
        super().__init__(message)
        self.problem = problem

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (str(self), self.problem)


def detail_of(exc: BaseException, root: str) -> Detail:
    """What an exception the agent's code raised (or the loader raised about it) tells:
    a syntax error's file and line, a missing module's name, the loader's own kind
    (`SubmissionError.problem`), and otherwise the deepest place in the team's files (under
    `root`) the exception came through. Never raises: the exception is the agent's, and its
    class may do anything when its attributes are read."""
    try:
        return _detail_of(exc, root)
    except BaseException:
        return Detail()


def _detail_of(exc: BaseException, root: str) -> Detail:
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    if isinstance(cause, SyntaxError):
        return Detail(SYNTAX_ERROR, where_in(str(cause.filename or ""), cause.lineno, root))
    where = team_frame(cause.__traceback__, root)
    if isinstance(cause, ModuleNotFoundError):
        name = cause.name if isinstance(cause.name, str) else ""
        return Detail(MISSING_MODULE, where, name if _MODULE_NAME.fullmatch(name) else "")
    problem = exc.problem if isinstance(exc, KindedError) else ""
    return Detail(problem if problem in KINDS and problem != UNRESOLVED else "", where)


def team_frame(trace: TracebackType | None, root: str) -> str:
    """The deepest frame of a traceback in a file under `root` (`file.py:line`), or ''."""
    if not root:
        return ""
    prefix = root.rstrip("/") + "/"
    found = ""
    seen = 0
    while trace is not None and seen < 1000:
        code: Any = trace.tb_frame.f_code
        name = str(code.co_filename)
        if name.startswith(prefix):
            found = where_in(name, trace.tb_lineno, root)
        trace = trace.tb_next
        seen += 1
    return found
