"""The manager's web UI in a real browser (Playwright's sync API driving Debian's /usr/bin/chromium).

Fixtures are in ``conftest.py``: a manager on a loopback port (background thread, temporary SQLite
database, built-in ``random``, ``legal`` and ``slow`` players) and one headless Chromium. Every test
fails on a JavaScript error in the page. Screenshots go to pytest's temporary directory
(``.../pytest-of-USER/pytest-N/screenshots0/``) and are checked to be real PNGs of the viewport size.
The whole file skips, with the reason, when Playwright or Chromium is missing.
"""

from __future__ import annotations

import re
import struct
import time
import urllib.error
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import (
    ROCK_PAPER_SCISSORS,
    TIC_TAC_TOE,
    VIEWPORT,
    ManagerThread,
    api,
    wait_finished,
)
from tests.prerequisites import missing

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.timeout(120)

FILLED = "table.board td.cell.filled"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


def screenshot(page: Page, path: Path) -> None:
    """Save a viewport screenshot and check it: a PNG of the viewport's size that is not one flat colour."""
    page.screenshot(path=str(path))
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (VIEWPORT["width"], VIEWPORT["height"])
    from PIL import Image

    with Image.open(path) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 20, f"{path} looks blank ({len(colours)} colours)"


def start_match(base: str, players: list[str], game: str = "ticTacToe", **extra: Any) -> str:
    payload = {"game": game, "players": players, "startclock": 1, "playclock": 1, **extra}
    match_id: str = api(base, "api/matches", payload)["matchId"]
    return match_id


def marks(state: str) -> set[str]:
    """The occupied cells of a tic-tac-toe state string, as the board's cell titles '(cell m n x)'."""
    return {f"(cell {m} {n} {v})" for m, n, v in re.findall(r"\(cell (\d) (\d) (\w+)\)", state) if v != "b"}


def board_titles(page: Page) -> set[str]:
    titles: list[str] = page.locator(FILLED).evaluate_all("cells => cells.map(c => c.title)")
    return set(titles)


def no_injection(page: Page) -> None:
    """Nothing from the data ran or became markup: only the UI's own /static/ scripts, no image, no flag set."""
    scripts = page.evaluate("[...document.scripts].map(s => s.src ? new URL(s.src).pathname : 'inline')")
    assert scripts and all(src.startswith("/static/") for src in scripts), scripts
    assert page.locator("img").count() == 0
    assert page.evaluate("window.__pwned === undefined")


def test_dashboard_shows_sections_and_follows_matches_live(page: Page, manager_url: str, shots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url)
    for heading in ("Running matches", "Recent results", "Standings (Elo, all games)", "Tournaments"):
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
    expect(page.locator("header nav a.active")).to_have_text("Dashboard")
    expect(page).to_have_title("GGP manager")

    match_id = start_match(manager_url, ["slow", "legal"])
    # The dashboard's event feed re-renders the page: the match appears while running, then finished.
    expect(page.locator("#running")).to_contain_text(match_id)
    record = wait_finished(manager_url, match_id)
    assert record["isCompleted"]
    row = page.locator("#recent tr", has_text=match_id)
    expect(row).to_contain_text("completed")
    expect(row).to_contain_text(" / ".join(str(g) for g in record["goalValues"]))
    expect(page.locator("#running")).to_have_count(0)
    standings = page.locator("#standings")
    expect(standings).to_contain_text("legal")
    expect(standings).to_contain_text("slow")
    screenshot(page, shots / "dashboard.png")
    page.locator("a.stat", has_text="running").click()
    expect(page.locator("header nav a.active")).to_have_text("Matches")
    expect(page.locator(".muted", has_text="status = running")).to_be_visible()
    expect(page.locator("#matches")).to_have_count(0)  # nothing runs now


