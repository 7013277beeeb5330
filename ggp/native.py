"""Compile C with the system compiler into a shared library, cached by source: compiled circuits
(:mod:`ggp.reasoner.circuit`) and the SBG min-max search (:mod:`ggp.translators.sbg.native`).

The cache lives in ``$XDG_CACHE_HOME/ggp/circuits`` (default ``~/.cache/ggp/circuits``); an entry is
named by the SHA-256 of the C source (which is a function of the rules), the compiler's version line
and the flags.

- **One build per entry.** A per-entry file lock (filelock) makes concurrent processes that miss the
  same entry wait for the first one's build instead of compiling it again; files are written under a
  temporary name and renamed, so nobody ever sees half a library.
- **Private.** The directory is created (and kept) with mode 0700: a shared library is code this
  process runs, so nobody else may be able to write it.
- **Checksum.** Each library has a ``.sha256`` file with the checksum of its bytes. It detects a
  truncated or damaged entry (a crash or a full disk while writing, a bad copy), which is then rebuilt.
  It is *not* a defence against tampering: whoever can write the library can write its checksum too;
  the 0700 permission is what keeps others out.
- **Bounded.** After a build, the least recently used entries are removed until the cache holds at
  most ``$GGP_CIRCUIT_CACHE_MB`` megabytes (default 1024); loading an entry marks it used.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import logging
import os
import platform
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from filelock import FileLock, Timeout

from ggp.errors import ReasonerError

log = logging.getLogger(__name__)

FLAGS = ("-O2", "-shared", "-fPIC")
"""Flags for circuits of ordinary size."""
UNOPTIMISED_FLAGS = ("-O0", "-shared", "-fPIC")
"""Flags for very large circuits: the optimiser takes many minutes on a straight-line function of
100,000+ literals (8x8 chess: over 600 s at -O2 and -O1), while -O0 builds it in seconds and still runs
2-3x faster than the interpreter."""


@functools.cache
def native_flags() -> tuple[str, ...]:
    """Flags that tune code for this machine's CPU: ``-march=native`` on x86-64 (compiled circuits run
    about 20% faster on breakthrough) plus ``-DGGP_CPU=<tag>``, a digest of the CPU's model and feature
    flags that puts the CPU into the cache key, so a cache shared with machines of another CPU never
    loads a library they cannot run; none elsewhere."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return ()
    try:
        lines = Path("/proc/cpuinfo").read_text(errors="replace").splitlines()
        described = [line for line in lines if line.startswith(("model name", "flags"))][:2]
    except OSError:
        described = []
    text = "\n".join(described) or platform.processor()
    return ("-march=native", f"-DGGP_CPU={hashlib.sha256(text.encode()).hexdigest()[:12]}")


DEFAULT_CACHE_MB = 1024
LOCK_TIMEOUT_S = 900.0
"""How long a process waits for another one's build of the same entry (big circuits take minutes)."""


def cache_dir() -> Path:
    """The directory holding compiled circuits (not created here)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ggp" / "circuits"


@functools.lru_cache(maxsize=8)
def _compiler_version(compiler: str) -> str | None:
    try:
        result = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    return result.stdout.splitlines()[0].strip() if result.stdout else compiler


def find_compiler() -> tuple[str, str] | None:
    """(path, version line) of the C compiler to use: ``$CC``, else cc, gcc or clang; None if none works."""
    names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path is None:
            continue
        version = _compiler_version(path)
        if version is not None:
            return path, version
    return None


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _try_load(library: Path, checksum: Path) -> ctypes.CDLL | None:
    if not library.is_file() or not checksum.is_file():
        return None
    try:
        if checksum.read_text().strip() != _digest(library):
            log.warning("circuit cache entry %s is corrupt (checksum mismatch); rebuilding", library.name)
            return None
        loaded = ctypes.CDLL(str(library))
    except OSError as exc:
        log.warning("circuit cache entry %s failed to load (%s); rebuilding", library.name, exc)
        return None
    _touch(library)
    return loaded


def _touch(path: Path) -> None:
    """Mark an entry used now (its modification time orders the eviction)."""
    with contextlib.suppress(OSError):  # removed meanwhile
        os.utime(path)


def private_dir(directory: Path) -> Path:
    """Create ``directory`` with mode 0700, or narrow an existing one we own to 0700."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    mode = directory.stat().st_mode & 0o777
    if mode != 0o700:
        try:
            directory.chmod(0o700)
        except OSError as exc:
            raise ReasonerError(
                f"the circuit cache {directory} is not private (mode {mode:o}) and cannot be made so: {exc}"
            ) from exc
    return directory


def cache_limit_bytes() -> int:
    """The cache's size cap from ``$GGP_CIRCUIT_CACHE_MB`` (default 1024 MB)."""
    text = os.environ.get("GGP_CIRCUIT_CACHE_MB", "")
    try:
        megabytes = int(text) if text else DEFAULT_CACHE_MB
    except ValueError:
        raise ReasonerError(f"GGP_CIRCUIT_CACHE_MB must be a whole number of megabytes, not {text!r}") from None
    return max(0, megabytes) * 1024 * 1024


