"""Shared pieces of the benchmarks hosted by ggp-base's GameServer (``../shared/peer/run RunMatch``).

Player processes on free loopback ports (:func:`serving`, each in its own process group so that a
player's workers end with it), our ``ggp player`` command line (:func:`our_player`), and one match on
ggp-base's host (:func:`play_match`: its match JSON with ``goalValues``, ``errors``, ``moves``).
Used by benchmarks/strength_ggp_base.py and benchmarks/vs_sancho.py. ``../shared`` is found beside
the checkout, or where ``GGP_SHARED`` says (as the tests find it).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GGP_SHARED", ROOT.parent / "shared"))
PEER = SHARED / "peer" / "run"
CORPUS = SHARED / "gdl-corpus"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the kernel's pick)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_listening(port: int, process: subprocess.Popen[bytes], what: str) -> None:
    """Return once ``port`` accepts connections; SystemExit when ``process`` ends first or after 60 s."""
    for _ in range(600):
        if process.poll() is not None:
            raise SystemExit(f"{what} exited before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{what} did not start listening on port {port}")


@contextmanager
def serving(command: Callable[[int], list[str]], log: Path, what: str,
            env: dict[str, str] | None = None, cwd: Path | None = None) -> Iterator[str]:
    """Run a player process (``command(port)``, in ``cwd``) until the block ends; yields its ``host:port``.
    The process leads a new session, and the whole group is killed at the end."""
    port = free_port()
    with log.open("ab") as sink:
        process = subprocess.Popen(command(port), stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
                                   env=env, cwd=cwd)
    try:
        wait_listening(port, process, what)
        yield f"127.0.0.1:{port}"
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def our_player(spec: str, port: int, cpus: str | None = None) -> list[str]:
    """``ggp player SPEC`` on ``port`` (engine ``auto``), logging the match lifecycle (INFO: the engine
    chosen); pinned to the CPUs ``cpus`` (``taskset -c``) when given."""
    pin = ["taskset", "-c", cpus] if cpus else []
    return [*pin, sys.executable, "-m", "ggp", "player", spec, "--name", "ours", "--port", str(port), "-v"]


def roles_of(kif: Path) -> int:
    """The number of roles of a game file."""
    from ggp.files import load_kif

    return len(load_kif(kif).roles)


def play_match(kif: Path, seats: list[str], startclock: int, playclock: int) -> dict[str, object]:
    """One match on ggp-base's GameServer; its match JSON (``goalValues``, ``errors``, ``moves``), or
    ``{"failed": the end of its stderr}`` when the host did not complete it."""
    budget = startclock + 400 * (playclock + 2) + 60
    try:
        done = subprocess.run([str(PEER), "RunMatch", str(kif), str(startclock), str(playclock), *seats],
                              capture_output=True, text=True, timeout=budget)
    except subprocess.TimeoutExpired:
        return {"failed": f"the host took over {budget} s"}
    if done.returncode != 0:
        return {"failed": done.stderr[-500:]}
    record: dict[str, object] = json.loads(done.stdout)
    return record
