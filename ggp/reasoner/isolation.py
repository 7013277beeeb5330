"""Run functions in a child Python process under a time and memory limit: the single mechanism behind
every grounding probe (the clingo engine's domain and main phases, the per-state engine's static model)
and behind the manager's reasoner workers.

Two ways to use it: :func:`run_isolated` runs one function in a fresh child and waits (blocking);
:class:`Worker` keeps one child alive and runs one call after another in it from asyncio, each call
with its own time limit, so a long-lived object (a grounded game) stays in the child between calls
while the event loop stays free. Both share the bootstrap, the frames and the memory limit below.

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

import asyncio
import contextlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import IO, Any

from ggp.errors import GgpError, ReasonerError

_HEADER = struct.Struct("!Q")

_BOOTSTRAP = "import ggp.reasoner.isolation as m; m._child_main()"
_SERVE_BOOTSTRAP = "import ggp.reasoner.isolation as m; m._serve_main()"


class IsolationError(GgpError):
    """The child did not return a result: ``kind`` is ``timeout``, ``cpu`` (:func:`run_isolated`'s CPU time
    limit), ``died``, ``memory``, ``failed`` or ``stopped`` (a :class:`Worker` that was killed before this call).

    ``detail`` is the child's error text for ``failed`` and ``memory``, the exit status for ``died``.
    Callers wrap it in an error that names their phase.
    """

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


Report = Callable[[object], None]


def limit_message(what: str, phase: str, exc: IsolationError, seconds: float, memory_mb: int) -> str:
    """The one-line reason a :class:`Worker` call gave no result: ``what: phase exceeded ...``."""
    if exc.kind == "timeout":
        return f"{what}: {phase} exceeded the time limit of {seconds:g} s"
    if exc.kind == "memory":
        return f"{what}: {phase} exceeded the memory limit of {memory_mb} MB"
    if exc.kind == "stopped":
        return f"{what}: {phase} was stopped with its worker"
    return (f"{what}: {phase} failed: the worker process died, likely over the {memory_mb} MB "
            f"memory limit ({exc.detail})")


def grounding_error(file: str, phase: str, exc: IsolationError, seconds: float, memory_mb: int) -> ReasonerError:
    """The one-line error for a grounding phase whose isolated child gave no result."""
    if exc.kind == "timeout":
        return ReasonerError(f"{file}: grounding phase '{phase}' exceeded the time limit of {seconds:g} s")
    if exc.kind == "died":
        return ReasonerError(
            f"{file}: grounding phase '{phase}' failed (the grounder process died, likely over the {memory_mb} MB "
            f"memory limit; {exc.detail})"
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
    cpu_seconds: float | None = None,
) -> Any:
    """``function(*args)`` in a child process, or :class:`IsolationError`.

    ``function`` must be a module-level function (it is imported by name in the child). If it takes a
    keyword argument ``report``, it gets a callable whose messages reach ``on_report`` here as they are
    sent (the grounder reports the phase it enters). The child's address space is limited to
    ``memory_mb`` MB (where the platform has ``RLIMIT_AS``) and it is killed after ``seconds``. With
    ``cpu_seconds``, the kernel also stops the child once its work (imports not counted) has taken that
    much CPU time (``RLIMIT_CPU``): the error's kind is then ``cpu``, whatever the load on the machine.
    """
    job = pickle.dumps((list(sys.path), function.__module__, function.__qualname__, pickle.dumps(args), memory_mb,
                        cpu_seconds))
    with tempfile.TemporaryFile() as errors:
        return _run(job, errors, time.monotonic() + seconds, on_report)


def _run(job: bytes, errors: IO[bytes], deadline: float, on_report: Report | None) -> Any:
    process = subprocess.Popen(
        [sys.executable, "-c", _BOOTSTRAP],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        try:
            process.stdin.write(job)
            process.stdin.close()
        except BrokenPipeError:
            raise IsolationError("died", _death(process.wait(), errors)) from None
        reader = _FrameReader(process.stdout)
        while True:
            frame = reader.next_frame(deadline)
            if frame is None:
                status = process.wait()
                if status == -signal.SIGXCPU:
                    raise IsolationError("cpu", "stopped at its CPU time limit")
                raise IsolationError("died", _death(status, errors))
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


def _death(status: int, errors: IO[bytes]) -> str:
    """The exit status and the child's last line on stderr (a crash's reason), if any."""
    errors.seek(0)
    lines = errors.read()[-4000:].decode("utf-8", "replace").strip().splitlines()
    return f"exit status {status}" + (f": {lines[-1]}" if lines else "")


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
    path, module_name, qualname, packed_args, memory_mb, cpu_seconds = pickle.loads(sys.stdin.buffer.read())
    _exit_with_parent()
    sys.path[:] = path
    try:
        # Imports first, the memory limit after: it bounds the work, not loading the libraries.
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
        args = pickle.loads(packed_args)
        kwargs: dict[str, Any] = {}
        if "report" in inspect.signature(target).parameters:
            kwargs["report"] = lambda message: _send(out, "report", message)
        memory_mb = _limit_memory(memory_mb)
        if cpu_seconds is not None:
            _limit_cpu(cpu_seconds)
        result = target(*args, **kwargs)
    except MemoryError:
        _send(out, "error", f"ran out of the {memory_mb} MB memory limit")
    except GgpError as exc:
        _send(out, "error", str(exc))
    except Exception as exc:
        _send(out, "error", f"{type(exc).__name__}: {exc}")
    else:
        _send(out, "done", result)


def _limit_cpu(cpu_seconds: float) -> None:
    """Have the kernel stop this process (``SIGXCPU``) after ``cpu_seconds`` more seconds of CPU time, and
    kill it a second later should it go on; no core file is written."""
    import math
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + cpu_seconds)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))


def _limit_memory(memory_mb: int) -> int:
    """Limit this process's address space to ``memory_mb`` MB, or to the lower limit it inherited (a
    grounding probe inside a player's or the manager's worker); the limit in force, in MB."""
    try:
        import resource

        limit = memory_mb * 1024 * 1024
        _, inherited = resource.getrlimit(resource.RLIMIT_AS)
        if inherited != resource.RLIM_INFINITY and inherited < limit:
            limit = inherited
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        return limit // (1024 * 1024)
    except (ImportError, ValueError, OSError):  # pragma: no cover - a platform without rlimits
        return memory_mb


class Worker:
    """One long-lived child process (address space limited to ``memory_mb`` MB) that runs module-level
    functions one call at a time, for asyncio callers.

    Functions run in the child's own module globals, so a function may keep what it builds (a grounded
    game) for later calls. :meth:`call` raises :class:`IsolationError`: ``timeout`` (the child is
    killed), ``memory`` (it ran out of its limit; killed), ``died`` or ``failed`` (the function raised:
    the child lives on). After a kill, :attr:`alive` is false and a new :class:`Worker` is needed.
    Call :meth:`close` when done.
    """

    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self._process: asyncio.subprocess.Process | None = None
        self._errors: IO[bytes] | None = None
        self._lock = asyncio.Lock()
        self._dead = False

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def alive(self) -> bool:
        return not self._dead and (self._process is None or self._process.returncode is None)

    @property
    def busy(self) -> bool:
        """True while a call runs (or waits to run) in the child."""
        return self._lock.locked()

    async def _ensure_started(self) -> asyncio.subprocess.Process:
        if self._process is None:
            self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - kept open for the child's lifetime, closed in close()
            # Its own process group: killing the worker kills what it started too (a grounding probe of
            # run_isolated), which would otherwise go on grounding, orphaned, until its own limits.
            self._process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", _SERVE_BOOTSTRAP, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._errors, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, start_new_session=True)
            self._write(self._process, pickle.dumps((list(sys.path), self.memory_mb)))
        return self._process

    @staticmethod
    def _write(process: asyncio.subprocess.Process, data: bytes) -> None:
        assert process.stdin is not None
        process.stdin.write(_HEADER.pack(len(data)) + data)

    async def call(self, function: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Any:
        """``function(*args)`` in the child within ``seconds`` (waiting for earlier calls not counted).

        A caller that is cancelled stops waiting, but the call itself runs to its end (or its time
        limit) in the background, so the next caller never reads this call's answer.
        """
        task = asyncio.ensure_future(self._call(function, args, seconds))
        task.add_done_callback(_forget)
        return await asyncio.shield(task)

    async def _call(self, function: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Any:
        async with self._lock:
            if not self.alive:
                raise IsolationError("stopped", "the worker was stopped")
            process = await self._ensure_started()
            assert process.stdout is not None
            request = (function.__module__, function.__qualname__, args)
            try:
                # Rules are pickled in a thread: a START of 1 MiB of rules took 13 s to pickle, which on
                # the event loop made the server deaf (benchmarks/hostile.py, attack 2).
                data = await asyncio.to_thread(pickle.dumps, request) if _carries_rules(args) else pickle.dumps(request)
                self._write(process, data)
                frame = await asyncio.wait_for(self._read_frame(process.stdout), seconds)
            except TimeoutError:
                self.kill()
                raise IsolationError("timeout", f"time limit of {seconds:g} s reached") from None
            except (ConnectionError, asyncio.IncompleteReadError):
                frame = None
            if frame is None:
                self._dead = True
                status = await process.wait()
                if self._errors is None:  # closed meanwhile (shutdown)
                    raise IsolationError("stopped", "the worker was stopped")
                raise IsolationError("died", _death(status, self._errors))
            kind, payload = frame
            if kind == "done":
                return payload
            if kind == "memory":
                self.kill()
                raise IsolationError("memory", str(payload))
            raise IsolationError("failed", str(payload))

    @staticmethod
    async def _read_frame(stream: asyncio.StreamReader) -> tuple[str, object] | None:
        header = await stream.readexactly(_HEADER.size)
        (size,) = _HEADER.unpack(header)
        kind, payload = pickle.loads(await stream.readexactly(size))
        return str(kind), payload

    def memory_bytes(self) -> int | None:
        """The child's resident memory now (Linux ``/proc``), or ``None`` where it cannot be read."""
        pid = self.pid
        if pid is None or not self.alive:
            return None
        try:
            with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
                return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            return None

    def kill(self) -> None:
        """Stop the child and every process it started now (SIGKILL); the worker is dead afterwards."""
        self._dead = True
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):  # it just exited
                os.killpg(self._process.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()

    async def close(self) -> None:
        """Kill the child and reap it."""
        self.kill()
        if self._process is not None:
            await self._process.wait()
            if self._process.stdin is not None:
                self._process.stdin.close()
        if self._errors is not None:
            self._errors.close()
            self._errors = None


def _exit_with_parent() -> None:
    """Exit when the parent is gone (killed with -9, say), even in the middle of a long call: an
    orphaned worker would otherwise go on grounding a heavy game for nobody. A process that leads its
    own process group (a :class:`Worker`'s child) takes the processes it started along."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                if os.getpgrp() == os.getpid():
                    os.killpg(os.getpid(), signal.SIGKILL)
                os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _forget(task: asyncio.Future[Any]) -> None:
    """Done-callback: a call whose caller was cancelled has nobody to read its error; mark it read."""
    if not task.cancelled():
        task.exception()


def _serve_main() -> None:
    """A :class:`Worker`'s child: read (path, limit), then run one framed call after another."""
    import importlib

    out = sys.stdout.buffer
    source = sys.stdin.buffer
    sys.stdout = sys.stderr

    def read_frame() -> Any:
        header = source.read(_HEADER.size)
        if len(header) < _HEADER.size:
            raise SystemExit(0)  # the parent closed the pipe
        (size,) = _HEADER.unpack(header)
        return pickle.loads(source.read(size))

    path, memory_mb = read_frame()
    sys.path[:] = path
    _exit_with_parent()
    memory_mb = _limit_memory(memory_mb)
    while True:
        module_name, qualname, args = read_frame()
        try:
            target: Any = importlib.import_module(module_name)
            for part in qualname.split("."):
                target = getattr(target, part)
            result = target(*args)
        except Exception as exc:
            detail = failure_text(exc)
            if detail is None:
                _send(out, "memory", f"ran out of the {memory_mb} MB memory limit")
                raise SystemExit(1) from None  # what ran out may have left half-built state behind
            _send(out, "error", detail)
        else:
            _send(out, "done", result)


def failure_text(exc: Exception) -> str | None:
    """The error text a :class:`Worker` call that raised ``exc`` fails with (:class:`IsolationError`
    ``failed``), or ``None`` when ``exc`` means the child ran out of memory (the call fails with
    ``memory`` and the child stops: what ran out may have left half-built state behind).

    A function running in a worker that answers several questions in one call uses it to keep each
    question's error text exactly as a call asking that question alone would have had it.

    >>> failure_text(ReasonerError("no goal value")), failure_text(KeyError("x")), failure_text(MemoryError())
    ('no goal value', "KeyError: 'x'", None)
    """
    if isinstance(exc, MemoryError):
        return None
    if isinstance(exc, GgpError):
        return None if "bad_alloc" in str(exc) else str(exc)  # clingo's C++ allocation failure, wrapped
    if isinstance(exc, RecursionError):
        return "the rules recurse too deeply"
    if "bad_alloc" in str(exc):
        return None
    return f"{type(exc).__name__}: {exc}"


def _double(value: int) -> int:
    """The doctest's job."""
    return 2 * value


def _carries_rules(args: tuple[Any, ...], depth: int = 3) -> bool:
    """True when a call's arguments (or tuples among them, ``depth`` levels down) hold a game's rules (a
    :class:`~ggp.gdl.terms.Description`, or text over 64 KiB): pickling them may take seconds, so
    :meth:`Worker.call` does it off the event loop.

    >>> from ggp.gdl.parser import parse_kif
    >>> _carries_rules(("start", ("m1", parse_kif("(role a)")), 20)), _carries_rules(("choose", (False, 1.0)))
    (True, False)
    """
    from ggp.gdl.terms import Description

    return any(isinstance(arg, Description) or (isinstance(arg, str | bytes) and len(arg) > 65536)
               or (depth > 1 and isinstance(arg, tuple) and _carries_rules(arg, depth - 1)) for arg in args)
