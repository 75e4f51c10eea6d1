"""Turn an agent reference into a class the game runner can instantiate.

References, as `-p` and `-g` accept them:
- a built-in name: `GreedyAgent`, `RandomGhost`, ...;
- `path/to/file.py:ClassName`;
- `builtin:NAME`: the built-in agent, whatever the current folder holds;
- a bare class name defined in a `*gents.py` or `submission.py` file of the current folder
  (how the course's `pacman.py` finds a student's agent); such a class wins over a built-in
  of the same name, because a student running the course command means their own. As in the
  course, every such file must compile (a syntax error anywhere is an error naming file and
  line, never a silent fallback), and a folder with agent files that define no such name is
  an error too: a built-in plays for a bare name only where there are no agent files (ghosts
  and `KeyboardAgent` excepted: those are always the built-ins, see `ALWAYS_BUILTIN`);
- a team folder (`submissions/team`): its `team.yaml` names `agent: file.py:Class` (and
  optional `args`) for its Pacman and `ghost: file.py:Class` (and optional `ghost_args`) for
  its ghost team, at least one of them; without a team.yaml, the class the caller names for
  such folders (`FolderAgent`: a tournament's `entrants.agent`, since a course's
  `multiAgents.py` holds four agent classes), else the folder's one such class in its agent
  files (`*Agent` for Pacman, `*Ghost` for ghosts). A team.yaml always wins.

A ghost reference (`kind="ghost"`) must name a ghost class: one built as `Class(index)` once
per ghost. A class whose constructor takes no index (a course Pacman class, for one) is
refused from its source, before any game.

Loading a course-style file installs the `game` and `util` compatibility modules (see
`pacman.compat`) and executes the file. Resolving a reference reads source with `ast` and
never runs the file: a submission's code runs only where its agent plays (in a sandbox, for
files, unless told otherwise).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import difflib
import functools
import hashlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from pacman import compat, problems
from pacman.describe import clean, exception_text, quote, type_name
from pacman.files import FileProblem, read_bounded
from pacman.teamfolder import TeamFolderError, read_team_file, team_files


class SubmissionError(problems.KindedError):
    """An agent reference that cannot be resolved or loaded; the message says why, and
    `problem` (one of `pacman.problems.KINDS`) what kind of problem it is, for the tables
    that sort teams by what they have to fix (`tournament validate`)."""


class SourceError(SubmissionError):
    """A file that cannot be read as Python (a syntax error, nesting too deep to parse, not
    text); the message names the file and, for a syntax error, the line and column, which
    `path` and `line` hold too (`line` None when the problem has no line)."""

    def __init__(self, message: str, path: Path | None = None, line: int | None = None) -> None:
        super().__init__(message, problems.SYNTAX_ERROR)
        self.path = path
        self.line = line

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (str(self), self.path, self.line)


#: `-p builtin:ExpectimaxAgent`: the platform's own agent even in a folder of course files.
BUILTIN_PREFIX = "builtin:"
#: Names that always mean the built-in agent. Ghosts: a game's ghosts are the referee's, exact
#: and trusted (the course folder's `ghostAgents.py` defines the same ones). `KeyboardAgent`:
#: the course's own reads keys from its Tk window, which does not exist here; ours reads the
#: pygame window's.
ALWAYS_BUILTIN = frozenset({"KeyboardAgent"})


def _builtins() -> dict[str, tuple[str, str]]:
    """name -> (module, kind). Imported lazily so the baselines load only when used."""
    return {
        "RandomGhost": ("pacman.agents.ghosts", "ghost"),
        "DirectionalGhost": ("pacman.agents.ghosts", "ghost"),
        "AlphaBetaGhost": ("pacman.agents.ghost_search", "ghost"),
        "AnytimeGhost": ("pacman.agents.ghost_search", "ghost"),
        "RandomAgent": ("pacman.agents.simple", "pacman"),
        "GreedyAgent": ("pacman.agents.simple", "pacman"),
        "LeftTurnAgent": ("pacman.agents.simple", "pacman"),
        "KeyboardAgent": ("pacman.agents.keyboard", "pacman"),
        "ReflexAgent": ("pacman.agents.multiagent", "pacman"),
        "MinimaxAgent": ("pacman.agents.multiagent", "pacman"),
        "AlphaBetaAgent": ("pacman.agents.multiagent", "pacman"),
        "ExpectimaxAgent": ("pacman.agents.multiagent", "pacman"),
        "AnytimeAgent": ("pacman.agents.anytime_agent", "pacman"),
        "MCTSAgent": ("pacman.agents.mcts_agent", "pacman"),
    }



def builtin_names(kind: str) -> list[str]:
    """The built-in agents of one kind (`pacman` or `ghost`), in the platform's order."""
    return [name for name, (_, found) in _builtins().items() if found == kind]


@dataclass(frozen=True)
class FolderAgent:
    """The class (and its options) a team folder without `team.yaml` plays, named by whoever
    plays the folder rather than by the folder: a course's `multiAgents.py` holds
    `ReflexAgent`, `MinimaxAgent`, `AlphaBetaAgent` and `ExpectimaxAgent`, so a class of its
    own cannot be told from its files, and students who were told to fill in the course's
    file should not have to write a `team.yaml` too. The class is looked up by name among
    the names the folder's agent files bind (`*gents.py`, `submission.py`), as the course's
    `-p ExpectimaxAgent` finds it; a folder with a `team.yaml` plays what that names."""

    name: str
    #: Its options, as `-a` gives them; options given with the reference win over these.
    args: tuple[tuple[str, str], ...] = ()
    #: Who named it, for messages (`entrants.agent`); '' when it goes without saying.
    named_by: str = ""


