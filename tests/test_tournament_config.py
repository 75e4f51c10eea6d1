"""Tournament configs: defaults, every kind of problem with its key path, all reported at once."""

from __future__ import annotations

import pickle
import re
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from pacman.agents.evaluation import DEFAULT_WEIGHTS
from pacman.limits import Limits
from tests.conftest import ROOT
from tournament.config import (
    DEFAULT_MAX_MOVES,
    NAME_PATTERN,
    ConfigError,
    GhostSetting,
    MatchConfig,
    RankingConfig,
    RecordConfig,
    TournamentConfig,
    describe_config,
    load_config,
    parse_config,
    slug,
    team_entrant_name,
)
from tournament.schedule import pairings

EXAMPLE = ROOT / "tournaments" / "example.yaml"

MINIMAL = """\
name: Spring Cup 2024
entrants:
  baselines:
    - {name: greedy, agent: GreedyAgent}
grid:
  layouts: [smallClassic]
"""

AGENT_FILE = """\
from game import Agent, Directions

class TinyAgent(Agent):
    def __init__(self, depth="2", flag="0", ratio="1"):
        self.depth = int(depth)

    def getAction(self, state):
        return Directions.STOP
"""


def write(folder: Path, text: str, name: str = "t.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def problems(folder: Path, text: str) -> list[str]:
    """The problem lines (without the file prefix) of a config that must be rejected."""
    with pytest.raises(ConfigError) as info:
        load_config(write(folder, text))
    return list(info.value.problems)


def with_grid(grid: str, extra: str = "") -> str:
    return (
        "name: t\nentrants:\n  baselines:\n    - {name: greedy, agent: GreedyAgent}\n"
        + "grid:\n"
        + textwrap.indent(textwrap.dedent(grid), "  ")
        + extra
    )


def make_team(submissions: Path, name: str, team_yaml: str | None, files: dict[str, str]) -> Path:
    folder = submissions / name
    folder.mkdir(parents=True)
    if team_yaml is not None:
        (folder / "team.yaml").write_text(team_yaml, encoding="utf-8")
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    return folder


# ---- what loads --------------------------------------------------------------------------


def test_the_example_config_loads_with_its_teams_and_baselines() -> None:
    config = load_config(EXAMPLE)
    assert config.name == "Example tournament"
    assert [(e.name, e.kind) for e in config.entrants] == [
        ("example-team", "team"),
        ("reflex", "baseline"),
        ("expectimax", "baseline"),
    ]
    team = config.entrant("example-team")
    assert team.folder == ROOT / "submissions" / "example-team"
    assert team.ref == str(ROOT / "submissions" / "example-team")
    assert team.takes_depth is True  # its constructor has a depth option
    assert config.entrant("expectimax").args == (("evalFn", "better"),)
    # ReflexAgent has no depth option, so the grid's depths are not passed to it.
    assert config.entrant("reflex").takes_depth is False
    assert config.entrant("expectimax").takes_depth is True
    assert [c.name for c in config.grid.layouts] == ["smallClassic", "minimaxClassic"]
    assert config.grid.layout_path("smallClassic") == str(ROOT / "layouts" / "smallClassic.lay")
    assert config.grid.depths == (1, 2)
    assert config.output == ROOT / "results" / "example"
    assert config.source == EXAMPLE.resolve()
    assert ("4 cells x 3 entrants x 20 games = 240 games against the grid's ghosts"
            in describe_config(config))


def test_defaults_of_a_minimal_config(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL))
    assert config.seed == 0
    assert config.games_per_cell == 20
    assert config.limits == Limits()
    assert config.workers is None and config.worker_count >= 1
    assert config.scheduler is None
    assert config.record == RecordConfig("failures")
    assert config.ranking == RankingConfig(("win_rate", "mean_score"), 0.95)
    assert config.grid.depths == (None,)
    assert config.grid.ghosts == (GhostSetting("RandomGhost", 2),)
    assert config.grid.rules == ("classic",)
    assert config.grid.max_moves == DEFAULT_MAX_MOVES
    assert config.output == tmp_path / "results" / "spring-cup-2024"
    assert config.submissions is None


def test_every_key_set(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "tiny.py").write_text(AGENT_FILE, encoding="utf-8")
    config = load_config(
        write(
            tmp_path,
            """\
            name: All keys
            seed: 7
            entrants:
              baselines:
                - name: tiny
                  agent: agents/tiny.py:TinyAgent
                  args: {flag: true, ratio: 0.5}
            grid:
              layouts: [smallClassic, testClassic]
              depths: [1, 3]
              ghosts:
                - {agent: RandomGhost, count: 1}
                - {agent: DirectionalGhost, count: 0}
              rules: [classic, cs221]
              max_moves: 500
            games_per_cell: 3
            limits: {move_hard: null, move_soft: 0.5, memory_mb: null, move_warnings: 0}
            workers: 2
            scheduler: tcp://10.0.0.5:8786
            cluster: {trusted_network: true}
            output: out/here
            record: {replays: all}
            ranking: {by: [mean_score_wins], confidence: 0.9}
            """,
        )
    )
    tiny = config.entrant("tiny")
    assert tiny.ref == f"{tmp_path / 'agents' / 'tiny.py'}:TinyAgent"
    assert tiny.args == (("flag", "True"), ("ratio", "0.5"))  # values become text
    assert tiny.takes_depth is True
    assert config.seed == 7 and config.games_per_cell == 3
    assert config.grid.depths == (1, 3)
    assert config.grid.ghosts == (
        GhostSetting("RandomGhost", 1),
        GhostSetting("DirectionalGhost", 0),
    )
    assert config.grid.rules == ("classic", "cs221")
    assert config.grid.max_moves == 500
    assert config.limits == Limits(move_hard=None, move_soft=0.5, memory_mb=None, move_warnings=0)
    assert config.workers == 2 and config.worker_count == 2
    assert config.scheduler == "tcp://10.0.0.5:8786"
    assert config.output == tmp_path / "out" / "here"
    assert config.record == RecordConfig("all")
    assert config.ranking == RankingConfig(("mean_score_wins",), 0.9)


