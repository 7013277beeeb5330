"""The evaluation report: JSON for scripts, an HTML page with matplotlib plots for people.

Plots: a win-rate heat map and a game-length histogram per game, the Ludi criteria of all games side by
side, the RAPP fitness per game and, for several games, the comparison view of the metrics
(:mod:`ggp.evaluation.compare`). Each game's metrics (the catalogue's, :mod:`ggp.evaluation.ludii.catalogue`)
are tabled once, in Ludii's groups with Browne's group and the metric's aliases beside them. A value that
was not computed is shown as "n/a" (with the reason), never as a zero bar; a whole number is shown
without decimals. Legends sit outside the plotting area, and tick labels are rotated so they do not
overlap. Images are written next to ``report.html``; every name shown in the page is HTML-escaped.

>>> number(2.0), number(0.12345), number(None)
('2', '0.123', 'n/a')
>>> plain(":meth:`PlayTrace.movers` and :func:`~ggp.x.turns`, ``L``")
'<code>PlayTrace.movers</code> and <code>turns</code>, <code>L</code>'
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ggp.evaluation.compare import write_comparison
from ggp.evaluation.evaluate import GameReport
from ggp.evaluation.ludii.catalogue import METRICS, Measured
from ggp.evaluation.rapp import MEASURES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SHOWN_CRITERIA = (
    "Completion", "Balance", "AdvantageP1", "Drawishness", "Timeouts",
    "LudiDuration", "OutcomeUniformity", "DecisivenessMoves", "LeadChange", "DramaAverage",
)
"""The Ludi criteria drawn side by side for all games (catalogue names)."""

SUMMARY_METRICS = ("Balance", "Completion", "Drawishness", "DurationMoves")
"""The metrics of each game's ``--json`` summary row."""


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def write_json(reports: Sequence[GameReport], path: Path) -> None:
    """All reports as one JSON document."""
    path.write_text(json.dumps({"games": [r.to_json() for r in reports]}, indent=2, allow_nan=False))


def _interval(report: GameReport, measure: str) -> list[float] | None:
    found = report.fitness.interval(measure)
    return None if found is None else [found.low, found.high]


