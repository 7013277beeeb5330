"""Turn a ground program into a simplified, ordered Boolean circuit.

Every ground atom becomes a node: the OR over its rules of the AND over each rule's body literals.
The inputs are the ``true`` and ``does`` externals. Steps, each one cheap and linear-ish:

1. *Order.* Strongly connected components of the dependency graph (Tarjan, iterative) in evaluation
   order; a negative edge inside a component means the game is not stratified (refused).
2. *Fold constants.* Component by component: literals on decided atoms are dropped or kill their rule;
   a recursive component is decided by two least fixpoints (unknown literals false, then true).
3. *Prune.* Only nodes that reach a non-constant output stay.
4. *Exactly one move per role.* A ``does`` atom is one-hot per role, so rules that differ only in
   their single ``does`` literal are merged into ``rest AND (OR of those moves)``, and an OR over most
   of a role's moves is written as the negation of the OR over the others. This shrinks frame rules
   ("nothing moved this cell") from one rule per move to a few gates.
5. *Share.* Atoms that end up as one literal become aliases; identical atoms and identical AND
   terms are computed once.

The result, :class:`Circuit`, is a list of :class:`Statement` in evaluation order split into phase A
(depends on ``true`` only: legal, terminal, goal) and phase B (depends on ``does``: next, sees).
Slot 0 is the constant false, slots ``1..F`` the fluents, ``F+1..F+M`` the moves.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ggp.errors import NotStratifiedError
from ggp.gdl.terms import Term
from ggp.graphs import reachable, strongly_connected_components
from ggp.reasoner.circuit.budget import CHECK_EVERY, DEFAULT_BUDGET, BudgetMeter
from ggp.reasoner.circuit.extract import TRUE_ATOM, CircuitError, GroundProgram

log = logging.getLogger(__name__)

Body = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Ref:
    """A reference to a slot, possibly negated; ``Ref(0, True)`` is the constant true."""

    slot: int
    neg: bool


FALSE_REF = Ref(0, False)
TRUE_REF = Ref(0, True)


@dataclass(frozen=True, slots=True)
class Statement:
    """Slot(s) computed as ``OR over terms of AND over literals``; a literal is ``slot`` or ``-slot``.

    A statement with several ``slots`` is a positive recursive component: its ``terms[i]`` belong to
    ``slots[i]`` and are iterated from all-false to a fixpoint.
    """

    slots: tuple[int, ...]
    terms: tuple[tuple[Body, ...], ...]
    recursive: bool


@dataclass(frozen=True, slots=True)
class Circuit:
    """An evaluation-ready circuit for one game (see the module docstring for the slot layout)."""

    fluents: tuple[Term, ...]
    roles: tuple[Term, ...]
    moves: tuple[tuple[Term, ...], ...]  # per role, sorted by KIF text
    n_slots: int
    phase_a: tuple[Statement, ...]
    phase_b: tuple[Statement, ...]
    legal: tuple[Ref, ...]  # one per move, in global move order (role-major)
    terminal: Ref
    goals: tuple[tuple[int, Term, Ref], ...]  # (role index, value, ref)
    next: tuple[Ref, ...]  # one per fluent
    sees: tuple[tuple[int, Term, Ref], ...]
    init: tuple[bool, ...]  # one per fluent
    ground_rules: int

    @property
    def n_fluents(self) -> int:
        return len(self.fluents)

    @property
    def n_moves(self) -> int:
        return sum(len(m) for m in self.moves)

    def move_offsets(self) -> tuple[int, ...]:
        """Global index of each role's first move."""
        offsets, total = [], 0
        for moves in self.moves:
            offsets.append(total)
            total += len(moves)
        return tuple(offsets)

    def size(self) -> tuple[int, int]:
        """(statements, literal occurrences): a measure of evaluation cost."""
        statements = self.phase_a + self.phase_b
        return len(statements), sum(len(b) for s in statements for t in s.terms for b in t)


def _sccs(
    nodes: Iterable[int], deps: dict[int, list[Body]], decided: dict[int, bool], meter: BudgetMeter,
) -> list[list[int]]:
    """Strongly connected components of the atom dependency graph, dependencies first; atoms already
    ``decided`` are not visited (a fact is a leaf that only costs the traversal time). Each atom visited is
    a step of ``meter`` (over a million atoms take seconds: the budget is looked at meanwhile)."""

    def successors(atom: int) -> set[int]:
        meter.step("while ordering the ground rules")
        return {abs(lit) for b in deps.get(atom, ()) for lit in b if abs(lit) not in decided}

    return strongly_connected_components(nodes, successors)


