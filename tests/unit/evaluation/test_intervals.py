"""RAPP with statistical power: bootstrap intervals for D, B, Q and f, and ``--matches auto``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ggp.cli import main
from ggp.evaluation.rapp import (
    MEASURES,
    Play,
    absolute_distance,
    bootstrap_intervals,
    colour_balance,
    evaluate_game,
    fitness,
    performance_matrix,
    quickness,
)
from tests.conftest import KIF_DIR

MODEL = np.array([[0.5, 0.2], [0.8, 0.5]])
ALGORITHMS = ("weak", "strong")


def plays(repeat: int) -> list[Play]:
    """A game where strong beats weak 3 times in 4 in either seat, lengths 8 to 30."""
    out = []
    for k in range(repeat):
        for index in range(4):
            win = index < 3
            out.append(Play("strong", "weak", 1.0 if win else 0.0, 8 + 7 * index + k % 3))
            out.append(Play("weak", "strong", 0.0 if win else 1.0, 9 + 7 * index + k % 3))
    return out


def test_the_intervals_contain_the_point_estimates_and_repeat_for_a_seed() -> None:
    result = evaluate_game(plays(5), ALGORITHMS, MODEL, seed=3)
    again = evaluate_game(plays(5), ALGORITHMS, MODEL, seed=3)
    assert result.intervals == again.intervals and result.plays == 40
    for name in ("distance", "balance", "quickness", "fitness"):
        interval = result.interval(name)
        value = getattr(result, name)
        assert interval is not None and interval.low <= value <= interval.high, name


def test_more_plays_give_a_narrower_fitness_interval() -> None:
    few = bootstrap_intervals(plays(2), ALGORITHMS, MODEL)["fitness"]
    many = bootstrap_intervals(plays(20), ALGORITHMS, MODEL)["fitness"]
    assert many.width < few.width


def test_resampling_is_stratified_so_every_pairing_stays_defined() -> None:
    # One play per seating: an unstratified resample would often miss a seating and leave the matrix undefined.
    single = [Play("strong", "weak", 1.0, 20), Play("weak", "strong", 0.5, 30)]
    intervals = bootstrap_intervals(single, ALGORITHMS, MODEL, resamples=200)
    assert intervals["fitness"].width == 0.0  # nothing varies when each stratum has one play


def _resample_one_by_one(plays: list[Play], algorithms: tuple[str, ...], model: np.ndarray, resamples: int,
                         seed: int) -> dict[str, tuple[float, float]]:
    """The bootstrap spelled out: each resample a list of plays drawn seating by seating, its D, B, Q, f."""
    groups: dict[tuple[str, str], list[Play]] = {}
    for play in plays:
        groups.setdefault((play.white, play.black), []).append(play)
    rng = np.random.default_rng(seed)
    points = []
    for _ in range(resamples):
        drawn = [group[i] for group in groups.values() for i in rng.integers(0, len(group), len(group))]
        d = absolute_distance(performance_matrix(drawn, algorithms), model)
        b, q = colour_balance(drawn), quickness(drawn)
        points.append((d, b, q, fitness(distance=d, balance=b, quickness=q)))
    low, high = np.percentile(np.array(points), [2.5, 97.5], axis=0)
    return {name: (round(float(lo), 12), round(float(hi), 12)) for name, lo, hi in zip(MEASURES, low, high)}


THREE = ("a", "b", "c")
THREE_MODEL = np.array([[0.5, 0.3, 0.2], [0.7, 0.5, 0.4], [0.8, 0.6, 0.5]])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(THREE), st.sampled_from(THREE), st.sampled_from([0.0, 0.5, 1.0]),
                          st.integers(1, 40)), min_size=1, max_size=40),
       st.integers(0, 2**16))
def test_the_batched_bootstrap_equals_resampling_play_lists_one_by_one(raw: list[tuple[str, str, float, int]],
                                                                      seed: int) -> None:
    games = [Play(w, b, s, n) for w, b, s, n in raw]
    pairs = {frozenset((p.white, p.black)) for p in games if p.white != p.black}
    batched = {name: (i.low, i.high) for name, i in bootstrap_intervals(games, THREE, THREE_MODEL, resamples=50,
                                                                        seed=seed).items()}
    if len(pairs) < 3:  # some pair never met: the matrix is undefined, so no interval
        assert batched == {}
    else:
        assert batched == _resample_one_by_one(games, THREE, THREE_MODEL, 50, seed)


def test_no_intervals_when_resampling_is_switched_off() -> None:
    assert evaluate_game(plays(1), ALGORITHMS, MODEL, resamples=0).intervals == ()


def _model_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"algorithms": ["legal", "random"], "games": ["g"], "matrix": [[0.5, 0.5], [0.5, 0.5]]}))
    return path


def test_matches_auto_stops_as_soon_as_the_interval_is_narrow_enough(tmp_path: Path, capsys: object) -> None:
    out = tmp_path / "out"
    game = str(KIF_DIR / "ticTacToe" / "ticTacToe.kif")
    assert main(["evaluate", game, "--players", "legal;random", "--model", str(_model_file(tmp_path)),
                 "--matches", "auto", "--precision", "0.99", "--out", str(out)]) == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 2 * 4  # one round: 4 matches per pairing and seat, two seatings


def test_matches_auto_says_when_the_cap_is_reached_and_reports_the_intervals(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    game = str(KIF_DIR / "connectFour" / "connectFour.kif")  # long enough for Q, B and f to vary
    assert main(["evaluate", game, "--players", "legal;random", "--model", str(_model_file(tmp_path)),
                 "--matches", "auto", "--precision", "0.0001", "--max-matches", "8", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "still wider than --precision 0.0001 after 8 matches per pairing and seat" in captured.err
    assert "RAPP fitness" in captured.out and "95% CI" in captured.out
    assert len((out / "results.jsonl").read_text().splitlines()) == 2 * 8
    summary = json.loads((out / "summary.json").read_text())["games"][0]["rapp"]
    assert set(summary["intervals"]) == {"distance", "balance", "quickness", "fitness"}
    page = (out / "report.html").read_text()
    assert "D (distance)" in page and "<small>[" in page


def test_the_report_shows_an_unplayable_game_as_unplayable_not_minus_one(tmp_path: Path) -> None:
    from ggp.evaluation import report
    from ggp.evaluation.evaluate import unplayable_report

    page = report.write_html([unplayable_report("broken", ("a", "b"), "role b has no legal move")], tmp_path)
    text = page.read_text()
    assert "unplayable" in text and "-1.000" not in text and "role b has no legal move" in text


def test_without_players_the_models_algorithms_play(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    game = str(KIF_DIR / "ticTacToe" / "ticTacToe.kif")
    assert main(["evaluate", game, "--model", str(_model_file(tmp_path)), "--matches", "1", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(tuple(row["players"]) for row in rows) == [("legal", "random"), ("random", "legal")]
    assert "95% CI" in capsys.readouterr().out
