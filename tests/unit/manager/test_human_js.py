"""The web UI's move picking by clicks (static/human.js), run with node when it is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from ggp.manager.app import STATIC_DIR
from tests.prerequisites import needs

NODE = shutil.which("node")

SCRIPT = """
const human = require(process.argv[1]);
const [legal, cellList, clicks] = JSON.parse(process.argv[2]);
const cells = new Set(cellList);
let picked = [];
const out = [];
for (const cell of clicks) {
  const step = human.clickCell(legal, picked, cell, cells);
  picked = step.picked;
  out.push({ picked, candidates: step.candidates, chosen: step.chosen,
             next: [...human.nextCells(step.candidates, picked, cells)].sort() });
}
console.log(JSON.stringify(out));
"""

SQUARES = [f"{x} {y}" for x in range(3) for y in range(3)]


def clicks(legal: list[str], cells: list[str], order: list[str]) -> list[dict[str, Any]]:
    assert NODE is not None
    result = subprocess.run([NODE, "-e", SCRIPT, str(STATIC_DIR / "human.js"), json.dumps([legal, cells, order])],
                            capture_output=True, text=True, timeout=30, check=True)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@needs(NODE is not None, "node is not installed")
def test_a_placement_move_is_chosen_by_one_click_and_a_cell_without_a_move_is_ignored() -> None:
    legal = ["(mark 1 1)", "(mark 2 2)", "noop"]
    cells = ["1 1", "1 2", "2 1", "2 2"]
    first, second = clicks(legal, cells, ["1 2", "2 2"])
    assert first == {"picked": [], "candidates": [], "chosen": [], "next": []}  # nothing can be played on 1 2
    assert second["picked"] == ["2 2"] and second["chosen"] == ["(mark 2 2)"]


@needs(NODE is not None, "node is not installed")
def test_a_board_move_takes_a_from_square_then_a_to_square_and_a_new_from_square_restarts() -> None:
    legal = ["(move 0 0 1 1)", "(move 1 0 0 1)", "(move 1 0 2 1)", "(move 2 0 1 1)"]
    start, other, to = clicks(legal, SQUARES, ["2 0", "1 0", "2 1"])
    assert start["picked"] == ["2 0"] and start["chosen"] == [] and start["next"] == ["1 1"]
    # 1 0 is no to-square of 2 0: it starts a new selection, with two to-squares
    assert other["picked"] == ["1 0"] and other["candidates"] == ["(move 1 0 0 1)", "(move 1 0 2 1)"]
    assert other["next"] == ["0 1", "2 1"]
    assert to["picked"] == ["1 0", "2 1"] and to["chosen"] == ["(move 1 0 2 1)"]


@needs(NODE is not None, "node is not installed")
def test_a_column_move_is_chosen_by_a_click_anywhere_in_its_column() -> None:
    [step] = clicks(["(drop 1)", "(drop 2)"], SQUARES, ["2 2"])
    assert step["chosen"] == ["(drop 2)"]
