"""``ggp replay``, ``ggp trace`` and ``ggp bench``: output, exit codes and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ggp.cli import main
from ggp.reasoner import auto

GAME = """(role a) (role b) (init (n 0)) (succ 0 1) (succ 1 2)
(<= (legal a (up ?m)) (true (n ?k)) (succ ?k ?m)) (<= (legal a stay) (true (n ?k))) (legal b noop)
(<= (next (n ?m)) (does a (up ?m))) (<= (next (n ?k)) (does a stay) (true (n ?k)))
(<= terminal (true (n 2))) (goal a 100) (goal b 0)
"""


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "count.kif"
    path.write_text(GAME)
    return path


def test_trace_then_replay_agrees_on_every_step(game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "count.json"
    assert main(["trace", str(game), "--playouts", "2", "--seed", "3", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["roles"] == ["a", "b"] and len(data["playouts"]) == 2
    steps = sum(len(p["steps"]) for p in data["playouts"])
    capsys.readouterr()
    assert main(["replay", str(game), str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"{game}: {steps}/{steps} steps agree"


def test_replay_prints_the_first_disagreement_and_exits_1(game: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "count.json"
    main(["trace", str(game), "--playouts", "1", "-o", str(out)])
    data = json.loads(out.read_text())
    data["playouts"][0]["steps"][0]["legal"][1] = ["noop", "jump"]
    out.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["replay", str(game), str(out)]) == 1
    printed = capsys.readouterr().out
    assert "0/" in printed
    assert "first disagreement: playout 1 step 0: legal moves of b differ: missing ['jump'], extra []" in printed


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "malformed trace JSON"),
        ('{"roles": ["a", "b"]}', "'playouts' must be a list"),
    ],
)
def test_replay_of_a_malformed_trace_is_one_line_and_exit_1(game: Path, tmp_path: Path, content: str, expected: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert main(["replay", str(game), str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ggp replay: ") and expected in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [["replay", "{missing}", "{missing}"], ["trace", "{missing}"],
                                     ["bench", "{missing}", "--seconds", "0.1"]])
def test_a_missing_file_is_one_line_and_exit_1(command: list[str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing.kif")
    assert main([part.format(missing=missing) for part in command]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "missing.kif" in err


def test_an_unknown_engine_is_one_line_and_exit_1(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(game), "--engine", "warp", "--seconds", "0.1"]) == 1
    assert "ggp bench: unknown engine 'warp'" in capsys.readouterr().err


def test_an_invalid_game_is_refused_with_its_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "unsafe.kif"
    path.write_text("(role a)\n(<= (legal a ?m) (true s))\n(<= terminal (true s)) (goal a 100)")
    assert main(["trace", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ggp trace: {path}:2:1:") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("engine", ["clingo", "naive"])
def test_bench_reports_the_rates_as_json(game: Path, engine: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(game), "--engine", engine, "--seconds", "0.2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["engine"] == engine and data["playouts"] >= 1
    assert data["states"] >= 2 * data["playouts"]
    assert data["mean_depth"] == data["states"] / data["playouts"]
    assert data["state_step_seconds"] > 0


def test_bench_prints_a_readable_table(game: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(game), "--seconds", "0.1"]) == 0
    out = capsys.readouterr().out
    for label in ("playouts", "states", "mean depth", "state step"):
        assert label in out


TOO_BIG = "(role a) {values} (init (at 0)) (<= (big ?a ?b ?c ?d ?e) (dom ?a) (dom ?b) (dom ?c) (dom ?d) (dom ?e))\n" \
    "(<= (legal a (go ?a)) (true (at 0)) (big ?a ?b ?c ?d ?e)) (<= (next (at 1)) (does a (go ?x)))\n" \
    "(<= terminal (true (at 1))) (goal a 100)\n"
"""A 5-ary static relation over 100 constants: 10^10 ground atoms, which no engine grounds."""


@pytest.mark.parametrize("command", ["replay", "validate"])
def test_a_game_no_engine_can_ground_in_time_fails_with_one_line_naming_engines_and_limit(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(auto, "_FAILED", {})  # auto remembers failed games: start afresh
    monkeypatch.setattr(auto, "_PER_STATE_FAILED", {})
    game = tmp_path / "big.kif"
    game.write_text(TOO_BIG.format(values=" ".join(f"(dom {n})" for n in range(100))))
    trace = tmp_path / "big.json"
    trace.write_text(json.dumps({"roles": ["a"], "playouts": []}))
    args = ["replay", str(game), str(trace)] if command == "replay" else ["validate", "--simulate", "1", str(game)]
    assert main([*args, "--max-seconds", "1", "--max-memory-mb", "1024"]) == 1
    printed = capsys.readouterr()
    lines = [line for line in (printed.err + printed.out).splitlines() if "no engine" in line]
    assert len(lines) == 1, printed
    assert lines[0].count(str(game)) == 1  # the game is named once
    assert ("no engine can play this game within its limits: ground-once (clingo): grounding phase 'domain' "
            "exceeded the time limit of 1 s; per-state: grounding phase 'per-state probe' exceeded the time limit of "
            "1 s; prover: the prover failed its probe playout: the prover stopped a query after ") in lines[0]
    if command == "replay":
        assert printed.out == "" and printed.err == f"ggp replay: {lines[0].removeprefix('ggp replay: ')}\n"
    else:
        assert lines[0].startswith(f"{game}: error[grounding]: ")


def test_a_game_whose_names_folding_would_merge_is_read_case_sensitively_with_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    # wargame03's bug in small: the rules write 'Big' once and test 'big'. Folded (GDL's reading) the game
    # ends at once; read as written, as ggp-base reads it and as every command now reads it by default,
    # 'Big' never matches and the game takes a step.
    game = tmp_path / "case.kif"
    game.write_text("(role a) (size Big) (init (at 0)) (legal a go) (<= (next (at 1)) (does a go))\n"
                    "(<= terminal (size big)) (<= terminal (true (at 1))) (goal a 100)")
    out = tmp_path / "case.json"
    assert main(["trace", str(game), "--playouts", "1", "--fold-case", "-o", str(out)]) == 0
    assert len(json.loads(out.read_text())["playouts"][0]["steps"]) == 1  # terminal at once
    caplog.clear()
    assert main(["trace", str(game), "--playouts", "1", "-o", str(out)]) == 0
    assert len(json.loads(out.read_text())["playouts"][0]["steps"]) == 2
    warnings = [r.getMessage() for r in caplog.records if "case-sensitively" in r.getMessage()]
    assert warnings == [f"{game}: names read case-sensitively, as ggp-base reads them: folding case would merge "
                        "'Big' and 'big' (--fold-case, or case_sensitive=False, reads them as one, as GDL says)"]
    capsys.readouterr()
    assert main(["replay", str(game), str(out)]) == 0
    assert main(["replay", str(game), str(out), "--case-sensitive"]) == 0
    assert main(["replay", str(game), str(out), "--fold-case"]) == 1


def test_a_plain_game_is_read_with_folded_names_and_no_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Capitals written one way each (keywords aside, which every reader folds): folding merges nothing, so
    # the names are held lower-case as before.
    game = tmp_path / "plain.kif"
    game.write_text("(ROLE a) (Size Big) (INIT (At 0)) (LEGAL a Go) (<= (NEXT (At 1)) (DOES a Go))\n"
                    "(<= Terminal (TRUE (At 1))) (GOAL a 100)")
    out = tmp_path / "plain.json"
    assert main(["trace", str(game), "--playouts", "1", "-o", str(out)]) == 0
    steps = json.loads(out.read_text())["playouts"][0]["steps"]
    assert [step["state"] for step in steps] == [["(at 0)"], ["(at 1)"]] and steps[0]["does"] == ["go"]
    assert not [r for r in caplog.records if "case-sensitively" in r.getMessage()]


@pytest.mark.parametrize("command", [
    ["evaluate", "games/gardner.sbg"],  # SBG games never build a GDL machine: the name was never looked at
    ["evolve", "--out", "{out}"],
    ["validate", "{game}", "--simulate", "2"],
])
@pytest.mark.parametrize("engine", ["warp", "circuit:gpu", "clingo:c"])
def test_every_command_refuses_a_bad_engine_before_it_reads_a_game(
    command: list[str], engine: str, game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.conftest import ROOT

    out = tmp_path / "run"
    args = [part.format(out=out, game=game) for part in command]
    if args[0] == "evaluate":
        args[1] = str(ROOT / args[1])
    assert main([*args, "--engine", engine]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ggp {args[0]}: ") and engine.split(":")[-1] in err and err.count("\n") == 1
    assert not out.exists()
