"""The layering that the import-linter contracts in pyproject.toml state, checked at run time too:
the modules players, the protocol and the manager load do not drag in clingo or aiohttp."""

from __future__ import annotations

import subprocess
import sys

import pytest


def loaded_after(*modules: str) -> set[str]:
    """Top-level names in sys.modules after importing ``modules`` in a fresh interpreter."""
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return {name.split(".")[0] for name in out.split()}


def test_the_gdl_layer_loads_neither_clingo_nor_aiohttp() -> None:
    loaded = loaded_after("ggp.gdl.parser", "ggp.gdl.validator", "ggp.gdl.printer")
    assert "clingo" not in loaded and "aiohttp" not in loaded


@pytest.mark.parametrize(
    "module",
    ["ggp.protocol.server", "ggp.players.mcts", "ggp.players.alphabeta", "ggp.match.loop", "ggp.manager.app"],
)
def test_players_the_protocol_and_the_manager_do_not_load_clingo(module: str) -> None:
    assert "clingo" not in loaded_after(module)
