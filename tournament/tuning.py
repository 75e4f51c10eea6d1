"""`tournament tune`: learning a linear evaluation's weights from games, with CMA-ES.

Why a `tournament` command: tuning is games, many of them, and the tournament already plays
games on the local pool or a Dask cluster, stores each as it finishes, keys its random
streams with the folder's secret, shows progress and resumes. So each generation of the
search is a tournament built in code: its entrants are the generation's candidates
(baselines named `g0003-c05`, built with `weights=name:value;...` inline, so no file of the
organizer's has to reach a worker) in one cell, the protocol's. Every candidate of the run
plays the same seeds (common random numbers: the cell's seeds depend on the run's seed and the
game's index only), so two candidates differ by their weights and not by their luck, and
the objective of one generation compares with the next's.

The optimizer is CMA-ES from the `cma` package, through its ask/tell interface: it proposes
a generation of candidates (`ask`), is told their costs (`tell`), and needs nothing else. It
was chosen over Optuna's CMA-ES sampler because it is one small, well-kept dependency
(numpy only), deterministic from its seed, and because ask/tell lets a resumed run rebuild the
optimizer by replaying the stored evaluations: the same seed asks for the same candidates,
whose games the store already holds, so it is told the same costs and asks the same next
generation. No optimizer state is pickled to disk or read back; the store of games is the
only state. Its random draws come from a generator of its own (never numpy's global one).

The search works in units of each weight's scale: a candidate's weight is `start + scale *
x`, with x drawn around 0 with step `sigma`; bounds are the optimizer's own (`cma`'s bound
handling), candidates' weights are rounded to 6 significant digits (so that their options
read well and their files are short) and then kept within the bounds.

The run ends by default with the search distribution's final mean (`cma`'s `xfavorite`),
not its best candidate: the best of many candidates measured on the same noisy games owes
part of its lead to their luck, which the mean, a weighted average of each generation's
better half, averages out (docs/tune.md has a measured example); `result: best` ends with
the best candidate instead.

The pure part (`search`: ask, evaluate, tell, generation by generation) takes the evaluation
as a function, so its resumption is tested without games; `Games` is the side-effecting
part, which plays a generation's missing games and measures every candidate from the
store, and `compare` plays the final comparison on fresh seeds.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pacman.agents.evaluation import FEATURES as LINEAR_FEATURES
from pacman.agents.evaluation import MAX_WEIGHT, weights_text
from pacman.describe import clean
from pacman.files import write_atomic
from pacman.outcomes import FAILURES, INFRA_ERROR
from pacman.seeds import derive_seed
from tournament.config import (
    ClusterConfig,
    Entrant,
    GhostSetting,
    GridConfig,
    RecordConfig,
    SandboxConfig,
    TournamentConfig,
)
from tournament.objective import Difference, Measure, compare, cost, measure
from tournament.optionfiles import WEIGHTS_OPTION
from tournament.schedule import cells, game_seed, schedule
from tournament.tuneconfig import FEATURE_FUNCTION, LINEAR, RESULT_BEST, TuneConfig, Weight

#: A candidate's entrant name: its generation and its index in it.
CANDIDATE_NAME = "g{generation:04d}-c{index:02d}"
#: The comparison's entrants.
START = "start"
TUNED = "tuned"
#: The search's final mean, played on the tuning's games (`result: mean`).
FINAL_MEAN = "final-mean"
#: The starting weights on the tuning's own games: the reference the generations are drawn
#: against (a name of its own: the comparison's `start` plays other seeds).
START_SEEN = "start-tuning"
#: What keys the random streams of every game of a tuning (`tournament.runner.iter_tasks`),
#: with the output folder's secret, in place of each candidate's submission: candidates are
#: versions of one agent, so on one seed they meet the same ghosts' draws, and differ by their
#: weights, not by their luck. It is part of every candidate's hash too, so that games stored
#: by a tuning that drew each candidate's streams apart are played again, never mixed in.
COMMON_STREAM = "tuning: one stream per seed"
#: Significant digits a candidate's weights are rounded to.
DIGITS = 6
#: The label the comparison's master seed is derived with (never the tuning's seeds).
COMPARISON_LABEL = "comparison"
#: The files a tuning run writes in its output folder, besides the store.
WEIGHTS_FILE = "weights.yaml"
CANDIDATES_FILE = "candidates.csv"
GENERATIONS_FILE = "generations.csv"
COMPARISON_FILE = "comparison.csv"
PLOT_FILE = "objective.svg"


@dataclass(frozen=True)
class Candidate:
    """One point the optimizer asked for (or its final mean, `name` `FINAL_MEAN`): its
    weights (the tuned ones, by name)."""

    generation: int
    index: int
    weights: tuple[tuple[str, float], ...]
    name: str = ""

    @property
    def entrant(self) -> str:
        return self.name or CANDIDATE_NAME.format(generation=self.generation, index=self.index)

    def as_dict(self) -> dict[str, float]:
        return dict(self.weights)


@dataclass(frozen=True)
class Evaluated:
    """A candidate and the objective over its games."""

    candidate: Candidate
    measure: Measure

    @property
    def cost(self) -> float:
        return cost(self.measure)


@dataclass(frozen=True)
class Generation:
    """A generation's candidates, evaluated, in the order asked."""

    number: int
    evaluated: tuple[Evaluated, ...]

    @property
    def best(self) -> Evaluated:
        """The lowest cost; the first asked among equals."""
        return min(self.evaluated, key=lambda e: e.cost)

    @property
    def mean(self) -> float:
        """The mean objective over the candidates that have a value (NaN if none has)."""
        values = [e.measure.value for e in self.evaluated if e.measure.feasible]
        return float(np.mean(values)) if values else math.nan


