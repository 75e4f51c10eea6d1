"""What the sandbox guarantees an organizer, and which layers each guarantee rests on.

Pure: from the set of active layers (what a sandbox reported about itself, see
`pacman sandbox-check`) to the guarantees that hold. A guarantee holds when every one of its
requirements is met; a requirement is met by any one of its alternative layers. The README's
table of what is lost when a layer is missing is this table in words, and `tournament run`
refuses to run teams' code when one does not hold, unless the organizer accepted it.

Some protections need no layer and always hold: the referee measures every time limit and
kills at the hard one; the agent sees only a copy of the state and answers in checked JSON; the
sandbox's processes start with an environment of their own, never the organizer's; and what
the referee reads about an agent's process is treated as hostile bytes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Guarantee:
    name: str
    promise: str
    #: Every entry must be met; an entry is met by any one of its layers.
    needs: tuple[tuple[str, ...], ...]


GUARANTEES: tuple[Guarantee, ...] = (
    Guarantee("network", "no network, not even loopback", (("namespaces", "seccomp"),)),
    Guarantee("processes", "no other process is seen, signalled or traced",
              (("namespaces", "seccomp"), ("namespaces", "mounts", "landlock"))),
    Guarantee("files", "no host file outside the interpreter, the engine and its own folder "
              "is read; nothing outside its scratch is written",
              (("mounts", "landlock"),)),
    Guarantee("metadata", "no mode, owner, time or extended attribute of a host file changes",
              (("mounts", "seccomp"),)),
    Guarantee("channels", "no channel to another sandbox or the host (sockets, shared "
              "files, inotify, locks, IPC)",
              (("seccomp",), ("mounts", "landlock"))),
    Guarantee("memory", "memory is bounded, shared and file-backed memory included",
              (("rlimits",), ("cgroup", "seccomp"))),
    Guarantee("scratch", "its scratch space is its own and capped, never the host's disk",
              (("mounts",),)),
    Guarantee("own_code", "what plays is the team's own source, seen as hashed: the "
              "platform's baselines and the team's compiled files are out of its view, and its "
              "folder shows nothing but its files' names and bytes", (("mounts",),)),
    Guarantee("cpu_share", "its threads get one CPU's worth of time per 20 ms, whatever "
              "their number",
              (("cpu share",),)),
    Guarantee("processes_bounded", "it cannot fork, or only up to a process count",
              (("seccomp", "cgroup"),)),
    Guarantee("cleanup", "every process it started dies with its game",
              (("namespaces", "cgroup"),)),
)
NAMES = tuple(g.name for g in GUARANTEES)


def held(active: set[str] | list[str] | tuple[str, ...]) -> dict[str, bool]:
    """Which guarantees hold with these layers active ('cpu share' is the cgroup's CPU
    controller, reported as its own item)."""
    on = set(active)
    return {g.name: all(any(layer in on for layer in need) for need in g.needs)
            for g in GUARANTEES}


def missing(active: set[str] | list[str] | tuple[str, ...]) -> list[Guarantee]:
    verdicts = held(active)
    return [g for g in GUARANTEES if not verdicts[g.name]]


def requirement_text(guarantee: Guarantee) -> str:
    """`mounts or landlock, and seccomp` for a guarantee's needs."""
    return ", and ".join(" or ".join(need) for need in guarantee.needs)


def lost(expected: set[str] | list[str] | tuple[str, ...],
         found: set[str] | list[str] | tuple[str, ...]) -> list[Guarantee]:
    """Guarantees the `expected` layers give that the `found` ones (one game's sandbox) do
    not: a layer missing without loss (the uid, for a team folder others cannot read) is
    no reason to doubt a game."""
    had = held(expected)
    has = held(found)
    return [g for g in GUARANTEES if had[g.name] and not has[g.name]]
