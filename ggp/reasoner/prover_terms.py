"""The prover's internal terms: constants as ``str``, compound terms as tuples, variables as binding indexes.

:class:`~ggp.reasoner.prover.ProverMachine` converts GDL terms into this form once, because its evaluation
loops test ``type(t)`` directly and index binding lists, which is what keeps them fast. This module
holds the conversions both ways and the operations resolution needs on such terms: substitution,
canonical renaming of a call (its variant, the key of its table), matching a pattern against a ground
term and matching a rule head against a call.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from ggp.errors import ReasonerError
from ggp.gdl.terms import Const, Func, Term, Var


class _Var:
    """A variable of a compiled rule (or of a call pattern): an index into a binding list."""

    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i

    def __repr__(self) -> str:
        return f"_{self.i}"


_T: TypeAlias = Any
"""An internal term: a constant (``str``), ``(name, arg...)`` (a ``tuple``) or a :class:`_Var`; ``Any``
because the evaluation loops test ``type(t)`` directly, which is what keeps them fast."""


_CANON: list[_Var] = [_Var(i) for i in range(64)]


def _canon_var(i: int) -> _Var:
    while i >= len(_CANON):
        _CANON.append(_Var(len(_CANON)))
    return _CANON[i]


def _is_ground(t: _T) -> bool:
    if type(t) is str:
        return True
    if type(t) is _Var:
        return False
    for a in t:  # noqa: SIM110 - a loop, not all(...): no generator on the hot path
        if type(a) is not str and not _is_ground(a):
            return False
    return True


def _subst(t: _T, env: list[_T | None]) -> _T | None:
    """``t`` with the bindings of ``env`` applied; None when a variable is unbound."""
    if type(t) is str:
        return t
    if type(t) is _Var:
        return env[t.i]
    out = []
    for a in t:
        if type(a) is not str:
            a = env[a.i] if type(a) is _Var else _subst(a, env)
            if a is None:
                return None
        out.append(a)
    return tuple(out)


def _canon(t: _T, env: list[_T | None], seen: dict[int, _Var]) -> _T:
    """``t`` with bound variables replaced by their values and the free ones renamed in order of
    appearance: the variant of a call, the key of its table."""
    if type(t) is str:
        return t
    if type(t) is _Var:
        value = env[t.i]
        if value is not None:
            return value
        var = seen.get(t.i)
        if var is None:
            var = seen[t.i] = _canon_var(len(seen))
        return var
    out = []
    for a in t:
        ta = type(a)
        if ta is _Var:
            value = env[a.i]
            if value is None:
                value = seen.get(a.i)
                if value is None:
                    value = seen[a.i] = _canon_var(len(seen))
            a = value
        elif ta is tuple:
            a = _canon(a, env, seen)
        out.append(a)
    return tuple(out)


def _match(p: _T, g: _T, env: list[_T | None]) -> bool:
    """Bind the variables of pattern ``p`` so that it equals the ground term ``g`` (mutates ``env``).
    The first level of arguments is handled inline: most patterns are flat."""
    tp = type(p)
    same: bool
    if tp is str:
        same = p == g
        return same
    if tp is _Var:
        current = env[p.i]
        if current is None:
            env[p.i] = g
            return True
        same = current == g
        return same
    if type(g) is not tuple or len(g) != len(p):
        return False
    for a, b in zip(p, g):  # the name at index 0 is a str, compared like any constant
        ta = type(a)
        if ta is str:
            if a != b:
                return False
        elif ta is _Var:
            current = env[a.i]
            if current is None:
                env[a.i] = b
            elif current != b:
                return False
        elif not _match(a, b, env):
            return False
    return True


def _head_match(h: _T, c: _T, env: list[_T | None]) -> bool:
    """Whether rule head ``h`` can produce instances of call ``c``, binding the head's variables to the
    call's ground parts (a variable of the call, or a non-ground part under a head variable, is left
    open: the answers are filtered against the call afterwards)."""
    tc = type(c)
    if tc is _Var:
        return True
    th = type(h)
    same: bool
    if th is _Var:
        if _is_ground(c):
            current = env[h.i]
            if current is None:
                env[h.i] = c
                return True
            same = current == c
            return same
        return True
    if th is str:
        same = h == c
        return same
    if tc is not tuple or len(c) != len(h) or c[0] != h[0]:
        return False
    for a, b in zip(h[1:], c[1:]):  # noqa: SIM110 - as in _match
        if not _head_match(a, b, env):
            return False
    return True


def _to_internal(term: Term, names: dict[str, int]) -> _T:
    if isinstance(term, Const):
        return term.name
    if isinstance(term, Var):
        index = names.setdefault(term.name, len(names))
        return _canon_var(index)
    if not term.args:  # ``(f)`` is the constant ``f``, as in clingo and the other engines
        return term.name
    return tuple([term.name, *(_to_internal(a, names) for a in term.args)])


def _to_term(t: _T) -> Term:
    if type(t) is str:
        return Const(t)
    if type(t) is tuple:
        return Func(t[0], tuple(_to_term(a) for a in t[1:]))
    raise ReasonerError(f"an answer is not ground: {t!r}")


def _ground_internal(term: Term) -> _T:
    if isinstance(term, Var):
        raise ReasonerError(f"a state fluent or move is not ground: {term}")
    return _to_internal(term, {})


def _relation(t: _T) -> tuple[str, int]:
    return (t, 0) if type(t) is str else (t[0], len(t) - 1)


def _vars_of(t: _T) -> set[int]:
    if type(t) is _Var:
        return {t.i}
    if type(t) is tuple:
        out: set[int] = set()
        for a in t[1:]:
            out |= _vars_of(a)
        return out
    return set()
