"""The optional compiled build: the engine's hot modules compiled to C with mypyc.

`make build-fast` (`python -m pacman.fastbuild build`) compiles `pacman.compiled.MODULES` in
place: beside `pacman/state.py` lies `pacman/state.cpython-311-x86_64-linux-gnu.so` (one per
module, and the shared library `pacman/_fast__mypyc...so`), which Python imports in preference
to the source. `make clean-fast` removes them, and the sources run again: they are the default
and the fallback, and every feature works the same in both builds. Both play the same games,
move for move: the build checks it before it keeps itself (`self_check`), and `make test-fast`
runs the tests of the rules, the course API, the searches and the baselines on it. Which build
runs, and when a build is set aside (its sources changed, `PACMAN_ARENA_PURE`), is
`pacman.compiled`'s to say.

Why these modules: a tuning game is a depth-2 expectimax of the built-in agent, and its time
goes to successor states (`rules`, `state`), the evaluation (`agents.evaluation`,
`distances`) and the search loop (`search.core`, `games.pacman_game`). The README's Speed
section has the figures.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from pacman.compiled import (
    GROUP,
    MODULES,
    PACKAGE,
    PURE_VARIABLE,
    RECORD,
    ROOT,
    compiled_files,
    digest,
    problem,
    pure_asked,
    running,
    source,
)

# --- building ---------------------------------------------------------------------------------

_BUILD = """
import sys
from mypyc.build import mypycify
from setuptools import setup
group, target, temp, *paths = sys.argv[1:]
setup(name="pacman-arena-fast", script_args=["build_ext", "--inplace", "--build-temp", temp,
      "--build-lib", temp], ext_modules=mypycify(paths, group_name=group, target_dir=target))
"""


class BuildError(Exception):
    """The build failed, or did not pass its check (and was removed)."""


class MissingTool(BuildError):
    """What the build needs is not installed here."""


def prerequisites() -> None:
    """mypyc, a C compiler and Python's headers, or a MissingTool that says what to install."""
    if importlib.util.find_spec("mypyc") is None:
        raise MissingTool("the compiled build needs mypy (it ships mypyc) in this Python: "
                         "`make setup` installs it with the development tools, or "
                         "`pip install mypy`")
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        raise MissingTool(f"the compiled build needs a C compiler ({compiler}): on Debian, "
                         "apt-get install gcc")
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.exists():
        raise MissingTool(f"the compiled build needs Python's C headers ({headers}): on Debian, "
                         f"apt-get install python{sys.version_info[0]}-dev")


def clean() -> list[Path]:
    """Remove the build (the sources run again); the files removed."""
    gone = [*compiled_files(), *([RECORD] if RECORD.exists() else [])]
    for path in gone:
        path.unlink()  # a process that loaded it keeps its mapping: the inode lives on
    return gone