def rounded(value: float) -> float:
    return float(f"{value:.{DIGITS}g}")


def weights_at(weights: Sequence[Weight], x: Sequence[float]) -> tuple[tuple[str, float], ...]:
    """The weights at the optimizer's point `x` (in units of each weight's scale), rounded,
    within their bounds, and within `MAX_WEIGHT`, beyond which the agents refuse a weight (a
    start near it, with a scale as large and no bounds, would step past it)."""
    out = []
    for weight, xi in zip(weights, x, strict=True):
        value = rounded(weight.start + weight.scale * float(xi))
        value = min(max(value, -MAX_WEIGHT), MAX_WEIGHT)
        if weight.low is not None:
            value = max(value, weight.low)
        if weight.high is not None:
            value = min(value, weight.high)
        out.append((weight.name, value))
    return tuple(out)


class Optimizer:
    """CMA-ES (`cma`) over the weights' scaled coordinates, seeded, its draws its own."""

    def __init__(self, config: TuneConfig) -> None:
        import cma  # type: ignore[import-untyped]

        weights = config.weights
        rng = np.random.default_rng(derive_seed(config.seed, "cma"))
        lower = [None if w.low is None else (w.low - w.start) / w.scale for w in weights]
        upper = [None if w.high is None else (w.high - w.start) / w.scale for w in weights]
        options: dict[str, Any] = {
            "popsize": config.population,
            # np.nan: leave numpy's global generator alone; the draws come from `rng`.
            "seed": np.nan,
            "randn": lambda *shape: rng.standard_normal(shape),
            "verbose": -9,
            "verb_log": 0,
            "verb_disp": 0,
        }
        sigma = config.sigma
        if any(b is not None for b in lower + upper):
            options["bounds"] = [lower, upper]
            low, high = lower[0], upper[0]
            if len(weights) == 1 and low is not None and high is not None:
                # cma keeps each coordinate's step within a third of its bound range, but
                # with one coordinate (cma 4.5) that fails ("not yet initialized") once games
                # are played: the same limit, applied here.
                options["maxstd_boundrange"] = np.inf
                sigma = min(sigma, (high - low) / 3)
        self.weights = weights
        self.es = cma.CMAEvolutionStrategy([0.0] * len(weights), sigma, options)
        self._asked: list[Any] = []

    def ask(self, generation: int) -> list[Candidate]:
        self._asked = self.es.ask()
        return [Candidate(generation, i, weights_at(self.weights, x))
                for i, x in enumerate(self._asked)]

    def tell(self, costs: Sequence[float]) -> None:
        self.es.tell(self._asked, list(costs))

    def mean(self, generation: int) -> Candidate:
        """The search distribution's mean (`cma`'s `xfavorite`, within the bounds): its
        estimate of the best weights, in which each generation's luck of selection averages
        out."""
        return Candidate(generation, 0, weights_at(self.weights, self.es.result.xfavorite),
                         FINAL_MEAN)

    def stop(self) -> str:
        """Why CMA-ES would stop by itself ('' while it would go on)."""
        reasons = {k: v for k, v in self.es.stop().items() if k not in ("maxiter", "maxfevals")}
        return ", ".join(f"{k} {v}" for k, v in reasons.items())


