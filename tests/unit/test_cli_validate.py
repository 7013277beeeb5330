"""``ggp validate``: exit codes, one clear line per problem, JSON output and the --simulate hook."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from ggp.cli import main
from ggp.gdl.terms import Description
from ggp.gdl.validator import Finding
from tests.conftest import ROOT, kif_games
from tests.prerequisites import missing

GAME = """\
(role x)
(init (c 1))
(base (c 1))
(input x a)
(<= (legal x a) (true (c 1)))
(<= (next (c 1)) (does x a))
(<= terminal (true (c 1)))
(goal x 100)
"""


def write(tmp_path: Path, text: str | bytes, name: str = "game.kif") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_a_valid_game_exits_0_with_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GAME)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert out == f"{path}: valid, 0 errors, 0 warnings\n"


def test_warnings_alone_keep_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GAME + "(unused 1)\n")
    assert main(["validate", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{path}:9:1: warning[unused]: relation 'unused' is defined but never used  in: (unused 1)",
        f"{path}: valid, 0 errors, 1 warning",
    ]


BAD_INPUTS: list[tuple[str, str | bytes, str]] = [
    ("unbalanced", "(role x)\n(<= terminal (true (c 1))", r":2:1: error\[syntax\]: unbalanced '\('"),
    ("stray-paren", GAME + "  )\n", r":9:3: error\[syntax\]: unexpected '\)'"),
    ("stray-variable", GAME + "?x\n", r":9:1: error\[syntax\]: variable '\?x' cannot stand as a sentence"),
    ("stray-arrow", GAME + "(role <=)\n", r":9:7: error\[syntax\]: '<=' used as a term"),
    ("empty", "", r":1:1: error\[syntax\]: empty description"),
    ("binary", b"\x7fELF\x02\x01\x01\x00\x00\x00", r":1:1: error\[syntax\]: binary file"),
    ("not-utf8", b"(role x)\n(role \xff)", r":2:7: error\[syntax\]: not UTF-8 text"),
    ("deep", "(p " * 10_000 + ")" * 10_000, r":1:\d+: error\[syntax\]: brackets nested deeper"),
    ("wrong-arity", GAME + "(<= (legal x) (true (c 1)))\n", r":9:1: error\[arity\]: 'legal' takes 2 arguments"),
    ("keyword-arity", GAME + "(<= terminal (true (c 1) 2))\n", r":9:1: error\[arity\]: 'true' takes 1 argument,"),
    ("unknown-keyword", GAME.replace("(goal x 100)", "(gaol x 100)"),
     r":1:1: error\[missing\]: the game has no rule or fact for 'goal'"),
    ("kif-and-as-relation", GAME + "(<= terminal (and (true (c 1)) (true (c 1))))\n",
     r":9:1: error\[unknown-keyword\]: 'and' is not a GDL keyword"),
    ("kif-implication", GAME + "\n  (=> (true (c 1)) terminal)\n",
     r":10:3: error\[unknown-keyword\]: '=>' is not a GDL"),
]


@pytest.mark.parametrize(("name", "content", "pattern"), BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS])
def test_bad_input_gives_one_clear_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str | bytes, pattern: str
) -> None:
    path = write(tmp_path, content)
    assert main(["validate", str(path)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    errors = [line for line in captured.out.splitlines() if "error[" in line]
    assert len(errors) == 1, captured.out
    assert re.match(re.escape(str(path)) + pattern, errors[0]), errors[0]
    assert captured.out.splitlines()[-1].startswith(f"{path}: invalid, 1 error")


def test_a_misspelled_keyword_also_gets_a_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GAME.replace("(goal x 100)", "(gaol x 100)"))
    main(["validate", str(path)])
    out = capsys.readouterr().out
    assert f"{path}:8:1: warning[unused]: relation 'gaol' is defined but never used (did you mean 'goal'?)" in out


def test_a_50_mb_file_is_rejected_by_the_size_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.kif"
    chunk = ("(init (cell 1 1 b))\n" * 5000).encode()
    with path.open("wb") as handle:
        for _ in range(50 * 2**20 // len(chunk) + 1):
            handle.write(chunk)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert re.match(re.escape(str(path)) + r":1:1: error\[syntax\]: file has more than the limit of [\d,]+ bytes", out)


def test_a_missing_file_is_an_error_line_not_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.kif"
    good = write(tmp_path, GAME)
    assert main(["validate", str(missing), str(good)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{missing}: error[io]: cannot read the file")
    assert lines[-1] == f"{good}: valid, 0 errors, 0 warnings"


def test_every_file_is_reported_and_any_error_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, GAME, "good.kif")
    bad = write(tmp_path, GAME + "(init (c ?x))\n(<= (legal x ?m) (true (c 1)))\n", "bad.kif")
    assert main(["validate", str(bad), str(good)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if "error[" in line] == [
        f"{bad}:9:1: error[fact-variables]: fact contains variables ?x  in: (init (c ?x))",
        (f"{bad}:10:1: error[safety]: unsafe variable '?m': it occurs in the head but in no positive body atom"
        "  in: (<= (legal x ?m) (true (c 1)))"),
    ]
    assert f"{bad}: invalid, 2 errors, 0 warnings" in lines
    assert lines[-1] == f"{good}: valid, 0 errors, 0 warnings"


def test_strict_turns_out_of_range_goals_into_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GAME.replace("(goal x 100)", "(goal x 150)"))
    assert main(["validate", str(path)]) == 0
    assert main(["validate", "--strict", str(path)]) == 1
    assert f"{path}:8:1: error[goal-value]: goal value 150 is outside 0..100" in capsys.readouterr().out


def test_a_locally_stratified_game_is_valid_unless_strict_and_a_ground_cycle_is_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    local = write(tmp_path, GAME + "(<= (goal x 0) (not (goal x 100)))\n", "local.kif")
    assert main(["validate", str(local)]) == 0
    out = capsys.readouterr().out
    assert f"{local}:9:1: warning[stratification]: " in out and "(locally stratified)" in out
    assert main(["validate", "--strict", str(local)]) == 1
    assert f"{local}:9:1: error[stratification]: " in capsys.readouterr().out
    loop = write(tmp_path, GAME + "(<= p (not q))\n(<= q (not p))\n(<= terminal p)\n", "loop.kif")
    assert main(["validate", str(loop)]) == 1
    out = capsys.readouterr().out
    assert f"{loop}:9:1: error[stratification]: a ground atom of 'p' depends on its own negation: p <- not q <- not p" in out


def test_json_lists_every_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, GAME + "(init (c ?x))\n", "bad.kif")
    broken = write(tmp_path, "(role x", "broken.kif")
    assert main(["validate", "--json", str(bad), str(broken)]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert findings == [
        {"file": str(bad), "severity": "error", "check": "fact-variables", "message": "fact contains variables ?x",
         "line": 9, "column": 1, "rule": "(init (c ?x))"},
        {"file": str(broken), "severity": "error", "check": "syntax",
         "message": "unbalanced '(': this list is never closed", "line": 1, "column": 1, "rule": None},
    ]


def test_json_of_valid_files_is_an_empty_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--json", str(write(tmp_path, GAME))]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize("argv", [[], ["--simulate", "0", "x.kif"], ["--depth", "many", "x.kif"], ["--bogus", "x"]])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["validate", *argv])
    assert caught.value.code == 2
    assert "usage: ggp" in capsys.readouterr().err


def test_simulate_without_the_reasoner_module_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ggp.reasoner.simulate", None)  # makes the import fail
    assert main(["validate", "--simulate", "3", str(write(tmp_path, GAME))]) == 1
    captured = capsys.readouterr()
    assert captured.err == "ggp validate: --simulate needs ggp.reasoner.simulate, which is not available\n"
    assert captured.out == ""


def test_simulate_runs_the_reasoner_checks_on_statically_valid_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[int, int, int, bool, int]] = []

    def simulate_checks(description: Description, *, playouts: int, depth: int, seed: int,
                        strict: bool, engine: str, limits: object, counts: Any) -> list[Finding]:
        assert engine == "auto"
        calls.append((playouts, depth, seed, strict, len(description.rules)))
        counts.played, counts.failed = playouts, 1
        return [Finding("error", "s1", "depth bound hit in playout 1")]

    fake = types.ModuleType("ggp.reasoner.simulate")
    fake.simulate_checks = simulate_checks  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ggp.reasoner.simulate", fake)
    good = write(tmp_path, GAME, "good.kif")
    bad = write(tmp_path, GAME + "(init (c ?x))\n", "bad.kif")
    argv = ["validate", "--simulate", "7", "--depth", "50", "--seed", "3", "--strict", str(good), str(bad)]
    assert main(argv) == 1
    assert calls == [(7, 50, 3, True, 8)]  # the statically invalid game is not simulated
    out = capsys.readouterr().out.splitlines()
    assert f"{good}: error[s1]: depth bound hit in playout 1" in out
    verdict = next(line for line in out if line.startswith(f"{good}: invalid"))
    assert re.fullmatch(rf"{re.escape(str(good))}: invalid, 1 error, 0 warnings; 7 random playouts in \d+\.\d s, "
                        r"1 failed \(its error is above\)", verdict), verdict
    assert f"{bad}: invalid, 1 error, 0 warnings, not simulated" in out


def test_simulate_says_how_many_playouts_it_played_and_that_none_failed(capsys: pytest.CaptureFixture[str]) -> None:
    game = ROOT / "kif" / "ticTacToe" / "ticTacToe.kif"
    assert main(["validate", "--simulate", "20", "--engine", "clingo", str(game)]) == 0
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(rf"{re.escape(str(game))}: valid, 0 errors, 0 warnings; 20 random playouts in \d+\.\d s, none failed",
                        line), line


@pytest.mark.parametrize("path", kif_games(), ids=lambda p: p.stem)
def test_the_project_games_are_valid(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(path)]) == 0, capsys.readouterr().out


def test_the_installed_command_runs_in_a_real_process(tmp_path: Path) -> None:
    bad = write(tmp_path, GAME + "(role x)\n")
    result = subprocess.run(
        [sys.executable, "-m", "ggp", "validate", str(bad)],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert result.returncode == 1
    assert result.stderr == ""
    assert result.stdout.splitlines() == [
        f"{bad}:9:1: error[duplicate-role]: role 'x' is declared twice (first at line 1)  in: (role x)",
        f"{bad}:9:1: warning[duplicate-rule]: exact duplicate of the sentence at line 1  in: (role x)",
        f"{bad}: invalid, 1 error, 1 warning",
    ]


def test_an_endless_device_is_refused_by_the_size_limit_while_reading(capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero on this system")  # a platform fact, not a missing prerequisite
    assert main(["validate", "/dev/zero"]) == 1
    assert "/dev/zero:1:1: error[syntax]: file has more than the limit of" in capsys.readouterr().out


def test_load_kif_takes_a_file_name_as_well_as_a_path() -> None:
    from ggp.files import load_kif
    from tests.conftest import KIF_DIR

    path = KIF_DIR / "ticTacToe" / "ticTacToe.kif"
    assert load_kif(str(path)) == load_kif(path)


@pytest.mark.parametrize("argv", [
    ["validate", "x.kif"], ["replay", "x.kif", "x.json"], ["trace", "x.kif"], ["bench", "x.kif"], ["arena", "x.kif"],
    ["player", "random"], ["match", "x.kif"], ["serve"], ["evaluate", "x.kif"],
])
def test_every_command_that_reasons_defaults_to_the_auto_engine(argv: list[str]) -> None:
    from ggp.cli import build_parser

    assert build_parser().parse_args(argv).engine == "auto"


def test_simulate_uses_auto_and_plays_a_game_too_big_to_ground_in_time() -> None:
    from tests.conftest import CORPUS

    path = CORPUS / "seed-games" / "biggerMap.kif"
    if not path.is_file():
        missing(f"{path} (../shared/gdl-corpus)")
    # With clingo alone this fails ("grounding ... time limit"); auto falls back to per-state reasoning.
    result = subprocess.run([sys.executable, "-m", "ggp", "validate", "--simulate", "1", str(path)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "valid, 0 errors" in result.stdout
