"""What each zoo agent does to its game, whichever side it plays: the one list of the zoo's
expected outcomes that `tests/test_sandbox_ghosts.py` plays on the ghost side (the Pacman
side's tests in `tests/test_sandbox_zoo.py` check more about each case).

`outcome` is the failure it must end in (its culprit on the side it plays) or `plays` (the
game goes on as an ordinary one); every one of `words` is in the message, and one of
`one_of` when given. Options are the agent's, `{outside}` and `{other}` standing for the
arena's folder outside every team and the neighbouring team's. `limits` changes the zoo's
limits; `needs` lists sandbox layers of which one must be active.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: How a file out of reach fails: refused (Landlock, seccomp), read-only (the mounts layer's
#: read-only root), or simply not there (the mounts layer shows nothing else).
OUT_OF_REACH = ("PermissionError", "FileNotFoundError", "Read-only file system")


@dataclass(frozen=True)
class Case:
    name: str
    outcome: str
    words: tuple[str, ...] = ()
    options: dict[str, str] = field(default_factory=dict)
    one_of: tuple[str, ...] = ()
    limits: dict[str, float] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    #: Failures of the same side also acceptable, with their reason (words are not checked).
    also: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return "-".join([self.name, *self.options.values()]).replace("/", "_")[:40]


CASES = (
    Case("honest", "plays"),
    Case("syntax_error", "load_error", ("SyntaxError", "agent.py:2")),
    Case("missing_import", "load_error", ("a_module_no_team_has",)),
    Case("init_raises", "load_error", ("RuntimeError", "cannot even be built")),
    Case("borrow_baseline", "load_error", ("ModuleNotFoundError",)),
    Case("register_raises", "crash", ("registerInitialState raised KeyError",)),
    Case("move_raises", "crash", ("getAction raised ValueError", "lost my way"),
         {"after": "3"}),
    Case("returns_none", "illegal_action", ("None",)),
    Case("returns_illegal", "illegal_action", ("legal:",)),
    Case("infinite_loop", "timeout", ("took more than 1.500s; killed",),
         limits={"move_hard": 1.5}),
    Case("slow_import", "timeout", ("start-up took more than 1.000s",), limits={"startup": 1}),
    Case("memory_blowup", "memory", needs=("rlimits", "cgroup")),
    Case("os_exit", "crash", ("exited with status 3",)),
    Case("segfault", "crash", ("SIGSEGV",)),
    Case("forge_outcome", "crash", ("broke the sandbox protocol",), {"kind": "timeout"}),
    Case("forge_answer", "crash"),
    Case("flood_answers", "crash", ("broke the sandbox protocol",),
         also={"illegal_action": "its forged 'Stop', read alone before the flood arrives, is "
                                 "taken as its answer: legal for Pacman, illegal for a ghost"}),
    Case("fork_bomb", "crash", needs=("seccomp", "cgroup")),
    Case("write_outside", "crash", options={"target": "{outside}/written"}, one_of=OUT_OF_REACH,
         needs=("landlock", "mounts")),
    Case("read_other_team", "crash", options={"target": "{other}/secret.txt"},
         one_of=OUT_OF_REACH, needs=("landlock", "mounts")),
    Case("chmod_outside", "crash", options={"target": "{outside}/organizer.txt"},
         one_of=OUT_OF_REACH, needs=("landlock", "mounts")),
    Case("stat_host", "crash", ("FileNotFoundError", "/etc/shadow"), needs=("mounts",)),
    Case("inotify_watch", "crash", ("Operation not permitted",), needs=("seccomp",)),
    Case("os_system", "plays", options={"target": "{outside}/pwned"}, needs=("seccomp",)),
    Case("mutate_state", "plays"),
    Case("monkeypatch_engine", "plays"),
    Case("kill_parent", "plays", needs=("namespaces",)),
    Case("print_megabytes", "plays"),
    Case("flood_descriptor", "plays"),
    Case("read_environment", "plays"),
)