def _simplify(bodies: Iterable[Body], const: dict[int, bool]) -> list[Body] | bool:
    """Bodies with decided literals removed; True/False when the whole disjunction is decided."""
    out: list[Body] = []
    seen: set[Body] = set()
    for body in bodies:
        lits: set[int] = set()
        dead = False
        for lit in body:
            value = const.get(abs(lit))
            if value is None:
                lits.add(lit)
            elif value != (lit > 0):
                dead = True
                break
        if dead or any(-lit in lits for lit in lits):
            continue
        if not lits:
            return True
        key = tuple(sorted(lits))
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out if out else False


def _least_fixpoint(component: list[int], defs: dict[int, list[Body]], unknown_value: bool) -> set[int]:
    """Atoms of a positive component derivable when every literal outside it reads ``unknown_value``."""
    members = set(component)
    derived: set[int] = set()
    changed = True
    while changed:
        changed = False
        for atom in component:
            if atom in derived:
                continue
            for body in defs[atom]:
                if all((lit in derived) if lit in members else unknown_value for lit in body):
                    derived.add(atom)
                    changed = True
                    break
    return derived


class _Builder:
    def __init__(self, program: GroundProgram, roles: tuple[Term, ...], file: str, meter: BudgetMeter) -> None:
        self.file = file
        self.meter = meter
        self.roles = roles
        role_index = {role: i for i, role in enumerate(roles)}
        self.fluents = tuple(sorted({t for t, _ in program.true_atoms}, key=str))
        self.fluent_index = {f: i for i, f in enumerate(self.fluents)}
        per_role: list[set[Term]] = [set() for _ in roles]
        for role, move, _ in program.does_atoms:
            if role in role_index:
                per_role[role_index[role]].add(move)
        self.moves = tuple(tuple(sorted(m, key=str)) for m in per_role)
        self.move_index: dict[tuple[int, Term], int] = {}
        for r, moves in enumerate(self.moves):
            for move in moves:
                self.move_index[(r, move)] = len(self.move_index)
        # Program atoms of the inputs -> slots.
        self.input_slot: dict[int, int] = {}
        for term, atom in program.true_atoms:
            self.input_slot[atom] = 1 + self.fluent_index[term]
        n_fluents = len(self.fluents)
        self.does_role: dict[int, int] = {}  # does atom -> role index (roles of the game only)
        self.dead_does: set[int] = set()
        for role, move, atom in program.does_atoms:
            if role in role_index:
                r = role_index[role]
                self.input_slot[atom] = 1 + n_fluents + self.move_index[(r, move)]
                self.does_role[atom] = r
            else:
                self.dead_does.add(atom)  # a "role" that never plays: never true
        self.defs: dict[int, list[Body]] = defaultdict(list)
        for index, (head, body) in enumerate(program.rules):
            if not index % CHECK_EVERY:
                meter.check_due("while reading the ground rules")
            if head in self.input_slot:
                raise CircuitError(f"{file}: a rule defines an input atom")
            self.defs[head].append(body)
        self.program = program

    def build(self) -> Circuit:
        program = self.program
        const: dict[int, bool] = {TRUE_ATOM: True}
        for atom in self.dead_does:
            const[atom] = False
        # Facts first: true whatever else defines them (gt_two_thirds_4p has 1.1 million of 1.5 million rules).
        facts = [atom for atom, bodies in self.defs.items() if any(not body for body in bodies)]
        for atom in facts:
            const[atom] = True
            del self.defs[atom]
        inputs = set(self.input_slot)
        atoms = set(self.defs) | {abs(lit) for bodies in self.defs.values() for b in bodies for lit in b}
        atoms |= {atom for _, _, atom in program.outputs}
        atoms -= inputs | set(const)
        order = _sccs(sorted(atoms), self.defs, const, self.meter)
        recursive: set[int] = set()
        for component in order:
            self.meter.step("while simplifying the ground rules")
            members = set(component)
            if component[0] in inputs:
                continue
            is_rec = len(component) > 1 or any(abs(lit) == component[0] for b in self.defs.get(component[0], ()) for lit in b)
            if is_rec:
                for atom in component:
                    for body in self.defs[atom]:
                        if any(lit < 0 and -lit in members for lit in body):
                            raise NotStratifiedError(
                                f"{self.file}: not stratified: ground atoms depend on their own negation"
                            )
            # Fold constants decided by earlier components.
            for atom in component:
                simplified = _simplify(self.defs.get(atom, ()), const)
                if isinstance(simplified, bool):
                    const[atom] = simplified
                    self.defs.pop(atom, None)
                else:
                    self.defs[atom] = simplified
            if is_rec:
                live = [a for a in component if a not in const]
                if live:
                    sure = _least_fixpoint(live, self.defs, False)
                    possible = _least_fixpoint(live, self.defs, True)
                    for atom in live:
                        if atom in sure:
                            const[atom] = True
                        elif atom not in possible:
                            const[atom] = False
                    for atom in live:
                        if atom in const:
                            self.defs.pop(atom, None)
                        else:
                            simplified = _simplify(self.defs[atom], const)
                            if isinstance(simplified, bool):  # pragma: no cover - decided above
                                const[atom] = simplified
                                self.defs.pop(atom)
                            else:
                                self.defs[atom] = simplified
                    rest = [a for a in live if a not in const]
                    if len(rest) > 1 or any(abs(lit) in rest for a in rest for b in self.defs[a] for lit in b):
                        recursive.update(rest)
        self.const = const
        self.recursive = recursive
        self.order = [a for comp in order for a in comp if a not in const and a not in inputs]
        self.components = [[a for a in comp if a not in const and a not in inputs] for comp in order]
        return self._finish()

    def _finish(self) -> Circuit:
        """Lower the simplified rules to circuit statements: prune, split the phases, emit, wire outputs."""
        output_atoms = {atom for _, _, atom in self.program.outputs if atom not in self.const}
        keep = self._needed_atoms(output_atoms)
        components = [kept for kept in ([a for a in comp if a in keep] for comp in self.components) if kept]
        phase_b = self._move_dependent(components)
        emitter = _Emitter(self)
        for component in components:
            self.meter.step("while lowering the circuit")
            emitter.lower(component, phase_b[component[0]], output_atoms)
        statements_a, statements_b = _share_terms(emitter.statements_a, emitter.statements_b, emitter.next_slot)
        n_slots = max([emitter.next_slot] + [s + 1 for st in statements_a + statements_b for s in st.slots])
        legal, terminal, goals, sees, nexts, init = self._outputs(emitter.alias)
        return Circuit(
            fluents=self.fluents,
            roles=self.roles,
            moves=self.moves,
            n_slots=n_slots,
            phase_a=tuple(statements_a),
            phase_b=tuple(statements_b),
            legal=tuple(legal),
            terminal=terminal,
            goals=tuple(goals),
            next=tuple(nexts),
            sees=tuple(sees),
            init=tuple(init),
            ground_rules=len(self.program.rules),
        )

    def _needed_atoms(self, output_atoms: set[int]) -> set[int]:
        """The non-input atoms some output depends on (everything else is pruned)."""
        inputs = self.input_slot
        edges = {atom: [abs(lit) for body in bodies for lit in body if abs(lit) not in inputs]
                 for atom, bodies in self.defs.items()}
        return reachable([a for a in output_atoms if a not in inputs], edges)

    def _move_dependent(self, components: list[list[int]]) -> dict[int, bool]:
        """For each kept atom, whether it depends on a move (computed in phase B, after the moves)."""
        is_b: dict[int, bool] = {}
        for comp in components:
            flag = any(
                (abs(lit) in self.does_role) or is_b.get(abs(lit), False)
                for a in comp for b in self.defs[a] for lit in b
            )
            for a in comp:
                is_b[a] = flag
        return is_b

    def _outputs(
        self, alias: dict[int, Ref]
    ) -> tuple[list[Ref], Ref, list[tuple[int, Term, Ref]], list[tuple[int, Term, Ref]], list[Ref], list[bool]]:
        """The circuit's outputs (legal, terminal, goals, sees, next, init) read from the atoms' refs."""
        legal = [FALSE_REF] * len(self.move_index)
        terminal = FALSE_REF
        goals: list[tuple[int, Term, Ref]] = []
        sees: list[tuple[int, Term, Ref]] = []
        nexts = [FALSE_REF] * len(self.fluents)
        init = [False] * len(self.fluents)
        role_index = {role: i for i, role in enumerate(self.roles)}
        for kind, args, atom in self.program.outputs:
            ref = alias.get(atom, FALSE_REF)
            if kind == "terminal":
                terminal = ref
            elif kind == "next":
                if args[0] in self.fluent_index:
                    nexts[self.fluent_index[args[0]]] = ref
            elif kind == "init":
                if ref.slot != 0:
                    raise CircuitError(f"{self.file}: init {args[0]} depends on the state")
                if args[0] in self.fluent_index and ref.neg:
                    init[self.fluent_index[args[0]]] = True
            elif args[0] in role_index:
                r = role_index[args[0]]
                if kind == "legal":
                    if (r, args[1]) in self.move_index:
                        legal[self.move_index[(r, args[1])]] = ref
                elif kind == "goal":
                    goals.append((r, args[1], ref))
                elif kind == "sees":
                    sees.append((r, args[1], ref))
        return legal, terminal, goals, sees, nexts, init


