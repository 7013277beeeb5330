"""GDL -> ASP (clingo) translation and the reversible mapping between KIF names and clingo symbols.

Names: an integer in canonical form stays a number; a lower-case word that is a valid clingo identifier
stays as it is; anything else (``cell-1``, ``01``, ``x.y``) becomes a quoted string when it is a
constant and a hex-escaped identifier (``ggp_x<hex>``) when it names a relation or function. Names that
already start with ``ggp_`` are escaped too, so the helper predicates of this module never clash with a
game's own relations. Decoding (:func:`symbol_to_term`) inverts all of this exactly.

Rules: ``(distinct a b)`` -> ``a != b``; ``(not p)`` -> ``not p``; ``or`` is removed by splitting the rule
into one rule per combination of disjuncts; variables become ``V0, V1, ...`` per rule.

>>> from ggp.gdl.parser import parse_kif
>>> print(rules_to_asp(parse_kif("(<= (p ?x) (q ?x) (not (r ?x)) (distinct ?x cell-1))").rules))
p(V0) :- q(V0), not r(V0), V0 != "cell-1".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import product

import clingo

from ggp.gdl.terms import Const, Distinct, Func, Literal, Not, Or, Rule, Term, Var

_IDENT = re.compile(r"_*[a-z][A-Za-z0-9_']*\Z")
_INT = re.compile(r"(0|[1-9][0-9]{0,8})\Z")
_ESCAPE_PREFIX = "ggp_x"
_RESERVED_PREFIX = "ggp_"


def encode_name(name: str) -> str:
    """A clingo identifier for a relation or function name (reversible, see :func:`decode_name`)."""
    if _IDENT.match(name) and not name.startswith(_RESERVED_PREFIX):
        return name
    return _ESCAPE_PREFIX + name.encode("utf-8").hex()


def decode_name(name: str) -> str:
    """Inverse of :func:`encode_name`."""
    if name.startswith(_ESCAPE_PREFIX):
        return bytes.fromhex(name[len(_ESCAPE_PREFIX):]).decode("utf-8")
    return name


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def const_to_asp(name: str) -> str:
    """ASP text of a constant: a number, an identifier, or a quoted string."""
    if _INT.match(name):
        return name
    if _IDENT.match(name) and not name.startswith(_RESERVED_PREFIX):
        return name
    return _quote(name)


class _VarNames:
    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def __call__(self, var: Var) -> str:
        if var.name not in self._names:
            self._names[var.name] = f"V{len(self._names)}"
        return self._names[var.name]


def term_to_asp(term: Term, var_name: _VarNames | None = None) -> str:
    """ASP text of a term (variables are numbered per rule when ``var_name`` is given)."""
    if isinstance(term, Const):
        return const_to_asp(term.name)
    if isinstance(term, Var):
        if var_name is None:
            raise ValueError(f"variable {term} outside a rule")
        return var_name(term)
    if not term.args:
        return encode_name(term.name)
    return f"{encode_name(term.name)}({','.join(term_to_asp(arg, var_name) for arg in term.args)})"


def atom_to_asp(atom: Const | Func, var_name: _VarNames | None = None) -> str:
    """ASP text of an atom (relations are encoded like function names)."""
    if isinstance(atom, Const):
        return encode_name(atom.name)
    return term_to_asp(atom, var_name)


def _expand_or(body: Sequence[Literal]) -> Iterator[tuple[Literal, ...]]:
    """Every or-free body obtained by choosing one disjunct of each ``or`` (nested ones flattened)."""
    options: list[list[tuple[Literal, ...]]] = []
    for literal in body:
        if isinstance(literal, Or):
            alternatives: list[tuple[Literal, ...]] = []
            for disjunct in literal.disjuncts:
                alternatives.extend(_expand_or((disjunct,)))
            options.append(alternatives)
        else:
            options.append([(literal,)])
    for choice in product(*options):
        yield tuple(lit for part in choice for lit in part)


def _literal_to_asp(literal: Literal, var_name: _VarNames) -> str:
    if isinstance(literal, Not):
        inner = literal.arg
        if not isinstance(inner, (Const, Func)):
            raise ValueError(f"'not' applied to a non-atom: {literal}")
        return f"not {atom_to_asp(inner, var_name)}"
    if isinstance(literal, Distinct):
        return f"{term_to_asp(literal.left, var_name)} != {term_to_asp(literal.right, var_name)}"
    if isinstance(literal, Or):  # pragma: no cover - removed by _expand_or
        raise ValueError("unexpanded 'or'")
    return atom_to_asp(literal, var_name)


def rule_to_asp(rule: Rule) -> list[str]:
    """ASP statements for one GDL rule (several when the body contains ``or``)."""
    statements = []
    for body in _expand_or(rule.body):
        var_name = _VarNames()
        head = atom_to_asp(rule.head, var_name)
        if body:
            statements.append(f"{head} :- {', '.join(_literal_to_asp(lit, var_name) for lit in body)}.")
        else:
            statements.append(f"{head}.")
    return statements


def rules_to_asp(rules: Iterable[Rule]) -> str:
    """ASP program text for the given rules, one statement per line."""
    return "\n".join(statement for rule in rules for statement in rule_to_asp(rule))


def relaxed_rule(rule: Rule, true_name: str, does_name: str) -> Rule:
    """The rule with negation dropped and ``true``/``does`` renamed: used to over-approximate domains.

    Dropping negative literals can only make more atoms derivable, so the least model of the relaxed
    program contains every fluent and move that can ever occur.
    """

    def relax(literal: Literal) -> Literal | None:
        if isinstance(literal, Not):
            return None
        if isinstance(literal, Or):
            kept = tuple(d for d in (relax(x) for x in literal.disjuncts) if d is not None)
            return Or(kept) if len(kept) == len(literal.disjuncts) else None
        if isinstance(literal, Func) and literal.name == "true" and len(literal.args) == 1:
            return Func(true_name, literal.args)
        if isinstance(literal, Func) and literal.name == "does" and len(literal.args) == 2:
            return Func(does_name, literal.args)
        return literal

    body = tuple(lit for lit in (relax(x) for x in rule.body) if lit is not None)
    return Rule(rule.head, body, rule.pos, rule.arrow)


# --- clingo symbols <-> terms -------------------------------------------------------------------

def term_to_symbol(term: Term) -> clingo.Symbol:
    """The clingo symbol for a ground term."""
    if isinstance(term, Const):
        if _INT.match(term.name):
            return clingo.Number(int(term.name))
        if _IDENT.match(term.name) and not term.name.startswith(_RESERVED_PREFIX):
            return clingo.Function(term.name)
        return clingo.String(term.name)
    if isinstance(term, Var):
        raise ValueError(f"variable {term} is not ground")
    return clingo.Function(encode_name(term.name), [term_to_symbol(arg) for arg in term.args])


def symbol_to_term(symbol: clingo.Symbol) -> Term:
    """The KIF term for a clingo symbol produced from this module's translation."""
    kind = symbol.type
    if kind == clingo.SymbolType.Number:
        return Const(str(symbol.number))
    if kind == clingo.SymbolType.String:
        return Const(symbol.string)
    if kind == clingo.SymbolType.Function:
        name = decode_name(symbol.name)
        if not symbol.arguments:
            return Const(name)
        return Func(name, tuple(symbol_to_term(arg) for arg in symbol.arguments))
    raise ValueError(f"unexpected clingo symbol {symbol}")
