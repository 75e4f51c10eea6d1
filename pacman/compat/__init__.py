"""Modules that course agent files import by generic names (`game`, `util`).

They are not put on the import path: `install()` registers them in `sys.modules` under those
names only when the loader loads a course-style agent file, so nobody else's `import util`
finds ours by accident.

A student folder often holds the course's own `game.py` and `util.py`, sometimes with helpers
of the team's added. The course names stay ours (they are what the engine's objects work
with, and an old copy may not even be Python 3), but what a team's copy adds is kept:
`install(folder)` lays the names that the folder's `util.py` or `game.py` defines beyond ours
over a module of ours (`overlay`), as `import util` would have found them under the course.
"""

from __future__ import annotations

import builtins
import sys
from pathlib import Path
from types import ModuleType

from pacman.compat import game, util
from pacman.describe import describe

ALIASES: dict[str, ModuleType] = {"util": util, "game": game}

#: The largest team copy of a course module read for its additions (the course's util.py is
#: some 20 KiB).
OVERLAY_LIMIT = 512 * 1024


def install(folder: Path | None = None) -> None:
    """Make `import util` and `import game` resolve to the course-compatible modules, with
    the additions of `folder`'s own copies of them when it has any. Ours are registered
    first, so that a copy that imports the other (a course `game.py` starts with `from util
    import *`) finds it; `folder` must be on the import path already, for its copies'
    imports of their siblings. One process holds one `util` and one `game`: in a tournament
    every team's agent has a process of its own; a command playing two course folders in
    one process (`--no-sandbox`) gives the last one loaded its folder's additions."""
    sys.modules.update(ALIASES)
    if folder is not None:
        for name, ours in ALIASES.items():
            sys.modules[name] = overlay(ours, folder / f"{name}.py")


def overlay(ours: ModuleType, copy: Path) -> ModuleType:
    """`ours`, or, when `copy` is a team's readable Python module, a new module of the same
    name holding ours plus the public names `copy` defines that ours lacks.

    The team's file runs as its own module would (its functions see its own names), and it
    runs whether or not the agent imports it, as under the course, whose own `pacman.py`
    imports `util`. If it cannot run (a syntax error, an old Python 2 copy, an exception,
    even `sys.exit`), the team plays with ours alone, as it did before copies were read (the
    course names are all there), and a line on stderr (the agent's log, when sandboxed) says
    why."""
    try:
        if not copy.is_file():
            return ours
        if copy.stat().st_size > OVERLAY_LIMIT:
            _left_out(copy, f"larger than {OVERLAY_LIMIT // 1024} KiB")
            return ours
        source = copy.read_bytes()
        theirs: dict[str, object] = {"__name__": ours.__name__.rsplit(".", 1)[-1],
                                     "__file__": str(copy), "__builtins__": builtins}
        exec(compile(source, str(copy), "exec"), theirs)
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # the team's, whatever it is
        _left_out(copy, describe(exc))
        return ours
    name = ours.__name__.rsplit(".", 1)[-1]
    merged = ModuleType(name, ours.__doc__)
    merged.__dict__.update({k: v for k, v in vars(ours).items() if k not in ("__name__",)})
    public = [k for k in theirs if not k.startswith("_")]
    for key in public:
        if not hasattr(ours, key):
            setattr(merged, key, theirs[key])
    # `from util import *` gives what the team's copy would (the course's modules export
    # every public name), each as this module holds it.
    exported = list(getattr(ours, "__all__", ()))
    merged.__dict__["__all__"] = [*exported, *(k for k in public if k not in exported)]
    merged.__file__ = str(copy)
    return merged


def _left_out(copy: Path, why: str) -> None:
    """Say on stderr that a folder's copy of a course module is not used, and why."""
    text = " ".join(why.split())[:300]
    print(f"pacman-arena: {copy.name} in the agent's folder was left out ({text}); the "
          "course's module is used without its additions", file=sys.stderr)
