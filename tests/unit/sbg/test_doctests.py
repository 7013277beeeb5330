"""Run the ``>>>`` examples of translators/sbg (pytest's --doctest-modules only covers tests/ and ggp/)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["automaton", "engine", "minimax", "parser", "printer", "to_gdl"]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_run(name: str) -> None:
    module = importlib.import_module(f"ggp.translators.sbg.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
