"""Shared fixtures: paths to the project's games and to the reference material in ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.prerequisites import check_marks, missing, needs

ROOT = Path(__file__).resolve().parents[1]
KIF_DIR = ROOT / "kif"
GAMES_DIR = ROOT / "games"
SHARED = Path(os.environ.get("GGP_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "gdl-corpus"
TRACES = SHARED / "traces"
KNOWN_UNSUPPORTED = ROOT / "tests" / "known_unsupported.txt"


def kif_games() -> list[Path]:
    """The project's own KIF games (kif/<key>/<key>.kif)."""
    return sorted(KIF_DIR.glob("*/*.kif"))


def corpus_games() -> list[Path]:
    """The ggp.org corpus games, or [] when ../shared is absent."""
    return sorted(CORPUS.glob("*.kif")) if CORPUS.is_dir() else []


def valid_corpus_keys() -> list[str]:
    valid = CORPUS / "VALID.txt"
    if not valid.is_file():
        return []
    return [line.strip() for line in valid.read_text().splitlines() if line.strip()]


@pytest.fixture
def shared_dir() -> Path:
    """../shared, skipping the test cleanly when it is absent (a fresh clone)."""
    if not SHARED.is_dir():
        missing("../shared is not present")
    return SHARED


def needs_shared(paths: list[Path]) -> list[object]:
    """Parametrize helper: the given paths, or one skipped placeholder when ../shared is absent."""
    if paths:
        return list(paths)
    return [pytest.param(None, marks=needs(False, "../shared is not present"))]


def known_unsupported() -> dict[str, str]:
    """``key -> reason`` from tests/known_unsupported.txt (``#`` starts a comment)."""
    if not KNOWN_UNSUPPORTED.is_file():
        return {}
    entries = {}
    for line in KNOWN_UNSUPPORTED.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            key, _, reason = line.partition(":")
            entries[key.strip()] = reason.strip()
    return entries


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "prerequisite(available, reason): needs something outside the repository")
    config.addinivalue_line("markers", "slow: several seconds or more (CI runs them; -m 'not slow' skips them locally)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Missing prerequisites skip locally and fail in CI (tests/prerequisites.py)."""
    check_marks(item)