def _clean(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _value(report: GameReport, name: str) -> float | None:
    found = report.metrics.get(name)
    return None if found is None else _clean(found.value)


def summary(reports: Sequence[GameReport]) -> list[dict[str, object]]:
    """One small dict per game, for ``--json`` and the README table."""
    return [
        {
            "game": r.game,
            "fitness": _clean(r.fitness.fitness),
            "unplayable": not r.fitness.playable,
            "reason": r.fitness.reason or r.unplayable or "",
            **{f"{name}_interval": _interval(r, name) for name in MEASURES},
            "D": _clean(r.fitness.distance),
            "B": _clean(r.fitness.balance),
            "Q": _clean(r.fitness.quickness),
            "matches": r.matches,
            "failed": r.failed,
            "fallbacks": dict(r.fallbacks),
            **{name: _value(r, name) for name in SUMMARY_METRICS},
        }
        for r in reports
    ]


def fallback_note(row: Mapping[str, object]) -> str:
    """What a summary row says about fallback moves: empty when every player chose all its moves.

    >>> fallback_note({"fallbacks": {"mcts": 3}})
    '* moves played by the fallback, not chosen by the player (it raised or chose an illegal move): mcts 3'
    """
    counts = row.get("fallbacks")
    if not isinstance(counts, Mapping) or not counts:
        return ""
    listed = ", ".join(f"{spec} {count}" for spec, count in counts.items())
    return f"* moves played by the fallback, not chosen by the player (it raised or chose an illegal move): {listed}"


def _pyplot() -> object:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def matrix_figure(report: GameReport) -> Figure:
    """The win-rate heat map of one game: row's score against column. Tick labels are the player specs,
    broken at their first ``:`` and at each ``,``, and the x labels are rotated so they never overlap."""
    import matplotlib.pyplot as plt
    import numpy as np

    _pyplot()
    matrix = np.array([[np.nan if v is None else v for v in row] for row in report.matrix], dtype=float)
    size = len(report.algorithms)
    figure, axis = plt.subplots(figsize=(max(4.2, 1.0 + 0.9 * size), max(3.6, 1.6 + 0.7 * size)))
    image = axis.imshow(matrix, vmin=0, vmax=1, cmap="RdYlGn")
    labels = [_spec_label(a) for a in report.algorithms]
    axis.set_xticks(range(size), labels, fontsize=7, rotation=45, ha="right", rotation_mode="anchor")
    axis.set_yticks(range(size), labels, fontsize=7)
    for i in range(size):
        for j in range(size):
            if i != j and not np.isnan(matrix[i, j]):
                axis.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
    axis.set_title("score of row vs column", fontsize=9)
    figure.colorbar(image, ax=axis)
    figure.tight_layout()
    return figure


def _spec_label(spec: str) -> str:
    name, _, options = spec.partition(":")
    return name if not options else name + "\n" + options.replace(",", ",\n")


def criteria_figure(reports: Sequence[GameReport]) -> Figure:
    """The Ludi criteria (:data:`SHOWN_CRITERIA`) of every game side by side, one bar colour per game, the
    legend to the right of the plotting area (outside it, so no bar is hidden)."""
    import matplotlib.pyplot as plt

    _pyplot()
    figure, axis = plt.subplots(figsize=(max(6, 1.2 * len(SHOWN_CRITERIA)) + 2.0, 3.6))
    width = 0.8 / len(reports)
    top = 1.0
    for k, report in enumerate(reports):
        values = [_value(report, c) for c in SHOWN_CRITERIA]
        places = [i + k * width for i in range(len(SHOWN_CRITERIA))]
        drawn = [(x, v) for x, v in zip(places, values) if v is not None]
        top = max([top, *(v for _, v in drawn)])
        axis.bar([x for x, _ in drawn], [v for _, v in drawn], width, label=report.game)
        for x, v in zip(places, values):
            if v is None:  # not computed: a word, not a zero-height bar
                axis.text(x, 0.02, "n/a", rotation=90, ha="center", va="bottom", fontsize=6, color="#777777")
    axis.set_xticks([i + 0.4 - width / 2 for i in range(len(SHOWN_CRITERIA))], SHOWN_CRITERIA, rotation=30,
                    ha="right", rotation_mode="anchor", fontsize=7)
    axis.set_ylim(0, top)
    _legend_outside(axis, len(reports))
    axis.set_title("Ludi criteria per game", fontsize=9)
    figure.tight_layout()
    return figure


def _legend_outside(axis: object, entries: int) -> None:
    """A legend to the right of the axes, in as many columns as keep it within the figure's height."""
    columns = max(1, math.ceil(entries / 14))
    axis.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,  # type: ignore[attr-defined]
                ncol=columns, frameon=False)


def fitness_figure(reports: Sequence[GameReport]) -> Figure:
    """The RAPP fitness per game (no bar: unplayable or n/a, said in words)."""
    import matplotlib.pyplot as plt

    _pyplot()
    figure, axis = plt.subplots(figsize=(max(4, 0.9 * len(reports)), 3.0))
    fitness = [_clean(r.fitness.fitness) if r.fitness.playable else None for r in reports]
    drawn = [(i, f) for i, f in enumerate(fitness) if f is not None]
    axis.bar([i for i, _ in drawn], [f for _, f in drawn], color="#6a9f58")
    for i, (report, f) in enumerate(zip(reports, fitness)):
        if f is None:  # a word, not a zero-height bar
            axis.text(i, 0.02, "unplayable" if not report.fitness.playable else "n/a", rotation=90, ha="center",
                      va="bottom", fontsize=7, color="#777777")
    axis.set_xticks(range(len(reports)), [r.game for r in reports], rotation=30, ha="right", rotation_mode="anchor",
                    fontsize=7)
    axis.set_ylim(0, 1)
    axis.axhline(0, color="black", linewidth=0.5)
    axis.set_title("RAPP fitness (no bar: unplayable or n/a)", fontsize=9)
    figure.tight_layout()
    return figure


