"""Compile generated C with the system compiler into a shared library, cached per game.

The cache lives in ``$XDG_CACHE_HOME/ggp/circuits`` (default ``~/.cache/ggp/circuits``); an entry is
named by the SHA-256 of the C source (which is a function of the rules), the compiler's version line
and the flags. Each library has a ``.sha256`` file holding the checksum of its bytes: a truncated or
tampered entry (checksum mismatch, or a library that fails to load) is rebuilt. Files are written
under a temporary name and renamed, so concurrent builders never see half a library.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from ggp.errors import ReasonerError

log = logging.getLogger(__name__)

FLAGS = ("-O2", "-shared", "-fPIC")
"""Flags for circuits of ordinary size."""
UNOPTIMISED_FLAGS = ("-O0", "-shared", "-fPIC")
"""Flags for very large circuits: the optimiser takes many minutes on a straight-line function of
100,000+ literals (8x8 chess: over 600 s at -O2 and -O1), while -O0 builds it in seconds and still runs
2-3x faster than the interpreter."""


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
        return ctypes.CDLL(str(library))
    except OSError as exc:
        log.warning("circuit cache entry %s failed to load (%s); rebuilding", library.name, exc)
        return None


def load_library(
    source: str, compiler: tuple[str, str], directory: Path | None = None, flags: Sequence[str] = FLAGS
) -> tuple[ctypes.CDLL, Path, bool]:
    """Load the compiled ``source`` from the cache or compile it; returns (library, path, was_cached).

    ``flags`` are the compiler's flags (part of the cache key).

    Raises :class:`ReasonerError` when the compiler fails.
    """
    path, version = compiler
    directory = directory or cache_dir()
    key = hashlib.sha256("\0".join([source, version, *flags]).encode()).hexdigest()[:32]
    library = directory / f"circuit-{key}.so"
    checksum = directory / f"circuit-{key}.sha256"
    loaded = _try_load(library, checksum)
    if loaded is not None:
        return loaded, library, True
    directory.mkdir(parents=True, exist_ok=True)
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
    try:
        return ctypes.CDLL(str(library)), library, False
    except OSError as exc:
        raise ReasonerError(f"cannot load the compiled circuit {library}: {exc}") from exc
