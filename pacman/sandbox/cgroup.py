"""A control group per sandboxed agent, where the machine lets the referee make one.

It caps resident memory (RLIMIT_AS alone cannot see memory a process maps lazily or shares,
nor the pages of its scratch tmpfs) and the number of processes, gives the agent one CPU's
worth of time whatever number of threads it runs (a group of its own, so a many-threaded
agent cannot starve the games beside it), tells an out-of-memory kill from other deaths, and
lists every process the agent started so that all of them can be killed when its game ends.
Both cgroup v2 (one unified tree) and v1 (`memory`, `pids` and `cpu` hierarchies) are handled;
where memory and pids cannot be had the layer is reported missing and the others still apply;
a missing CPU controller is reported as such (`cpu_problem`).
"""

from __future__ import annotations

import contextlib
import signal
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from pacman.sandbox.held import HeldProcess
from pacman.sandbox.owners import owner_tag, stale

ROOT = Path("/sys/fs/cgroup")
GROUP = "pacman-arena"
#: The agent's CPU share: QUOTA microseconds of CPU time per PERIOD, i.e. one CPU. The
#: quota is counted per period, and an agent stopped between moves starts each move with a
#: period's quota unspent: with the kernel's default 100 ms, a two-thread agent spent it in
#: 50 ms on two cores, 120 ms of CPU in a 60 ms move, taking the core of another game's
#: agent meanwhile (the twenty-second hostile review). 20 ms bounds that to a period a move
#: (79 ms in 60, 221 ms in 200), and costs a single thread nothing (1,000 ms of CPU in 1 s);
#: 10 ms cost a single thread 2 to 6% (the kernel hands quota to each CPU in 5 ms slices).
#: Measured with a spinning thread in a v1 group on 2 cores (scratch script).
PERIOD_US = 20_000
QUOTA_US = 20_000


