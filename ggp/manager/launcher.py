"""Built-in players as in-process HTTP players on loopback ports.

The manager reaches every player over HTTP, built-in ones included: for each seat a built-in player
holds, :class:`AppLauncher` starts a fresh player app (one match per player app, as the protocol
expects) on ``127.0.0.1`` with a free port, and stops it when the match ends. Which apps exist is
decided by the CLI, which wires the concrete player classes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from aiohttp import web

from ggp.errors import InputError
from ggp.protocol import server

PlayerAppFactory = Callable[[], web.Application]
"""Builds a new player app (``POST /`` speaking the GGP protocol) for one match."""


@dataclass(frozen=True, slots=True)
class LaunchedPlayer:
    """A running built-in player: its URL and the runner that stops it."""

    url: str
    runner: web.AppRunner

    async def close(self) -> None:
        await self.runner.cleanup()


class PlayerLauncher(Protocol):
    """Starts built-in players by type name."""

    def kinds(self) -> tuple[str, ...]: ...

    async def launch(self, kind: str) -> LaunchedPlayer: ...


class AppLauncher:
    """A :class:`PlayerLauncher` over a mapping of type name -> player app factory."""

    def __init__(self, factories: Mapping[str, PlayerAppFactory]) -> None:
        self._factories = dict(factories)

    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted(self._factories))

    async def launch(self, kind: str) -> LaunchedPlayer:
        """Start one player app of type ``kind``; raises :class:`InputError` for an unknown type."""
        factory = self._factories.get(kind)
        if factory is None:
            raise InputError(f"unknown built-in player {kind!r}; expected one of {list(self.kinds())}")
        runner = web.AppRunner(factory(), access_log=None, keepalive_timeout=server.IDLE_TIMEOUT_S)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        return LaunchedPlayer(f"http://{host}:{port}/", runner)