#: What evaluates a generation: its number and candidates -> a measure per candidate.
Evaluate = Callable[[int, list[Candidate]], list[Measure]]


@dataclass(frozen=True)
class Searched:
    """What a search found: its generations, why it stopped early ('' when the budget ran
    out) and the search distribution's final mean."""

    generations: list[Generation]
    stopped: str
    mean: Candidate


def search(config: TuneConfig, evaluate: Evaluate,
           on_generation: Callable[[Generation, list[Generation]], None] | None = None,
           ) -> Searched:
    """Run the optimizer for the budget's generations (or until CMA-ES stops by itself):
    ask, evaluate, tell. Deterministic from `config` and what `evaluate` returns, so a run
    that evaluates from stored games asks again exactly what an earlier run asked."""
    optimizer = Optimizer(config)
    done: list[Generation] = []
    for number in range(config.generations):
        why = optimizer.stop()
        if why:
            return Searched(done, why, optimizer.mean(number))
        candidates = optimizer.ask(number)
        measures = evaluate(number, candidates)
        if len(measures) != len(candidates):
            raise RuntimeError(f"{len(measures)} measures for {len(candidates)} candidates")
        generation = Generation(number, tuple(Evaluated(c, m)
                                              for c, m in zip(candidates, measures)))
        optimizer.tell([e.cost for e in generation.evaluated])
        done.append(generation)
        if on_generation is not None:
            on_generation(generation, done)
    return Searched(done, "", optimizer.mean(config.generations))


def best_of(generations: Sequence[Generation]) -> Evaluated:
    """The best candidate of the run: the lowest cost, the earliest among equals (every
    candidate played the same games, so costs compare across generations)."""
    return min((g.best for g in generations), key=lambda e: e.cost)


# ---- the games ---------------------------------------------------------------------------


def tournament_config(config: TuneConfig, entrants: Sequence[Entrant], seed: int,
                      games: int) -> TournamentConfig:
    """A tournament of `entrants` in the protocol's one cell, `games` games each."""
    protocol = config.protocol
    return TournamentConfig(
        name=config.name,
        entrants=tuple(entrants),
        grid=GridConfig(layouts=(protocol.layout,), depths=(protocol.depth,),
                        ghosts=(GhostSetting(protocol.ghosts, protocol.num_ghosts),),
                        rules=(protocol.rules,), max_moves=protocol.max_moves),
        output=config.output,
        seed=seed,
        games_per_cell=games,
        limits=protocol.limits,
        workers=config.workers,
        scheduler=config.scheduler,
        cluster=ClusterConfig(trusted_network=config.trusted_network),
        record=RecordConfig("failures"),
        sandbox=SandboxConfig(config.accept_missing),
        secret_file=config.secret_file,
        source=config.source,
    )