def test_match_started_from_the_form_updates_its_board_live(page: Page, manager_url: str, shots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url + "#/new")
    form = page.locator("#new-match")
    form.locator("select[name=game]").select_option("ticTacToe")
    form.locator("select[data-role=xplayer]").select_option("slow")
    form.locator("select[data-role=oplayer]").select_option("slow")
    form.locator("input[name=startclock]").fill("2")
    form.locator("input[name=playclock]").fill("1")
    form.locator("input[name=seed]").fill("12345")
    form.get_by_role("button", name="Start", exact=True).click()
    page.wait_for_url(re.compile(r"#/match/ticTacToe\.[0-9a-f]+$"))
    match_id = page.url.rsplit("/", 1)[1]

    seen: list[int] = []
    live_shot = False
    end = time.monotonic() + 30
    while time.monotonic() < end and page.locator("#result").count() == 0:
        seen.append(page.locator(FILLED).count())
        if not live_shot and seen[-1] >= 2:
            expect(page.locator(".badge.status-running")).to_be_visible()
            screenshot(page, shots / "match-live.png")
            live_shot = True
        time.sleep(0.04)
    record = wait_finished(manager_url, match_id)
    expect(page.locator("#result")).to_be_visible()

    final = marks(record["states"][-1])
    assert seen == sorted(seen), f"marks disappeared while the match ran: {seen}"
    between = {count for count in seen if 0 < count < len(final)}
    assert len(between) >= 3, f"the board did not update move by move: counts seen {seen}"
    assert board_titles(page) == final
    # Columns left to right, numbered rows bottom-up (row 1 at the bottom).
    assert page.locator("table.board thead th").all_inner_texts() == ["", "1", "2", "3"]
    assert page.locator("table.board tbody th").all_inner_texts() == ["3", "2", "1"]
    assert page.locator("table.board tbody tr").last.locator("td").first.get_attribute("title") in (
        "(cell 1 1 x)", "(cell 1 1 o)", "(cell 1 1 b)")
    assert record["x-seed"] == 12345 and record["playerNamesFromHost"] == ["slow", "slow"]
    assert (record["startClock"], record["playClock"]) == (2, 1)

    result = page.locator("#result")
    for role, goal in zip(record["x-roles"], record["goalValues"]):
        expect(result).to_contain_text(f"{role} (slow) {goal}")
    top = max(record["goalValues"])
    winners = [r for r, g in zip(record["x-roles"], record["goalValues"]) if g == top]
    expect(result).to_contain_text("draw" if len(winners) == 2 else f"{winners[0]} won")
    expect(page.locator(".badge.status-completed")).to_be_visible()
    last = len(record["states"]) - 1
    expect(page.locator("#stepinfo")).to_have_text(f"step {last} of {last}")
    expect(page.locator("ol.history li")).to_have_count(last + 1)
    screenshot(page, shots / "match-finished.png")


def test_step_through_a_finished_match(page: Page, manager_url: str, shots: Path) -> None:
    from playwright.sync_api import expect

    match_id = start_match(manager_url, ["random", "legal"], seed=3)
    record = wait_finished(manager_url, match_id)
    states, moves = record["states"], record["moves"]
    last = len(states) - 1
    page.goto(manager_url + "#/match/" + match_id)
    info = page.locator("#stepinfo")
    expect(info).to_have_text(f"step {last} of {last}")

    def at(step: int) -> None:
        expect(info).to_have_text(f"step {step} of {last}")
        assert board_titles(page) == marks(states[step])
        if step:
            move_cells = page.locator("table.moves tbody tr td:nth-child(3)")
            assert move_cells.all_inner_texts() == moves[step - 1]
        expect(page.locator("ol.history li.current")).to_have_attribute("data-step", str(step))

    page.get_by_role("button", name="first step").click()
    at(0)
    assert page.locator(FILLED).count() == 0
    page.get_by_role("button", name="next step").click()
    at(1)
    page.keyboard.press("ArrowRight")
    at(2)
    page.get_by_role("button", name="previous step").click()
    at(1)
    page.locator("input[type=range]").fill("3")
    at(3)
    page.locator("ol.history li").nth(last - 1).click()
    at(last - 1)
    page.get_by_role("button", name="last step").click()
    at(last)
    page.get_by_role("button", name="next step").click()  # already at the end: stays
    at(last)
    screenshot(page, shots / "match-step.png")


def test_a_game_without_a_grid_shows_its_fluents(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    if not ROCK_PAPER_SCISSORS.is_file():
        missing(f"{ROCK_PAPER_SCISSORS} is missing")
    match_id = start_match(manager_url, ["random", "legal"], game="rockPaperScissors", seed=1)
    record = wait_finished(manager_url, match_id)
    page.goto(manager_url + "#/match/" + match_id)
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("table.board")).to_have_count(0)
    fluents = page.locator(".fluents .fluent").all_inner_texts()
    assert sorted(fluents) == sorted(re.findall(r"\([^()]*\)", record["states"][-1]))
    assert any(f.startswith("(score left ") for f in fluents)