def _save(figure: Figure, path: Path) -> None:
    import matplotlib.pyplot as plt

    figure.savefig(path, dpi=90, bbox_inches="tight")
    plt.close(figure)


def _plots(reports: Sequence[GameReport], out: Path) -> dict[str, list[str]]:
    import matplotlib.pyplot as plt

    _pyplot()
    images: dict[str, list[str]] = {}
    for report in reports:
        names: list[str] = []
        if report.matches:
            name = f"{_safe(report.game)}-matrix.png"
            _save(matrix_figure(report), out / name)
            names.append(name)
            figure, axis = plt.subplots(figsize=(4.2, 3.0))
            axis.hist(report.lengths, bins=min(20, max(1, len(set(report.lengths)))), color="#4878a8")
            axis.set_xlabel("plies")
            axis.set_ylabel("matches")
            axis.set_title("game length", fontsize=9)
            figure.tight_layout()
            name = f"{_safe(report.game)}-lengths.png"
            _save(figure, out / name)
            names.append(name)
        images[report.game] = names
    playable = [r for r in reports if r.matches]
    if playable:
        _save(criteria_figure(playable), out / "criteria.png")
        images["__criteria__"] = ["criteria.png"]
    _save(fitness_figure(reports), out / "fitness.png")
    images["__fitness__"] = ["fitness.png"]
    compared = {r.game: {name: found.value for name, found in r.metrics.items()} for r in reports if r.metrics}
    images["__compare__"] = write_comparison(compared, out)
    return images


def _intrinsic_table(report: GameReport) -> str:
    """Browne's intrinsic criteria of the game (from the rules, without playing), n/a where they do not apply."""
    if not report.intrinsic:
        return ""
    cells = "".join(f"<tr><td>{html.escape(name)}</td><td>{number(value)}</td></tr>" for name, value in report.intrinsic.items())
    return f"<table><tr><th colspan=2 class=group>intrinsic (Browne; from the rules alone)</th></tr>{cells}</table>"


def _metric_table(metrics: Mapping[str, Measured]) -> str:
    """The game's metrics, one table row each (each metric once, its aliases beside its name), in Ludii's
    groups (multi-metrics by family)."""
    rows = []
    group = None
    for name, found in metrics.items():
        metric = METRICS[name]
        heading = metric.group if metric.group != "multi" else metric.source.rsplit("/", 1)[-1].removesuffix(".java")
        if heading != group:
            group = heading
            rows.append(f"<tr><th colspan=4 class=group>{html.escape(heading)}</th></tr>")
        if found.value is None:
            shown = f"<span class=na>n/a</span> <small>{html.escape(found.reason or '')}</small>"
        else:
            shown = _with_interval(found.value, list(found.interval) if found.interval else None)
        also = f"<br><small>also: {html.escape(', '.join(metric.aliases))}</small>" if metric.aliases else ""
        rows.append(f"<tr><td class=metric>{html.escape(name)}{also}</td><td>{shown}</td><td>{html.escape(metric.browne)}"
                    f"</td><td><small>{plain(metric.definition)}</small></td></tr>")
    return ("<details open><summary>Metrics (" + str(len(metrics)) + ")</summary><table>"
            "<tr><th>metric</th><th>value [95% interval]</th><th>Browne group</th><th>definition</th></tr>"
            + "".join(rows) + "</table></details>")