def comparison_seed(config: TuneConfig) -> int:
    """The comparison's master seed: its games' seeds are other than the tuning's."""
    return derive_seed(config.seed, COMPARISON_LABEL)


def tuning_seeds(config: TuneConfig) -> list[int]:
    """The seeds every candidate plays."""
    cell = cells(tournament_config(config, [], config.seed, config.games))[0]
    return [game_seed(config.seed, cell, i) for i in range(config.games)]


def comparison_seeds(config: TuneConfig) -> list[int]:
    """The seeds of the final comparison: fresh, none of them a tuning game's."""
    seed = comparison_seed(config)
    cell = cells(tournament_config(config, [], seed, config.comparison_games))[0]
    return [game_seed(seed, cell, i) for i in range(config.comparison_games)]


class TuneFailed(RuntimeError):
    """The run cannot go on: every game of a generation was the agent's own failure."""


def own_failures(rows: Any) -> Any:
    """Which of `rows` the Pacman, the tuned agent, failed itself (a boolean Series)."""
    return rows["outcome"].isin(FAILURES) & (rows["culprit"] == 0)


def measures_of(rows: Any, names: Sequence[str], config: TuneConfig) -> list[Measure]:
    """Each entrant's measure over its stored rows (the platform's failures left out; the
    agent's own counted, so that they make the measure infeasible)."""
    scored = rows[rows["outcome"] != INFRA_ERROR]
    out = []
    for name in names:
        mine = scored[scored["entrant"] == name].sort_values("game_index")
        out.append(measure(config.objective, mine["score"].astype(float).tolist(),
                           mine["win"].astype(bool).tolist(), int(own_failures(mine).sum())))
    return out


def failure_of(rows: Any) -> str:
    """When every scored game of `rows` was the Pacman's own failure, or every game of them
    an `infra_error` (the platform failed each: a sandbox that cannot start, a worker that
    dies or is ended at its deadline), the first one's outcome and message ('' otherwise):
    the weights cannot be judged, and going on would rank candidates on no games."""
    scored = rows[rows["outcome"] != INFRA_ERROR]
    failed = scored if len(scored) else rows
    if not len(failed) or (len(scored) and not own_failures(scored).all()):
        return ""
    first = failed.sort_values("game_id").iloc[0]
    return f"{first['outcome']}: {clean(str(first['message']), 300)}"


