"""Fixtures for the manager's tests: an in-memory manager over pure-Python games."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from ggp.manager.runner import Deadlines, HttpTransport
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.manager.wiring import ManagerSettings
from tests.helpers.manager_machines import machine_for_description

FAST = Deadlines(start_s=0.5, play_s=0.3, stop_s=0.3, abort_s=0.3, connect_s=0.3)


@pytest.fixture
async def manager() -> AsyncIterator[Manager]:
    store = Store(":memory:")
    manager = Manager(store, machine_for_description, settings=ManagerSettings(deadlines=FAST, suspend_after=2))
    yield manager
    await manager.close()
    store.close()


@pytest.fixture
async def transport() -> AsyncIterator[HttpTransport]:
    """One HTTP transport for a test's matches against fake players."""
    async with HttpTransport() as http:
        yield http
