"""Bare course files: a team folder holding only a course's `multiAgents.py` (several agent
classes, no `team.yaml`) plays the class the config names (`entrants.agent`, with its
`args`); a team.yaml still wins; a folder without the class is that team's `load_error`;
changing the named class or options plays those teams again and no other; and `pacman -p
folder` keeps its rule (exactly one agent class, or a team.yaml)."""

from __future__ import annotations

import sqlite3
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from pacman.cli import main as pacman_main
from pacman.loader import FolderAgent, SubmissionError, resolve
from pacman.teamfolder import team_digest
from tests.test_sandbox_zoo import UNAVAILABLE
from tests.test_tournament_run import ACCEPT, SECRET, tournament
from tournament.config import ConfigError, load_config
from tournament.resume import entrant_hashes
from tournament.runner import HASH_DIGITS

#: A course's multiAgents.py as students hand it in: four agent classes (so no single one
#: to pick), `better` as the course defines it, options as text. Each search agent says at
#: construction which class it is and with which options, into its game's log.
COURSE_FILE = '''\
import util
from game import Agent


def scoreEvaluationFunction(currentGameState):
    return currentGameState.getScore()


def betterEvaluationFunction(currentGameState):
    return currentGameState.getScore() - currentGameState.getNumFood()


better = betterEvaluationFunction


class ReflexAgent(Agent):
    def getAction(self, gameState):
        return gameState.getLegalActions(0)[0]


class MultiAgentSearchAgent(Agent):
    def __init__(self, evalFn="scoreEvaluationFunction", depth="2"):
        self.index = 0
        self.evaluationFunction = util.lookup(evalFn, globals())
        self.depth = int(depth)
        print(f"{type(self).__name__} evalFn={evalFn} depth={depth}")

    def getAction(self, gameState):
        actions = gameState.getLegalActions(0)
        return max(actions, key=lambda a: self.evaluationFunction(
            gameState.generateSuccessor(0, a)))


class MinimaxAgent(MultiAgentSearchAgent):
    pass


class AlphaBetaAgent(MultiAgentSearchAgent):
    pass


class ExpectimaxAgent(MultiAgentSearchAgent):
    pass
'''

#: The same file handed in without the class the course asked for.
WITHOUT_EXPECTIMAX = COURSE_FILE.replace("class ExpectimaxAgent(", "class ExpectimaxAgnt(")


def course_config(root: Path, args: str = "{evalFn: better}", extra: str = "") -> Path:
    """Teams: `course` (the course file alone), `nameless` (the file without the class),
    `named` (the course file and a team.yaml naming its ReflexAgent), and a baseline."""
    subs = root / "submissions"
    for name, text in (("course", COURSE_FILE), ("nameless", WITHOUT_EXPECTIMAX),
                       ("named", COURSE_FILE)):
        (subs / name).mkdir(parents=True)
        (subs / name / "multiAgents.py").write_text(text)
    (subs / "named" / "team.yaml").write_text("agent: multiAgents.py:ReflexAgent\n")
    (root / "cup.secret").write_text(SECRET)
    config = root / "t.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: Course cup
        seed: 4
        secret_file: cup.secret
        sandbox: {{accept_missing: [{ACCEPT}]}}
        entrants:
          submissions: submissions
          agent: ExpectimaxAgent
          args: {args}
          baselines:
            - {{name: greedy, agent: GreedyAgent}}
        grid:
          layouts: [testClassic]
          depths: [3]
          ghosts: [{{agent: RandomGhost, count: 1}}]
          max_moves: 60
        games_per_cell: 1
        workers: 2
        output: out
        """) + extra)
    return config


def outcomes(config: Path) -> dict[str, tuple[str, str, str]]:
    with sqlite3.connect(config.parent / "out" / "results.sqlite") as conn:
        return {row[0]: row[1:] for row in conn.execute(
            "SELECT entrant, outcome, message, submission_hash FROM games")}


def printed(config: Path, team: str) -> str:
    """What the team's agent printed in its one game."""
    [log] = (config.parent / "out" / "logs" / team).rglob("*.log")
    return log.read_text()


@pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")
def test_a_course_file_alone_plays_the_class_the_config_names(tmp_path: Path) -> None:
    config = course_config(tmp_path)
    ran = tournament("run", str(config))
    assert "warning: team nameless cannot play" in ran.stdout
    found = outcomes(config)
    assert set(found) == {"course", "nameless", "named", "greedy"}
    # The named class, built with the config's options and the grid's depth.
    assert found["course"][0] in ("win", "loss", "move_limit"), found["course"]
    assert printed(config, "course") == "ExpectimaxAgent evalFn=better depth=3\n"
    # A team.yaml wins: its ReflexAgent prints nothing (and is given no depth).
    assert found["named"][0] in ("win", "loss", "move_limit"), found["named"]
    assert not (tmp_path / "out" / "logs" / "named").exists()
    # The file without the class: that team's load_error, naming the class and the files.
    outcome, message, _ = found["nameless"]
    assert outcome == "load_error"
    assert "no agent file defines ExpectimaxAgent (the class entrants.agent names for a " \
           "folder without team.yaml) (did you mean ExpectimaxAgnt" in message
    assert message.endswith("; searched multiAgents.py")
    assert found["greedy"][0] in ("win", "loss", "move_limit")

    # Other options for the bare folders: theirs are new submissions, the others' are not.
    config.write_text(config.read_text().replace("{evalFn: better}",
                                                 "{evalFn: scoreEvaluationFunction}"))
    again = tournament("run", str(config))
    assert "4 games; 2 already stored, 2 to play (2 stale" in again.stdout
    after = outcomes(config)
    assert {name for name in found if after[name][2] != found[name][2]} == {"course", "nameless"}
    assert printed(config, "course") == "ExpectimaxAgent evalFn=scoreEvaluationFunction depth=3\n"


@pytest.mark.skipif(bool(UNAVAILABLE), reason=f"no sandbox here: {UNAVAILABLE}")
def test_validate_names_the_team_without_the_class(tmp_path: Path) -> None:
    checked = tournament("validate", str(course_config(tmp_path)), check=False)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "course: team" in checked.stdout and \
        "(no team.yaml: plays ExpectimaxAgent evalFn=better)" in checked.stdout
    assert "course: ok, sandboxed" in checked.stdout
    assert "named: ok, sandboxed" in checked.stdout
    line = next(x for x in checked.stdout.splitlines() if "nameless: FAILED" in x)
    assert line.strip().startswith("nameless: FAILED missing_class"), line
    assert "no agent file defines ExpectimaxAgent" in line
    assert str(tmp_path) not in line  # the team's own folder, as the team sees it


def test_the_config_reads_the_class_from_source(tmp_path: Path) -> None:
    config = load_config(course_config(tmp_path))
    course, named, nameless = (config.entrant(n) for n in ("course", "named", "nameless"))
    chosen = FolderAgent("ExpectimaxAgent", (("evalFn", "better"),), "entrants.agent")
    assert course.folder_agent == chosen and course.problem is None
    assert course.takes_depth  # ExpectimaxAgent has a depth (its base's, same file)
    assert named.folder_agent is None  # a team.yaml names what it plays
    assert not named.takes_depth  # ReflexAgent has no depth option
    assert nameless.folder_agent == chosen and nameless.problem is not None
    assert nameless.problem.startswith(f"{tmp_path / 'submissions' / 'nameless'}: no agent "
                                       "file defines ExpectimaxAgent")
    # An option the class does not take is the team's problem, said before any game.
    strict = tmp_path / "strict"
    strict.mkdir()
    config = load_config(course_config(strict, "{evalFn: better, speed: 2}"))
    assert config.entrant("course").problem == (
        f"{strict / 'submissions' / 'course' / 'multiAgents.py'}: ExpectimaxAgent has no "
        "option 'speed' (given with entrants.agent); its options: evalFn, depth")
    assert config.entrant("named").problem is None


def test_the_class_and_options_are_part_of_the_submission(tmp_path: Path) -> None:
    first = entrant_hashes(load_config(course_config(tmp_path / "a")))
    other = entrant_hashes(load_config(course_config(tmp_path / "b",
                                                     "{evalFn: scoreEvaluationFunction}")))
    changed = {name for name in first.pacman if first.pacman[name] != other.pacman[name]}
    assert changed == {"course", "nameless"}
    # Without entrants.agent a team's hash is its files' alone, as before.
    plain = tmp_path / "plain"
    config = course_config(plain)
    config.write_text(config.read_text().replace("  agent: ExpectimaxAgent\n", "")
                      .replace("  args: {evalFn: better}\n", ""))
    hashes = entrant_hashes(load_config(config))
    assert hashes.pacman["course"] == team_digest(plain / "submissions" / "course")[:HASH_DIGITS]


