"""Generated SBG piece shapes load as images in the manager's page (its origin and Content-Security-Policy).

The board draws each piece as ``<img src="/api/games/{game}/pieces/{piece}-{owner}.svg">`` and falls
back to the letter when the image fails; this checks both sides of that in real Chromium.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import api

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.timeout(180)

TINY = """<<Shapes Tiny>>
<BOARD> 3 4
|kpp|
|...|
|...|
|PPK|
<PIECES>
P (0,1,e) + (-1,1,p) + (1,1,p) &
K (1,0,e) + (-1,0,e) + (0,1,e) + (0,-1,e) + (1,0,p) + (-1,0,p) + (0,1,p) + (0,-1,p) &
<GOALS> 20 &
@P 0 3, 1 3, 2 3 &
@p 0 0, 1 0, 2 0 &
#K 0 &
#k 0 &
"""

LOAD_ALL = """async (urls) => Promise.all(urls.map((src) => new Promise((resolve) => {
    const image = new Image();
    image.onload = () => resolve(image.naturalWidth);
    image.onerror = () => resolve(-1);
    image.src = src;
    document.body.appendChild(image);
})))"""


def test_the_pieces_of_an_uploaded_sbg_game_load_as_svg_images_and_unknown_ones_fail(
    manager_url: str, page: Page
) -> None:
    added = api(manager_url, "api/games", {"key": "shapesTiny", "sbg": TINY})
    assert added["format"] == "sbg"
    page.goto(manager_url)
    urls = [f"/api/games/shapesTiny/pieces/{piece}-{owner}.svg" for piece in "pk" for owner in ("white", "black")]
    widths = page.evaluate(LOAD_ALL, urls)
    assert all(width > 0 for width in widths), dict(zip(urls, widths))
    failing = ["/api/games/shapesTiny/pieces/q-white.svg", "/api/games/ticTacToe/pieces/x-white.svg"]
    assert page.evaluate(LOAD_ALL, failing) == [-1, -1]
