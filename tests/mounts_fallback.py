"""Run by `tests/test_sandbox_guarantees.py` in a process of its own (it leaves its mount
namespace changed): builds an agent's view with `mounts.enter` as on a kernel without
mount_setattr (before Linux 5.12), then prints, as JSON, what of the engine's folder it sees
and what it could write."""

import ctypes
import errno
import json
import os
import tempfile

from pacman.sandbox import mounts, process

CLONE_NEWNS = 0x00020000


class OldKernel:
    """libc with mount_setattr missing, as the kernel before 5.12 has it."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib

    def __getattr__(self, name: str) -> object:
        return getattr(self._lib, name)

    def syscall(self, number: int, *args: object) -> int:
        if number == mounts._MOUNT_SETATTR:
            ctypes.set_errno(errno.ENOSYS)
            return -1
        return int(self._lib.syscall(number, *args))


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        print(json.dumps({"skip": os.strerror(ctypes.get_errno())}))
        return
    real = mounts._libc
    mounts._libc = lambda: OldKernel(real())  # type: ignore[assignment,return-value]
    root, scratch = tempfile.mkdtemp(), tempfile.mkdtemp()
    read = tuple(sorted({*process.interpreter_paths(), str(process.PACKAGE_DIR)}))
    view = mounts.View(root=root, read_paths=read + process.SYSTEM_READ_PATHS,
                       scratch=scratch, scratch_bytes=1 << 20, scratch_files=64,
                       hidden=((str(process.PACKAGE_DIR), process.engine_view()),))
    mounts.enter(view)
    engine = str(process.PACKAGE_DIR)
    seen, writable = [], []
    for folder, _, files in os.walk(engine):
        for name in files:
            path = os.path.join(folder, name)
            seen.append(os.path.relpath(path, engine))
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
                writable.append(path)
            except OSError as exc:
                if exc.errno != errno.EROFS:
                    writable.append(f"{path}: {exc}")
        try:
            os.close(os.open(os.path.join(folder, "new.py"), os.O_WRONLY | os.O_CREAT, 0o644))
            writable.append(folder)
        except OSError as exc:
            if exc.errno != errno.EROFS:
                writable.append(f"{folder}: {exc}")
    print(json.dumps({"seen": sorted(seen), "writable": writable}))


if __name__ == "__main__":
    main()
