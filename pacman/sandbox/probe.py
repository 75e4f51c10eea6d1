"""An agent that tries, from inside a sandbox, what a hostile one would, for `sandbox-check`.

One probe (or more) per class of attack. Each prints one JSON line `{"probe": name, "class":
class, "blocked": bool, "detail": text}`; the check reads them back from the agent's log and,
where it can, judges from outside too (a file's mode bits, a secret in the log). Only harmless
attempts: a file written is removed, a connection goes to a closed port, a forked child exits
at once, the files it tries to change are the check's own, and filling the scratch space
stops at a little more than its cap.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable

#: Errors that mean "could not": refused, not there, read-only.
REFUSED = (PermissionError, FileNotFoundError, NotADirectoryError)


def _report(cls: str, name: str, blocked: bool, detail: str) -> None:
    print(json.dumps({"probe": name, "class": cls, "blocked": blocked,
                      "detail": detail[:120]}), flush=True)


def _attempt(cls: str, name: str, action: Callable[[], str],
             refused: tuple[type[BaseException], ...] = REFUSED) -> None:
    try:
        detail = action()
    except refused as exc:
        _report(cls, name, True, f"{type(exc).__name__}: {exc}")
    except OSError as exc:
        blocked = exc.errno in (errno.EPERM, errno.EACCES, errno.EROFS, errno.ENOENT,
                                errno.ENOSYS)
        _report(cls, name, blocked, f"{type(exc).__name__}: {exc}")
    except Exception as exc:
        _report(cls, name, False, f"{type(exc).__name__}: {exc}")
    else:
        _report(cls, name, False, str(detail))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _call(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")
    return result


class ProbeAgent:
    def __init__(self, referee: str = "0", outside: str = "", target: str = "",
                 canary: str = "", socket: str = "", scratch_mb: str = "64") -> None:
        self.referee = int(referee)
        self.outside = outside or "/etc/passwd"
        self.target = target
        self.socket = socket
        self.canary = canary
        self.scratch_mb = int(scratch_mb)

    def registerInitialState(self, state: object) -> None:
        self._files_and_processes()
        self._platform_code()
        self._metadata()
        self._environment()
        self._process_text()
        self._channels()
        self._resources()

    def getAction(self, state: object) -> str:
        return "Stop"

    # --- classic escapes ------------------------------------------------------------------

    def _files_and_processes(self) -> None:
        def network() -> str:
            try:
                with socket.create_connection(("127.0.0.1", 9), timeout=0.5):
                    return "connected"
            except ConnectionRefusedError:
                return "reached loopback (connection refused)"

        def read_outside() -> str:
            with open(self.outside, "rb") as fh:
                return f"read {len(fh.read(64))} bytes of {self.outside}"

        def write_outside() -> str:
            path = f"/tmp/pacman-sandbox-probe-{os.getpid()}"
            with open(path, "w") as fh:
                fh.write("x")
            os.unlink(path)
            return f"wrote {path}"

        def run_program() -> str:
            return f"ran /bin/true: status {subprocess.run(['/bin/true']).returncode}"

        def fork() -> str:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
            return "forked a process"

        def signal_referee() -> str:
            os.kill(self.referee, 0)
            return f"could signal the referee (pid {self.referee})"

        _attempt("escape", "network", network)
        _attempt("escape", "read outside its folders", read_outside)
        _attempt("escape", "write outside its folder", write_outside)
        _attempt("escape", "run a program", run_program)
        _attempt("escape", "start a process", fork)
        _attempt("escape", "signal the referee", signal_referee,
                 (ProcessLookupError, PermissionError))

    # --- 1. host metadata -----------------------------------------------------------------

    def _platform_code(self) -> None:
        def look() -> str:
            # The engine's view is an allow list of its sources: any other file there (the
            # compiled build, whose library holds the baselines' compiled code, a cache) or
            # a source of the baselines, search or game code is the platform's code in reach.
            import pacman

            engine = os.path.dirname(os.path.abspath(str(pacman.__file__)))
            found = []
            for folder, _, files in os.walk(engine):
                for name in files:
                    where = os.path.relpath(os.path.join(folder, name), engine)
                    top = where.split(os.sep)[0]
                    baseline = top == "agents" and name not in ("__init__.py", "base.py")
                    if not name.endswith(".py") or top in ("search", "games") or baseline:
                        found.append(where)
            # Another install of the platform (a wheel left in the environment, the system's
            # Python, the base interpreter a virtual environment was made from) shows nothing
            # at all.
            import site

            for place in (*sys.path, *site.getsitepackages([sys.base_prefix,
                                                           sys.base_exec_prefix])):
                other = os.path.join(place or ".", "pacman")
                if os.path.realpath(other) != os.path.realpath(engine) and os.path.isfile(
                        os.path.join(other, "sandbox", "process.py")):
                    found.append(other)
            if not found:
                raise PermissionError("nothing of the platform's compiled or own code in view")
            return f"in view: {', '.join(sorted(found)[:4])}"

        _attempt("own code", "reach the platform's compiled or baseline code", look)

    def _metadata(self) -> None:
        target = self.target or __file__

        def chmod() -> str:
            os.chmod(target, 0o6777)
            return f"changed the mode of {target}"

        def utime() -> str:
            os.utime(target, (0, 0))
            return f"changed the times of {target}"

        def xattr() -> str:
            os.setxattr(target, "user.pacman", b"x")
            return f"set an extended attribute on {target}"

        def chmod_own() -> str:
            os.chmod(__file__, 0o777)
            return f"changed the mode of its own team file {__file__}"

        _attempt("metadata", "chmod a file outside", chmod)
        _attempt("metadata", "set times of a file outside", utime)
        _attempt("metadata", "set an xattr outside", xattr)
        _attempt("metadata", "chmod its own team file", chmod_own)

    # --- 2. the organizer's environment -----------------------------------------------------

    def _environment(self) -> None:
        def look() -> str:
            name = (self.canary or "PACMAN_ARENA_CHECK_SECRET").encode() + b"="
            places = {"os.environ": b"\0".join(f"{k}={v}".encode()
                                                for k, v in os.environ.items())}
            try:
                with open("/proc/self/environ", "rb") as fh:
                    places["/proc/self/environ"] = fh.read()
            except OSError:
                pass
            places["its initial stack"] = _initial_stack()
            found = []
            for place, data in places.items():
                at = data.find(name)
                if at >= 0:
                    value = data[at + len(name):].split(b"\0", 1)[0][:64]
                    found.append(f"{place}: {value.decode('ascii', 'replace')}")
            if found:
                return f"found the organizer's secret in {'; '.join(found)}"
            raise PermissionError("the organizer's environment is nowhere in its memory")

        _attempt("environment", "read the organizer's environment", look)

    # --- 3. text about its process that the referee reads ---------------------------------

    def _process_text(self) -> None:
        def rename() -> str:
            name = ctypes.create_string_buffer(b"\xff\xfe) 9 9 (\xc3")
            _call(_libc().prctl(15, name, 0, 0, 0), "prctl(PR_SET_NAME)")
            return "named its thread with invalid UTF-8 (the referee must cope)"

        _attempt("process text", "an unreadable thread name", rename)

    # --- 4. channels ------------------------------------------------------------------------

    def _channels(self) -> None:
        def pair() -> str:
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            with a, b:
                if self.socket:
                    a.sendto(b"pacman-probe", self.socket)
                    return f"sent a datagram to {self.socket} outside"
            return "made a Unix socket pair"

        def inotify() -> str:
            fd = _call(_libc().inotify_init1(0), "inotify_init1")
            os.close(fd)
            return "could watch file names with inotify"

        def stat_host() -> str:
            info = os.stat("/etc/shadow")
            return f"saw /etc/shadow ({info.st_size} bytes)"

        def host_pids() -> str:
            return f"saw {len([p for p in os.listdir('/proc') if p.isdigit()])} processes"

        def lock() -> str:
            import fcntl

            with open(__file__, "rb") as fh:
                fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return "took a lock on a shared file (a channel to other sandboxes)"

        _attempt("channels", "a Unix socket pair", pair)
        _attempt("channels", "inotify", inotify)
        _attempt("channels", "stat a host file", stat_host)
        _attempt("channels", "list host processes", host_pids)
        _attempt("channels", "a lock on a shared file", lock)

    # --- 5. resources -----------------------------------------------------------------------

    def _resources(self) -> None:
        cap = self.scratch_mb * 1024 * 1024

        def fill() -> str:
            chunk = b"\0" * (1 << 20)
            written = 0
            try:
                with open("probe-fill", "wb") as fh:
                    while written < cap + (16 << 20):
                        fh.write(chunk)
                        fh.flush()
                        written += len(chunk)
            except OSError as exc:
                if exc.errno in (errno.ENOSPC, errno.EFBIG):
                    raise PermissionError(f"stopped at {written >> 20} MiB "
                                          f"({os.strerror(exc.errno)})") from exc
                raise
            finally:
                if os.path.exists("probe-fill"):
                    os.unlink("probe-fill")
            return f"wrote {written >> 20} MiB to its scratch without being stopped"

        def files() -> str:
            made = 0
            try:
                os.mkdir("probe-files")
                while made < self.scratch_mb * 64 + 100:
                    with open(f"probe-files/{made}", "wb"):
                        made += 1
            except OSError as exc:
                if exc.errno == errno.ENOSPC:
                    raise PermissionError(f"stopped at {made} files") from exc
                raise
            finally:
                for i in range(made):
                    os.unlink(f"probe-files/{i}")
                if os.path.isdir("probe-files"):
                    os.rmdir("probe-files")
            return f"made {made} files in its scratch without being stopped"

        def memfd() -> str:
            fd = os.memfd_create("hoard")
            os.close(fd)
            return "made an anonymous memory file (memory outside its address space limit)"

        _attempt("resources", "fill its scratch space", fill)
        _attempt("resources", "fill its scratch with files", files)
        _attempt("resources", "memfd_create", memfd)


def _initial_stack() -> bytes:
    """The top of the process's stack, where the kernel put its environment strings.

    Read by writing it to a scratch file, which fails cleanly (EFAULT) past the mapping where
    reading it directly would crash.
    """
    libc = _libc()
    try:
        start = ctypes.c_void_p.in_dll(libc, "__libc_stack_end").value or 0
    except ValueError:
        return b""
    out = bytearray()
    fd = os.open("probe-stack", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        address = start
        for _ in range(64):  # at most 256 KiB
            done = libc.write(fd, ctypes.c_void_p(address), 4096)
            if done > 0:
                out += ctypes.string_at(address, done)
            if done != 4096:
                break
            address += 4096
    finally:
        os.close(fd)
        os.unlink("probe-stack")
    return bytes(out)
