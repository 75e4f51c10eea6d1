"""The `pacman` command: the course's `pacman.py` flags, plus seeds, rulesets and replays.

Bad input (unknown layout, agent, option, a malformed replay, an agent that cannot be built
with the given options, a window asked for where there is no display) exits with status 2 and
a message naming what is wrong; an agent that fails during play without `-c` exits 1 with its
traceback; with `-c` the failure is recorded as a lost game and the batch goes on.

stdout carries only the platform's own output (per-game lines, the summary or `--json`, the
`-t` board): whatever an agent prints goes to stderr, so no agent can print a summary that a
script reading stdout would take for the real one.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import math
import os
import random
import secrets
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TextIO

import click

from pacman import replay as replays
from pacman.describe import clean
from pacman.display import Display, WindowClosed, WindowUnavailable, make_display
from pacman.game import AgentFailure, GameSpec, GameStopped, play, sandboxed
from pacman.layout import Layout, LayoutError, is_project_layout, load_layout
from pacman.limits import CONTEST, UNTIMED, Limits, limit_problem
from pacman.loader import (
    AgentRef,
    SubmissionError,
    course_ruleset,
    describe_signature,
    options_in_source,
    parse_agent_args,
    resolve,
    someones_code,
)
from pacman.outcomes import FAILURES, INFRA_ERROR, STOPPED
from pacman.rules import RULESETS
from pacman.seeds import derive_seed

FIXED_SEED = 188  # `-f`: the same games every run (the course fixes its seed too)
#: The exit status of a batch stopped before its end (Escape, the window closed, Ctrl-C):
#: 128 + SIGINT, as a shell reports a command Ctrl-C stopped.
STOPPED_STATUS = 130


def echo(message: str, file: Any = None, err: bool = False) -> None:
    """Print a line of the command's output, `clean`ed (no terminal escape, no bidirectional
    control; newlines and tabs kept). Messages quote names from students' files, team.yaml
    and replays sent by anyone (the twelfth hostile review set the organizer's window title
    and drew a fake "OK" over a replay's MISMATCH line): every line leaves through here."""
    click.echo(clean(message), file=file, err=err)


def die(message: str, status: int = 2) -> NoReturn:
    echo(f"pacman: error: {message}", err=True)
    sys.exit(status)


def check_options(ref: AgentRef, sandboxed: bool, flag: str = "-a") -> None:
    """Reject `-a` (or `--ghostArgs`, `flag`) options the agent's constructor cannot take,
    before any game starts.

    A sandboxed agent's code must not run in the referee, so its options are read from its
    source; where the source cannot tell, its start-up in the sandbox reports them.
    """
    if sandboxed and ref.path is not None:
        options = options_in_source(Path(ref.path), ref.name,
                                    Path(ref.team) if ref.team else None)
        if options is None:
            return
        for key, _ in ref.args:
            if key not in options:
                die(f"{flag} {key}=...: {ref.shown} takes no option {key!r} "
                    f"(its options: {', '.join(options) or 'none'})")
        return
    cls = ref.load_class()
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    for key, _ in ref.args:
        if key not in params or key == "index":
            die(f"{flag} {key}=...: {ref.shown} takes no option {key!r} "
                f"(its options: {describe_signature(cls)})")


#: The course's `--timeout` default: with -c, seconds of thinking an agent may spend in a
#: game in all, and at most in its start-up or in one move (the course's `ClassicGameRules`
#: gives that one number for all three).
COURSE_TIMEOUT = 30.0


def build_limits(
    contest: bool, catch: bool, given: dict[str, tuple[str, float | int | None]],
    timeout: float | None = None,
) -> Limits:
    """The limits the flags ask for: none by default (as the course without -c); with -c the
    course's `--timeout` (30 s unless given): that many seconds of thinking per game in all,
    and at most that for the start-up and for any one move, as the course engine counts them
    ("Agent 0 ran out of time!" there, a timeout here); the contest's with --contest-limits.
    `--timeout` sets those three (with or without -c); each finer flag overrides its field."""
    base = CONTEST if contest else UNTIMED
    changes: dict[str, float | int] = {}
    budget = timeout if timeout is not None else (COURSE_TIMEOUT if catch and not contest
                                                  else None)
    if budget is not None:
        problem = limit_problem("move_hard", budget)
        if problem:
            die(f"--timeout: {problem}")
        changes.update(startup=budget, move_hard=budget, game_total=budget)
    for name, (flag, value) in given.items():
        if value is None:
            continue
        problem = limit_problem(name, value)
        if problem:
            die(f"{flag}: {problem}")
        changes[name] = value
    return base.with_changes(**changes)


@contextlib.contextmanager
def platform_stdout() -> Iterator[TextIO]:
    """The stream for the platform's own output; inside, anything else written to stdout
    (an in-process agent's prints, at import, construction or play) goes to stderr.

    Where stdout is a real file descriptor it is moved at that level too, so that writing to
    `sys.__stdout__` or to descriptor 1 (a C extension, a child process) lands on stderr as
    well; the platform keeps a duplicate of the original for itself.
    """
    stdout, stderr = sys.stdout, sys.stderr
    try:
        fd, err_fd = stdout.fileno(), stderr.fileno()
    except (AttributeError, OSError, ValueError):  # a test runner's in-memory streams
        with contextlib.redirect_stdout(stderr):
            yield stdout
        return
    stdout.flush()
    saved = os.dup(fd)
    out = os.fdopen(saved, "w", buffering=1, encoding=stdout.encoding,
                    errors=stdout.errors or "strict")
    os.dup2(err_fd, fd)
    try:
        with contextlib.redirect_stdout(stderr):
            yield out
    finally:
        if sys.__stdout__ is not None:
            with contextlib.suppress(OSError, ValueError):
                sys.__stdout__.flush()  # what went to descriptor 1 (stderr now) goes there
        out.flush()
        os.dup2(saved, fd)
        out.close()


def echo_output(index: int, text: str) -> None:
    """What a sandboxed agent prints, on stderr as it prints it (as the course shows an
    agent's prints; stdout carries only the platform's summary)."""
    sys.stderr.write(text)
    sys.stderr.flush()


def game_line(game: dict[str, Any], max_moves: int | None) -> str:
    """One line per game, worded as the course engine words it where it has a wording."""
    score, outcome = game["score"], game["outcome"]
    if outcome == "win":
        return f"Pacman emerges victorious! Score: {score}"
    if outcome == "loss":
        return f"Pacman died! Score: {score}"
    if outcome == "move_limit":
        return f"Game stopped at the move limit ({max_moves} moves). Score: {score}"
    if outcome == STOPPED:
        return f"Game stopped ({game['message']}) after {game['moves']} moves. Score: {score}"
    # The message quotes the agent's own words: it goes to stderr (`failure_line`), so that
    # nothing an agent chose is on stdout, where scripts read the summary.
    return f"{_who(game)} failed ({outcome}) after {game['moves']} moves. Score: {score}"


def failure_line(game: dict[str, Any]) -> str:
    """The failure's message (the referee's words, the agent's quoted), for stderr."""
    return f"{_who(game)} failed ({game['outcome']}): {game['message']}"


def _who(game: dict[str, Any]) -> str:
    """Whose failure: Pacman's, a ghost's, or the platform's (no agent's: `infra_error`)."""
    if game["culprit"] is None:
        return "The platform"
    return "Pacman" if game["culprit"] == 0 else f"Ghost {game['culprit']}"


def layout_line(layout: Layout) -> str:
    """The layout's name, and its file when it is not the project's own (a course folder's
    `layouts/smallClassic.lay` is played in place of ours, as the course does: say so)."""
    if not layout.source or is_project_layout(layout):
        return layout.name
    return f"{layout.name} (from {layout.source})"


def played_by_line(ref: AgentRef, options: str, in_sandbox: bool, count: int = 1,
                   flag: str = "-a") -> str:
    """Which agent played, said plainly: `./multiAgents.py:ExpectimaxAgent -a evalFn=better,
    sandboxed` or `built-in RandomGhost x 2, in-process` (a local file wins over a built-in
    of the same name, so the summary says which one it was)."""
    if count == 0:
        return "none"
    text = ref.played_by()
    if count != 1:
        text += f" x {count}"
    if options.strip():
        text += f" {flag} {options.strip()}"
    return f"{text}, {'sandboxed' if in_sandbox else 'in-process'}"


def summary_lines(games: list[dict[str, Any]]) -> list[str]:
    """The course's summary lines. A game the platform failed (`infra_error`) was never an
    agent's doing: it is left out of the average and the win rate, and said as `Error`."""
    scored = [g for g in games if g["outcome"] != INFRA_ERROR] or games
    scores = [float(g["score"]) for g in scored]
    wins = [g["win"] for g in scored]
    return [
        f"Average Score: {sum(scores) / len(scores)}",
        f"Scores:        {', '.join(str(s) for s in scores)}",
        f"Win Rate:      {wins.count(True)}/{len(wins)} ({wins.count(True) / len(wins):.2f})",
        f"Record:        {', '.join(_record_word(g['outcome']) for g in games)}",
    ]


def _record_word(outcome: str) -> str:
    """A game in the summary's `Record:` line: `Win` or `Loss` as the course says (a failure
    is a loss), `Stopped` for a game cut short from outside, `Error` for the platform's."""
    if outcome == INFRA_ERROR:
        return "Error"
    return "Win" if outcome == "win" else "Stopped" if outcome == STOPPED else "Loss"


@click.group(context_settings={"help_option_names": ["-h", "--help"]},
             invoke_without_command=True)
@click.option("-l", "--layout", "layout_ref", default="mediumClassic", show_default=True,
              help="A layout name (NAME.lay in layouts/ or the folder itself, here or up to "
                   "three folders above, as the course; then the shipped layouts) or a path "
                   "to a .lay file.")
@click.option("-p", "--pacman", "pacman_ref", default="KeyboardAgent", show_default=True,
              help="A class in ./*gents.py or ./submission.py (as the course), a built-in "
                   "agent (builtin:NAME where agent files exist), path/file.py:Class, or a "
                   "team folder.")
@click.option("-a", "--agentArgs", "agent_args", default="",
              help='Options for the Pacman agent, e.g. "depth=2,evalFn=better" (strings).')
@click.option("-g", "--ghosts", "ghost_ref", default="RandomGhost", show_default=True,
              help="The ghost team: a built-in ghost, file.py:Class (built once per ghost, "
                   "all in one sandbox) or a team folder whose team.yaml names a ghost.")
@click.option("--ghostArgs", "ghost_args", default="",
              help="Options of the ghosts, as -a (key=value,...).")
@click.option("-k", "--numghosts", "num_ghosts", type=int, default=None,
              help="Play with the first K ghosts of the layout [default: all].")
@click.option("-n", "--numGames", "num_games", type=int, default=1, show_default=True)
@click.option("-q", "--quietTextGraphics", "quiet", is_flag=True, help="No display.")
@click.option("-t", "--textGraphics", "text", is_flag=True, help="Print the board.")
@click.option("-z", "--zoom", type=float, default=1.0, show_default=True,
              help="Window size factor.")
@click.option("--frameTime", "frame_time", type=float, default=0.1, show_default=True,
              help="Seconds per round in the window.")
@click.option("-f", "--fixRandomSeed", "fix_seed", is_flag=True,
              help=f"Use the fixed seed {FIXED_SEED}.")
@click.option("-c", "--catchExceptions", "catch", is_flag=True,
              help="Record agent failures as lost games and go on.")
@click.option("--sandbox/--no-sandbox", "sandbox", default=None,
              help="Run agents loaded from files in a sandboxed process of their own "
                   "[default: yes; built-in agents always play in-process].")
@click.option("--timeout", type=float, default=None,
              help="As the course's: seconds of thinking per game in all, and at most that to "
                   "start and for one move (a sandboxed agent is killed, an in-process one "
                   "fails when the move returns) [default: 30 with -c, else none].")
@click.option("--move-limit", "move_soft", type=float, default=None,
              help="Soft seconds per move; going over it more than --move-warnings times is a "
                   "timeout [default: none].")
@click.option("--move-warnings", type=int, default=None,
              help="Moves over --move-limit that are forgiven [default: 3].")
@click.option("--startup-limit", type=float, default=None,
              help="Seconds for import, construction and registerInitialState [default: none].")
@click.option("--game-time", type=float, default=None,
              help="Seconds of thinking per agent per game [default: none].")
@click.option("--memory", "memory_mb", type=int, default=None,
              help="MiB of memory for a sandboxed agent [default: 2048].")
@click.option("--cpu-time", type=float, default=None,
              help="CPU seconds per game for a sandboxed agent (kernel-enforced) [default: none].")
@click.option("--output-limit", "output_kb", type=int, default=None,
              help="KiB of a sandboxed agent's printed output that is shown [default: 64].")
@click.option("--contest-limits", is_flag=True,
              help="Start from the course contest's limits: 15 s start-up, 1 s per move with "
                   "3 warnings, 3 s hard.")
@click.option("-r", "--recordActions", "record", is_flag=True,
              help="Record every game as a JSON replay (into --record-dir).")
@click.option("--record-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for replays [default: replays/]; implies -r.")
@click.option("--replay", "replay_file", type=click.Path(path_type=Path), default=None,
              help="Watch (or with -q, re-simulate) a recorded game.")
@click.option("--check", is_flag=True,
              help="With --replay: verify every move's score; exit 1 at the first difference.")
@click.option("--export", "export_path", type=click.Path(path_type=Path), default=None,
              help="With --replay: draw the game headless into FILE.gif (animated), FILE.png "
                   "(a strip of 8 frames) or a folder (one PNG per move).")
@click.option("--fps", type=float, default=None,
              help="With --export: frames (moves) per second of the GIF [default: 10].")
@click.option("--seed", type=int, default=None, help="Seed of the batch (random if not given).")
@click.option("--rules", "ruleset", type=click.Choice(sorted(RULESETS)), default=None,
              help="; ".join(f"{r.name}: {r.description}" for r in RULESETS.values())
              + " [default: cs221 for a Pacman from submission.py (the CS221 course's file), "
                "else classic].")
@click.option("--max-moves", type=int, default=None,
              help="Moves of all agents together before a game is stopped [default: no limit, "
                   "as the course; with -r, 500,000, the most a replay holds].")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary instead of text.")
@click.pass_context
def main(
    ctx: click.Context,
    layout_ref: str,
    pacman_ref: str,
    agent_args: str,
    ghost_ref: str,
    ghost_args: str,
    num_ghosts: int | None,
    num_games: int,
    quiet: bool,
    text: bool,
    zoom: float,
    frame_time: float,
    fix_seed: bool,
    catch: bool,
    sandbox: bool | None,
    timeout: float | None,
    move_soft: float | None,
    move_warnings: int | None,
    startup_limit: float | None,
    game_time: float | None,
    memory_mb: int | None,
    cpu_time: float | None,
    output_kb: int | None,
    contest_limits: bool,
    record: bool,
    record_dir: Path | None,
    replay_file: Path | None,
    check: bool,
    export_path: Path | None,
    fps: float | None,
    seed: int | None,
    ruleset: str | None,
    max_moves: int | None,
    as_json: bool,
) -> None:
    """Play Pacman games: `pacman -l smallClassic -p GreedyAgent -q -n 20`.

    `pacman sandbox-check` reports how agents loaded from files are confined on this machine.
    """
    if ctx.invoked_subcommand is not None:
        return
    display_kind = "quiet" if quiet else "text" if text else "window"
    if not (math.isfinite(zoom) and 0 < zoom <= 10):
        die("-z/--zoom: expected a number above 0 and at most 10")
    if not (math.isfinite(frame_time) and 0 <= frame_time <= 60):
        die("--frameTime: expected seconds from 0 to 60")
    if (export_path is not None or fps is not None) and replay_file is None:
        die("--export and --fps draw a recorded game: add --replay FILE")
    if fps is not None and export_path is None:
        die("--fps: only with --export (the window's pace is --frameTime)")
    if fps is not None and not (math.isfinite(fps) and 0 < fps <= 50):
        die("--fps: expected frames per second above 0 and at most 50")
    if replay_file is not None:
        sys.exit(run_replay(replay_file, check, display_kind, zoom, frame_time,
                            export_path, fps if fps is not None else 10.0))
    if num_games < 1:
        die("-n/--numGames: expected at least 1 game")
    if num_ghosts is not None and num_ghosts < 0:
        die("-k/--numghosts: expected a number of ghosts >= 0")
    if max_moves is not None and not 1 <= max_moves <= replays.MAX_MOVES:
        die(f"--max-moves: expected 1 to {replays.MAX_MOVES:,} (the most a replay holds)")
    confined = tuple(flag for flag, value in (("--memory", memory_mb), ("--cpu-time", cpu_time),
                                              ("--output-limit", output_kb)) if value is not None)
    if record and max_moves is None:
        # A recorded game must be one a replay can hold, or its file could never be read
        # back (`pacman.replay.from_json` refuses longer ones). No course game comes near.
        max_moves = replays.MAX_MOVES
    limits = build_limits(
        contest_limits, catch,
        {"move_soft": ("--move-limit", move_soft),
         "move_warnings": ("--move-warnings", move_warnings),
         "startup": ("--startup-limit", startup_limit), "game_total": ("--game-time", game_time),
         "memory_mb": ("--memory", memory_mb), "cpu_seconds": ("--cpu-time", cpu_time),
         "output_kb": ("--output-limit", output_kb)},
        timeout,
    )
    batch = Batch(
        layout_ref=layout_ref,
        pacman_ref=pacman_ref,
        agent_args=agent_args,
        ghost_ref=ghost_ref,
        ghost_args=ghost_args,
        num_ghosts=num_ghosts,
        num_games=num_games,
        display_kind=display_kind,
        zoom=zoom,
        frame_time=frame_time,
        seed=FIXED_SEED if fix_seed else seed if seed is not None else secrets.randbits(31),
        catch=catch,
        limits=limits,
        sandbox=sandbox,
        record_dir=record_dir or (Path("replays") if record else None),
        ruleset=ruleset,
        max_moves=max_moves,
        as_json=as_json,
        sandbox_flags=confined,
    )
    try:
        with platform_stdout() as out:
            summary, stopped = play_batch(batch, out)
            if summary is not None and as_json:
                echo(json.dumps(summary, indent=2), file=out)
    except KeyboardInterrupt:  # between games (a game's own Ctrl-C is reported as it stops)
        echo("pacman: stopped (Ctrl-C was pressed)", err=True)
        sys.exit(STOPPED_STATUS)
    if stopped:
        sys.exit(STOPPED_STATUS)


@dataclass(frozen=True)
class Batch:
    """A batch of games as the command line describes it (flags resolved to values)."""

    layout_ref: str
    pacman_ref: str
    agent_args: str
    ghost_ref: str
    ghost_args: str
    num_ghosts: int | None
    num_games: int
    display_kind: str
    zoom: float
    frame_time: float
    seed: int
    catch: bool
    limits: Limits
    sandbox: bool | None
    record_dir: Path | None
    #: None: the Pacman's course says (`course_ruleset`).
    ruleset: str | None
    max_moves: int | None
    as_json: bool
    #: The limits given that only a sandbox enforces (`--memory`, ...), by flag.
    sandbox_flags: tuple[str, ...] = ()


def refuse_code_files(ref: AgentRef, flag: str) -> None:
    """A built-in agent runs a function its options name from a file (`evalFn=my.py:f`,
    `features=feats.py:phi`) in this process: outside the sandbox, where `--timeout` cannot
    stop an endless loop and the file reads what this user reads (the fifteenth hostile
    review). Such a file is someone's code, so it runs only with `--no-sandbox`, which says
    that it is trusted; ValueError naming the option otherwise."""
    for key, value in ref.args:
        # A module by name too (`evalFn=student_eval:better`): importable from this
        # process's path, it is someone's code as much as a file (the review of this change).
        if (where := someones_code(key, value)) is not None:
            raise ValueError(
                f"{flag} {key}={value}: the built-in {ref.name} would run {where} in this "
                "process, outside the sandbox; add --no-sandbox (which plays every agent in "
                "this process) to run it so, as your own code, or play an agent of the "
                "file's own, which plays sandboxed")


def play_batch(b: Batch, out: TextIO) -> tuple[dict[str, Any] | None, bool]:
    """Play the games, print a line per game and the summary on `out`; return the JSON
    summary, and whether the batch was stopped before its end.

    A game stopped from outside (Escape or the close button of its window, Ctrl-C) ends the
    batch: it is reported and recorded as far as it went (outcome `stopped`, its replay kept),
    then the summary of what was played; the command exits 130, as for Ctrl-C.
    """
    # The course seeds `random` before it imports the agents' files: draws a file makes as it
    # is imported in this process (--no-sandbox, a built-in's checks) then repeat with -f
    # (a sandbox's process is seeded before it imports, `pacman.sandbox.child`).
    random.seed(b.seed)
    try:
        layout = load_layout(b.layout_ref)
        for warning in layout.warnings:
            echo(f"pacman: warning: {warning}", err=True)
        pacman = resolve(b.pacman_ref, parse_agent_args(b.agent_args), kind="pacman",
                         course=True)
        ghost = resolve(b.ghost_ref, parse_agent_args(b.ghost_args, "--ghostArgs"),
                        kind="ghost")
        check_options(pacman, sandboxed=not pacman.builtin and b.sandbox is not False)
        check_options(ghost, sandboxed=not ghost.builtin and b.sandbox is not False,
                      flag="--ghostArgs")
        for ref, flag in ((pacman, "-a"), (ghost, "--ghostArgs")):
            if ref.builtin and b.sandbox is not False:
                refuse_code_files(ref, flag)
        # A built-in checks its option values when built: report them before any game.
        if pacman.builtin:
            pacman.build(0)
        if ghost.builtin:
            ghost.build(1)
    except (LayoutError, SubmissionError, ValueError) as exc:
        die(str(exc))
    if b.sandbox_flags and not (sandboxed(pacman, b.sandbox) or sandboxed(ghost, b.sandbox)):
        # Enforced by the sandbox alone: accepted here, they would bound nothing.
        die(f"{', '.join(b.sandbox_flags)}: limits of sandboxed agents, and every agent here "
            "plays in this process (nothing from a file, or --no-sandbox); drop them"
            + (", or drop --no-sandbox" if b.sandbox is False else ""))
    ruleset = b.ruleset or course_ruleset(pacman)
    if pacman.name == "KeyboardAgent" and pacman.builtin and b.display_kind != "window":
        die("KeyboardAgent plays from the window's keys: drop -q/-t, or choose another -p")
    if b.record_dir is not None:
        try:
            b.record_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            die(f"--record-dir {b.record_dir}: cannot create the folder: {exc.strerror or exc}")

    try:
        # The -t board is the platform's output too, but --json keeps stdout to the JSON.
        board_out = sys.stderr if b.as_json else out
        display = make_display(b.display_kind, zoom=b.zoom, frame_time=b.frame_time,
                               out=board_out)
    except WindowUnavailable as exc:
        if pacman.name == "KeyboardAgent" and pacman.builtin:
            die(f"{exc}; KeyboardAgent is played with the window's keys. Without a display, "
                "watch an agent play with -q or -t (pacman -p GreedyAgent -q)")
        die(f"{exc}; add -q to play without a window (or -t to print the board)")
    # Only each game's summary is kept, so memory stays flat however many games are played.
    records: list[dict[str, Any]] = []
    ghosts = 0
    cut = False
    for i in range(b.num_games):
        spec = GameSpec(
            layout=layout,
            pacman=pacman,
            ghost=ghost,
            num_ghosts=b.num_ghosts,
            seed=derive_seed(b.seed, "game", i),
            ruleset=ruleset,
            max_moves=b.max_moves,
            limits=b.limits,
            sandbox=b.sandbox,
        )
        stop: GameStopped | None = None
        try:
            result = play(spec, display=display, catch=b.catch, on_output=echo_output)
        except GameStopped as stopped:
            stop, result = stopped, stopped.result
        except AgentFailure as exc:
            if exc.__cause__ is not None:
                echo("".join(traceback.format_exception(exc.__cause__)).rstrip("\n"), err=True)
            elif exc.trace:
                echo(exc.trace.rstrip("\n"), err=True)
            status = 2 if exc.kind == "load_error" else 1
            die(f"{exc}\n(use -c to record agent failures as lost games and go on)", status)
        ghosts = result.num_ghosts
        entry: dict[str, Any] = {
            "game": i,
            "seed": spec.seed,
            "outcome": result.outcome,
            "win": result.win,
            "score": result.score,
            "moves": result.moves,
            "culprit": result.culprit,
            "message": result.message,
        }
        if b.record_dir is not None:
            path = b.record_dir / f"{layout.name}-{b.seed}-{i:03d}.json"
            try:
                replays.write(result, layout, path)
            except OSError as exc:
                die(f"--record-dir: cannot write {path}: {exc.strerror or exc}")
            entry["replay"] = str(path)
        records.append(entry)
        if not b.as_json:
            if entry["outcome"] in FAILURES:
                echo(failure_line(entry), err=True)
            echo(game_line(entry, b.max_moves), file=out)
            if "replay" in entry:
                echo(f"Recorded: {entry['replay']}", file=out)
        if stop is not None:
            cut = result.outcome == STOPPED or len(records) < b.num_games
            if result.outcome != STOPPED and cut and not b.as_json:
                # Its game ended; the games after it are the ones not played.
                echo(f"Stopped ({stop.reason}) after {len(records)} of {b.num_games} "
                           "games.", file=out)
            break
    if not records:
        return None, cut
    played_by = {
        "pacman": played_by_line(pacman, b.agent_args, sandboxed(pacman, b.sandbox)),
        "ghosts": played_by_line(ghost, b.ghost_args, sandboxed(ghost, b.sandbox), ghosts,
                                 "--ghostArgs"),
    }
    if not b.as_json:
        for line in summary_lines(records):
            echo(line, file=out)
        echo(f"Pacman:        {played_by['pacman']}", file=out)
        echo(f"Ghosts:        {played_by['ghosts']}", file=out)
        echo(f"Layout:        {layout_line(layout)}", file=out)
        echo(f"Rules:         {ruleset}", file=out)
        echo(f"Seed:          {b.seed}", file=out)
        return None, cut
    wins = sum(r["win"] for r in records)
    return {
        "layout": layout.name,
        "layout_file": layout.source,
        "pacman": pacman.label,
        "ghosts": ghost.label,
        "played_by": played_by,
        "rules": ruleset,
        "seed": b.seed,
        "games": records,
        "average_score": sum(r["score"] for r in records) / len(records),
        "wins": wins,
        "win_rate": wins / len(records),
        "failures": sum(r["outcome"] in FAILURES for r in records),
        "stopped": cut,
    }, cut


@main.command("sandbox-check")
def sandbox_check() -> None:
    """Show which sandbox layers are active here, and what an agent inside could do."""
    from pacman.sandbox.check import format_report, run_check
    from pacman.sandbox.process import SandboxError

    try:
        report = run_check()
    except SandboxError as exc:
        die(f"the sandbox cannot start on this machine: {exc}", 1)
    for line in format_report(report):
        echo(line)
    sys.exit(1 if report.escaped else 0)


def run_replay(
    path: Path,
    check: bool,
    display_kind: str,
    zoom: float,
    frame_time: float,
    export: Path | None = None,
    fps: float = 10.0,
) -> int:
    """`--replay`: check it, export pictures of it, watch it in the viewer, or re-simulate it
    (`-q`, `-t`). Exit 2 for a file that is not a replay, 1 for one that does not reproduce."""
    try:
        replay = replays.load(path)
    except replays.ReplayError as exc:
        die(str(exc))
    if check:
        mismatch = replays.check(replay)
        if mismatch is not None:
            echo(f"{path}: MISMATCH at {mismatch}")
            return 1
        final = replay.scores[-1] if replay.scores else 0
        echo(f"{path}: OK, {len(replay.actions)} moves reproduce (final score {final})")
        if export is None:
            return 0
    if export is not None:
        return export_replay(path, export, fps, zoom)
    if display_kind == "window":
        return watch_replay(path, replay, zoom, frame_time)
    display: Display = make_display(display_kind, zoom=zoom, frame_time=frame_time)
    state = replay.initial_state()
    try:
        display.initialize(state)
        for _, agent, action, after in replays.simulate(replay):
            if isinstance(after, replays.Mismatch):
                echo(f"{path}: the replay stops matching at {after}")
                display.finish(state, "mismatch")
                return 1
            state = after
            display.update(state, agent, action)
        outcome = replay.outcome or (
            "win" if state.isWin() else "loss" if state.isLose() else "stopped")
        display.finish(state, outcome)
    except WindowClosed:
        return 0
    echo(f"Replayed {len(replay.actions)} moves: {outcome}. Score: {int(state.getScore())}")
    return 0


def watch_replay(path: Path, replay: replays.Replay, zoom: float, frame_time: float) -> int:
    """The viewer on one file. A replay that stops reproducing is still shown (up to where it
    diverges: that is what a dispute needs to see), and the command then exits 1."""
    from pacman.display.viewer import watch

    mismatch = replays.check(replay)
    if mismatch is not None:
        echo(f"{path}: the replay stops matching at {mismatch}")
    try:
        watch([path], 0, zoom=zoom, frame_time=frame_time)
    except WindowUnavailable as exc:
        die(f"{exc} (use -q --check to verify it, or --export game.gif to draw it)")
    except replays.ReplayError as exc:
        die(str(exc))
    return 1 if mismatch is not None else 0


def export_replay(path: Path, out: Path, fps: float, zoom: float) -> int:
    """`--export`: a `.gif`, a `.png` strip, or a folder of PNG frames, by the name given."""
    from pacman.display import export

    suffix = out.suffix.lower()
    try:
        if suffix == ".gif":
            count = export.export_gif(path, out, fps=fps, zoom=zoom)
            what = f"{count} frames (the start and {count - 1} moves) at {fps:g} fps"
        elif suffix == ".png":
            count = export.export_strip(path, out, zoom=zoom / 2)
            what = f"a strip of {count} frames"
        elif suffix == "" or out.is_dir():
            count = export.export_frames(path, out, zoom=zoom)
            what = f"{count} PNG frames (the start and {count - 1} moves)"
        else:
            die(f"--export {out}: expected a .gif file, a .png file (a strip of frames) "
                "or a folder (one PNG per move)")
    except export.ReplayMismatch as exc:
        echo(f"pacman: error: {exc}; nothing written", err=True)
        return 1
    except replays.ReplayError as exc:
        die(str(exc))
    except OSError as exc:
        die(f"--export {out}: cannot write: {exc.strerror or exc}")
    echo(f"Wrote {out}: {what}")
    return 0


# `python -m pacman.cli`: tournament/__main__.py says how its exit status after Ctrl-C can differ.
if __name__ == "__main__":
    main()
