"""Sandbox uid slots are held machine-wide (`pacman.sandbox.slots`)."""

from __future__ import annotations

import subprocess
import sys

from pacman.sandbox import slots


def test_a_held_slot_is_nobody_elses_until_released() -> None:
    first = slots.take()
    second = slots.take(first.number)
    assert second.number != first.number
    # Another process sees it held too (the point: Dask workers, pools, a second run).
    code = ("from pacman.sandbox import slots; import sys; "
            f"print(slots.take({first.number}).number)")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert int(other.stdout) not in (first.number, second.number)
    first.release()
    first.release()  # idempotent
    again = slots.take(first.number)
    assert again.number == first.number
    again.release()
    second.release()


def test_a_process_that_dies_frees_its_slot() -> None:
    code = ("from pacman.sandbox import slots; import os, sys; s = slots.take(); "
            "print(s.number, flush=True); sys.stdin.read(); os._exit(9)")
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdin is not None
    number = int(holder.stdout.readline())
    probe = slots.take(number)
    assert probe.number != number  # held by the other process
    probe.release()
    holder.kill()
    holder.wait()
    freed = slots.take(number)
    assert freed.number == number
    freed.release()
