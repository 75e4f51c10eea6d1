"""The report's plots, drawn by matplotlib as SVG text that the pages hold inline.

Why SVG inline: the published folder must work offline from any static host and from the
folder itself, and a plot should stay readable at any width (a PNG blurs when a wide page
scales it, and its text cannot be selected). matplotlib is already the platform's plotting
library; a JavaScript plotting library would add megabytes to every page or a network
fetch. The values a reader wants to look up are in the tables beside each plot (the
leaderboard has every mean and interval, the heat map is an HTML table with each cell's
figures on hover), so the plots show shape, not numbers.

The plots are drawn on bare `matplotlib.figure.Figure` objects, never through pyplot: that
needs no display, touches no process-wide backend setting, and keeps no figures alive
between reports. matplotlib is imported only when a plot is drawn. Each SVG gets its own
id salt, so that two plots on one page never share an element id, and the same results
draw the same bytes (no date in the file, a fixed seed for the dots' jitter).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import pandas as pd  # type: ignore[import-untyped, unused-ignore]

from pacman.outcomes import INFRA_ERROR

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def scores_svg(results: Any, entrants: list[str]) -> str:
    """Every game as a dot over the box: Pacman scores are bimodal (a win is worth about
    1000 points more than a loss), and a box alone would hide one mode as outliers. The
    dots' sideways jitter comes from a fixed seed, so the same results draw the same plot."""
    import numpy as np
    from matplotlib.figure import Figure

    scored = results[results["outcome"] != INFRA_ERROR]
    scores = pd.to_numeric(scored["score"], errors="coerce")
    data = [scores[scored["entrant"] == e].dropna().to_numpy(dtype=float) for e in entrants]
    fig = Figure(figsize=(max(5.0, 0.8 * len(entrants) + 2), 4.0))
    ax = fig.add_subplot()
    ax.boxplot(data, showmeans=True, showfliers=False)
    rng = np.random.default_rng(0)
    for position, values in enumerate(data, start=1):
        jitter = rng.uniform(-0.15, 0.15, size=values.size)
        ax.scatter(position + jitter, values, s=10, alpha=0.4, color="tab:blue")
    ax.set_xticks(range(1, len(entrants) + 1), labels=[label(e) for e in entrants])
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylabel("score per game")
    ax.set_title("Scores (dot: a game, box: quartiles, line: median, triangle: mean)")
    return _svg(fig, "scores")


def move_times_svg(board: Any) -> str:
    """On a log scale when it can be, since the longest move is often 100x the mean one."""
    import numpy as np
    from matplotlib.figure import Figure

    x = np.arange(len(board))
    mean = board["move_time_mean"].to_numpy(dtype=float) * 1000
    longest = board["move_time_max"].to_numpy(dtype=float) * 1000
    fig = Figure(figsize=(max(5.0, 0.8 * len(board) + 2), 4.0))
    ax = fig.add_subplot()
    ax.bar(x - 0.2, mean, width=0.4, label="mean")
    ax.bar(x + 0.2, longest, width=0.4, label="longest")
    measured = np.concatenate([mean, longest])
    measured = measured[np.isfinite(measured)]
    if measured.size and (measured > 0).all():
        ax.set_yscale("log")
    ax.set_xticks(x, labels=[label(e) for e in board["entrant"]])
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylabel("milliseconds per move (wall clock)")
    ax.set_title("Thinking time per move")
    ax.legend()
    return _svg(fig, "move-times")


def label(text: str) -> str:
    """A name as plot text: matplotlib would read `$...$` in it as a formula."""
    return str(text).replace("$", r"\$")


def _svg(fig: Figure, salt: str) -> str:
    """The figure as an `<svg>` element (no XML prologue, no date), fonts as paths so that
    it looks the same without them, ids salted per plot."""
    import matplotlib

    out = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "path"}):
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = out.getvalue()
    start = text.find("<svg")
    return text[start:] if start >= 0 else text


def objective_svg(generations: Any, objective: str, start: float) -> str:
    """A tuning run's objective per generation (`tournament tune`): the best candidate's and
    the mean over the generation's candidates, the best so far, and the starting weights' on
    the same games (`start`, a level line; none when NaN). Every candidate of a run plays the
    same games, so the curves compare like with like; a generation without a value (no
    candidate reached the floor of `mean_score_wins`) leaves a gap."""
    from matplotlib.figure import Figure

    x = generations["generation"].to_numpy(dtype=float)
    fig = Figure(figsize=(6.0, 4.0))
    ax = fig.add_subplot()
    ax.plot(x, generations["best"].to_numpy(dtype=float), marker="o", label="best")
    ax.plot(x, generations["mean"].to_numpy(dtype=float), marker=".", label="mean")
    ax.plot(x, generations["best_so_far"].to_numpy(dtype=float), linestyle="--",
            label="best so far")
    if start == start:  # not NaN
        ax.axhline(start, color="grey", linestyle=":", label="start")
    ax.set_xlabel("generation")
    ax.set_ylabel(label(objective))
    ax.set_title("Objective per generation (the same seeds for every candidate)")
    if len(x):
        ax.set_xticks(x if len(x) <= 20 else x[:: max(1, len(x) // 10)])
    ax.legend()
    return _svg(fig, "objective")