def test_relative_paths_resolve_against_the_config_folder_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_dir = tmp_path / "configs"
    config_dir.mkdir()
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "corridor.lay").write_text("%%%%%\n%P.G%\n%%%%%\n", encoding="utf-8")
    path = write(
        config_dir,
        MINIMAL.replace("[smallClassic]", "[../maps/corridor.lay]") + "output: ../out\n",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(Path("..") / "configs" / "t.yaml")
    assert config.output == tmp_path / "out"
    assert [(c.name, c.path) for c in config.grid.layouts] == [
        ("corridor", str(tmp_path / "maps" / "corridor.lay"))
    ]
    assert load_config(path) == config


def test_layout_names_are_looked_up_beside_the_config_then_in_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "corridor.lay").write_text("%%%%%\n%P.G%\n%%%%%\n", encoding="utf-8")
    path = write(tmp_path, MINIMAL.replace("[smallClassic]", "[corridor, smallClassic]"))
    monkeypatch.chdir(ROOT)
    config = load_config(path)
    assert [c.path for c in config.grid.layouts] == [
        str(tmp_path / "layouts" / "corridor.lay"),
        str(ROOT / "layouts" / "smallClassic.lay"),
    ]
    # A layouts/ folder in the current folder is not where a config looks.
    monkeypatch.chdir(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    assert problems(
        other,
        "name: t\nentrants: {baselines: [{name: g, agent: GreedyAgent}]}\n"
        "grid: {layouts: [corridor]}\n",
    ) == ["grid.layouts[0]: unknown layout 'corridor'"]


def test_parse_config_takes_loaded_data_and_a_base_folder(tmp_path: Path) -> None:
    data = {
        "name": "From data",
        "entrants": {"baselines": [{"name": "greedy", "agent": "GreedyAgent"}]},
        "grid": {"layouts": ["smallClassic"]},
    }
    config = parse_config(data, "inline", tmp_path)
    assert isinstance(config, TournamentConfig)
    assert config.output == tmp_path / "results" / "from-data"
    assert config.source is None
    with pytest.raises(ConfigError) as info:
        parse_config({**data, "seed": 1.5}, "inline", tmp_path)
    assert str(info.value) == "inline: seed: expected a whole number, got 1.5"


def test_a_config_error_survives_pickling() -> None:
    error = ConfigError("t.yaml", ["seed: bad", "name: bad"])
    again = pickle.loads(pickle.dumps(error))
    assert (again.source, again.problems, str(again)) == (
        "t.yaml",
        ("seed: bad", "name: bad"),
        "t.yaml: seed: bad\nt.yaml: name: bad",
    )


def test_slug() -> None:
    assert slug("Spring Cup 2024!") == "spring-cup-2024"
    assert slug("???") == "tournament"


# ---- the file itself ---------------------------------------------------------------------


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: no such file"


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nseed: 1\n  games_per_cell: 2\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        f"{path}: line 3, column 17: invalid YAML: mapping values are not allowed here"
    )


def test_a_key_given_twice_is_an_error_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, MINIMAL + "seed: 1\nseed: 2\n"))
    assert info.value.problems == ("line 8, column 1: invalid YAML: the key 'seed' is given twice",)


def test_an_aliased_deep_or_tagged_config_is_a_clean_error_with_its_line(tmp_path: Path) -> None:
    laughs = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    laughs += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 10)]
    assert problems(tmp_path, MINIMAL + "\n".join(laughs) + "\n") == [
        "line 7, column 5: an anchor (&name) is not allowed here: write the value out"]
    assert problems(tmp_path, MINIMAL + "seed: " + "[" * 10_000 + "]" * 10_000 + "\n") == [
        "line 7, column 38: nested more than 32 levels deep"]
    assert problems(tmp_path, MINIMAL + "seed: !!python/object/apply:os.getpid []\n") == [
        "line 7, column 7: a tag (!!python/object/apply:os.getpid) is not allowed here: quote "
        "the value to make it text"]
    assert problems(tmp_path, MINIMAL + "seed: " + "9" * 5000 + "\n") == [
        "line 7, column 7: a whole number larger than 9223372036854775807"]


