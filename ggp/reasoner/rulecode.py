"""Compile GDL rules into Python functions that evaluate one state (and joint move) bottom-up.

This is the engine behind :class:`~ggp.reasoner.per_state.PerStateMachine`. It exists because some
real games (the seed games' 6-argument ``playerStat`` fluent) have a fluent domain far too large to
ground once, while any *single* state holds only a handful of fluents.

How it works:

1. *Split.* A relation is *dynamic* when its rules depend, directly or not, on ``true`` or ``does``;
   every other relation is *static*. clingo computes the static relations once (they are
   state-independent: arithmetic tables, distances, board topology).
2. *Compile.* Each rule defining a dynamic relation becomes generated Python code with nested loops:
   body literals are ordered greedily (filters as soon as their variables are bound, then the
   cheapest generator, estimated from the real sizes of the static tables), static relations are
   looked up through hash indexes built for exactly the bound argument positions each literal uses.
   The rules of consecutive non-recursive relations are fused into one function, so a query makes a
   handful of Python calls rather than one per rule.
3. *Evaluate.* A query runs the rules of the relations it needs in stratified (topological) order;
   recursive groups are iterated to a fixpoint, and a group with negation inside (stratified only on
   ground atoms) is solved by the alternating fixpoint. The result is the unique answer set, the same
   one clingo finds.

Ground terms travel in a compact form (a :data:`Value`): a constant is its name (``"red"``, ``"4"``)
and a compound term is a tuple ``(name, arg, ...)``; tuples hash in C, which keeps the joins fast.

>>> from ggp.gdl.parser import parse_kif
>>> game = parse_kif('''(role a) (succ 1 2) (succ 2 3) (init (n 1))
...   (<= (legal a inc) (true (n ?x)) (succ ?x ?y))
...   (<= (next (n ?y)) (does a inc) (true (n ?x)) (succ ?x ?y))''')
>>> program = compile_rules(game)
>>> sorted(program.query("state", frozenset({("n", "1")}), ())[("legal", 2)])
[('a', 'inc')]
>>> program.query("next", frozenset({("n", "1")}), (("a", "inc"),))[("next", 1)]
{(('n', '2'),)}
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from ggp.errors import NotStratifiedError, ReasonerError
from ggp.gdl.terms import Const, Description, Distinct, Func, Not, Rule, Term, Var
from ggp.gdl.terms import Literal as GdlLiteral
from ggp.graphs import reachable, strongly_connected_components
from ggp.reasoner.relations import (
    DOES_KEY as _DOES,
)
from ggp.reasoner.relations import (
    TRUE_KEY as _TRUE,
)
from ggp.reasoner.relations import (
    Facts,
    RelKey,
    Value,
    dynamic_relations,
    expand_or,
    isolated_static_model,
    static_model,
    to_term,
)
from ggp.reasoner.relations import (
    atom_args as _args,
)
from ggp.reasoner.relations import (
    body_relations as _body_keys,
)
from ggp.reasoner.relations import (
    literal_vars as _literal_vars,
)
from ggp.reasoner.relations import (
    relation_key as _key,
)
from ggp.reasoner.relations import (
    term_vars as _vars,
)
from ggp.reasoner.specialize import specialize_calls

log = logging.getLogger(__name__)

QueryKind = TypingLiteral["state", "next"]

_TARGETS: dict[str, frozenset[RelKey]] = {
    "state": frozenset({("legal", 2), ("terminal", 0), ("goal", 2)}),
    "next": frozenset({("next", 1), ("sees", 2)}),
}

_RuleFunction = Callable[..., None]

_SHOWN_UNDECIDED = 6
"""Atoms named in the error for a group that is not stratified in some state."""


class _Writer:
    """Source text of one generated rule function, with the bookkeeping of bound variables."""

    def __init__(self, names: dict[str, str]) -> None:
        self.lines: list[str] = []
        self.depth = 1
        self.bound: set[str] = set()
        self.names = names
        self.temps = itertools.count()

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def loop(self, line: str) -> None:
        """Open a ``for`` block; the following code runs once per candidate."""
        self.emit(line)
        self.depth += 1

    def check(self, condition: str) -> None:
        """Skip the current candidate unless ``condition`` holds (no nesting: Python allows only 20 blocks)."""
        self.emit(f"if not ({condition}): {'continue' if self.depth > 1 else 'return'}")

    def temp(self) -> str:
        return f"t{next(self.temps)}"

    def is_bound(self, term: Term) -> bool:
        return all(name in self.bound for name in _vars(term))

    def expr(self, term: Term) -> str:
        if isinstance(term, Const) or (isinstance(term, Func) and not term.args):  # (f) is f, as in clingo
            return repr(term.name)
        if isinstance(term, Var):
            return self.names[term.name]
        return "(" + ", ".join([repr(term.name), *(self.expr(arg) for arg in term.args)]) + ",)"

    def match(self, term: Term, source: str) -> None:
        """Code that checks ``source`` (a value expression) against ``term`` and binds its free variables."""
        if self.is_bound(term):
            self.check(f"{source} == {self.expr(term)}")
        elif isinstance(term, Var):
            self.emit(f"{self.names[term.name]} = {source}")
            self.bound.add(term.name)
        elif isinstance(term, Func):
            size = len(term.args) + 1
            self.check(f"type({source}) is tuple and len({source}) == {size} and {source}[0] == {term.name!r}")
            for position, arg in enumerate(term.args, start=1):
                if isinstance(arg, Func) and not self.is_bound(arg):
                    inner = self.temp()
                    self.emit(f"{inner} = {source}[{position}]")
                    self.match(arg, inner)
                else:
                    self.match(arg, f"{source}[{position}]")


@dataclass(frozen=True, slots=True)
class _CompiledRule:
    head: RelKey
    function: _RuleFunction
    source: str
    lines: tuple[str, ...]  # the body, indented for a function, reusable in a fused function
    reads: tuple[RelKey, ...]  # the dynamic relations the body reads (as d<n> and d<n>_set)


class RuleProgram:
    """The compiled dynamic rules of a game plus its static facts; answers one query at a time.

    Built by :func:`compile_rules`. Immutable after construction, so one program can serve many machines.
    """

    def __init__(self, description: Description, static: Facts, rules: Sequence[Rule], dynamic: frozenset[RelKey]):
        self.file = description.file
        self.static = static
        self.dynamic = dynamic
        self._namespace: dict[str, object] = {}
        self._index_names: dict[tuple[RelKey, tuple[int, ...]], str] = {}
        self._static_names: dict[RelKey, str] = {}
        self._local_numbers: dict[RelKey, int] = {}
        self._namespace["ONCE"] = (None,)
        self._rules: dict[RelKey, list[_CompiledRule]] = {}
        depends: dict[RelKey, set[RelKey]] = {}
        negative: dict[RelKey, set[RelKey]] = {}
        for rule in rules:
            head = _key(rule.head)
            for literal in rule.body:
                for key, negated in _body_keys(literal):
                    if key in dynamic and key not in (_TRUE, _DOES):
                        depends.setdefault(head, set()).add(key)
                        if negated:
                            negative.setdefault(head, set()).add(key)
        order = [
            sorted(component)
            for component in strongly_connected_components(
                sorted({_key(rule.head) for rule in rules}), lambda key: sorted(depends.get(key, ()))
            )
        ]
        self._component: dict[RelKey, int] = {key: i for i, component in enumerate(order) for key in component}
        # A group whose relations depend negatively on each other is stratified at most on ground atoms
        # (``(<= (goal r 100) (not (goal r 0)))``); it is solved by the alternating fixpoint below.
        self._negative_groups = {
            i for i, component in enumerate(order)
            if any(negative.get(key, set()) & set(component) for key in component)
        }
        self._recursive = {
            i for i, component in enumerate(order) if len(component) > 1 or component[0] in depends.get(component[0], set())
        }
        for number, rule in enumerate(rules):
            for body in expand_or(rule.body):
                compiled = self._compile(f"rule_{number}_{len(self._rules.get(_key(rule.head), []))}", rule, body)
                self._rules.setdefault(compiled.head, []).append(compiled)
        self._plans: dict[str, list[tuple[int, list[_CompiledRule], list[RelKey]]]] = {}
        for kind, targets in _TARGETS.items():
            needed = reachable(targets, depends)
            plan: list[tuple[int, list[_CompiledRule], list[RelKey]]] = []
            for i, component in enumerate(order):
                chosen = [key for key in component if key in needed]
                if not chosen:
                    continue
                mode = 2 if i in self._negative_groups else 1 if i in self._recursive else 0
                rules_here = [r for key in chosen for r in self._rules.get(key, [])]
                if mode == 0 and plan and plan[-1][0] == 0:  # consecutive plain groups run as one function
                    plan[-1][1].extend(rules_here)
                    plan[-1][2].extend(chosen)
                else:
                    plan.append((mode, rules_here, chosen))
            self._plans[kind] = plan
        # Plain (non-recursive) groups run as one fused function each: no call per rule.
        self._fused: dict[tuple[str, int], _RuleFunction] = {}
        for kind, plan in self._plans.items():
            for number, (mode, rules_here, _) in enumerate(plan):
                if mode == 0:
                    self._fused[(kind, number)] = self._fuse(f"fused_{kind}_{number}", rules_here)


    # --- compilation --------------------------------------------------------------------------

    def _index(self, key: RelKey, positions: tuple[int, ...]) -> tuple[str, float]:
        """Name of the global holding a static index on ``positions``, and its mean bucket size."""
        name = self._index_names.get((key, positions))
        rows = self.static.get(key, set())
        if name is None:
            name = self._index_names[(key, positions)] = f"I{len(self._index_names)}"
            table: dict[tuple[Value, ...], list[tuple[Value, ...]]] = {}
            for row in rows:
                table.setdefault(tuple(row[p] for p in positions), []).append(row)
            self._namespace[name] = table
        built = self._namespace[name]
        assert isinstance(built, dict)
        return name, len(rows) / max(1, len(built))

    def _static_name(self, key: RelKey) -> str:
        name = self._static_names.get(key)
        if name is None:
            name = self._static_names[key] = f"S{len(self._static_names)}"
            self._namespace[name] = frozenset(self.static.get(key, ()))
            self._namespace[name + "_rows"] = tuple(self.static.get(key, ()))
        return name

    def _cost(self, writer: _Writer, literal: Const | Func) -> float:
        key, args = _key(literal), _args(literal)
        if all(writer.is_bound(a) for a in args):
            return 0.0
        if key == _TRUE:
            return 2.0 if isinstance(args[0], Func) else 30.0
        if key == _DOES:
            return 1.5 if writer.is_bound(args[0]) else 4.0
        if key in self.dynamic:
            return 6.0 if any(writer.is_bound(a) for a in args) else 10.0
        positions = tuple(i for i, a in enumerate(args) if writer.is_bound(a))
        if not positions:
            return 0.5 + len(self.static.get(key, ()))
        return 0.5 + self._index(key, positions)[1]

    def _local(self, key: RelKey) -> str:
        """The program-wide local name of a dynamic relation in generated code."""
        number = self._local_numbers.setdefault(key, len(self._local_numbers))
        return f"d{number}"

    def _exec(self, name: str, source: str, where: str) -> _RuleFunction:
        try:
            exec(compile(source, f"<{self.file}: {where}>", "exec"), self._namespace)
        except SyntaxError as exc:  # e.g. more than 20 nested loops
            raise ReasonerError(f"{self.file}: cannot compile {where}: {exc}") from exc
        return self._namespace.pop(name)  # type: ignore[return-value]

    def _fuse(self, name: str, rules: Sequence[_CompiledRule]) -> _RuleFunction:
        keys = sorted({key for rule in rules for key in rule.reads})
        prologue = [f"    {self._local(key)} = {self._local(key)}_set = R[{key!r}]" for key in keys]
        source = "\n".join([f"def {name}(TS, TF, DS, DR, R, N):", *prologue, *(lit for r in rules for lit in r.lines)])
        return self._exec(name, source, "fused rules")

    def _compile(self, name: str, rule: Rule, body: tuple[GdlLiteral, ...]) -> _CompiledRule:
        names: dict[str, str] = {}
        for literal in (rule.head, *body):
            for var in sorted(_literal_vars(literal)):
                names.setdefault(var, f"v{len(names)}")
        writer = _Writer(names)
        writer.depth = 2  # inside "for _once in ONCE:", so a failed filter can always 'continue'
        head = _key(rule.head)
        used_dynamic: dict[RelKey, str] = {}

        def dynamic_local(key: RelKey) -> str:
            if key not in used_dynamic:
                used_dynamic[key] = self._local(key)
            return used_dynamic[key]

        remaining = list(body)
        while remaining:
            chosen: GdlLiteral | None = None
            for literal in remaining:  # filters first, as soon as they are ground
                if isinstance(literal, (Not, Distinct)) and all(v in writer.bound for v in _literal_vars(literal)):
                    chosen = literal
                    break
            if chosen is None:
                positives = [lit for lit in remaining if isinstance(lit, (Const, Func))]
                if not positives:
                    raise ReasonerError(f"{self.file}: rule {rule} is unsafe (a variable occurs only under not/distinct)")
                chosen = min(positives, key=lambda lit: self._cost(writer, lit))
            remaining.remove(chosen)
            later = set(_vars(rule.head)).union(*(_literal_vars(lit) for lit in remaining))
            if not self._existence_check(writer, chosen, later):
                self._literal_code(writer, chosen, head, dynamic_local)
        if not all(writer.is_bound(arg) for arg in _args(rule.head)):
            raise ReasonerError(f"{self.file}: rule {rule} is unsafe (a head variable is not bound by the body)")
        head_args = _args(rule.head)
        writer.emit(f"out.add(({''.join(writer.expr(a) + ', ' for a in head_args)}))")
        lines = (f"    out = R[{head!r}]", "    for _once in ONCE:", *writer.lines)
        prologue = []
        for key, local in used_dynamic.items():
            same = self._component_of(key) == self._component_of(head)
            # A relation of the rule's own recursive group grows while we loop: iterate over a copy.
            source = f"tuple(R[{key!r}])" if same else f"R[{key!r}]"
            prologue.append(f"    {local} = {source}")
            # Negated atoms of the rule's own group are read from N, the alternating fixpoint's guess.
            negated_source = "N" if same and self._component_of(head) in self._negative_groups else "R"
            prologue.append(f"    {local}_set = {negated_source}[{key!r}]")
        source = "\n".join([f"def {name}(TS, TF, DS, DR, R, N):", *prologue, *lines])
        function = self._exec(name, source, f"rule {rule}")
        return _CompiledRule(head, function, source, lines, tuple(used_dynamic))

    def _existence_check(self, writer: _Writer, literal: GdlLiteral, later: set[str]) -> bool:
        """Emit a plain existence test for a static literal whose free variables nothing else uses.

        ``(role ?opponent)`` with ``?opponent`` used nowhere else must not multiply the rule's work by
        the number of roles: one match is enough. Returns False (emitting nothing) when not applicable.
        """
        if not isinstance(literal, (Const, Func)) or _key(literal) in self.dynamic:
            return False
        args = _args(literal)
        free = [a for a in args if not writer.is_bound(a)]
        names = [a.name for a in free if isinstance(a, Var)]
        if not free or len(names) != len(free) or len(set(names)) != len(names) or set(names) & later:
            return False
        bound = tuple(i for i, a in enumerate(args) if writer.is_bound(a))
        if bound:
            index, _ = self._index(_key(literal), bound)
            probe = "".join(writer.expr(args[i]) + ", " for i in bound)
            writer.check(f"({probe}) in {index}")
        else:
            writer.check(f"{self._static_name(_key(literal))}_rows")
        writer.bound.update(names)  # bound to *some* value; nothing reads them
        return True

    def _component_of(self, key: RelKey) -> int | None:
        return self._component.get(key)

    def _literal_code(
        self, writer: _Writer, literal: GdlLiteral, head: RelKey, dynamic_local: Callable[[RelKey], str]
    ) -> None:
        if isinstance(literal, Distinct):
            writer.check(f"{writer.expr(literal.left)} != {writer.expr(literal.right)}")
            return
        if isinstance(literal, Not) and isinstance(literal.arg, Distinct):
            writer.check(f"{writer.expr(literal.arg.left)} == {writer.expr(literal.arg.right)}")
            return
        if isinstance(literal, Not):
            atom = literal.arg
            if not isinstance(atom, (Const, Func)):
                raise ReasonerError(f"{self.file}: 'not' applied to a non-atom: {literal}")
            writer.check(f"not ({self._membership(writer, atom, dynamic_local)})")
            return
        if not isinstance(literal, (Const, Func)):  # pragma: no cover - Or is expanded before
            raise ReasonerError(f"{self.file}: unexpected literal {literal}")
        key, args = _key(literal), _args(literal)
        if all(writer.is_bound(a) for a in args):
            writer.check(self._membership(writer, literal, dynamic_local))
            return
        row = writer.temp()
        if key == _TRUE:
            fluent = args[0]
            if isinstance(fluent, Func):
                writer.loop(f"for {row} in TF.get(({fluent.name!r}, {len(fluent.args)}), ()):")
                for position, arg in enumerate(fluent.args, start=1):
                    _match_column(writer, arg, f"{row}[{position}]")
            else:
                writer.loop(f"for {row} in TS:")
                writer.match(fluent, row)
            return
        if key == _DOES:
            if writer.is_bound(args[0]):
                writer.loop(f"for {row} in DR.get({writer.expr(args[0])}, ()):")
                writer.match(args[1], row)
            else:
                writer.loop(f"for {row} in DS:")
                writer.match(args[0], f"{row}[0]")
                writer.match(args[1], f"{row}[1]")
            return
        if key in self.dynamic:
            writer.loop(f"for {row} in {dynamic_local(key)}:")
            positions = range(len(args))
        else:
            bound = tuple(i for i, a in enumerate(args) if writer.is_bound(a))
            if bound:
                index, _ = self._index(key, bound)
                probe = "".join(writer.expr(args[i]) + ", " for i in bound)
                writer.loop(f"for {row} in {index}.get(({probe}), ()):")
            else:
                writer.loop(f"for {row} in {self._static_name(key)}_rows:")
            positions = range(len(args))
            positions = [i for i in positions if i not in bound]  # type: ignore[assignment]
        for position in positions:
            _match_column(writer, args[position], f"{row}[{position}]")

    def _membership(self, writer: _Writer, atom: Const | Func, dynamic_local: Callable[[RelKey], str]) -> str:
        key, args = _key(atom), _args(atom)
        if not all(writer.is_bound(a) for a in args):
            raise ReasonerError(f"{self.file}: unsafe negation or distinct: {atom} has an unbound variable")
        if key == _TRUE:
            return f"{writer.expr(args[0])} in TS"
        if key == _DOES:
            return f"({writer.expr(args[0])}, {writer.expr(args[1])}) in DS"
        row = "(" + "".join(writer.expr(a) + ", " for a in args) + ")"
        if key in self.dynamic:
            return f"{row} in {dynamic_local(key)}_set"
        return f"{row} in {self._static_name(key)}"

    # --- queries ------------------------------------------------------------------------------

    def query(
        self, kind: QueryKind, fluents: frozenset[Value], does: Sequence[tuple[Value, Value]],
        by_functor: Mapping[tuple[str, int], list[Value]] | None = None,
    ) -> Facts:
        """The dynamic facts a ``state`` query (legal, terminal, goal) or ``next`` query (next, sees) needs.

        ``by_functor`` is ``fluents`` grouped by functor (see :func:`group_fluents`); pass it when it is
        cached. Static facts of the target relations are included.
        """
        if by_functor is None:
            by_functor = group_fluents(fluents)
        moves = frozenset(does)
        by_role: dict[Value, list[Value]] = {}
        for role, move in does:
            by_role.setdefault(role, []).append(move)
        derived: Facts = {}
        for number, (mode, rules, members) in enumerate(self._plans[kind]):
            if mode == 2:
                self._alternating_fixpoint(rules, members, (fluents, by_functor, moves, by_role), derived)
                continue
            for key in members:
                derived[key] = set()  # dynamic relations have no static facts
            if mode == 0:
                self._fused[(kind, number)](fluents, by_functor, moves, by_role, derived, derived)
                continue
            self._fixpoint(rules, members, (fluents, by_functor, moves, by_role), derived, derived)
        for key in _TARGETS[kind]:
            if key not in derived:
                derived[key] = set(self.static.get(key, ()))
        return derived

    @staticmethod
    def _fixpoint(
        rules: Sequence[_CompiledRule], members: Sequence[RelKey], inputs: tuple[object, ...], derived: Facts,
        guess: Facts,
    ) -> None:
        """Run a recursive group's rules until nothing new is derived (negated group atoms read ``guess``)."""
        while True:
            size = sum(len(derived[key]) for key in members)
            for rule in rules:
                rule.function(*inputs, derived, guess)
            if sum(len(derived[key]) for key in members) == size:
                return

    def _alternating_fixpoint(
        self, rules: Sequence[_CompiledRule], members: Sequence[RelKey], inputs: tuple[object, ...], derived: Facts
    ) -> None:
        """The well-founded model of a group with negation inside it (van Gelder's alternating fixpoint).

        ``under`` only grows and ``over`` only shrinks; when they meet the group is stratified on its
        ground atoms and that model is the unique answer set clingo would find. When they do not meet
        there is no unique answer set and the game is broken.
        """
        under: Facts = {key: set() for key in members}
        while True:
            over = dict(derived)
            over.update({key: set() for key in members})
            guess = dict(derived)
            guess.update(under)
            self._fixpoint(rules, members, inputs, over, guess)
            fresh = dict(derived)
            fresh.update({key: set() for key in members})
            guess = dict(derived)
            guess.update({key: over[key] for key in members})
            self._fixpoint(rules, members, inputs, fresh, guess)
            if all(fresh[key] == under[key] for key in members):
                break
            under = {key: fresh[key] for key in members}
        if any(under[key] != over[key] for key in members):
            # Atoms neither derived nor refuted: a ground cycle through negation in this state.
            undecided = sorted(
                str(to_term((key[0], *row)) if row else key[0])
                for key in members for row in over[key] - under[key]
            )
            shown = ", ".join(undecided[:_SHOWN_UNDECIDED]) + (", ..." if len(undecided) > _SHOWN_UNDECIDED else "")
            raise NotStratifiedError(
                f"{self.file}: not stratified: ground atoms depend on their own negation in this state: {shown}"
            )
        derived.update(under)

    def sources(self) -> str:
        """The generated Python source of every rule (for debugging and the curious)."""
        return "\n\n".join(rule.source for rules in self._rules.values() for rule in rules)


