"""The evaluation report: JSON for scripts, an HTML page with matplotlib plots for people.

Plots: a win-rate heat map and a game-length histogram per game, the criteria of all games side by
side, the RAPP fitness per game and, for several games, the comparison view of Ludii's metrics
(:mod:`ggp.evaluation.compare`). Each game's Ludii metrics are tabled in Ludii's groups with Browne's
group beside them. A value that was not computed is shown as "n/a" (with the reason), never as a zero
bar. Images are written next to ``report.html``; every name shown in the page is HTML-escaped.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from ggp.evaluation.compare import write_comparison
from ggp.evaluation.evaluate import GameReport
from ggp.evaluation.ludii.catalogue import METRICS, Measured
from ggp.evaluation.rapp import MEASURES

_SHOWN_CRITERIA = (
    "completion", "balance", "advantage_first_player", "drawishness", "timeouts",
    "duration_ludi", "outcome_uniformity", "decisiveness", "lead_change", "drama_mean",
)


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
            **{name: _clean(r.criteria.get(name)) for name in ("balance", "completion", "drawishness", "duration_mean")},
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


def _plots(reports: Sequence[GameReport], out: Path) -> dict[str, list[str]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    images: dict[str, list[str]] = {}
    for report in reports:
        names: list[str] = []
        if report.matches:
            matrix = np.array([[np.nan if v is None else v for v in row] for row in report.matrix], dtype=float)
            figure, axis = plt.subplots(figsize=(4.2, 3.6))
            image = axis.imshow(matrix, vmin=0, vmax=1, cmap="RdYlGn")
            labels = [a.split(":")[0] + ("\n" + a.split(":", 1)[1] if ":" in a else "") for a in report.algorithms]
            axis.set_xticks(range(len(labels)), labels, fontsize=7)
            axis.set_yticks(range(len(labels)), labels, fontsize=7)
            for i in range(len(labels)):
                for j in range(len(labels)):
                    if i != j and not np.isnan(matrix[i, j]):
                        axis.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
            axis.set_title("score of row vs column", fontsize=9)
            figure.colorbar(image, ax=axis)
            figure.tight_layout()
            name = f"{_safe(report.game)}-matrix.png"
            figure.savefig(out / name, dpi=90)
            plt.close(figure)
            names.append(name)
            figure, axis = plt.subplots(figsize=(4.2, 3.0))
            axis.hist(report.lengths, bins=min(20, max(1, len(set(report.lengths)))), color="#4878a8")
            axis.set_xlabel("plies")
            axis.set_ylabel("matches")
            axis.set_title("game length", fontsize=9)
            figure.tight_layout()
            name = f"{_safe(report.game)}-lengths.png"
            figure.savefig(out / name, dpi=90)
            plt.close(figure)
            names.append(name)
        images[report.game] = names
    playable = [r for r in reports if r.matches]
    if playable:
        figure, axis = plt.subplots(figsize=(max(6, 1.2 * len(_SHOWN_CRITERIA)), 3.6))
        width = 0.8 / len(playable)
        for k, report in enumerate(playable):
            values = [_clean(report.criteria.get(c)) for c in _SHOWN_CRITERIA]
            places = [i + k * width for i in range(len(_SHOWN_CRITERIA))]
            drawn = [(x, v) for x, v in zip(places, values) if v is not None]
            axis.bar([x for x, _ in drawn], [v for _, v in drawn], width, label=report.game)
            for x, v in zip(places, values):
                if v is None:  # not computed: a word, not a zero-height bar
                    axis.text(x, 0.02, "n/a", rotation=90, ha="center", va="bottom", fontsize=6, color="#777777")
        axis.set_xticks([i + 0.4 - width / 2 for i in range(len(_SHOWN_CRITERIA))], _SHOWN_CRITERIA, rotation=30, fontsize=7)
        axis.set_ylim(0, 1)
        axis.legend(fontsize=7)
        axis.set_title("criteria per game", fontsize=9)
        figure.tight_layout()
        figure.savefig(out / "criteria.png", dpi=90)
        plt.close(figure)
        images["__criteria__"] = ["criteria.png"]
    figure, axis = plt.subplots(figsize=(max(4, 0.9 * len(reports)), 3.0))
    fitness = [_clean(r.fitness.fitness) if r.fitness.playable else None for r in reports]
    drawn = [(i, f) for i, f in enumerate(fitness) if f is not None]
    axis.bar([i for i, _ in drawn], [f for _, f in drawn], color="#6a9f58")
    for i, (report, f) in enumerate(zip(reports, fitness)):
        if f is None:  # a word, not a zero-height bar
            axis.text(i, 0.02, "unplayable" if not report.fitness.playable else "n/a", rotation=90, ha="center",
                      va="bottom", fontsize=7, color="#777777")
    axis.set_xticks(range(len(reports)), [r.game for r in reports], rotation=30, fontsize=7)
    axis.set_ylim(0, 1)
    axis.axhline(0, color="black", linewidth=0.5)
    axis.set_title("RAPP fitness (no bar: unplayable or n/a)", fontsize=9)
    figure.tight_layout()
    figure.savefig(out / "fitness.png", dpi=90)
    plt.close(figure)
    images["__fitness__"] = ["fitness.png"]
    compared = {r.game: {name: found.value for name, found in r.ludii.items()} for r in reports if r.ludii}
    images["__compare__"] = write_comparison(compared, out)
    return images


def _intrinsic_table(report: GameReport) -> str:
    """Browne's intrinsic criteria of the game (from the rules, without playing), n/a where they do not apply."""
    if not report.intrinsic:
        return ""
    cells = "".join(f"<tr><td>{html.escape(name)}</td><td>{_fmt(value)}</td></tr>" for name, value in report.intrinsic.items())
    return f"<table><tr><th colspan=2 class=group>intrinsic (Browne; from the rules alone)</th></tr>{cells}</table>"