def evict(directory: Path, limit: int, keep: Path | None = None) -> list[Path]:
    """Remove the least recently used libraries (with their checksum and lock files) until the cache
    holds at most ``limit`` bytes; never ``keep``. Also removes build folders left by killed builders
    (older than an hour). Returns the libraries removed."""
    now = time.time()
    for stale in directory.glob("build-*"):
        try:
            if now - stale.stat().st_mtime > 3600:
                shutil.rmtree(stale, ignore_errors=True)
        except OSError:  # pragma: no cover - removed meanwhile
            pass
    entries = []
    for library in directory.glob("circuit-*.so"):
        try:
            info = library.stat()
        except OSError:  # pragma: no cover - removed meanwhile
            continue
        entries.append((info.st_mtime, info.st_size, library))
    total = sum(size for _, size, _ in entries)
    removed = []
    for _, size, library in sorted(entries):
        if total <= limit:
            break
        if keep is not None and library == keep:
            continue
        for path in (library, library.with_suffix(".sha256"), library.with_suffix(".lock")):
            path.unlink(missing_ok=True)
        total -= size
        removed.append(library)
    if removed:
        log.info("circuit cache: removed %d least recently used entries to stay under %d MB", len(removed), limit >> 20)
    return removed


def load_library(
    source: str,
    compiler: tuple[str, str],
    directory: Path | None = None,
    flags: Sequence[str] = FLAGS,
    include_dirs: Sequence[Path] = (),
) -> tuple[ctypes.CDLL, Path, bool]:
    """Load the compiled ``source`` from the cache or compile it; returns (library, path, was_cached).

    ``flags`` are the compiler's flags; ``include_dirs`` the folders of the C files that ``source``
    includes (``-I``). The flags, :func:`sanitizer_flags` and every ``.c``/``.h`` file of those folders are
    part of the cache key. Concurrent callers that miss the same entry compile it once (the others wait
    on its lock and load the result).

    Raises :class:`ReasonerError` when the compiler fails.
    """
    path, version = compiler
    directory = private_dir(directory or cache_dir())
    library, checksum = _entry(source, version, directory, flags, include_dirs)
    key = library.stem.removeprefix("circuit-")
    flags = (*flags, *sanitizer_flags(), *(f"-I{folder}" for folder in include_dirs))  # where: no part of the key
    loaded = _try_load(library, checksum)
    if loaded is not None:
        return loaded, library, True
    try:
        with FileLock(str(directory / f"circuit-{key}.lock"), timeout=LOCK_TIMEOUT_S):
            loaded = _try_load(library, checksum)  # built by another process while we waited
            if loaded is not None:
                return loaded, library, True
            _compile(source, path, version, flags, directory, library, checksum)
    except Timeout:
        raise ReasonerError(f"waited {LOCK_TIMEOUT_S:g} s for another process to build {library.name}") from None
    evict(directory, cache_limit_bytes(), keep=library)
    try:
        return ctypes.CDLL(str(library)), library, False
    except OSError as exc:
        raise ReasonerError(f"cannot load the compiled circuit {library}: {exc}") from exc


def is_cached(
    source: str,
    compiler: tuple[str, str],
    directory: Path | None = None,
    flags: Sequence[str] = FLAGS,
    include_dirs: Sequence[Path] = (),
) -> bool:
    """True when :func:`load_library` with these arguments would load a library built earlier instead of
    compiling (a caller that can play on something else meanwhile asks this before it waits for a compiler)."""
    library, checksum = _entry(source, compiler[1], directory or cache_dir(), flags, include_dirs)
    return library.is_file() and checksum.is_file()


def _entry(
    source: str, version: str, directory: Path, flags: Sequence[str], include_dirs: Sequence[Path]
) -> tuple[Path, Path]:
    """The cache entry (library, checksum) of ``source`` built by compiler ``version`` with ``flags``: the key is
    the source, the compiler, the flags with :func:`sanitizer_flags` and every C file of ``include_dirs``."""
    parts = [source, version, *flags, *sanitizer_flags(), *_included_sources(include_dirs)]
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]
    return directory / f"circuit-{key}.so", directory / f"circuit-{key}.sha256"


def _included_sources(include_dirs: Sequence[Path]) -> list[str]:
    """Name and text of every C file in the include folders, in a fixed order (for the cache key)."""
    texts = []
    for folder in include_dirs:
        for file in sorted([*folder.glob("*.c"), *folder.glob("*.h")]):
            texts += [file.name, file.read_text()]
    return texts


def sanitizer_flags() -> tuple[str, ...]:
    """AddressSanitizer and UndefinedBehaviorSanitizer flags when ``$GGP_C_SANITIZE`` is 1, else none.

    For the C tests run once under the sanitizers (``scripts/check_c.sh``): every library is then built
    with them and stops at the first error; the Python process must preload the sanitizers' runtimes."""
    if os.environ.get("GGP_C_SANITIZE") != "1":
        return ()
    return ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g")


def _compile(source: str, path: str, version: str, flags: Sequence[str], directory: Path, library: Path,
             checksum: Path) -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=directory, prefix="build-") as tmp:
        c_file = Path(tmp) / "circuit.c"
        c_file.write_text(source)
        out = Path(tmp) / "circuit.so"
        try:
            result = subprocess.run(
                [path, *flags, "-o", str(out), str(c_file)], capture_output=True, text=True, timeout=600, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise ReasonerError(f"c compiler {path!r} failed: {exc}") from exc
        if result.returncode != 0:
            first = (result.stderr.strip().splitlines() or ["no message"])[0]
            raise ReasonerError(f"c compiler {path!r} failed: {first}")
        digest = _digest(out)
        os.replace(out, library)
        tmp_sum = Path(tmp) / "sum"
        tmp_sum.write_text(digest + "\n")
        os.replace(tmp_sum, checksum)
    log.info("compiled circuit %s in %.2f s with %s", library.name, time.perf_counter() - started, version)
