"""Static GDL validator: every restriction of the GDL spec (§4) and the checklist of §6.2.

:func:`validate` returns every problem at once as :class:`Finding` values (errors and warnings);
:func:`check_or_raise` is the yes/no form for callers that only need a valid description. The
clingo grounding budget is not checked here (the reasoner does that), nor are the simulation
checks of §6.3 (``ggp.reasoner.simulate``).

The work is two passes over the rules plus one strongly-connected-components pass over the
relation dependency graph, so it stays linear in the size of the description.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif("(role x) (<= (legal x ?m) (true (c ?n))) (goal x 100) terminal")
>>> for finding in validate(game):
...     print(finding.pos, finding.severity, finding.check)
<string>:1:1 warning no-base-input
<string>:1:10 error safety
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from ggp.errors import GdlValidationError, SourcePos
from ggp.gdl.dependencies import _body_atoms, dependency_graph
from ggp.gdl.rule_cycles import _RuleGraph
from ggp.gdl.terms import (
    KEYWORD_ARITIES,
    KEYWORDS,
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
    is_ground,
    variables,
)

Severity = TypingLiteral["error", "warning"]

REQUIRED: tuple[str, ...] = ("role", "legal", "goal", "terminal")
"""Relations every game must define."""

CHECKS: Mapping[str, str] = {
    "missing": "error: no role fact, or no rule/fact for legal, goal or terminal",
    "arity": "error: a keyword used with the wrong number of arguments",
    "reserved": "error: not/or/distinct used as a constant or malformed",
    "keyword-function": "error: a keyword or reserved word used as a function name inside a term",
    "placement": "error: true/does in a head or fact; init/next/base/input/sees in a body; not/or/distinct as head",
    "role": "error: role defined by a rule instead of ground facts",
    "duplicate-role": "error: the same role declared twice",
    "dependency": "error: init/base/input depend on true or does; legal/goal/terminal depend on does",
    "negation": "error: not applied to something other than an atom",
    "safety": "error: a head, negated or distinct variable not bound by a positive body atom",
    "stratification": ("error: a ground atom depends on its own negation; warning (error if strict): a relation "
                       "does, but its ground instances may be stratified (locally stratified)"),
    "recursion": "error: the recursion restriction (spec 4.3) is broken",
    "fact-variables": "error: a fact contains variables",
    "unknown-keyword": "error: a KIF operator GDL lacks (and, =>, <=>, exists, forall) used as a relation",
    "goal-value": "error: non-integer goal value; warning (error if strict): outside 0..100",
    "keyword-constant": "warning: a keyword used as an object constant",
    "arity-mismatch": "warning: a relation or function used with several arities",
    "relation-function": "warning: a name used both as a relation and as a function",
    "charset": "warning: a name with characters outside [A-Za-z0-9_-]",
    "capitalisation": "warning: one name written with different capitalisations (parser note)",
    "zero-arity-parens": "warning: '(name)' with no arguments (parser note)",
    "nested-or": "warning: or inside or",
    "empty-or": "warning: '(or)' with no disjuncts",
    "empty-body": "warning: '(<= head)' with no body",
    "undefined": "warning: a relation used in a body but never defined",
    "unused": "warning: a relation defined but never used",
    "no-base-input": "warning: no base or no input relations",
    "duplicate-rule": "warning: the exact same sentence twice",
}
"""Every check id :func:`validate` reports, with its severity and meaning (spec §6.2)."""

_HEAD_ONLY = frozenset({"init", "next", "base", "input", "sees"})
_BODY_ONLY = frozenset({"true", "does"})
_STATIC = frozenset({"init", "base", "input"})  # must not depend on true or does
_NO_DOES = frozenset({"legal", "goal", "terminal"})  # must not depend on does
_NAME_CHARS = re.compile(r"[A-Za-z0-9_-]+")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_USAGE = {"not": "(not atom)", "distinct": "(distinct term term)", "or": "(or literal...)"}
_NOT_GDL: Mapping[str, str] = {
    "and": "a rule body is already a conjunction: list the literals directly",
    "=>": "write rules as (<= head body...)",
    "<=>": "write each direction as its own (<= head body...) rule",
    "exists": "GDL has no quantifiers; use a variable in a positive body atom",
    "forall": "GDL has no quantifiers; use a helper relation and 'not'",
}
"""KIF operators that are not GDL: used as a relation they are almost surely a mistake (project check)."""
_RULE_TEXT_SHOWN = 60


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in a description.

    ``check`` is a short id (``"safety"``, ``"stratification"``, ``"arity"``, ...), ``pos`` where
    the offending sentence (or token) starts, ``rule`` the KIF text of that sentence when there is
    one. ``str()`` gives one line: ``file:line:col: error[check]: message  in: <rule>``.
    """

    severity: Severity
    check: str
    message: str
    pos: SourcePos | None = None
    rule: str | None = None

    def __str__(self) -> str:
        where = f"{self.pos}: " if self.pos else ""
        text = f"{where}{self.severity}[{self.check}]: {self.message}"
        if self.rule:
            shown = " ".join(self.rule.split())
            if len(shown) > _RULE_TEXT_SHOWN:
                shown = shown[: _RULE_TEXT_SHOWN - 3] + "..."
            text += f"  in: {shown}"
        # Escape control characters from hostile input: the line must stay one terminal line.
        return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def validate(description: Description, *, strict: bool = False) -> list[Finding]:
    """Check a description against GDL's static restrictions; return every finding, errors first by position.

    ``strict`` turns goal values outside 0..100 from warnings into errors. Never raises for a
    description the parser produced (or one built from :mod:`ggp.gdl.terms` values).
    """
    return _Validator(description, strict).run()


