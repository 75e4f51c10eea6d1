"""The results row: one game of a tournament as the store keeps it, the one home of its
columns, their types and their meaning.

The runner makes rows (`tournament.runner.make_row`), executors carry them back to the
organizer, the store writes them (its SQL schema is derived from `GameRow`), and the
leaderboard, ratings and report read them as a DataFrame whose columns are these.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypedDict

from pacman.outcomes import OUTCOMES
from tournament.runs import RUN_COLUMNS


class GameRow(TypedDict):
    """One played (or failed) game. Column order is the store's.

    Each column's meaning is the string in its `Annotated`: the one definition of the results
    schema, read by `schema_markdown` (docs/results-schema.md is its output, and a test keeps
    the file equal to it) and checked at import, so that no column goes undocumented.
    """

    game_id: Annotated[str, "The game's key: `<entrant>@<cell>#<index>`, or "
                       "`<pacman>~<ghost entrant>@<cell>#<index>` for a match game."]
    entrant: Annotated[str, "The Pacman entrant (a team's folder name or a baseline's name)."]
    submission_hash: Annotated[str, "The Pacman entrant's submission hash when the game was "
                               "played: 32 hex digits (128 bits) of a team's files "
                               "(`pacman.teamfolder.team_digest`; with the class and options "
                               "of `entrants.agent` for a folder without team.yaml that plays "
                               "it) or of a baseline's reference, "
                               "options and platform version. A row whose hash is no longer the "
                               "entrant's is stale: not counted, played again by the next run."]
    cell: Annotated[str, "The cell's key: `smallClassic/d2/RandomGhost2/classic` (layout, "
                    "depth, ghost class and count, rules), `smallClassic/d2/2g/classic` for a "
                    "match cell (its ghosts are the ghost entrant's); the depth is `d-` when "
                    "the grid gives none."]
    layout: Annotated[str, "The layout's name, as the config's `grid.layouts` gives it."]
    depth: Annotated[int | None, "The search depth the grid gave the Pacman entrant as its "
                     "`depth` option; NULL when the grid gives none (`grid.depths` left out: "
                     "each agent searches to its own default). An entrant without a `depth` "
                     "option plays with its own settings whatever this says."]
    ghost: Annotated[str, "The ghosts' class name: the cell's built-in ghost for a "
                     "fixed-format game, the ghost entrant's class for a match game."]
    num_ghosts: Annotated[int, "Ghosts that played (the cell's count, capped at the layout's "
                          "ghost starts)."]
    ruleset: Annotated[str, "`classic` or `cs221` (Pacman may not Stop)."]
    seed: Annotated[int, "The game's seed, from the master seed, the cell and the index "
                    "(the same for every entrant of the cell). Public: the random streams "
                    "are keyed with the tournament's secret as well."]
    game_index: Annotated[int, "The game's index in its cell (0-based)."]
    outcome: Annotated[str, "How the game ended, one of `pacman.outcomes.OUTCOMES`: `win`, "
                       "`loss`, `move_limit`, an agent's failure (`load_error`, `crash`, "
                       "`timeout`, `illegal_action`, `memory`, `killed`), or `infra_error` "
                       "(the platform's own failure: never scored, played again by the next "
                       "run)."]
    culprit: Annotated[int | None, "The agent to blame for a failure: 0 Pacman, 1.. the index "
                       "of the ghost whose call failed (for a ghost team that failed before "
                       "any ghost acted, such as its `load_error`, its first ghost, 1). NULL "
                       "when no agent is to blame: a win, a loss, a move limit, an "
                       "`infra_error`, a game neither side could load."]
    message: Annotated[str, "Why the game failed, worded by the platform (an agent's own "
                       "text only quoted, cleaned); empty when nothing failed."]
    trace: Annotated[str, "The failing agent's traceback (cleaned, capped); empty when there "
                     "is none."]
    score: Annotated[int, "The tournament score in points (`tournament.runner."
                     "tournament_score`): the game's score, except that a game the Pacman "
                     "side failed scores its score at that moment less 501, what the move "
                     "into a ghost costs."]
    win: Annotated[bool, "1 when Pacman cleared the board, else 0."]
    moves: Annotated[int, "Moves played by all agents together (Pacman's and every ghost's, "
                     "each one move; the move that failed is not counted): what "
                     "`grid.max_moves` limits. 0 when no agent moved."]
    wall_mean: Annotated[float | None, "Pacman's mean wall-clock seconds per move, as the "
                         "referee measured it; NULL when Pacman never moved."]
    wall_max: Annotated[float | None, "Pacman's longest move in wall-clock seconds; NULL when "
                        "Pacman never moved."]
    cpu_mean: Annotated[float | None, "CPU seconds of Pacman's sandbox process over the "
                        "game (its start-up included) per Pacman move; NULL in-process "
                        "(built-in agents) or when Pacman never moved."]
    cpu_max: Annotated[float | None, "Pacman's largest CPU seconds of one move, as the "
                       "kernel counts its sandboxed process (read by the referee before and "
                       "after the move, to 0.01 s); NULL in-process."]
    warnings: Annotated[int, "Pacman's moves over the soft per-move limit "
                        "(`limits.move_soft`)."]
    sandbox: Annotated[str, "The sandbox layers Pacman played under, comma-separated; empty "
                       "when it played in-process (a built-in) or never started."]
    host: Annotated[str, "The host name of the machine whose process played the game "
                    "(a worker's, on a cluster)."]
    replay: Annotated[str | None, "The replay file kept for the game (per `record.replays`): "
                      "a path, absolute or relative to the output folder; NULL when none was "
                      "kept."]
    version: Annotated[str, "The platform that played it: its release and a digest of its "
                       "code (`pacman.identity.platform_id`). A row another platform played "
                       "is stale: not counted, played again by the next run."]
    finished_at: Annotated[str, "When the game's row was made, UTC, ISO 8601 to the second "
                           "(`2025-03-01T09:12:44+00:00`)."]
    ghost_entrant: Annotated[str, "The ghost entrant of a match game; empty for a "
                             "fixed-format game (the cell's built-in ghosts)."]
    ghost_hash: Annotated[str, "The ghost entrant's submission hash when the game was played "
                          "(as `submission_hash`); empty for a fixed-format game."]
    run_id: Annotated[int | None, "The `tournament run` that stored the game (`runs.run_id`, "
                      "below), stamped by the organizer as it stores the row; NULL for a "
                      "game stored before runs were recorded."]


def _meanings() -> dict[str, str]:
    """Column -> its meaning, from `GameRow`'s annotations; raises TypeError for a column
    without exactly one."""
    found = {}
    for name, hint in typing.get_type_hints(GameRow, include_extras=True).items():
        texts = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, str)]
        if len(texts) != 1 or not texts[0].strip():
            raise TypeError(f"GameRow.{name}: expected Annotated[type, 'its meaning']")
        found[name] = texts[0]
    return found


#: Each column's meaning, in table order (`GameRow`'s annotations).
MEANINGS = _meanings()


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
def _kind(annotation: object) -> tuple[type, bool]:
    """`int | None` -> (int, True): a column's Python type and whether it may be None."""
    args = typing.get_args(annotation)
    nullable = isinstance(annotation, types.UnionType) and type(None) in args
    base = next(a for a in args if a is not type(None)) if nullable else annotation
    assert isinstance(base, type)
    return base, nullable