@dataclass(frozen=True)
class AgentRef:
    """A resolved agent: where its class lives, and the options it is built with.

    Picklable (a path and names, not the class), so it can be sent to another process.
    """

    name: str
    module: str
    path: str | None = None
    args: tuple[tuple[str, str], ...] = field(default=())
    builtin: bool = False
    #: The team folder it was found in (`pacman -p folder`, a tournament's team): what its
    #: sandbox shows of its files, rather than its file's folder alone.
    team: str | None = None
    #: The team's submission hash as a tournament saw it (a prefix of `team_digest`): its
    #: sandbox then plays exactly those files, or none (see `pacman.sandbox.process`).
    team_hash: str = ""
    #: The team's name for people (its team.yaml `name`, else its folder's name).
    team_name: str = ""
    #: The tournament entrant it plays for (`alphabeta-d2`), when a tournament set one: what
    #: tells apart two baselines of one class in replays and the viewer.
    entrant: str = ""
    #: Whether `team` is a tournament's snapshot (`tournament.runner.placed`), which only the
    #: platform writes: a snapshot its sandbox cannot copy is the platform's failure.
    snapshot: bool = False
    #: A built-in that plays sandboxed, on the engine's sources, as teams do: a tournament
    #: sets it for one that searches on a clock (`ON_A_CLOCK`), which in-process would run
    #: the compiled build where one is and search deeper in a second than the teams it meets
    #: (the fifteenth hostile review: 1.77x the successors a second).
    on_sources: bool = False

    def load_class(self) -> type:
        if self.path is None:
            module = importlib.import_module(self.module)
        else:
            module = load_file(Path(self.path))
        cls = getattr(module, self.name, None)
        if not isinstance(cls, type):
            raise SubmissionError(f"{self.path or self.module} defines no class {self.name!r}",
                                  problems.MISSING_CLASS)
        return cls

    def build(self, index: int) -> Any:
        """A fresh agent: Pacman from its keyword options only, a ghost as `Ghost(index)`."""
        cls = self.load_class()
        if index == 0:
            return cls(**dict(self.args))
        return cls(index, **dict(self.args))

    def on_a_clock(self) -> bool:
        """Whether this is a built-in that searches on a clock (`ON_A_CLOCK`), which a
        tournament plays sandboxed on the sources (`on_sources`): the one test of it, for the
        tasks and for the sandbox check before they play."""
        return self.builtin and bool(getattr(self.load_class(), "ON_A_CLOCK", False))

    @property
    def label(self) -> str:
        """The reference as text (`path/file.py:Class`, a built-in's name): it resolves to
        this agent again (tournament configs store it)."""
        return self.name if self.path is None else f"{self.path}:{self.name}"

    @property
    def shown(self) -> str:
        """The agent's name for people (results, replays, the viewer): a built-in's name, a
        team's name and class (`Example Team (ExampleGhost)`), or a file's name and class;
        never a path, which says where the organizer keeps it and nothing about the agent. In
        a tournament, the entrant's name and the class (`alphabeta-d2 (AlphaBetaAgent)`)."""
        if self.entrant:
            return f"{self.entrant} ({self.name})"
        if self.path is None:
            return self.name
        if self.team_name:
            return f"{self.team_name} ({self.name})"
        return f"{Path(self.path).name}:{self.name}"

    def played_by(self, cwd: Path | None = None) -> str:
        """Which agent this is, for people: `built-in ExpectimaxAgent`, or its file
        (`./multiAgents.py:ExpectimaxAgent` when the file is under `cwd`, else its name for
        people, `shown`: a summary may be pasted anywhere, and a path outside the folder
        says where the organizer keeps things, nothing about the agent)."""
        if self.path is None:
            return f"built-in {self.name}" if self.builtin else f"{self.module}.{self.name}"
        path = Path(self.path)
        base = (cwd or Path.cwd()).resolve()
        try:
            return f"./{path.resolve().relative_to(base)}:{self.name}"
        except ValueError:
            return self.shown


def parse_agent_args(text: str | None, flag: str = "-a") -> tuple[tuple[str, str], ...]:
    """`-a depth=2,evalFn=better` -> (('depth', '2'), ('evalFn', 'better')), values as strings
    (`flag` names the option in errors: `-a`, `--ghostArgs`).

    A bare `key` means `key=1`, as in the course.
    """
    if not text:
        return ()
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not key.isidentifier():
            raise SubmissionError(f"{flag}: {part!r} is not key=value with a valid option name")
        out.append((key, value.strip() if sep else "1"))
    return tuple(out)


_loaded: dict[tuple[str, float], ModuleType] = {}

#: Options of the built-in agents whose value may name a file of code (`features=feats.py:phi`,
#: `evalFn=my.py:f`): someone's code, which the built-in runs wherever it plays.
CODE_OPTIONS = ("features", "evalFn")


def platform_module(module: str) -> bool:
    """Whether `module` is the platform's own code (`pacman.agents.evaluation`), trusted and
    played in-process as a built-in evaluation is."""
    return any(module == own or module.startswith(own + ".") for own in ("pacman", "tournament"))


def code_option_file(key: str, value: str) -> tuple[str, str] | None:
    """The file and function that option `key=value` names, or None when it names none:
    another option, a built-in name, or a module. Pure."""
    where, sep, function = value.rpartition(":")
    if key not in CODE_OPTIONS or not sep or not where.endswith(".py"):
        return None
    return where, function