def _ludii_table(ludii: dict[str, Measured]) -> str:
    """The game's Ludii metrics, one table row each, in Ludii's groups (multi-metrics by family)."""
    rows = []
    group = None
    for name, found in ludii.items():
        metric = METRICS[name]
        heading = metric.group if metric.group != "multi" else metric.source.rsplit("/", 1)[-1].removesuffix(".java")
        if heading != group:
            group = heading
            rows.append(f"<tr><th colspan=4 class=group>{html.escape(heading)}</th></tr>")
        if found.value is None:
            shown = f"<span class=na>n/a</span> <small>{html.escape(found.reason or '')}</small>"
        else:
            shown = _with_interval(found.value, list(found.interval) if found.interval else None)
        rows.append(f"<tr><td>{html.escape(name)}</td><td>{shown}</td><td>{html.escape(metric.browne)}</td>"
                    f"<td><small>{html.escape(metric.definition)}</small></td></tr>")
    return ("<details><summary>Ludii metrics (" + str(len(ludii)) + ")</summary><table>"
            "<tr><th>metric</th><th>value [95% interval]</th><th>Browne group</th><th>definition</th></tr>"
            + "".join(rows) + "</table></details>")


def _with_interval(value: object, interval: object) -> str:
    if not isinstance(interval, list):
        return _fmt(value)
    return f"{_fmt(value)} <small>[{interval[0]:.3f}, {interval[1]:.3f}]</small>"


def _fmt(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}"
    return html.escape(str(value))


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
            "<tr>" + f"<td>{_fmt(row['game'])}</td>" + rapp_cells
            + "".join(f"<td>{_fmt(row[k])}</td>" for k in ("balance", "completion", "drawishness", "duration_mean",
                                                           "matches", "failed"))
            + f"<td>{_fmt(' '.join(filter(None, (str(row['reason']), fallback_note(row)))))}</td>"
            + "</tr>"
        )
    sections = []
    for report in reports:
        criteria = "".join(
            f"<tr><th>{html.escape(name)}</th><td>{_fmt(value)}</td></tr>" for name, value in report.criteria.items()
        )
        pictures = "".join(f'<img src="{html.escape(name)}" alt="">' for name in images.get(report.game, []))
        note = f"<p class=warn>{html.escape(report.unplayable)}</p>" if report.unplayable else ""
        errors = "".join(f"<li>{html.escape(e)}</li>" for e in report.errors)
        sections.append(
            f"<section><h2>{html.escape(report.game)}</h2>{note}<div class=row>{pictures}</div>"
            f"<table>{criteria}</table>{_intrinsic_table(report)}{_ludii_table(dict(report.ludii)) if report.ludii else ''}"
            f"{'<ul>' + errors + '</ul>' if errors else ''}</section>"
        )
    overview = "".join(f'<img src="{n}" alt="">' for key in ("__fitness__", "__criteria__") for n in images.get(key, []))
    comparison = "".join(f'<img src="{n}" alt="" class=wide>' for n in images.get("__compare__", []))
    if comparison:
        comparison = ("<h2>Comparison of the games</h2><p>Ludii's single metrics and each family's average, "
                      "normalised per metric over these games (0 = lowest, 1 = highest; grey: n/a).</p>"
                      f"<div id=comparison>{comparison}</div>")
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}}.row img{{margin-right:1em}}.warn{{color:#a33}}
.na{{color:#777;font-style:italic}}th.group{{background:#eef}}img.wide{{max-width:100%;display:block}}</style>
</head><body><h1>{html.escape(title)}</h1>
<p>RAPP fitness f = (1 - D)(1 - B)(1 - Q), each with its 95% bootstrap interval over the plays;
"n/a" where no RAPP model applies to the players or the game is not a two-player game.</p>
<table><tr><th>game</th><th>RAPP fitness</th><th>D (distance)</th><th>B (colour balance)</th>
<th>Q (quickness)</th><th>Ludii balance</th><th>completion</th><th>drawishness</th>
<th>mean length</th><th>matches</th><th>failed</th><th>note</th></tr>{''.join(rows)}</table>
<div class=row>{overview}</div>{comparison}{''.join(sections)}</body></html>"""
    path = out / "report.html"
    path.write_text(page)
    return path
