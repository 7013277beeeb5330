"""Call-pattern specialisation: a relation called with constants gets a copy of its rules for those constants.

Bottom-up evaluation computes every tuple of a relation, also those no rule ever asks for. GDL games
often call a general relation with constants only: chineseCheckers' goal is
``(count h1 h2 i1 red ?payoff)`` while ``count``'s rules join three ``(true (cell ?x ?player))``
literals over every cell, blank ones included (about 240,000 tuples a state, to read three).
Partial evaluation fixes that: each call ``(r c1 ?y)`` whose arguments include ground terms becomes a
call of a new relation ``r'(?y)`` whose rules are ``r``'s rules with the head unified with the call's
constants (a rule whose head does not unify is dropped). ``r'(y)`` holds exactly when ``r(c1, y)`` does,
so positive and negated calls keep their meaning; the new rules are specialised in turn (a worklist),
so constants travel down (``terminal`` asks ``(goal ?p 100)``, whose copy asks ``count`` with five
constants, whose copy is three ``true`` lookups).

Only relations outside a recursive group are specialised (a recursive relation's copies would call
the general relation again), only calls outside ``or``, and at most :data:`MAX_PATTERNS` call patterns
per relation (each copy costs at most what the relation costs; many copies could cost more than one
general relation). The original rules stay: output relations and unspecialised calls still use them,
and the evaluator computes only what its queries reach. Used by the per-state reasoner's rule compiler
(:mod:`ggp.reasoner.rulecode`) on the dynamic rules.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(<= (p ?x ?y) (true (c ?x)) (true (c ?y))) (<= (goal r 1) (p a ?z))")
>>> for rule in specialize_calls(game.rules, frozenset({("p", 2), ("goal", 2)})): print(rule)
(<= (p ?x ?y) (true (c ?x)) (true (c ?y)))
(<= (goal r 1) (p@a ?z))
(<= (p@a ?y) (true (c a)) (true (c ?y)))
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence

from ggp.gdl.terms import Const, Distinct, Func, Not, Or, Rule, Term, Var
from ggp.gdl.terms import Literal as GdlLiteral
from ggp.graphs import strongly_connected_components
from ggp.reasoner.relations import DOES_KEY, TRUE_KEY, RelKey, relation_key, relation_uses

MAX_PATTERNS = 64
"""Most call patterns (sets of constant arguments) one relation is specialised for."""

MAX_NEW_RULES = 5_000
"""Specialisation stops adding copies past this many new rules (a guard against blow-ups)."""

_Atom = Const | Func
_Pattern = tuple[tuple[int, Term], ...]
"""(position, ground argument) for each ground argument of a call, in position order."""


def _ground(term: Term) -> bool:
    if isinstance(term, Var):
        return False
    if isinstance(term, Func):
        return all(_ground(arg) for arg in term.args)
    return True


def _args(atom: _Atom) -> tuple[Term, ...]:
    return () if isinstance(atom, Const) else atom.args


def _match(pattern: Term, value: Term, env: dict[str, Term]) -> bool:
    """Extend ``env`` so that ``pattern`` (with variables) equals the ground ``value``; False if impossible."""
    if isinstance(pattern, Var):
        bound = env.get(pattern.name)
        if bound is None:
            env[pattern.name] = value
            return True
        return bound == value
    if isinstance(pattern, Func) or isinstance(value, Func):
        if not (isinstance(pattern, Func) and isinstance(value, Func)):
            return False
        if pattern.name != value.name or len(pattern.args) != len(value.args):
            return False
        return all(_match(p, v, env) for p, v in zip(pattern.args, value.args))
    return pattern == value


def _apply(term: Term, env: Mapping[str, Term]) -> Term:
    if isinstance(term, Var):
        return env.get(term.name, term)
    if isinstance(term, Func) and term.args:
        return Func(term.name, tuple(_apply(arg, env) for arg in term.args))
    return term


def _apply_literal(literal: GdlLiteral, env: Mapping[str, Term]) -> GdlLiteral:
    if isinstance(literal, Not):
        return Not(_apply_literal(literal.arg, env))
    if isinstance(literal, Distinct):
        return Distinct(_apply(literal.left, env), _apply(literal.right, env))
    if isinstance(literal, Or):
        return Or(tuple(_apply_literal(d, env) for d in literal.disjuncts))
    return _apply(literal, env)  # type: ignore[return-value]


def _atom(name: str, args: Sequence[Term]) -> _Atom:
    return Func(name, tuple(args)) if args else Const(name)


def _recursive(rules: Sequence[Rule]) -> set[RelKey]:
    depends = relation_uses(rules)
    recursive: set[RelKey] = set()
    for component in strongly_connected_components(sorted(depends), lambda key: sorted(depends.get(key, ()))):
        if len(component) > 1 or component[0] in depends.get(component[0], set()):
            recursive.update(component)
    return recursive


def specialize_calls(rules: Iterable[Rule], relations: frozenset[RelKey]) -> list[Rule]:
    """``rules`` plus specialised copies of the relations in ``relations`` for their calls with ground
    arguments, the calls rewritten to use them (see the module docstring). Other relations (``true``,
    ``does``, static tables) are left alone."""
    rules = list(rules)
    by_head: dict[RelKey, list[Rule]] = {}
    for rule in rules:
        by_head.setdefault(relation_key(rule.head), []).append(rule)
    special = {key for key in relations if key in by_head} - _recursive(rules) - {TRUE_KEY, DOES_KEY}
    names: dict[tuple[RelKey, _Pattern], str | None] = {}
    """Pattern -> the copy's name, or None when no rule's head unifies (the call is false)."""
    patterns: dict[RelKey, int] = {}
    used = {key[0] for key in by_head}
    out: list[Rule] = []
    pending: deque[Rule] = deque(rules)
    added = 0

    def copy_for(key: RelKey, pattern: _Pattern) -> str | bool | None:
        """The copy's name (None: the call is false), or False when this call is not specialised."""
        nonlocal added
        if (key, pattern) in names:
            return names[(key, pattern)]
        if patterns.get(key, 0) >= MAX_PATTERNS or added >= MAX_NEW_RULES:
            return False
        patterns[key] = patterns.get(key, 0) + 1
        name = key[0] + "@" + "@".join(str(value) for _, value in pattern)
        while name in used:
            name += "'"
        copies = _copies(by_head[key], name, pattern)
        if not copies:
            names[(key, pattern)] = None
            return None
        used.add(name)
        names[(key, pattern)] = name
        added += len(copies)
        pending.extend(copies)
        return name

    def rewrite(atom: _Atom) -> _Atom | bool:
        """The call rewritten to its copy, True to keep it as it is, False when it can never hold."""
        key = relation_key(atom)
        if key not in special:
            return True
        args = _args(atom)
        pattern = tuple((i, arg) for i, arg in enumerate(args) if _ground(arg))
        if not pattern:
            return True
        name = copy_for(key, pattern)
        if name is False:
            return True
        if name is None:
            return False
        assert isinstance(name, str)
        return _atom(name, [arg for i, arg in enumerate(args) if not _ground(arg)])

    while pending:
        rule = pending.popleft()
        body = _rewritten_body(rule.body, rewrite)
        if body is not None:
            out.append(Rule(rule.head, tuple(body), rule.pos, arrow=rule.arrow) if body or not rule.body
                       else Rule(rule.head, (), rule.pos, arrow=True))
    return out


