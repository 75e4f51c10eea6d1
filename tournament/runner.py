"""One scheduled game, played through the engine's runner and turned into a results row.

A `GameTask` carries everything a worker needs as plain, picklable data (paths, names,
strings), so the same task runs in a local process pool or on a Dask worker on another
machine. `play_task` never raises for anything a game can do: agent failures are outcomes
(the sandbox sees to that), and anything else that goes wrong is the platform's own failure,
recorded as `infra_error` and never scored.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import os
import socket
import traceback
from dataclasses import dataclass
from pathlib import Path

from pacman import __version__
from pacman import replay as replays
from pacman.describe import clean
from pacman.game import MESSAGE_LIMIT, GameResult, GameSpec, play
from pacman.layout import load_layout
from pacman.limits import Limits
from pacman.loader import AgentRef, SubmissionError, resolve
from pacman.outcomes import FAILURES, INFRA_ERROR
from pacman.rules import DEATH_PENALTY, TIME_PENALTY
from pacman.sandbox import guarantees
from pacman.sandbox.process import Placement
from pacman.teamfolder import TeamFolderError, team_digest
from tournament.config import Entrant, TournamentConfig
from tournament.results import GameRow
from tournament.schedule import MatchCell, ScheduledGame, agent_args
from tournament.secret import game_key, game_secret


def submission_hash(entrant: Entrant) -> str:
    """What decides whether stored results of an entrant are still valid.

    A team: every file of its folder, names and bytes (`pacman.teamfolder.team_digest`), or,
    when the folder holds what a team may not (a symbolic link, a fifo...), the refusal
    itself, so that fixing the folder makes its failed games stale. A baseline: its
    reference and options plus the platform version (a new release may change a built-in).
    """
    if entrant.folder is not None:
        try:
            return team_digest(entrant.folder)[:16]
        except TeamFolderError as exc:
            refused = f"refused\0{exc}".encode("utf-8", "backslashreplace")
            return hashlib.sha256(refused).hexdigest()[:16]
    digest = hashlib.sha256(f"{entrant.ref}|{entrant.args}|{__version__}".encode())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class GameTask:
    """A game to play, with everything a worker needs as plain, picklable data.

    The agents come resolved (`AgentRef`s: paths and names), once per run in the organizer's
    process, so a worker never parses a team's source again before each game (a team's file
    can be made to cost seconds and gigabytes to parse, outside any sandbox). A Pacman that
    cannot be resolved comes as its `problem`, which is its own `load_error`.
    """

    game: ScheduledGame
    pacman: AgentRef | None
    problem: str
    ghost: AgentRef
    args: tuple[tuple[str, str], ...]
    submission_hash: str
    layout_path: str
    max_moves: int
    limits: Limits
    replays: str
    replay_dir: str
    #: Keys the game's random streams: the tournament's secret and the entrant's submission
    #: (see `tournament.secret`).
    secret: str = ""
    #: The sandbox layers the run's check found (and judged enough): a team's game whose
    #: sandbox gave fewer guarantees is not scored (`infra_error`, played again by the next
    #: run).
    layers: tuple[str, ...] = ()
    #: A match game's ghost entrant (empty: the cell's built-in ghosts), its submission hash,
    #: and why its ghosts cannot be resolved (then the game is the ghost side's load_error).
    ghost_entrant: str = ""
    ghost_hash: str = ""
    ghost_problem: str = ""


def tasks_for(config: TournamentConfig, games: list[ScheduledGame],
              hashes: dict[str, str], secret: str | None = None,
              layers: tuple[str, ...] = (),
              ghost_hashes: dict[str, str] | None = None) -> list[GameTask]:
    """The tasks of `games`; `hashes` maps each Pacman entrant to its submission hash,
    `ghost_hashes` each ghost entrant (computed when not given), and `secret` is the
    tournament's (by default read from, or made in, its results folder)."""
    if secret is None:
        secret = game_secret(config)
    if ghost_hashes is None:
        ghost_hashes = {e.name: submission_hash(e) for e in config.ghost_entrants}
    base = Path(config.source.parent if config.source is not None else Path.cwd())
    resolved: dict[tuple[str, str, tuple[tuple[str, str], ...]], tuple[AgentRef | None, str]] = {}

    def side(entrant: Entrant, args: tuple[tuple[str, str], ...], kind: str,
             digest: str) -> tuple[AgentRef | None, str]:
        """An entrant's agent for one side, resolved once per run, or why its own files
        cannot be played (that is its failure to load, never the platform's)."""
        ref_text = str(entrant.folder) if entrant.folder is not None else entrant.ref
        if (kind, ref_text, args) not in resolved:
            resolved[kind, ref_text, args] = _resolved(ref_text, args, base, kind)
        ref, problem = resolved[kind, ref_text, args]
        if ref is not None:
            # Named as the entrant in replays and the viewer; a team's sandbox plays exactly
            # the files hashed here, or none (a load_error).
            ref = dataclasses.replace(ref, entrant=entrant.name,
                                      team_hash=digest if entrant.folder is not None else "")
        return ref, problem

    fixed_ghosts: dict[str, AgentRef] = {}
    out = []
    for game in games:
        entrant = config.entrant(game.entrant)
        cell = game.cell
        args = agent_args(entrant, cell)
        pacman, problem = side(entrant, args, "pacman", hashes[entrant.name])
        ghost_hash = ghost_problem = ""
        if isinstance(cell, MatchCell):
            rival = config.ghost_entrant(game.ghost_entrant)
            ghost_hash = ghost_hashes[rival.name]
            ghost_ref, ghost_problem = side(rival, rival.args, "ghost", ghost_hash)
            # A ghost team that cannot resolve forfeits each game (`play_task`); the
            # reference below only names the side in its row.
            ghost = ghost_ref or AgentRef(rival.name, "", builtin=True)
            key = game_key(secret, f"{hashes[entrant.name]}~{ghost_hash}")
        else:
            if cell.ghost not in fixed_ghosts:
                fixed_ghosts[cell.ghost] = resolve(cell.ghost, kind="ghost", cwd=base)
            ghost = fixed_ghosts[cell.ghost]
            key = game_key(secret, hashes[entrant.name])
        out.append(GameTask(
            game=game,
            pacman=pacman,
            problem=problem,
            ghost=ghost,
            args=args,
            submission_hash=hashes[entrant.name],
            layout_path=config.grid.layout_path(cell.layout),
            max_moves=config.grid.max_moves,
            limits=config.limits,
            replays=config.record.replays,
            replay_dir=str(config.output / "replays"),
            secret=key,
            layers=layers,
            ghost_entrant=game.ghost_entrant,
            ghost_hash=ghost_hash,
            ghost_problem=ghost_problem,
        ))
    return out


