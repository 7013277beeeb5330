"""ggp.files: bounded reads and atomic writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.files import read_bytes, write_atomic


def test_read_bytes_refuses_more_than_the_limit_while_reading(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(b"12345")
    assert read_bytes(path, max_bytes=5) == b"12345"
    assert read_bytes(path, max_bytes=4) is None
    assert read_bytes("/dev/zero", max_bytes=1000) is None  # a file that never ends is refused, not read


def test_write_atomic_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("old")
    write_atomic(path, "new ✓")
    write_atomic(tmp_path / "raw.bin", b"\x00\x01")
    assert path.read_text(encoding="utf-8") == "new ✓" and (tmp_path / "raw.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt", "raw.bin"]
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("old")
    with pytest.raises(TypeError):
        write_atomic(path, 12)  # type: ignore[arg-type]
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]
