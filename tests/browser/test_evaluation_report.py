"""The evaluation report in Chromium: the comparison view of several SBG games, screenshot and checked.

The screenshot is saved in pytest's temporary directory (``.../evaluation-report0/comparison.png``) and
checked: a PNG of the comparison section holding both plots, with many colours (a heat map, not a blank).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ggp.cli import main
from tests.conftest import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GAMES = ("gardner", "petty", "six_demo")


@pytest.mark.timeout(240)
def test_the_report_of_several_sbg_games_shows_the_comparison_view(
    page: Page, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from PIL import Image

    out = tmp_path_factory.mktemp("evaluation-report")
    argv = ["evaluate", *(str(ROOT / "games" / f"{name}.sbg") for name in GAMES), "--matches", "1",
            "--players", "random;mcts:iterations=5", "--metrics", "ludii", "--estimate-playouts", "2",
            "--out", str(out)]
    assert main(argv) == 0
    page.goto((out / "report.html").as_uri())
    section = page.locator("#comparison")
    images = section.locator("img")
    assert images.count() == 2
    for index in range(2):  # both plots loaded (a broken image has no natural width)
        assert images.nth(index).evaluate("img => img.naturalWidth") > 300
    shot = Path(out) / "comparison.png"
    section.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == PNG_SIGNATURE
    with Image.open(shot) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) >= 50, f"{shot} looks blank"
    # Each game's metrics (Ludii's and the Ludi criteria, each once) are tabled in Ludii's groups, shown open.
    summaries = page.locator("details summary", has_text="Metrics (")
    assert summaries.count() == len(GAMES)
    assert page.locator("th.group", has_text="outcome").first.is_visible()
