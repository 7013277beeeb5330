"""GDL terms, literals, rules and descriptions as frozen, hashable values.

Terms print as canonical KIF (lower case, single spaces), so ``str(term)`` is the wire form used by
the protocol, the traces and the match records; ``repr`` is the same text, so a list of moves, a state
or a failed assertion reads as KIF too.

>>> cell = Func("cell", (Const("1"), Const("1"), Var("x")))
>>> str(cell)
'(cell 1 1 ?x)'
>>> str(Rule(Func("legal", (Var("r"), Const("noop"))), (Func("role", (Var("r"),)),)))
'(<= (legal ?r noop) (role ?r))'
>>> [cell, Const("noop")]
[(cell 1 1 ?x), noop]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from ggp.errors import SourcePos


@dataclass(frozen=True, slots=True)
class Const:
    """A symbol or a number: ``xplayer``, ``3``."""

    name: str

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, slots=True)
class Var:
    """A variable; ``name`` is stored without the leading ``?``."""

    name: str

    def __str__(self) -> str:
        return f"?{self.name}"

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, slots=True)
class Func:
    """A compound term or atom ``(name arg...)``.

    ``args`` is normally non-empty; an empty tuple stands for the rare zero-argument form ``(f)``,
    which ggp-base keeps apart from the constant ``f``.
    """

    name: str
    args: tuple[Term, ...]

    def __str__(self) -> str:
        if not self.args:
            return f"({self.name})"
        return f"({self.name} {' '.join(map(str, self.args))})"

    def __repr__(self) -> str:
        return str(self)


Term = Const | Var | Func
Atom = Const | Func
"""A relation applied to terms: a bare name for zero arity, else a :class:`Func`."""


@dataclass(frozen=True, slots=True)
class Not:
    """Negation as failure: ``(not atom)``. The validator rejects a non-atom argument."""

    arg: Literal

    def __str__(self) -> str:
        return f"(not {self.arg})"

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, slots=True)
class Distinct:
    """``(distinct a b)``: the two terms are syntactically different once ground."""

    left: Term
    right: Term

    def __str__(self) -> str:
        return f"(distinct {self.left} {self.right})"

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, slots=True)
class Or:
    """``(or lit...)``: a disjunction of literals."""

    disjuncts: tuple[Literal, ...]

    def __str__(self) -> str:
        if not self.disjuncts:
            return "(or)"
        return f"(or {' '.join(map(str, self.disjuncts))})"

    def __repr__(self) -> str:
        return str(self)


Literal = Const | Func | Not | Distinct | Or


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule ``(<= head body...)``; a fact has an empty body.

    ``pos`` is where the sentence starts in its source and ``arrow`` whether it was written with
    ``<=``; neither takes part in equality, so parse(print(rule)) == rule.
    """

    head: Atom
    body: tuple[Literal, ...] = ()
    pos: SourcePos | None = field(default=None, compare=False)
    arrow: bool = field(default=False, compare=False)

    @property
    def is_fact(self) -> bool:
        return not self.body

    def __str__(self) -> str:
        if not self.body and not self.arrow:
            return str(self.head)
        parts = " ".join(str(lit) for lit in (self.head, *self.body))
        return f"(<= {parts})"

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, slots=True)
class ParseNote:
    """Something the parser accepted but the validator should warn about."""

    check: str
    message: str
    pos: SourcePos


@dataclass(frozen=True, slots=True)
class Description:
    """A whole game: its rules in source order.

    ``notes`` carries parse-level warnings (zero-argument parentheses, capitalisation); it takes no
    part in equality.
    """

    rules: tuple[Rule, ...]
    file: str = field(default="<string>", compare=False)
    notes: tuple[ParseNote, ...] = field(default=(), compare=False)
    spellings: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    """(name, spelling in the source) for each name the source writes with capitals: names are
    compared case-insensitively (held lower-case), but a reply to a host that compares them exactly
    (ggp-base) must use the rules' own spelling. A name written several ways keeps its first spelling; a
    name written as ``(name)`` with no arguments is spelled ``"(name)"`` (ggp-base keeps the parentheses)."""
    case_sensitive: bool = field(default=False, compare=False)
    """True when the names are held as written (``parse_kif(..., case_sensitive=...)``): roles and moves
    read from the wire, which are lower-cased, then denote the game's terms only case-insensitively
    (:func:`find_move`)."""

    def spelled(self, term: Term) -> str:
        """``term`` as KIF text with every name in the rules' own spelling (see :attr:`spellings`)."""
        return spelled(term, dict(self.spellings))

    @property
    def roles(self) -> tuple[Term, ...]:
        """The role names in the order of their ``(role r)`` facts."""
        return tuple(
            rule.head.args[0]
            for rule in self.rules
            if isinstance(rule.head, Func) and rule.head.name == "role" and len(rule.head.args) == 1
            and not rule.body
        )