def _copies(rules: Sequence[Rule], name: str, pattern: _Pattern) -> list[Rule]:
    """The copies, named ``name``, of one relation's ``rules`` for its calls whose arguments at
    ``pattern``'s positions are ``pattern``'s ground values: the rules whose head unifies with them, with
    the head's fixed arguments dropped and the bindings applied."""
    fixed = dict(pattern)
    copies: list[Rule] = []
    for rule in rules:
        env: dict[str, Term] = {}
        head_args = _args(rule.head)
        if not all(_match(head_args[i], value, env) for i, value in pattern):
            continue
        free = [_apply(arg, env) for i, arg in enumerate(head_args) if i not in fixed]
        copies.append(Rule(_atom(name, free), tuple(_apply_literal(lit, env) for lit in rule.body), rule.pos,
                           arrow=True))
    return copies


def _rewritten_body(body: Sequence[GdlLiteral], rewrite: Callable[[_Atom], _Atom | bool]) -> list[GdlLiteral] | None:
    """``body`` with each call rewritten by ``rewrite`` (see ``specialize_calls``), or None when a positive
    call can never hold (the rule never fires)."""
    out: list[GdlLiteral] = []
    for literal in body:
        inner = literal.arg if isinstance(literal, Not) else literal
        if not isinstance(inner, (Const, Func)):
            out.append(literal)
            continue
        new = rewrite(inner)
        if new is True:
            out.append(literal)
        elif new is False:
            if not isinstance(literal, Not):
                return None  # a positive call that can never hold: the rule never fires
            # a negated call that can never hold is always true: the literal goes
        else:
            assert not isinstance(new, bool)
            out.append(Not(new) if isinstance(literal, Not) else new)
    return out
