"""Benchmark: seconds from starting ``ggp demo`` (default options, a fresh temporary database) to the
line that prints its URL, the figure docs/manager.md quotes; then the demo is stopped with SIGINT.

Each run starts ``python -m ggp demo --port P`` in a child process (P counts up from ``--port``) and
reads its output until the URL appears. The load average is printed beside each run: on a shared
machine it decides most of the figure.

Usage: python benchmarks/demo_startup.py [--runs 3] [--port 9140]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def seconds_to_url(port: int, timeout: float = 300.0) -> float | None:
    """Seconds until ``ggp demo`` prints ``http://``, or None when it exits or ``timeout`` passes first."""
    start = time.monotonic()
    demo = subprocess.Popen([sys.executable, "-m", "ggp", "demo", "--port", str(port)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert demo.stdout is not None
    found: float | None = None
    try:
        for line in demo.stdout:
            if "http://" in line:
                found = time.monotonic() - start
                break
            if time.monotonic() - start > timeout:
                break
    finally:
        demo.send_signal(signal.SIGINT)
        try:
            demo.wait(timeout=60)
        except subprocess.TimeoutExpired:
            demo.kill()
            demo.wait()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=9140, help="first port; run K uses port + K")
    args = parser.parse_args()
    for run in range(args.runs):
        seconds = seconds_to_url(args.port + run)
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
        shown = "no URL" if seconds is None else f"URL after {seconds:.1f} s"
        print(f"run {run + 1}: {shown} (load average {load})", flush=True)


if __name__ == "__main__":
    main()
