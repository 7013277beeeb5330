"""Hypothesis strategies for GDL: terms, literals, rules, arbitrary descriptions and well-formed games.

Names are lower case (the parser lower-cases every name) and never a reserved word (``not``, ``or``,
``distinct``), so every generated value prints as KIF that parses back to an equal value.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ggp.gdl.terms import (
    RESERVED,
    Atom,
    Const,
    Description,
    Distinct,
    Func,
    Literal,
    Not,
    Or,
    Rule,
    Term,
    Var,
)

names: st.SearchStrategy[str] = st.from_regex(r"[a-z][a-z0-9_-]{0,5}", fullmatch=True).filter(
    lambda name: name not in RESERVED
)
numbers: st.SearchStrategy[str] = st.integers(min_value=0, max_value=100).map(str)


def constants() -> st.SearchStrategy[Const]:
    return st.builds(Const, st.one_of(names, numbers))


def terms(max_leaves: int = 8) -> st.SearchStrategy[Term]:
    """Constants, variables and nested function terms (rarely the zero-argument form ``(f)``)."""
    leaves: st.SearchStrategy[Term] = st.one_of(constants(), st.builds(Var, names))

    def extend(children: st.SearchStrategy[Term]) -> st.SearchStrategy[Term]:
        return st.one_of(
            st.builds(Func, names, st.lists(children, min_size=1, max_size=3).map(tuple)),
            st.builds(Func, names, st.just(())),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def atoms() -> st.SearchStrategy[Atom]:
    return st.one_of(
        st.builds(Const, names),
        st.builds(Func, names, st.lists(terms(4), min_size=1, max_size=3).map(tuple)),
    )


def literals() -> st.SearchStrategy[Literal]:
    """Atoms, ``not``, ``distinct`` and (possibly nested or empty) ``or``: everything the parser can build."""
    base: st.SearchStrategy[Literal] = st.one_of(atoms(), st.builds(Distinct, terms(3), terms(3)))

    def extend(children: st.SearchStrategy[Literal]) -> st.SearchStrategy[Literal]:
        return st.one_of(
            st.builds(Not, children),
            st.builds(Or, st.lists(children, max_size=3).map(tuple)),
        )

    return st.recursive(base, extend, max_leaves=4)


def rules() -> st.SearchStrategy[Rule]:
    return st.builds(Rule, atoms(), st.lists(literals(), max_size=3).map(tuple))


def descriptions() -> st.SearchStrategy[Description]:
    """Arbitrary (not necessarily valid) descriptions."""
    return st.builds(Description, st.lists(rules(), min_size=1, max_size=6).map(tuple))


def _f(name: str, *args: Term) -> Func:
    return Func(name, args)


_X, _Y, _Z, _R = Var("x"), Var("y"), Var("z"), Var("r")


@st.composite
def well_formed_games(draw: st.DrawFn) -> Description:
    """Small complete games that satisfy every GDL restriction, in a random rule order.

    Roles mark cells; a recursive ``reach`` relation over random ``edge`` facts feeds ``terminal``
    (exercising the recursion restriction), goals use ``not``, ``or`` and ``distinct``.
    """
    role_count = draw(st.integers(min_value=1, max_value=3))
    value_count = draw(st.integers(min_value=1, max_value=4))
    roles = [Const(f"p{i}") for i in range(role_count)]
    values = [Const(f"v{i}") for i in range(value_count)]
    value = st.sampled_from(values)
    rules: list[Rule] = [Rule(_f("role", r)) for r in roles]
    rules += [Rule(_f("val", v)) for v in values]
    initial = draw(st.lists(value, unique=True))
    rules += [Rule(_f("init", _f("cell", v))) for v in initial]
    edges = draw(st.lists(st.tuples(value, value), unique=True, min_size=1, max_size=6))
    rules += [Rule(_f("edge", a, b)) for a, b in edges]
    first_edge = edges[0][0]
    win = draw(value)
    score = Const(str(draw(st.integers(min_value=0, max_value=100))))
    rules += [
        Rule(_f("base", _f("cell", _X)), (_f("val", _X),)),
        Rule(_f("input", _R, _f("mark", _X)), (_f("role", _R), _f("val", _X))),
        Rule(_f("legal", _R, _f("mark", _X)), (_f("role", _R), _f("val", _X), Not(_f("true", _f("cell", _X))))),
        Rule(_f("next", _f("cell", _X)), (_f("does", _R, _f("mark", _X)),)),
        Rule(_f("next", _f("cell", _X)), (_f("true", _f("cell", _X)),)),
        Rule(_f("reach", _X, _Y), (_f("edge", _X, _Y),)),
        Rule(_f("reach", _X, _Z), (_f("edge", _X, _Y), _f("reach", _Y, _Z))),
        Rule(Const("terminal"), (_f("true", _f("cell", win)),)),
        Rule(Const("terminal"), (_f("reach", first_edge, _Y), _f("true", _f("cell", _Y)))),
        Rule(_f("goal", _R, score), (_f("role", _R), _f("true", _f("cell", win)))),
        Rule(_f("goal", _R, Const("0")), (_f("role", _R), Not(_f("true", _f("cell", win))))),
    ]
    if draw(st.booleans()):
        other = draw(value)
        rules.append(Rule(_f("mixed", _X), (
            _f("val", _X),
            Or((_f("true", _f("cell", _X)), Not(_f("edge", _X, other)))),
            Distinct(_X, other),
        )))
        rules.append(Rule(Const("terminal"), (_f("mixed", _X),)))
    return Description(tuple(draw(st.permutations(rules))))
