"""The evaluation report: JSON for scripts, HTML with plots and escaped names for people."""

from __future__ import annotations

import json
from pathlib import Path

from ggp.evaluation import rapp
from ggp.evaluation.evaluate import GameReport, unplayable_report
from ggp.evaluation.report import summary, write_html, write_json

EVIL = "<script>alert('x')</script>"


def _report(game: str) -> GameReport:
    return GameReport(
        game=game,
        algorithms=("random", EVIL),
        matches=4,
        failed=1,
        criteria={"completion": 0.75, "balance": 0.5, "decisiveness": None, "drama_mean": float("nan")},
        matrix=((None, 0.25), (0.75, None)),
        lengths=(12, 20, 31),
        fitness=rapp.RappResult(0.42, 0.1, 0.2, 0.0),
        errors=(f"failed {EVIL}",),
    )


def test_the_html_report_has_the_plots_and_escapes_every_name(tmp_path: Path) -> None:
    reports = [_report(f"game {EVIL}"), unplayable_report("broken", ("random", "mcts"), f"no move {EVIL}")]
    page = write_html(reports, tmp_path).read_text()
    assert EVIL not in page and "&lt;script&gt;" in page
    images = [name for name in page.split('src="')[1:]]
    shown = {name.split('"')[0] for name in images}
    assert {"fitness.png", "criteria.png"} <= shown
    assert any(name.endswith("-matrix.png") for name in shown) and any(name.endswith("-lengths.png") for name in shown)
    for name in shown:
        # File names are made safe, and every image the page shows exists and is a PNG.
        assert "<" not in name and (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    assert "0.420" in page and "-1.000" not in page and "unplayable</td>" in page


def test_the_json_report_has_no_nan_and_keeps_the_reasons(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    write_json([_report("g"), unplayable_report("broken", ("a", "b"), "no move")], path)
    data = json.loads(path.read_text())
    first, second = data["games"]
    assert first["criteria"]["drama_mean"] is None and first["win_matrix"] == [[None, 0.25], [0.75, None]]
    assert second["rapp"] == {"fitness": -1.0, "distance": None, "balance": None, "quickness": None, "reason": "no move",
                              "plays": 0, "intervals": {}}


def test_the_summary_has_one_row_per_game() -> None:
    rows = summary([_report("g"), unplayable_report("broken", ("a", "b"), "no move")])
    assert [(r["game"], r["fitness"], r["reason"]) for r in rows] == [("g", 0.42, ""), ("broken", -1.0, "no move")]


def _ludii_report(game: str, completion: float, coverage: float | None) -> GameReport:
    from dataclasses import replace

    from ggp.evaluation.ludii.catalogue import Measured

    ludii = {
        "Completion": Measured(completion, interval=(completion - 0.1, completion + 0.05), plays=4),
        "BoardCoverageDefault": Measured(coverage, plays=4) if coverage is not None
        else Measured(None, "the game has no board the rules show"),
        "DramaAverage": Measured(None, "no state evaluations were estimated (give --estimate-playouts)"),
    }
    return replace(_report(game), ludii=ludii)


def test_ludii_metrics_are_tabled_in_groups_with_n_a_and_reasons(tmp_path: Path) -> None:
    page = write_html([_ludii_report("chess", 0.9, 0.5)], tmp_path).read_text()
    assert "<th colspan=4 class=group>outcome</th>" in page and "<th colspan=4 class=group>Drama</th>" in page
    assert "0.900 <small>[0.800, 0.950]</small>" in page
    assert "<span class=na>n/a</span> <small>no state evaluations were estimated" in page
    assert "viability" in page  # Browne's group beside Ludii's
    assert "compare-heatmap.png" not in page  # one game: nothing to compare


def test_several_games_get_the_comparison_view(tmp_path: Path) -> None:
    reports = [_ludii_report("chess", 0.9, 0.5), _ludii_report("nim", 0.4, None), _ludii_report("g", 0.6, 1.0)]
    page = write_html(reports, tmp_path).read_text()
    assert '<div id=comparison><img src="compare-heatmap.png"' in page and "compare-parallel.png" in page
    assert (tmp_path / "compare-heatmap.png").read_bytes()[:4] == b"\x89PNG"
    data_path = tmp_path / "summary.json"
    write_json(reports, data_path)
    nim = json.loads(data_path.read_text())["games"][1]["ludii"]
    assert nim["BoardCoverageDefault"] == {"value": None, "plays": 0, "reason": "the game has no board the rules show"}
    assert nim["Completion"]["interval"] == [0.30000000000000004, 0.45]


def test_criteria_not_computed_are_not_drawn_as_zero_bars(tmp_path: Path) -> None:
    page = write_html([_report("g")], tmp_path).read_text()
    assert "<th>decisiveness</th><td>n/a</td>" in page
