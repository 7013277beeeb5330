"""The comparison view of several games: a heat map of games x metrics and a parallel-coordinates plot.

Each metric is normalised over the games compared (0 = the lowest game, 1 = the highest; a metric equal
on every game is 0.5), so a designer sees at a glance where a generated game stands between chess and
gardner. A metric that does not apply to a game is a grey "n/a" cell and a gap in that game's line,
never a zero. The metrics shown are the single metrics and each family's average that some game has.

>>> rows = normalise({"a": {"m": 1.0, "k": None}, "b": {"m": 3.0, "k": 2.0}}, ["m", "k"])
>>> rows["a"], rows["b"]
([0.0, None], [1.0, 0.5])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ggp.evaluation.ludii.catalogue import LUDI_METRICS, SINGLE_METRICS
from ggp.evaluation.ludii.families import FAMILIES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COMPARED = (tuple(m.name for m in (*SINGLE_METRICS, *LUDI_METRICS))
            + tuple(f"{family}Average" for family in FAMILIES))
"""The metrics the comparison shows, in catalogue order."""


def normalise(values: Mapping[str, Mapping[str, float | None]], metrics: Sequence[str]) -> dict[str, list[float | None]]:
    """Per game, each metric scaled to [0, 1] over the games that have it (``None`` stays ``None``)."""
    rows: dict[str, list[float | None]] = {game: [] for game in values}
    for metric in metrics:
        present = [v for found in values.values() if (v := found.get(metric)) is not None]
        low, high = (min(present), max(present)) if present else (0.0, 0.0)
        for game, found in values.items():
            value = found.get(metric)
            rows[game].append(None if value is None else 0.5 if high == low else (value - low) / (high - low))
    return rows


def shown_metrics(values: Mapping[str, Mapping[str, float | None]]) -> list[str]:
    """The compared metrics that at least one game has a value for."""
    return [m for m in COMPARED if any(found.get(m) is not None for found in values.values())]


def write_comparison(values: Mapping[str, Mapping[str, float | None]], out: Path) -> list[str]:
    """Draw ``compare-heatmap.png`` and ``compare-parallel.png`` into ``out``; returns their names (none
    for fewer than two games or no metric)."""
    metrics = shown_metrics(values)
    if len(values) < 2 or not metrics:
        return []
    import matplotlib.pyplot as plt

    games = list(values)
    rows = normalise(values, metrics)
    figure = heatmap_figure(values, metrics, rows)
    figure.savefig(out / "compare-heatmap.png", dpi=90, bbox_inches="tight")
    plt.close(figure)
    figure = parallel_figure(games, metrics, rows)
    figure.savefig(out / "compare-parallel.png", dpi=90, bbox_inches="tight")
    plt.close(figure)
    return ["compare-heatmap.png", "compare-parallel.png"]


def heatmap_figure(values: Mapping[str, Mapping[str, float | None]], metrics: Sequence[str],
                   rows: Mapping[str, Sequence[float | None]]) -> Figure:
    """Games x metrics, each cell the normalised value (grey "n/a" where the game has none)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    games = list(values)
    grid = np.array([[np.nan if v is None else v for v in rows[g]] for g in games], dtype=float)
    figure, axis = plt.subplots(figsize=(max(8, 0.32 * len(metrics)), 1.2 + 0.45 * len(games)))
    colours = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
    image = axis.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap=colours, vmin=0, vmax=1)
    for i, game in enumerate(games):
        for j, metric in enumerate(metrics):
            if values[game].get(metric) is None:
                axis.text(j, i, "n/a", ha="center", va="center", fontsize=5, color="#555555")
    axis.set_xticks(range(len(metrics)), metrics, rotation=90, fontsize=6)
    axis.set_yticks(range(len(games)), games, fontsize=7)
    axis.set_title("metrics, normalised per metric over these games (grey: n/a)", fontsize=9)
    figure.colorbar(image, ax=axis, fraction=0.02)
    figure.tight_layout()
    return figure


def parallel_figure(games: Sequence[str], metrics: Sequence[str], rows: Mapping[str, Sequence[float | None]]) -> Figure:
    """One line per game over the normalised metrics; the legend to the right of the plotting area, outside
    it, so it hides neither the lines nor the right-hand axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    figure, axis = plt.subplots(figsize=(max(8, 0.32 * len(metrics)) + 2.0, 4.2))
    for game in games:
        axis.plot(range(len(metrics)), [np.nan if v is None else v for v in rows[game]], marker="o", markersize=3,
                  linewidth=1, label=game)
    axis.set_xticks(range(len(metrics)), metrics, rotation=90, fontsize=6)
    axis.set_ylim(-0.05, 1.05)
    axis.set_ylabel("normalised value")
    axis.grid(axis="x", linewidth=0.3)
    axis.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                ncol=max(1, math.ceil(len(games) / 14)), frameon=False)
    axis.set_title("parallel coordinates (a gap: n/a for that game)", fontsize=9)
    figure.tight_layout()
    return figure
