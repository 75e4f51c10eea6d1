"""Modules that course agent files import by generic names (`game`, `util`).

They are not put on the import path: `install()` registers them in `sys.modules` under those
names only when the loader loads a course-style agent file, so nobody else's `import util`
finds ours by accident.
"""

from __future__ import annotations

import sys
from types import ModuleType

from pacman.compat import game, util

ALIASES: dict[str, ModuleType] = {"game": game, "util": util}


def install() -> None:
    """Make `import game` and `import util` resolve to the course-compatible modules."""
    # A student folder often holds copies of the course's own game.py and util.py; the
    # entries here win over them because sys.modules is consulted before sys.path.
    sys.modules.update(ALIASES)
