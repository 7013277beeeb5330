"""The web UI's board placement (static/board.js, without a DOM), run with node when it is installed.

Drawing itself (data-cell attributes, clicks, piece pictures) is tested in the browser:
tests/browser/test_boards.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from ggp.manager.app import STATIC_DIR
from tests.prerequisites import needs

NODE = shutil.which("node")

SCRIPT = """
const board = require(process.argv[1]);
const [geometry, state] = JSON.parse(process.argv[2]);
const placed = board.placeFluents(geometry, board.parseState(state));
const cells = {};
for (const [key, entries] of placed.cells) cells[key] = entries.map((e) => [e.label, e.owner, e.piece, board.isEmpty(e)]);
console.log(JSON.stringify({ cells, rest: placed.rest.map(board.fluentText) }));
"""

TICTACTOE = {"xs": ["1", "2", "3"], "ys": ["3", "2", "1"],
             "layers": [{"relation": "cell", "arity": 3, "x": 0, "y": 1, "owner": None, "piece": 2}]}


def place(geometry: dict[str, Any], state: str) -> dict[str, Any]:
    assert NODE is not None
    result = subprocess.run([NODE, "-e", SCRIPT, str(STATIC_DIR / "board.js"), json.dumps([geometry, state])],
                            capture_output=True, text=True, timeout=30, check=True)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@needs(NODE is not None, "node is not installed")
def test_cell_fluents_land_on_their_squares_and_the_rest_is_listed() -> None:
    placed = place(TICTACTOE, "( (cell 1 1 x) (cell 1 2 b) (cell 3 3 o) (control oplayer) )")
    assert placed["cells"] == {"1 1": [["x", None, "x", False]], "1 2": [["b", None, "b", True]],
                               "3 3": [["o", None, "o", False]]}
    assert placed["rest"] == ["(control oplayer)"]


@needs(NODE is not None, "node is not installed")
def test_fluents_off_the_board_or_of_another_arity_are_listed_not_placed() -> None:
    placed = place(TICTACTOE, "( (cell 4 1 x) (cell 1 1) (mark 1 1 x) )")
    assert placed["cells"] == {} and placed["rest"] == ["(cell 4 1 x)", "(cell 1 1)", "(mark 1 1 x)"]


@needs(NODE is not None, "node is not installed")
def test_owned_pieces_layers_and_lines() -> None:
    cell = {"relation": "cell", "arity": 4, "x": 0, "y": 1, "owner": 2, "piece": 3}
    wall = {"relation": "wall", "arity": 2, "x": 0, "y": 1, "owner": None, "piece": None}
    sbg: dict[str, Any] = {"xs": ["0", "1"], "ys": ["1", "0"], "layers": [cell, wall]}
    placed = place(sbg, "( (cell 0 0 white b) (cell 1 1 black p) (wall 1 1) (control white) )")
    # an owned piece named b (a bishop) is a piece, not a blank square
    assert placed["cells"] == {"0 0": [["b", "white", "b", False]],
                               "1 1": [["p", "black", "p", False], ["wall", None, None, False]]}
    blank = {**sbg, "layers": [cell, {**wall, "relation": "blank"}]}
    assert place(blank, "( (blank 0 1) )")["cells"] == {"0 1": [["blank", None, None, True]]}
    line = {"xs": ["1", "2", "3"], "ys": [], "layers": [
        {"relation": "pos", "arity": 2, "x": 0, "y": None, "owner": None, "piece": 1}]}
    assert place(line, "( (pos 2 x) (pos 3 b) )")["cells"] == {"2": [["x", None, "x", False]],
                                                              "3": [["b", None, "b", True]]}
