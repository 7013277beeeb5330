"""Rule decomposition: split a rule's body so that its grounding joins few variables at a time.

A bottom-up grounder instantiates a rule once for every combination of its variables' values that its
positive literals allow. A variable that is not in the head and occurs in only some of the literals
multiplies that count for nothing: hex's

    (<= (next (connected ?k ?x ?y)) (transfer ?e) (true (connected ?e ?x ?y)) (true (step ?k)))

has 82 x 82 x 81 ground instances, although ``?e`` meets ``?k`` nowhere. Eliminating ``?e`` first gives

    (<= (aux ?x ?y) (transfer ?e) (true (connected ?e ?x ?y)))        82 x 81 instances
    (<= (next (connected ?k ?x ?y)) (aux ?x ?y) (true (step ?k)))      82 x 81 instances

which means the same (``aux`` is the projection of the literals it replaces). This is variable
elimination (bucket elimination; Bichler, Morak and Woltran's *lpopt* does it by tree decompositions):
repeatedly pick a variable outside the head, move the literals that mention it (plus, for safety, the
positive literals that bind the variables of a negated or ``distinct`` literal among them) into a new
rule whose head keeps only the variables still used elsewhere, until every remaining choice would move
the whole body. The variable chosen is the one whose new rule joins the fewest variables (then the
one whose new head is smallest). New rules are split again in turn. ``or`` is expanded first.

The result defines every relation of the input exactly as before (the new relations are fresh names), so
any engine that grounds the rules may use it; the circuit compiler does (:mod:`ggp.reasoner.circuit.extract`).

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(<= (h ?k ?x) (t ?e) (c ?e ?x) (s ?k))")
>>> for rule in decompose_rules(game.rules): print(rule)
(<= (h ?k ?x) (h~1 ?x) (s ?k))
(<= (h~1 ?x) (t ?e) (c ?e ?x))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ggp.gdl.terms import Const, Distinct, Func, Literal, Not, Rule, Var
from ggp.reasoner.relations import expand_or, literal_vars


def decompose_rules(rules: Iterable[Rule]) -> tuple[Rule, ...]:
    """The rules with ``or`` expanded and every body split by variable elimination (see the module)."""
    rules = tuple(rules)
    used = {rule.head.name for rule in rules}
    counters: dict[str, int] = {}

    def fresh(base: str) -> str:
        while True:
            counters[base] = counters.get(base, 0) + 1
            name = f"{base}~{counters[base]}"
            if name not in used:
                used.add(name)
                return name

    out: list[Rule] = []
    work = [Rule(rule.head, body, rule.pos, rule.arrow) for rule in reversed(rules) for body in expand_or(rule.body)]
    while work:
        rule = work.pop()
        head_vars = literal_vars(rule.head)
        body = list(rule.body)
        while (split := _best_split(body, head_vars)) is not None:
            group, keep = split
            name = fresh(rule.head.name.split("~")[0])
            aux: Const | Func = Func(name, tuple(Var(v) for v in keep)) if keep else Const(name)
            work.append(Rule(aux, tuple(body[i] for i in group), rule.pos, True))
            first = group[0]
            body = [aux if i == first else lit for i, lit in enumerate(body) if i == first or i not in group]
        out.append(Rule(rule.head, tuple(body), rule.pos, rule.arrow))
    return tuple(out)


def _best_split(body: Sequence[Literal], head_vars: set[str]) -> tuple[list[int], list[str]] | None:
    """The literals (indices, in body order) to move into a new rule and its head's variables, or None."""
    lit_vars = [literal_vars(lit) for lit in body]
    candidates = set().union(*lit_vars) - head_vars if lit_vars else set()
    best: tuple[tuple[int, int, int], list[int], list[str]] | None = None
    for var in sorted(candidates):
        group = _group(body, lit_vars, var)
        if group is None or len(group) == len(body):
            continue
        inside = set().union(*(lit_vars[i] for i in group))
        outside = set(head_vars).union(*(lit_vars[i] for i in range(len(body)) if i not in group))
        keep = sorted(inside & outside)
        score = (len(inside), len(keep), len(group))
        if best is None or score < best[0]:
            best = (score, group, keep)
    return None if best is None else (best[1], best[2])


def _group(body: Sequence[Literal], lit_vars: list[set[str]], var: str) -> list[int] | None:
    """The literals mentioning ``var``, closed under safety: each variable of a negated or ``distinct``
    literal in the group is bound by a positive literal in it (None when no literal can bind one)."""
    group = {i for i, names in enumerate(lit_vars) if var in names}
    while True:
        bound = set().union(*(lit_vars[i] for i in group if _binds(body[i])))
        unbound = set().union(*(lit_vars[i] for i in group)) - bound
        if not unbound:
            return sorted(group)
        binders = {i for i, names in enumerate(lit_vars) if _binds(body[i]) and names & unbound}
        if binders <= group:
            return None
        group |= binders


def _binds(literal: Literal) -> bool:
    """Whether the literal binds its variables (a positive atom; not a negation or ``distinct``)."""
    return not isinstance(literal, (Not, Distinct))
