"""The Sokoban modules' examples run here too (pytest collects doctests under ggp/ only)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["level", "moves", "solver", "metrics", "generator", "to_gdl", "methods.ppo_env", "methods", "methods.layout",
           "methods.pdb", "methods.mcts"]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_pass(name: str) -> None:
    module = importlib.import_module(f"ggp.translators.sokoban.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