def _write(path: Path, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def memory_room_mib(meminfo: Path = Path("/proc/meminfo"), root: Path = ROOT) -> int | None:
    """The memory the sandboxes may hold together, in MiB: the machine's (MemTotal, the
    same figure at every run, not what is free now), or less where the group the sandboxes'
    groups are made in, or the cgroup root this process sees, has a limit (v2 `memory.max`,
    v1 `memory.limit_in_bytes`). None when none of it can be read. A container's own limit
    is not visible from inside its cgroup namespace: there, the organizer sizes `workers`
    and `limits.memory_mb` to it."""
    found = []
    try:
        with open(meminfo, encoding="ascii", errors="replace") as lines:
            for line in lines:
                key, _, value = line.partition(":")
                if key == "MemTotal":
                    found.append(int(value.split()[0]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    for path in (root / GROUP / "memory.max", root / "memory.max",
                 root / "memory" / GROUP / "memory.limit_in_bytes",
                 root / "memory" / "memory.limit_in_bytes"):
        try:
            found.append(int(path.read_text().strip()))
        except (OSError, ValueError):  # absent, or `max`: no limit there
            continue
    return min(found) // (1024 * 1024) if found else None


class AgentCgroup:
    """One agent's group(s); `create` raises OSError with a readable message when impossible."""

    def __init__(self, dirs: list[Path], version: int) -> None:
        self.dirs = dirs
        self.version = version
        #: Why the agent has no CPU share of its own ('' when it has one).
        self.cpu_problem = "not set up"

    @classmethod
    def create(cls, memory_bytes: int | None, processes: int) -> AgentCgroup:
        name = f"agent-{owner_tag()}-{uuid.uuid4().hex[:8]}"
        if (ROOT / "cgroup.controllers").is_file():
            base = ROOT / GROUP
            if not base.is_dir():
                base.mkdir(exist_ok=True)
            controllers = (ROOT / "cgroup.controllers").read_text().split()
            if not {"memory", "pids"} <= set(controllers):
                raise OSError(f"cgroup v2 lacks the memory or pids controller ({controllers})")
            enabled = (base / "cgroup.subtree_control").read_text().split()
            if not {"memory", "pids"} <= set(enabled):
                with contextlib.suppress(OSError):
                    _write(ROOT / "cgroup.subtree_control", "+memory +pids")
                _write(base / "cgroup.subtree_control", "+memory +pids")
            if "cpu" in controllers and "cpu" not in enabled:
                with contextlib.suppress(OSError):
                    _write(ROOT / "cgroup.subtree_control", "+cpu")
                with contextlib.suppress(OSError):
                    _write(base / "cgroup.subtree_control", "+cpu")
            group = base / name
            group.mkdir()
            made = cls([group], 2)
            try:
                if memory_bytes is not None:
                    _write(group / "memory.max", str(memory_bytes))
                    with contextlib.suppress(OSError):
                        _write(group / "memory.swap.max", "0")
                _write(group / "pids.max", str(processes))
            except OSError:
                made.remove()
                raise
            try:
                _write(group / "cpu.max", f"{QUOTA_US} {PERIOD_US}")
                made.cpu_problem = ""
            except OSError as exc:
                made.cpu_problem = f"no cpu controller in the cgroup v2 tree ({exc.strerror})"
            return made
        memory, pids = ROOT / "memory", ROOT / "pids"
        if not (memory.is_dir() and pids.is_dir()):
            raise OSError("no cgroup v2 tree and no v1 memory and pids hierarchies")
        dirs = []
        try:
            for hierarchy in (memory, pids):
                group = hierarchy / GROUP / name
                group.mkdir(parents=True)
                dirs.append(group)
            made = cls(dirs, 1)
            if memory_bytes is not None:
                _write(dirs[0] / "memory.limit_in_bytes", str(memory_bytes))
                with contextlib.suppress(OSError):
                    _write(dirs[0] / "memory.memsw.limit_in_bytes", str(memory_bytes))
            _write(dirs[1] / "pids.max", str(processes))
        except OSError:
            cls(dirs, 1).remove()
            raise
        made.cpu_problem = made._v1_cpu(name)
        return made

    def _v1_cpu(self, name: str) -> str:
        """A group in the v1 `cpu` hierarchy with a one-CPU quota ('' when made)."""
        hierarchy = ROOT / "cpu"
        if not hierarchy.is_dir():
            hierarchy = ROOT / "cpu,cpuacct"
        if not (hierarchy / "cpu.cfs_quota_us").is_file():
            return "no cgroup v1 cpu hierarchy with a CFS quota"
        group = hierarchy / GROUP / name
        try:
            group.mkdir(parents=True)
        except OSError as exc:
            return f"cannot make a cpu group: {exc.strerror}"
        self.dirs.append(group)
        try:
            _write(group / "cpu.cfs_period_us", str(PERIOD_US))
            _write(group / "cpu.cfs_quota_us", str(QUOTA_US))
        except OSError as exc:
            return f"cannot set a CPU quota: {exc.strerror}"
        return ""

    def add(self, pid: int) -> None:
        for group in self.dirs:
            _write(group / "cgroup.procs", str(pid))

    def pids(self) -> set[int]:
        found: set[int] = set()
        for group in self.dirs:
            with contextlib.suppress(OSError):
                found |= {int(x) for x in (group / "cgroup.procs").read_text().split()}
        return found

    def _events(self) -> dict[str, int]:
        """The group's memory events (cgroup v2), {} where they cannot be read."""
        events = {}
        try:
            for line in (self.dirs[0] / "memory.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                events[key] = int(value)
        except (OSError, ValueError):
            return {}
        return events

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the group for going over the group's own
        memory limit. (cgroup v2 counts in `oom_kill` a kill by any out-of-memory killer,
        the whole machine's too; only `oom` says the group reached its limit.)"""
        try:
            if self.version == 2:
                events = self._events()
                return events.get("oom_kill", 0) > 0 and events.get("oom", 0) > 0
            # Only a kill counts: memory.failcnt also grows when the kernel merely reclaimed.
            for line in (self.dirs[0] / "memory.oom_control").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
            return False
        except (OSError, ValueError):
            return False

    def killed_from_outside(self) -> bool:
        """Whether the kernel's out-of-memory killer took a process of the group that was
        within the group's own limit (cgroup v2: a kill counted, the limit never reached):
        the machine, or a group above this one, ran out of memory. Never on cgroup v1,
        which does not tell the two apart. (Said in the agent's `killed`, which stays its
        failure: `pacman.sandbox.process`.)"""
        if self.version != 2:
            return False
        events = self._events()
        return events.get("oom_kill", 0) > 0 and events.get("oom", 0) == 0

    def kill_all(self) -> None:
        if self.version == 2:
            with contextlib.suppress(OSError):
                _write(self.dirs[0] / "cgroup.kill", "1")
        for _ in range(3):
            pids = self.pids()
            if not pids:
                return
            # Held first, then listed again: a member that ended meanwhile, its pid taken
            # by a process of the machine, is no longer listed and is never signalled.
            held = [HeldProcess(pid) for pid in pids]
            try:
                members = self.pids()
                for process in held:
                    if process.pid in members:
                        process.signal(signal.SIGKILL)
            finally:
                for process in held:
                    process.close()
            time.sleep(0.001)

    def remove(self) -> None:
        """Kill what is left and remove the group (retrying while the dead are reaped)."""
        self.kill_all()
        for group in self.dirs:
            for _ in range(200):
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)


def sweep_cgroups(alive: Callable[[int], bool]) -> None:
    """Remove the groups of referees that are gone (named `agent-<referee pid>-<its pid
    namespace>-<id>`; `pacman.sandbox.owners` judges only those of this pid namespace)."""
    bases = [ROOT / GROUP, ROOT / "memory" / GROUP, ROOT / "pids" / GROUP,
             ROOT / "cpu" / GROUP, ROOT / "cpu,cpuacct" / GROUP]
    for base in bases:
        if not base.is_dir():
            continue
        for group in base.glob("agent-*-*"):
            parts = group.name.split("-")
            namespace = parts[2] if len(parts) == 4 else None
            if stale(parts[1], namespace, alive):
                AgentCgroup([group], 2 if base == ROOT / GROUP else 1).remove()