def test_tournament_from_the_form(page: Page, manager_url: str, shots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url + "#/new")
    form = page.locator("#new-tournament")
    form.locator("select[name=game]").select_option("ticTacToe")
    form.locator("select[name=players]").select_option(["random", "legal"])
    for field, value in (("matches_per_pairing", "2"), ("startclock", "1"), ("playclock", "1")):
        form.locator(f"input[name={field}]").fill(value)
    form.get_by_role("button", name="Start tournament").click()
    page.wait_for_url(re.compile(r"#/tournament/\d+$"))
    tournament_id = page.url.rsplit("/", 1)[1]
    # The page reloads itself every 2 s while the tournament runs.
    expect(page.locator(".meta .badge")).to_have_text("finished", timeout=20_000)
    data = api(manager_url, f"api/tournaments/{tournament_id}")
    assert len(data["matches"]) == 2 and {m["status"] for m in data["matches"]} == {"completed"}
    rows = page.locator("table.list").first.locator("tbody tr")
    expect(rows).to_have_count(2)
    expected = [[s["player"], str(s["matches"]), str(s["wins"]), f"{s['mean']:.1f}"] for s in data["standings"]]
    assert [row.locator("td").all_inner_texts() for row in rows.all()] == expected
    for match in data["matches"]:
        expect(page.locator("#tournament-matches")).to_contain_text(match["matchId"])
    screenshot(page, shots / "tournament.png")
    page.goto(manager_url)
    expect(page.locator("#tournaments")).to_contain_text(data["name"])


def test_admin_token_from_the_header_field_guards_actions(page: Page, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    server = ManagerThread(tmp_path / "guarded.db", token="s3cret-token")
    try:
        server.start()
        page.goto(server.url + "#/new")
        form = page.locator("#new-match")
        form.locator("select[name=game]").select_option("ticTacToe")
        form.locator("select[data-role=xplayer]").select_option("random")
        form.locator("select[data-role=oplayer]").select_option("legal")
        form.get_by_role("button", name="Start", exact=True).click()
        expect(form.locator(".err")).to_contain_text("needs the admin token")
        assert api(server.url, "api/matches") == []
        page.locator("#token").fill("s3cret-token")
        page.locator("#token").dispatch_event("change")
        form.get_by_role("button", name="Start", exact=True).click()
        page.wait_for_url(re.compile(r"#/match/ticTacToe\.[0-9a-f]+$"))
        expect(page.locator("#result")).to_be_visible()
        assert page.evaluate("localStorage.getItem('ggp-token')") == "s3cret-token"
        page.evaluate("localStorage.removeItem('ggp-token')")
    finally:
        server.stop()


def test_unknown_match_page(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url + "#/match/nosuch.00000000")
    expect(page.locator("main .err")).to_have_text("Unknown match nosuch.00000000")


def test_players_page_lists_pings_and_registers(page: Page, manager_url: str, shots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url + "#/players")
    table = page.locator("#players")
    for name in ("random", "legal", "slow"):
        expect(table.locator("tr", has=page.get_by_role("link", name=name, exact=True))).to_have_count(1)
    legal_row = table.locator("tr", has=page.get_by_role("link", name="legal", exact=True))
    legal_row.get_by_role("button", name="ping").click()
    expect(legal_row.locator("td").last).to_have_text("available")

    form = page.locator("#add-player")
    form.locator("input[name=name]").fill("bad name!")
    form.locator("select[name=builtin]").select_option("legal")
    form.get_by_role("button", name="Register").click()
    expect(form.locator(".err")).to_contain_text("player name 'bad name!'")
    form.locator("input[name=name]").fill("ui-legal")
    form.get_by_role("button", name="Register").click()
    expect(page.locator("#players tr", has_text="ui-legal")).to_contain_text("builtin")
    assert any(p["name"] == "ui-legal" and p["builtin"] == "legal" for p in api(manager_url, "api/players"))
    screenshot(page, shots / "players.png")

    page.locator("#players").get_by_role("link", name="slow", exact=True).click()
    expect(page.get_by_role("heading", name="Matches", exact=True)).to_be_visible()
    expect(page.locator(".muted", has_text="player = slow")).to_be_visible()


def test_games_page_lists_shows_rules_and_rejects_bad_kif(page: Page, manager_url: str, shots: Path) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url + "#/games")
    row = page.locator("#games tr", has_text="ticTacToe")
    expect(row).to_contain_text("xplayer, oplayer")
    before = page.locator("#games tbody tr").count()

    form = page.locator("#add-game")
    form.locator("input[name=key]").fill("broken")
    form.locator("textarea[name=kif]").fill("(role x)\n(init (cell 1 1 b)\n")
    form.get_by_role("button", name="Validate and add").click()
    expect(form.locator(".err")).to_contain_text("broken.kif:")
    assert not any(g["key"] == "broken" for g in api(manager_url, "api/games"))
    screenshot(page, shots / "games.png")

    page.goto(manager_url + "#/games")
    expect(page.locator("#games tbody tr")).to_have_count(before)
    page.get_by_role("link", name="ticTacToe", exact=True).click()
    expect(page.get_by_role("heading", name="ticTacToe")).to_be_visible()
    rules = page.locator("pre.kif").inner_text()
    assert "(role xplayer)" in rules and "(role oplayer)" in rules and rules.startswith(";; Tic-tac-toe")