def check_or_raise(description: Description, *, strict: bool = False) -> list[Finding]:
    """Validate and raise :class:`GdlValidationError` for the first error; return the warnings.

    >>> from ggp.gdl.parser import parse_kif
    >>> check_or_raise(parse_kif("(role x) (<= (legal x a) (does x a)) (goal x 50) terminal"))
    Traceback (most recent call last):
    ...
    ggp.errors.GdlValidationError: <string>:1:10: 'legal' must not depend on 'does' (it uses 'does')
    """
    findings = validate(description, strict=strict)
    for finding in findings:
        if finding.severity == "error":
            raise GdlValidationError(finding.message, finding.pos)
    return findings


def _args(atom: Atom) -> tuple[Term, ...]:
    return atom.args if isinstance(atom, Func) else ()


def _bound(literal: Literal) -> set[Var]:
    """Variables a literal binds: an atom's variables; an ``or`` binds those bound in every disjunct."""
    if isinstance(literal, (Const, Func)):
        return set(variables(literal))
    if isinstance(literal, Or):
        if not literal.disjuncts:
            return set()
        sets = [_bound(d) for d in literal.disjuncts]
        return set.intersection(*sets)
    return set()


def _needing(literal: Literal, negated: bool = False) -> Iterator[Var]:
    """Variables that must be bound elsewhere: those under ``not`` and in ``distinct``."""
    if isinstance(literal, (Const, Func)):
        if negated:
            yield from variables(literal)
    elif isinstance(literal, Distinct):
        yield from variables(literal)
    elif isinstance(literal, Not):
        yield from _needing(literal.arg, True)
    else:
        for disjunct in literal.disjuncts:
            yield from _needing(disjunct, negated)


