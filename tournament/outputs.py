"""What the organizer does with a finished game: check that it is the game asked for, write
its replay and logs into the output folder, and store its row.

Workers write nothing of the organizer's (on a cluster they cannot: no shared file system);
they send a `GameOutput` back and the organizer, alone, writes the output folder and the
store. Before anything is kept, the output is checked against the task the organizer handed
out: the same work (`GameTask.key`), the same game, seed and submissions, and a worker of the
same platform version (another version may play other rules). An output that fails the
check is not the game the organizer asked for: it is stored as the platform's failure
(`infra_error`, never scored, played again by the next run), never as a result.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pacman import replay as replays
from pacman.files import write_atomic
from pacman.identity import platform_id
from pacman.outcomes import INFRA_ERROR, OUTCOMES
from tournament.results import GameRow, row_problem
from tournament.runner import LOG_SUFFIXES, GameOutput, GameTask, make_row, replay_path
from tournament.store import Store


def expected_fields(task: GameTask) -> dict[str, object]:
    """The row values the task decides, that its output must repeat."""
    game = task.game
    return {"game_id": game.game_id, "entrant": game.entrant, "cell": game.cell.key,
            "seed": game.seed, "game_index": game.index,
            "submission_hash": task.submission_hash, "ghost_entrant": task.ghost_entrant,
            "ghost_hash": task.ghost_hash}


def mismatch(task: GameTask, output: GameOutput) -> str:
    """Why `output` is not the output of `task` ('' when it is)."""
    if output.key != task.key:
        return f"the worker returned the output of another task ({output.key[:40]})"
    row = output.row
    if not isinstance(row, dict):
        return f"the worker sent no row ({type(row).__name__})"
    problem = row_problem(row)
    if problem:
        return f"the worker's row is not a results row: {problem}"
    if output.replay is not None:
        if not isinstance(output.replay, str) or len(output.replay) > replays.MAX_BYTES:
            return "the worker's replay is not text of at most the replay size limit"
        if not output.replay.startswith("{"):
            return "the worker's replay is not a JSON replay"
    if not isinstance(output.logs, tuple) or not all(
            isinstance(item, tuple) and len(item) == 2 and item[0] in LOG_SUFFIXES
            and isinstance(item[1], str) for item in output.logs):
        return "the worker's logs are not (kind, text) pairs"
    for name, value in expected_fields(task).items():
        if row.get(name) != value:
            return f"the worker's row has {name} {row.get(name)!r:.60}, expected {value!r:.60}"
    if row.get("version") != platform_id():
        return (f"played by pacman-arena {row.get('version')!r:.40} on {row.get('host')!r:.60}, "
                f"but the organizer runs {platform_id()}: a worker runs other code (install "
                "the same version, the same code, on every worker), or the platform's code "
                "changed during this run (an edit or a pull: the run's games are played again "
                "by the next run)")
    if row.get("outcome") not in OUTCOMES:
        return f"the worker's row has the unknown outcome {row.get('outcome')!r:.40}"
    return ""


class Keeper:
    """Keeps each game's output in the output folder and the store, checked first, stamped
    with the run that stores it."""

    def __init__(self, output: Path, store: Store,
                 localize: Callable[[str], str] = lambda text: text,
                 run_id: int | None = None) -> None:
        self.replays = output / "replays"
        self.logs = output / "logs"
        self.store = store
        #: Paths into a worker's team snapshots made the organizer's team folders again
        #: (`tournament.runner.Snapshots.localize`).
        self.localize = localize
        #: The run storing the games (`Store.open_run`), whatever a worker's row says.
        self.run_id = run_id

    def keep(self, task: GameTask, output: GameOutput) -> GameRow:
        """Check, write the files, store the row (last: a stored row's files exist). A game's
        logs are its stored row's: an earlier play's are removed first, or the report would
        show them under a game that printed nothing (the sixteenth hostile review)."""
        for suffix in LOG_SUFFIXES:
            replay_path(str(self.logs), task.game.game_id).with_suffix(suffix).unlink(
                missing_ok=True)
        try:
            problem = mismatch(task, output)
        except Exception as exc:  # whatever the worker sent: never the run's end
            problem = f"the worker's output could not be checked: {type(exc).__name__}"
        if problem:
            row = make_row(task, None, None, INFRA_ERROR, f"not stored: {problem}")
        else:
            row = GameRow(**output.row)
            row["message"] = self.localize(row["message"])
            row["trace"] = self.localize(row["trace"])
            gid = task.game.game_id
            row["replay"] = None  # the organizer's own path, or none: never the worker's word
            if output.replay is not None:
                row["replay"] = str(write_atomic(replay_path(str(self.replays), gid),
                                                 output.replay))
            for suffix, text in output.logs:
                write_atomic(replay_path(str(self.logs), gid).with_suffix(suffix),
                             self.localize(text))
        row["run_id"] = self.run_id
        self.store.put(row)
        return row
