"""What a person sees first on a fresh ``ggp demo``: SBG boards with their pieces within a second.

Piece pictures are generated (20 s to minutes a game), so the shipped games' pictures are committed
(``ggp/commands/piece_shapes``) and the board draws each piece's letter at once, swapping the picture in
when it has loaded: a game without ready pictures (an upload) shows its letters at once too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import api
from tests.browser.test_piece_shapes import TINY

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

DRAWN = """() => {
    const cells = [...document.querySelectorAll('table.board td.cell.filled')];
    const drawn = (td) => [...td.children].some((c) => c.classList.contains('piece-letter')
        || (c.tagName === 'IMG' && c.complete && c.naturalWidth > 0));
    return cells.length > 0 && cells.every(drawn) ? cells.length : 0;
}"""
"""The number of occupied squares when every one shows its piece (a letter, or a picture that has loaded), else 0."""
PICTURES = "document.querySelectorAll('table.board td.cell img.piece-img').length"


@pytest.fixture
def fresh_demo(tmp_path: Path) -> Iterator[str]:
    """URL of a ``ggp demo`` of gardner just started, with an empty user cache (nothing drawn before)."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    log = tmp_path / "demo.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "ggp", "demo", "--port", "0", "--games", "gardner.sbg", "--players", "random,random2"],
            stdout=sink, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 120
        while not (found := re.search(r"ggp demo at (\S+)", log.read_text())):
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield found.group(1)
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


WATCH_FIRST_BOARD = """(() => {
    window.__firstBoard = null;
    new MutationObserver((_, observer) => {
        const board = document.querySelector('table.board');
        if (!board || window.__firstBoard !== null) return;
        window.__firstBoard = { at: performance.now(), drawn: (DRAWN)() };
        observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
})();""".replace("DRAWN", DRAWN)
"""Records, the moment a board first enters the page, when that was and how many of its pieces were drawn then."""


def open_board(page: Page, url: str) -> dict[str, float]:
    """Open ``url`` and return ``{at, drawn}`` of its first board: ms since the page began, pieces drawn then."""
    page.add_init_script(WATCH_FIRST_BOARD)
    page.goto(url)
    page.wait_for_function("() => window.__firstBoard !== null", timeout=60_000)
    first: dict[str, float] = page.evaluate("() => window.__firstBoard")
    return first


def test_a_fresh_demo_draws_the_pieces_of_an_sbg_board_with_the_board_itself(page: Page, fresh_demo: str) -> None:
    deadline = time.monotonic() + 60
    while not (matches := api(fresh_demo, "api/matches?game=gardner")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert matches, "the demo started no gardner match"
    first = open_board(page, f"{fresh_demo}#/match/{matches[0]['matchId']}")
    # Every occupied square shows its piece the moment the board appears (no waiting on a picture), so the
    # pieces are there as soon as the page can draw anything: well within a second on an idle machine.
    assert first["drawn"] > 0
    assert page.evaluate(DRAWN) > 0
    # The shipped pictures are there at once: every letter becomes its picture without any being made.
    page.wait_for_function(f"() => {PICTURES} > 0 && !document.querySelector('table.board .piece-letter')", timeout=10_000)


def test_an_uploaded_games_letters_show_at_once_and_its_pictures_replace_them_when_made(
    page: Page, manager_url: str
) -> None:
    api(manager_url, "api/games", {"key": "lettersFirst", "sbg": TINY})  # pictures made on first request (or by
    # test_piece_shapes: its text is the same, and a picture still loads after its board has been drawn)
    record = api(manager_url, "api/matches", {"game": "lettersFirst", "players": ["random", "random"],
                                              "startclock": 2, "playclock": 1, "seed": 1})
    first = open_board(page, f"{manager_url}#/match/{record['matchId']}")
    assert first["drawn"] > 0  # letters, drawn with the board, while the pictures are being made
    page.wait_for_function(f"() => {PICTURES} > 0 && !document.querySelector('table.board .piece-letter')",
                           timeout=200_000)