KEYWORD_ARITIES: Mapping[str, int] = MappingProxyType({
    "role": 1, "init": 1, "true": 1, "next": 1, "legal": 2, "does": 2, "goal": 2,
    "terminal": 0, "base": 1, "input": 2, "sees": 2,
})
"""The GDL relation keywords and the arity of each (spec §3; ``sees`` is GDL-II): the one list of them."""

KEYWORDS: frozenset[str] = frozenset(KEYWORD_ARITIES)
"""GDL relation keywords (``distinct``, ``not`` and ``or`` are syntax, see :data:`RESERVED`)."""

RESERVED: frozenset[str] = frozenset({"<=", "not", "distinct", "or"})


def relation_name(atom: Atom) -> str:
    """The relation (predicate) name of an atom."""
    return atom.name


def relation_key(atom: Atom) -> tuple[str, int]:
    """``(name, arity)`` of an atom; a constant has arity 0."""
    return (atom.name, len(atom.args) if isinstance(atom, Func) else 0)


def variables(item: Term | Literal) -> Iterator[Var]:
    """Every variable occurrence in a term or literal, left to right (with repeats)."""
    stack: list[Term | Literal] = [item]
    while stack:
        node = stack.pop()
        if isinstance(node, Var):
            yield node
        elif isinstance(node, Func):
            stack.extend(reversed(node.args))
        elif isinstance(node, Not):
            stack.append(node.arg)
        elif isinstance(node, Distinct):
            stack.extend((node.right, node.left))
        elif isinstance(node, Or):
            stack.extend(reversed(node.disjuncts))


def is_ground(item: Term | Literal) -> bool:
    """True when the term or literal contains no variable."""
    return next(variables(item), None) is None


def atoms_of(literal: Literal) -> Iterator[tuple[Atom, bool]]:
    """The atoms inside a literal with a flag telling whether each occurs under ``not``."""
    stack: list[tuple[Literal, bool]] = [(literal, False)]
    while stack:
        node, negated = stack.pop()
        if isinstance(node, (Const, Func)):
            yield node, negated
        elif isinstance(node, Not):
            stack.append((node.arg, True))
        elif isinstance(node, Or):
            stack.extend((d, negated) for d in reversed(node.disjuncts))


def spelled(term: Term, spellings: dict[str, str]) -> str:
    """``term`` as KIF text, each constant and function name looked up in ``spellings`` (name -> spelling)."""
    if not spellings:
        return str(term)
    if isinstance(term, Const):
        return spellings.get(term.name, term.name)
    if isinstance(term, Func):
        name = spellings.get(term.name, term.name).strip("()")
        if not term.args:
            return f"({name})"
        return f"({name} {' '.join(spelled(arg, spellings) for arg in term.args)})"
    return str(term)


def spelled_literal(literal: Literal, spellings: dict[str, str]) -> str:
    """A body literal (or an atom) as KIF text in the rules' own spelling (see :func:`spelled`)."""
    if isinstance(literal, Not):
        return f"(not {spelled_literal(literal.arg, spellings)})"
    if isinstance(literal, Distinct):
        return f"(distinct {spelled(literal.left, spellings)} {spelled(literal.right, spellings)})"
    if isinstance(literal, Or):
        return "(or" + "".join(f" {spelled_literal(d, spellings)}" for d in literal.disjuncts) + ")"
    return spelled(literal, spellings)


def spelled_rule(rule: Rule, spellings: dict[str, str]) -> str:
    """A rule as KIF text in the rules' own spelling: what a case-sensitive reader (ggp-base) must get."""
    if not rule.body and not rule.arrow:
        return spelled(rule.head, spellings)
    return "(<= " + " ".join(spelled_literal(lit, spellings) for lit in (rule.head, *rule.body)) + ")"


def without_empty_args(term: Term) -> Term:
    """``term`` with every ``(name)`` (a function without arguments) read as the constant ``name``.

    GDL writers use both for the same move (``(noop)``, ``noop``), clingo grounds ``f()`` as ``f``, and
    ggp-base keeps them apart; comparing moves through this makes an answer in either form match.
    """
    if isinstance(term, Func):
        if not term.args:
            return Const(term.name)
        return Func(term.name, tuple(without_empty_args(arg) for arg in term.args))
    return term


def find_move(move: Term, legal: Sequence[Term]) -> Term | None:
    """The term of ``legal`` that ``move`` denotes (equal, or equal once empty argument lists are
    dropped, see :func:`without_empty_args`; failing that, the one legal move whose text differs only in
    case, for a game read case-sensitively, whose moves come back lower-cased from the wire), else None."""
    if move in legal:
        return move
    wanted = without_empty_args(move)
    found = next((candidate for candidate in legal if without_empty_args(candidate) == wanted), None)
    if found is not None:
        return found
    folded = str(wanted).lower()
    matches = [candidate for candidate in legal if str(without_empty_args(candidate)).lower() == folded]
    return matches[0] if len(matches) == 1 else None
