"""Reading game files from disk with clear errors (the ``ggp.gdl`` package itself never reads files)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ggp.errors import GdlSyntaxError, SourcePos
from ggp.gdl.parser import MAX_CHARS, parse_kif
from ggp.gdl.terms import Description


def read_text(path: str | os.PathLike[str], *, max_bytes: int = MAX_CHARS) -> str:
    """Read a text file, refusing oversized, binary and non-UTF-8 files with a positioned error.

    The size is checked while reading (at most ``max_bytes + 1`` bytes are read), so a device or a pipe
    that never ends (``/dev/zero``) is refused like a large file instead of filling memory.
    """
    name = str(path)
    with Path(path).open("rb") as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise GdlSyntaxError(f"file has more than the limit of {max_bytes:,} bytes", SourcePos(name, 1, 1))
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise GdlSyntaxError("binary file (contains a NUL byte), not text", SourcePos(name, line, 1))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise GdlSyntaxError("not UTF-8 text", SourcePos(name, line, column)) from None


def load_kif(path: str | os.PathLike[str], *, max_bytes: int = MAX_CHARS, case_sensitive: bool | None = None) -> Description:
    """Read and parse a KIF file (a path or a file name); ``case_sensitive`` as in :func:`~ggp.gdl.parser.parse_kif`."""
    return parse_kif(read_text(path, max_bytes=max_bytes), str(path), case_sensitive=case_sensitive)


def read_bytes(path: str | os.PathLike[str], *, max_bytes: int) -> bytes | None:
    """A file's bytes, or None when it holds more than ``max_bytes`` (checked while reading, as in :func:`read_text`)."""
    with Path(path).open("rb") as stream:
        data = stream.read(max_bytes + 1)
    return None if len(data) > max_bytes else data


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write a file through a temporary file beside it and a rename, so no reader sees it half-written.

    Text is written as UTF-8. The file gets the usual ``0o644`` mode; the temporary file is removed
    when writing fails.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.chmod(temporary, 0o644)  # mkstemp makes the file private
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
