"""Starting the manager's web server for ``ggp serve`` and ``ggp demo``."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import signal
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from ggp.errors import InputError
from ggp.manager.app import create_app
from ggp.manager.service import Manager
from ggp.manager.store import Store
from ggp.protocol.server import IDLE_TIMEOUT_S, CappedSite

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, expose: bool, token: str) -> None:
    """Refuse to bind beyond loopback without ``--expose``, and to expose without an admin token."""
    if not is_loopback(host) and not expose:
        raise InputError(f"binding to {host!r} exposes the manager beyond this machine; add --expose --token T")
    if expose and len(token) < 8:
        raise InputError("--expose needs --token T (at least 8 characters) to guard admin actions")


@dataclass
class Running:
    """A started server: its URL and what to close."""

    url: str
    runner: web.AppRunner
    manager: Manager

    async def close(self) -> None:
        """Abort the running matches and stop the reasoner workers first (so no request waits on a busy
        one), then stop serving (open requests get ``SHUTDOWN_S``)."""
        await self.manager.close()
        await self.runner.cleanup()
        self.manager.store.close()


SHUTDOWN_S = 2.0
"""Seconds open requests (an event stream, an upload) get to finish when the server stops."""

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def allowed_hosts(host: str) -> frozenset[str]:
    """The Host headers a manager bound to ``host`` answers: on loopback, the loopback names and the
    bound address (so a DNS-rebinding page, which arrives under its own name, is refused); beyond
    loopback (``--expose``, where the admin token guards every action) any."""
    return LOOPBACK_NAMES | {host} if is_loopback(host) else frozenset()


async def start_server(manager: Manager, host: str, port: int, token: str) -> Running:
    """Serve ``manager`` on host:port (0 = any free port); returns the URL actually bound. A non-empty
    ``token`` is enforced whether or not the server is exposed."""
    runner = web.AppRunner(create_app(manager, token=token, allowed_hosts=allowed_hosts(host)), access_log=None,
                           keepalive_timeout=IDLE_TIMEOUT_S, shutdown_timeout=SHUTDOWN_S)
    await runner.setup()
    site = CappedSite(runner, host, port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound_host, bound_port = runner.addresses[0][:2]
    shown = f"[{bound_host}]" if ":" in str(bound_host) else bound_host
    return Running(f"http://{shown}:{bound_port}/", runner, manager)


async def load_games(manager: Manager, paths: list[Path]) -> list[str]:
    """Add games to the manager, skipping (with a warning) those it refuses; returns the keys added. A
    ``.sbg`` file is added as SBG (translated, its text kept for the piece shapes, and remembered in this
    process, whose built-in players then play it on the SBG engine), anything else as KIF."""
    from ggp.commands._games import add_sbg_source

    added = []
    for path in paths:
        game_format = "sbg" if path.suffix == ".sbg" else "kif"
        try:
            text = path.read_text(encoding="utf-8")
            row = await manager.add_game(path.stem, text, game_format=game_format)
            if game_format == "sbg":
                add_sbg_source(text, f"{path.stem}.sbg")
        except (InputError, OSError, UnicodeDecodeError) as exc:
            log.warning("game %s skipped: %s", path.stem, exc)
            continue
        added.append(row.key)
    return added


def stop_on_sigterm() -> None:
    """From now on SIGTERM cancels the current task, as Ctrl-C does (before :func:`wait_for_stop` takes
    over, e.g. while games load), so its ``finally`` clean-up runs instead of an abrupt exit."""
    task = asyncio.current_task()
    if task is not None:
        with contextlib.suppress(NotImplementedError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)


async def wait_for_stop() -> None:
    """Return on SIGTERM (Ctrl-C arrives as a cancellation from ``asyncio.run``)."""
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()


def how_to_stop() -> str:
    """How this process is stopped, for its banner: Ctrl-C, unless the shell started it with SIGINT
    ignored (a background job without job control, ``ggp serve &`` in a script), which it keeps."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return f"SIGTERM stops it (kill {os.getpid()}; it was started with Ctrl-C ignored)"
    return "Ctrl-C stops it"


def open_store(db: str) -> Store:
    store = Store(db)
    if store.recovered:
        log.warning("%d matches left running by a previous run were marked aborted", len(store.recovered))
    return store
