"""Run one function in a fresh Python process under a time and memory limit: the single mechanism behind
every grounding probe (the clingo engine's domain and main phases, the per-state engine's static model).

Why a plain ``python -c`` child rather than :mod:`multiprocessing`: a ``spawn`` or ``forkserver`` child
re-imports the caller's ``__main__`` module, so a user's script without an ``if __name__ ==
"__main__"`` guard would run again inside the grounder (and start another grounder, and so on); ``fork``
copies a process that may hold threads (aiohttp, clingo) and locks. This child imports only the
function's module. The job (function, arguments, limits and the caller's ``sys.path``) goes to the child
on stdin as a pickle; the child answers with length-prefixed pickled frames on stdout: any number of
progress messages (see ``report`` below), then the result or an error text.

>>> run_isolated(_double, (21,), seconds=60, memory_mb=512)
42
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from ggp.errors import GgpError, ReasonerError

_HEADER = struct.Struct("!Q")

_BOOTSTRAP = "import ggp.reasoner.isolation as m; m._child_main()"


class IsolationError(GgpError):
    """The child did not return a result: ``kind`` is ``timeout``, ``died`` or ``failed``.

    ``detail`` is the child's error text for ``failed``, the exit status for ``died``. Callers wrap it in
    an error that names their phase.
    """

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


Report = Callable[[object], None]


def grounding_error(file: str, phase: str, exc: IsolationError, seconds: float, memory_mb: int) -> ReasonerError:
    """The one-line error for a grounding phase whose isolated child gave no result."""
    if exc.kind == "timeout":
        return ReasonerError(f"{file}: grounding phase '{phase}' exceeded the time limit of {seconds:g} s")
    if exc.kind == "died":
        return ReasonerError(
            f"{file}: grounding phase '{phase}' failed (the grounder process died, likely over the {memory_mb} MB "
            "memory limit)"
        )
    message = exc.detail if exc.detail.startswith(file) else f"{file}: {exc.detail}"
    return ReasonerError(f"{message} (grounding phase '{phase}')")


def run_isolated(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    *,
    seconds: float,
    memory_mb: int,
    on_report: Report | None = None,
) -> Any:
    """``function(*args)`` in a child process, or :class:`IsolationError`.

    ``function`` must be a module-level function (it is imported by name in the child). If it takes a
    keyword argument ``report``, it gets a callable whose messages reach ``on_report`` here as they are
    sent (the grounder reports the phase it enters). The child's address space is limited to
    ``memory_mb`` MB (where the platform has ``RLIMIT_AS``) and it is killed after ``seconds``.
    """
    job = pickle.dumps((function.__module__, function.__qualname__, args, memory_mb, list(sys.path)))
    process = subprocess.Popen(
        [sys.executable, "-c", _BOOTSTRAP],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert process.stdin is not None and process.stdout is not None
    deadline = time.monotonic() + seconds
    try:
        try:
            process.stdin.write(job)
            process.stdin.close()
        except BrokenPipeError:
            raise IsolationError("died", f"exit status {process.wait()}") from None
        reader = _FrameReader(process.stdout)
        while True:
            frame = reader.next_frame(deadline)
            if frame is None:
                status = process.wait()
                raise IsolationError("died", f"exit status {status}")
            kind, payload = frame
            if kind == "report":
                if on_report is not None:
                    on_report(payload)
            elif kind == "done":
                return payload
            else:
                raise IsolationError("failed", str(payload))
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(5)
        process.stdout.close()


class _FrameReader:
    """Reads the child's frames with a deadline (select on the pipe, so a silent child cannot block us)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._fd = stream.fileno()
        self._buffer = b""

    def _fill(self, size: int, deadline: float) -> bool:
        while len(self._buffer) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise IsolationError("timeout", "time limit reached")
            ready, _, _ = select.select([self._fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._fd, 1 << 20)
            if not chunk:
                return False
            self._buffer += chunk
        return True

    def next_frame(self, deadline: float) -> tuple[str, object] | None:
        """The next (kind, payload), or None at the end of the stream."""
        if not self._fill(_HEADER.size, deadline):
            return None
        (size,) = _HEADER.unpack(self._buffer[: _HEADER.size])
        if not self._fill(_HEADER.size + size, deadline):
            return None
        data = self._buffer[_HEADER.size : _HEADER.size + size]
        self._buffer = self._buffer[_HEADER.size + size :]
        kind, payload = pickle.loads(data)
        return str(kind), payload


def _send(stream: IO[bytes], kind: str, payload: object) -> None:
    data = pickle.dumps((kind, payload))
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _child_main() -> None:
    """The child: read the job, limit memory, run it, send frames."""
    import importlib
    import inspect

    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints must not corrupt the frames
    module_name, qualname, args, memory_mb, path = pickle.loads(sys.stdin.buffer.read())
    sys.path[:] = path
    try:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # pragma: no cover - a platform without rlimits
        pass
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
        kwargs: dict[str, Any] = {}
        if "report" in inspect.signature(target).parameters:
            kwargs["report"] = lambda message: _send(out, "report", message)
        result = target(*args, **kwargs)
    except MemoryError:
        _send(out, "error", f"ran out of the {memory_mb} MB memory limit")
    except GgpError as exc:
        _send(out, "error", str(exc))
    except Exception as exc:
        _send(out, "error", f"{type(exc).__name__}: {exc}")
    else:
        _send(out, "done", result)


def _double(value: int) -> int:
    """The doctest's job."""
    return 2 * value
