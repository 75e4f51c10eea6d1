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

Match games (`matches:` in the config) pit a Pacman entrant against a ghost entrant in a
`MatchCell`; the same two properties hold per pairing: every pairing of a cell plays the same
seeds, and a game's id is built from the two names, the cell's key and the index. Which
pairings play is `pairings`: every one, or a sampled design in which each entrant meets a few
opponents, linked so that one rating scale covers everyone.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

from pacman.outcomes import GHOSTS, PACMAN
from pacman.seeds import derive_seed
from tournament.config import Entrant, TournamentConfig


def _depth_key(depth: int | None) -> str:
    return "d-" if depth is None else f"d{depth}"


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
        return (
            f"{self.layout}/{_depth_key(self.depth)}/{self.ghost_name}{self.num_ghosts}/"
            f"{self.ruleset}"
        )


@dataclass(frozen=True)
class MatchCell:
    """A cell of match games: the ghosts are a ghost entrant's, `num_ghosts` of them (capped by
    the engine at the layout's ghost starts), so the cell names no ghost agent."""

    layout: str
    depth: int | None
    num_ghosts: int
    ruleset: str

    @property
    def key(self) -> str:
        """`smallClassic/d2/2g/classic`: never the key of a fixed-ghost cell (which names its
        ghost), so match seeds and ids never collide with those of today's games."""
        return f"{self.layout}/{_depth_key(self.depth)}/{self.num_ghosts}g/{self.ruleset}"


@dataclass(frozen=True)
class ScheduledGame:
    """One game to play: `entrant` (a Pacman entrant's name) in `cell`, its `index`-th game;
    in a match game (a `MatchCell`), against the ghost entrant `ghost_entrant`."""

    game_id: str
    entrant: str
    cell: Cell | MatchCell
    index: int
    seed: int
    #: The ghost entrant's name; empty for a game against the grid's fixed ghosts.
    ghost_entrant: str = ""


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


def match_cells(config: TournamentConfig) -> list[MatchCell]:
    """Every match cell: layouts outermost, then depths and rulesets (none without matches)."""
    if config.matches is None:
        return []
    grid = config.grid
    return [
        MatchCell(layout.name, depth, config.matches.ghosts, ruleset)
        for layout in grid.layouts
        for depth in grid.depths
        for ruleset in grid.rules
    ]


def pairings(config: TournamentConfig) -> list[tuple[str, str]]:
    """The (Pacman entrant, ghost entrant) pairs that play match games, in the config's
    order of Pacman entrants, then of ghost entrants. A team never plays against itself: its
    ghosts could throw games to its own Pacman (or the other way round) and move rating
    between its two entries."""
    if config.matches is None:
        return []
    pacmen = [entrant.name for entrant in config.entrants]
    ghosts = [entrant.name for entrant in config.ghost_entrants]
    own = config.same_team_pairs()
    if config.matches.design == "all" or config.matches.opponents is None:
        return [(pacman, ghost) for pacman in pacmen for ghost in ghosts
                if (pacman, ghost) not in own]
    return sampled_pairings(pacmen, ghosts, config.matches.opponents, config.seed, own)


#: How many orders `sampled_pairings` draws, at most, looking for one that links everyone.
DESIGN_DRAWS = 200


def sampled_pairings(
    pacmen: Sequence[str], ghosts: Sequence[str], opponents: int, seed: int,
    own: Set[tuple[str, str]] = frozenset(),
) -> list[tuple[str, str]]:
    """A design in which each entrant of the larger side meets `opponents` distinct entrants
    of the other, never its own team's (`own`: the pairs of one team; a team whose own entry
    would be one of every entrant it could meet meets the others), every entrant is linked to
    every other through games (what a common rating needs), and the other side's entrants
    meet counts that differ by at most one (two where a team is skipped).

    Each side is put in an order drawn from the seed (each name's own hash, so entrants
    already listed keep their order among themselves when one is added); entrant i of the
    n on the larger side meets the k consecutive entrants (cyclically) of the m on the
    smaller side starting at floor(i * m / n), skipping its own team's (the next one takes
    its place). Starts spread evenly, so any k consecutive entrants of the smaller side are
    covered by floor or ceil of k * n / m windows (the balance), and consecutive windows start
    at most one apart, so with k >= 2 they overlap and link everyone (k = 1 links everyone
    only when the smaller side has one entrant). k = m is every pairing.

    A skipped entry can break those arguments (the review that found a team's own pairing
    dropped after the draw: half the leagues of `opponents: 2` could not be rated), so the
    design is checked, not argued: the first draw is kept when it links everyone within that
    balance; else the orders are drawn again (the draw's number joins the hash, at most
    `DESIGN_DRAWS` times) and the first draw that does is kept, else the linked one closest to
    it, else the first (whose groups the ratings then name). Since the first draw almost
    always holds, adding an entrant moves as few pairings as it did, and without a team on
    both sides the first draw is the design it always was. Teams' files never make a
    design an error: only `opponents` beyond the smaller side's size is (ValueError).
    """
    flip = len(ghosts) > len(pacmen)
    larger, smaller = (ghosts, pacmen) if flip else (pacmen, ghosts)
    if not 1 <= opponents <= len(smaller):
        raise ValueError(f"{opponents} opponents of {len(smaller)}")
    partner = {(g if flip else p): (p if flip else g) for p, g in own}
    allowed = 2 if own else 1
    sides = (GHOSTS, PACMAN) if flip else (PACMAN, GHOSTS)
    first: list[tuple[str, str]] = []
    linked: list[tuple[str, str]] | None = None
    spread = 0
    for draw in range(DESIGN_DRAWS):
        tag = "pairings" if draw == 0 else f"pairings/{draw}"
        big = sorted(larger, key=lambda name: (derive_seed(seed, tag, sides[0], name), name))
        small = sorted(smaller, key=lambda name: (derive_seed(seed, tag, sides[1], name), name))
        pairs = _windows(big, small, opponents, partner, flip)
        first = first or pairs
        if not _links_everyone(pairs, pacmen, ghosts):
            continue
        this = _spread(pairs, smaller, flip)
        if linked is None or this < spread:
            linked, spread = pairs, this
        if spread <= allowed:
            break
    pacman_order = {name: i for i, name in enumerate(pacmen)}
    ghost_order = {name: i for i, name in enumerate(ghosts)}
    return sorted(linked if linked is not None else first,
                  key=lambda pair: (pacman_order[pair[0]], ghost_order[pair[1]]))


