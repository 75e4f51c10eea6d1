"""A competition agent: iterative deepening within a time budget per move.

Where the course's agents search a fixed depth, this one searches as deep as its time allows
(`pacman.search.anytime`): one full round deeper per iteration, the previous iteration's best
moves first, a transposition table kept across moves. Options (`-a`):
- `timeLimit`: seconds per move (default 1, the course contest's soft limit); the agent keeps
  a margin for its own bookkeeping;
- `mode`: how the ghosts are searched: `directional` (the default: chance nodes weighted as a
  DirectionalGhost moves, 0.8 on the moves that close in, or that flee when scared),
  `expectimax` (uniformly random: right against RandomGhost) or `alphabeta` (adversarial);
- `focus`: with `mode=directional`, ghosts farther than this (Manhattan) from Pacman are
  searched along their likeliest moves only (default 6);
- `cutoff`: lines of play less likely than this (the product of the ghosts' chances along
  them) are searched to the end of their round and evaluated there (default `CUTOFF` with
  `mode=directional`, where it was measured, 0 with the other modes; 0 searches every line to
  the full depth);
- `maxDepth`: stop deepening at this many rounds (default: no limit);
- `evalFn`, `weights`, `features`: as for the baselines (default `contest`: `better`'s
  features with capsules kept for when ghosts are near, and death priced as the end of the
  game).

Why `directional` and not `alphabeta`: against chasing ghosts a paranoid search sees most
positions as lost six rounds ahead, and then prefers the earliest death, since the score falls by
one a move; it won 1 game in 6 on contestClassic at 1 s a move. Weighting the ghosts' moves as
they are drawn keeps the likely dangers and drops the unlikely ones, and following far ghosts
along their likeliest moves lets the search reach 5 to 13 rounds in a second (the README's table
of baselines has the figures), and the `cutoff` a round or two more along the likely lines.
"""

from __future__ import annotations

import time

from pacman.agents.base import Agent
from pacman.agents.evaluation import StateEvaluation
from pacman.agents.multiagent import (
    evaluation_option,
    fraction,
    positive_number,
    whole_number,
)
from pacman.errors import OptionError
from pacman.games.pacman_game import DIRECTIONAL, PacmanGame, Turn, turn_key
from pacman.search.anytime import AnytimeResult, AnytimeSearch
from pacman.search.core import CHANCE, MIN
from pacman.state import GameState

#: `mode` option -> (the search's backup, the game's ghost model).
AGENT_MODES: dict[str, tuple[str, str]] = {
    "alphabeta": ("alphabeta", MIN),
    "expectimax": ("expectimax", CHANCE),
    DIRECTIONAL: ("expectimax", DIRECTIONAL),
}

#: The default `cutoff`. Of the lines a search of 7 rounds weighs, most are the ghosts' unlikely
#: moves in combination: each is worth its chance in the expectation (a line of chance 0.01
#: that ends in a death moves it by about 30 points), and together they are most of the tree.
#: Evaluated at their round's end instead, they free the time for a round or two more along
#: the likely lines in the same time (two positions measured; the README's strength section
#: has the figures, games included).
CUTOFF = 0.01

#: Seconds kept back from the budget: building the answer, a pause of Python's cycle collector
#: (see `TABLE_SIZE`), and the referee's own overhead.
MARGIN = 0.05

#: Positions the search's table keeps before it starts afresh. Python's full collections walk
#: the table, about 0.1 us an entry: at this size a pause stays within `MARGIN`.
TABLE_SIZE = 400_000


class AnytimeAgent(Agent):
    """Deepens its search until its time per move runs out."""

    #: It searches on a clock (seconds a move): its strength is the engine's speed, so a
    #: tournament plays it on the engine's sources, sandboxed, as the teams it meets play
    #: (`pacman.loader.AgentRef.on_sources`), whichever build the organizer runs.
    ON_A_CLOCK = True

    def __init__(
        self,
        timeLimit: float | str = 1.0,
        mode: str = DIRECTIONAL,
        maxDepth: int | str | None = None,
        evalFn: str | StateEvaluation = "contest",
        weights: str | None = None,
        focus: int | str = 6,
        features: str | None = None,
        cutoff: float | str | None = None,
    ) -> None:
        super().__init__(0)
        name = type(self).__name__
        self.time_limit = positive_number(name, "timeLimit", timeLimit)
        if mode not in AGENT_MODES:
            raise OptionError(name, "mode",
                              f"expected one of {', '.join(AGENT_MODES)}, got {mode!r}")
        self.mode = mode
        backup, self.ghosts = AGENT_MODES[mode]
        self.focus = whole_number(name, "focus", focus, 0)
        self.max_depth = None if maxDepth is None else whole_number(name, "maxDepth", maxDepth, 1)
        self.evaluationFunction = evaluation_option(name, evalFn, weights, features, "contest")
        self.cutoff = fraction(name, "cutoff", cutoff if cutoff is not None
                               else CUTOFF if mode == DIRECTIONAL else 0)
        # Positions are keyed by flat tuples, not GameStates: see `turn_key`.
        self.searcher: AnytimeSearch[Turn, str] = AnytimeSearch(
            backup, key=turn_key, table_size=TABLE_SIZE, cutoff=self.cutoff
        )
        #: The last move's search (benchmarks and tests read the depth reached).
        self.last: AnytimeResult[str] | None = None

    def getAction(self, gameState: GameState) -> str:
        started = time.perf_counter()
        legal = gameState.getLegalActions(0)
        if len(legal) == 1:
            return legal[0]
        game = PacmanGame(gameState, self.evaluationFunction, self.ghosts, self.focus)
        budget = max(self.time_limit - MARGIN, self.time_limit / 2)
        result = self.searcher.search(
            game,
            game.start(),
            started + budget,
            game.evaluate,
            step=game.num_agents,
            max_depth=None if self.max_depth is None else game.plies(self.max_depth),
        )
        self.last = result
        return result.action if result.action in legal else legal[0]

