"""How the tests start the platform's commands: as a user's shell does, through the console
scripts `pip install` wrote (`tournament`, `pacman`), run by this interpreter.

Not `python -m tournament`: CPython's module mode turns exit status 130 into death by SIGINT
whenever a KeyboardInterrupt had once left code run by `exec()` from a string (namedtuple
and dataclass build their methods so), even though the command caught it and stopped
cleanly. A Ctrl-C or SIGTERM that lands during such a call is rare, so tests that stop a
command saw it only under load. The console scripts run in file mode, where `sys.exit(130)`
is exit status 130 (tests/test_stopping.py stops a game inside an `exec` to show it)."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

#: Where `pip install` put the console scripts of this interpreter's environment.
SCRIPTS = Path(sysconfig.get_path("scripts"))


def command(name: str) -> list[str]:
    """The argv that starts the console script `name` with this interpreter (so options such
    as `-X faulthandler` can go between them). The package must be installed in this
    interpreter's environment (`make setup` does it), or the tests stop here saying so."""
    script = SCRIPTS / name
    if not script.is_file():
        raise RuntimeError(f"no {name} command at {script}: install the package in this "
                           "environment first (`make setup`, or pip install -e .)")
    return [sys.executable, str(script)]


TOURNAMENT = command("tournament")
PACMAN = command("pacman")
