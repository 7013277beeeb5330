"""Fixtures for the web UI tests: a live manager on a loopback port and the system Chromium.

The manager runs in a background thread with its own event loop, a temporary SQLite database, the
clingo reasoner, end reasons for SBG games (as ``ggp serve`` and ``ggp demo`` have) and three kinds
of built-in player: ``random`` (played by the manager itself),
``legal`` and ``slow`` (an in-process HTTP player that waits :data:`SLOW_MOVE_S` before each random
legal move, so a browser can watch a match move by move). Chromium is Debian's ``/usr/bin/chromium``
driven by Playwright; ``playwright install`` is never needed. Everything skips with a reason when
Playwright, Chromium or ``kif/ticTacToe`` is missing.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import shutil
import tempfile
import threading
import time
import urllib.request
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

import pytest

from ggp.player import Budget
from ggp.players.base import BasePlayer
from ggp.reasoner.machine import Move, State
from tests.conftest import KIF_DIR
from tests.prerequisites import missing, needs

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

CHROMIUM = Path("/usr/bin/chromium")
TIC_TAC_TOE = KIF_DIR / "ticTacToe" / "ticTacToe.kif"
ROCK_PAPER_SCISSORS = KIF_DIR / "rockPaperScissors" / "rockPaperScissors.kif"
SLOW_MOVE_S = 0.25
"""Seconds the ``slow`` player waits before each move: a 9-step tic-tac-toe match takes about 2 s."""
VIEWPORT: Final = {"width": 1200, "height": 800}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

_T = TypeVar("_T")


def missing_requirement() -> str:
    """Why the browser tests cannot run here, or '' when they can."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is not installed (apt-get install chromium; scripts/test.sh does this as root)"
    if not TIC_TAC_TOE.is_file():
        return f"{TIC_TAC_TOE} is missing"
    return ""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every browser test, with the reason, when a requirement is missing."""
    reason = missing_requirement()
    if not reason:
        return
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(needs(False, reason))


class ManagerThread:
    """The manager's web app served from a background thread; :meth:`call` runs a coroutine there."""

    def __init__(self, db: Path, token: str = "", suspend_after: int = 0) -> None:
        self.db = db
        self.token = token
        self.suspend_after = suspend_after
        self.url = ""
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="ggp-manager", daemon=True)
        self._server: Any = None

    def call(self, coroutine: Coroutine[Any, Any, _T], timeout: float = 60.0) -> _T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def start(self) -> None:
        self.thread.start()
        self.call(self._start())

    async def _start(self) -> None:
        from ggp.commands._end_reasons import SbgEndReasons
        from ggp.commands._manager_glue import board_fluents, game_translators, machine_factory
        from ggp.commands._manager_server import load_games, open_store, start_server
        from ggp.commands._piece_images import shape_cache
        from ggp.manager.launcher import AppLauncher
        from ggp.manager.service import Manager
        from ggp.manager.wiring import ManagerSettings
        from ggp.players.legal_player import LegalPlayer
        from ggp.protocol.server import create_player_app

        machines = machine_factory("clingo")
        launcher = AppLauncher({
            "legal": lambda: create_player_app(LegalPlayer, "legal", machine_factory=machines),
            "slow": lambda: create_player_app(lambda: SlowPlayer(seed=7), "slow", machine_factory=machines),
        })
        manager = Manager(open_store(str(self.db)), machines, launcher, ManagerSettings(suspend_after=self.suspend_after),
                          translators=game_translators(), fluent_domain=board_fluents,
                          piece_images=shape_cache(str(self.db)), end_reasons=SbgEndReasons())
        self._server = await start_server(manager, "127.0.0.1", 0, self.token)
        self.url = self._server.url
        await load_games(manager, [path for path in (TIC_TAC_TOE, ROCK_PAPER_SCISSORS) if path.is_file()])

    def stop(self) -> None:
        if self._server is not None:
            self.call(self._server.close())
        self.call(_cancel_leftovers())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


async def _cancel_leftovers() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class SlowPlayer(BasePlayer):
    """A random legal move after :data:`SLOW_MOVE_S` seconds (never past the budget)."""

    name = "slow"

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        left = budget.time_left()
        time.sleep(SLOW_MOVE_S if left is None else min(SLOW_MOVE_S, left))
        return self.rng.choice(legal)


@pytest.fixture(scope="package")
def manager_url() -> Iterator[str]:
    """URL (ending in '/') of a fresh manager with ticTacToe (and rockPaperScissors when present) and the
    random, legal and slow players."""
    if missing_requirement():
        missing(missing_requirement())
    tmp = Path(tempfile.mkdtemp(prefix="ggp-ui-"))
    server = ManagerThread(tmp / "manager.db")
    try:
        server.start()
        yield server.url
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def api(base: str, path: str, payload: object | None = None) -> Any:
    """GET (or POST ``payload`` as JSON to) the manager's API; returns the decoded JSON reply."""
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(base + path.lstrip("/"), data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def wait_finished(base: str, match_id: str, timeout: float = 30.0) -> dict[str, Any]:
    """The match record once the match is over (polling the API)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        record: dict[str, Any] = api(base, f"api/matches/{match_id}")
        if record.get("isCompleted") or record.get("isAborted"):
            return record
        time.sleep(0.1)
    raise AssertionError(f"match {match_id} did not finish in {timeout} s")


@pytest.fixture(scope="package")
def browser_context(manager_url: str) -> Iterator[BrowserContext]:
    """Headless system Chromium with a fresh profile directory, shared by tests/browser and closed after
    its last test (Playwright's sync API drives an event loop in this thread, which must be gone before
    any asyncio test runs)."""
    from playwright.sync_api import sync_playwright

    profile = Path(tempfile.mkdtemp(prefix="ggp-chromium-"))
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(profile), executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
                viewport={"width": VIEWPORT["width"], "height": VIEWPORT["height"]}, timeout=30_000)
            context.set_default_timeout(10_000)
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser_context: BrowserContext) -> Iterator[Page]:
    """A new tab; fails the test on any JavaScript error the page raised or any Content-Security-Policy
    violation it reported (the manager sends a strict policy)."""
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda message: errors.append(message.text) if "Content Security Policy" in message.text else None)
    try:
        yield tab
    finally:
        tab.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

