"""Keys held down in the window, read by KeyboardAgent without importing pygame.

The pygame display publishes the held keys here (as names: 'Left', 'Right', 'Up', 'Down',
'w', 'a', 's', 'd', 'q', ...); the keyboard agent reads them. Without a window nothing is held.
"""

from __future__ import annotations

_held: frozenset[str] = frozenset()
_pressed_since_read: set[str] = set()


def publish(held: frozenset[str], newly_pressed: set[str]) -> None:
    """Called by a display after it has processed its events."""
    global _held
    _held = held
    _pressed_since_read.update(newly_pressed)


def take() -> set[str]:
    """Keys held now plus keys tapped since the last call (so a quick tap is not lost)."""
    keys = set(_held) | _pressed_since_read
    _pressed_since_read.clear()
    return keys


def reset() -> None:
    global _held
    _held = frozenset()
    _pressed_since_read.clear()
