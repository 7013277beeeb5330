"""The lowering steps of the circuit builder, each on a small hand-made ground program.

Atoms: 1 = (true p), 2 = (true q), 3 = (does r a), 4 = (does r b), 5 = (does r c); rules below.
"""

from __future__ import annotations

from ggp.gdl.terms import Const
from ggp.reasoner.circuit.budget import DEFAULT_BUDGET, BudgetMeter
from ggp.reasoner.circuit.build import FALSE_REF, TRUE_REF, Ref, _Builder, _Emitter
from ggp.reasoner.circuit.extract import GroundProgram

P, Q, R = Const("p"), Const("q"), Const("r")
A, B, C = Const("a"), Const("b"), Const("c")


def builder(rules: tuple[tuple[int, tuple[int, ...]], ...], outputs: tuple[tuple[str, tuple[Const, ...], int], ...]) -> _Builder:
    program = GroundProgram(
        rules=rules,
        true_atoms=((P, 1), (Q, 2)),
        does_atoms=((R, A, 3), (R, B, 4), (R, C, 5)),
        outputs=outputs,
    )
    built = _Builder(program, (R,), "t.kif", BudgetMeter(DEFAULT_BUDGET, "t.kif"))
    built.build()
    return built


def test_atoms_no_output_needs_are_pruned() -> None:
    # 10 <- p (output: terminal); 11 <- q (used by nothing shown); 12 <- 10 and not q (output: next p)
    built = builder(((10, (1,)), (11, (2,)), (12, (10, -2))), (("terminal", (), 10), ("next", (P,), 12)))
    assert built._needed_atoms({10, 12}) == {10, 12}


def test_atoms_that_depend_on_a_move_are_computed_after_the_moves() -> None:
    # 10 <- p; 11 <- does a; 12 <- 10 and 11
    built = builder(((10, (1,)), (11, (3,)), (12, (10, 11))), (("terminal", (), 10), ("next", (Q,), 12)))
    components = [c for c in built.components if c]
    assert built._move_dependent(components) == {10: False, 11: True, 12: True}


def test_a_move_disjunction_uses_the_shorter_of_the_set_and_its_complement() -> None:
    built = builder(((10, (1,)),), (("terminal", (), 10),))
    emitter = _Emitter(built)
    a, b, c = (built.input_slot[atom] for atom in (3, 4, 5))
    assert emitter.does_or(frozenset({a, b, c})) == TRUE_REF  # one of every move: always true
    two = emitter.does_or(frozenset({a, b}))  # a or b == not c: one negated statement of c alone
    assert two == Ref(c, True) and not emitter.statements_b
    one = emitter.does_or(frozenset({a}))
    assert one == Ref(a, False)


def test_identical_terms_share_one_slot_and_constant_literals_fold() -> None:
    built = builder(((10, (1,)),), (("terminal", (), 10),))
    emitter = _Emitter(built)
    terms = (((1, 2),), False, False)
    first, second = emitter.emit(*terms), emitter.emit(*terms)
    assert first == second and len(emitter.statements_a) == 1
    emitter.alias[99] = TRUE_REF
    emitter.alias[98] = FALSE_REF
    assert emitter.canon((1, 99)) == (1,)  # a true literal drops out
    assert emitter.canon((1, 98)) is None  # a false literal makes the body false
    assert emitter.canon((1, -1)) is None  # x and not x


def test_outputs_read_each_atoms_ref() -> None:
    built = builder(((10, (1,)), (11, (3,))), (("terminal", (), 10), ("legal", (R, A), 11), ("init", (P,), 0)))
    circuit = built._finish()
    # An output gets a slot of its own: terminal is the statement OR((true p)).
    statement = next(s for s in circuit.phase_a if s.slots == (circuit.terminal.slot,))
    assert statement.terms == (((1,),),) and not circuit.terminal.neg
    legal_a = next(s for s in circuit.phase_b if s.slots == (circuit.legal[0].slot,))
    assert legal_a.terms == (((built.input_slot[3],),),) and circuit.legal[1] == FALSE_REF
    assert circuit.init == (True, False)
