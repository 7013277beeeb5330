"""The web UI's board detection (static/board.js), run with node when it is installed."""

from __future__ import annotations

import json
import shutil
import subprocess

from ggp.manager.app import STATIC_DIR
from tests.prerequisites import needs

NODE = shutil.which("node")

SCRIPT = """
const board = require(process.argv[1]);
const states = JSON.parse(process.argv[2]);
const tracker = new board.GridTracker();
const out = [];
for (const text of states) {
  tracker.add(board.parseState(text));
  const grid = board.findGrid(board.parseState(text), tracker.layout());
  out.push(grid && { name: grid.name, xs: grid.xs, ys: grid.ys, cells: Object.fromEntries(grid.cells),
                     rest: grid.rest.map(board.fluentText) });
}
console.log(JSON.stringify(out));
"""


def layouts(states: list[str]) -> list[dict[str, object] | None]:
    assert NODE is not None
    result = subprocess.run([NODE, "-e", SCRIPT, str(STATIC_DIR / "board.js"), json.dumps(states)],
                            capture_output=True, text=True, timeout=30, check=True)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@needs(NODE is not None, "node is not installed")
def test_grid_games_show_a_board_and_other_games_a_fluent_list() -> None:
    tictactoe = "( (cell 1 1 x) (cell 1 2 b) (cell 2 1 o) (cell 2 2 b) (control oplayer) )"
    [grid] = layouts([tictactoe])
    assert grid is not None and grid["name"] == "cell" and grid["xs"] == ["1", "2"] and grid["ys"] == ["1", "2"]
    assert grid["cells"] == {"1 1": "x", "1 2": "b", "2 1": "o", "2 2": "b"}
    assert grid["rest"] == ["(control oplayer)"]
    assert layouts(["( (pile 3) (control a) )"]) == [None]


@needs(NODE is not None, "node is not installed")
def test_sparse_boards_grow_with_the_states_seen_and_numbers_sort_numerically() -> None:
    states = ["( (control red) )", "( (cell 2 1 red) (control black) )",
              "( (cell 2 1 red) (cell 10 1 black) (control red) )",
              "( (cell 2 1 red) (cell 10 1 black) (cell 2 2 red) (control black) )"]
    result = layouts(states)
    assert result[:2] == [None, None]
    assert result[2] is not None and result[2]["xs"] == ["2", "10"] and result[2]["ys"] == ["1"]
    last = result[3]
    assert last is not None and last["xs"] == ["2", "10"] and last["ys"] == ["1", "2"]
