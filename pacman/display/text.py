"""`-t`: the board printed to the terminal after every round."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from pacman.state import GameState


class TextDisplay:
    """Prints on `out` (the `pacman` command gives its own stdout, which agents' prints never
    reach), or on whatever `sys.stdout` is when it prints."""

    def __init__(self, frame_time: float = 0.0, out: TextIO | None = None) -> None:
        self.frame_time = frame_time
        self.out = out

    def name_agents(self, names: Sequence[str]) -> None:
        pass

    def while_thinking(self) -> Callable[[], None] | None:
        return None

    def _print(self, text: object) -> None:
        print(text, file=self.out or sys.stdout)

    def initialize(self, state: GameState) -> None:
        self._print(state)

    def update(self, state: GameState, moved: int, action: str) -> None:
        if moved == state.getNumAgents() - 1 or state.isWin() or state.isLose():
            self._print(state)
            if self.frame_time:
                time.sleep(self.frame_time)

    def finish(self, state: GameState, outcome: str) -> None:
        self._print(f"Game over: {outcome}")
