"""GDL-II match records: x-percepts in JSON, in the store, and in the web UI's per-role views."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace

import pytest

from ggp.errors import InputError
from ggp.manager.app import STATIC_DIR
from ggp.manager.records import MatchRecord, from_dict, from_json, to_dict, to_json
from ggp.manager.store import Store
from tests.prerequisites import needs

NODE = shutil.which("node")

BASE = MatchRecord(
    match_id="guess.1", start_time_ms=1700000000000, random_token="a" * 32, start_clock=10, play_clock=5,
    game_meta_url="http://127.0.0.1:9140/games/guess/v1/", roles=("guesser", "random"),
    player_names=("dmcts", "random"), player_types=("remote", "random"), seed=9, game_key="guess",
    states=("( (turn 0) )",), state_times=(1,), errors=(("", ""),), gdl2=True,
)
STEP1 = BASE.with_step(["noop", "(choose 3)"], "( (secret 3) (turn 1) )", 2, ["", ""], [[], []])
RECORD = (STEP1.with_step(["(ask 5)", "noop"], "( (secret 3) (turn 2) )", 3, ["", ""], [["(answer 5 yes)"], []]))


def test_gdl2_records_write_x_percepts_per_step_and_role_and_read_them_back() -> None:
    data = to_dict(RECORD)
    assert data["x-gdl2"] is True
    assert data["x-percepts"] == [[[], []], [["(answer 5 yes)"], []]]
    assert from_json(to_json(RECORD)).percepts == RECORD.percepts
    assert "x-percepts" not in to_dict(replace(RECORD, gdl2=False, percepts=()))


def test_bad_percept_histories_are_refused_with_the_field_named() -> None:
    data = to_dict(RECORD)
    bad_values: list[object] = [[[[], []]] * 3, "x", [[[1]]]]
    for bad in bad_values:
        with pytest.raises(InputError, match="x-percepts"):
            from_dict({**data, "x-percepts": bad})


def test_the_store_keeps_the_percepts_of_a_finished_match() -> None:
    store = Store(":memory:")
    try:
        store.match_event(BASE, "created")
        store.match_event(STEP1, "step")
        store.match_event(RECORD, "step")
        store.match_event(replace(RECORD, is_completed=True, goal_values=(100, 0), end_reason="terminal"), "end")
        stored = store.match("guess.1")
    finally:
        store.close()
    assert stored is not None and stored.gdl2 and stored.percepts == RECORD.percepts


SCRIPT = """
const views = require(process.argv[1]);
console.log(JSON.stringify(views.perceptViews(JSON.parse(process.argv[2]), +process.argv[3])));
"""


def percept_views(record: MatchRecord, step: int) -> list[dict[str, object]]:
    assert NODE is not None
    result = subprocess.run([NODE, "-e", SCRIPT, str(STATIC_DIR / "percepts.js"), to_json(record), str(step)],
                            capture_output=True, text=True, timeout=30, check=True)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@needs(NODE is not None, "node is not installed")
def test_the_match_page_shows_each_role_its_own_moves_and_percepts_up_to_the_step() -> None:
    assert percept_views(RECORD, 2) == [{"role": "guesser", "player": "dmcts", "steps": [
        {"step": 1, "move": "noop", "percepts": []},
        {"step": 2, "move": "(ask 5)", "percepts": ["(answer 5 yes)"]},
    ]}]
    assert percept_views(RECORD, 0) == [{"role": "guesser", "player": "dmcts", "steps": []}]
    assert percept_views(replace(RECORD, gdl2=False, percepts=()), 2) == []
