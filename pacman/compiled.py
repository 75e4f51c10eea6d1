"""Which build of the engine's hot modules runs: the compiled one, or the Python sources.

The compiled build (`pacman.fastbuild`, `make build-fast`) puts a compiled extension beside
each of `MODULES`, which Python imports in preference to the source. A build that no longer
matches its sources must not run: the build records each source's hash (`pacman/_fast.json`),
and `choose`, called by `import pacman` before anything compiled is imported, plays the
sources instead (saying why on stderr) when a source changed, when the record is missing, or
when `PACMAN_ARENA_PURE` is set (to compare, or to rule the build out). The modules run all
compiled or all from source, never mixed: compiled modules call each other directly, past
whatever a source would say.

`pacman/__init__.py` imports this module first of all, so it imports nothing of the engine.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
#: The compiled modules, compiled together (their calls to each other are then native).
MODULES: tuple[str, ...] = (
    "pacman.rules",
    "pacman.state",
    "pacman.distances",
    "pacman.agents.evaluation",
    "pacman.games.pacman_game",
    "pacman.search.core",
    "pacman.search.anytime",
)
#: The build's shared library, `pacman/_fast__mypyc<suffix>` (mypyc's name for a group).
GROUP = "pacman._fast"
#: What the build compiled: each source's hash, and the compiler's version.
RECORD = PACKAGE / "_fast.json"
#: Set (to anything but "" or "0"), the sources run even when a fresh build is there.
PURE_VARIABLE = "PACMAN_ARENA_PURE"


def source(module: str, root: Path = ROOT) -> Path:
    return root / (module.replace(".", "/") + ".py")


def _compiled_files(module: str, root: Path) -> list[Path]:
    stem = root / module.replace(".", "/")
    return [p for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if (p := stem.with_name(stem.name + suffix)).exists()]


def compiled_files(root: Path = ROOT) -> list[Path]:
    """The files of a build for this interpreter, as far as there are any."""
    return [p for m in (*MODULES, GROUP + "__mypyc") for p in _compiled_files(m, root)]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pure_asked() -> bool:
    return os.environ.get(PURE_VARIABLE, "") not in ("", "0")


def problem(root: Path = ROOT) -> str:
    """Why the build that is there cannot be used ('' when it can, or when there is none)."""
    if not compiled_files(root):
        return ""
    missing = [m for m in MODULES if not _compiled_files(m, root)]
    if missing:
        return f"it lacks {', '.join(missing)}"
    record = root / RECORD.relative_to(ROOT)
    try:
        sources = json.loads(record.read_text())["sources"]
        if not isinstance(sources, dict):
            raise TypeError
    except (OSError, ValueError, KeyError, TypeError):
        return f"{record.name} (the record of what was compiled) is missing or unreadable"
    for module in MODULES:
        path = source(module, root)
        if not path.exists() or sources.get(module) != digest(path):
            return f"{path.relative_to(root)} changed since it was compiled"
    return ""


class _Sources:
    """A meta path finder, first in line, that imports the compiled modules from source."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname in MODULES:
            return importlib.util.spec_from_file_location(fullname, source(fullname))
        return None


_SOURCES = _Sources()


def use_sources() -> None:
    if _SOURCES not in sys.meta_path:
        sys.meta_path.insert(0, _SOURCES)


def choose() -> None:
    """Before the engine's modules are imported: the sources, unless a build is there that
    matches them and `PACMAN_ARENA_PURE` is not set."""
    if not compiled_files():
        return
    if pure_asked():
        use_sources()
        return
    why = problem()
    if why:
        print(f"pacman-arena: the compiled build is not used ({why}); playing the Python "
              "sources. `make build-fast` rebuilds it, `make clean-fast` removes it.",
              file=sys.stderr)
        use_sources()


def running() -> dict[str, bool]:
    """Per compiled module: whether this process runs it compiled (imports them)."""
    return {m: not str(importlib.import_module(m).__file__).endswith(".py") for m in MODULES}


def build_name() -> str:
    """Which build this process plays, in words, for the first line of a benchmark's output:
    figures of one build say nothing of the other's."""
    return ("compiled (make build-fast)" if all(running().values()) else "Python sources")