def someones_code(key: str, value: str) -> str | None:
    """Where option `key=value` names code that is not the platform's (a file, or a module
    by name), or None: another option, a built-in name, or the platform's own module. Pure."""
    where, sep, _ = value.rpartition(":")
    if key not in CODE_OPTIONS or not sep or not where:
        return None
    return where if where.endswith(".py") or not platform_module(where) else None


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """A team's module compiled from its source, never from a `.pyc`: a compiled file beside
    it (in its `__pycache__`) could run other code than the source its hash covers. Raising
    `OSError` from `path_stats` is how importlib's `SourceLoader.get_code` is told that no
    bytecode is to be trusted; the source is then compiled (and, with
    `sys.dont_write_bytecode`, nothing written)."""

    def path_stats(self, path: str) -> Mapping[str, Any]:
        raise OSError("a team's bytecode is never read")


def _within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies below it (both resolved already). Pure."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def source_only_hook(root: str, libraries: Iterable[str]) -> Callable[[str], Any]:
    """A `sys.path_hooks` entry that finds the team's modules, under the folder `root`, from
    their sources only (`SourceOnlyLoader`; no `.pyc`, no extension module), and leaves
    every other folder to the usual finders, so that libraries keep their compiled files:
    scoping `sys.pycache_prefix` to the whole interpreter made every game compile numpy and
    pandas from source on the agent's own clock (the fifteenth hostile review).
    `libraries` are the folders the interpreter searched before the team's was added (its
    own, its site folders, the platform's): a virtual environment kept in a course folder
    lies under `root` and is still a library, whose extension modules must load (the
    review of this change found `import numpy` failing there)."""
    hook = importlib.machinery.FileFinder.path_hook(
        (SourceOnlyLoader, importlib.machinery.SOURCE_SUFFIXES))
    top = os.path.realpath(root)
    known = [os.path.realpath(folder or ".") for folder in libraries]
    inside = [folder for folder in known if folder != top and _within(folder, top)]

    def finder(path: str) -> Any:
        where = os.path.realpath(path or ".")
        if not _within(where, top) or any(_within(where, library) for library in inside):
            raise ImportError("not the team's own folder")
        return hook(path)

    return finder


def load_file(path: Path) -> ModuleType:
    """Execute a course-style agent file once per process and return its module."""
    path = path.resolve()
    if not path.is_file():
        raise SubmissionError(f"{path}: no such agent file", problems.NO_AGENT_FILE)
    key = (str(path), path.stat().st_mtime)
    if key in _loaded:
        return _loaded[key]
    # Never write compiled files beside the source: a team's folder must stay exactly what
    # the team submitted (its hash covers `__pycache__` too, since Python imports from it).
    sys.dont_write_bytecode = True
    folder = str(path.parent)
    if folder not in sys.path:
        # Course files import their sibling modules by bare name.
        sys.path.insert(0, folder)
    compat.install(path.parent)
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
    module_name = f"arena_agent_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(
        module_name, path, loader=SourceOnlyLoader(module_name, str(path)))
    if spec is None or spec.loader is None:
        raise SubmissionError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.modules.setdefault(path.stem, module)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise SubmissionError(syntax_message(exc, path), problems.SYNTAX_ERROR) from exc
    except BaseException as exc:
        sys.modules.pop(module_name, None)
        if sys.modules.get(path.stem) is module:
            del sys.modules[path.stem]
        # The file's own exception: its str() may raise or run to megabytes.
        raise SubmissionError(f"{path}: importing it failed: {type_name(type(exc).__name__)}: "
                              f"{clean(exception_text(exc))}") from exc
    _loaded[key] = module
    return module


#: The largest source file read to list its classes and options: parsing costs about 500 bytes
#: of memory per byte of a hostile source (a long list literal), in the organizer's process,
#: so 512 KiB (a course file is some 20 KiB) bounds it near 250 MiB and a second. A larger
#: file is left to its import, in its sandbox.
SOURCE_LIMIT = 512 * 1024


def _within_budget(files: list[Path], what: str, instead: str,
                   problem: str = problems.UNRESOLVED) -> None:
    """Refuse to parse more than SOURCE_LIMIT bytes of sources in all for one resolution: a
    folder of many capped files would otherwise cost the organizer minutes and gigabytes."""
    total = 0
    for file in files:
        try:
            total += file.lstat().st_size
        except OSError:
            continue
    if total > SOURCE_LIMIT:
        raise SubmissionError(
            f"{what} hold {total} bytes, more than the {SOURCE_LIMIT} read to find an agent "
            f"by its name; {instead}", problem)


def syntax_message(exc: SyntaxError, path: Path) -> str:
    """`file:line:column: syntax error: what`, and the offending line, as Python shows it."""
    where = f"{exc.filename or path}:{exc.lineno or 0}:{exc.offset or 0}"
    text = clean(exc.text or "", 200).strip()
    shown = f"\n    {text}" if text else ""
    return f"{where}: syntax error: {clean(str(exc.msg), 200)}{shown}"


def _read_source(path: Path, team: Path | None) -> bytes:
    """A source's bytes: a team's file (`path` is `team / rel`) through the team folder's
    descriptors and no link (`pacman.teamfolder.read_team_file`: a file swapped for a link
    after the folder was checked is refused, never read elsewhere); another by its path."""
    if team is None:
        return read_bounded(path, SOURCE_LIMIT)
    try:
        rel = path.relative_to(team).as_posix()
    except ValueError:
        raise FileProblem(f"{path}: not in its team's folder {team}") from None
    try:
        return read_team_file(team, rel, SOURCE_LIMIT)
    except TeamFolderError as exc:
        raise FileProblem(str(exc)) from None


