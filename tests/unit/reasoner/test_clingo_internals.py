"""The two clingo internals ClingoStateMachine reads for speed (``_p_symbols`` of a model's symbol
sequence and ``Symbol._rep``) still mean what it assumes: if a clingo release changes them, this fails
before a game is decoded wrongly (the clingo version is pinned in pyproject.toml)."""

from __future__ import annotations

import clingo

from ggp.reasoner.clingo_machine import _symbol_ids


def shown_models(program: str) -> list[tuple[list[clingo.Symbol], list[int]]]:
    ctl = clingo.Control(["--warn=none", "0"])
    ctl.add("base", [], program)
    ctl.ground([("base", [])])
    found: list[tuple[list[clingo.Symbol], list[int]]] = []
    ctl.solve(on_model=lambda model: found.append((list(model.symbols(shown=True)), _symbol_ids(model))))
    return found


def test_the_raw_ids_are_the_ids_of_the_shown_symbols_in_order() -> None:
    for symbols, ids in shown_models("a(1). a(f(x, \"s\")). b :- a(1). {c(2); c(3)}. #show a/1. #show c/1. #show b/0."):
        assert ids == [symbol._rep for symbol in symbols]
        assert len(set(ids)) == len(ids)


def test_a_symbol_id_identifies_the_symbol_across_controls() -> None:
    first = {symbol: rep for symbols, ids in shown_models("p(1..3). #show p/1.") for symbol, rep in zip(symbols, ids)}
    second = {symbol: rep for symbols, ids in shown_models("p(3). p(2). q. #show p/1.") for symbol, rep in zip(symbols, ids)}
    assert first[clingo.Function("p", [clingo.Number(2)])] == second[clingo.Function("p", [clingo.Number(2)])]
    assert len(set(first.values())) == 3