def test_names_and_rules_with_markup_show_as_text(page: Page, manager_url: str, shots: Path) -> None:
    from playwright.sync_api import expect

    name = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"
    kif = "; <script>window.__pwned = 3</script>\n" + TIC_TAC_TOE.read_text(encoding="utf-8")
    url = "http://127.0.0.1:9/<script>window.__pwned=4</script>"
    try:
        api(manager_url, "api/games", {"key": "markup", "name": name, "kif": kif})
        api(manager_url, "api/players", {"name": "markup-player", "url": url})
    except urllib.error.HTTPError as exc:  # show the server's reason, not just "400"
        raise AssertionError(exc.read().decode()) from None
    match_id = start_match(manager_url, ["markup-player", "random"])
    wait_finished(manager_url, match_id)

    page.goto(manager_url + "#/games")
    expect(page.locator("#games")).to_contain_text(name)
    no_injection(page)
    screenshot(page, shots / "escaping.png")
    page.goto(manager_url + "#/game/markup")
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    expect(page.locator("pre.kif")).to_contain_text("<script>window.__pwned = 3</script>")
    no_injection(page)
    page.goto(manager_url + "#/players")
    expect(page.locator("#players")).to_contain_text(url)
    no_injection(page)
    page.goto(manager_url + "#/new?game=markup")
    expect(page.locator("#new-match select[name=game] option:checked")).to_have_text(name + " (2 roles)")
    no_injection(page)
    page.goto(manager_url + "#/match/" + match_id)
    expect(page.locator("#result")).to_contain_text("markup-player")
    page.get_by_role("button", name="first step").click()
    expect(page.locator("table.moves tr", has_text="markup-player")).to_contain_text("CE")
    no_injection(page)


def test_a_suspended_player_is_shown_left_out_of_the_form_and_can_be_unsuspended(
    page: Page, tmp_path: Path, shots: Path
) -> None:
    from playwright.sync_api import expect

    server = ManagerThread(tmp_path / "suspend.db", suspend_after=1)
    try:
        server.start()
        api(server.url, "api/players", {"name": "dead", "url": "http://127.0.0.1:9/"})
        record = wait_finished(server.url, start_match(server.url, ["dead", "random"]))
        assert {row[0] for row in record["errors"]} == {"CE"}
        page.goto(server.url + "#/players")
        row = page.locator("#players tr", has=page.get_by_role("link", name="dead", exact=True))
        expect(row).to_contain_text("suspended (1 failures)")
        screenshot(page, shots / "suspended.png")
        page.goto(server.url + "#/new?game=ticTacToe")
        seat = page.locator("#new-match select[data-role=xplayer]")
        expect(seat.locator("option", has_text="random")).to_have_count(1)
        options = seat.locator("option").all_inner_texts()
        assert "random" in options and "dead" not in options
        page.goto(server.url + "#/players")
        row.get_by_role("button", name="unsuspend").click()
        expect(row).not_to_contain_text("suspended")
        assert not next(p for p in api(server.url, "api/players") if p["name"] == "dead")["suspended"]
    finally:
        server.stop()


def test_an_sbg_game_added_from_the_games_page_is_translated(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    from tests.unit.manager.test_api_input import TINY_SBG

    page.goto(manager_url + "#/games")
    form = page.locator("#add-game")
    expect(form.locator("select[name=format] option")).to_have_text(["KIF", "SBG"])  # waits for the page to render
    form.locator("input[name=key]").fill("tinySbg")
    form.locator("select[name=format]").select_option("sbg")
    form.locator("textarea[name=kif]").fill("<<Broken>>\n<BOARD> 3\n")
    form.get_by_role("button", name="Validate and add").click()
    expect(form.locator(".err")).to_contain_text("tinySbg.sbg:3:1:")
    form.locator("textarea[name=kif]").fill(TINY_SBG)
    form.get_by_role("button", name="Validate and add").click()
    expect(form.locator(".ok")).to_contain_text("Stored tinySbg v1; roles white, black")
    game = api(manager_url, "api/games/tinySbg")
    assert "(role white)" in game["kif"] and "<BOARD>" not in game["kif"]
