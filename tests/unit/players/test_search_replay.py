"""The native search replays the moves recorded before its C moved into C files (tests/helpers/search_replay.py)."""

from __future__ import annotations

import json

import pytest

from ggp.native import find_compiler
from tests.helpers.search_replay import RECORD, record
from tests.prerequisites import needs

pytestmark = needs(find_compiler() is not None, "no c compiler (cc)")


@pytest.fixture(scope="module")
def replayed() -> dict[str, object]:
    return record()


def test_the_record_covers_every_game_evaluator_and_option(replayed: dict[str, object]) -> None:
    assert sorted(replayed) == sorted(json.loads(RECORD.read_text()))


@pytest.mark.parametrize("key", sorted(json.loads(RECORD.read_text())))
def test_seeded_searches_replay_the_recorded_moves_and_visits(replayed: dict[str, object], key: str) -> None:
    assert replayed[key] == json.loads(RECORD.read_text())[key]