class _Emitter:
    """Turns simplified components into statements: one slot per distinct OR of ANDs (identical
    terms share a slot), move disjunctions written with the shorter of a set or its complement (each
    role plays exactly one move), and each atom's :class:`Ref` in ``alias``."""

    def __init__(self, builder: _Builder) -> None:
        self.builder = builder
        self.next_slot = 1 + len(builder.fluents) + len(builder.move_index)
        self.alias: dict[int, Ref] = {atom: Ref(slot, False) for atom, slot in builder.input_slot.items()}
        for atom, value in builder.const.items():
            self.alias[atom] = TRUE_REF if value else FALSE_REF
        self.statements_a: list[Statement] = []
        self.statements_b: list[Statement] = []
        self._by_content: dict[tuple[bool, tuple[Body, ...]], int] = {}
        self._role_moves: list[list[int]] = [[] for _ in builder.roles]
        for atom, r in builder.does_role.items():
            self._role_moves[r].append(builder.input_slot[atom])
        for moves in self._role_moves:
            moves.sort()
        self._slot_role = {
            slot: builder.does_role[atom] for atom, slot in builder.input_slot.items() if atom in builder.does_role
        }
        self._does_or_cache: dict[frozenset[int], Ref] = {}
        # Literals that hold exactly when one of a set of moves is played: the moves themselves and the
        # ORs written by does_or (a relation made of moves alone, e.g. by rule splitting, merges again).
        self._move_sets: dict[int, frozenset[int]] = {slot: frozenset((slot,)) for slot in self._slot_role}

    def lower(self, comp: list[int], phase_b: bool, output_atoms: set[int]) -> None:
        """Emit the statements of one component (its atoms, dependencies first)."""
        defs = self.builder.defs
        if comp[0] in self.builder.recursive:
            slots = []
            for atom in comp:
                self.alias[atom] = Ref(self.next_slot, False)
                slots.append(self.next_slot)
                self.next_slot += 1
            terms = []
            for atom in comp:
                bodies = [b for b in (self.canon(b) for b in defs[atom]) if b is not None]
                terms.append(tuple(sorted(set(bodies))))
            (self.statements_b if phase_b else self.statements_a).append(Statement(tuple(slots), tuple(terms), True))
            return
        atom = comp[0]
        bodies = [b for b in (self.canon(b) for b in defs[atom]) if b is not None]
        if phase_b:
            bodies = self.merge_moves(bodies)
        if any(not b for b in bodies):
            self.alias[atom] = TRUE_REF
        elif not bodies:
            self.alias[atom] = FALSE_REF
        else:
            self.alias[atom] = self.emit(tuple(sorted(set(bodies))), phase_b, atom in output_atoms)

    def emit(self, terms: tuple[Body, ...], phase_b: bool, force_slot: bool) -> Ref:
        """A ref computing OR(terms); reuses an identical node or a lone literal."""
        if not force_slot and len(terms) == 1 and len(terms[0]) == 1:
            lit = terms[0][0]
            return Ref(abs(lit), lit < 0)
        key = (phase_b, terms)
        found = self._by_content.get(key)
        if found is not None:
            return Ref(found, False)
        slot = self.next_slot
        self.next_slot += 1
        self._by_content[key] = slot
        (self.statements_b if phase_b else self.statements_a).append(Statement((slot,), (terms,), False))
        return Ref(slot, False)

    def does_or(self, slots: frozenset[int]) -> Ref:
        """OR over move slots, using one-hot moves per role: the shorter of the set or its complement."""
        cached = self._does_or_cache.get(slots)
        if cached is not None:
            return cached
        per_role: dict[int, set[int]] = defaultdict(set)
        for slot in slots:
            per_role[self._slot_role[slot]].add(slot)
        parts: list[int] = []
        for r, chosen in sorted(per_role.items()):
            others = [s for s in self._role_moves[r] if s not in chosen]
            if not others:
                self._does_or_cache[slots] = TRUE_REF
                return TRUE_REF
            if len(others) < len(chosen):
                parts.append(-_lit_of(self.emit(tuple((s,) for s in others), True, False)))
            else:
                parts.extend(sorted(chosen))
        ref = self.emit(tuple((p,) for p in sorted(parts)), True, False)
        self._does_or_cache[slots] = ref
        self._move_sets.setdefault(_lit_of(ref), slots)
        return ref

    def _does_or_cost(self, slots: frozenset[int]) -> int:
        """Literals :meth:`does_or` would write for ``slots`` (the shorter of each role's set or complement)."""
        per_role: dict[int, int] = defaultdict(int)
        for slot in slots:
            per_role[self._slot_role[slot]] += 1
        return sum(min(n, len(self._role_moves[r]) - n) for r, n in per_role.items())

    def canon(self, body: Body) -> Body | None:
        """The body over slots (aliases resolved, constants folded, sorted); None when it is false."""
        lits: set[int] = set()
        for lit in body:
            ref = self.alias[abs(lit)]
            if ref.slot == 0:
                if ref.neg != (lit < 0):  # constant true literal
                    continue
                return None
            value = -ref.slot if (ref.neg != (lit < 0)) else ref.slot
            if -value in lits:
                return None
            lits.add(value)
        return tuple(sorted(lits))

    def merge_moves(self, bodies: list[Body]) -> list[Body]:
        """Rules that differ only in one move literal (a move, or an OR of moves) become rest AND OR(moves)."""
        groups: dict[Body, set[int]] = defaultdict(set)
        out: list[Body] = []
        for body in bodies:
            moves = [lit for lit in body if lit in self._move_sets]
            if len(moves) == 1:
                groups[tuple(lit for lit in body if lit != moves[0])].add(moves[0])
            else:
                out.append(body)
        for rest, lits in groups.items():
            if len(lits) == 1:
                out.append(tuple(sorted(rest + tuple(lits))))
                continue
            slots = frozenset().union(*(self._move_sets[lit] for lit in lits))
            if not lits <= self._slot_role.keys() and self._does_or_cost(slots) >= len(lits):
                # ORs of moves that are cheaper (and shared) as they are: OR them, remember the moves.
                ref = self.emit(tuple((lit,) for lit in sorted(lits)), True, False)
                self._move_sets.setdefault(_lit_of(ref), slots)
                out.append(tuple(sorted(rest + (_lit_of(ref),))))
                continue
            ref = self.does_or(slots)
            if ref == TRUE_REF:
                out.append(rest)
            else:
                out.append(tuple(sorted(rest + (_lit_of(ref),))))
        return out


