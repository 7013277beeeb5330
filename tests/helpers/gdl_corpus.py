"""Parsed corpus games, cached per test session so the parser and the validator tests share one parse."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ggp.files import load_kif
from ggp.gdl.terms import Description


@cache
def parsed(path: Path) -> Description:
    """The description in a KIF file, parsed once per session."""
    return load_kif(path)