@dataclass
class Games:
    """Plays a tuning run's tournaments into its store (side effects at this edge only).

    `play_tournament(tournament)` plays what the store lacks of a tournament and returns the
    rows of its current games (the CLI's: executors, keeper, progress); `features` is the
    candidates' `features=` option (the run's snapshot of the feature function's file), ''
    for the linear evaluations and a file agent's own; `files` the agent's files' digest,
    which a file agent's games are keyed by too."""

    config: TuneConfig
    play_tournament: Callable[[TournamentConfig, dict[str, str]], Any]
    features: str = ""
    files: str = ""

    def entrant(self, name: str, weights: dict[str, float]) -> Entrant:
        options = self.config.options(weights)
        if self.features:
            options = (*options, ("features", self.features))
        return Entrant(name, "baseline", self.config.agent, options,
                       takes_depth=self.config.protocol.depth is not None)

    def hashes(self, tournament: TournamentConfig) -> dict[str, str]:
        """Each entrant's submission hash: its agent, options and the platform's version
        (`tournament.runner.submission_hash`), a file agent's files, and how its games' streams
        are keyed (`COMMON_STREAM`)."""
        from tournament.runner import submission_hash

        out = {}
        for entrant in tournament.entrants:
            own = submission_hash(entrant)
            out[entrant.name] = hashlib.sha256(
                f"{own}|{self.files}|{COMMON_STREAM}".encode()).hexdigest()[:16]
        return out

    def evaluate(self, generation: int, candidates: list[Candidate]) -> list[Measure]:
        entrants = [self.entrant(c.entrant, c.as_dict()) for c in candidates]
        tournament = tournament_config(self.config, entrants, self.config.seed,
                                       self.config.games)
        rows = self.play_tournament(tournament, self.hashes(tournament))
        failed = failure_of(rows)
        if failed:
            raise TuneFailed(f"every game of generation {generation} failed (the agent's own "
                             "failure, or its worker died), so its weights cannot be judged; "
                             f"the first: {failed}")
        return measures_of(rows, [e.name for e in entrants], self.config)

    def on_tuning_games(self, name: str, weights: dict[str, float]) -> Measure:
        """`weights` played as entrant `name` on the games every candidate plays: the start
        (`START_SEEN`) and the final mean (`FINAL_MEAN`), on the same footing as the
        candidates."""
        tournament = tournament_config(self.config, [self.entrant(name, weights)],
                                       self.config.seed, self.config.games)
        rows = self.play_tournament(tournament, self.hashes(tournament))
        failed = failure_of(rows)
        if failed:
            raise TuneFailed(f"every game of {name} failed (the agent's own failure, or its "
                             f"worker died), so its weights cannot be judged; the first: "
                             f"{failed}")
        return measures_of(rows, [name], self.config)[0]

    def start_seen(self) -> Measure:
        """The starting weights on the games every candidate plays."""
        return self.on_tuning_games(START_SEEN, {w.name: w.start for w in self.config.weights})

    def result(self, searched: Searched) -> Evaluated:
        """The weights the run ends with (`result:`): the best candidate, or the search's
        final mean, played on the tuning's games."""
        if self.config.result == RESULT_BEST:
            return best_of(searched.generations)
        mean = searched.mean
        return Evaluated(mean, self.on_tuning_games(mean.entrant, mean.as_dict()))

    def compare(self, tuned: dict[str, float]) -> tuple[list[Difference], int, tuple[int, int]]:
        """The tuned weights against the start on fresh seeds, paired by seed: the
        differences, the number of pairs and the games of those each side's agent failed
        itself (start's, tuned's)."""
        start = {w.name: w.start for w in self.config.weights}
        tournament = tournament_config(
            self.config, [self.entrant(START, start), self.entrant(TUNED, tuned)],
            comparison_seed(self.config), self.config.comparison_games)
        seen = set(tuning_seeds(self.config))
        if any(g.seed in seen for g in schedule(tournament)):
            raise RuntimeError("a comparison seed is a tuning game's")  # 2**-63 per pair
        rows = self.play_tournament(tournament, self.hashes(tournament))
        scored = rows[rows["outcome"] != INFRA_ERROR].assign(failed=own_failures)
        by_index = {name: {int(r.game_index): (float(r.score), bool(r.win), bool(r.failed))
                           for r in scored[scored["entrant"] == name].itertuples()}
                    for name in (START, TUNED)}
        pairs = sorted(set(by_index[START]) & set(by_index[TUNED]))
        start_games = [by_index[START][i] for i in pairs]
        tuned_games = [by_index[TUNED][i] for i in pairs]
        failures = (sum(g[2] for g in start_games), sum(g[2] for g in tuned_games))
        return (compare(self.config.objective, [g[:2] for g in start_games],
                        [g[:2] for g in tuned_games], failures=failures), len(pairs), failures)


# ---- the results -------------------------------------------------------------------------


