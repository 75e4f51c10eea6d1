"""The results row: one game of a tournament as the store keeps it, the one home of its
columns, their types and their meaning.

The runner makes rows (`tournament.runner.make_row`), executors carry them back to the
organizer, the store writes them (its SQL schema is derived from `GameRow`), and the
leaderboard, ratings and report read them as a DataFrame whose columns are these.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from typing import Any, TypedDict

from pacman.outcomes import OUTCOMES


class GameRow(TypedDict):
    """One played (or failed) game. Column order is the store's."""

    #: `<entrant>@<cell>#<index>`, or `<pacman>~<ghost>@<cell>#<index>` for a match game.
    game_id: str
    #: The Pacman entrant.
    entrant: str
    #: The Pacman entrant's submission hash when the game was played (resume compares it).
    submission_hash: str
    cell: str
    layout: str
    #: The grid's depth given to the Pacman entrant, or None (its own default).
    depth: int | None
    #: The ghost agent's class name (a fixed-format cell's built-in; a match's ghost class).
    ghost: str
    num_ghosts: int
    ruleset: str
    seed: int
    game_index: int
    #: One of `pacman.outcomes.OUTCOMES`.
    outcome: str
    #: The failing agent's index (0 Pacman, 1.. a ghost) for a failure, else None.
    culprit: int | None
    message: str
    trace: str
    #: The tournament score (`tournament.runner.tournament_score`).
    score: int
    #: Pacman cleared the board.
    win: bool
    moves: int
    #: Pacman's wall-clock and CPU seconds per move (None when it never moved).
    wall_mean: float | None
    wall_max: float | None
    cpu_mean: float | None
    cpu_max: float | None
    warnings: int
    #: Pacman's sandbox layers, comma-separated (empty: in-process).
    sandbox: str
    host: str
    replay: str | None
    version: str
    finished_at: str
    #: The ghost entrant of a match game; empty for a fixed-format game (built-in ghosts).
    ghost_entrant: str
    #: The ghost entrant's submission hash when the game was played; empty when fixed.
    ghost_hash: str


def _sql_type(annotation: object) -> str:
    """`str` -> `TEXT NOT NULL`, `int | None` -> `INTEGER`, and so on."""
    args = typing.get_args(annotation)
    nullable = isinstance(annotation, types.UnionType) and type(None) in args
    base = next(a for a in args if a is not type(None)) if nullable else annotation
    sql = {str: "TEXT", int: "INTEGER", bool: "INTEGER", float: "REAL"}[base]  # type: ignore[index]
    return sql if nullable else f"{sql} NOT NULL"


#: (column, SQL type) in table order; `game_id` is the key.
COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (name, "TEXT PRIMARY KEY" if name == "game_id" else _sql_type(kind))
    for name, kind in typing.get_type_hints(GameRow).items()
)
NAMES = tuple(name for name, _ in COLUMNS)
#: Columns added after the first released schema, with the value older rows get: a results
#: file of an older version is extended in place rather than refused.
ADDED = {"ghost_entrant": "''", "ghost_hash": "''"}

#: The columns the statistics read (`tournament.leaderboard`); a table handed to them may
#: have only these.
SCORED_COLUMNS = (
    "game_id", "entrant", "cell", "layout", "depth", "ghost", "num_ghosts", "ruleset", "seed",
    "game_index", "outcome", "culprit", "message", "score", "win", "moves", "wall_mean",
    "wall_max", "cpu_mean", "cpu_max",
)
assert set(SCORED_COLUMNS) <= set(NAMES)


def split_formats(results: Any) -> tuple[Any, Any]:
    """`results` split into (fixed-format games, match games), both with every column of
    `results`, in its row order.

    A fixed-format game (today's: an entrant against the grid's built-in ghosts) has an empty
    `ghost_entrant`, or none at all in a table from before match games; a match game names
    its ghost entrant. The per-entrant leaderboard, the cells and the report's fixed sections
    read the first; ratings and the crosstable the second.
    """
    if "ghost_entrant" not in results.columns:
        return results, results.iloc[0:0]
    named = results["ghost_entrant"].fillna("").astype(str) != ""
    return results[~named], results[named]


def check_table(table: Any, columns: Sequence[str], what: str) -> None:
    """Raise ValueError unless `table` (a DataFrame of games) has `columns`, known outcomes
    and each game once: statistics of a table that breaks these would be quietly wrong."""
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"the {what} table lacks the columns {', '.join(missing)}")
    unknown = sorted(set(table["outcome"]) - set(OUTCOMES))
    if unknown:
        raise ValueError(
            f"unknown outcomes {', '.join(map(repr, unknown))}; expected {', '.join(OUTCOMES)}"
        )
    repeated = table["game_id"][table["game_id"].duplicated()]
    if len(repeated):
        raise ValueError(f"game {repeated.iloc[0]!r} appears more than once in the {what}")