def test_config_problems_name_their_keys(tmp_path: Path) -> None:
    config = course_config(tmp_path)
    text = config.read_text()

    def problems(new: str) -> list[str]:
        config.write_text(new)
        with pytest.raises(ConfigError) as info:
            load_config(config)
        return list(info.value.problems)

    assert problems(text.replace("agent: ExpectimaxAgent", "agent: multiAgents.py:X")) == [
        "entrants.agent: expected a class name (ExpectimaxAgent), got 'multiAgents.py:X': "
        "the class is looked up in each team's agent files (*gents.py, submission.py)"]
    assert problems(text.replace("  agent: ExpectimaxAgent\n", "")) == [
        "entrants.args: options without a class: give entrants.agent too (they are its "
        "options), or remove them"]
    assert problems(text.replace("{evalFn: better}", "{depth: 2}")) == [
        "entrants.args.depth: conflicts with grid.depths, which sets every entrant's depth; "
        "remove one"]
    assert problems(text.replace("  submissions: submissions\n", "")) == [
        "entrants.agent: names the class of team folders without team.yaml, but there is no "
        "entrants.submissions folder"]
    assert problems(text.replace("  args: {evalFn: better}\n",
                                 "  args: {evalFn: better}\n  ghost: ChasingGhost\n")) == [
        "entrants.ghost: ghosts play only in match games: add a matches: section, or "
        "remove it"]


GHOST_FILE = '''\
from game import Agent, Directions


class ChasingGhost(Agent):
    def __init__(self, index, prob="0.5"):
        self.index = index

    def getAction(self, state):
        return state.getLegalActions(self.index)[0]
'''


def test_a_ghost_class_makes_bare_folders_ghost_entrants(tmp_path: Path) -> None:
    """With matches, `entrants.ghost` is what a folder without team.yaml plays as ghosts;
    given alone, such folders play the ghost side only (as a team.yaml naming only a ghost)."""
    config = course_config(tmp_path, extra="matches: {anchor: greedy}\n")
    for name in ("course", "nameless", "named"):
        (tmp_path / "submissions" / name / "ghostAgents.py").write_text(GHOST_FILE)
    text = config.read_text().replace("  args: {evalFn: better}\n",
                                      "  args: {evalFn: better}\n  ghost: ChasingGhost\n"
                                      "  ghost_args: {prob: 0.8}\n")
    config.write_text(text)
    loaded = load_config(config)
    assert [e.name for e in loaded.ghost_entrants] == ["course", "nameless"]
    ghost = loaded.ghost_entrant("course")
    assert ghost.folder_agent == FolderAgent("ChasingGhost", (("prob", "0.8"),), "entrants.ghost")
    assert ghost.problem is None and not ghost.takes_depth
    assert loaded.entrant("named").folder_agent is None
    config.write_text(text.replace("  agent: ExpectimaxAgent\n  args: {evalFn: better}\n", ""))
    loaded = load_config(config)
    assert [e.name for e in loaded.entrants] == ["named", "greedy"]
    assert [e.name for e in loaded.ghost_entrants] == ["course", "nameless"]
    # A Pacman class named as the ghost is no ghost: the team's problem.
    config.write_text(text.replace("ghost: ChasingGhost", "ghost: MinimaxAgent")
                      .replace("  ghost_args: {prob: 0.8}\n", ""))
    problem = load_config(config).ghost_entrant("course").problem
    assert problem is not None and "MinimaxAgent is not a ghost" in problem


def test_pacman_on_a_bare_course_folder_keeps_its_rule(tmp_path: Path) -> None:
    """Without a caller naming the class, a folder of several agent classes is an error that
    says how to choose (a team.yaml), as before; with one, it is that class."""
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "multiAgents.py").write_text(COURSE_FILE)
    result = CliRunner().invoke(pacman_main, ["-p", str(folder), "-l", "testClassic", "-q"])
    assert result.exit_code == 2
    assert "cannot tell which agent to play; add a team.yaml with 'agent: " \
           "file.py:ClassName' (candidates: multiAgents.py:ReflexAgent, " \
           "multiAgents.py:MultiAgentSearchAgent, multiAgents.py:MinimaxAgent" in result.output
    with pytest.raises(SubmissionError, match="cannot tell which agent"):
        resolve(str(folder))
    ref = resolve(str(folder), (("depth", "1"),),
                  folder_agent=FolderAgent("MinimaxAgent", (("depth", "3"), ("evalFn", "better"))))
    assert (ref.name, Path(ref.path or "").name, dict(ref.args)) == (
        "MinimaxAgent", "multiAgents.py", {"depth": "1", "evalFn": "better"})  # given args win
    (folder / "team.yaml").write_text("agent: multiAgents.py:AlphaBetaAgent\n")
    assert resolve(str(folder), folder_agent=FolderAgent("MinimaxAgent")).name == "AlphaBetaAgent"