def candidates_table(config: TuneConfig, generations: Sequence[Generation],
                     final: Evaluated | None = None) -> Any:
    """candidates.csv: a row per candidate, its statistics and weights; with `final` (the
    search's final mean, played on the same games) a last row for it, its candidate empty."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    rows = []
    found = [(g.number, e) for g in generations for e in g.evaluated]
    if final is not None:
        found.append((final.candidate.generation, final))
    for number, e in found:
        m = e.measure
        rows.append({
            "generation": number, "candidate": "" if e.candidate.name else e.candidate.index,
            "entrant": e.candidate.entrant, "games": m.games, "wins": m.wins,
            "win_rate": m.win_rate, "mean_score": m.mean_score,
            "mean_score_wins": m.mean_score_wins, "objective": m.value,
            "feasible": m.feasible, "failures": m.failures, **e.candidate.as_dict()})
    columns = ["generation", "candidate", "entrant", "games", "wins", "win_rate",
               "mean_score", "mean_score_wins", "objective", "feasible", "failures",
               *(w.name for w in config.weights)]
    return pd.DataFrame(rows, columns=columns)


def generations_table(generations: Sequence[Generation]) -> Any:
    """generations.csv: per generation the best candidate's objective, the mean over its
    candidates, and the best so far."""
    import pandas as pd

    rows = []
    best_so_far = math.inf
    best_value = math.nan
    for generation in generations:
        best = generation.best
        if best.cost < best_so_far:
            best_so_far, best_value = best.cost, best.measure.value
        rows.append({"generation": generation.number, "candidates": len(generation.evaluated),
                     "best": best.measure.value, "mean": generation.mean,
                     "best_entrant": best.candidate.entrant, "best_so_far": best_value})
    return pd.DataFrame(rows, columns=["generation", "candidates", "best", "mean",
                                       "best_entrant", "best_so_far"])


def comparison_table(differences: Sequence[Difference], pairs: int,
                     failures: tuple[int, int] = (0, 0)) -> Any:
    """comparison.csv: a row per statistic, with the games compared and, of those, how many
    each side's agent failed itself (which the verdict weighs: `objective.compare`)."""
    import pandas as pd

    return pd.DataFrame([{"statistic": d.statistic, "start": d.start, "tuned": d.tuned,
                          "difference": d.difference, "low": d.low, "high": d.high,
                          "verdict": d.verdict, "games": pairs, "start_failures": failures[0],
                          "tuned_failures": failures[1]} for d in differences],
                        columns=["statistic", "start", "tuned", "difference", "low", "high",
                                 "verdict", "games", "start_failures", "tuned_failures"])


def weights_document(config: TuneConfig, best: Evaluated, start: Measure,
                     verdict: str) -> str:
    """weights.yaml: the best candidate's weights over the evaluation's own (every feature
    of `better`/`contest`, so the file says the whole evaluation), with how they were found.
    Usable as `-a evalFn=better,weights=weights.yaml` and in a tournament's `args`."""
    import yaml

    weights = {**config.base_weights, **best.candidate.as_dict()}
    if config.evaluation in LINEAR:
        weights = {name: weights[name] for name in LINEAR_FEATURES}
    m = best.measure
    where = (f"evalFn={config.evaluation}" if config.evaluation in LINEAR
             else f"features={config.features.rpartition('/')[2]}"
             if config.evaluation == FEATURE_FUNCTION else f"agent {Path(config.agent).name}")
    header = [
        f"# Weights tuned by `tournament tune` ({config.name}): {config.objective.describe()} "
        f"{_shown(m)}",
        f"# over {m.games} games ({m.wins} won) of {config.protocol.layout.name}, where the "
        f"start had {_shown(start)}; {_which(best.candidate)}. For {where}.",
        f"# On {config.comparison_games} fresh games against the start: {verdict}.",
        f"# Tuned: {', '.join(w.name for w in config.weights)}.",
    ]
    if config.evaluation not in LINEAR and config.evaluation != FEATURE_FUNCTION:
        # A team's agent reads its `weights` option itself, inline as the tuning gave it (its
        # sandbox shows it no file of the organizer's): this file is the record, this the use.
        header.append(f"# Play them with: -a '{WEIGHTS_OPTION}={weights_text(weights)}'")
    body = yaml.safe_dump({k: float(v) for k, v in weights.items()}, sort_keys=False)
    return "\n".join(header) + "\n" + body


