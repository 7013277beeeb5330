"""The web UI in a real browser (Playwright's sync API with the system Chromium).

Skips cleanly when playwright or /usr/bin/chromium is missing. Starts ``ggp demo`` on a free port
with manager-played random players, so no player processes are needed.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import KIF_DIR

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("playwright") is None, reason="playwright is not installed"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed"),
    pytest.mark.skipif(not (KIF_DIR / "ticTacToe" / "ticTacToe.kif").is_file(), reason="kif/ticTacToe is missing"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    command = [sys.executable, "-m", "ggp", "demo", "--port", "0", "--games", "ticTacToe", "--players",
               "random,random2", "--matches-per-pairing", "2", "--startclock", "1", "--playclock", "1"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            url = ""
            for line in process.stdout:
                found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
                if found:
                    url = found.group(1)
                    break
            assert url, "ggp demo printed no URL"
            yield url
        finally:
            process.terminate()
            process.wait(10)


def post(url: str, payload: object) -> None:
    request = urllib.request.Request(url, json.dumps(payload).encode(), {"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()


def test_dashboard_match_page_board_and_escaping(server: str) -> None:
    from playwright.sync_api import expect, sync_playwright  # type: ignore[import-not-found,unused-ignore]

    post(server + "api/games", {"key": "ttt2", "name": "<b id=injected>bold</b>",
                                "kif": (KIF_DIR / "ticTacToe" / "ticTacToe.kif").read_text()})
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        page = browser.new_page()
        page.goto(server)
        expect(page.get_by_role("heading", name="Running matches")).to_be_visible()
        page.goto(server + "#/games")
        expect(page.get_by_text("<b id=injected>bold</b>")).to_be_visible()
        assert page.locator("#injected").count() == 0
        page.goto(server + "#/new")
        page.locator("form.card").first.locator("select").first.select_option("ticTacToe")
        page.get_by_role("button", name="Start", exact=True).click()
        expect(page.locator("table.board")).to_be_visible(timeout=10_000)
        expect(page.locator(".status-completed")).to_be_visible(timeout=20_000)
        page.get_by_role("button", name="⏮").click()
        expect(page.locator("#stepinfo")).to_contain_text("step 0 of")
        browser.close()
