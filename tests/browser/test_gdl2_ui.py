"""The match page of a GDL-II match in a real browser: each role's own view beside the true state."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import api, wait_finished
from tests.conftest import KIF_DIR
from tests.prerequisites import missing

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.timeout(120)

GUESS = KIF_DIR / "guessNumber" / "guessNumber.kif"


def test_a_gdl2_match_page_shows_what_the_guesser_saw_beside_the_true_state(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    if not GUESS.is_file():
        missing("kif/guessNumber is not present")
    api(manager_url, "api/games", {"key": "guessNumber", "kif": GUESS.read_text()})
    # One player for two roles: the manager seats chance ('random') itself.
    payload = {"game": "guessNumber", "players": ["legal"], "startclock": 5, "playclock": 2, "seed": 3}
    match_id = api(manager_url, "api/matches", payload)["matchId"]
    record = wait_finished(manager_url, match_id)
    assert record["isCompleted"] and record["x-gdl2"] and record["playerNamesFromHost"] == ["legal", "random"]
    # legal always asks (ask 2) first in KIF order, so every step after the first shows an answer.
    answers = [row[0] for row in record["x-percepts"][1:]]
    assert answers and all(seen and seen[0].startswith("(answer 2 ") for seen in answers)

    page.goto(manager_url + "#/match/" + match_id)
    views = page.locator(".gdl2 .role-view")
    expect(views).to_have_count(1)  # chance has no view
    expect(views.first.locator("h3")).to_have_text("guesser (legal) knows")
    expect(page.locator(".gdl2 .true-state")).to_contain_text("secret")
    items = views.first.locator("ol.percepts li")
    expect(items).to_have_count(len(record["moves"]))
    expect(items.nth(1)).to_contain_text(answers[0])
    page.keyboard.press("Home")
    expect(views.first).to_contain_text("only the rules and the initial state")