def compile_source(path: Path, check: bool = True, team: Path | None = None) -> ast.Module:
    """A file's syntax tree, after checking (with `check`) that it compiles as importing it
    would; without `check` only the tree (a parse, about half the cost: callers that forgive
    a broken file, such as a tournament resolving a team before each game, need no more).

    Nothing in the file runs. A file that would not import for its syntax raises SourceError
    naming file and line; so does one too deeply nested or too large for the parser
    (RecursionError, MemoryError): hostile source is an error about that file, never a crash.
    """
    try:
        source = _read_source(path, team)
    except FileProblem as exc:
        raise SourceError(str(exc), path) from exc
    except OSError as exc:
        raise SourceError(f"{path}: cannot read it: {exc.strerror or exc}", path) from exc
    # The compile check first: a file that does not compile is not parsed again. Too deep or
    # too large for the parser: raised, so not kept (it may depend on the moment's stack).
    try:
        problem = (_compiled(source) if check else None) or _parsed(source)
    except (RecursionError, MemoryError) as exc:
        problem = exc
    if isinstance(problem, ast.Module):
        return problem
    if isinstance(problem, SyntaxError):
        # Parsed once for any path the text was read from: the error names this one, with
        # its line (which the parser could not read from a file it knew only as "<source>").
        text = problem.text
        if text is None and problem.lineno:
            lines = source.decode("utf-8", "replace").splitlines()
            text = lines[problem.lineno - 1] if problem.lineno <= len(lines) else None
        problem = type(problem)(problem.msg, (str(path), problem.lineno, problem.offset,
                                              text, problem.end_lineno, problem.end_offset))
        raise SourceError(syntax_message(problem, path), path, problem.lineno) from problem
    if isinstance(problem, (RecursionError, MemoryError)):
        raise SourceError(
            f"{path}: too deeply nested or too large to be read as Python "
            f"({type(problem).__name__})", path
        ) from problem
    # ValueError: null bytes, undecodable text
    raise SourceError(f"{path}: not Python source: {clean(str(problem), 200)}", path) from problem


#: The file name `_parsed` and `_compiled` give the parser: a syntax error is renamed after
#: the path the text was read from (`compile_source`).
SOURCE_NAME = "<source>"
#: The parser's failures on broken source that the memo keeps (ValueError: null bytes,
#: undecodable text); RecursionError and MemoryError pass through uncached.
_PARSE_ERRORS = (SyntaxError, ValueError)


#: A hostile text's tree can take 250 MB (512 KiB of `1,`), so only the last is kept (until
#: another text is parsed): a run reads a team's file for its class and then its constructor
#: in a row, but its snapshot after every other team's folder (three teams: 9 parses -> 6).
@functools.lru_cache(maxsize=1)
def _parsed(source: bytes) -> ast.Module | Exception:
    """A text's tree, or the parser's error, once per text (and `_compiled` its compile
    check): hostile source within `SOURCE_LIMIT` can cost seconds of the organizer's CPU (an
    f-string of 100,000 fields took 11 s, with a syntax error at its end or not), and a run
    reads a team's file several times (its class, its constructor, its options), from its
    folder and from the run's snapshot. The tree is shared, so callers only read it."""
    try:
        with warnings.catch_warnings():
            # A SyntaxWarning (`x is 1`) is the import's to show, once, where the file runs.
            warnings.simplefilter("ignore")
            return ast.parse(source, filename=SOURCE_NAME)
    except _PARSE_ERRORS as exc:
        return exc


