"""Which games a tournament plays: a pure function of its config.

Two properties make results trustworthy and runs resumable:

- **Common seeds.** A game's seed is derived from the master seed, the cell's key and the
  game's index only, never from the entrant, so every entrant plays the same games of a cell
  (the random streams within a game are keyed with the tournament's secret and the entrant's
  submission as well, see `tournament.secret`, so that no published game tells an agent the
  ghosts' draws of its own).
- **Stable identities.** A game's id is built from the entrant's name, the cell's key and the
  index, none of which depends on what else the config lists. Adding an entrant, a layout or
  more games per cell therefore leaves every existing id and seed alone, so the results
  store can keep what was already played and play only what is new.
"""

from __future__ import annotations

from dataclasses import dataclass

from pacman.seeds import derive_seed
from tournament.config import Entrant, TournamentConfig


@dataclass(frozen=True)
class Cell:
    """One combination of the grid: where, how deep, against which ghosts, under which rules.

    `ghost` is the ghost agent's reference (a built-in name or an absolute `file.py:Class`);
    `num_ghosts` is the configured count, capped by the engine at the layout's ghost starts.
    """

    layout: str
    depth: int | None
    ghost: str
    num_ghosts: int
    ruleset: str

    @property
    def ghost_name(self) -> str:
        return self.ghost.rpartition(":")[2]

    @property
    def key(self) -> str:
        """`smallClassic/d2/RandomGhost2/classic`; `d-` when agents search to their default.

        Seeds and game ids are built from this text, so its format must never change.
        """
        depth = "d-" if self.depth is None else f"d{self.depth}"
        return f"{self.layout}/{depth}/{self.ghost_name}{self.num_ghosts}/{self.ruleset}"


@dataclass(frozen=True)
class ScheduledGame:
    """One game to play: `entrant` (a name from the config) in `cell`, its `index`-th game."""

    game_id: str
    entrant: str
    cell: Cell
    index: int
    seed: int


def cells(config: TournamentConfig) -> list[Cell]:
    """Every cell of the grid, layouts outermost, then depths, ghost settings and rulesets."""
    grid = config.grid
    return [
        Cell(layout.name, depth, ghost.agent, ghost.count, ruleset)
        for layout in grid.layouts
        for depth in grid.depths
        for ghost in grid.ghosts
        for ruleset in grid.rules
    ]


def game_id(entrant: str, cell: Cell, index: int) -> str:
    """`example-team@smallClassic/d2/RandomGhost2/classic#3`.

    Unambiguous because config names cannot contain `@`, `/` or `#`; safe in file names once
    the slashes become folders.
    """
    return f"{entrant}@{cell.key}#{index}"


def game_seed(master_seed: int, cell: Cell, index: int) -> int:
    """The seed of a cell's `index`-th game: the same for every entrant (common seeds)."""
    return derive_seed(master_seed, cell.key, index)


def schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """Every game of the tournament, in the order they should be started.

    Index outermost, then cell, then entrant: a run stopped part-way has played every
    entrant on the same games of every cell, so a leaderboard of a partial run still compares
    like with like, and each later index only adds to every entrant evenly.
    """
    grid_cells = cells(config)
    return [
        ScheduledGame(
            game_id=game_id(entrant.name, cell, index),
            entrant=entrant.name,
            cell=cell,
            index=index,
            seed=game_seed(config.seed, cell, index),
        )
        for index in range(config.games_per_cell)
        for cell in grid_cells
        for entrant in config.entrants
    ]


def agent_args(entrant: Entrant, cell: Cell) -> tuple[tuple[str, str], ...]:
    """The options an entrant's Pacman is built with in a cell: its own, plus the cell's depth.

    The depth replaces any `depth` of the entrant's own (a team's `team.yaml` included, since
    the loader lets given options win), because the grid is the tournament's rule; an entrant
    that does not take a depth (`takes_depth: false`) keeps its own options.
    """
    if cell.depth is None or not entrant.takes_depth:
        return entrant.args
    return (*((k, v) for k, v in entrant.args if k != "depth"), ("depth", str(cell.depth)))