_KINDS = {name: _kind(kind) for name, kind in typing.get_type_hints(GameRow).items()}


def row_problem(row: Mapping[str, object]) -> str:
    """Why `row` is not a results row ('' when it is one): a missing or unknown column, or a
    value of another type than its column's. A row that comes from elsewhere (a worker) is
    checked before it is stored."""
    missing = [name for name in NAMES if name not in row]
    unknown = [str(name) for name in row if name not in _KINDS]
    if missing or unknown:
        return (f"columns missing: {', '.join(missing) or 'none'}; unknown: "
                f"{', '.join(unknown)[:100] or 'none'}")
    for name, (kind, nullable) in _KINDS.items():
        value = row[name]
        if value is None and nullable:
            continue
        fits = (isinstance(value, bool) if kind is bool else
                isinstance(value, (int, float)) and not isinstance(value, bool)
                if kind is float else
                isinstance(value, int) and not isinstance(value, bool) if kind is int else
                isinstance(value, kind))
        if not fits:
            return f"{name}: expected {kind.__name__}, got {type(value).__name__}"
    return ""


#: Columns added after the first released schema, with the value older rows get: a results
#: file of an older version is extended in place rather than refused.
ADDED = {"ghost_entrant": "''", "ghost_hash": "''", "run_id": "NULL"}