@functools.lru_cache(maxsize=16)
def _compiled(source: bytes) -> Exception | None:
    """Whether a text compiles as importing it would (None) or why not. From the bytes, so
    that a coding cookie is honoured as an import honours it, and from the text (not the
    tree), which is what an import does."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, SOURCE_NAME, "exec", dont_inherit=True)
    except _PARSE_ERRORS as exc:
        return exc
    return None


def classes_in_source(path: Path, check: bool = True, team: Path | None = None) -> list[str]:
    """Top-level class names of a file (of `team`, see `compile_source`), read without
    executing it; SourceError if it does not compile (with `check`) or parse."""
    return _classes(compile_source(path, check, team))


def _classes(tree: ast.Module) -> list[str]:
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef)]


#: `try` blocks (3.11 adds `try ... except*`).
_TRY_NODES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))


def names_in_source(path: Path) -> list[str]:
    """Every name a file binds at module level (classes, functions, assignments, imports,
    also inside top-level `if`/`try`/`with` blocks), read without executing it.

    The course engine takes any attribute of the module (`dir(module)`), so a student's
    `ExpectimaxAgent = MyAgent` or `from myAgents import ExpectimaxAgent` counts.
    `from x import *` is listed as `*` (what it binds cannot be known without running it).
    SourceError if the file does not compile.
    """
    return _bound_names(compile_source(path))


def _bound_names(tree: ast.Module) -> list[str]:
    names: list[str] = []

    def bind(target: ast.AST) -> None:
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                bind(element)
        elif isinstance(target, ast.Starred):
            bind(target.value)

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                names.append(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    bind(target)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                bind(node.target)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                # `from x import *` is listed as "*": the names it binds cannot be read.
                names.extend((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, _TRY_NODES):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, (ast.With, ast.For, ast.While)):
                visit(node.body)

    visit(tree.body)
    return names


def agent_files(folder: Path, listed: list[str] | None = None) -> list[Path]:
    """The files the course looks in: `*gents.py` and `submission.py` (regular files only: a
    folder or a pipe of that name is no agent file, and reading a pipe would block); of a
    team, from its checked listing (`team_files`) rather than the folder as it is now."""
    if listed is not None:
        names = [n for n in listed if "/" not in n and not n.startswith(".")]
        files = sorted(folder / n for n in names if n.endswith("gents.py"))
        return files + [folder / n for n in names if n == "submission.py"]
    files = sorted(p for p in folder.glob("*gents.py") if p.is_file())
    if (folder / "submission.py").is_file():
        files.append(folder / "submission.py")
    return files


def course_ruleset(pacman: AgentRef) -> str:
    """The rules a Pacman's course plays by: CS221's for an agent of a `submission.py` (its
    engine never offers Stop, and lists moves in its own order: a student's search sees that
    tree there), else the classic ones (CS188's). The `pacman` command plays them when
    `--rules` does not say; a tournament warns of a team whose course's rules are not among
    its `grid.rules`."""
    if pacman.path is not None and Path(pacman.path).name == "submission.py":
        return "cs221"
    return "classic"


def resolve(
    ref: str, args: tuple[tuple[str, str], ...] = (), kind: str = "pacman",
    cwd: Path | None = None, folder_agent: FolderAgent | None = None, course: bool = False,
) -> AgentRef:
    """Resolve `-p`/`-g` text into an AgentRef, or raise SubmissionError saying why not.

    `kind` is `pacman` or `ghost`; a ghost from a file is checked to be a ghost class (see
    `ghost_problem`). `folder_agent` is what a team folder without `team.yaml` plays (of this
    `kind`); without it such a folder must hold exactly one class of its kind. `course`: the
    `pacman` command's reading of a bare built-in name in a folder without agent files that
    looks like a course folder (`course_strays`): an error, as the course's, not the
    built-in."""
    if kind not in KINDS:
        raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    try:
        resolved = _resolve(ref, args, kind, cwd or Path.cwd(), folder_agent, course)
        if kind == "ghost" and resolved.path is not None:
            team = Path(resolved.team) if resolved.team else None
            problem = ghost_problem(Path(resolved.path), resolved.name, team)
            if problem:
                raise SubmissionError(f"{resolved.path}:{resolved.name} is not a ghost: "
                                      f"{problem}", problems.NOT_A_GHOST)
        return resolved
    except OSError as exc:  # a name too long for the file system, an unreadable folder...
        raise SubmissionError(
            f"{ref[:80]}: cannot look up this agent: {exc.strerror or exc}"
        ) from exc


def _resolve(ref: str, args: tuple[tuple[str, str], ...], kind: str, cwd: Path,
             folder_agent: FolderAgent | None = None, course: bool = False) -> AgentRef:
    ref = ref.strip()
    if not ref:
        raise SubmissionError("empty agent reference")
    builtins = _builtins()
    if ref.startswith(BUILTIN_PREFIX):
        return _builtin(ref[len(BUILTIN_PREFIX):].strip(), args, kind, builtins)
    if ":" in ref and not Path(ref).exists():
        file_part, _, cls_name = ref.rpartition(":")
        return _from_file(Path(file_part), cls_name, args)
    path = Path(ref)
    if path.is_dir():
        return _from_folder(path, args, kind, folder_agent)
    if path.suffix == ".py":
        raise SubmissionError(f"{ref}: name the class too, as {ref}:ClassName")
    if ref in builtins and (kind == "ghost" or ref in ALWAYS_BUILTIN):
        return _builtin(ref, args, kind, builtins)

    # The course's search: every agent file of the folder, each of which must compile (the
    # course imports them and stops at a syntax error; skipping one could play another agent).
    files = agent_files(cwd)
    _within_budget(files, f"the agent files of {cwd}", "name the agent as file.py:ClassName")
    local: dict[str, Path] = {}
    starred: list[str] = []
    for file in files:
        for name in names_in_source(file):
            if name == "*":
                starred.append(file.name)
            else:
                local.setdefault(name, file)
    if ref in local:
        return AgentRef(ref, module="", path=str(local[ref]), args=args)
    searched = ", ".join(f.name for f in files)
    if ref in builtins and files:
        close = difflib.get_close_matches(ref, sorted(local), n=3, cutoff=0.75)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        star = (
            f" ({', '.join(starred)} import names with *, which cannot be read without "
            f"running them: if the class comes that way, name it as file.py:{ref})"
            if starred else ""
        )
        raise SubmissionError(
            f"{ref} is not defined in any agent file of {cwd} (searched {searched}){hint}, so "
            f"the course engine would stop here too{star}. To play pacman-arena's built-in "
            f"agent of that name instead, write -p {BUILTIN_PREFIX}{ref}"
        )
    if ref in builtins:
        strays = course_strays(cwd, ref) if course and not files else []
        if strays:
            raise SubmissionError(
                f"{ref}: {cwd} holds no agent file (*gents.py or submission.py) but holds "
                f"{', '.join(strays)}, so the course engine would stop here too (a renamed or "
                f"missing multiAgents.py?). To play pacman-arena's built-in agent of that name "
                f"instead, write -p {BUILTIN_PREFIX}{ref}", problems.NO_AGENT_FILE)
        return _builtin(ref, args, kind, builtins)
    names = sorted({n for n, (_, k) in builtins.items() if k == kind} | set(local))
    close = difflib.get_close_matches(ref, names, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    where = searched or "no *gents.py or submission.py"
    raise SubmissionError(
        f"unknown {kind} agent {ref!r}{hint}. Built-in: "
        f"{', '.join(n for n, (_, k) in builtins.items() if k == kind)}; "
        f"looked in {cwd} ({where}); or give path/to/file.py:ClassName"
    )


#: Entries of a folder `course_strays` looks at, at most (a home folder can hold many).
STRAY_SCAN = 10_000


def course_strays(folder: Path, ref: str) -> list[str]:
    """Up to three names in `folder` (one without agent files) that say a course's agent file
    was meant to be there: a Python-like file named like one (`multiAgents-1.py` from an LMS,
    `multiAgents.py.bak`, `submission (1).py`, a link to nowhere), or a Python file that
    binds `ref` (a `multiAgent.py` defining the `ExpectimaxAgent` asked for; read, never run).
    In such a folder the course engine stops at a bare agent name, so the `pacman` command
    does too: found by the seventh hostile review, a student's misnamed file made the built-in
    play in its place, with a normal summary. A folder it cannot read says nothing."""
    found: list[str] = []
    budget = SOURCE_LIMIT  # bytes of Python read, as for a folder's agent files
    try:
        with os.scandir(folder) as entries:
            for seen, entry in enumerate(entries):
                if seen >= STRAY_SCAN or len(found) == 3:
                    break
                name = entry.name.lower()
                if ".py" not in name or entry.is_dir():
                    continue
                if "gents" in name or name.startswith("submission"):
                    found.append(quote(entry.name, 80))
                elif name.endswith(".py") and entry.is_file(follow_symlinks=False):
                    size = entry.stat(follow_symlinks=False).st_size
                    if size > budget:
                        continue
                    budget -= size
                    with contextlib.suppress(SubmissionError, OSError):
                        if ref in names_in_source(Path(entry.path)):
                            found.append(quote(entry.name, 80))
    except OSError:
        return []
    return sorted(found)


def _builtin(
    name: str, args: tuple[tuple[str, str], ...], kind: str, builtins: dict[str, tuple[str, str]]
) -> AgentRef:
    if name not in builtins:
        names = sorted(n for n, (_, k) in builtins.items() if k == kind)
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        spelled = " or ".join(BUILTIN_PREFIX + c for c in close)
        hint = f" (did you mean {spelled}?)" if close else ""
        raise SubmissionError(
            f"{BUILTIN_PREFIX}{name}: no built-in agent of that name{hint}; built-in "
            f"{kind} agents: {', '.join(names)}"
        )
    module, builtin_kind = builtins[name]
    if builtin_kind != kind:
        raise SubmissionError(f"{name} is a {builtin_kind} agent, not a {kind} agent")
    return AgentRef(name, module=module, args=args, builtin=True)


#: The longest class name an agent may be played as. The name is shown wherever the agent is
#: (`AgentRef.shown`: logs, tables, the report, pictures whose width follows their text), so
#: a name of a team.yaml's 64 KiB made the report's pictures too wide to write.
MAX_CLASS_NAME = 100


def _from_file(path: Path, cls_name: str, args: tuple[tuple[str, str], ...],
               team: Path | None = None) -> AgentRef:
    """A reference to a class in a file, checked by reading the source, never by running it:
    the file may be an untrusted submission that must only ever run in its sandbox. A team's
    file (`team` given, `path` one of its checked listing) is read through the team folder's
    descriptors and never resolved through a link."""
    if team is None and not path.is_file():
        raise SubmissionError(f"{path}: no such agent file", problems.NO_AGENT_FILE)
    if len(cls_name) > MAX_CLASS_NAME:
        raise SubmissionError(f"{path}: a class name of {len(cls_name)} characters; at most "
                              f"{MAX_CLASS_NAME} are taken", problems.MISSING_CLASS)
    if not cls_name.isidentifier():
        raise SubmissionError(f"{path}:{cls_name}: {cls_name!r} is not a class name",
                              problems.MISSING_CLASS)
    try:
        tree = compile_source(path, check=False, team=team)
    except SourceError:
        # A named file (a team's, say) that does not compile is that agent's own failure:
        # its sandbox reports the syntax error as a `load_error` when its games are played,
        # rather than a config error that would stop everyone's games.
        tree = ast.Module(body=[], type_ignores=[])
    names = _bound_names(tree)
    if names and "*" not in names and cls_name not in names:
        classes = _classes(tree)
        close = difflib.get_close_matches(cls_name, classes or names, n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise SubmissionError(
            f"{path} defines no class {cls_name!r}{hint}; classes there: "
            f"{', '.join(classes) or 'none'}", problems.MISSING_CLASS
        )
    # No name in the source at all (a syntax error, say): loading it reports why.
    where = path.resolve() if team is None else team.resolve() / path.relative_to(team)
    return AgentRef(cls_name, module="", path=str(where), args=args)


def _from_folder(folder: Path, args: tuple[tuple[str, str], ...], kind: str,
                 folder_agent: FolderAgent | None = None) -> AgentRef:
    """A team folder: its `team.yaml`, else `folder_agent`, else its one agent (or ghost)
    class. The folder is checked first (`pacman.teamfolder`): a team plays only the regular
    files of its own folder."""
    try:
        files = team_files(folder)
    except TeamFolderError as exc:
        raise SubmissionError(str(exc), problems.FOLDER_REFUSED) from None
    ref, name = _agent_of_folder(folder, files, args, kind, folder_agent)
    return dataclasses.replace(ref, team=str(folder.resolve()),
                               team_name=name or clean(folder.resolve().name, 60))


#: Per kind: the team.yaml keys of its class and its options, and the suffix of the class
#: names a folder without team.yaml is searched for.
KINDS = {"pacman": ("agent", "args", "Agent"), "ghost": ("ghost", "ghost_args", "Ghost")}
#: The file in a team folder that names what it plays; when present it always decides.
TEAM_YAML = "team.yaml"


def has_team_file(listed: list[str]) -> bool:
    """Whether a team folder's checked listing (`team_files`) holds its `team.yaml`: then the
    folder names what it plays, and no `FolderAgent` applies."""
    return TEAM_YAML in listed


def _agent_of_folder(folder: Path, files: list[str], args: tuple[tuple[str, str], ...],
                     kind: str, folder_agent: FolderAgent | None = None
                     ) -> tuple[AgentRef, str]:
    """The class a team folder names (team.yaml), is given (`folder_agent`) or holds (its one
    *Agent or *Ghost), and the team's name when its team.yaml gives one."""
    if has_team_file(files):
        return _from_team_yaml(folder, files, args, kind)
    key, _, suffix = KINDS[kind]
    if not agent_files(folder, files):
        raise SubmissionError(f"{folder}: no team.yaml and no *gents.py or submission.py in "
                              "the folder, so there is no agent to play", problems.NO_AGENT_FILE)
    if folder_agent is not None:
        return _folder_agent(folder, files, args, folder_agent, key), ""
    candidates: list[tuple[Path, str]] = []
    broken: list[SourceError] = []
    _within_budget(agent_files(folder, files), f"{folder}: its agent files",
                   f"add a team.yaml with '{key}: file.py:ClassName'", problems.UNCLEAR_AGENT)
    for file in agent_files(folder, files):
        try:
            candidates += [(file, n) for n in classes_in_source(file, check=False, team=folder)
                           if n.endswith(suffix)]
        except SourceError as exc:
            broken.append(exc)
    if len(candidates) == 1:
        file, name = candidates[0]
        return _from_file(file, name, args, team=folder), ""
    listed = ", ".join(f"{f.name}:{n}" for f, n in candidates) or "none found"
    unread = (f"; files that do not compile: {'; '.join(str(b).splitlines()[0] for b in broken)}"
              if broken else "")
    what = "agent" if kind == "pacman" else "ghost"
    # With no candidate and a file that does not compile, that file is what to fix (its
    # SourceError, the cause, says where).
    raise SubmissionError(
        f"{folder}: cannot tell which {what} to play; add a team.yaml with "
        f"'{key}: file.py:ClassName' (candidates: {listed}{unread})",
        problems.SYNTAX_ERROR if broken and not candidates else problems.UNCLEAR_AGENT,
    ) from (broken[0] if broken and not candidates else None)


def _folder_agent(folder: Path, files: list[str], args: tuple[tuple[str, str], ...],
                  chosen: FolderAgent, key: str) -> AgentRef:
    """`chosen`'s class in the first of the folder's agent files that binds its name (read
    from source, never run), with `chosen`'s options under `args`; a folder where no agent
    file binds it is a SubmissionError naming the class and the files searched."""
    searched = agent_files(folder, files)
    _within_budget(searched, f"{folder}: its agent files",
                   f"add a team.yaml with '{key}: file.py:{chosen.name}'", problems.UNCLEAR_AGENT)
    broken: list[SourceError] = []
    starred: list[str] = []
    classes: list[str] = []
    for file in searched:
        try:
            tree = compile_source(file, check=False, team=folder)
        except SourceError as exc:
            broken.append(exc)
            continue
        names = _bound_names(tree)
        if chosen.name in names:
            merged = dict(chosen.args) | dict(args)
            return _from_file(file, chosen.name, tuple(merged.items()), team=folder)
        if "*" in names:
            starred.append(file.name)
        classes += _classes(tree)
    by = f" (the class {chosen.named_by} names for a folder without team.yaml)" \
        if chosen.named_by else ""
    close = difflib.get_close_matches(chosen.name, classes, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    star = (f"; {', '.join(starred)} import names with *, which cannot be read without "
            f"running them: add a team.yaml with '{key}: file.py:{chosen.name}'"
            if starred else "")
    if broken:
        # A file that does not compile may well be where the class is: that file is what to
        # fix, said first, in the words a student reads (its SourceError, the cause, says
        # where), as for a folder without a named class.
        errors = "; ".join(str(b).splitlines()[0] for b in broken)
        raise SubmissionError(
            f"{errors} (so the folder's {chosen.name}, which this tournament plays for a "
            f"folder without team.yaml, cannot be found: fix the file so that it compiles)",
            problems.SYNTAX_ERROR) from broken[0]
    raise SubmissionError(
        f"{folder}: no agent file defines {chosen.name}{by}{hint}; searched "
        f"{', '.join(f.name for f in searched)}{star}", problems.MISSING_CLASS)


def _from_team_yaml(
    folder: Path, files: list[str], args: tuple[tuple[str, str], ...], kind: str
) -> tuple[AgentRef, str]:
    """The class a `team.yaml` names for `kind` (`agent:` with `args:` for its Pacman,
    `ghost:` with `ghost_args:` for its ghost team), and the team's `name` ('' if none)."""
    from pacman.yamlfile import TEAM_FILE, YamlProblem, load_yaml

    team_file = folder / TEAM_YAML
    try:
        team = load_yaml(team_file, TEAM_FILE, follow_links=False)
    except YamlProblem as exc:
        # Chained, so that where it is (`exc.path`, `exc.line`) stays at hand.
        raise _bad_team_yaml(str(exc)) from exc
    if team is None:
        team = {}
    key, args_key, _ = KINDS[kind]
    if not isinstance(team, dict) or not any(k in team for k, _, _ in KINDS.values()):
        raise _bad_team_yaml(f"{team_file}: expected a key 'agent: file.py:ClassName' (its "
                             "Pacman) or 'ghost: file.py:ClassName' (its ghosts), or both")
    # The name is for people only: one that is no text is left out (the folder's name shows).
    name = team.get("name")
    name = name if isinstance(name, str) else ""
    if not isinstance(team.get(key), str):
        if key in team:
            raise _bad_team_yaml(f"{team_file}: {key}: expected file.py:ClassName, got "
                                 f"{clean(repr(team[key]), 60)}")
        if kind == "ghost":
            raise _bad_team_yaml(f"{team_file}: the team names no ghost (expected a key "
                                 "'ghost: file.py:ClassName')")
        raise _bad_team_yaml(f"{team_file}: the team names only a ghost ('ghost:'), no "
                             "Pacman (expected a key 'agent: file.py:ClassName')")
    file_part, _, cls_name = team[key].rpartition(":")
    if not file_part:
        raise _bad_team_yaml(
            f"{team_file}: {key}: expected file.py:ClassName, got {team[key]!r}"
        )
    team_args = team.get(args_key) or {}
    if not isinstance(team_args, dict):
        raise _bad_team_yaml(f"{team_file}: {args_key}: expected a mapping of option: value")
    for option, value in team_args.items():
        if not isinstance(option, str) or not option.isidentifier():
            raise _bad_team_yaml(f"{team_file}: {args_key}: {option!r} is not an option name")
        if isinstance(value, (dict, list)) or value is None:
            raise _bad_team_yaml(
                f"{team_file}: {args_key}.{option}: expected a text, number or true/false"
            )
    merged = {str(k): str(v) for k, v in team_args.items()} | dict(args)
    relative = Path(file_part).as_posix()
    if Path(file_part).is_absolute() or relative not in files:
        outside = Path(file_part).is_absolute() or ".." in Path(file_part).parts
        where = ("is outside the team's folder; a team plays its own code" if outside
                 else "no such file in the team's folder")
        raise SubmissionError(f"{team_file}: {key}: {file_part!r} {where}",
                              problems.BAD_TEAM_YAML if outside else problems.NO_AGENT_FILE)
    ref = _from_file(folder / relative, cls_name, tuple(merged.items()), team=folder)
    return ref, clean(name.strip(), 60)


def _bad_team_yaml(message: str) -> SubmissionError:
    return SubmissionError(message, problems.BAD_TEAM_YAML)


def describe_signature(cls: type) -> str:
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return "unknown"
    return ", ".join(p for p in params if p not in ("self", "index")) or "none"


def options_refused(cls: type, index: int, options: Mapping[str, object]) -> bool:
    """Whether building agent `index` of `cls` with `options` fails at the call, not in its
    body (Pacman is built from its options alone, a ghost as `cls(index, **options)`, as
    `AgentRef.build` does): a `TypeError` while building an agent is an options problem only
    then; raised by the constructor's own code, it is the agent's crash, and naming its
    options would send the student the wrong way. True when the signature cannot be read
    (the call is all there is to blame)."""
    try:
        inspect.signature(cls).bind(*(() if index == 0 else (index,)), **options)
    except (TypeError, ValueError):
        return True
    return False


def _constructor(path: Path, cls_name: str,
                 team: Path | None) -> ast.FunctionDef | str | None:
    """The `__init__` a class is built with, found in its file's source without running it:
    its own or the nearest base's of the same file; else where the walk ended: `"agent"`
    (the course's `Agent` base), `"object"` (no base, or `object`), or None when the source
    cannot tell (it does not compile, a base from another module, several bases)."""
    try:
        tree = compile_source(path, check=False, team=team)
    except SourceError:
        return None
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    seen: set[str] = set()
    name = cls_name
    while name in classes and name not in seen:
        seen.add(name)
        node = classes[name]
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                return item
        bases = [_dotted(b) for b in node.bases]
        if bases in (["Agent"], ["game.Agent"]):
            return "agent"
        if not bases or bases == ["object"]:
            return "object"
        if len(bases) != 1 or bases[0] is None:
            return None
        name = bases[0]
    return None


def options_in_source(path: Path, cls_name: str, team: Path | None = None) -> list[str] | None:
    """The keyword options a class's constructor takes, read from source without running it.

    None when the source cannot tell (a `**kwargs`, a base class from another module other
    than the course's `Agent`); the check is then left to the agent's own start-up.
    """
    init = _constructor(path, cls_name, team)
    if init in ("agent", "object"):
        return []
    if not isinstance(init, ast.FunctionDef) or init.args.kwarg is not None:
        return None
    args = init.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return [n for n in names[1:] if n != "index"]


def ghost_problem(path: Path, cls_name: str, team: Path | None = None) -> str:
    """Why a class cannot be a ghost, read from source without running it ('' when it can, or
    when the source cannot tell: the ghost's own start-up then reports it).

    A ghost is built as `Class(index)` once per ghost, as the course builds its ghosts: its
    constructor must take the index as its first argument (the course's `Agent` base does).
    A constructor without one (a course Pacman class such as `ExpectimaxAgent(evalFn,
    depth)`, or a class with no constructor of its own on `object`) is no ghost.
    """
    init = _constructor(path, cls_name, team)
    if init == "object":
        return ("it has no constructor taking an index; a ghost is built as Class(index), "
                "once per ghost")
    if not isinstance(init, ast.FunctionDef):
        return ""
    args = init.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    required = len(positional) - len(args.defaults)
    # The index may go by another name, but an option with a default (a course Pacman's
    # `evalFn='scoreEvaluationFunction'`) is no index.
    if (len(positional) >= 2 and (positional[1] == "index" or required >= 2)) or (
            len(positional) < 2 and args.vararg is not None):
        return ""
    if len(positional) >= 2:
        return (f"its constructor's first argument is the option {positional[1]!r} (with a "
                "default), not the ghost's index; a ghost is built as Class(index), once per "
                "ghost")
    taken = ", ".join(positional[1:] + [a.arg for a in args.kwonlyargs]) or "none"
    return (f"its constructor takes no index (its options: {taken}); a ghost is built as "
            "Class(index), once per ghost")


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a name or an attribute chain, None for anything else. Iterative: a chain
    of 1,200 links (a hostile file of 3 KB) overflowed the recursion of `ast.unparse`."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])