_ROLE = re.compile(r":(?:func|meth|class|mod|data|attr|obj):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def plain(text: str) -> str:
    """Docstring text as HTML: escaped, Sphinx cross-references (``:func:`name```) and literals shown as code
    (a ``~`` reference by its last part)."""
    escaped = html.escape(text, quote=False)
    escaped = _ROLE.sub(lambda m: f"<code>{m.group(1).rsplit('.', 1)[-1] if m.group(0).count('~') else m.group(1)}</code>",
                        escaped)
    return _LITERAL.sub(lambda m: f"<code>{m.group(1)}</code>", escaped)


def number(value: object) -> str:
    """A figure as the report shows it: a whole number without decimals, any other to three decimals,
    "n/a" for a missing or undefined one (HTML-escaped)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.3f}"
    return html.escape(str(value))


def _with_interval(value: object, interval: object) -> str:
    if not isinstance(interval, list):
        return number(value)
    return f"{number(value)} <small>[{number(interval[0])}, {number(interval[1])}]</small>"


def write_html(reports: Sequence[GameReport], out: Path, *, title: str = "Game evaluation") -> Path:
    """Write report.html (and its PNG plots) into ``out``; returns the page's path."""
    out.mkdir(parents=True, exist_ok=True)
    images = _plots(reports, out)
    rows = []
    for row in summary(reports):
        if row["unplayable"]:
            rapp_cells = "<td colspan=4 class=warn>unplayable</td>"
        else:
            rapp_cells = "".join(
                f"<td>{_with_interval(row[key], row[f'{name}_interval'])}</td>"
                for key, name in (("fitness", "fitness"), ("D", "distance"), ("B", "balance"), ("Q", "quickness"))
            )
        rows.append(
            "<tr>" + f"<td>{number(row['game'])}</td>" + rapp_cells
            + "".join(f"<td>{number(row[k])}</td>" for k in ("matches", "failed"))
            + f"<td>{number(' '.join(filter(None, (str(row['reason']), fallback_note(row)))))}</td>"
            + "</tr>"
        )
    sections = []
    for report in reports:
        pictures = "".join(f'<img src="{html.escape(name)}" alt="">' for name in images.get(report.game, []))
        note = f"<p class=warn>{html.escape(report.unplayable)}</p>" if report.unplayable else ""
        errors = "".join(f"<li>{html.escape(e)}</li>" for e in report.errors)
        sections.append(
            f"<section><h2>{html.escape(report.game)}</h2>{note}<div class=row>{pictures}</div>"
            f"{_intrinsic_table(report)}{_metric_table(report.metrics) if report.metrics else ''}"
            f"{'<ul>' + errors + '</ul>' if errors else ''}</section>"
        )
    overview = "".join(f'<img src="{n}" alt="">' for key in ("__fitness__", "__criteria__") for n in images.get(key, []))
    comparison = "".join(f'<img src="{n}" alt="" class=wide>' for n in images.get("__compare__", []))
    if comparison:
        comparison = ("<h2>Comparison of the games</h2><p>The single metrics and each Ludii family's average, "
                      "normalised per metric over these games (0 = lowest, 1 = highest; grey: n/a).</p>"
                      f"<div id=comparison>{comparison}</div>")
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}}.row img{{margin-right:1em}}.warn{{color:#a33}}
.na{{color:#777;font-style:italic}}th.group{{background:#eef}}img{{max-width:100%;height:auto}}img.wide{{display:block}}</style>
</head><body><h1>{html.escape(title)}</h1>
<p>RAPP fitness f = (1 - D)(1 - B)(1 - Q), each with its 95% bootstrap interval over the plays;
"n/a" where no RAPP model applies to the players or the game is not a two-player game.</p>
<table><tr><th>game</th><th>RAPP fitness</th><th>D (distance)</th><th>B (colour balance)</th>
<th>Q (quickness)</th><th>matches</th><th>failed</th><th>note</th></tr>{''.join(rows)}</table>
<p>Each game's metrics follow in its section, each once: Ludii's metrics under Ludii's names and the Ludi
criteria, their former names given as aliases.</p>
<div class=row>{overview}</div>{comparison}{''.join(sections)}</body></html>"""
    path = out / "report.html"
    path.write_text(page)
    return path