def _windows(big: Sequence[str], small: Sequence[str], k: int, partner: dict[str, str],
             flip: bool) -> list[tuple[str, str]]:
    """Each of `big` meets the `k` entrants of `small` from its start on, its own skipped."""
    n, m = len(big), len(small)
    pairs = []
    for i, name in enumerate(big):
        start, own = i * m // n, partner.get(name)
        met = [other for other in (small[(start + j) % m] for j in range(min(k + 1, m)))
               if other != own][:k]
        pairs += [(other, name) if flip else (name, other) for other in met]
    return pairs


def _links_everyone(pairs: Sequence[tuple[str, str]], pacmen: Sequence[str],
                    ghosts: Sequence[str]) -> bool:
    """Whether every entrant of both sides is linked to every other through `pairs`."""
    links: dict[tuple[str, str], set[tuple[str, str]]] = {
        **{(PACMAN, name): set() for name in pacmen}, **{(GHOSTS, name): set() for name in ghosts}}
    for pacman, ghost in pairs:
        links[PACMAN, pacman].add((GHOSTS, ghost))
        links[GHOSTS, ghost].add((PACMAN, pacman))
    start = next(iter(links))
    seen, todo = {start}, [start]
    while todo:
        for other in links[todo.pop()] - seen:
            seen.add(other)
            todo.append(other)
    return len(seen) == len(links)


def _spread(pairs: Sequence[tuple[str, str]], smaller: Sequence[str], flip: bool) -> int:
    """How far apart the counts of opponents the smaller side's entrants meet are."""
    counts = dict.fromkeys(smaller, 0)
    for pair in pairs:
        counts[pair[0] if flip else pair[1]] += 1
    return max(counts.values()) - min(counts.values())


def game_id(entrant: str, cell: Cell, index: int) -> str:
    """`example-team@smallClassic/d2/RandomGhost2/classic#3`.

    Unambiguous because config names cannot contain `@`, `/` or `#`; safe in file names once
    the slashes become folders.
    """
    return f"{entrant}@{cell.key}#{index}"


def match_game_id(pacman: str, ghost: str, cell: MatchCell, index: int) -> str:
    """`example-team~random@smallClassic/d2/2g/classic#3` (names cannot contain `~`)."""
    return f"{pacman}~{ghost}@{cell.key}#{index}"


def game_seed(master_seed: int, cell: Cell | MatchCell, index: int) -> int:
    """The seed of a cell's `index`-th game: the same for every entrant or pairing (common
    seeds)."""
    return seed_of(master_seed, cell.key, index)


def seed_of(master_seed: int, cell_key: str, index: int) -> int:
    """`game_seed` from a cell's key, as a stored game names it (`tournament.store` asks
    whether a stored game was played on a master seed)."""
    return derive_seed(master_seed, cell_key, index)


def schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """Every game of the tournament, in the order they should be started.

    Index outermost, then cell, then entrant: a run stopped part-way has played every
    entrant on the same games of every cell, so a leaderboard of a partial run still compares
    like with like, and each later index only adds to every entrant evenly. Match games are
    interleaved the same way: each index plays today's fixed-ghost games (in today's order),
    then every pairing's match games of that index, so a partial run is balanced on both.
    """
    grid_cells = cells(config)
    fixed_games = config.games_per_cell
    m_cells = match_cells(config)
    pairs = pairings(config)
    match_games = config.matches.games if config.matches is not None else 0
    games: list[ScheduledGame] = []
    for index in range(max(fixed_games, match_games)):
        if index < fixed_games:
            games += [
                ScheduledGame(
                    game_id=game_id(entrant.name, cell, index),
                    entrant=entrant.name,
                    cell=cell,
                    index=index,
                    seed=game_seed(config.seed, cell, index),
                )
                for cell in grid_cells
                for entrant in config.entrants
            ]
        if index < match_games:
            games += [
                ScheduledGame(
                    game_id=match_game_id(pacman, ghost, match_cell, index),
                    entrant=pacman,
                    cell=match_cell,
                    index=index,
                    seed=game_seed(config.seed, match_cell, index),
                    ghost_entrant=ghost,
                )
                for match_cell in m_cells
                for pacman, ghost in pairs
            ]
    return games


def agent_args(entrant: Entrant, cell: Cell | MatchCell) -> tuple[tuple[str, str], ...]:
    """The options an entrant's Pacman is built with in a cell: its own, plus the cell's depth.
    (A ghost entrant plays with its own options, `entrant.args`, in every cell.)

    The depth replaces any `depth` of the entrant's own (a team's `team.yaml` included, since
    the loader lets given options win), because the grid is the tournament's rule; an entrant
    that does not take a depth (`takes_depth: false`) keeps its own options.
    """
    if cell.depth is None or not entrant.takes_depth:
        return entrant.args
    return (*((k, v) for k, v in entrant.args if k != "depth"), ("depth", str(cell.depth)))