def _lit_of(ref: Ref) -> int:
    return -ref.slot if ref.neg else ref.slot


def _share_terms(
    phase_a: list[Statement], phase_b: list[Statement], n_slots: int
) -> tuple[list[Statement], list[Statement]]:
    """Hoist AND terms (two or more literals) used by several non-recursive statements into one slot."""
    counts: dict[Body, int] = defaultdict(int)
    for statement in phase_a + phase_b:
        if statement.recursive:
            continue
        for body in statement.terms[0]:
            if len(body) >= 2:
                counts[body] += 1
    shared = {body for body, count in counts.items() if count >= 2}
    if not shared:
        return phase_a, phase_b
    slot_of: dict[Body, int] = {}
    next_slot = n_slots

    def rewrite(statements: list[Statement]) -> list[Statement]:
        nonlocal next_slot
        out: list[Statement] = []
        for statement in statements:
            if statement.recursive:
                out.append(statement)
                continue
            terms: list[Body] = []
            for body in statement.terms[0]:
                if body in shared:
                    slot = slot_of.get(body)
                    if slot is None:
                        slot = slot_of[body] = next_slot
                        next_slot += 1
                        out.append(Statement((slot,), ((body,),), False))
                    terms.append((slot,))
                else:
                    terms.append(body)
            out.append(Statement(statement.slots, (tuple(terms),), False))
        return out

    return rewrite(phase_a), rewrite(phase_b)


def build_circuit(
    program: GroundProgram, roles: tuple[Term, ...], file: str = "<game>", meter: BudgetMeter | None = None,
) -> Circuit:
    """The simplified circuit of a ground program; raises :class:`CircuitError` if it is not stratified, and
    :class:`~ggp.reasoner.circuit.errors.CompileBudgetError` past ``meter``'s budget (by default a fresh
    meter of :data:`~ggp.reasoner.circuit.budget.DEFAULT_BUDGET`)."""
    circuit = _Builder(program, roles, file, meter or BudgetMeter(DEFAULT_BUDGET, file)).build()
    statements, literals = circuit.size()
    log.info("%s: circuit of %d statements, %d literals from %d ground rules", file, statements, literals, len(program.rules))
    return circuit
