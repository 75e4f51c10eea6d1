"""Progress lines off a terminal (`tournament.progress`)."""

from __future__ import annotations

import threading

from tournament.progress import EVERY, ProgressLines, due, line


def test_a_line_every_tenth_of_the_games_and_at_least_every_interval() -> None:
    assert not due(0, 240, 0, 0.0)
    assert not due(23, 240, 0, 1.0) and due(24, 240, 0, 1.0) and not due(25, 240, 24, 1.0)
    assert due(240, 240, 239, 0.0)  # the last game
    assert due(5, 240, 5, EVERY)  # nothing finished, but it has been long enough
    assert due(1, 3, 0, 0.0) and due(2, 3, 1, 0.0)  # few games: every game
    text = line(120, 240, 3, 60.0)
    assert text == "progress: 120/240 games (50%), 2.00 games/s, 1m00s left, 3 failures, " \
                   "1m00s so far"
    assert "no game finished yet" in line(0, 10, 0, 5.0)


def test_the_ticker_speaks_when_no_game_finishes() -> None:
    now = [0.0]
    said: list[str] = []
    spoke = threading.Event()

    def say(text: str) -> None:
        said.append(text)
        spoke.set()

    with ProgressLines(60_000, say, clock=lambda: now[0]):
        now[0] = EVERY + 1  # a long game: nothing finished for longer than EVERY
        assert spoke.wait(30), "no line from the ticker"
    assert said[0].startswith("progress: 0/60000 games (0%), no game finished yet")