def _resolved(ref_text: str, args: tuple[tuple[str, str], ...],
              base: Path, kind: str) -> tuple[AgentRef | None, str]:
    """An entrant's agent of one side (`kind`), or why its own files cannot be played (a bad
    team.yaml, a symbolic link, a missing class)."""
    try:
        return resolve(ref_text, args, kind=kind, cwd=base), ""
    except SubmissionError as exc:
        return None, clean(str(exc), MESSAGE_LIMIT)


def replay_path(replay_dir: str, game_id: str) -> Path:
    """`<dir>/<entrant>/<layout>/<depth>/<ghosts>/<rules>/<index>.json` from the game id."""
    entrant, _, rest = game_id.partition("@")
    cell, _, index = rest.partition("#")
    return Path(replay_dir, entrant, *cell.split("/"), f"{index}.json")


def play_task(task: GameTask, slot: int = 0, sandbox_root: str | None = None) -> GameRow:
    """Play one game and return its row; never raises for what a game or an agent does."""
    game = task.game
    result: GameResult | None = None
    replay: str | None = None
    try:
        layout = load_layout(task.layout_path)
        if task.pacman is None and task.ghost_problem:
            # Neither side can play: the game counts for nobody (no culprit: no side gains).
            return make_row(task, None, None, "load_error", f"both sides cannot load: Pacman: "
                            f"{task.problem}; ghosts: {task.ghost_problem}", culprit=None)
        if task.pacman is None:
            return make_row(task, None, None, "load_error", task.problem, culprit=0)
        if task.ghost_problem:
            # The ghost team cannot play: it forfeits the game (its first ghost is blamed).
            return make_row(task, None, None, "load_error", task.ghost_problem, culprit=1)
        spec = GameSpec(layout, task.pacman, task.ghost, num_ghosts=game.cell.num_ghosts,
                        seed=game.seed, ruleset=game.cell.ruleset, max_moves=task.max_moves,
                        limits=task.limits, secret=task.secret)
        placement = Placement(root=Path(sandbox_root) if sandbox_root else None, slot=slot,
                              expected=task.layers or None)
        result = play(spec, placement=placement)
        # Every sandbox of the game (Pacman's, a ghost team's) had the run's guarantees.
        lost = sorted({g for active in result.sandbox if active
                       for g in guarantees.lost(task.layers, active)}, key=lambda g: g.name)
        if task.layers and lost:
            # Confined less than the run's check promised: not a game to score.
            return make_row(task, None, None, INFRA_ERROR, "the sandbox of this game lacked "
                            f"the guarantees {', '.join(g.name for g in lost)} that the run's "
                            "check had found")
        keep = task.replays == "all" or (task.replays == "failures" and result.failed)
        if keep and result.scored:
            path = replay_path(task.replay_dir, game.game_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            replays.write(result, layout, path)
            replay = str(path)
        # What each team printed (already capped by its sandbox; a ghost team's is kept on
        # its first ghost): kept beside the replays, where its page in the report and the
        # organizer can find it.
        for index, suffix in ((0, ".log"), (1, ".ghosts.log")):
            if len(result.logs) > index and result.logs[index]:
                log = replay_path(str(Path(task.replay_dir).parent / "logs"), game.game_id)
                log = log.with_suffix(suffix)
                log.parent.mkdir(parents=True, exist_ok=True)
                log.write_text(result.logs[index], encoding="utf-8")
    except Exception as exc:  # the platform's own failure: recorded, never blamed on an agent
        return make_row(task, None, None, INFRA_ERROR, f"platform error: {type(exc).__name__}: "
                    f"{exc}"[:300], traceback.format_exc()[-4000:])
    return make_row(task, result, replay)


def copy_room_problem(free: tuple[int, int], workers: int, largest: tuple[int, int],
                      where: str) -> str:
    """Why the sandbox folder is too small for the copies of the teams' files, or ''.

    Each sandbox holds a copy of its team's files (`pacman.sandbox.process`); with `workers`
    games at once, up to `workers` copies of the largest team. `free` and `largest` are
    (bytes, inodes). A copy that finds no room is the platform's failure (infra_error), so a
    run without room would leave a legal team's games unscored, run after run: better said
    before it starts.
    """
    mib = 1024 * 1024
    need_bytes, need_inodes = workers * largest[0], workers * largest[1]
    if need_bytes > free[0]:
        return (f"the sandbox folder {where} has {free[0] // mib} MiB free, but {workers} "
                f"games at once may each copy the largest team's files ({largest[0] // mib} "
                f"MiB): give it {(need_bytes - free[0]) // mib + 1} MiB more (set TMPDIR to a "
                "larger folder) or use fewer workers")
    if need_inodes > free[1]:
        return (f"the sandbox folder {where} has room for {free[1]} more files, but {workers} "
                f"games at once may each copy the largest team's {largest[1]} files and "
                "folders: set TMPDIR to a folder with more free inodes, or use fewer workers")
    return ""


def tournament_score(outcome: str, culprit: int | None, score: int) -> int:
    """What a game scores in a tournament: the engine's score, but a game the entrant itself
    failed (culprit 0) scores its score at that moment less what the move into a ghost
    costs (`rules.DEATH_PENALTY` and `TIME_PENALTY`). The course scores a failure at the score
    of that moment, so a Pacman that raised on purpose just before a certain death kept the
    points a death costs, and a team that never loaded (0 a game) ranked above teams that
    played and lost: in a tournament, failing instead of stepping into a ghost never pays.
    (A Pacman that fails at once still saves the time penalty of the moves it would have
    played before losing; a team whose losses cost more than that ranks by win rate first.)"""
    if outcome in FAILURES and culprit == 0:
        return score - DEATH_PENALTY - TIME_PENALTY  # as the move into a ghost would
    return score


def make_row(task: GameTask, result: GameResult | None, replay: str | None,
             outcome: str | None = None, message: str = "", trace: str = "",
             culprit: int | None = None) -> GameRow:
    """The row of `task`'s game: from its `result`, or, when it has none, from the
    `outcome` (and `message`, `trace`, `culprit`) the caller decided."""
    game = task.game
    timing = result.timing[0] if result is not None and result.timing else None
    moves = timing.moves if timing is not None else 0
    cpu_moves = timing.cpu if timing is not None else None
    final = outcome or (result.outcome if result is not None else INFRA_ERROR)
    blamed = result.culprit if result is not None else culprit
    score = result.score if result is not None and outcome is None else 0
    return GameRow(**{
        "game_id": game.game_id,
        "entrant": game.entrant,
        "submission_hash": task.submission_hash,
        "cell": game.cell.key,
        "layout": game.cell.layout,
        "depth": game.cell.depth,
        "ghost": (task.ghost.name if isinstance(game.cell, MatchCell)
                  else game.cell.ghost_name),
        "num_ghosts": result.num_ghosts if result is not None else game.cell.num_ghosts,
        "ruleset": game.cell.ruleset,
        "seed": game.seed,
        "game_index": game.index,
        "outcome": final,
        "culprit": blamed,
        "message": message or (result.message if result is not None else ""),
        "trace": trace or (result.trace if result is not None else ""),
        "score": tournament_score(final, blamed, score),
        "win": bool(result is not None and outcome is None and result.win),
        "moves": result.moves if result is not None else 0,
        "wall_mean": timing.wall / moves if timing is not None and moves else None,
        "wall_max": timing.wall_max if timing is not None and moves else None,
        "cpu_mean": cpu_moves / moves if cpu_moves is not None and moves else None,
        "cpu_max": timing.cpu_max if timing is not None else None,
        "warnings": timing.warnings if timing is not None else 0,
        "sandbox": ",".join(result.sandbox[0]) if result is not None else "",
        "host": socket.gethostname(),
        "replay": replay,
        "version": __version__,
        "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "ghost_entrant": task.ghost_entrant,
        "ghost_hash": task.ghost_hash,
    })


def worker_environment() -> None:
    """Nothing an agent prints in-process should reach the organizer's terminal in a pool."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
