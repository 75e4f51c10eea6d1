"""The files a built-in agent's options name, and how a tournament plays them.

A baseline such as `ExpectimaxAgent` with `features: feats.py:phi` and `weights: w.yaml`
plays with files the organizer wrote or took from a student. Those files decide its games as
much as a team's folder decides a team's, so (as for a team):
- the config holds them as absolute paths (`absolute_options`), as it holds every path;
- a baseline's submission hash covers their bytes (`options_digest`), so an edited file plays
  its games again rather than keeping the old file's results;
- loading the config reads a function's file (`code_problem`) but never runs it: the agent is
  built once with the platform's own function standing in (`with_stand_ins`);
- a function file plays from a snapshot in the sandbox (`tournament.runner._resolved`), so
  whatever it does (an exception, ending its process, a loop) is that game's failure, blamed
  on the agent, never an unscored error of the worker; and a weights file travels inline in
  the options (`inline_weights`), so no worker needs the organizer's files.

Only the platform's own modules (`pacman.*`, `tournament.*`) named as `module:function` stay
trusted and in-process; any other module is found as its source file (`module_source`) and
played as that file.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from pacman.agents.evaluation import is_inline_weights, weights_text
from pacman.loader import CODE_OPTIONS, code_option_file, platform_module, someones_code
from pacman.yamlfile import YamlProblem, load_yaml

#: The option whose value may name a YAML file of weights.
WEIGHTS_OPTION = "weights"


def module_source(module: str) -> Path | None:
    """The Python source file of `module` (`package.module`) on the import path, found
    without running any of it (no package's `__init__` either: the tuner runs no code of the
    file's before its checks, which run in a child process); None when there is none."""
    from importlib.machinery import PathFinder

    search: list[str] | None = None
    spec = None
    parts = module.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    for depth in range(1, len(parts) + 1):
        if depth > 1 and search is None:  # a module, not a package: nothing below it
            return None
        try:
            spec = PathFinder.find_spec(".".join(parts[:depth]), search)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        locations = spec.submodule_search_locations
        search = None if locations is None else list(locations)
    origin = spec.origin if spec is not None else None
    return Path(origin).resolve() if origin and origin.endswith(".py") else None


def code_file(value: str, base: Path) -> tuple[Path, str] | None:
    """The file and function a code option names (`file.py:function`, relative to `base`,
    or a module's source file), or None: a built-in name (`better`), the platform's own
    module, or a module with no source file to be found (the agent's own check refuses it)."""
    where, sep, function = value.rpartition(":")
    if not sep or not where or not function:
        return None
    if where.endswith(".py"):
        return (base / where).absolute(), function
    if platform_module(where):
        return None
    source = module_source(where)
    return None if source is None else (source, function)


def absolute_options(args: tuple[tuple[str, str], ...], base: Path
                     ) -> tuple[tuple[str, str], ...]:
    """`args` with every file they name absolute (read against `base`, the config's folder):
    a config's paths are absolute, so that its games and its hashes do not depend on the
    folder the run was started from. A module's function is named by its file from here on:
    what plays is that file."""
    out = []
    for key, value in args:
        if key in CODE_OPTIONS and (found := code_file(value, base)) is not None:
            value = f"{found[0]}:{found[1]}"
        elif key == WEIGHTS_OPTION and value and not is_inline_weights(value):
            value = str((base / value).absolute())
        out.append((key, value))
    return tuple(out)


def function_file(key: str, value: str) -> tuple[Path, str] | None:
    """The file and function option `key=value` names (`features=feats.py:phi`), or None
    when it names none: another option, a built-in name, or the platform's module."""
    found = code_option_file(key, value)
    return None if found is None else (Path(found[0]), found[1])


def code_files(args: tuple[tuple[str, str], ...]) -> set[Path]:
    """The distinct files of code `args` name (`features=`, `evalFn=`): a built-in plays from
    one snapshot, so a baseline may name one."""
    return {found[0] for key, value in args if (found := function_file(key, value))}


def named_files(args: tuple[tuple[str, str], ...]) -> list[Path]:
    """The files `args` (made absolute by `absolute_options`) name, in order. A relative one
    names a snapshot's file (`<digest>/<name>/feats.py`, as `tournament tune` gives its
    feature function), whose digest is already in its name."""
    files = []
    for key, value in args:
        if (found := function_file(key, value)) is not None:
            files.append(found[0])
        elif key == WEIGHTS_OPTION and value and not is_inline_weights(value):
            files.append(Path(value))
    return [path for path in files if path.is_absolute()]


def options_digest(
    args: tuple[tuple[str, str], ...], read: Callable[[Path], bytes] = Path.read_bytes
) -> str:
    """A digest of the bytes of every file `args` name ('' when they name none, so that the
    hashes of baselines without files stay what they were), each read with `read` (a run
    reads its snapshot of the file: `tournament.runner.Snapshots.read_bytes`). A file that
    cannot be read counts as such: its games fail to load, and fixing it plays them again."""
    files = named_files(args)
    if not files:
        return ""
    digest = hashlib.sha256()
    for path in files:
        try:
            content = read(path)
        except OSError as exc:
            content = f"unreadable\0{type(exc).__name__}".encode()
        digest.update(f"{path}\0{len(content)}\0".encode() + content)
    return digest.hexdigest()


def inline_weights(value: str, source: Path | None = None) -> str:
    """A weights file's entries as inline options (`name:value;...`), which the agent reads as
    it reads the file (over the same base weights), so that the file need not reach the
    worker or the sandbox; read from `source` when given (a run's snapshot of the file),
    else from the file. `value` as it is when the file cannot be read or holds other than
    names and numbers (the agent then refuses it as it does today, naming the file)."""
    if not value or is_inline_weights(value):
        return value
    try:
        data = load_yaml(source or Path(value))
    except (YamlProblem, OSError):
        return value
    if not isinstance(data, dict) or not data or not all(
        isinstance(k, str) and k.isidentifier() and not isinstance(v, bool)
        and isinstance(v, int | float) for k, v in data.items()
    ):
        return value
    return weights_text({k: float(v) for k, v in data.items()})


def _imported_names(tree: ast.AST) -> set[str]:
    """The top-level module names of every absolute import in `tree`, wherever it is: a
    function's body imports when the function first runs, mid-game. One a `try` guards counts
    too: with the file beside it, it would succeed here and take its fallback in the games,
    which would then play another evaluation than the one checked."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return found


def imports_beside(file: Path) -> list[str]:
    """The files of `file`'s folder that its import statements name (`helpers.py`, `lib/`),
    read from its source without running it. A built-in plays a code option's file from a
    snapshot of that one file, so such an import fails in every game that reaches it, even
    one made only mid-game, which no trial call finds. Left out: names found elsewhere on
    the import path (the standard library, installed packages, the platform), which the
    sandbox reads too, and the file itself. [] when the file cannot be read or parsed (its
    load reports that)."""
    from importlib.machinery import EXTENSION_SUFFIXES

    from pacman.files import FileProblem, read_bounded
    from pacman.loader import SOURCE_LIMIT

    try:
        tree = ast.parse(read_bounded(file, SOURCE_LIMIT), filename=str(file))
    except (FileProblem, OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    folder = file.parent.resolve()
    elsewhere = [entry for entry in sys.path if Path(entry or ".").resolve() != folder]
    out = []
    for name in sorted(_imported_names(tree) - {file.stem}):
        here = [f"{name}{suffix}" for suffix in (".py", *EXTENSION_SUFFIXES)
                if (folder / f"{name}{suffix}").is_file()]
        if not here and (folder / name).is_dir():
            here = [f"{name}/"]
        if not here or _importable_elsewhere(name, elsewhere, folder):
            continue
        out.append(here[0])
    return out


def _importable_elsewhere(name: str, elsewhere: list[str], folder: Path) -> bool:
    """Whether the games find module `name` without the file's folder: built into the
    interpreter, the course's modules the platform provides (`game`, `util`: a course
    folder holds its own copies beside a student's file), the platform's own packages, or
    found on the import path outside the folder by any finder (an editable install's too)."""
    from importlib.machinery import PathFinder

    from pacman.compat import ALIASES

    if name in sys.builtin_module_names or name in ALIASES or platform_module(name):
        return True
    for finder in sys.meta_path:
        try:
            if finder is PathFinder or getattr(finder, "__name__", "") == "PathFinder":
                found = PathFinder.find_spec(name, elsewhere)
            else:
                find = getattr(finder, "find_spec", None)
                found = find(name, None) if find is not None else None
        except (ImportError, ValueError, AttributeError, TypeError):
            found = None
        places = [] if found is None else [found.origin or "",
                                           *(found.submodule_search_locations or [])]
        if any(Path(place).is_absolute() and not Path(place).resolve().is_relative_to(folder)
               for place in places):
            return True
    return False


def beside_problem(file: Path, shown: str, beside: list[str]) -> str:
    """What to say of a code file (`shown` as messages name it) that imports the files
    `beside` from its folder."""
    return (f"{shown} imports {', '.join(beside)} from its folder, but the games play "
            f"{file.name} alone (the run snapshots that one file): put what it needs in it")


#: The platform's own functions built into an agent in place of a code option's file when
#: only its options are checked: building loads the function and nothing else, so the
#: file (perhaps a student's) never runs in the organizer's process.
STAND_INS = {"features": "pacman.agents.evaluation:features",
             "evalFn": "pacman.agents.evaluation:scoreEvaluationFunction"}


def with_stand_ins(args: dict[str, str]) -> dict[str, str]:
    """`args` with every code option that names a file replaced by its stand-in."""
    return {key: STAND_INS[key] if key in STAND_INS and function_file(key, value) else value
            for key, value in args.items()}


def stood_for(text: str, stood_in: Mapping[str, str]) -> str:
    """`text` (a message about options built with stand-ins) naming what each stand-in
    stands for (`stood_in`: stand-in to the option's own value)."""
    for stand_in, value in stood_in.items():
        text = text.replace(stand_in, value)
    return text


def code_problem(key: str, value: str) -> str | None:
    """What is wrong with the file a code option names (`key=value`, the file absolute), read
    from its source without running it: unreadable, not Python, no top-level name for the
    function, or importing its own folder (`imports_beside`); None when nothing is. What only
    running it can show (an import that fails) is its games' load_error, as for a team."""
    from pacman.loader import SourceError, names_in_source

    found = function_file(key, value)
    if found is None:
        where = someones_code(key, value)
        if where is None:
            return None
        # `absolute_options` made every module with a source file its file: this one has
        # none to play from a snapshot, and importing it would run its package here.
        return (f"{key}={value}: no Python source file of module {where!r} is found on the "
                "import path; name its file (path/to/file.py:function)")
    file, function = found
    try:
        names = names_in_source(file)
    except SourceError as exc:
        return f"{key}={value}: {exc}"
    if function not in names and "*" not in names:
        return f"{key}={value}: {file} defines no function {function!r}"
    beside = imports_beside(file)
    return beside_problem(file, f"{file.name}:{function}", beside) if beside else None
