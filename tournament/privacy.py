"""What a published report may say: text with the organizer's paths and machine taken out.

A report folder is copied to a public web host, so nothing in it may name the organizer's
folders (their home, the submissions folder, the output folder, the Python installation, the
platform's own checkout) or their machine. Such names reach the report through text the
platform stored: failure messages and tracebacks name the team's file as the organizer sees
it (`/home/me/course/submissions/alpha/multiAgents.py`), and the agents' logs hold whatever
the agents printed, paths included. A `Redactor` rewrites every known prefix to a name a
reader understands (`alpha/multiAgents.py`, `<output>`, `<python>`), longest first so that a
team folder inside the home folder is named as the team.

Some folders are the platform's own and move with the machine that played: a sandbox's
scratch folder (`$TMPDIR/pacman-agent0-<pid>-<random>`, the agent's working folder and home)
and a snapshot of a team in a cache
(`.../pacman-arena-run-<pid>-<pid namespace>-<random>/<digest>/alpha`,
`pacman-arena-teams-<uid>/...`, a Dask worker's local folder). A run whose TMPDIR is not the
report's, or whose games were played on other machines, names folders no prefix here knows,
so these are recognised by their own names wherever they are (`SANDBOX_PATH`, `SNAPSHOT_PATH`).

It cannot know every path a team's code prints (a team may print `/etc/passwd`; that names
nothing of the organizer's), so the report's privacy test looks for the organizer's own
prefixes, which this class replaces, in every file of the published folder.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pacman
from pacman.sandbox.process import SCRATCH_PREFIX
from tournament.bundles import RUN_PREFIX, TEAMS_FOLDER
from tournament.config import TournamentConfig

#: Host names shorter than this are left alone: `pc` or `a1` would match ordinary words (and
#: say little about the machine).
MIN_HOST_NAME = 3

#: The absolute folders before a platform folder's own name (a worker's, any TMPDIR).
_PARENTS = r"(?:/[\w.@+~-]+)*/"
#: A sandbox's scratch folder, on whatever machine played (`pacman.sandbox.process`).
SANDBOX_PATH = re.compile(_PARENTS + re.escape(SCRATCH_PREFIX) + r"\d+-\d+-?[\w-]*")
#: A team's snapshot in a team cache, on whatever machine played (`tournament.bundles`):
#: the team's folder name is kept (`alpha/multiAgents.py`, as for a team's own folder).
SNAPSHOT_PATH = re.compile(
    _PARENTS + rf"(?:{re.escape(RUN_PREFIX)}\d+-[\w-]+|{re.escape(TEAMS_FOLDER)}(?:-\d+)?)"
    r"/[0-9a-f]{64}/")


class Redactor:
    """Rewrites the organizer's path prefixes and host name in text meant for the public.

    `prefixes` maps a folder to what replaces it; both the path as given and its resolved
    form (a home folder reached through a symbolic link) are replaced.
    """

    def __init__(self, prefixes: Iterable[tuple[Path, str]], hosts: Iterable[str] = ()) -> None:
        pairs: dict[str, str] = {}
        for folder, name in prefixes:
            for form in {str(folder), os.path.realpath(folder)}:
                form = form.rstrip("/")
                if len(form) > 1:  # never the root folder itself
                    pairs.setdefault(form, name)
        #: Longest first: a team's folder inside the home folder is named as the team.
        self.pairs = sorted(pairs.items(), key=lambda item: len(item[0]), reverse=True)
        names = sorted({h for h in hosts if len(h) >= MIN_HOST_NAME}, key=len, reverse=True)
        self._hosts = (re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, names))
                                  + r")(?![\w-])") if names else None)

    @classmethod
    def for_config(cls, config: TournamentConfig, config_file: Path | None = None) -> Redactor:
        """The organizer's folders a tournament's text may name: each team's folder (as the
        team's name), the output folder, the config's folder, the platform's checkout, the
        Python installation, the temporary folder and the home folder."""
        prefixes: list[tuple[Path, str]] = [
            (entrant.folder, entrant.name) for entrant in config.all_entrants
            if entrant.folder is not None
        ]
        prefixes.append((config.output, "<output>"))
        if config_file is not None:
            prefixes.append((config_file.resolve().parent, "<config folder>"))
        prefixes += [
            (Path(pacman.__file__).resolve().parent.parent, "<pacman-arena>"),
            (Path(sys.prefix), "<python>"),
            (Path(sys.base_prefix), "<python>"),
            (Path(tempfile.gettempdir()), "<tmp>"),
            (Path.home(), "~"),
        ]
        hosts = {socket.gethostname(), socket.getfqdn()}
        return cls(prefixes, hosts)

    def __call__(self, text: str) -> str:
        if "pacman-a" in text:
            text = SNAPSHOT_PATH.sub("", text)
            text = SANDBOX_PATH.sub("<sandbox>", text)
        for prefix, name in self.pairs:
            if prefix in text:
                text = _replace_prefix(text, prefix, name)
        if self._hosts is not None:
            text = self._hosts.sub("<host>", text)
        return text


def _replace_prefix(text: str, prefix: str, name: str) -> str:
    """`prefix` as a whole path component run: `/home/me` in `/home/me/x` and `/home/me`, but
    not in `/home/meg`."""
    pattern = re.escape(prefix) + r"(?=/|\\|$|[^\w.-])"
    return re.sub(pattern, lambda _: name, text)
