"""The web UI's layout at common screen widths, and what a visitor and a spectator are shown.

The layout check opens the dashboard, a finished match, the new-match page, a tournament and an
evaluation report (``ggp evaluate``'s report.html) at 1280, 1400 and 1920 px and fails when a box's
content overflows it (``scrollWidth > clientWidth`` on table cells, badges, panels, cards, stats, the
page) or an id (a match or tournament id, class ``id``) breaks over two lines. The manager is first
filled as a busy site is: a game with a long key, more registered players than rated ones, eleven
tournaments (two-digit ids) with long names.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ggp.cli import main
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, TIC_TAC_TOE, ManagerThread, api, wait_finished
from tests.browser.test_human_play import SKIRMISH

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.timeout(240)

WIDTHS = (1280, 1400, 1920)
LONG_KEY = "breakthroughLongerKey"
TOURNAMENTS = 11

OVERFLOWS = """() => {
  const where = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (el.className ? "." + String(el.className).replace(/ /g, ".") : "")
    + " " + JSON.stringify((el.textContent || "").trim().slice(0, 40));
  const boxes = "main, td, th, .badge, .panel, .card, .stat, .result, .meta, section, .columns > div, form label";
  const overflowing = [...document.querySelectorAll(boxes)].filter((el) => el.scrollWidth > el.clientWidth + 1).map(where);
  if (document.documentElement.scrollWidth > window.innerWidth) overflowing.push("the page scrolls sideways");
  const wrapped = [...document.querySelectorAll(".id")].filter((el) => {
    const line = parseFloat(getComputedStyle(el).lineHeight) || parseFloat(getComputedStyle(el).fontSize) * 1.4;
    return el.getClientRects().length > 1 || el.getBoundingClientRect().height > 1.5 * line;
  }).map(where);
  return { overflowing, wrapped, ids: document.querySelectorAll(".id").length };
}"""


def layout_problems(page: Page, min_ids: int = 0) -> list[str]:
    found: dict[str, Any] = page.evaluate(OVERFLOWS)
    assert found["ids"] >= min_ids, f"expected at least {min_ids} ids on {page.url}, found {found['ids']}"
    return [f"overflows its box: {x}" for x in found["overflowing"]] + [f"id on two lines: {x}" for x in found["wrapped"]]


@pytest.fixture(scope="module")
def busy_site(manager_url: str) -> dict[str, str]:
    """A finished match on a long game key, a tournament id of two digits; returns their ids."""
    api(manager_url, "api/games", {"key": LONG_KEY, "kif": TIC_TAC_TOE.read_text()})
    for index in range(4):
        api(manager_url, "api/players", {"name": f"spare-random-{index}", "builtin": "random"})
    match_id = api(manager_url, "api/matches", {"game": LONG_KEY, "players": ["random", "legal"], "seed": 3})["matchId"]
    wait_finished(manager_url, match_id)
    tournament = ""
    while len(api(manager_url, "api/tournaments")) < TOURNAMENTS:
        spec = {"name": "an evening round robin with a long name", "game": LONG_KEY, "players": ["random", "legal"],
                "matches_per_pairing": 1, "startclock": 1, "playclock": 1}
        tournament = str(api(manager_url, "api/tournaments", spec)["id"])
    for row in api(manager_url, "api/tournaments"):
        for match in api(manager_url, f"api/tournaments/{row['id']}")["matches"]:
            wait_finished(manager_url, match["matchId"])
    return {"match": match_id, "tournament": tournament or str(TOURNAMENTS)}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("layout-report")
    assert main(["evaluate", str(TIC_TAC_TOE), "--matches", "1", "--out", str(out)]) == 0
    return out / "report.html"


@pytest.mark.parametrize("width", WIDTHS)
def test_no_box_overflows_and_no_id_wraps_on_the_main_pages(
        page: Page, manager_url: str, busy_site: dict[str, str], report: Path, width: int) -> None:
    from playwright.sync_api import expect

    page.set_viewport_size({"width": width, "height": 900})
    problems: dict[str, list[str]] = {}
    page.goto(manager_url + "?static=1#/")
    expect(page.locator("#tournaments")).to_be_visible()
    expect(page.locator("#recent")).to_contain_text(LONG_KEY)
    problems["dashboard"] = layout_problems(page, min_ids=TOURNAMENTS + 1)
    page.goto(manager_url + f"?static=1#/match/{busy_site['match']}")
    expect(page.locator("#result")).to_be_visible()
    problems["match"] = layout_problems(page, min_ids=1)
    page.goto(manager_url + "?static=1#/new")
    expect(page.locator("#new-tournament")).to_be_visible()
    problems["new"] = layout_problems(page)
    page.goto(manager_url + f"?static=1#/tournament/{busy_site['tournament']}")
    expect(page.locator("#tournament-matches")).to_be_visible()
    problems["tournament"] = layout_problems(page, min_ids=1)
    page.goto(report.as_uri())
    expect(page.locator("table").first).to_be_visible()
    problems["report"] = layout_problems(page)
    assert not any(problems.values()), {name: found for name, found in problems.items() if found}


def test_the_dashboard_says_its_player_count_is_of_registered_players(
        page: Page, manager_url: str, busy_site: dict[str, str]) -> None:
    from playwright.sync_api import expect

    page.goto(manager_url + "?static=1#/")
    registered = len(api(manager_url, "api/players"))
    expect(page.locator("a.stat", has_text="registered players")).to_contain_text(str(registered))
    rated = page.locator("#standings tbody tr").count()
    assert rated < registered  # the spare players never played: the counter is not the standings' length


def _open_match(base: str, token: str, payload: dict[str, Any]) -> str:
    request = urllib.request.Request(base + "api/matches", data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        match_id: str = json.loads(reply.read())["matchId"]
        return match_id


def test_a_visitor_without_the_admin_token_is_shown_no_abort_button(page: Page, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    token = "s3cret-token"
    server = ManagerThread(tmp_path / "guarded.db", token=token)
    try:
        server.start()
        base = server.url
        urllib.request.urlopen(urllib.request.Request(  # a person's seat keeps the match running: nobody moves
            base + "api/players", data=b'{"name": "you", "builtin": "human"}',
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"}), timeout=10).close()
        match_id = _open_match(base, token, {"game": "ticTacToe", "players": ["you", "random"], "playclock": 120})
        page.goto(base + f"#/match/{match_id}")
        expect(page.locator(".match-header .badge")).to_have_text("running")
        expect(page.get_by_role("button", name="Abort match")).to_have_count(0)
        page.locator("#token").fill(token)
        page.get_by_role("button", name="Abort match").click()  # shown once a token is given, and it works
        expect(page.locator("#result")).to_contain_text("Aborted", timeout=30_000)
        page.evaluate("localStorage.removeItem('ggp-token')")
    finally:
        server.stop()


def test_a_manager_without_a_token_shows_the_abort_button_to_anyone(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    api(manager_url, "api/players", {"name": "abort-test-person", "builtin": "human"})
    match_id = api(manager_url, "api/matches", {"game": "ticTacToe", "players": ["abort-test-person", "random"],
                                                "playclock": 120})["matchId"]
    page.goto(manager_url + f"#/match/{match_id}")
    page.get_by_role("button", name="Abort match").click()
    expect(page.locator("#result")).to_contain_text("Aborted", timeout=30_000)


def test_a_spectator_is_told_why_a_finished_sbg_match_ended(page: Page, manager_url: str) -> None:
    from playwright.sync_api import expect

    api(manager_url, "api/games", {"key": "skirmish-ends", "sbg": SKIRMISH})
    match_id = api(manager_url, "api/matches", {"game": "skirmish-ends", "players": ["random", "random"], "seed": 1})["matchId"]
    wait_finished(manager_url, match_id)
    why = api(manager_url, f"api/matches/{match_id}?view=1")["x-endWhy"]
    assert why  # the person's own view's reason: "white's P reached ...", "black had no legal move", ...
    for address in (f"#/match/{match_id}", f"?static=1#/match/{match_id}"):  # live and static views alike
        page.goto(manager_url + address)
        expect(page.locator("#result #end-why")).to_have_text(why[0].upper() + why[1:] + ".")


COUNT_STREAMS = """window.__streams = 0;
const LiveEventSource = window.EventSource;
window.EventSource = function (...args) { window.__streams += 1; return new LiveEventSource(...args); };"""


def test_the_static_view_renders_once_without_a_live_stream(page: Page, manager_url: str, busy_site: dict[str, str],
                                                             tmp_path: Path) -> None:
    from playwright.sync_api import expect

    page.add_init_script(COUNT_STREAMS)
    for path in ("#/", f"#/match/{busy_site['match']}", f"#/tournament/{busy_site['tournament']}"):
        page.goto(manager_url + "?static=1" + path)
        expect(page.locator("main h1")).to_be_visible()
        assert page.evaluate("window.__streams") == 0, path
    page.goto(manager_url + f"#/match/{busy_site['match']}")  # the live page does open its stream
    expect(page.locator("#result")).to_be_visible()
    assert page.evaluate("window.__streams") == 1
    # A plain headless screenshot with a virtual time budget finishes on the static view.
    shot = tmp_path / "static.png"
    command = [str(CHROMIUM), *CHROMIUM_ARGS, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900",
               "--virtual-time-budget=5000", f"--screenshot={shot}", manager_url + f"?static=1#/match/{busy_site['match']}"]
    subprocess.run(command, capture_output=True, timeout=90, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
