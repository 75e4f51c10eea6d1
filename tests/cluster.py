"""A multi-node Dask cluster simulated on this machine, for the tests.

A tournament on a real cluster runs its games on machines that share nothing with the
organizer but the network: no team folder, no config, no output folder, no layout file of the
organizer exists there, only the installed platform. `SimulatedCluster` gives each worker such
a machine of its own without leaving this one:

- a scheduler on 127.0.0.1 (a free port, read from its scheduler file);
- each worker in namespaces of its own (`unshare`, as root): a mount namespace in which every
  `hidden` folder (the organizer's tournament folder, the repository's `submissions/`...) is
  covered by an empty read-only tmpfs, so it cannot read them nor write into them; a UTS
  namespace with a host name of its own (`node-<name>`), so a results row says which "machine"
  played it; a PID namespace with a `/proc` of its own, whose first process is the worker, so
  killing it ends every process it started (its sandboxes too), as a machine that dies would;
- its own working folder, HOME, TMPDIR and Dask `--local-directory` under `root/<name>/`;
- one thread, no nanny: killing the worker process kills the worker, nothing restarts it.

The installed platform (this repository's `pacman` and `tournament` packages, the virtualenv)
stays visible, as on a worker machine where it is installed. Waits have deadlines, never fixed
sleeps, and leaving the `with` block ends every process started, whatever raised; each process
is also killed by the kernel if the test process itself dies (`PR_SET_PDEATHSIG`).

    with SimulatedCluster(root, hidden=[organizer, REPO / "submissions"]) as cluster:
        cluster.add_worker("a")
        cluster.add_worker("b")
        ...  # `scheduler: {cluster.address}` in a config, or cluster.client.run(...)
        cluster.kill_worker("a")
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

#: Seconds to wait for the scheduler to listen, for a worker to connect or to be gone.
DEADLINE = 120.0
_PR_SET_PDEATHSIG = 1


def unavailable() -> str:
    """Why workers cannot be simulated here, or '' (the tests skip with it)."""
    if os.geteuid() != 0:
        return "simulated nodes need root (mount, UTS and PID namespaces)"
    for tool in ("unshare", "mount", "hostname"):
        if shutil.which(tool) is None:
            return f"simulated nodes need the {tool} command"
    try:
        import distributed  # noqa: F401
    except ImportError:
        return "dask.distributed is not installed"
    probe = subprocess.run(["unshare", "--mount", "--uts", "--pid", "--fork", "--mount-proc",
                            "--propagation", "private", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"unshare cannot make namespaces here: {probe.stderr.strip()}"
    return ""


def _die_with_parent() -> None:
    """In the child before exec: the kernel kills it when the test process dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


@dataclass
class Node:
    """A simulated machine: its folder, its worker process and where it logs."""

    name: str
    folder: Path
    #: `unshare`, whose death kills the worker.
    process: subprocess.Popen[bytes]
    #: The worker's own process id (as this machine sees it; 1 in its PID namespace).
    pid: int = 0

    @property
    def host(self) -> str:
        """Its host name (`socket.gethostname()` on it)."""
        return host_name(self.name)

    @property
    def log(self) -> Path:
        return self.folder / "worker.log"


