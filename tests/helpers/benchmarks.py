"""The scripts of ``benchmarks/`` as modules, for the tests that rebuild the docs' tables from committed data."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` as the module ``NAME`` (registered in ``sys.modules``, where a dataclass looks its
    module up; a script that imports a sibling needs ``benchmarks/`` on ``sys.path`` first)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