#: The columns the statistics read (`tournament.leaderboard`); a table handed to them may
#: have only these.
SCORED_COLUMNS = (
    "game_id", "entrant", "cell", "layout", "depth", "ghost", "num_ghosts", "ruleset", "seed",
    "game_index", "outcome", "culprit", "message", "score", "win", "moves", "wall_mean",
    "wall_max", "cpu_mean", "cpu_max",
)
assert set(SCORED_COLUMNS) <= set(NAMES)

#: The numeric columns that measure how a game went (not which game it was): what a marking
#: scheme may average (`tournament.markscheme`, a `mean` criterion's `column`).
MEASURED_COLUMNS = ("score", "win", "moves", "wall_mean", "wall_max", "cpu_mean", "cpu_max",
                    "warnings")
assert all(_KINDS[name][0] in (int, float, bool) for name in MEASURED_COLUMNS)
#: Of those, the ones measured over the moves an agent played (how long it thought, how many
#: moves, how many warnings): a game it failed is cut short, so a mean of these under `below:`
#: thresholds is taken over the games it did not fail (failing fast must not pay). Under
#: `at:` or `each:` a short failed game already counts against it, as score and win do.
PLAYED_COLUMNS = ("moves", "wall_mean", "wall_max", "cpu_mean", "cpu_max", "warnings")
assert set(PLAYED_COLUMNS) <= set(MEASURED_COLUMNS)


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


def schema_markdown() -> str:
    """The results schema as Markdown, from `COLUMNS` and `MEANINGS`: what
    docs/results-schema.md holds (`python -m tournament.results > docs/results-schema.md`)."""
    lines = [
        "# The results schema",
        "",
        "<!-- Generated by `python -m tournament.results` from `tournament/results.py`, the "
        "one definition; a test keeps this file equal to it. Edit the code, not this file. -->",
        "",
        "Every game of a tournament is one row of the table `games` in "
        "`<output>/results.sqlite` (SQLite), stored as it finishes, in its own transaction. "
        "`tournament leaderboard` writes the same columns to `games.csv` (text that could "
        "pass for a formula gets a leading `'`). Times are in seconds, scores in points, "
        "booleans are 0 or 1, and NULL means the value does not exist for that game (see "
        "each column). `game_id` is the key; a row is current when its `submission_hash` "
        "(and `ghost_hash`) are the entrants' hashes now, and only current rows are counted.",
        "",
        "| column | SQL type | meaning |",
        "|---|---|---|",
    ]
    for name, kind in COLUMNS:
        meaning = MEANINGS[name].replace("|", "\\|")
        lines.append(f"| `{name}` | `{kind}` | {meaning} |")
    lines += [
        "",
        "## Runs",
        "",
        "The table `runs` has a row per `tournament run` of the results folder "
        "(`tournament.runs`): which run stored each game (`games.run_id`), when it ran and "
        "how it ended. A results file from before runs were recorded gains the table, and "
        "the column `run_id` (NULL for its games), in place.",
        "",
        "| column | SQL type | meaning |",
        "|---|---|---|",
    ]
    for name, kind, meaning in RUN_COLUMNS:
        shown = meaning.replace("|", "\\|")
        lines.append(f"| `{name}` | `{kind}` | {shown} |")
    lines += [
        "",
        "The store also keeps a table `meta` (`key`, `value`): the fingerprint of the "
        "tournament's secret (`tournament.secret`), so that a run refuses a missing or "
        "replaced secret; and, per master seed, the first run that played it (`master seed "
        "11 first run` -> `3 2026-11-20T10:00:00+00:00`), so that `tournament marks` can tell "
        "games whose draws were shown before the submissions' deadline (docs/marks.md).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(schema_markdown(), end="")
