"""Terms: moves that denote the same thing however they are written."""

from __future__ import annotations

from ggp.gdl.terms import Const, Distinct, Func, Not, Or, Rule, Var, find_move, without_empty_args


def test_a_move_written_with_or_without_empty_parentheses_is_one_move() -> None:
    up, stay = Const("moveup"), Func("stay", ())
    assert without_empty_args(Func("move", (Func("up", ()), Const("x")))) == Func("move", (Const("up"), Const("x")))
    assert find_move(Func("moveup", ()), (stay, up)) is up  # the machine's own term is returned
    assert find_move(Const("stay"), (stay, up)) is stay
    assert find_move(Const("jump"), (stay, up)) is None


def test_terms_literals_and_rules_print_as_kif_in_repr_too() -> None:
    # The README's snippet printed (Func(name='mark', args=(Const(name='1'), ...: a tuple shows its items' repr.
    move = Func("mark", (Const("1"), Const("1")))
    assert repr(move) == str(move) == "(mark 1 1)"
    assert repr((move, Const("noop"), Var("x"))) == "((mark 1 1), noop, ?x)"
    literal = Not(Distinct(Var("x"), Const("b")))
    assert repr([literal, Or((Const("p"), Const("q")))]) == "[(not (distinct ?x b)), (or p q)]"
    assert repr(Rule(Func("legal", (Var("r"), Const("noop"))), (Func("role", (Var("r"),)),))) == (
        "(<= (legal ?r noop) (role ?r))")


def test_the_gdl_keywords_are_written_once() -> None:
    import re
    from pathlib import Path

    import ggp
    import ggp.gdl
    import ggp.gdl.terms

    assert ggp.gdl.KEYWORDS == frozenset(ggp.gdl.KEYWORD_ARITIES) == ggp.gdl.terms.KEYWORDS
    package = Path(ggp.__file__).parent
    defining = sorted(str(path.relative_to(package)) for path in package.rglob("*.py")
                      if re.search(r"^(KEYWORDS|KEYWORD_ARITIES)\b[^=\n]*=", path.read_text(encoding="utf-8"), re.M))
    assert defining == ["gdl/terms.py"]


def test_a_move_from_the_wire_finds_the_one_legal_move_that_differs_only_in_case() -> None:
    # A game read case-sensitively holds (Step) as written; the wire lower-cases every move.
    step, wait = Func("Move", (Const("Up"),)), Const("wait")
    assert find_move(Func("move", (Const("up"),)), (step, wait)) is step
    assert find_move(Const("move"), (Const("Move"), Const("MOVE"))) is None  # ambiguous: no guess