def _suggest(name: str) -> str:
    close = difflib.get_close_matches(name, sorted(KEYWORDS), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _Validator:
    """One validation run: pass 1 collects per-rule facts and the graph; pass 2 needs the graph."""

    def __init__(self, description: Description, strict: bool) -> None:
        self.description = description
        self.strict = strict
        self.findings: list[Finding] = []
        self.defined: dict[str, tuple[SourcePos | None, str]] = {}
        self.used: dict[str, tuple[SourcePos | None, str]] = {}
        self.relation_arities: dict[str, dict[int, tuple[SourcePos | None, str]]] = {}
        self.function_arities: dict[str, dict[int, tuple[SourcePos | None, str]]] = {}
        self.checked_names: set[str] = set()
        self.roles: dict[Term, SourcePos | None] = {}
        self.seen_rules: dict[Rule, SourcePos | None] = {}

    def add(self, severity: Severity, check: str, message: str, rule: Rule | None = None,
            pos: SourcePos | None = None) -> None:
        where = pos if pos is not None else (rule.pos if rule is not None else None)
        self.findings.append(Finding(severity, check, message, where, str(rule) if rule else None))

    def run(self) -> list[Finding]:
        for note in self.description.notes:
            self.add("warning", note.check, note.message, pos=note.pos)
        for rule in self.description.rules:
            self.first_pass(rule)
        self.whole_description()
        graph = dependency_graph(self.description)
        component = graph.components()
        does_reach = graph.reachable_from("does")
        true_reach = graph.reachable_from("true")
        self.stratification(component)
        for rule in self.description.rules:
            self.recursion(rule, component)
            self.dependencies(rule, does_reach, true_reach)
        return sorted(self.findings, key=_finding_order)

    # -- pass 1 ---------------------------------------------------------------------------------

    def first_pass(self, rule: Rule) -> None:
        text = str(rule)
        head = rule.head
        self.atom(head, rule, text, in_head=True)
        self.defined.setdefault(head.name, (rule.pos, text))
        if head.name in _BODY_ONLY:
            where = "a fact" if not rule.body else "a rule head"
            self.add("error", "placement", f"{head.name!r} cannot be {where}; it only appears in bodies", rule)
        if head.name == "role":
            self.role(rule)
        if head.name == "goal":
            self.goal_value(rule)
        if not rule.body:
            if rule.arrow:
                self.add("warning", "empty-body", "rule with '<=' but no body; write it as a fact", rule)
            names = sorted({f"?{v.name}" for v in variables(head)})
            if names:
                self.add("error", "fact-variables", f"fact contains variables {', '.join(names)}", rule)
        for literal in rule.body:
            self.literal(literal, rule, text, top=True)
        if rule.body:
            self.safety(rule)
        first = self.seen_rules.setdefault(rule, rule.pos)
        if first is not rule.pos and rule.pos is not None:
            line = f" at line {first.line}" if first is not None else ""
            self.add("warning", "duplicate-rule", f"exact duplicate of the sentence{line}", rule)

    def role(self, rule: Rule) -> None:
        if rule.body:
            self.add("error", "role", "'role' must be defined by ground facts, not by a rule", rule)
            return
        args = _args(rule.head)
        if len(args) != 1 or not is_ground(args[0]):
            return  # reported as arity / fact-variables
        if args[0] in self.roles:
            first = self.roles[args[0]]
            line = f" (first at line {first.line})" if first is not None else ""
            self.add("error", "duplicate-role", f"role {str(args[0])!r} is declared twice{line}", rule)
        else:
            self.roles[args[0]] = rule.pos

    def goal_value(self, rule: Rule) -> None:
        args = _args(rule.head)
        if len(args) != 2 or not is_ground(args[1]):
            return
        value = args[1]
        if not isinstance(value, Const) or not _INTEGER.fullmatch(value.name):
            self.add("error", "goal-value", f"goal value {str(value)!r} is not an integer", rule)
        elif not 0 <= int(value.name) <= 100:
            self.add("error" if self.strict else "warning", "goal-value",
                     f"goal value {value.name} is outside 0..100", rule)

    def literal(self, literal: Literal, rule: Rule, text: str, *, top: bool, in_or: bool = False) -> None:
        if isinstance(literal, (Const, Func)):
            self.atom(literal, rule, text, in_head=False)
        elif isinstance(literal, Not):
            if not isinstance(literal.arg, (Const, Func)):
                self.add("error", "negation", f"'not' must wrap an atom, not {str(literal.arg)!r}", rule)
            self.literal(literal.arg, rule, text, top=False, in_or=in_or)
        elif isinstance(literal, Distinct):
            self.term(literal.left, rule, text)
            self.term(literal.right, rule, text)
        else:
            if not literal.disjuncts:
                self.add("warning", "empty-or", "empty '(or)' is always false", rule)
            if in_or:
                self.add("warning", "nested-or", f"'or' nested inside 'or': {str(literal)!r}", rule)
            for disjunct in literal.disjuncts:
                self.literal(disjunct, rule, text, top=False, in_or=True)

    def atom(self, atom: Atom, rule: Rule, text: str, *, in_head: bool) -> None:
        name = atom.name
        args = _args(atom)
        if name in _NOT_GDL:
            # The arguments are literals read as terms: checking them as terms would only add noise.
            self.add("error", "unknown-keyword", f"{name!r} is not a GDL keyword: {_NOT_GDL[name]}", rule)
            return
        if name in RESERVED:
            if in_head:
                self.add("error", "placement", f"reserved word {name!r} cannot head a sentence", rule)
            else:
                self.add("error", "reserved", f"malformed {name!r}: expected {_USAGE.get(name, name)}", rule)
        elif name in KEYWORDS:
            expected = KEYWORD_ARITIES[name]
            if len(args) != expected:
                self.add("error", "arity", f"{name!r} takes {expected} argument{'s' * (expected != 1)}, "
                         f"found {len(args)}", rule)
            if not in_head and name in _HEAD_ONLY:
                self.add("error", "placement", f"{name!r} cannot appear in a rule body", rule)
        else:
            arities = self.relation_arities.setdefault(name, {})
            arities.setdefault(len(args), (rule.pos, text))
            self.check_name(name, rule)
        if not in_head:
            self.used.setdefault(name, (rule.pos, text))
        for arg in args:
            self.term(arg, rule, text)

    def term(self, term: Term, rule: Rule, text: str) -> None:
        stack = [term]
        while stack:
            node = stack.pop()
            if isinstance(node, Var):
                self.check_name(node.name, rule, "?")
            elif isinstance(node, Const):
                if node.name in RESERVED:
                    self.add("error", "reserved", f"reserved word {node.name!r} used as a constant", rule)
                elif node.name in KEYWORDS:
                    self.add("warning", "keyword-constant",
                             f"keyword {node.name!r} used as an object constant", rule)
                else:
                    self.check_name(node.name, rule)
            else:
                if node.name in KEYWORDS or node.name in RESERVED:
                    self.add("error", "keyword-function",
                             f"{node.name!r} used as a function name inside a term", rule)
                else:
                    arities = self.function_arities.setdefault(node.name, {})
                    arities.setdefault(len(node.args), (rule.pos, text))
                    self.check_name(node.name, rule)
                stack.extend(reversed(node.args))

    def check_name(self, name: str, rule: Rule, prefix: str = "") -> None:
        key = prefix + name
        if key in self.checked_names:
            return
        self.checked_names.add(key)
        if not _NAME_CHARS.fullmatch(name):
            bad = sorted({c for c in name if not _NAME_CHARS.fullmatch(c)})
            self.add("warning", "charset",
                     f"name {key!r} has characters outside [A-Za-z0-9_-]: {''.join(bad)!r}", rule)

    def safety(self, rule: Rule) -> None:
        bound: set[Var] = set()
        for literal in rule.body:
            bound |= _bound(literal)
        unsafe: dict[Var, str] = {}
        for var in variables(rule.head):
            if var not in bound:
                unsafe.setdefault(var, "the head")
        for literal in rule.body:
            where = "a distinct" if isinstance(literal, Distinct) else "a negated literal"
            for var in _needing(literal):
                if var not in bound:
                    unsafe.setdefault(var, where if not isinstance(literal, Or) else "a negated literal or distinct")
        for var, where in unsafe.items():
            self.add("error", "safety",
                     f"unsafe variable '?{var.name}': it occurs in {where} but in no positive body atom", rule)

    # -- whole description ----------------------------------------------------------------------

    def whole_description(self) -> None:
        # Findings about the whole game point at the start of the file.
        file_start = SourcePos(self.description.file, 1, 1)
        for name in REQUIRED:
            if name not in self.defined:
                what = "(role ...) fact" if name == "role" else f"rule or fact for {name!r}"
                self.add("error", "missing", f"the game has no {what}", pos=file_start)
        missing = [name for name in ("base", "input") if name not in self.defined]
        if missing:
            self.add("warning", "no-base-input",
                     f"the game defines no {' and no '.join(repr(m) for m in missing)} relation"
                     f"{'s' if len(missing) > 1 else ''} (optional in GDL)", pos=file_start)
        for name, (pos, text) in self.used.items():
            if name not in self.defined and name not in KEYWORDS and name not in RESERVED:
                self.findings.append(Finding("warning", "undefined",
                                             f"relation {name!r} is used in a body but never defined"
                                             f"{_suggest(name)}", pos, text))
        for name, (pos, text) in self.defined.items():
            if name not in self.used and not (name in KEYWORDS or name in RESERVED or name in _NOT_GDL):
                self.findings.append(Finding("warning", "unused",
                                             f"relation {name!r} is defined but never used{_suggest(name)}",
                                             pos, text))
        for name, arities in self.relation_arities.items():
            if len(arities) > 1:
                self.mixed_arities("relation", name, arities)
            if name in self.function_arities:
                pos, text = self.function_arities[name][min(self.function_arities[name])]
                self.findings.append(Finding("warning", "relation-function",
                                             f"{name!r} is used both as a relation and as a function",
                                             pos, text))
        for name, arities in self.function_arities.items():
            if len(arities) > 1:
                self.mixed_arities("function", name, arities)

    def mixed_arities(self, kind: str, name: str, arities: dict[int, tuple[SourcePos | None, str]]) -> None:
        # Point at the first occurrence of the arity seen second, the likely odd one out.
        ordered = sorted(arities.items(), key=lambda item: _pos_order(item[1][0]))
        pos, text = ordered[1][1]
        shown = ", ".join(str(arity) for arity, _ in ordered)
        self.findings.append(Finding("warning", "arity-mismatch",
                                     f"{kind} {name!r} is used with different arities: {shown}", pos, text))

    # -- pass 2 ---------------------------------------------------------------------------------

    def stratification(self, component: dict[str, int]) -> None:
        """Negative edges inside a component of the relation graph, refined on the rules' instances.

        GDL (spec 4.2) asks for stratification on relations, but real games negate one instance of a
        relation to define another (``(<= (goal ?r 0) (not (goal ?r 100)))``) and the reference prover
        plays them: only their ground instances are stratified. Each negative edge inside a relation
        cycle is therefore checked on the *rule graph* (an edge from a rule to each rule with a body
        atom its head unifies with): no rule cycle through it is a warning (locally stratified); a rule
        cycle whose atoms unify all the way round is one instance that depends on its own negation,
        an error; anything else cannot be decided without grounding (a warning: the engines check the
        ground program). ``strict`` keeps GDL's relation-level rule and makes the warnings errors.
        """
        flagged = [
            (index, rule, atom)
            for index, rule in enumerate(self.description.rules)
            for atom, negated, _ in _body_atoms(rule.body)
            if negated and component.get(atom.name) == component.get(rule.head.name)
        ]
        if not flagged:
            return
        groups = {component[rule.head.name] for _, rule, _ in flagged}
        graph = _RuleGraph([rule for rule in self.description.rules if component.get(rule.head.name) in groups])
        reported: set[int] = set()
        for index, rule, atom in flagged:
            if index in reported:
                continue
            reported.add(index)
            head = rule.head.name
            via = "" if atom.name == head else f" through {atom.name!r}"
            cycle = graph.negative_cycle(rule, atom)
            if cycle is None:
                self.add("error" if self.strict else "warning", "stratification",
                         f"{head!r} depends on its own negation{via} at the relation level, but no instance "
                         f"of '(not {atom})' is in a cycle (locally stratified)", rule)
            elif cycle:
                self.add("error", "stratification",
                         f"a ground atom of {head!r} depends on its own negation: {cycle}", rule)
            else:
                self.add("error" if self.strict else "warning", "stratification",
                         f"{head!r} depends on its own negation{via}: '(not {atom})' is in a cycle at the "
                         "relation level; whether a ground instance is too is checked when the game is grounded",
                         rule)

    def recursion(self, rule: Rule, component: dict[str, int]) -> None:
        head = rule.head
        group = component.get(head.name)
        positive = [(atom, in_or) for atom, negated, in_or in _body_atoms(rule.body) if not negated]
        recursive = [atom for atom, _ in positive if component.get(atom.name) == group]
        if not recursive:
            return
        allowed: set[Term] = set(_args(head))
        for atom, _ in positive:
            if component.get(atom.name) != group:
                allowed.update(_args(atom))
        for atom in recursive:
            for arg in _args(atom):
                if not is_ground(arg) and arg not in allowed:
                    self.add("error", "recursion",
                             f"recursion restriction: argument {str(arg)!r} of {atom.name!r} (recursive with "
                             f"{head.name!r}) is not ground, not a head argument and not an argument of "
                             "a non-recursive positive body atom", rule)

    def dependencies(self, rule: Rule, does_reach: dict[str, str], true_reach: dict[str, str]) -> None:
        head = rule.head.name
        if head not in _STATIC and head not in _NO_DOES:
            return
        sources = ("true", "does") if head in _STATIC else ("does",)
        for atom, _, _ in _body_atoms(rule.body):
            for source in sources:
                reach = does_reach if source == "does" else true_reach
                if atom.name == source or atom.name in reach:
                    how = f"it uses {source!r}" if atom.name == source else f"through {atom.name!r}"
                    self.add("error", "dependency", f"{head!r} must not depend on {source!r} ({how})", rule)
                    return


def _pos_order(pos: SourcePos | None) -> tuple[int, int]:
    return (pos.line, pos.column) if pos is not None else (0, 0)


def _finding_order(finding: Finding) -> tuple[int, int]:
    return _pos_order(finding.pos)
