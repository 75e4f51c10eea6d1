"""`-t`: the board printed to the terminal after every round."""

from __future__ import annotations

import time

from pacman.state import GameState


class TextDisplay:
    def __init__(self, frame_time: float = 0.0) -> None:
        self.frame_time = frame_time

    def initialize(self, state: GameState) -> None:
        print(state)

    def update(self, state: GameState, moved: int, action: str) -> None:
        if moved == state.getNumAgents() - 1 or state.isWin() or state.isLose():
            print(state)
            if self.frame_time:
                time.sleep(self.frame_time)

    def finish(self, state: GameState, outcome: str) -> None:
        print(f"Game over: {outcome}")