def _match_column(writer: _Writer, arg: Term, source: str) -> None:
    """Bind or check ``arg`` against the tuple column ``source``; an unbound compound term is read into a
    temporary first, so its parts are matched against one local instead of re-indexing the row."""
    if isinstance(arg, Func) and not writer.is_bound(arg):
        inner = writer.temp()
        writer.emit(f"{inner} = {source}")
        source = inner
    writer.match(arg, source)


def group_fluents(fluents: Iterable[Value]) -> dict[tuple[str, int], list[Value]]:
    """Compound fluents grouped by (name, arity), the lookup the generated code uses for ``true``."""
    grouped: dict[tuple[str, int], list[Value]] = {}
    for fluent in fluents:
        if isinstance(fluent, tuple):
            grouped.setdefault((fluent[0], len(fluent) - 1), []).append(fluent)
    return grouped


def compile_rules(
    description: Description, max_atoms: int = 5_000_000, *, seconds: float | None = None, memory_mb: int = 4096
) -> RuleProgram:
    """Split the game into static facts (computed by clingo) and compiled dynamic rules.

    With ``seconds`` the static facts are computed in a child process under that time limit and
    ``memory_mb``; without it, in this process (fast, but a game with a huge static table then takes
    as long as clingo needs). Raises :class:`ReasonerError` when the static part exceeds a limit, a
    rule is unsafe, or a rule defines ``true`` or ``does``.
    """
    static_rules, _, _ = split_rules(description)
    if seconds is None:
        static = static_model(static_rules, description.file, max_atoms)
    else:
        static = isolated_static_model(static_rules, description.file, max_atoms, seconds, memory_mb)
    return program_from_static(description, static)


def split_rules(description: Description) -> tuple[list[Rule], list[Rule], frozenset[RelKey]]:
    """The static rules, the dynamic rules and the dynamic relations of a game; raises
    :class:`ReasonerError` for a rule that defines ``true`` or ``does``."""
    dynamic = dynamic_relations(description.rules)
    static_rules = [rule for rule in description.rules if _key(rule.head) not in dynamic]
    dynamic_rules = [rule for rule in description.rules if _key(rule.head) in dynamic]
    for rule in dynamic_rules:
        if _key(rule.head) in (_TRUE, _DOES):
            raise ReasonerError(f"{description.file}: a rule defines {rule.head.name}, which GDL forbids")
    return static_rules, dynamic_rules, dynamic


def program_from_static(description: Description, static: Facts) -> RuleProgram:
    """The compiled program of a game whose static facts were computed already (e.g. in a child)."""
    _, dynamic_rules, dynamic = split_rules(description)
    rules = specialize_calls(dynamic_rules, dynamic)
    return RuleProgram(description, static, rules, dynamic | {_key(rule.head) for rule in rules})