def build() -> None:
    """Compile `MODULES` in place, record their sources, and keep the build only if it plays
    the same games as the sources (`self_check` in a fresh process)."""
    prerequisites()
    clean()
    before = {m: digest(source(m)) for m in MODULES}
    with tempfile.TemporaryDirectory(prefix="pacman-fast-") as work:
        done = subprocess.run(
            [sys.executable, "-c", _BUILD, GROUP, f"{work}/c", f"{work}/build",
             *(str(source(m).relative_to(ROOT)) for m in MODULES)],
            cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        clean()
        output = (done.stdout + done.stderr).strip().splitlines()
        raise BuildError("mypyc failed:\n" + "\n".join(output[-40:]))
    if {m: digest(source(m)) for m in MODULES} != before:
        clean()
        raise BuildError("a source changed while it was compiled: build again")
    from mypy.version import __version__ as mypy_version

    RECORD.write_text(json.dumps({"sources": before, "mypy": mypy_version,
                                  "python": sys.version.split()[0]}, indent=1) + "\n")
    checked = subprocess.run([sys.executable, "-m", "pacman.fastbuild", "check"], cwd=ROOT,
                             capture_output=True, text=True, check=False,
                             env={k: v for k, v in os.environ.items() if k != PURE_VARIABLE})
    if checked.returncode != 0:
        clean()
        raise BuildError("the build failed its check and was removed:\n"
                         + (checked.stdout + checked.stderr).strip())


# --- checking ---------------------------------------------------------------------------------

#: Games both builds must play alike: (layout, Pacman, its options, ghost, ghosts, rules, games).
CHECK_GAMES: tuple[tuple[str, str, str, str, int, str, int], ...] = (
    ("smallClassic", "ExpectimaxAgent", "evalFn=better,depth=2", "RandomGhost", 2, "cs221", 3),
    ("smallClassic", "AlphaBetaAgent", "evalFn=contest,depth=2", "DirectionalGhost", 2,
     "classic", 2),
    ("mediumClassic", "ReflexAgent", "evalFn=better", "RandomGhost", 2, "classic", 2),
    ("minimaxClassic", "MinimaxAgent", "depth=3", "RandomGhost", 3, "classic", 2),
    # The anytime search, bounded by depth so that the clock cannot change its answer.
    ("smallClassic", "AnytimeAgent", "timeLimit=1000,maxDepth=2", "DirectionalGhost", 2,
     "classic", 2),
)


def fingerprint(games: tuple[tuple[str, str, str, str, int, str, int], ...] = CHECK_GAMES
                ) -> str:
    """A hash of every move and score of `games` (fixed seeds), to compare two builds."""
    from pacman.game import GameSpec, play
    from pacman.layout import load_layout
    from pacman.loader import parse_agent_args, resolve
    from pacman.seeds import derive_seed

    h = hashlib.sha256()
    for layout, pacman, args, ghost, ghosts, rules, count in games:
        pacman_ref = resolve(pacman, parse_agent_args(args))
        ghost_ref = resolve(ghost, kind="ghost")
        for i in range(count):
            result = play(GameSpec(load_layout(layout), pacman_ref, ghost_ref, ghosts,
                                   derive_seed(0, "fast", i), rules, max_moves=3000))
            h.update(repr((result.outcome, result.score, result.actions, result.scores,
                           [a[0] for a in result.final_state.agents]
                           if result.final_state else None)).encode())
    return h.hexdigest()


def self_check() -> list[str]:
    """What is wrong with the build this process runs (empty: nothing)."""
    wrong = [f"{m} is not running compiled" for m, c in running().items() if not c]
    if wrong:
        return wrong
    from pacman.layout import load_layout
    from pacman.state import GameState

    state = GameState.initial(load_layout("smallClassic"), 2)
    slot = "_score"
    try:
        setattr(state, slot, 5)
        wrong.append("a GameState can be changed")
    except AttributeError:
        pass
    moved = state.generateSuccessor(0, state.getLegalActions(0)[0])
    if {type(c) for c in moved.getPacmanPosition()} != {int}:
        wrong.append("Pacman's position is no longer a pair of ints")
    pure = subprocess.run(
        [sys.executable, "-c", "from pacman import fastbuild; print(fastbuild.fingerprint())"],
        capture_output=True, text=True, check=False, cwd=ROOT,
        env={**os.environ, PURE_VARIABLE: "1"})
    if pure.returncode != 0:
        wrong.append(f"the sources could not play the check games: {pure.stderr[-2000:]}")
    elif pure.stdout.strip() != fingerprint():
        wrong.append("the compiled build plays other games than the sources")
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pacman.fastbuild",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("build", "clean", "status", "check"),
                        help="build: compile in place; clean: remove the build; status: "
                        "what runs; check: compare the build with the sources")
    command = parser.parse_args(argv).command
    if command == "build":
        try:
            build()
        except BuildError as exc:
            print(f"pacman.fastbuild: {exc}", file=sys.stderr)
            return 2 if isinstance(exc, MissingTool) else 1
        print(f"compiled {len(MODULES)} modules in {PACKAGE}; they play the same games as "
              "the sources (`make clean-fast` removes them)")
        return 0
    if command == "clean":
        gone = clean()
        print(f"removed {len(gone)} files of the compiled build" if gone
              else "no compiled build to remove")
        return 0
    if command == "status":
        compiled = running()
        for module, on in compiled.items():
            print(f"{module:28} {'compiled' if on else 'Python source'}")
        if compiled_files() and not all(compiled.values()):
            print("(a build is there but not used: "
                  + (f"{PURE_VARIABLE} is set" if pure_asked() else problem()) + ")")
        return 0
    wrong = self_check()
    for line in wrong:
        print(line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