class SimulatedCluster:
    """A scheduler and workers on this machine, each worker as if on another one.

    `root` holds the scheduler's and each node's folder; it must not be under a `hidden`
    folder. Hidden folders that do not exist are left alone (there is nothing to see).
    """

    def __init__(self, root: Path, hidden: Iterable[Path], deadline: float = DEADLINE) -> None:
        self.root = root.resolve()
        self.hidden = [Path(h).resolve() for h in hidden]
        for folder in self.hidden:
            if self.root == folder or folder in self.root.parents:
                raise ValueError(f"the nodes' folder {self.root} is inside the hidden {folder}")
        self.deadline = deadline
        self.nodes: dict[str, Node] = {}
        #: The scheduler's process, once started.
        self.scheduler: subprocess.Popen[bytes] | None = None
        self._client: Any = None
        self.address = ""

    # --- life cycle ----------------------------------------------------------------------

    def __enter__(self) -> SimulatedCluster:
        try:
            self._start_scheduler()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """End every process started here (workers first), whatever state they are in."""
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close(timeout=10)
            self._client = None
        processes = [node.process for node in self.nodes.values()]
        if self.scheduler is not None:
            processes.append(self.scheduler)
        problems = []
        for process in processes:
            try:
                _kill(process)
            except Exception as exc:  # the others still have to go
                problems.append(exc)
        if problems:
            raise problems[0]

    def _start_scheduler(self) -> None:
        folder = self.root / "scheduler"
        folder.mkdir(parents=True, exist_ok=True)
        info = folder / "scheduler.json"
        info.unlink(missing_ok=True)  # an earlier scheduler's address is no address
        with open(folder / "scheduler.log", "wb") as log:
            self.scheduler = subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                 "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
                cwd=folder, stdout=log, stderr=subprocess.STDOUT, env=_environment(folder),
                preexec_fn=_die_with_parent)
        end = time.monotonic() + self.deadline
        while not self.address:
            if self.scheduler.poll() is not None:
                raise RuntimeError(f"the scheduler exited ({self.scheduler.returncode}): "
                                   f"{_tail(folder / 'scheduler.log')}")
            if time.monotonic() > end:
                raise TimeoutError(f"no scheduler file after {self.deadline:.0f} s: "
                                   f"{_tail(folder / 'scheduler.log')}")
            with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
                self.address = json.loads(info.read_text())["address"]
            if not self.address:
                time.sleep(0.05)

    @property
    def client(self) -> Any:
        """A client of the scheduler in this (the organizer's) process, made on first use."""
        if self._client is None:
            from distributed import Client

            self._client = Client(self.address, timeout=self.deadline)
        return self._client

    # --- workers -------------------------------------------------------------------------

    def add_worker(self, name: str) -> Node:
        """Start a worker on a machine of its own and return once the scheduler has it."""
        if name in self.nodes and self.nodes[name].process.poll() is None:
            raise ValueError(f"worker {name!r} is already running")
        folder = self.root / name
        for sub in ("home", "tmp", "dask"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        with open(folder / "worker.log", "ab") as log:
            process = subprocess.Popen(
                self.worker_command(name, folder), cwd=folder, stdout=log,
                stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
                env={**_environment(folder), "HOME": str(folder / "home"),
                     "TMPDIR": str(folder / "tmp")})
        node = self.nodes[name] = Node(name, folder, process)
        self._wait_for(node)
        node.pid, = _children(process.pid)
        return node

    def worker_command(self, name: str, folder: Path) -> list[str]:
        """`unshare` into the node's namespaces, hide the organizer's folders, then exec the
        worker (which becomes the first process of its PID namespace)."""
        steps = ["set -e"]
        for hidden in self.hidden:
            if hidden.is_dir():
                steps.append("mount -t tmpfs -o ro,mode=0555,size=16k,nosuid,nodev "
                             f"hidden {shlex.quote(str(hidden))}")
        steps.append(f"hostname {shlex.quote(host_name(name))}")
        steps.append("exec " + shlex.join([
            sys.executable, "-m", "distributed.cli.dask_worker", self.address,
            "--name", name, "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1",
            "--no-dashboard", "--local-directory", str(folder / "dask"),
            "--death-timeout", str(int(self.deadline))]))
        return ["unshare", "--mount", "--uts", "--pid", "--fork", "--kill-child",
                "--mount-proc", "--propagation", "private", "sh", "-c", "\n".join(steps)]

    def kill_worker(self, name: str) -> None:
        """SIGKILL a worker, as a machine that dies, and return once the scheduler knows."""
        node = self.nodes[name]
        _kill(node.process)
        end = time.monotonic() + self.deadline
        while name in self.worker_names():
            if time.monotonic() > end:
                raise TimeoutError(f"the scheduler still lists worker {name!r} "
                                   f"{self.deadline:.0f} s after it was killed")
            time.sleep(0.05)

    def worker_names(self) -> set[str]:
        """The names of the workers the scheduler has now."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        return {str(w["name"]) for w in workers.values()}

    def worker_address(self, name: str) -> str:
        """The address of worker `name` (for `client.run(..., workers=[...])`)."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        return next(a for a, w in workers.items() if str(w["name"]) == name)

    def _wait_for(self, node: Node) -> None:
        """Wait until `node`'s worker has connected, or say why it did not."""
        live = sum(1 for n in self.nodes.values() if n.process.poll() is None)
        end = time.monotonic() + self.deadline
        while True:
            with contextlib.suppress(TimeoutError):
                self.client.wait_for_workers(live, timeout=min(2.0, self.deadline))
                if node.name in self.worker_names():
                    return
            if node.process.poll() is not None:
                raise RuntimeError(f"worker {node.name!r} exited ({node.process.returncode}): "
                                   f"{_tail(node.log)}")
            if time.monotonic() > end:
                raise TimeoutError(f"worker {node.name!r} did not connect within "
                                   f"{self.deadline:.0f} s: {_tail(node.log)}")


def host_name(name: str) -> str:
    """The host name of the node that runs worker `name`."""
    return f"node-{name}"


def _environment(folder: Path) -> dict[str, str]:
    """The test's environment, run from `folder` (no Dask or pytest settings of the test's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DASK_", "PYTEST_"))}
    return {**env, "HOME": str(folder), "PWD": str(folder)}


def _children(pid: int) -> list[int]:
    """The processes `pid` started that still run (a worker's `unshare`: the worker)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def ended(pid: int) -> bool:
    """Whether `pid` has ended (gone, or a zombie whose parent has not reaped it yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def _kill(process: subprocess.Popen[bytes], deadline: float = DEADLINE) -> None:
    """SIGKILL `process` and what it started (a worker's `unshare`: the worker, the first
    process of its PID namespace, whose death ends every process in it), and wait until
    they have ended."""
    children = _children(process.pid) if process.poll() is None else []
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGKILL)
    process.wait(timeout=deadline)
    end = time.monotonic() + deadline
    while not all(ended(pid) for pid in children):
        if time.monotonic() > end:
            raise TimeoutError(f"processes {children} outlived SIGKILL by {deadline:.0f} s")
        time.sleep(0.05)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as exc:
        return f"(no log: {exc})"