def test_a_config_error_from_the_command_is_exit_2_without_traceback(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tournament.cli import main

    path = write(tmp_path, MINIMAL + "limits: &l {startup: 5}\nrecord: *l\n")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2
    assert result.output == (
        "tournament: error: the config has problems:\n"
        f"{path}: line 7, column 9: an anchor (&name) is not allowed here: write the value out\n"
    )


def test_a_stop_no_command_reports_is_stopped_with_exit_130(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C (or a SIGTERM, which every command turns into one) that lands where no command
    says what it kept is `stopped`, exit 130, like every other stop: not click's "Aborted!"
    with exit 1, which says the command failed."""
    import signal

    from click.testing import CliRunner

    from tournament import cli

    def interrupted(path: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "load", interrupted)
    before = signal.getsignal(signal.SIGTERM)
    result = CliRunner().invoke(cli.main, ["status", str(write(tmp_path, MINIMAL))])
    assert (result.exit_code, result.output) == (130, "stopped\n")
    assert signal.getsignal(signal.SIGTERM) is before  # the command's handler is undone


def test_an_empty_file_and_a_file_that_is_not_a_mapping(tmp_path: Path) -> None:
    assert problems(tmp_path, "") == [
        "the config is empty; it needs at least name, entrants and grid"
    ]
    assert problems(tmp_path, "- a\n- b\n") == ["(top level): expected a mapping, got a list"]


# ---- messages with their key paths --------------------------------------------------------


def test_unknown_layout_gets_did_you_mean(tmp_path: Path) -> None:
    path = write(tmp_path, with_grid("layouts: [smallClassic, mediumClassic, smalClassic]"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        f"{path}: grid.layouts[2]: unknown layout 'smalClassic' (did you mean smallClassic?)"
    )


def test_type_errors_say_what_was_expected_and_found(tmp_path: Path) -> None:
    assert problems(tmp_path, MINIMAL + "games_per_cell: twenty\n") == [
        "games_per_cell: expected a whole number >= 1, got 'twenty'"
    ]
    assert problems(tmp_path, MINIMAL + "games_per_cell: 0\n") == [
        "games_per_cell: expected a whole number >= 1, got 0"
    ]
    assert problems(tmp_path, MINIMAL + "seed: true\n") == [
        "seed: expected a whole number, got true"
    ]
    assert problems(tmp_path, MINIMAL + "workers: 0\n") == [
        "workers: expected a whole number >= 1, got 0"
    ]
    assert problems(tmp_path, MINIMAL + "output: [a]\n") == [
        "output: expected a folder for the results, got a list"
    ]
    assert problems(tmp_path, MINIMAL + "scheduler: tcp://a b\n") == [
        "scheduler: an address has no spaces, got 'tcp://a b'"
    ]


def test_unknown_keys_are_errors_with_did_you_mean(tmp_path: Path) -> None:
    assert problems(tmp_path, MINIMAL + "game_per_cell: 3\n") == [
        "game_per_cell: unknown key (did you mean games_per_cell?); expected one of name, "
        "seed, entrants, grid, games_per_cell, matches, limits, workers, scheduler, cluster, "
        "output, record, ranking, sandbox, secret_file"
    ]
    assert problems(tmp_path, with_grid("layouts: [smallClassic]\ndepth: [2]\n")) == [
        "grid.depth: unknown key (did you mean depths?); expected one of layouts, depths, "
        "ghosts, rules, max_moves"
    ]


def test_required_keys(tmp_path: Path) -> None:
    assert problems(tmp_path, "seed: 3\n") == [
        "name: required: the tournament's name",
        "entrants: required: a submissions folder or baselines",
        "grid: required: the cells to play (at least grid.layouts)",
    ]
    assert problems(tmp_path, "name: t\nentrants: {}\ngrid: {layouts: [smallClassic]}\n") == [
        "entrants: no entrant: give a submissions folder with team folders, or baselines"
    ]


def test_grid_problems(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        with_grid(
            """\
            layouts: [smallClassic, smallClassic, nowhere/x.lay]
            depths: [2, 0, two, 2]
            ghosts:
              - {agent: RandomGost, count: 1}
              - {agent: GreedyAgent, count: 1}
              - {agent: RandomGhost, count: -1}
              - {agent: RandomGhost}
            rules: [cs22]
            max_moves: 0
            """
        ),
    )
    assert found == [
        "grid.layouts[2]: no such layout file 'nowhere/x.lay' "
        f"(looked for {tmp_path / 'nowhere' / 'x.lay'})",
        "grid.layouts[1]: the layout 'smallClassic' is already given at grid.layouts[0]",
        "grid.depths[1]: expected a whole number >= 1, got 0",
        "grid.depths[2]: expected a whole number >= 1, got 'two'",
        "grid.depths[3]: the depth 2 is already given at grid.depths[0]",
        found[5],  # the loader's own message, checked below
        "grid.ghosts[1].agent: GreedyAgent is a pacman agent, not a ghost agent",
        "grid.ghosts[2].count: expected a whole number >= 0, got -1",
        "grid.ghosts[3].count: required: how many ghosts play (0 or more)",
        "grid.rules[0]: unknown ruleset 'cs22' (did you mean cs221?); expected one of "
        "classic, cs221",
        "grid.max_moves: expected a whole number >= 1 and <= 500,000, got 0",
    ]
    assert found[5].startswith(
        "grid.ghosts[0].agent: unknown ghost agent 'RandomGost' (did you mean RandomGhost?)"
    )


def test_a_broken_layout_file_is_reported_under_its_key(tmp_path: Path) -> None:
    (tmp_path / "bad.lay").write_text("%%%%\n%PX%\n%%%%\n", encoding="utf-8")
    [line] = problems(tmp_path, with_grid("layouts: [bad.lay]"))
    assert line.startswith(f"grid.layouts[0]: {tmp_path / 'bad.lay'}:2:3: unknown character 'X'")


def test_limits(tmp_path: Path) -> None:
    assert problems(
        tmp_path,
        MINIMAL + "limits: {move_hrad: 2, move_soft: fast, move_warnings: null, memory_mb: 0.5}\n",
    ) == [
        "limits.move_hrad: unknown key (did you mean move_hard?); expected one of startup, "
        "move_soft, move_warnings, move_hard, game_total, memory_mb, cpu_seconds, output_kb, "
        "processes, scratch_mb",
        "limits.move_soft: expected a number of seconds, got 'fast'; move_soft: seconds per "
        "move before a warning",
        "limits.move_warnings: cannot be switched off; expected a whole number, got null; "
        "move_warnings: moves over move_soft that are forgiven; one more is a timeout",
        "limits.memory_mb: expected a whole number, got 0.5; memory_mb: address space (and, "
        "where cgroups allow, resident memory) in MiB",
    ]
    assert problems(tmp_path, MINIMAL + "limits: {move_soft: 5, move_hard: 2}\n") == [
        "limits.move_soft: 5.0 s is above limits.move_hard (2.0 s), so the warning could "
        "never come before the kill"
    ]
    config = load_config(write(tmp_path, MINIMAL + "limits: {startup: null, move_hard: 10}\n"))
    assert config.limits == Limits(startup=None, move_hard=10.0)
    assert isinstance(config.limits.move_hard, float)


def test_record_and_ranking_problems(tmp_path: Path) -> None:
    assert problems(
        tmp_path,
        MINIMAL + "record: {replays: some}\nranking: {by: [win_rte, win_rate, win_rate], "
        "confidence: 95}\n",
    ) == [
        "record.replays: unknown replay policy 'some'; expected one of none, failures, all",
        "ranking.by[0]: unknown statistic 'win_rte' (did you mean win_rate?); expected one "
        "of win_rate, mean_score, mean_score_wins",
        "ranking.by[2]: the statistic 'win_rate' is already given at ranking.by[1]",
        "ranking.confidence: expected a number between 0 and 1 (like 0.95), got 95",
    ]


# ---- entrants -----------------------------------------------------------------------------


def test_baseline_problems(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        """\
        name: t
        grid: {layouts: [smallClassic], depths: [2]}
        entrants:
          baselines:
            - {name: a, agent: ExpectimaxAgnt}
            - {name: b, agent: ExpectimaxAgent, args: {dept: 2}}
            - {name: c, agent: ExpectimaxAgent, args: {evalFn: bettr}}
            - {name: d, agent: ExpectimaxAgent, args: {depth: 3}}
            - {name: e e, agent: GreedyAgent}
            - {agent: GreedyAgent, args: [depth]}
            - {name: a, agent: GreedyAgent, kind: x}
        """,
    )
    assert found == [
        found[0],
        "entrants.baselines[1].args.dept: ExpectimaxAgent has no option 'dept' (did you mean "
        "depth?); its options: evalFn, depth, weights, features",
        "entrants.baselines[2].args.evalFn: unknown evaluation 'bettr' (did "
        "you mean better?); expected score, better, contest, path/to/file.py:function or "
        "package.module:function",
        "entrants.baselines[3].args.depth: conflicts with grid.depths, which sets every "
        "entrant's depth; remove one (or set takes_depth: false to pin this entrant's depth)",
        "entrants.baselines[4].name: 'e e' cannot be used as a name: use up to 64 letters, "
        "digits and . _ + - (it appears in game ids and file names)",
        "entrants.baselines[5].name: required: the entrant's name",
        "entrants.baselines[5].args: expected a mapping of option: value, got a list",
        "entrants.baselines[6].kind: unknown key; expected one of name, agent, args, takes_depth",
    ]
    assert found[0].startswith(
        "entrants.baselines[0].agent: unknown pacman agent 'ExpectimaxAgnt' "
        "(did you mean ExpectimaxAgent or MinimaxAgent?)"
    )


def test_a_bad_option_value_is_put_at_its_option(tmp_path: Path) -> None:
    found = problems(tmp_path, """\
        name: t
        grid: {layouts: [smallClassic]}
        entrants:
          baselines:
            - {name: a, agent: ExpectimaxAgent, args: {depth: -3}}
            - {name: b, agent: AnytimeAgent, args: {mode: fast}}
            - {name: c, agent: MCTSAgent, args: {timeLimit: none}}
            - {name: d, agent: ExpectimaxAgent, args: {evalFn: better, weights: "food_lef:1"}}
          ghost_baselines:
            - {name: g, agent: AlphaBetaGhost, args: {depth: two}}
        matches: {}
        """)
    assert found[:4] == [
        "entrants.baselines[0].args.depth: expected at least 1, got -3",
        "entrants.baselines[1].args.mode: expected one of alphabeta, expectimax, directional, "
        "got 'fast'",
        "entrants.baselines[2].args.timeLimit: none needs a playouts budget",
        "entrants.baselines[3].args.weights: unknown feature 'food_lef' (did you mean "
        "food_left?); features: " + ", ".join(DEFAULT_WEIGHTS),
    ]
    assert found[4] == "entrants.ghost_baselines[0].args.depth: expected a whole number, got " \
        "'two'"


def test_a_pinned_depth_is_allowed_without_grid_depths_or_with_takes_depth_false(
    tmp_path: Path,
) -> None:
    text = """\
    name: t
    grid: {layouts: [smallClassic]DEPTHS}
    entrants:
      baselines:
        - {name: d, agent: ExpectimaxAgent, args: {depth: 3}TAKES}
    """
    plain = load_config(write(tmp_path, text.replace("DEPTHS", "").replace("TAKES", "")))
    assert plain.entrant("d").args == (("depth", "3"),)
    pinned = load_config(
        write(
            tmp_path,
            text.replace("DEPTHS", ", depths: [1]").replace("TAKES", ", takes_depth: false"),
        )
    )
    assert pinned.entrant("d").takes_depth is False


def test_a_file_baselines_options_are_read_from_its_source(tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(AGENT_FILE, encoding="utf-8")
    assert problems(
        tmp_path,
        MINIMAL.replace(
            "{name: greedy, agent: GreedyAgent}",
            "{name: tiny, agent: tiny.py:TinyAgent, args: {dpeth: 2}}",
        ),
    ) == [
        "entrants.baselines[0].args.dpeth: TinyAgent has no option 'dpeth' (did you mean "
        "depth?); its options: depth, flag, ratio"
    ]


def test_a_team_folder_named_as_a_baseline_plays_under_a_name_of_its_own(
        tmp_path: Path) -> None:
    """One team's folder name must not stop the whole class: a folder called as a baseline of
    its side plays as a name made from its folder's, and the baseline keeps its name."""
    make_team(tmp_path / "subs", "greedy", None, {"multiAgents.py": AGENT_FILE})
    config = load_config(write(tmp_path, MINIMAL.replace("entrants:\n",
                                                        "entrants:\n  submissions: subs\n")))
    [team] = [e for e in config.entrants if e.kind == "team"]
    assert team.name == team_entrant_name("greedy", {"greedy"}) != "greedy"
    assert re.fullmatch(r"greedy-[0-9a-f]{8}", team.name)
    assert team.folder == tmp_path / "subs" / "greedy"
    assert config.entrant("greedy").kind == "baseline"
    # Two baselines of one name are still the organizer's error.
    twice = MINIMAL.replace("    - {name: greedy, agent: GreedyAgent}\n",
                            "    - {name: greedy, agent: GreedyAgent}\n"
                            "    - {name: greedy, agent: RandomAgent}\n")
    assert problems(tmp_path, twice) == [
        "entrants.baselines[1].name: the entrant name 'greedy' is already given at "
        "entrants.baselines[0].name"]


def test_a_folder_named_as_the_name_made_for_another_plays_under_its_own(
        tmp_path: Path) -> None:
    """Found by a hostile review: beside `José García` (which plays as
    `Jos__Garc_a-978edf99`), a folder named `Jos__Garc_a-978edf99` made the config name one
    entrant twice, and no team played. Names made for folders go first; the other folder
    plays under a name made from its own. A folder alone keeps its name, as `collect`
    writes them."""
    made = team_entrant_name("José García")
    for folder in ("José García", made):
        make_team(tmp_path / "subs", folder, None, {"multiAgents.py": AGENT_FILE})
    config = load_config(write(tmp_path, MINIMAL.replace("entrants:\n",
                                                        "entrants:\n  submissions: subs\n")))
    teams = {e.folder.name: e.name for e in config.entrants if e.kind == "team"}
    assert teams == {"José García": made, made: team_entrant_name(made, {made})}
    assert teams[made] != made
    (tmp_path / "subs" / "José García" / "multiAgents.py").unlink()
    (tmp_path / "subs" / "José García").rmdir()
    alone = load_config(tmp_path / "t.yaml")
    assert [e.name for e in alone.entrants if e.kind == "team"] == [made]
    # The name made for a folder called as a baseline (`greedy`) cannot be taken either.
    for_baseline = team_entrant_name("greedy", {"greedy"})
    for folder in ("greedy", for_baseline):
        make_team(tmp_path / "subs", folder, None, {"multiAgents.py": AGENT_FILE})
    crowded = load_config(tmp_path / "t.yaml")
    names = {e.folder.name if e.folder else "": e.name for e in crowded.entrants}
    assert names[""] == "greedy" and names["greedy"] == for_baseline
    assert names[for_baseline] == team_entrant_name(for_baseline, {for_baseline})
    assert len(set(names.values())) == len(names)


def test_team_folders(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    make_team(subs, "alpha", None, {"multiAgents.py": AGENT_FILE})
    make_team(
        subs,
        "beta",
        "agent: multiAgents.py:TinyAgent\nargs: {depth: 3}\n",
        {"multiAgents.py": AGENT_FILE, "helpers.py": "X = 1\n"},
    )
    make_team(subs, ".git", None, {})
    make_team(subs, "__pycache__", None, {})
    (subs / "README.md").write_text("teams go here\n", encoding="utf-8")
    config = load_config(
        write(tmp_path, "name: t\nentrants: {submissions: subs}\ngrid: {layouts: [smallClassic]}\n")
    )
    assert [(e.name, e.kind, e.folder) for e in config.entrants] == [
        ("alpha", "team", subs / "alpha"),
        ("beta", "team", subs / "beta"),
    ]
    assert config.entrant("beta").args == ()  # team.yaml args are the loader's, at play time
    assert config.entrant("alpha").takes_depth is True
    assert config.submissions == subs


def test_a_team_whose_agent_has_no_depth_option_is_not_given_one(tmp_path: Path) -> None:
    shallow = AGENT_FILE.replace('depth="2", ', "")
    make_team(tmp_path / "subs", "shallow", None, {"multiAgents.py": shallow})
    config = load_config(
        write(tmp_path, "name: t\nentrants: {submissions: subs}\ngrid: {layouts: [smallClassic]}\n")
    )
    assert config.entrant("shallow").takes_depth is False


def test_no_team_folder_is_a_config_problem(tmp_path: Path) -> None:
    """A folder with nothing to play is its team's problem (its games its load_error), and one
    whose name cannot be an entrant's plays under a name made from it: neither stops the
    tournament of the others."""
    subs = tmp_path / "subs"
    make_team(subs, "empty", None, {"notes.txt": "todo\n"})
    make_team(subs, "good", None, {"multiAgents.py": AGENT_FILE})
    make_team(subs, "bad name", None, {"multiAgents.py": AGENT_FILE})
    config = load_config(
        write(tmp_path, "name: t\nentrants: {submissions: subs}\ngrid: {layouts: [smallClassic]}\n")
    )
    renamed = team_entrant_name("bad name")
    assert renamed != "bad name" and NAME_PATTERN.fullmatch(renamed)
    assert {e.name: (e.folder, e.problem) for e in config.entrants} == {
        renamed: (subs / "bad name", None),
        "empty": (subs / "empty", f"{subs / 'empty'}: no team.yaml and no *gents.py or "
                  "submission.py in the folder, so there is no agent to play"),
        "good": (subs / "good", None),
    }


def test_a_team_that_cannot_be_resolved_is_an_entrant_with_its_problem(tmp_path: Path) -> None:
    """What is inside a team folder is the team's: a bad team.yaml, a missing class or a link
    does not stop a tournament of other teams (their games fail to load instead)."""
    subs = tmp_path / "subs"
    make_team(subs, "typo", "agent: multiAgents.py:TinyAgnt\n", {"multiAgents.py": AGENT_FILE})
    make_team(subs, "bomb", "a: &a [1, 2]\nb: [*a, *a]\nagent: multiAgents.py:TinyAgent\n",
              {"multiAgents.py": AGENT_FILE})
    make_team(subs, "deep", "agent: multiAgents.py:TinyAgent\nargs: " + "[" * 10_000
              + "]" * 10_000 + "\n", {"multiAgents.py": AGENT_FILE})
    make_team(subs, "good", None, {"multiAgents.py": AGENT_FILE})
    (subs / "copycat").symlink_to(subs / "good")
    config = load_config(
        write(tmp_path, "name: t\nentrants: {submissions: subs}\ngrid: {layouts: [smallClassic]}\n")
    )
    found = {e.name: e.problem for e in config.entrants}
    assert sorted(found) == ["bomb", "copycat", "deep", "good", "typo"]
    assert found["good"] is None
    assert found["typo"] is not None and found["typo"].startswith(
        f"{subs / 'typo' / 'multiAgents.py'} defines no class 'TinyAgnt' (did you mean TinyAgent?)"
    )
    assert found["bomb"] == (
        f"{subs / 'bomb' / 'team.yaml'}: line 1, column 4: an anchor (&name) is not allowed "
        "here: write the value out"
    )
    assert found["deep"] == (
        f"{subs / 'deep' / 'team.yaml'}: line 2, column 14: nested more than 8 levels deep"
    )
    assert found["copycat"] is not None and found["copycat"].startswith(
        f"{subs / 'copycat'}: the team folder is a symbolic link"
    )
    # Its games are scheduled like everyone's: the tournament plays on.
    assert config.entrant("copycat").folder == subs / "copycat"


def test_submissions_folder_problems(tmp_path: Path) -> None:
    grid = "grid: {layouts: [smallClassic]}\n"
    assert problems(tmp_path, "name: t\nentrants: {submissions: nowhere}\n" + grid) == [
        f"entrants.submissions: no such folder 'nowhere' (looked for {tmp_path / 'nowhere'})"
    ]
    make_team(tmp_path, "solo", "agent: multiAgents.py:TinyAgent\n", {"multiAgents.py": AGENT_FILE})
    assert problems(tmp_path, "name: t\nentrants: {submissions: solo}\n" + grid) == [
        "entrants.submissions: 'solo' is itself a team folder; give the folder that holds "
        "the team folders, or list this one under baselines"
    ]


def test_several_problems_are_reported_at_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        name: t
        seed: x
        entrants:
          baselines:
            - {name: a, agent: ExpectimaxAgnt}
        grid:
          layouts: [smallClassic, mediumClassic, smalClassic]
        games_per_cell: twenty
        workers: -1
        colour: blue
        """,
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    lines = str(info.value).splitlines()
    assert len(lines) == 6
    assert all(line.startswith(f"{path}: ") for line in lines)
    keys = [line.removeprefix(f"{path}: ").split(":")[0] for line in lines]
    # In the order of the file's top-level keys, whatever order they were checked in.
    assert keys == [
        "seed",
        "entrants.baselines[0].agent",
        "grid.layouts[2]",
        "games_per_cell",
        "workers",
        "colour",
    ]


def test_a_baseline_may_name_the_builtin_beside_course_files(tmp_path: Path) -> None:
    # The config's folder is a course folder whose files do not define GreedyAgent: the bare
    # name is refused (as `pacman -p` refuses it), `builtin:GreedyAgent` plays the platform's.
    (tmp_path / "multiAgents.py").write_text(AGENT_FILE, encoding="utf-8")
    text = MINIMAL.replace("agent: GreedyAgent", "agent: builtin:GreedyAgent")
    config = load_config(write(tmp_path, text))
    [baseline] = config.entrants
    assert baseline.ref == "builtin:GreedyAgent"
    found = problems(tmp_path, MINIMAL)
    assert len(found) == 1 and "builtin:GreedyAgent" in found[0], found


# ---- ghost entrants and matches --------------------------------------------------------------

GHOST_FILE = """\
from game import Agent, Directions

class ShyGhost(Agent):
    def __init__(self, index, shyness="1"):
        self.index = index

    def getAction(self, state):
        return state.getLegalActions(self.index)[0]
"""

MATCHES = """\
name: t
entrants:
  baselines:
    - {name: greedy, agent: GreedyAgent}
    - {name: expectimax, agent: ExpectimaxAgent}
  ghost_baselines:
    - {name: random, agent: RandomGhost}
    - {name: directional, agent: DirectionalGhost, args: {prob_attack: 0.9}}
grid:
  layouts: [smallClassic]
  depths: [2]
games_per_cell: 4
"""


def test_ghost_baselines_and_the_default_match_format(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MATCHES + "matches: {}\n"))
    assert [(e.name, e.side) for e in config.entrants] == [
        ("greedy", "pacman"), ("expectimax", "pacman")]
    assert [(e.name, e.kind, e.ref, e.args, e.side, e.takes_depth)
            for e in config.ghost_entrants] == [
        ("random", "baseline", "RandomGhost", (), "ghosts", False),
        ("directional", "baseline", "DirectionalGhost", (("prob_attack", "0.9"),), "ghosts",
         False),
    ]
    assert config.matches == MatchConfig(
        design="all", opponents=None, ghosts=2, games=4, anchor="random", anchor_side="ghosts"
    )
    # Fixed-ghost games stay as today when grid.ghosts is left out.
    assert config.grid.ghosts == (GhostSetting("RandomGhost", 2),)
    text = describe_config(config)
    assert "ghost entrants (2):" in text
    assert "matches: all: every Pacman entrant against every ghost entrant, 2 x 2 = 4 pairings" \
        in text
    assert "1 match cells (2 ghosts) x 4 pairings x 4 games = 16 match games" in text
    assert "ratings anchored at random (ghosts) = 0" in text


@pytest.mark.parametrize("address, refused", [
    ("tcp://10.0.0.5:8786", True),
    ("scheduler-host:8786", True),       # tcp:// by default
    ("ws://[2001:db8::1]:8786", True),
    ("tls://10.0.0.5:8786", False),
    ("tcp://127.0.0.1:8786", False),
    ("tcp://localhost:8786", False),
    ("tcp://[::1]:8786", False),
])
def test_a_plain_connection_to_another_host_needs_a_trusted_network(
        tmp_path: Path, address: str, refused: bool) -> None:
    """Found by the eighteenth hostile review: over plain tcp:// anyone who reaches the
    scheduler's port can run code on every worker and hand back results of their choosing."""
    text = MINIMAL + f"scheduler: {address}\n"
    found = problems(tmp_path, text) if refused else []
    assert bool(found) == refused
    if refused:
        assert "neither encrypted nor authenticated" in found[0] and \
            "cluster: {trusted_network: true}" in found[0], found
        trusted = load_config(write(tmp_path, text + "cluster: {trusted_network: true}\n"))
        assert trusted.cluster.trusted_network
    else:
        assert not load_config(write(tmp_path, text)).cluster.trusted_network


def test_a_team_on_both_sides_is_never_a_config_error(tmp_path: Path) -> None:
    """A team's team.yaml adding a `ghost:` (it then plays both sides, and never meets
    itself) cannot make the organizer's config an error, even where `opponents` is the whole
    smaller side: that team meets every other entrant (found by the review of the design's
    checks: one student's file stopped every command)."""
    subs = tmp_path / "subs"
    make_team(subs, "both", "agent: multiAgents.py:TinyAgent\nghost: ghosts.py:ShyGhost\n",
              {"multiAgents.py": AGENT_FILE, "ghosts.py": GHOST_FILE})
    text = MATCHES.replace("entrants:\n", "entrants:\n  submissions: subs\n")
    config = load_config(write(tmp_path, text + "matches: {design: sampled, opponents: 3}\n"))
    pairs = pairings(config)
    assert ("both", "both") not in pairs
    assert Counter(p for p, _ in pairs) == {"greedy": 3, "expectimax": 3, "both": 2}
    assert f"= {len(pairs)} pairings" in describe_config(config)


def test_a_team_never_plays_under_a_baselines_name_even_of_the_other_side(
        tmp_path: Path) -> None:
    """Found by a hostile review: marks, ratings and a team's page find a team's games by its
    name, so a ghosts-only team called `greedy` (the Pacman baseline) was marked on that
    baseline's Pacman games. A team folder called as any baseline, on either side, plays
    under a name of its own; baselines keep theirs, and a team's two sides keep one name."""
    subs = tmp_path / "subs"
    make_team(subs, "greedy", "ghost: ghosts.py:ShyGhost\n", {"ghosts.py": GHOST_FILE})
    make_team(subs, "random", "agent: multiAgents.py:TinyAgent\n",
              {"multiAgents.py": AGENT_FILE})
    make_team(subs, "both", "agent: multiAgents.py:TinyAgent\nghost: ghosts.py:ShyGhost\n",
              {"multiAgents.py": AGENT_FILE, "ghosts.py": GHOST_FILE})
    config = load_config(write(tmp_path, MATCHES.replace("entrants:\n",
                                                         "entrants:\n  submissions: subs\n")
                               + "matches: {}\n"))
    everyone = [*config.entrants, *config.ghost_entrants]
    named = {(e.name, e.side): (e.kind, e.folder.name if e.folder else None) for e in everyone}
    assert named[("greedy", "pacman")] == ("baseline", None)
    assert named[("random", "ghosts")] == ("baseline", None)
    assert named[(team_entrant_name("greedy", {"greedy"}), "ghosts")] == ("team", "greedy")
    assert named[(team_entrant_name("random", {"random"}), "pacman")] == ("team", "random")
    assert named[("both", "pacman")] == named[("both", "ghosts")] == ("team", "both")
    teams = {e.name for e in everyone if e.kind == "team"}
    assert not teams & {e.name for e in everyone if e.kind == "baseline"}
    # A chain of folders each named as the name made for the one before, sides alternating
    # (found by a review of this change: four passes left a name on two folders' sides).
    chain = tmp_path / "chain"
    names = ["greedy"]
    for _ in range(5):
        names.append(team_entrant_name(names[-1], {names[-1]}))
    for i, name in enumerate(names):
        if i % 2 == 0:
            make_team(chain, name, "ghost: ghosts.py:ShyGhost\n", {"ghosts.py": GHOST_FILE})
        else:
            make_team(chain, name, "agent: multiAgents.py:TinyAgent\n",
                      {"multiAgents.py": AGENT_FILE})
    crowded = load_config(write(tmp_path, MATCHES.replace("entrants:\n",
                                                          "entrants:\n  submissions: chain\n")
                                + "matches: {}\n"))
    holders: dict[str, set[str | None]] = {}
    for e in [*crowded.entrants, *crowded.ghost_entrants]:
        holders.setdefault(e.name, set()).add(e.folder.name if e.folder else None)
    assert all(len(held) == 1 for held in holders.values()), holders


def test_without_matches_nothing_changes(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL))
    assert config.matches is None and config.ghost_entrants == ()
    assert not [line for line in describe_config(config).splitlines() if "match" in line[:8]]


def test_every_match_key_set(tmp_path: Path) -> None:
    (tmp_path / "ghosts.py").write_text(GHOST_FILE, encoding="utf-8")
    text = MATCHES.replace(
        "  ghost_baselines:\n",
        "  ghost_baselines:\n    - {name: shy, agent: ghosts.py:ShyGhost, args: {shyness: 2}}\n",
    ).replace("  depths: [2]\n", "  depths: [2]\n  ghosts: []\n")
    config = load_config(write(tmp_path, text + """\
matches:
  design: sampled
  opponents: 2
  ghosts: 3
  games: 7
  anchor: greedy
  anchor_side: pacman
"""))
    assert config.matches == MatchConfig("sampled", 2, 3, 7, "greedy", "pacman")
    assert config.grid.ghosts == ()
    shy = config.ghost_entrant("shy")
    assert shy.ref == f"{tmp_path / 'ghosts.py'}:ShyGhost"
    assert shy.args == (("shyness", "2"),)
    assert "matches: sampled: 2 opponents each (2 Pacman, 3 ghost entrants) = 6 pairings" in (
        describe_config(config))


def test_teams_enter_the_sides_their_team_yaml_names(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    make_team(subs, "both", "agent: multiAgents.py:TinyAgent\nghost: ghosts.py:ShyGhost\n",
              {"multiAgents.py": AGENT_FILE, "ghosts.py": GHOST_FILE})
    make_team(subs, "haunt", "ghost: ghosts.py:ShyGhost\nghost_args: {shyness: 3}\n",
              {"ghosts.py": GHOST_FILE})
    make_team(subs, "plain", None, {"multiAgents.py": AGENT_FILE})
    make_team(subs, "broken", "agent: [\n", {"multiAgents.py": AGENT_FILE})
    config = load_config(write(
        tmp_path,
        "name: t\nentrants:\n  submissions: subs\n  ghost_baselines: "
        "[{name: random, agent: RandomGhost}]\ngrid: {layouts: [smallClassic]}\nmatches: {}\n",
    ))
    assert [e.name for e in config.entrants] == ["both", "broken", "plain"]
    assert [e.name for e in config.ghost_entrants] == ["both", "haunt", "random"]
    assert config.entrant("both").problem is None
    assert config.entrant("both").side == "pacman"
    assert config.entrant("broken").problem is not None  # its games are its load_error
    haunt = config.ghost_entrant("haunt")
    assert (haunt.kind, haunt.ref, haunt.folder, haunt.args, haunt.side, haunt.takes_depth) == (
        "team", str(subs / "haunt"), subs / "haunt", (), "ghosts", False)
    # A team on both sides is one name on each: `entrant` is the Pacman side.
    assert config.entrant("both") != config.ghost_entrant("both")


def test_names_are_unique_per_side(tmp_path: Path) -> None:
    text = MATCHES.replace(
        "    - {name: random, agent: RandomGhost}\n",
        "    - {name: random, agent: RandomGhost}\n    - {name: random, agent: RandomGhost}\n"
        "    - {name: greedy, agent: RandomGhost}\n",
    )
    assert problems(tmp_path, text + "matches: {}\n") == [
        "entrants.ghost_baselines[1].name: the entrant name 'random' is already given at "
        "entrants.ghost_baselines[0].name",
    ]


def test_match_problems_name_their_keys(tmp_path: Path) -> None:
    def found(matches: str, text: str = MATCHES) -> list[str]:
        return problems(tmp_path, text + "matches: " + matches + "\n")

    no_ghosts = MATCHES.split("  ghost_baselines:")[0] + "grid:" + MATCHES.split("grid:")[1]
    assert found("{}", no_ghosts) == [
        "matches: no ghost entrant to play against: give teams whose team.yaml names a ghost, "
        "or entrants.ghost_baselines",
    ]
    assert found("{design: sampled}") == [
        "matches.opponents: required with design: sampled: how many opponents each entrant "
        "meets",
    ]
    assert found("{design: sampled, opponents: 3}") == [
        "matches.opponents: 3 opponents per entrant, but there are only 2 Pacman entrants to "
        "meet",
    ]
    assert found("{design: sampled, opponents: 1}") == [
        "matches.opponents: 1 opponent per entrant leaves groups of entrants that no game "
        "links, so they cannot be rated on one scale; use at least 2",
    ]
    assert found("{opponents: 2}") == [
        "matches.opponents: only a sampled design takes opponents (design: all plays every "
        "pairing); remove it or set design: sampled",
    ]
    assert found("{anchor: randon}") == [
        "matches.anchor: unknown entrant 'randon' (did you mean random?); expected one of "
        "directional, expectimax, greedy, random",
    ]
    assert found("{anchor: greedy, anchor_side: ghosts}") == [
        "matches.anchor: no ghosts entrant 'greedy'",
    ]
    assert found("{design: samples, ghosts: 0, games: x, anchr: random}") == [
        "matches.anchr: unknown key (did you mean anchor?); expected one of design, "
        "opponents, ghosts, games, anchor, anchor_side",
        "matches.design: unknown design 'samples' (did you mean sampled?); expected one of "
        "all, sampled",
        "matches.ghosts: expected a whole number >= 1, got 0",
        "matches.games: expected a whole number >= 1, got 'x'",
    ]


def test_an_anchor_on_both_sides_needs_its_side(tmp_path: Path) -> None:
    both = MATCHES.replace("{name: random, agent: RandomGhost}",
                           "{name: greedy, agent: RandomGhost}")
    assert problems(tmp_path, both + "matches: {anchor: greedy}\n") == [
        "matches.anchor: 'greedy' is both a Pacman and a ghost entrant; say which with "
        "anchor_side: pacman or ghosts",
    ]
    config = load_config(write(tmp_path, both + "matches: {anchor: greedy, anchor_side: pacman}\n"))
    assert config.matches is not None
    assert (config.matches.anchor, config.matches.anchor_side) == ("greedy", "pacman")


def test_without_a_ghost_baseline_the_anchor_must_be_named(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    make_team(subs, "haunt", "ghost: ghosts.py:ShyGhost\n", {"ghosts.py": GHOST_FILE})
    text = ("name: t\nentrants:\n  submissions: subs\n  baselines: [{name: greedy, agent: "
            "GreedyAgent}]\ngrid: {layouts: [smallClassic]}\n")
    assert problems(tmp_path, text + "matches: {}\n") == [
        "matches.anchor: required: the entrant rated 0 (there is no ghost baseline to default "
        "to)",
    ]
    config = load_config(write(tmp_path, text + "matches: {anchor: greedy}\n"))
    assert config.matches is not None and config.matches.anchor_side == "pacman"


def test_ghost_baseline_problems(tmp_path: Path) -> None:
    text = MATCHES.split("  ghost_baselines:")[0] + """\
  ghost_baselines:
    - {name: a, agent: ExpectimaxAgent}
    - {name: b, agent: DirectionalGhost, args: {prob_atack: 0.5}}
    - {name: c, agent: DirectionalGhost, args: {prob_attack: often}}
    - {name: d, agent: RandomGost}
    - {name: e, agent: RandomGhost, takes_depth: false}
    - {name: f, agent: RandomGhost}
grid: {layouts: [smallClassic]}
matches: {anchor: f}
"""
    found = problems(tmp_path, text)
    assert found == [
        "entrants.ghost_baselines[0].agent: ExpectimaxAgent is a pacman agent, not a ghost "
        "agent",
        "entrants.ghost_baselines[1].args.prob_atack: DirectionalGhost has no option "
        "'prob_atack' (did you mean prob_attack?); its options: prob_attack, prob_scaredFlee",
        "entrants.ghost_baselines[2].args: could not convert string to float: 'often'",
        found[3],
        "entrants.ghost_baselines[4].takes_depth: unknown key; expected one of name, agent, "
        "args",
    ]
    assert found[3].startswith(
        "entrants.ghost_baselines[3].agent: unknown ghost agent 'RandomGost' (did you mean "
        "RandomGhost?)"
    )


def test_empty_grid_ghosts_needs_matches(tmp_path: Path) -> None:
    assert problems(tmp_path, with_grid("layouts: [smallClassic]\nghosts: []\n")) == [
        "grid.ghosts: expected at least one {agent, count} (an empty list is for configs with "
        "matches: then only match games are played)",
    ]
    config = load_config(write(tmp_path, MATCHES.replace(
        "  depths: [2]\n", "  depths: [2]\n  ghosts: []\n") + "matches: {}\n"))
    assert config.grid.ghosts == ()
    described = describe_config(config)
    assert "cells x" not in described and "ranking: by" not in described  # no fixed games
    assert "match games" in described and "ratings: 95% intervals" in described


def test_ghost_entrants_without_matches(tmp_path: Path) -> None:
    assert problems(tmp_path, MATCHES) == [
        "entrants.ghost_baselines: ghost baselines play only in match games: add a matches: "
        "section, or remove them",
    ]
    # A team's ghost is simply not played in today's format...
    subs = tmp_path / "subs"
    make_team(subs, "haunt", "ghost: ghosts.py:ShyGhost\n", {"ghosts.py": GHOST_FILE})
    text = "name: t\nentrants: {submissions: subs}\ngrid: {layouts: [smallClassic]}\n"
    # ... but with no Pacman entrant at all, nothing would play.
    assert problems(tmp_path, text) == [
        "entrants: no Pacman entrant: without matches: only Pacman entrants play; give teams "
        "whose team.yaml names an agent, or baselines",
    ]
    make_team(subs, "pac", None, {"multiAgents.py": AGENT_FILE})
    config = load_config(write(tmp_path, text))
    assert [e.name for e in config.entrants] == ["pac"]
    assert config.ghost_entrants == ()  # nothing plays it: not an entrant of this format


@pytest.mark.parametrize(("address", "expected"), [
    ("tcp://host:x", "scheduler: expected a port from 1 to 65535 in 'tcp://host:x', got 'x'"),
    ("host:99999", "scheduler: expected a port from 1 to 65535 in 'host:99999', got '99999'"),
    ("tpc://host:8786", "scheduler: unknown protocol 'tpc' in 'tpc://host:8786'; expected one "
                        "of tcp, tls, ws, wss, ucx, inproc, as in tcp://host:8786"),
    ("tcp://:8786", "scheduler: expected a host name or IP address in 'tcp://:8786', as in "
                    "tcp://host:8786"),
    ("tcp://[::1:8786", "scheduler: expected [IPv6 host]:port, got 'tcp://[::1:8786'"),
])
def test_a_malformed_scheduler_address_is_refused_before_dask_sees_it(
        tmp_path: Path, address: str, expected: str) -> None:
    # Dask takes these and then waits out its connect timeout before a message that names
    # neither the key nor the fault.
    assert problems(tmp_path, MINIMAL + f"scheduler: '{address}'\n") == [expected]


@pytest.mark.parametrize("address", ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://h.example",
                                     "tcp://[::1]:8786", "localhost"])
def test_well_formed_scheduler_addresses_are_taken(tmp_path: Path, address: str) -> None:
    trusted = "cluster: {trusted_network: true}\n"  # (plain tcp:// to another host needs it)
    assert load_config(write(tmp_path, MINIMAL + f"scheduler: '{address}'\n" + trusted)
                       ).scheduler == address


def test_results_and_secret_may_not_lie_in_a_folder_an_agent_plays_from(tmp_path: Path) -> None:
    """A team's folder is snapshotted whole for its sandbox: a results folder or secret file
    inside it would be shown to its agent (the secret lets it predict the ghosts' draws) and
    would change its submission hash at every run. Inside the submissions folder, a results
    folder would be taken for a team. Both are refused, naming the key and the folder."""
    subs = tmp_path / "subs"
    team = make_team(subs, "alpha", None, {"multiAgents.py": AGENT_FILE.replace(
        "TinyAgent", "ExpectimaxAgent")})
    config = ("name: t\nentrants:\n  submissions: subs\n  agent: ExpectimaxAgent\n"
              "grid:\n  layouts: [testClassic]\n")
    assert problems(tmp_path, config + "output: subs/alpha/out\n"
                    "secret_file: subs/alpha/deep/secret\n") == [
        f"output: {team / 'out'} is inside the folder of entrant alpha ({team}), which its "
        "agent sees and its games are keyed by; put it outside",
        f"secret_file: {team / 'deep' / 'secret'} is inside the folder of entrant alpha "
        f"({team}), which its agent sees and its games are keyed by; put it outside"]
    assert problems(tmp_path, config + "output: subs/results\n") == [
        f"output: {subs / 'results'} is inside the submissions folder ({subs}), where each "
        "folder is taken for a team; put it outside"]
    # A baseline played from a folder is snapshotted whole too.
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "multiAgents.py").write_text(AGENT_FILE)
    (tmp_path / "mine" / "team.yaml").write_text("name: mine\nagent: multiAgents.py:TinyAgent\n")
    baseline = ("name: t\nentrants:\n  baselines: [{name: mine, agent: ./mine}]\n"
                "grid:\n  layouts: [testClassic]\n")
    assert problems(tmp_path, baseline + "output: mine/out\n") == [
        f"output: {tmp_path / 'mine' / 'out'} is inside the folder of entrant mine "
        f"({tmp_path / 'mine'}), which its agent sees and its games are keyed by; put it "
        "outside"]
    # Beside them is fine, as is a folder whose name merely starts like a team's.
    assert load_config(write(tmp_path, config + "output: subs-results\n"
                             "secret_file: alpha-secret\n")).output == tmp_path / "subs-results"


def test_results_secret_and_teams_may_not_lie_where_every_sandbox_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sandbox reads the interpreter's library folders (a virtualenv's site-packages),
    the platform and the system's libraries: a results folder or secret there would be open
    to every team, and so would every team's folder be to the others."""
    from pacman.sandbox import process

    venv = tmp_path / "venv"
    monkeypatch.setattr(process, "interpreter_paths", lambda: (str(venv),))
    make_team(venv / "subs", "alpha", None, {"multiAgents.py": AGENT_FILE.replace(
        "TinyAgent", "ExpectimaxAgent")})
    config = ("name: t\nentrants:\n  submissions: venv/subs\n  agent: ExpectimaxAgent\n"
              "grid:\n  layouts: [testClassic]\n")
    readable = (f"{venv}, which every agent's sandbox can read (the interpreter, the platform "
                "or the system); put it outside")
    assert problems(tmp_path, config + "output: venv/out\nsecret_file: venv/secret\n") == [
        f"output: {venv / 'out'} is inside {readable}",
        f"secret_file: {venv / 'secret'} is inside {readable}",
        f"entrants.submissions: {venv / 'subs'} is inside {readable}"]


@pytest.mark.parametrize("trusted", [False, True])
def test_a_cluster_whose_scheduler_or_workers_talk_plain_tcp_elsewhere_needs_trust(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trusted: bool) -> None:
    """The config's address is not enough (the review of the trusted-network check):
    `tcp://localhost:8786` reaches a scheduler that may listen on every interface, for
    workers elsewhere. The addresses the scheduler reports, its own and its workers', are
    checked once connected."""
    from pacman.identity import platform_id
    from tournament import cli, executors

    class FakeCluster:
        closed = False

        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def connect(self) -> None:
            pass

        def versions(self) -> dict[str, str]:
            return {"tcp://10.1.2.3:40000": platform_id()}

        def addresses(self) -> list[str]:
            return ["tcp://10.1.2.2:8786", "tcp://10.1.2.3:40000"]

        def threads(self) -> tuple[int, int]:
            return 1, 1

        def close(self) -> None:
            FakeCluster.closed = True

    monkeypatch.setattr(executors, "DaskExecutor", FakeCluster)
    extra = "cluster: {trusted_network: true}\n" if trusted else ""
    config = load_config(write(tmp_path, MINIMAL + "scheduler: tcp://localhost:8786\n" + extra))
    if trusted:
        assert isinstance(cli.connect_cluster(config), FakeCluster)
        return
    with pytest.raises(SystemExit) as stopped:
        cli.connect_cluster(config)
    assert stopped.value.code == 2 and FakeCluster.closed


def test_a_team_whose_course_plays_other_rules_than_the_grid_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A CS221 submission.py is played by the cs221 rules on the student's machine (the
    `pacman` command's reading): a grid that plays it by the classic rules only, where its
    search is offered Stop, says so, in one line naming such teams (and the reverse),
    without stopping."""
    from tournament.cli import other_course_rules, warn_other_course_rules

    subs = tmp_path / "subs"
    make_team(subs, "cs188", None, {"multiAgents.py": AGENT_FILE})
    for name in ("cs221", "cs221b"):
        make_team(subs, name, None, {"submission.py": AGENT_FILE})
    said = {}
    for rules in ("[classic]", "[cs221]", "[classic, cs221]"):
        config = load_config(write(tmp_path, "name: t\nentrants: {submissions: subs}\n"
                                   f"grid: {{layouts: [smallClassic], rules: {rules}}}\n"))
        said[rules] = {e.name: other_course_rules(config, e) for e in config.entrants}
        capsys.readouterr()
        warn_other_course_rules(config)
        said[rules]["printed"] = " ".join(capsys.readouterr().out.split())
    assert said["[classic, cs221]"] == {"cs188": None, "cs221": None, "cs221b": None,
                                        "printed": ""}
    assert said["[classic]"] == {"cs188": None, "cs221": "cs221", "cs221b": "cs221",
                                 "printed": said["[classic]"]["printed"]}
    assert said["[classic]"]["printed"] == (
        "warning: 2 team(s) play a CS221 submission.py, whose course never offers Stop and "
        "lists moves North, South, East, West, but grid.rules is [classic]; a class of such "
        "files sets grid.rules: [cs221]: cs221, cs221b")
    assert said["[cs221]"]["cs188"] == "classic"
    assert said["[cs221]"]["printed"].startswith("warning: 1 team(s) play a CS188 file")
