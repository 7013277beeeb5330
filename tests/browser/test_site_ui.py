"""The "GGP site" pages: the match archive's filters and pager, Agon standings, schedule pauses."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.conftest import api, wait_finished


def test_the_archive_filters_pages_and_links_the_match_json(page: Page, manager_url: str) -> None:
    ids = []
    for _ in range(3):
        match_id = api(manager_url, "api/matches", {"game": "ticTacToe", "players": ["random", "random"],
                                                      "startclock": 1, "playclock": 1})["matchId"]
        wait_finished(manager_url, match_id)
        ids.append(match_id)
    page.goto(manager_url + "#/matches?game=ticTacToe&outcome=completed")
    form = page.locator("#archive-filters")
    expect(form.locator("input[name=game]")).to_have_value("ticTacToe")
    expect(page.locator("#matches")).to_contain_text(ids[-1])
    expect(page.locator("#matches").get_by_role("link", name="json").first).to_have_attribute(
        "href", f"/matches/{ids[-1]}.json")
    form.locator("input[name=player]").fill("nobody")
    form.get_by_role("button", name="Filter").click()
    expect(page.locator("main h2").first).to_have_text("0 matches")
    page.goto(manager_url + "#/matches?game=ticTacToe&per_page=1")
    expect(page.locator(".pager")).to_contain_text("page 1 of")
    page.locator(".pager").get_by_role("link", name="older »").click()
    expect(page.locator(".pager")).to_contain_text("page 2 of")


def test_agon_skills_and_role_difficulties_are_shown(page: Page, manager_url: str) -> None:
    match_id = api(manager_url, "api/matches", {"game": "ticTacToe", "players": ["random", "legal"],
                                                  "startclock": 1, "playclock": 1})["matchId"]
    wait_finished(manager_url, match_id)
    page.goto(manager_url + "#/")
    expect(page.locator("#agon-standings")).to_contain_text("legal")
    page.goto(manager_url + "#/game/ticTacToe")
    page.locator("summary", has_text="Role difficulty").click()
    expect(page.locator("#game-agon-roles")).to_contain_text("xplayer")


def test_a_remote_player_is_paused_and_resumed_from_the_players_page(page: Page, manager_url: str) -> None:
    api(manager_url, "api/players", {"name": "faraway", "url": "http://127.0.0.1:9/"})
    page.goto(manager_url + "#/players")
    expect(page.locator("#schedule-state")).to_contain_text("scheduling is off")
    row = page.locator("#players tr", has=page.get_by_role("link", name="faraway", exact=True))
    row.get_by_role("button", name="pause").click()
    row = page.locator("#players tr", has=page.get_by_role("link", name="faraway", exact=True))
    expect(row).to_contain_text("paused")
    row.get_by_role("button", name="resume").click()
    expect(page.locator("#players tr", has=page.get_by_role("link", name="faraway", exact=True))).to_contain_text("waiting")


def test_match_json_is_imported_from_the_matches_page_and_a_broken_one_refused(
        page: Page, manager_url: str, tmp_path: Path) -> None:
    match_id = api(manager_url, "api/matches", {"game": "ticTacToe", "players": ["random", "random"],
                                                  "startclock": 1, "playclock": 1})["matchId"]
    record = wait_finished(manager_url, match_id)
    good = dict(record, matchId="imported.1")
    bad = dict(record, matchId="imported.2", moves=[["(mark 9 9)", "noop"], *record["moves"][1:]])
    upload = tmp_path / "matches.jsonl"
    upload.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    page.goto(manager_url + "#/matches")
    form = page.locator("#import-matches")
    form.locator("input[type=file]").set_input_files(str(upload))
    form.get_by_role("button", name="Check and import").click()
    expect(form.locator(".ok")).to_have_text("imported.1: imported")
    expect(form.locator(".error-box")).to_contain_text("match 'imported.2' refused: step 1: '(mark 9 9)'")
    assert api(manager_url, "matches/imported.1.json")["moves"] == record["moves"]
