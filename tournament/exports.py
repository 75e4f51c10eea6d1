"""The leaderboard's files: what `tournament run` and `tournament leaderboard` leave in the
output folder for people and other programs (CSV, Markdown, JSON), written through
`tournament.tables` so that text an agent controls is neutralised.

The folder describes the current results and nothing else: a file of ours that this export
has nothing for (ratings when there are no match games, or when they could not be fitted) is
removed rather than left from an earlier export to contradict `games.csv`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tournament.config import TournamentConfig
from tournament.leaderboard import cell_table
from tournament.results import split_formats
from tournament.standings import Standings
from tournament.tables import markdown, write_csv

#: The per-entrant leaderboard of fixed-format games, then every game, then the match games'.
BOARD_FILES = ("leaderboard.csv", "leaderboard.md", "leaderboard.json", "cells.csv")
GAMES_FILE = "games.csv"
RATINGS_FILE = "ratings.csv"
CROSSTABLE_FILE = "crosstable.csv"


def write_leaderboard_files(config: TournamentConfig, results: Any, board: Any | None,
                            standings: Standings | None = None) -> list[Path]:
    """Write the output folder's tables; returns the paths written, in this order:

    - `board` (the per-entrant leaderboard of the fixed-format games, or None to write none):
      leaderboard.csv, .md and .json, and cells.csv (per layout x depth) from the
      fixed-format games of `results`;
    - games.csv: every game of `results`, match games included;
    - with `standings` (the match games'): ratings.csv (`tournament.ratings.RATING_COLUMNS`,
      when they could be fitted) and crosstable.csv (long form, one row per pairing).
    """
    out = config.output
    written: list[Path] = []
    if board is not None:
        paths = [out / name for name in BOARD_FILES]
        write_csv(board, paths[0])
        paths[1].write_text(markdown(board), encoding="utf-8")
        paths[2].write_text(
            json.dumps(json.loads(board.to_json(orient="records")), indent=2), encoding="utf-8")
        fixed, _ = split_formats(results)
        write_csv(cell_table(fixed, config.ranking.confidence), paths[3])
        written += paths
    write_csv(results, out / GAMES_FILE)
    written.append(out / GAMES_FILE)
    if standings is not None:
        if standings.ratings is not None:
            write_csv(standings.ratings, out / RATINGS_FILE)
            written.append(out / RATINGS_FILE)
        write_csv(standings.crosstable, out / CROSSTABLE_FILE)
        written.append(out / CROSSTABLE_FILE)
    for name in (*BOARD_FILES, RATINGS_FILE, CROSSTABLE_FILE):
        if out / name not in written:
            (out / name).unlink(missing_ok=True)
    return written
