"""Match JSON: round trips, the format's rules (no nulls, x- prefixes) and clear errors."""

from __future__ import annotations

import json

import pytest

from ggp.errors import InputError
from ggp.manager.records import MatchRecord, from_json, to_dict, to_json

RECORD = MatchRecord(
    match_id="nim.1", start_time_ms=1700000000000, random_token="a" * 32, start_clock=10, play_clock=5,
    game_meta_url="http://127.0.0.1:9140/games/nim/v1/", roles=("a", "b"), player_names=("p", "random"),
    player_types=("remote", "random"), seed=9, game_key="nim", rules_hash="abc",
    states=("( (pile 2) )", "( (pile 0) )"), moves=(("(take 2)", "noop"),), state_times=(1, 2),
    errors=(("", ""), ("TO", "")), is_completed=True, goal_values=(100, 0), end_reason="terminal",
)


def test_records_round_trip_and_follow_the_format_rules() -> None:
    data = to_dict(RECORD)
    assert from_json(to_json(RECORD)) == RECORD
    assert None not in data.values()
    standard = {"matchId", "startTime", "randomToken", "startClock", "playClock", "states", "moves", "stateTimes",
                "gameMetaURL", "errors", "isCompleted", "isAborted", "goalValues", "playerNamesFromHost", "scrambled"}
    assert all(key in standard or key.startswith("x-") for key in data)
    assert data["x-fallback"] == "random" and data["x-endReason"] == "terminal"
    running = MatchRecord(**{**{f: getattr(RECORD, f) for f in RECORD.__dataclass_fields__},
                             "is_completed": False, "goal_values": None, "end_reason": None})
    assert "goalValues" not in to_dict(running) and "x-endReason" not in to_dict(running)


def test_foreign_records_keep_their_extra_fields() -> None:
    data = to_dict(RECORD) | {"x-other": [1, 2], "weight": 2}
    assert to_dict(from_json(json.dumps(data)))["x-other"] == [1, 2]


@pytest.mark.parametrize(("change", "message"), [
    ({"matchId": None}, "null"),
    ({"states": "x"}, "'states'"),
    ({"moves": [["a"], ["b"]]}, "expected one more state"),
    ({"goalValues": ["a"]}, "'goalValues'"),
    ({"x-endReason": "bored"}, "'x-endReason'"),
    ({"startClock": "10"}, "'startClock'"),
])
def test_bad_match_json_is_refused_naming_the_field(change: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        from_json(json.dumps(to_dict(RECORD) | change))


def test_not_json_at_all_is_refused_with_a_position() -> None:
    with pytest.raises(InputError, match="line 1 column 2"):
        from_json("{,")
