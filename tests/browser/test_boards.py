"""Boards drawn from the rules in a real browser: Connect Four's empty first state, an SBG board with
its pieces (pictures, or letters when there are none), drawBoard's click hook, and no stray "null".

Board screenshots (a Connect Four and an SBG board, cut to the board) are saved as test artifacts in
pytest's temporary directory (``.../pytest-of-USER/pytest-N/board-screenshots0/``) and checked: a
PNG, and several distinct colours (light and dark squares, pieces).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import api, wait_finished
from tests.conftest import GAMES_DIR, KIF_DIR
from tests.prerequisites import missing

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.timeout(120)

CONNECT_FOUR = KIF_DIR / "connectFour" / "connectFour.kif"
GARDNER = GAMES_DIR / "gardner.sbg"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
WORDS_THAT_LEAK = re.compile(r"\b(null|undefined|NaN|\[object Object\])\b")


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("board-screenshots")


def board_screenshot(page: Page, path: Path) -> None:
    """Save a screenshot of the board alone and check it is not blank: a PNG showing both square colours
    and more (pieces, labels)."""
    from PIL import Image

    page.locator("table.board").screenshot(path=str(path))
    assert path.read_bytes()[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    with Image.open(path) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) >= 8, f"{path} looks blank ({colours and len(colours)} colours)"
    counts = dict((colour, n) for n, colour in colours or [])
    light, dark = (0xF0, 0xD9, 0xB5), (0xB5, 0x88, 0x63)  # --board-light and --board-dark in style.css
    assert colours is None or (counts.get(light, 0) > 100 and counts.get(dark, 0) > 100), f"{path}: no chequered squares"


def add_game(base: str, key: str, **rules: str) -> None:
    api(base, "api/games", {"key": key, **rules})


def finished_match(base: str, game: str, seed: int) -> dict[str, Any]:
    payload = {"game": game, "players": ["random", "random"], "startclock": 2, "playclock": 1, "seed": seed}
    return wait_finished(base, api(base, "api/matches", payload)["matchId"], timeout=60)


def open_step(page: Page, base: str, match_id: str, step: str) -> None:
    from playwright.sync_api import expect

    page.goto(base + "#/match/" + match_id)
    expect(page.locator("#result")).to_be_visible()
    page.keyboard.press(step)


def test_connect_four_shows_its_seven_by_six_empty_board_from_the_first_state(
    page: Page, manager_url: str, shots: Path
) -> None:
    from playwright.sync_api import expect

    if not CONNECT_FOUR.is_file():
        missing("kif/connectFour is not present")
    add_game(manager_url, "connectFour", kif=CONNECT_FOUR.read_text())
    game = api(manager_url, "api/games/connectFour")
    assert (len(game["board"]["xs"]), len(game["board"]["ys"])) == (7, 6)
    record = finished_match(manager_url, "connectFour", seed=5)
    assert "(cell " not in record["states"][0]  # the first state holds no cell at all

    page.goto(manager_url + "#/game/connectFour")
    expect(page.locator("#board-size")).to_have_text("Board: 7 × 6 (cell)")
    open_step(page, manager_url, record["matchId"], "Home")
    expect(page.locator("#stepinfo")).to_contain_text("step 0 of")
    cells = page.locator("table.board td.cell")
    expect(cells).to_have_count(42)
    expect(page.locator("table.board td.cell.filled")).to_have_count(0)
    assert page.locator("table.board thead th").all_inner_texts() == ["", "1", "2", "3", "4", "5", "6", "7"]
    assert page.locator("table.board tbody th").all_inner_texts() == ["6", "5", "4", "3", "2", "1"]
    data_cells = cells.evaluate_all("cells => cells.map(c => c.dataset.cell)")
    assert set(data_cells) == {f"{x} {y}" for x in range(1, 8) for y in range(1, 7)}
    assert page.locator("table.board tbody tr").last.locator("td").first.get_attribute("data-cell") == "1 1"

    page.keyboard.press("End")
    discs = record["states"][-1].count("(cell ")
    expect(page.locator("table.board td.cell.filled .disc")).to_have_count(discs)
    board_screenshot(page, shots / "connect-four.png")


def test_an_sbg_board_is_chequered_with_white_and_black_pieces(page: Page, manager_url: str, shots: Path) -> None:
    from playwright.sync_api import expect

    if not GARDNER.is_file():
        missing("games/gardner.sbg is not present")
    add_game(manager_url, "gardner", sbg=GARDNER.read_text())
    record = finished_match(manager_url, "gardner", seed=3)
    open_step(page, manager_url, record["matchId"], "Home")
    cells = page.locator("table.board td.cell")
    expect(cells).to_have_count(25)
    expect(page.locator("table.board td.cell.dark")).to_have_count(13)
    expect(page.locator('td.cell[data-cell="0 0"]')).to_have_class(re.compile(r"\bdark\b"))  # a1 is dark
    expect(page.locator('td.cell[data-cell="1 0"]')).to_have_class(re.compile(r"\blight\b"))
    assert page.locator("table.board thead th").all_inner_texts() == ["", "0", "1", "2", "3", "4"]
    assert page.locator("table.board tbody th").all_inner_texts() == ["4", "3", "2", "1", "0"]
    # Each of the 20 pieces is its generated shape (made on the first request, so allow for that).
    loaded = "[...document.querySelectorAll('table.board td.cell img.piece-img')]" \
             ".filter(i => i.complete && i.naturalWidth > 0).length"
    deadline = time.monotonic() + 240
    while page.evaluate(loaded) < 20 and time.monotonic() < deadline:
        page.wait_for_timeout(500)
    assert page.evaluate(loaded) == 20
    expect(page.locator("table.board td.cell .piece-letter")).to_have_count(0)
    expect(page.locator("td.cell .owner-white")).to_have_count(10)
    expect(page.locator("td.cell .owner-black")).to_have_count(10)
    king = page.locator('td.cell[data-cell="4 0"]')
    expect(king).to_have_attribute("title", "(cell 4 0 white k)")
    expect(king.locator("img, .piece-letter").first).to_be_visible()
    requested = page.evaluate("[...document.querySelectorAll('img.piece-img')].map(i => new URL(i.src).pathname)")
    assert all(re.fullmatch(r"/api/games/gardner/pieces/[a-z]-(white|black)\.svg", url) for url in requested)
    board_screenshot(page, shots / "sbg-gardner.png")


def test_pieces_whose_picture_fails_to_load_show_their_letter_in_the_owners_colour(
    page: Page, manager_url: str
) -> None:
    from playwright.sync_api import expect

    if not GARDNER.is_file():
        missing("games/gardner.sbg is not present")
    add_game(manager_url, "gardner", sbg=GARDNER.read_text())
    record = finished_match(manager_url, "gardner", seed=4)
    page.route("**/pieces/**", lambda route: route.abort())  # as if no picture existed
    open_step(page, manager_url, record["matchId"], "Home")
    expect(page.locator("td.cell img")).to_have_count(0)
    letters = page.locator("td.cell .piece-letter")
    expect(letters).to_have_count(20)
    expect(page.locator('td.cell[data-cell="4 0"] .piece-letter.owner-white')).to_have_text("K")
    expect(page.locator('td.cell[data-cell="4 4"] .piece-letter.owner-black')).to_have_text("k")
    white = page.locator('td.cell[data-cell="0 0"] .piece-letter')
    assert white.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
    assert page.locator('td.cell[data-cell="0 4"] .piece-letter').evaluate(
        "e => getComputedStyle(e).backgroundColor") != "rgb(255, 255, 255)"
    expect(letters.first).to_be_visible()


def test_draw_board_marks_every_square_and_reports_clicks_with_gdl_coordinates(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url)
    expect(page.locator("h1")).to_have_text("Dashboard")
    rest = page.evaluate("""() => {
      const target = document.createElement("div");
      target.id = "probe";
      document.body.append(target);
      window.__clicks = [];
      const geometry = {xs: ["a", "b", "c"], ys: ["2", "1"],
        layers: [{relation: "cell", arity: 3, x: 0, y: 1, owner: null, piece: 2}]};
      const rest = drawBoard(target, geometry, parseState("( (cell a 1 x) (cell c 2 o) (control x) )"),
        {onCellClick: (x, y) => window.__clicks.push([x, y])});
      return rest.map(fluentText);
    }""")
    assert rest == ["(control x)"]
    cells = page.locator("#probe td.cell")
    assert cells.evaluate_all("cells => cells.map(c => c.dataset.cell)") == ["a 2", "b 2", "c 2", "a 1", "b 1", "c 1"]
    page.locator('#probe td[data-cell="c 2"]').click()
    page.locator('#probe td[data-cell="b 1"]').click()
    assert page.evaluate("window.__clicks") == [["c", "2"], ["b", "1"]]
    expect(page.locator("#probe td.cell.filled")).to_have_count(2)


def test_no_page_shows_a_stray_null_and_every_error_looks_the_same(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    match_id = api(manager_url, "api/matches", {"game": "ticTacToe", "players": ["random", "random"],
                                                  "startclock": 1, "playclock": 1})["matchId"]
    wait_finished(manager_url, match_id)
    pages = ["#/", "#/matches", "#/matches?game=ticTacToe", "#/games", "#/game/ticTacToe", "#/players", "#/new",
             "#/match/" + match_id]
    for hash_ in pages:
        page.goto(manager_url + hash_)
        expect(page.locator("main h1").first).to_be_visible()
        page.wait_for_load_state("networkidle")
        text = page.locator("main").inner_text()
        assert not WORDS_THAT_LEAK.search(text), f"{hash_} shows {WORDS_THAT_LEAK.search(text)}: {text[:300]!r}"

    page.goto(manager_url + "#/games")
    form = page.locator("#add-game")
    errors = []
    for key, rules in (("broken", "(role x)\n(init (cell 1 1 b)\n"), ("noGoal", "(role x) (init (p))")):
        form.locator("input[name=key]").fill(key)
        form.locator("textarea[name=kif]").fill(rules)
        form.get_by_role("button", name="Validate and add").click()
        box = form.locator(".error-box[role=alert]")
        expect(box).to_contain_text(key + ".kif")
        errors.append(box.inner_text())
    assert not any(WORDS_THAT_LEAK.search(text) for text in errors), errors
    assert "\n" in errors[1]  # the validator's problems, one per line under the message

    page.goto(manager_url + "#/players")
    players = page.locator("#add-player")
    players.locator("input[name=name]").fill("bad name!")
    players.get_by_role("button", name="Register").click()
    expect(players.locator(".error-box[role=alert]")).to_contain_text("player name 'bad name!'")
    page.goto(manager_url + "#/match/nosuch.00000000")
    expect(page.locator("main .error-box[role=alert]")).to_have_text("Unknown match nosuch.00000000")
    page.goto(manager_url + "#/tournament/999")
    expect(page.locator("main .error-box[role=alert]")).to_contain_text("unknown tournament")


def test_chess_pieces_written_as_words_show_their_letters_in_the_owners_colour(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url)
    expect(page.locator("h1")).to_have_text("Dashboard")
    page.evaluate("""() => {
      const draw = (id, geometry, state) => {
        const target = document.createElement("div");
        target.id = id;
        document.body.append(target);
        drawBoard(target, geometry, parseState(state));
      };
      const piece = {relation: "cell", arity: 3, x: 0, y: 1, owner: null, piece: 2};
      const owned = {relation: "cell", arity: 4, x: 0, y: 1, owner: 2, piece: 3};
      draw("ggp-chess", {xs: ["a", "b", "c"], ys: ["1"], layers: [piece]}, "( (cell a 1 wk) (cell b 1 bn) (cell c 1 b) )");
      draw("owned-words", {xs: ["a", "b"], ys: ["1"], layers: [owned]}, "( (cell a 1 white queen) (cell b 1 black dragon) )");
    }""")
    expect(page.locator('#ggp-chess td[data-cell="a 1"] .piece-letter.owner-white')).to_have_text("K")
    expect(page.locator('#ggp-chess td[data-cell="b 1"] .piece-letter.owner-black')).to_have_text("n")
    expect(page.locator('#ggp-chess td[data-cell="c 1"]')).to_have_text("")  # b is a blank square here
    expect(page.locator('#owned-words td[data-cell="a 1"] .piece-letter.owner-white')).to_have_text("Q")
    expect(page.locator('#owned-words td[data-cell="b 1"] .piece-letter.owner-black')).to_have_text("d")
