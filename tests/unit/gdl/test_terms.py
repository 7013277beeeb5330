"""Terms: moves that denote the same thing however they are written."""

from __future__ import annotations

from ggp.gdl.terms import Const, Func, find_move, without_empty_args


def test_a_move_written_with_or_without_empty_parentheses_is_one_move() -> None:
    up, stay = Const("moveup"), Func("stay", ())
    assert without_empty_args(Func("move", (Func("up", ()), Const("x")))) == Func("move", (Const("up"), Const("x")))
    assert find_move(Func("moveup", ()), (stay, up)) is up  # the machine's own term is returned
    assert find_move(Const("stay"), (stay, up)) is stay
    assert find_move(Const("jump"), (stay, up)) is None
