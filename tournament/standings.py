"""What the platform shows of the match games: the ratings (or why they cannot be fitted) and
the crosstable, computed once and handed to every place that shows them (the console, the
CSV files, the HTML report). Pure: no I/O.

A ratings fit can fail on results that are no one's bad input: a run half-way through may
not yet connect every entrant with the anchor, or the anchor's games may all have failed in
the platform. Such a failure is kept here as one line of text (`Standings.problem`) naming
the config keys that choose the anchor, so that the crosstable and everything else are still
shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pacman.outcomes import GHOSTS, PACMAN
from tournament.config import TournamentConfig
from tournament.ratings import crosstable, crosstable_grid, fit_ratings

#: The config keys that name the anchor (the `matches:` section), as a problem names them.
ANCHOR_KEYS = "matches.anchor / matches.anchor_side"


@dataclass(frozen=True)
class Standings:
    """The ratings and crosstable of one set of match games."""

    #: The rated entity fixed at 0: (entrant, side).
    anchor: tuple[str, str]
    confidence: float
    #: Counted and uncounted match games alike.
    games: int
    #: `tournament.ratings.fit_ratings`' table, ranked; None when it could not be fitted.
    ratings: Any
    #: Why there are no ratings (one line), or None.
    problem: str | None
    #: `tournament.ratings.crosstable`'s long table.
    crosstable: Any

    def order(self, side: str) -> list[str]:
        """The entrants of one side: in rating order when there are ratings, else by name."""
        if self.ratings is not None:
            return [str(e) for e in self.ratings.loc[self.ratings["side"] == side, "entrant"]]
        column = "entrant" if side == PACMAN else "ghost_entrant"
        return sorted(str(e) for e in self.crosstable[column].unique())

    def grid(self, value: str = "points_rate") -> Any:
        """One crosstable column as Pacman rows x ghost columns, both in `order`."""
        return crosstable_grid(self.crosstable, value, self.order(PACMAN), self.order(GHOSTS))

    def entrants(self) -> list[str]:
        """Every entrant name that played a match game, in rating order, then by name."""
        names = [*self.order(PACMAN), *self.order(GHOSTS)]
        if self.ratings is not None:
            names = [str(e) for e in self.ratings["entrant"]]
        return list(dict.fromkeys(names))


def anchor_of(config: TournamentConfig) -> tuple[str, str] | None:
    """The entity the config's ratings are anchored at (`matches.anchor`, `anchor_side`), or
    None for a config without matches."""
    if config.matches is None:
        return None
    return config.matches.anchor, config.matches.anchor_side


def standings(matches: Any, anchor: tuple[str, str], confidence: float) -> Standings | None:
    """The standings of `matches` (the match games of a results table,
    `tournament.results.split_formats`), anchored at `anchor`; None when there is none."""
    if len(matches) == 0:
        return None
    ratings, problem = None, None
    try:
        ratings = fit_ratings(matches, anchor=anchor, confidence=confidence)
    except ValueError as exc:
        problem = f"no ratings ({ANCHOR_KEYS} = {anchor[0]!r} / {anchor[1]}): {exc}"
    return Standings(anchor, confidence, len(matches), ratings, problem, crosstable(matches))
