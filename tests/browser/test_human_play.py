"""A person at the board in a real browser: a whole tic-tac-toe game by clicks, an SBG move by clicks, the demo.

Fixtures are in ``conftest.py``. The person's seat is the player ``you`` (kind ``human``); moves are
picked by clicking the board's ``[data-cell]`` elements (human.js), then confirmed. Screenshots of
the person's page and of a live ``ggp demo`` match are saved next to test_ui.py's (pytest's
temporary ``screenshots`` directory) and checked: a PNG of the viewport, not one flat colour, with
the board on the page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.error
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import api, wait_finished
from tests.browser.test_ui import screenshot
from tests.conftest import KIF_DIR, ROOT
from tests.prerequisites import missing

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.timeout(180)

SKIRMISH = """<<Skirmish>>
<BOARD> 3 3
|ppp|
|ppp|
|PPP|
<PIECES>
P (-1,1,p) + (1,1,p) &
<GOALS> 20 &
@P 0 2, 1 2, 2 2 &
@p 0 0, 1 0, 2 0 &
"""
"""A 3x3 SBG game whose every square holds a piece: pawns capture diagonally forward."""


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def person(manager_url: str) -> str:
    api(manager_url, "api/players", {"name": "you", "builtin": "human"})
    return "you"


def seat_url(page: Page) -> tuple[str, str]:
    """The match id and role of the play page on screen."""
    found = re.search(r"#/play/([^/]+)/([^/?]+)$", page.url)
    assert found, page.url
    return found[1], found[2]


def test_a_person_plays_a_whole_tic_tac_toe_game_against_random_by_clicking(
        page: Page, manager_url: str, person: str, shots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url)
    form = page.locator("#play-form")
    form.locator("select[name=game]").select_option("ticTacToe")
    form.locator("select[name=opponent]").select_option("random")
    form.locator("#play-button").click()
    expect(page).to_have_url(re.compile(r"#/play/ticTacToe\.[0-9a-f]+/xplayer$"))
    match_id, _ = seat_url(page)
    clicked: list[str] = []
    while True:
        page.locator("#result, #legal button[data-move]").first.wait_for()
        if page.locator("#result").count():
            break
        expect(page.locator("#play-status")).to_have_text("Your move")
        expect(page.locator("#clock")).to_have_text(re.compile(r"^\d+\.\d s left$"))
        legal: list[str] = page.locator("#legal button[data-move]").evaluate_all("bs => bs.map(b => b.dataset.move)")
        cells = [" ".join(re.findall(r"\d", move)) for move in legal]
        if not clicked:  # a mis-click first: select a cell, see it pending, undo it
            page.click(f'#play-board [data-cell="{cells[-1]}"]')
            expect(page.locator("#pending")).to_have_text(legal[-1])
            expect(page.locator(f'#play-board [data-cell="{cells[-1]}"]')).to_have_class(re.compile("picked"))
            page.click("#undo")
            expect(page.locator("#pending")).to_have_count(0)
        page.click(f'#play-board [data-cell="{cells[0]}"]')
        expect(page.locator("#pending")).to_have_text(legal[0])
        if len(clicked) == 1:
            screenshot(page, shots / "human-play.png")
            assert "null" not in page.inner_text("main") and "undefined" not in page.inner_text("main")
            assert page.locator("#play-board table.board [data-cell]").count() == 9
        page.click("#confirm")
        clicked.append(legal[0])
        expect(page.locator(f'#play-board [data-cell="{cells[0]}"]')).to_have_class(re.compile("filled"))
    record = wait_finished(manager_url, match_id)
    assert record["isCompleted"] and record["playerNamesFromHost"] == [person, "random"]
    assert [row[0] for row in record["moves"] if row[0] != "noop"][:len(clicked)] == clicked
    assert all(errors[0] == "" for errors in record["errors"])  # every click arrived in time
    mine, theirs = record["goalValues"]
    verdict = "You won" if mine > theirs else "You lost" if mine < theirs else "Draw"
    expect(page.locator("#result")).to_contain_text(verdict)
    expect(page.locator("#play-history li")).to_have_count(len(record["moves"]))
    # The banner's colour says how it went (green only for a win), and one click plays the same game again.
    outcome = "won" if mine > theirs else "lost" if mine < theirs else "draw"
    expect(page.locator("#result")).to_have_class(re.compile(rf"\bresult {outcome}\b"))
    background = page.locator("#result").evaluate("e => getComputedStyle(e).backgroundColor")
    assert (background == "rgb(229, 245, 236)") == (outcome == "won"), background  # the green of .result
    page.click("#play-again")
    # The old page's URL has the same shape: wait until the new match's id is in it.
    expect(page).to_have_url(re.compile(rf"#/play/ticTacToe\.(?!{match_id.split('.')[1]})[0-9a-f]+/xplayer$"))
    again, role = seat_url(page)
    assert again != match_id and role == "xplayer"
    expect(page.locator("#play-status")).to_have_text(re.compile("Your move|Waiting"))
    api(manager_url, f"api/matches/{again}/abort", {})


def test_one_sbg_move_by_clicking_from_square_then_to_square_then_confirm(
        page: Page, manager_url: str, person: str, shots: Path) -> None:
    from playwright.sync_api import expect

    api(manager_url, "api/games", {"key": "skirmish", "sbg": SKIRMISH})
    page.goto(manager_url + "#/new?game=skirmish")
    page.locator('#new-match select[data-role="white"]').select_option(person)
    page.locator('#new-match select[data-role="black"]').select_option("random")
    page.locator('#new-match input[name="playclock"]').fill("60")
    page.locator("#new-match button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"#/play/skirmish\.[0-9a-f]+/white$"))
    match_id, _ = seat_url(page)
    expect(page.locator("#play-status")).to_have_text("Your move")
    page.click('#play-board [data-cell="2 0"]')  # a mis-click: this pawn can only capture on 1 1
    expect(page.locator('#play-board [data-cell="2 0"]')).to_have_class(re.compile("picked"))
    expect(page.locator("#play-board .target")).to_have_count(1)
    expect(page.locator("#legal button[data-move]")).to_have_text(["(move 2 0 1 1)"])
    page.click("#undo")
    expect(page.locator("#play-board .picked")).to_have_count(0)
    page.click('#play-board [data-cell="1 0"]')  # from-square with two captures: the to-square decides
    expect(page.locator("#pending")).to_have_count(0)
    expect(page.locator("#play-board .target")).to_have_count(2)
    expect(page.locator('#play-board [data-cell="2 1"]')).to_have_class(re.compile("target"))
    page.click('#play-board [data-cell="2 1"]')  # to-square
    expect(page.locator("#pending")).to_have_text("(move 1 0 2 1)")
    screenshot(page, shots / "human-play-sbg.png")
    assert "null" not in page.inner_text("main") and "undefined" not in page.inner_text("main")
    page.click("#confirm")
    for _ in range(100):
        record = api(manager_url, f"api/matches/{match_id}")
        if record["moves"]:
            break
        time.sleep(0.1)
    assert record["moves"][0][0] == "(move 1 0 2 1)" and record["errors"][1][0] == ""
    try:
        api(manager_url, f"api/matches/{match_id}/abort", {})
    except urllib.error.HTTPError as exc:  # refused once the match is over: black may have won at once
        assert exc.code == 400 and api(manager_url, f"api/matches/{match_id}")["isCompleted"]


def test_the_demo_shows_a_live_match_and_one_click_starts_a_game_against_mcts(page: Page, shots: Path) -> None:
    from playwright.sync_api import expect

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    demo = subprocess.Popen([sys.executable, "-m", "ggp", "demo", "--port", "0", "--games", "ticTacToe",
                             "--players", "random,mcts", "--think", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert demo.stdout is not None
        first = demo.stdout.readline()
        found = re.match(r"ggp demo at (http://127\.0\.0\.1:\d+/)", first)
        assert found, first
        url = found[1]
        page.goto(url)
        running = page.locator("#running tbody tr")
        expect(running.first).to_be_visible(timeout=60_000)  # a newcomer sees a match being played
        running.first.locator("a").first.click()
        expect(page.locator("table.board td.cell.filled").first).to_be_visible(timeout=30_000)  # a move was made
        screenshot(page, shots / "demo-live-match.png")
        page.goto(url)
        expect(page.locator("#play-form select[name=opponent]")).to_have_value("mcts")
        page.locator("#play-button").click()  # the one click
        expect(page).to_have_url(re.compile(r"#/play/ticTacToe\.[0-9a-f]+/xplayer$"))
        expect(page.locator("#play-status")).to_have_text("Your move", timeout=30_000)
        expect(page.locator("#play-board table.board")).to_be_visible()
        screenshot(page, shots / "demo-human-play.png")
    finally:
        demo.terminate()
        try:
            demo.wait(30)
        except subprocess.TimeoutExpired:
            demo.kill()
            raise
        finally:
            if demo.stdout is not None:
                demo.stdout.close()
    assert demo.returncode == 0


def test_two_people_share_a_tab_and_switch_seats_through_the_seat_links(page: Page, manager_url: str, person: str) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url + "#/new?game=ticTacToe")
    for role in ("xplayer", "oplayer"):
        page.locator(f'#new-match select[data-role="{role}"]').select_option(person)
    page.locator('#new-match input[name="playclock"]').fill("60")
    page.locator("#new-match button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"#/play/ticTacToe\.[0-9a-f]+/xplayer$"))
    match_id, _ = seat_url(page)
    page.click('#play-board [data-cell="1 1"]')
    page.click("#confirm")
    assert "null" not in page.inner_text("main")
    page.locator("#other-seats a").click()  # the other seat's link carries its secret, then drops it from the URL
    expect(page).to_have_url(re.compile(rf"#/play/{re.escape(match_id)}/oplayer$"))
    expect(page.locator("#play-status")).to_have_text("Your move")
    expect(page.locator('#play-board [data-cell="1 1"]')).to_have_class(re.compile("filled"))
    page.click('#play-board [data-cell="2 2"]')
    page.click("#confirm")
    expect(page.locator('#play-board [data-cell="2 2"]')).to_have_class(re.compile("filled"))
    record = api(manager_url, f"api/matches/{match_id}")
    assert record["moves"][:2] == [["(mark 1 1)", "noop"], ["noop", "(mark 2 2)"]]
    assert record["playerNamesFromHost"] == [person, person]
    api(manager_url, f"api/matches/{match_id}/abort", {})


def test_a_person_in_a_gdl2_game_sees_only_their_own_moves_and_percepts(page: Page, manager_url: str, person: str) -> None:
    from playwright.sync_api import expect

    guess = KIF_DIR / "guessNumber" / "guessNumber.kif"
    if not guess.is_file():
        missing("kif/guessNumber is not present")
    api(manager_url, "api/games", {"key": "guessNumber", "kif": guess.read_text()})
    page.goto(manager_url + "#/new?game=guessNumber")
    page.locator('#new-match select[data-role="guesser"]').select_option(person)
    page.locator('#new-match input[name="playclock"]').fill("60")
    page.locator("#new-match button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"#/play/guessNumber\.[0-9a-f]+/guesser$"))
    match_id, _ = seat_url(page)
    expect(page.locator("#play-status")).to_have_text("Your move")
    knows = page.locator("#play-board .role-view")
    expect(knows.locator("h3")).to_have_text("what you (guesser) know")
    page.locator('#legal button[data-move="(ask 5)"]').click()
    expect(page.locator("#pending")).to_have_text("(ask 5)")
    page.click("#confirm")
    expect(knows.locator("li").nth(1)).to_contain_text(re.compile(r"\(ask 5\) → \(answer 5 (yes|no)\)"))
    main = page.inner_text("main")
    assert "secret" not in main and "choose" not in main  # neither the state nor chance's move
    assert page.locator("#play-board table.board").count() == 0
    api(manager_url, f"api/matches/{match_id}/abort", {})
    expect(page.locator("#result")).to_contain_text("Aborted")
    expect(knows).to_have_count(0)  # over: the whole state is shown
