"""Resolving ghost entrants: team.yaml's `ghost:` and `ghost_args:`, kinds, names for people,
and references that are no ghost refused from source, before any game."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pacman.loader import SubmissionError, ghost_problem, resolve

ZOO = Path(__file__).parent / "zoo"

PACMAN_SOURCE = (
    "from game import Agent\n"
    "class MultiAgentSearchAgent(Agent):\n"
    "    def __init__(self, evalFn='scoreEvaluationFunction', depth='2'):\n"
    "        self.index = 0\n"
    "class ExpectimaxAgent(MultiAgentSearchAgent):\n"
    "    def getAction(self, state):\n"
    "        return 'Stop'\n"
)


def team(tmp_path: Path, yaml: str, name: str = "team") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(ZOO / "ghost_team.py", folder / "ghostAgents.py")
    (folder / "multiAgents.py").write_text(PACMAN_SOURCE)
    (folder / "team.yaml").write_text(yaml)
    return folder


def test_a_team_names_its_ghost_and_its_options_beside_its_pacman(tmp_path: Path) -> None:
    folder = team(tmp_path, "name: The Chasers\n"
                            "agent: multiAgents.py:ExpectimaxAgent\nargs: {depth: 3}\n"
                            "ghost: ghostAgents.py:ChasingGhost\n"
                            "ghost_args: {prob_attack: 0.9}\n")
    ghost = resolve(str(folder), kind="ghost")
    pacman = resolve(str(folder))
    assert (ghost.name, ghost.args) == ("ChasingGhost", (("prob_attack", "0.9"),))
    assert (pacman.name, pacman.args) == ("ExpectimaxAgent", (("depth", "3"),))
    assert ghost.team == pacman.team == str(folder.resolve())
    # The names people read: the team's name and the class, never a path.
    assert ghost.shown == "The Chasers (ChasingGhost)"
    assert pacman.shown == "The Chasers (ExpectimaxAgent)"
    assert str(tmp_path) not in ghost.shown
    # --ghostArgs overrides team.yaml's, as -a overrides args.
    assert resolve(str(folder), (("prob_attack", "0.5"),), kind="ghost").args == (
        ("prob_attack", "0.5"),)


def test_a_team_without_a_name_is_shown_by_its_folders_name(tmp_path: Path) -> None:
    folder = team(tmp_path, "ghost: ghostAgents.py:ChasingGhost\n", name="night-shift")
    assert resolve(str(folder), kind="ghost").shown == "night-shift (ChasingGhost)"


def test_a_team_with_only_a_pacman_has_no_ghost(tmp_path: Path) -> None:
    folder = team(tmp_path, "agent: multiAgents.py:ExpectimaxAgent\n")
    with pytest.raises(SubmissionError, match=r"team\.yaml: the team names no ghost "
                                              r"\(expected a key 'ghost: file\.py:ClassName'\)"):
        resolve(str(folder), kind="ghost")


def test_a_team_with_only_a_ghost_has_no_pacman(tmp_path: Path) -> None:
    folder = team(tmp_path, "ghost: ghostAgents.py:ChasingGhost\n")
    with pytest.raises(SubmissionError, match=r"team\.yaml: the team names only a ghost "
                                              r"\('ghost:'\), no Pacman"):
        resolve(str(folder))


@pytest.mark.parametrize("yaml, words", [
    ("ghost: 3\n", "ghost: expected file.py:ClassName, got 3"),
    ("ghost: ChasingGhost\n", "ghost: expected file.py:ClassName, got 'ChasingGhost'"),
    ("ghost: ../other/ghostAgents.py:ChasingGhost\n", "ghost: '../other/ghostAgents.py' is "
                                                      "outside the team's folder"),
    ("ghost: ghostAgents.py:ChasingGhost\nghost_args: [1]\n",
     "ghost_args: expected a mapping of option: value"),
    ("ghost: ghostAgents.py:ChasingGhost\nghost_args: {prob_attack: [1]}\n",
     "ghost_args.prob_attack: expected a text, number or true/false"),
    ("name: x\n", "expected a key 'agent: file.py:ClassName' (its Pacman) or 'ghost: "
                  "file.py:ClassName' (its ghosts), or both"),
])
def test_bad_ghost_keys_name_the_file_and_the_key(tmp_path: Path, yaml: str,
                                                  words: str) -> None:
    folder = team(tmp_path, yaml)
    with pytest.raises(SubmissionError) as error:
        resolve(str(folder), kind="ghost")
    assert str(folder / "team.yaml") in str(error.value)
    assert words in str(error.value)


def test_a_folder_without_team_yaml_plays_its_one_ghost_class(tmp_path: Path) -> None:
    folder = tmp_path / "course"
    folder.mkdir()
    shutil.copy(ZOO / "ghost_team.py", folder / "ghostAgents.py")
    (folder / "multiAgents.py").write_text(PACMAN_SOURCE)
    # The course's GhostAgent base is no candidate: it ends in Agent, not Ghost.
    assert resolve(str(folder), kind="ghost").name == "ChasingGhost"


@pytest.mark.parametrize("source, ok", [
    (PACMAN_SOURCE, False),  # a course Pacman: its first argument is an option
    ("class ExpectimaxAgent:\n    def getAction(self, state):\n        return 'Stop'\n", False),
    ("class ExpectimaxAgent:\n    def __init__(self):\n        pass\n", False),
    ("class ExpectimaxAgent:\n    def __init__(self, *, depth=2):\n        pass\n", False),
    ("from game import Agent\nclass ExpectimaxAgent(Agent):\n    pass\n", True),
    ("class ExpectimaxAgent:\n    def __init__(self, index, depth=2):\n        pass\n", True),
    ("class ExpectimaxAgent:\n    def __init__(self, me):\n        pass\n", True),
    ("class ExpectimaxAgent:\n    def __init__(self, *args):\n        pass\n", True),
    ("from elsewhere import Base\nclass ExpectimaxAgent(Base):\n    pass\n", True),
])
def test_a_class_is_a_ghost_when_it_is_built_with_an_index(tmp_path: Path, source: str,
                                                           ok: bool) -> None:
    path = tmp_path / "agents.py"
    path.write_text(source)
    assert (ghost_problem(path, "ExpectimaxAgent") == "") is ok
    if ok:
        assert resolve(f"{path}:ExpectimaxAgent", kind="ghost").name == "ExpectimaxAgent"
    else:
        with pytest.raises(SubmissionError, match="is not a ghost: .*a ghost is built as "
                                                  r"Class\(index\), once per ghost"):
            resolve(f"{path}:ExpectimaxAgent", kind="ghost")


def test_a_team_whose_ghost_is_a_pacman_class_is_refused(tmp_path: Path) -> None:
    folder = team(tmp_path, "ghost: multiAgents.py:ExpectimaxAgent\n")
    with pytest.raises(SubmissionError, match="ExpectimaxAgent is not a ghost: its "
                                              "constructor's first argument is the option "
                                              "'evalFn'"):
        resolve(str(folder), kind="ghost")


def test_built_in_kinds_are_kept_apart() -> None:
    assert resolve("DirectionalGhost", kind="ghost").builtin
    with pytest.raises(SubmissionError, match="ExpectimaxAgent is a pacman agent, not a ghost"):
        resolve("ExpectimaxAgent", kind="ghost")
    with pytest.raises(SubmissionError, match="RandomGhost is a ghost agent, not a pacman"):
        resolve("builtin:RandomGhost")