def write_progress(config: TuneConfig, generations: Sequence[Generation],
                   start: Measure, final: Evaluated | None = None) -> list[Path]:
    """candidates.csv, generations.csv and the plot (with the `start`'s objective on the
    same games), as they stand; `final`: the search's final mean, once played."""
    from tournament.plots import objective_svg
    from tournament.tables import write_csv

    out = config.output
    write_csv(candidates_table(config, generations, final), out / CANDIDATES_FILE)
    table = generations_table(generations)
    write_csv(table, out / GENERATIONS_FILE)
    write_atomic(out / PLOT_FILE, objective_svg(table, config.objective.describe(),
                                                start.value) + "\n")
    return [out / CANDIDATES_FILE, out / GENERATIONS_FILE, out / PLOT_FILE]


def _which(candidate: Candidate) -> str:
    if candidate.name == FINAL_MEAN:
        return f"the search's final mean ({FINAL_MEAN})"
    return f"candidate {candidate.entrant}"


def _shown(found: Measure) -> str:
    return f"{found.value:.1f}" if found.feasible else f"no value ({found.shortfall})"


def write_results(config: TuneConfig, best: Evaluated, start: Measure,
                  differences: Sequence[Difference], pairs: int,
                  failures: tuple[int, int] = (0, 0)) -> list[Path]:
    """weights.yaml and comparison.csv."""
    from tournament.tables import write_csv

    out = config.output
    write_csv(comparison_table(differences, pairs, failures), out / COMPARISON_FILE)
    verdict = differences[0].verdict if differences else "not compared"
    write_atomic(out / WEIGHTS_FILE, weights_document(config, best, start, verdict))
    return [out / WEIGHTS_FILE, out / COMPARISON_FILE]


def drop_results(config: TuneConfig) -> list[Path]:
    """Remove an earlier run's weights.yaml and comparison.csv from the output folder, and
    say which: this run writes its own at its end, and until then they would sit beside this
    run's candidates.csv as if they were its result (a run of a changed config, stopped
    midway, left them so). A run that ends writes the same files again; the games are
    stored, so nothing is lost."""
    dropped = []
    for name in (WEIGHTS_FILE, COMPARISON_FILE):
        path = config.output / name
        if path.is_file():
            path.unlink()
            dropped.append(path)
    return dropped


def total_games(config: TuneConfig) -> int:
    """Games of the whole run: the start's, every candidate's and (`result: mean`) the final
    mean's on the tuning's seeds, and both sides of the comparison."""
    final = 0 if config.result == RESULT_BEST else 1
    return ((1 + config.generations * config.population + final) * config.games
            + 2 * config.comparison_games)


def store_player(store: Any, executor: Any, keeper: Any, snapshots: Any, secret: str,
                 layers: tuple[str, ...], progress: Any, features_snapshot: str = "",
                 ) -> Callable[[TournamentConfig, dict[str, str]], Any]:
    """`Games.play_tournament` on the tournament's machinery: plan a tournament against the
    store (`tournament.resume.plan`: what is stored with these hashes and seeds is done),
    play what is not (tasks made lazily, kept by `keeper` as they finish, counted by
    `progress`, a `tournament.progress.ProgressLines`), and return the rows of its current
    games. `features_snapshot` is the snapshot a feature function's file plays from."""
    from tournament.resume import Hashes, plan
    from tournament.runner import iter_tasks, with_files

    def failed(row: Any) -> bool:
        return row["outcome"] in FAILURES or row["outcome"] == INFRA_ERROR

    def play(tournament: TournamentConfig, hashes: dict[str, str]) -> Any:
        both = Hashes(hashes, {})
        games = schedule(tournament)
        split = plan(games, store.hashes(), both)
        progress.stored(len(split.done))
        if split.todo:
            tasks = iter_tasks(tournament, split.todo, hashes, secret, layers, {}, snapshots,
                               stream=COMMON_STREAM)
            if features_snapshot:
                tasks = (with_files(task, features_snapshot) for task in tasks)
            executor.run(tasks, lambda task, output: progress.advance(
                failed(keeper.keep(task, output))))
            split = plan(games, store.hashes(), both)
        return store.frame(g.game_id for g in split.current)

    return play
