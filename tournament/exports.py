"""The leaderboard's files: what `tournament run` and `tournament leaderboard` leave in the
output folder for people and other programs (CSV, Markdown, JSON), written through
`tournament.tables` so that text an agent controls is neutralised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tournament.config import TournamentConfig
from tournament.leaderboard import cell_table
from tournament.tables import markdown, write_csv


def write_leaderboard_files(config: TournamentConfig, results: Any, board: Any) -> list[Path]:
    """leaderboard.csv, .md and .json, cells.csv (per layout x depth) and games.csv in the
    output folder; returns the paths written, in that order."""
    out = config.output
    written = [out / name for name in ("leaderboard.csv", "leaderboard.md", "leaderboard.json",
                                       "cells.csv", "games.csv")]
    write_csv(board, written[0])
    written[1].write_text(markdown(board), encoding="utf-8")
    written[2].write_text(
        json.dumps(json.loads(board.to_json(orient="records")), indent=2), encoding="utf-8")
    write_csv(cell_table(results, config.ranking.confidence), written[3])
    write_csv(results, written[4])
    return written
