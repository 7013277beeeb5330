"""``ggp shapes GAME.sbg --out DIR`` through :func:`ggp.cli.main`."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest

from ggp.cli import main

TINY = """<<Tiny>>
<BOARD> 3 4
|kpp|
|...|
|...|
|PPK|
<PIECES>
P (0,1,e) + (-1,1,p) + (1,1,p) &
K (1,0,e) + (-1,0,e) + (0,1,e) + (0,-1,e) + (1,0,p) + (-1,0,p) + (0,1,p) + (0,-1,p) &
<GOALS> 20 &
@P 0 3, 1 3, 2 3 &
@p 0 0, 1 0, 2 0 &
#K 0 &
#k 0 &
"""


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.sbg"
    path.write_text(TINY)
    return path


def test_shapes_writes_two_svgs_per_piece_and_a_contact_sheet_identically_for_a_seed(
    tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert main(["shapes", str(tiny), "--out", str(first), "--variant", "one-stage", "--seed", "7"]) == 0
    assert "2 piece types, 4 SVG files" in capsys.readouterr().out
    names = sorted(p.name for p in first.iterdir())
    assert names == ["index.html", "k-black.svg", "k-white.svg", "p-black.svg", "p-white.svg"]
    for name in names[1:]:
        root = ElementTree.fromstring((first / name).read_text())
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    sheet = (first / "index.html").read_text()
    assert all(f'src="{name}"' in sheet for name in names[1:]) and "<script" not in sheet
    assert main(["shapes", str(tiny), "--out", str(second), "--variant", "one-stage", "--seed", "7"]) == 0
    assert all((first / n).read_bytes() == (second / n).read_bytes() for n in names)


@pytest.mark.parametrize(("args", "message"), [
    (["missing.sbg"], "missing.sbg: no such file"),
    (["{bad}"], "bad.sbg:3:1: expected the board height"),
    (["{tiny}", "--variant", "three-stage"], "unknown variant 'three-stage'; expected one of two-stage, one-stage, "
                                              "individual"),
])
def test_bad_input_gets_one_line_exit_1_and_no_output(
    args: list[str], message: str, tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.sbg"
    bad.write_text("<<Bad>>\n<BOARD> 3\n")
    out = tmp_path / "out"
    argv = ["shapes", *(a.format(bad=bad, tiny=tiny) for a in args), "--out", str(out)]
    assert main(argv) == 1
    error = capsys.readouterr().err
    assert message in error and error.startswith("ggp shapes: ") and error.count("\n") == 1
    assert not out.exists()
