"""The game's rules compiled for the prover: ``or`` expanded, tests placed early, each relation given a tier.

A compiled rule is a head and a body of literals (:data:`_Lit`) in evaluation order; a relation's tier
says how long the tables of its calls live (the whole game, one state or one joint move), from whether
it depends on ``true`` or ``does``. Compiling happens once per game, in
:class:`~ggp.reasoner.prover.ProverMachine`'s constructor.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ggp.errors import ReasonerError
from ggp.gdl.terms import Const, Description, Distinct, Func, Literal, Not, Or, Rule
from ggp.reasoner.prover_terms import _T, _relation, _to_internal, _vars_of

# Literal kinds of a compiled body.
_CALL, _TRUE, _DOES, _NOT, _DISTINCT = range(5)
_STATIC, _STATE, _MOVE = range(3)  # how long a relation's tables live


# A compiled body literal: (kind, pattern, negated kind or tier, right side of distinct).
_Lit = tuple[int, _T, int, _T]


class _Rule:
    __slots__ = ("body", "head", "nvars", "text")

    def __init__(self, head: _T, body: tuple[_Lit, ...], nvars: int, text: str) -> None:
        self.head, self.body, self.nvars, self.text = head, body, nvars, text


def _expand_or(body: Sequence[Literal]) -> list[list[Literal]]:
    """The bodies a body with ``or`` literals stands for (one per choice of disjuncts)."""
    choices: list[list[Literal]] = []
    for literal in body:
        if isinstance(literal, Or):
            options: list[Literal] = []
            stack = list(reversed(literal.disjuncts))
            while stack:  # a nested or is the same as its disjuncts
                disjunct = stack.pop()
                if isinstance(disjunct, Or):
                    stack.extend(reversed(disjunct.disjuncts))
                else:
                    options.append(disjunct)
            choices.append(options)
        else:
            choices.append([literal])
    return [list(combo) for combo in itertools.product(*choices)]


class _Program:
    """The game's rules compiled for top-down evaluation, by relation, with each relation's tier."""

    def __init__(self, description: Description) -> None:
        self.file = description.file
        self.rules: dict[tuple[str, int], list[_Rule]] = {}
        depends: dict[tuple[str, int], set[tuple[str, int]]] = {}
        sources: list[tuple[Rule, list[Literal]]] = []
        for rule in description.rules:
            for body in _expand_or(rule.body):
                sources.append((rule, body))
                key = (rule.head.name, len(rule.head.args) if isinstance(rule.head, Func) else 0)
                deps = depends.setdefault(key, set())
                for literal in body:
                    atom = literal.arg if isinstance(literal, Not) else literal
                    if isinstance(atom, Or):
                        raise ReasonerError(f"{self.file}: the prover cannot evaluate a negated 'or' in {rule}")
                    if isinstance(atom, (Const, Func)):
                        deps.add((atom.name, len(atom.args) if isinstance(atom, Func) else 0))
        self.tier = self._tiers(depends)
        for rule, body in sources:
            compiled = self._compile(rule, body)
            self.rules.setdefault(_relation(compiled.head), []).append(compiled)

    @staticmethod
    def _tiers(depends: dict[tuple[str, int], set[tuple[str, int]]]) -> dict[tuple[str, int], int]:
        tier = {key: _STATIC for key in depends}
        for key in list(depends) + [dep for deps in depends.values() for dep in deps]:
            if key[0] == "true":
                tier[key] = _STATE
            elif key[0] == "does":
                tier[key] = _MOVE
            else:
                tier.setdefault(key, _STATIC)
        changed = True
        while changed:
            changed = False
            for key, deps in depends.items():
                if key[0] in ("true", "does"):
                    continue
                level = max((tier[dep] for dep in deps), default=_STATIC)
                if level > tier[key]:
                    tier[key], changed = level, True
        return tier

    def _literal(self, literal: Literal, names: dict[str, int], rule: Rule) -> _Lit:
        if isinstance(literal, Distinct):
            return (_DISTINCT, _to_internal(literal.left, names), 0, _to_internal(literal.right, names))
        if isinstance(literal, Not):
            inner = self._literal(literal.arg, names, rule)
            if inner[0] not in (_CALL, _TRUE, _DOES):
                raise ReasonerError(f"{self.file}: the prover cannot evaluate (not {literal.arg}) in {rule}")
            return (_NOT, inner[1], inner[0], inner[1])
        if isinstance(literal, (Const, Func)):
            pattern = _to_internal(literal, names)
            if literal.name == "true" and isinstance(literal, Func) and len(literal.args) == 1:
                return (_TRUE, pattern[1], 0, "")
            if literal.name == "does" and isinstance(literal, Func) and len(literal.args) == 2:
                return (_DOES, pattern, 0, "")
            return (_CALL, pattern, self.tier.get(_relation(pattern), _STATIC), "")
        raise ReasonerError(f"{self.file}: the prover cannot evaluate {literal} in {rule}")

    def _compile(self, rule: Rule, body: list[Literal]) -> _Rule:
        names: dict[str, int] = {}
        head = _to_internal(rule.head, names)
        literals = [self._literal(literal, names, rule) for literal in body]
        # Tests (not, distinct) go right after the positive literal that binds their last variable.
        ordered: list[_Lit] = []
        waiting: list[_Lit] = []
        bound: set[int] = set()

        def needs(lit: _Lit) -> set[int]:
            return _vars_of(lit[1]) | (_vars_of(lit[3]) if lit[0] == _DISTINCT else set())

        def release() -> None:
            for lit in list(waiting):
                if needs(lit) <= bound:
                    ordered.append(lit)
                    waiting.remove(lit)

        for lit in literals:
            if lit[0] in (_NOT, _DISTINCT):
                waiting.append(lit)
            else:
                ordered.append(lit)
                bound |= _vars_of(lit[1])
            release()
        ordered.extend(waiting)  # unsafe tests: evaluated last, an unbound variable is an error then
        return _Rule(head, tuple(ordered), len(names), str(rule))
