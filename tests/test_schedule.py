"""The schedule: stable ids, common random numbers, nothing moves when the config grows."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from pacman.seeds import derive_seed
from tournament.config import Entrant, TournamentConfig, parse_config
from tournament.schedule import Cell, ScheduledGame, agent_args, cells, game_id, schedule

BASELINES = [
    {"name": "greedy", "agent": "GreedyAgent"},
    {"name": "expectimax", "agent": "ExpectimaxAgent", "args": {"evalFn": "better"}},
]


def make(
    baselines: list[dict[str, Any]] | None = None,
    layouts: tuple[str, ...] = ("smallClassic", "testClassic"),
    depths: list[int] | None = None,
    games: int = 3,
    seed: int = 42,
    **grid: Any,
) -> TournamentConfig:
    data = {
        "name": "schedule test",
        "seed": seed,
        "entrants": {"baselines": baselines if baselines is not None else BASELINES},
        "grid": {"layouts": list(layouts), "depths": depths or [1, 2], **grid},
        "games_per_cell": games,
    }
    return parse_config(data, "test", Path.cwd())


def facts(games: list[ScheduledGame]) -> set[tuple[str, str, str, int, int]]:
    return {(g.game_id, g.entrant, g.cell.key, g.index, g.seed) for g in games}


def test_ids_and_seeds_are_pinned() -> None:
    """The id format and the seed derivation are part of every stored result: never change."""
    first = schedule(make(depths=[2]))[0]
    assert first.game_id == "greedy@smallClassic/d2/RandomGhost2/classic#0"
    assert first.cell == Cell("smallClassic", 2, "RandomGhost", 2, "classic")
    assert first.seed == derive_seed(42, "smallClassic/d2/RandomGhost2/classic", 0)
    assert first.seed == 7935082592404315362


def test_the_same_config_gives_the_same_schedule() -> None:
    assert schedule(make()) == schedule(make())


def test_every_entrant_gets_the_same_seeds_in_a_cell() -> None:
    games = schedule(make())
    by_game: dict[tuple[str, int], set[int]] = {}
    entrants_per_game: Counter[tuple[str, int]] = Counter()
    for g in games:
        by_game.setdefault((g.cell.key, g.index), set()).add(g.seed)
        entrants_per_game[(g.cell.key, g.index)] += 1
    assert all(len(seeds) == 1 for seeds in by_game.values())
    assert set(entrants_per_game.values()) == {2}
    # ... and different games get different seeds.
    distinct = {next(iter(seeds)) for seeds in by_game.values()}
    assert len(distinct) == len(by_game)


def test_counts_and_unique_ids() -> None:
    config = make(
        games=4,
        ghosts=[{"agent": "RandomGhost", "count": 1}, {"agent": "DirectionalGhost", "count": 2}],
        rules=["classic", "cs221"],
    )
    grid_cells = cells(config)
    assert len(grid_cells) == 2 * 2 * 2 * 2  # layouts x depths x ghosts x rules
    assert len({c.key for c in grid_cells}) == len(grid_cells)
    games = schedule(config)
    assert len(games) == len(grid_cells) * 2 * 4
    assert len({g.game_id for g in games}) == len(games)
    assert Counter(g.entrant for g in games) == {"greedy": 64, "expectimax": 64}


def test_cell_order_and_keys() -> None:
    config = make(ghosts=[{"agent": "DirectionalGhost", "count": 3}], rules=["cs221"])
    assert [c.key for c in cells(config)] == [
        "smallClassic/d1/DirectionalGhost3/cs221",
        "smallClassic/d2/DirectionalGhost3/cs221",
        "testClassic/d1/DirectionalGhost3/cs221",
        "testClassic/d2/DirectionalGhost3/cs221",
    ]


def test_without_depths_the_cell_says_d_dash() -> None:
    data = {
        "name": "t",
        "entrants": {"baselines": BASELINES},
        "grid": {"layouts": ["smallClassic"]},
    }
    config = parse_config(data, "test", Path.cwd())
    assert [c.key for c in cells(config)] == ["smallClassic/d-/RandomGhost2/classic"]
    assert cells(config)[0].depth is None


def test_a_ghost_from_a_file_is_keyed_by_its_class_name(tmp_path: Path) -> None:
    (tmp_path / "ghosts.py").write_text(
        "from game import Agent\nclass ShyGhost(Agent):\n    pass\n", encoding="utf-8"
    )
    data = {
        "name": "t",
        "entrants": {"baselines": BASELINES},
        "grid": {
            "layouts": ["smallClassic"],
            "ghosts": [{"agent": "ghosts.py:ShyGhost", "count": 1}],
        },
    }
    [cell] = cells(parse_config(data, "test", tmp_path))
    assert cell.ghost == f"{tmp_path / 'ghosts.py'}:ShyGhost"
    assert cell.key == "smallClassic/d-/ShyGhost1/classic"


def test_adding_an_entrant_changes_no_existing_game() -> None:
    before = facts(schedule(make()))
    after = facts(
        schedule(make(baselines=[*BASELINES, {"name": "random", "agent": "RandomAgent"}]))
    )
    assert before < after
    assert {f for f in after - before if f[1] != "random"} == set()


def test_adding_an_entrant_in_front_changes_no_existing_game() -> None:
    before = facts(schedule(make()))
    after = facts(schedule(make(baselines=[{"name": "aaa", "agent": "RandomAgent"}, *BASELINES])))
    assert before < after


def test_adding_a_layout_a_depth_or_games_changes_no_existing_game() -> None:
    before = facts(schedule(make()))
    for bigger in (
        make(layouts=("mediumClassic", "smallClassic", "testClassic")),
        make(depths=[1, 2, 3]),
        make(games=5),
    ):
        assert before < facts(schedule(bigger))


def test_removing_an_entrant_keeps_the_others_games() -> None:
    full = facts(schedule(make()))
    alone = facts(schedule(make(baselines=BASELINES[1:])))
    assert alone == {f for f in full if f[1] == "expectimax"}


def test_the_master_seed_changes_seeds_not_ids() -> None:
    one, two = schedule(make(seed=1)), schedule(make(seed=2))
    assert [g.game_id for g in one] == [g.game_id for g in two]
    assert not {g.seed for g in one} & {g.seed for g in two}


def test_index_outermost_so_a_partial_run_is_balanced() -> None:
    config = make(games=3)
    games = schedule(config)
    per_round = len(cells(config)) * len(config.entrants)
    for done in range(per_round, len(games) + 1, per_round):
        played = Counter((g.entrant, g.cell.key) for g in games[:done])
        assert set(played.values()) == {done // per_round}
    # Within a round, the entrants play a cell's game one after another.
    assert [(g.entrant, g.cell.key) for g in games[:2]] == [
        ("greedy", "smallClassic/d1/RandomGhost2/classic"),
        ("expectimax", "smallClassic/d1/RandomGhost2/classic"),
    ]


def test_game_id_is_built_from_entrant_cell_and_index() -> None:
    cell = Cell("smallClassic", None, "RandomGhost", 2, "classic")
    assert game_id("team-1", cell, 12) == "team-1@smallClassic/d-/RandomGhost2/classic#12"


def test_agent_args_add_the_cell_depth_where_the_entrant_takes_one() -> None:
    deep = Cell("smallClassic", 3, "RandomGhost", 2, "classic")
    default = Cell("smallClassic", None, "RandomGhost", 2, "classic")
    searcher = Entrant("s", "baseline", "ExpectimaxAgent", (("depth", "1"), ("evalFn", "better")))
    reflex = Entrant("r", "baseline", "ReflexAgent", (("evalFn", "better"),), takes_depth=False)
    assert agent_args(searcher, deep) == (("evalFn", "better"), ("depth", "3"))
    assert agent_args(searcher, default) == searcher.args
    assert agent_args(reflex, deep) == reflex.args
