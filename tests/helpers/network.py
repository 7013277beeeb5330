"""Loopback helpers for tests that start servers in other processes."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def free_port_block(count: int) -> int:
    """The first of ``count`` consecutive TCP ports on 127.0.0.1 that were all free a moment ago, below
    Linux's ephemeral range (32768-60999), where the kernel's own outgoing connections never take one
    between this check and the caller's bind (a block of ports after :func:`free_port` did)."""
    import random

    rng = random.Random()
    for _ in range(200):
        first = rng.randrange(20_000, 32_000 - count)
        sockets = []
        try:
            for port in range(first, first + count):
                probe = socket.socket()
                sockets.append(probe)
                probe.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for probe in sockets:
                probe.close()
    raise AssertionError(f"no block of {count} free ports found")


def wait_listening(port: int, process: subprocess.Popen[bytes], log: Path, seconds: float = 30.0) -> None:
    """Wait until ``process`` accepts connections on ``port``; AssertionError (with the end of its log)
    when it exits first or does not listen within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listened on port {port} within {seconds:.0f} s")