def test_a_teams_sandbox_checks_its_files_not_the_class(tmp_path: Path) -> None:
    """The submission hash of a team playing the config's class covers the class as well,
    so its sandbox is given the files' own digest to check (`files_hash`), and only when
    the hash is that of the snapshot the run took."""
    from tournament.bundles import TeamCache
    from tournament.runner import Snapshots, files_hash, submission_hash

    config = load_config(course_config(tmp_path))
    snapshots = Snapshots.take(config, TeamCache(tmp_path / "cache"))
    course, named = config.entrant("course"), config.entrant("named")
    snap = snapshots.get("pacman", course)
    assert snap is not None and snap.id
    files = team_digest(tmp_path / "submissions" / "course")[:HASH_DIGITS]
    submission = submission_hash(course, snap)
    assert submission != files  # the class is part of it
    assert files_hash(course, snap, submission) == files
    assert files_hash(course, snap, "0" * 16) == "0" * 16  # no snapshot of that: none plays
    # A team with its team.yaml: its submission hash is its files' digest, as before.
    mine = snapshots.get("pacman", named)
    assert files_hash(named, mine, submission_hash(named, mine)) == \
        team_digest(tmp_path / "submissions" / "named")[:HASH_DIGITS]


def test_two_submissions_alike_in_their_first_64_bits_are_two(tmp_path: Path) -> None:
    """Review 22: a submission's hash kept 64 bits of its files' digest, and a team could
    search for two folders alike in them (hours of one core): the second was never played and
    took the first's games. Two digests alike in 64 bits, apart after, now hash apart."""
    from tournament.runner import Snapshot, files_hash, submission_hash

    config = load_config(course_config(tmp_path))
    course, named = config.entrant("course"), config.entrant("named")
    first, second = "ab" * 8 + "0" * 48, "ab" * 8 + "1" * 48
    for entrant in (course, named):  # with the config's class, and with its own team.yaml
        one, other = (submission_hash(entrant, Snapshot(f"{d}/x")) for d in (first, second))
        assert one != other and len(one) == len(other) == HASH_DIGITS == 32
    assert files_hash(named, Snapshot(f"{first}/x"), first[:HASH_DIGITS]) != \
        files_hash(named, Snapshot(f"{second}/x"), second[:HASH_DIGITS])


def test_a_bare_file_that_does_not_compile_is_its_syntax_error_first(tmp_path: Path) -> None:
    """What a student must fix comes first: the file and line that do not compile, not that
    the class is missing (it may well be in that file)."""
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "multiAgents.py").write_text(COURSE_FILE + "\ndef oops(:\n    pass\n")
    with pytest.raises(SubmissionError) as raised:
        resolve(str(folder), folder_agent=FolderAgent("ExpectimaxAgent"))
    problem = raised.value
    assert problem.problem == "syntax_error"
    assert str(problem).startswith(f"{folder / 'multiAgents.py'}:")
    assert "fix the file so that it compiles" in str(problem)
    assert "no agent file defines" not in str(problem)


def test_a_class_name_too_long_to_show_is_the_teams_problem(tmp_path: Path) -> None:
    """Found by a hostile review: a team.yaml naming a class of 30,000 characters (its file
    defining one) played, and then `tournament report --pictures` drew its name into
    pictures too wide to write and crashed. The name is refused as the team's own problem,
    as a missing class is."""
    from pacman.loader import MAX_CLASS_NAME

    team = tmp_path / "team"
    team.mkdir()
    long = "A" * 30_000
    (team / "agents.py").write_text(
        f"from game import Agent\n\n\nclass {long}(Agent):\n"
        "    def getAction(self, state):\n        return state.getLegalActions(0)[0]\n")
    (team / "team.yaml").write_text(f"agent: agents.py:{long}\n")
    with pytest.raises(SubmissionError) as refused:
        resolve(str(team))
    message = str(refused.value)
    assert f"a class name of 30000 characters; at most {MAX_CLASS_NAME} are taken" in message
    assert len(message) < 400
    (team / "agents.py").write_text((team / "agents.py").read_text().replace(long, "Short"))
    (team / "team.yaml").write_text("agent: agents.py:Short\n")
    assert resolve(str(team)).name == "Short"
