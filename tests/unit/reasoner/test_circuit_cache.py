"""The compiled-circuit cache: one build for concurrent processes, a private directory, LRU eviction."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ggp.native import evict, find_compiler, load_library, private_dir
from tests.prerequisites import needs

SOURCE = "int ggp_answer(void) { return 42; }\n"
needs_cc = needs(find_compiler() is not None, "no c compiler (cc)")

CHILD = """
import ctypes, sys
from pathlib import Path
from ggp.native import load_library
lib, path, cached = load_library(sys.argv[1], (sys.argv[2], "counting-cc 1"), Path(sys.argv[3]))
print(lib.ggp_answer(), cached)
"""


@needs_cc
def test_three_processes_on_an_empty_cache_compile_the_entry_once(tmp_path: Path) -> None:
    real = find_compiler()
    assert real is not None
    log = tmp_path / "compiles.log"
    counting = tmp_path / "counting-cc"
    # A compiler that records each call and is slow enough for the three processes to overlap.
    counting.write_text(f'#!/bin/sh\necho "$$" >> {log}\nsleep 1\nexec {real[0]} "$@"\n')
    counting.chmod(0o755)
    cache = tmp_path / "cache"
    children = [
        subprocess.Popen([sys.executable, "-c", CHILD, SOURCE, str(counting), str(cache)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    assert all(child.returncode == 0 for child in children), [err for _, err in outputs]
    answers = sorted(out.split()[0] for out, _ in outputs)
    assert answers == ["42", "42", "42"]
    assert len(log.read_text().split()) == 1  # one build; the two others waited and loaded it
    assert sorted(out.split()[1] for out, _ in outputs) == ["False", "True", "True"]


@needs_cc
def test_the_cache_directory_is_private(tmp_path: Path) -> None:
    compiler = find_compiler()
    assert compiler is not None
    cache = tmp_path / "cache"
    load_library(SOURCE, compiler, cache)
    assert cache.stat().st_mode & 0o777 == 0o700
    cache.chmod(0o777)  # someone widened it: the next use narrows it again
    load_library(SOURCE, compiler, cache)
    assert cache.stat().st_mode & 0o777 == 0o700


def test_an_existing_directory_is_narrowed_to_0700(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    assert private_dir(shared).stat().st_mode & 0o777 == 0o700


def test_eviction_removes_the_least_recently_used_entries_first(tmp_path: Path) -> None:
    now = time.time()
    for index, name in enumerate(["old", "mid", "new"]):
        library = tmp_path / f"circuit-{name}.so"
        library.write_bytes(b"x" * 1000)
        library.with_suffix(".sha256").write_text("sum")
        library.with_suffix(".lock").write_text("")
        os.utime(library, (now - 100 + index, now - 100 + index))
    stale = tmp_path / "build-left-by-a-killed-builder"
    stale.mkdir()
    os.utime(stale, (now - 7200, now - 7200))
    removed = evict(tmp_path, limit=2000, keep=tmp_path / "circuit-old.so")
    assert removed == [tmp_path / "circuit-mid.so"]  # old is kept (just built), mid is the next oldest
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "circuit-new.lock", "circuit-new.sha256", "circuit-new.so",
        "circuit-old.lock", "circuit-old.sha256", "circuit-old.so",
    ]
    assert evict(tmp_path, limit=10**9) == []


@needs_cc
def test_a_build_evicts_down_to_the_configured_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiler = find_compiler()
    assert compiler is not None
    cache = tmp_path / "cache"
    first = load_library(SOURCE, compiler, cache)[1]
    old = time.time() - 1000
    os.utime(first, (old, old))
    monkeypatch.setenv("GGP_CIRCUIT_CACHE_MB", "0")  # keep only the entry just built
    second = load_library(SOURCE.replace("42", "43"), compiler, cache)[1]
    assert second.exists() and not first.exists()
    shutil.rmtree(cache)
