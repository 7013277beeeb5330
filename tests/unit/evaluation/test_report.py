"""The evaluation report: JSON for scripts, HTML with plots and escaped names for people; each metric shown
once, definitions as plain text, whole numbers without decimals, plots whose labels and legends do not
overlap."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from ggp.evaluation import rapp
from ggp.evaluation.evaluate import GameReport, report_game, unplayable_report
from ggp.evaluation.ludii.catalogue import ALIASES, CORE, METRICS, Measured, select
from ggp.evaluation.report import criteria_figure, matrix_figure, number, summary, write_html, write_json

EVIL = "<script>alert('x')</script>"


def _report(game: str) -> GameReport:
    return GameReport(
        game=game,
        algorithms=("random", EVIL),
        matches=4,
        failed=1,
        matrix=((None, 0.25), (0.75, None)),
        lengths=(12, 20, 31),
        fitness=rapp.RappResult(0.42, 0.1, 0.2, 0.0),
        errors=(f"failed {EVIL}",),
        metrics={"Balance": Measured(0.5, plays=3), "Completion": Measured(0.75, plays=3),
                 "DecisivenessMoves": Measured(None, "no state evaluations were estimated (give --estimate-playouts)"),
                 "DramaAverage": Measured(float("nan"), plays=3)},
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
    assert first["metrics"]["DramaAverage"]["value"] is None and first["win_matrix"] == [[None, 0.25], [0.75, None]]
    assert "criteria" not in first and set(second["metrics"]) == set(CORE)
    assert second["rapp"] == {"fitness": -1.0, "distance": None, "balance": None, "quickness": None, "reason": "no move",
                              "plays": 0, "intervals": {}}


def test_the_summary_has_one_row_per_game() -> None:
    rows = summary([_report("g"), unplayable_report("broken", ("a", "b"), "no move")])
    assert [(r["game"], r["fitness"], r["reason"]) for r in rows] == [("g", 0.42, ""), ("broken", -1.0, "no move")]
    assert (rows[0]["Balance"], rows[0]["Completion"], rows[0]["DurationMoves"]) == (0.5, 0.75, None)


def _ludii_report(game: str, completion: float, coverage: float | None) -> GameReport:
    metrics = {
        "Completion": Measured(completion, interval=(completion - 0.1, completion + 0.05), plays=4),
        "BoardCoverageDefault": Measured(coverage, plays=4) if coverage is not None
        else Measured(None, "the game has no board the rules show"),
        "DramaAverage": Measured(None, "no state evaluations were estimated (give --estimate-playouts)"),
    }
    return replace(_report(game), metrics=metrics)


def test_metrics_are_tabled_in_groups_with_n_a_and_reasons(tmp_path: Path) -> None:
    page = write_html([_ludii_report("chess", 0.9, 0.5)], tmp_path).read_text()
    assert "<th colspan=4 class=group>outcome</th>" in page and "<th colspan=4 class=group>Drama</th>" in page
    assert "0.900 <small>[0.800, 0.950]</small>" in page
    assert "<span class=na>n/a</span> <small>no state evaluations were estimated" in page
    assert "viability" in page  # Browne's group beside Ludii's
    assert "also: completion" in page and "also: drama_mean" in page  # the Ludi names, as aliases
    assert "compare-heatmap.png" not in page  # one game: nothing to compare


def test_several_games_get_the_comparison_view(tmp_path: Path) -> None:
    reports = [_ludii_report("chess", 0.9, 0.5), _ludii_report("nim", 0.4, None), _ludii_report("g", 0.6, 1.0)]
    page = write_html(reports, tmp_path).read_text()
    assert '<div id=comparison><img src="compare-heatmap.png"' in page and "compare-parallel.png" in page
    assert (tmp_path / "compare-heatmap.png").read_bytes()[:4] == b"\x89PNG"
    data_path = tmp_path / "summary.json"
    write_json(reports, data_path)
    nim = json.loads(data_path.read_text())["games"][1]["metrics"]
    assert nim["BoardCoverageDefault"] == {"value": None, "plays": 0, "reason": "the game has no board the rules show"}
    assert nim["Completion"]["interval"] == [0.30000000000000004, 0.45]


def test_metrics_not_computed_are_n_a_not_zero(tmp_path: Path) -> None:
    page = write_html([_report("g")], tmp_path).read_text()
    assert re.search(r"DecisivenessMoves(<br><small>also: decisiveness</small>)?</td><td><span class=na>n/a</span>", page)


@pytest.mark.parametrize(("value", "shown"), [(2.0, "2"), (60.0, "60"), (3, "3"), (0.5, "0.500"), (-1.0, "-1"),
                                              (None, "n/a"), (float("nan"), "n/a")])
def test_whole_numbers_are_shown_without_decimals(value: float | None, shown: str) -> None:
    assert number(value) == shown


# --- a real evaluation: tic-tac-toe, 4 matches ----------------------------------------------------------


@pytest.fixture(scope="module")
def tictactoe(tmp_path_factory: pytest.TempPathFactory) -> tuple[GameReport, str]:
    from ggp.commands._boards import board_of
    from ggp.commands._games import load_game
    from ggp.evaluation.selfplay import GameSource, round_robin, run_jobs
    from ggp.players.registry import make_player
    from ggp.reasoner.engines import KifMachines
    from tests.prerequisites import require_module

    require_module("clingo")
    loaded = load_game("ticTacToe")
    game = GameSource(loaded.name, loaded.kif, loaded.turn_limit, None, board_of(loaded))
    specs = ("random", "mcts:iterations=5")
    jobs = round_robin(game, specs, matches_per_seat=2, seed=3, estimate_playouts=2, move_playouts=1)
    results = run_jobs(jobs, make_player, KifMachines("clingo"))
    report = replace(report_game(game.key, results, specs, None, metrics=select("all").metrics, seed=3),
                     intrinsic={"Roles": 2.0, "BoardSites": 9.0})
    out = tmp_path_factory.mktemp("ttt")
    return report, write_html([report], out).read_text()


def test_the_report_of_a_real_game_shows_each_metric_once(tictactoe: tuple[GameReport, str]) -> None:
    report, page = tictactoe
    assert report.matches == 4 and list(report.metrics) == list(METRICS)
    rows = re.findall(r"<td class=metric>([A-Za-z0-9]+)", page)
    assert sorted(rows) == sorted(METRICS) and len(rows) == len(set(rows))  # every metric, each once
    for alias in ALIASES:  # a Ludi name is shown only as an alias of its metric, never with a figure of its own
        assert f">{alias}<" not in page and f"<th>{alias}</th>" not in page


def test_the_report_shows_definitions_as_plain_text(tictactoe: tuple[GameReport, str]) -> None:
    _, page = tictactoe
    assert not re.search(r":(func|meth|class|mod|data|attr):", page)
    assert "<code>PlayTrace.movers</code>" in page and "``" not in page


def test_the_report_prints_whole_numbers_without_decimals(tictactoe: tuple[GameReport, str]) -> None:
    report, page = tictactoe
    assert "<td>Roles</td><td>2</td>" in page and "<td>BoardSites</td><td>9</td>" in page
    assert not re.search(r"\b\d+\.000\b", page)  # no whole number with three zero decimals
    assert report.metrics["Timeouts"].value == 0.0
    assert re.search(r"Timeouts(<br><small>also: timeouts</small>)?</td><td>0 <small>", page)


# --- plots: labels and legends --------------------------------------------------------------------------


def _boxes_overlap(a: object, b: object) -> bool:
    return bool(a.overlaps(b))  # type: ignore[attr-defined]


def test_the_win_matrix_x_labels_do_not_overlap() -> None:
    specs = ("random", "mcts:iterations=10", "mcts:iterations=100", "alphabeta:depth=2,eval=material", "minimax:depth=3")
    size = len(specs)
    report = replace(_report("g"), algorithms=specs,
                     matrix=tuple(tuple(None if i == j else 0.5 for j in range(size)) for i in range(size)))
    figure = matrix_figure(report)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    labels = [t for t in figure.axes[0].get_xticklabels() if t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert len(boxes) == size
    assert not any(_boxes_overlap(boxes[i], boxes[j]) for i in range(size) for j in range(i + 1, size))


def _legend_clear_of_data(figure: object) -> None:
    figure.canvas.draw()  # type: ignore[attr-defined]
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    axis = figure.axes[0]  # type: ignore[attr-defined]
    legend = axis.get_legend()
    assert legend is not None
    assert not _boxes_overlap(legend.get_window_extent(renderer), axis.get_window_extent(renderer))


def test_the_criteria_legend_of_sixteen_games_stays_outside_the_bars() -> None:
    reports = [replace(_report(f"game-{k:02d}-with-a-long-name"), metrics={name: Measured(0.1 * (k % 10), plays=3)
                                                                           for name in CORE}) for k in range(16)]
    _legend_clear_of_data(criteria_figure(reports))


def test_the_parallel_coordinates_legend_of_sixteen_games_stays_outside_the_axes() -> None:
    from ggp.evaluation.compare import normalise, parallel_figure, shown_metrics

    values = {f"game-{k:02d}": {"Completion": 0.05 * k, "Balance": 1 - 0.05 * k, "DurationMoves": float(k)}
              for k in range(16)}
    metrics = shown_metrics(values)
    _legend_clear_of_data(parallel_figure(list(values), metrics, normalise(values, metrics)))
