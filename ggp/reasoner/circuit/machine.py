"""CircuitStateMachine: the StateMachine protocol answered by a compiled Boolean circuit.

It agrees with :class:`~ggp.reasoner.clingo_machine.ClingoStateMachine` query for query (same role
order, moves sorted by KIF text, same goals, terminal and next states) and adds a batch API over numpy
bit arrays and whole random playouts run inside the evaluator.

>>> from ggp.gdl.parser import parse_kif
>>> from ggp.reasoner.clingo_machine import GroundingLimits
>>> game = parse_kif('''(role a) (init (count 0)) (<= (legal a step) (true (count 0)))
...   (<= (next (count 1)) (does a step)) (<= terminal (true (count 1))) (goal a 100)''')
>>> machine = CircuitStateMachine(game, GroundingLimits(isolate=False))
>>> state = machine.initial_state()
>>> machine.legal_moves(state, machine.roles[0])
(step,)
>>> machine.random_playouts(100, seed=1, batch=64).mean_depth
1.0
"""

from __future__ import annotations

import bisect
import functools
import logging
import operator
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ggp.errors import IllegalMoveError, ReasonerError
from ggp.gdl.terms import Description, Term
from ggp.reasoner.circuit.budget import DEFAULT_BUDGET, BudgetMeter, CompileBudget
from ggp.reasoner.circuit.build import Circuit, build_circuit
from ggp.reasoner.circuit.circuit_tree import CircuitMctsTree
from ggp.reasoner.circuit.evaluate import make_evaluator
from ggp.reasoner.circuit.evaluator import Evaluator, EvaluatorKind, pack_bits, unpack_bits
from ggp.reasoner.circuit.extract import ground_program
from ggp.reasoner.circuit.factors import find_factors
from ggp.reasoner.factoring import Factor, Factoring, factor_of_moves
from ggp.reasoner.machine import GroundingLimits, JointMove, Move, Role, State, StateInfo, StateInfoQueries, StateMachine
from ggp.reasoner.playouts import PlayoutCutoff
from ggp.reasoner.wrappers import first_that_builds

log = logging.getLogger(__name__)

DEFAULT_MAX_NODES = 500_000
"""Ground rules (facts not counted) past which rule bodies are split (its budget refuses a game, not this)."""

DEFAULT_MAX_DEPTH = 1000
"""Joint moves after which a random playout is cut (as ``ggp.reasoner.playouts`` and ``ggp bench`` do)."""

TREE_MAX_BYTES = 256 << 20
"""Memory an MCTS tree run in C (:meth:`CircuitStateMachine.mcts_tree`) may reserve; it stops growing there
(a kept subtree is copied, so moving the root briefly needs twice that; the player server's worker has 2 GB)."""


@dataclass(frozen=True, slots=True)
class PlayoutSummary:
    """Result of a batch of random playouts.

    ``states`` counts every state visited (initial and final included); ``mean_depth`` is joint moves
    per playout; ``goal_sums`` is each role's summed goal value (0 where a role has no goal); ``cut``
    playouts hit the depth limit and ``stuck`` ones reached a non-terminal state where a role had no
    legal move. It is also a sequence of the playouts' depths (in finishing order), which is what
    ``ggp bench --batch`` consumes.
    """

    playouts: int
    states: int
    mean_depth: float
    goal_sums: tuple[float, ...]
    cut: int
    stuck: int
    seconds: float
    depths: tuple[int, ...] = field(repr=False, default=())
    goals: tuple[tuple[int, ...], ...] = field(repr=False, default=())

    @property
    def mean_goals(self) -> tuple[float, ...]:
        """Each role's mean goal value over the playouts."""
        return tuple(s / self.playouts for s in self.goal_sums) if self.playouts else tuple(0.0 for _ in self.goal_sums)

    def __len__(self) -> int:
        return len(self.depths)

    def __iter__(self) -> Iterator[int]:
        return iter(self.depths)

    def __getitem__(self, index: int) -> int:
        return self.depths[index]


class _Entry(NamedTuple):
    legal: tuple[tuple[Move, ...], ...]
    terminal: bool
    goal_values: tuple[tuple[Term, ...], ...]
    ids: list[list[int]]  # per role, the global indices of the legal moves
    key: int


class CircuitStateMachine(StateInfoQueries):
    """A :class:`~ggp.reasoner.machine.StateMachine` evaluating the game's compiled circuit.

    Construction grounds the game once with clingo, builds and simplifies the circuit and loads the
    evaluator (C when a compiler exists, else numpy; ``evaluator`` forces one); given ``circuit`` (built
    from this description by :func:`~ggp.reasoner.circuit.build.build_circuit`), it only loads the evaluator. Raises
    :class:`~ggp.reasoner.circuit.errors.CompileBudgetError` past ``budget`` (``max_nodes`` only decides when
    rule bodies are split), other circuit errors for games a circuit cannot express, :class:`ReasonerError`
    for grounding failures, :class:`IllegalMoveError` for an illegal joint move. Queries are thread-safe.
    """

    engine = "circuit"
    """The registered engine this machine is (:func:`ggp.reasoner.engines.engine_name`)."""

    def __init__(
        self,
        description: Description,
        limits: GroundingLimits | None = None,
        *,
        max_nodes: int = DEFAULT_MAX_NODES,
        evaluator: EvaluatorKind = "auto",
        budget: CompileBudget = DEFAULT_BUDGET,
        cache_dir: Path | None = None,
        cache_size: int = 4096,
        circuit: Circuit | None = None,
    ) -> None:
        started = time.perf_counter()
        self.description = description
        roles = description.roles
        if not roles:
            raise ReasonerError(f"{description.file}: the game defines no role")
        self._roles: tuple[Role, ...] = tuple(roles)
        self._role_index = {role: i for i, role in enumerate(self._roles)}
        if circuit is None:  # (a circuit built elsewhere, e.g. in a child process, skips grounding and building)
            meter = BudgetMeter(budget, description.file)
            program = ground_program(description, limits or GroundingLimits(), max_nodes, meter)
            circuit = build_circuit(program, self._roles, description.file, meter)
        self.circuit: Circuit = circuit
        self.evaluator: Evaluator = make_evaluator(self.circuit, evaluator, cache_dir)
        c = self.circuit
        self._fluent_index = {f: i for i, f in enumerate(c.fluents)}
        self._offsets = c.move_offsets()
        self._move_ranges = tuple(zip(self._offsets, (*self._offsets[1:], c.n_moves)))
        self._move_index = [{m: i for i, m in enumerate(moves)} for moves in c.moves]
        self._goal_roles = [g[0] for g in c.goals]
        self._goal_terms = [g[1] for g in c.goals]
        self._lock = threading.RLock()
        self._info_cache: OrderedDict[State, _Entry] = OrderedDict()
        self._cache_size = cache_size
        # States are converted to packed ints ("keys", bit f = fluent f) once and remembered; successor
        # states are built from their parent by set operations on pre-hashed singletons, because
        # hashing terms is what dominates a Python-level query.
        self._singletons = [frozenset((f,)) for f in c.fluents]
        self._flat_moves = [move for moves in c.moves for move in moves]
        self._move_by_id = {id(move): i for i, move in enumerate(self._flat_moves)}
        self._no_goals: tuple[tuple[Term, ...], ...] = tuple(() for _ in self._roles)
        self._keys: OrderedDict[State, int] = OrderedDict()
        self._key_limit = max(4 * cache_size, 4096)
        self._initial = State(frozenset(f for f, on in zip(c.fluents, c.init) if on))
        self._remember(self._initial, sum(1 << i for i, on in enumerate(c.init) if on))
        self._init_bits = np.array(c.init, dtype=np.uint8)
        self.compile_seconds = time.perf_counter() - started
        log.info(
            "%s: circuit machine ready in %.2f s (%s evaluator, %d fluents, %d moves)",
            description.file, self.compile_seconds, self.evaluator.name, c.n_fluents, c.n_moves,
        )

    @classmethod
    def from_kif(cls, text: str, file: str = "<string>", limits: GroundingLimits | None = None) -> CircuitStateMachine:
        from ggp.gdl.parser import parse_kif

        return cls(parse_kif(text, file), limits)

    # --- conversions ----------------------------------------------------------------------------

    def _indices(self, state: State) -> list[int]:
        try:
            return [self._fluent_index[fact] for fact in state.facts]
        except KeyError:
            unknown = sorted(str(f) for f in state.facts if f not in self._fluent_index)
            raise ReasonerError(f"{self.description.file}: fluent {unknown[0]} can never hold in this game") from None

    def _state_of(self, indices: Sequence[int]) -> State:
        fluents = self.circuit.fluents
        return State(frozenset(fluents[i] for i in indices))

    def _remember(self, state: State, key: int) -> None:
        keys = self._keys
        keys[state] = key
        if len(keys) > self._key_limit:
            keys.popitem(last=False)

    def _key(self, state: State) -> int:
        key = self._keys.get(state)
        if key is None:
            key = 0
            for index in self._indices(state):
                key |= 1 << index
            self._remember(state, key)
        return key

    def _successor(self, state: State, key: int, new_key: int) -> State:
        """The State for ``new_key``, derived from ``state`` (whose key is ``key``) by set differences."""
        facts = state.facts
        changed = key ^ new_key
        if changed:
            singletons = self._singletons
            removed, added = key & changed, new_key & changed
            if removed:
                facts = facts.difference(*[singletons[i] for i in _bits(removed)])
            if added:
                facts = facts.union(*[singletons[i] for i in _bits(added)])
        successor = State(facts)
        self._remember(successor, new_key)
        return successor

    # --- StateMachine protocol --------------------------------------------------------------------

    @property
    def roles(self) -> tuple[Role, ...]:
        return self._roles

    def initial_state(self) -> State:
        return self._initial

    def state_info(self, state: State) -> StateInfo:
        """Legal moves, terminal and goal values of ``state`` (cached)."""
        entry = self._entry(state)
        return StateInfo(entry.legal, entry.terminal, entry.goal_values)

    def _entry(self, state: State) -> _Entry:
        """What the machine knows of a state: its queries' answers, legal move indices and key (cached)."""
        cached = self._info_cache.get(state)
        if cached is not None:
            return cached
        key = self._key(state)
        with self._lock:
            legal_ids, terminal, goal_flags = self.evaluator.single_info(key)
        # Ascending global indices are role-major and sorted within a role: cut at the role offsets.
        ids: list[list[int]] = []
        start = 0
        for end_offset in self._offsets[1:]:
            end = bisect.bisect_left(legal_ids, end_offset, start)
            ids.append(legal_ids[start:end])
            start = end
        ids.append(legal_ids[start:])
        flat = self._flat_moves
        legal = tuple(tuple([flat[m] for m in role_ids]) for role_ids in ids)
        if any(goal_flags):
            goals: list[list[Term]] = [[] for _ in self._roles]
            for k, on in enumerate(goal_flags):
                if on:
                    goals[self._goal_roles[k]].append(self._goal_terms[k])
            goal_values = tuple(tuple(g) for g in goals)
        else:
            goal_values = self._no_goals
        entry = _Entry(legal, terminal, goal_values, ids, key)
        cache = self._info_cache
        cache[state] = entry
        if len(cache) > self._cache_size:
            cache.popitem(last=False)
        return entry

    _info = _entry  # type: ignore[assignment]  # the StateInfoQueries hook; an _Entry has StateInfo's fields

    def _move_ids(self, state: State, entry: _Entry, joint_move: JointMove) -> list[int]:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        chosen = []
        by_id = self._move_by_id
        ids = entry.ids
        for index, move in enumerate(joint_move):
            # Moves taken from legal_moves() are the machine's own objects: find them by identity,
            # since hashing or comparing terms costs more than the whole circuit evaluation.
            global_index = by_id.get(id(move))
            if global_index is None or self._flat_moves[global_index] is not move:
                local = self._move_index[index].get(move)
                global_index = None if local is None else self._offsets[index] + local
            if global_index is None or global_index not in ids[index]:
                raise IllegalMoveError(f"{move} is not a legal move for {self._roles[index]} in state {state}")
            chosen.append(global_index)
        return chosen

    def next_state(self, state: State, joint_move: JointMove) -> State:
        entry = self._entry(state)
        moves = self._move_ids(state, entry, joint_move)
        with self._lock:
            new_key, _ = self.evaluator.single_next(entry.key, moves)
        return self._successor(state, entry.key, new_key)

    def next_state_and_percepts(self, state: State, joint_move: JointMove) -> tuple[State, tuple[frozenset[Term], ...]]:
        """The successor state and what each role sees (GDL-II ``sees``) after ``joint_move``."""
        entry = self._entry(state)
        moves = self._move_ids(state, entry, joint_move)
        with self._lock:
            new_key, sees_flags = self.evaluator.single_next(entry.key, moves)
        percepts: list[set[Term]] = [set() for _ in self._roles]
        for (r, term, _), on in zip(self.circuit.sees, sees_flags):
            if on:
                percepts[r].add(term)
        return self._successor(state, entry.key, new_key), tuple(frozenset(p) for p in percepts)

    # --- extras ----------------------------------------------------------------------------------

    @property
    def fluent_domain(self) -> frozenset[Term]:
        """Every fluent that can ever hold (an over-approximation)."""
        return frozenset(self.circuit.fluents)

    def move_domain(self, role: Role) -> frozenset[Move]:
        """Every move the role can ever make (an over-approximation)."""
        return frozenset(self.circuit.moves[self._role_index[role]])

    @property
    def fluents(self) -> tuple[Term, ...]:
        """The fluents in bit order: column ``i`` of a state array is ``fluents[i]``."""
        return self.circuit.fluents

    @property
    def moves(self) -> tuple[tuple[Role, Move], ...]:
        """(role, move) in column order of :meth:`legal_mask` (role-major, moves sorted by KIF text)."""
        return tuple((role, move) for role, moves in zip(self._roles, self.circuit.moves) for move in moves)

    # --- packed states (for searches that keep their own tables) ----------------------------------

    def state_key(self, state: State) -> int:
        """The packed form of a state: an int with bit ``i`` set when ``fluents[i]`` holds."""
        return self._key(state)

    def key_state(self, key: int) -> State:
        """The State of a packed key (inverse of :meth:`state_key`)."""
        return self._state_of(_bits(key))

    def key_info(self, key: int) -> tuple[list[int], bool, list[bool]]:
        """Legal moves (indices into :attr:`moves`, ascending), terminal flag and goal flags (one per
        ``circuit.goals`` entry) of a packed state. No caching: the fastest query. Raises ValueError for a
        key with bits beyond the fluents."""
        self._check_key(key)
        with self._lock:
            return self.evaluator.single_info(key)

    def key_next(self, key: int, move_indices: Sequence[int]) -> int:
        """The packed successor after one move per role (indices into :attr:`moves`).

        The indices are checked before they reach the compiled code: one per role, each within its own
        role's block of :attr:`moves` (ValueError otherwise). Whether the moves are *legal* is not checked
        (the caller took them from :meth:`key_info`); an illegal joint move gives the rules' successor.
        """
        self._check_key(key)
        ranges = self._move_ranges
        if len(move_indices) != len(ranges):
            raise ValueError(f"expected one move index per role ({len(ranges)}), got {len(move_indices)}")
        checked = []
        for role, index, (low, high) in zip(self._roles, move_indices, ranges):
            value = _as_index(index)
            if value is None or not low <= value < high:
                raise ValueError(f"move index {index!r} is not one of role {role}'s moves ({low}..{high - 1})")
            checked.append(value)
        with self._lock:
            return self.evaluator.single_next(key, checked)[0]

    def _check_key(self, key: int) -> None:
        value = _as_index(key)
        if value is None or value < 0 or value.bit_length() > self.circuit.n_fluents:
            raise ValueError(f"{key!r} is not a packed state of {self.circuit.n_fluents} fluents")

    # --- batch API ---------------------------------------------------------------------------------

    def states_to_bits(self, states: Sequence[State]) -> npt.NDArray[np.bool_]:
        """(batch, fluents) booleans for the given states."""
        bits = np.zeros((len(states), self.circuit.n_fluents), dtype=bool)
        for row, state in enumerate(states):
            bits[row, self._indices(state)] = True
        return bits

    def bits_to_states(self, bits: npt.NDArray[np.bool_]) -> list[State]:
        """Inverse of :meth:`states_to_bits`."""
        return [self._state_of(np.flatnonzero(row).tolist()) for row in bits]

    def _check(self, states: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        states = np.asarray(states, dtype=bool)
        if states.ndim != 2 or states.shape[1] != self.circuit.n_fluents:
            raise ValueError(f"states must have shape (batch, {self.circuit.n_fluents}), got {states.shape}")
        return states

    def legal_mask(self, states: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """(batch, moves) booleans: which moves (columns as in :attr:`moves`) are legal in each state."""
        states = self._check(states)
        with self._lock:
            out = self.evaluator.evaluate(pack_bits(states), None)
        return unpack_bits(out.legal, states.shape[0])

    def terminal(self, states: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """(batch,) booleans: which states are terminal."""
        states = self._check(states)
        with self._lock:
            out = self.evaluator.evaluate(pack_bits(states), None)
        return unpack_bits(out.terminal[None, :], states.shape[0])[:, 0]

    def goals_batch(self, states: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        """(batch, roles) goal values (the first integer goal derived; 0 where none is)."""
        states = self._check(states)
        with self._lock:
            out = self.evaluator.evaluate(pack_bits(states), None)
        flags = unpack_bits(out.goals, states.shape[0])
        result = np.zeros((states.shape[0], len(self._roles)), dtype=np.int64)
        done = np.zeros_like(result, dtype=bool)
        for k, (r, term, _) in enumerate(self.circuit.goals):
            try:
                value = int(str(term))
            except ValueError:
                continue
            hit = flags[:, k] & ~done[:, r]
            result[hit, r] = value
            done[hit, r] = True
        return result

    def next_states(self, states: npt.NDArray[np.bool_], joint_moves: npt.NDArray[np.integer]) -> npt.NDArray[np.bool_]:
        """(batch, fluents) successors; ``joint_moves`` is (batch, roles) of per-role move indices.

        A move index counts within its role (``circuit.moves[r]``). Raises :class:`IllegalMoveError`
        when a chosen move is not legal in its state.
        """
        states = self._check(states)
        joint = np.asarray(joint_moves, dtype=np.int64)
        batch = states.shape[0]
        if joint.shape != (batch, len(self._roles)):
            raise ValueError(f"joint_moves must have shape ({batch}, {len(self._roles)}), got {joint.shape}")
        does = np.zeros((batch, self.circuit.n_moves), dtype=bool)
        for r, moves in enumerate(self.circuit.moves):
            column = joint[:, r]
            if ((column < 0) | (column >= len(moves))).any():
                raise IllegalMoveError(f"a move index of role {self._roles[r]} is out of range")
            does[np.arange(batch), self._offsets[r] + column] = True
        with self._lock:
            out = self.evaluator.evaluate(pack_bits(states), pack_bits(does))
        legal = unpack_bits(out.legal, batch)
        bad = np.flatnonzero((does & ~legal).any(axis=1))
        if bad.size:
            raise IllegalMoveError(f"joint move {joint[bad[0]].tolist()} is not legal in batch state {bad[0]}")
        assert out.next is not None
        return unpack_bits(out.next, batch)

    def random_playouts(
        self, n: int, seed: int = 0, batch: int = 256, *, start: State | None = None, max_depth: int = DEFAULT_MAX_DEPTH
    ) -> PlayoutSummary:
        """Run ``n`` uniformly random playouts (from ``start`` or the initial state), ``batch`` at a time.

        Finished playouts are refilled so ``batch`` keep running (rounded up to a multiple of 64); the
        same seed and batch repeat the run. A playout is cut after ``max_depth`` joint moves.
        """
        if n < 0 or batch < 1 or max_depth < 0:
            raise ValueError("n and max_depth must be >= 0 and batch >= 1")
        if start is None:
            start_bits = self._init_bits
        else:
            start_bits = np.zeros(self.circuit.n_fluents, dtype=np.uint8)
            start_bits[self._indices(start)] = 1
        nwords = max(1, -(-min(batch, max(n, 1)) // 64))
        began = time.perf_counter()
        with self._lock:
            stats = self.evaluator.playouts(n, seed, nwords, max_depth, start_bits, record=True)
        seconds = time.perf_counter() - began
        assert stats.depths is not None and stats.goals is not None
        return PlayoutSummary(
            playouts=stats.playouts,
            states=stats.states,
            mean_depth=stats.depth_sum / stats.playouts if stats.playouts else 0.0,
            goal_sums=stats.goal_sums,
            cut=stats.cut,
            stuck=stats.stuck,
            seconds=seconds,
            depths=tuple(stats.depths.tolist()),
            goals=tuple(tuple(row) for row in stats.goals.tolist()),
        )

    def mcts_tree(
        self, state: State, *, exploration: float, playouts_per_leaf: int, chance: Sequence[bool], seed: int,
        max_nodes: int, mast: float = 0.0, solver: bool = False, rave: float = 0.0, decisive: int = 0,
        cutoff: PlayoutCutoff | None = None, factor: Factor | None = None,
    ) -> CircuitMctsTree | None:
        """An MCTS tree rooted at ``state`` searched in C (:class:`~ggp.reasoner.playouts.MctsTreeFactory`),
        reserving at most :data:`TREE_MAX_BYTES`; None with numpy. Playouts end after :data:`DEFAULT_MAX_DEPTH`
        joint moves. The options are the ``ggp_mcts_set_*`` of the C search: ``mast`` (share of MAST moves),
        ``solver`` (MCTS-Solver), ``rave`` (RAVE's k), ``decisive`` (lookahead: 1 decisive moves, 2 anti-decisive
        too), ``cutoff`` (cut playouts scored by its heuristic), ``factor`` (one of :attr:`factoring`'s factors: the
        search plays it alone, the other fluents held as in ``state``). ReasonerError when out of memory."""
        make = getattr(self.evaluator, "mcts", None)
        if make is None:
            return None
        if len(chance) != len(self._roles):
            raise ValueError(f"expected one chance flag per role ({len(self._roles)}), got {len(chance)}")
        if not 0.0 <= mast <= 1.0:
            raise ValueError(f"mast must be a share between 0 and 1, found {mast}")
        tree = make(self.state_key(state), exploration, playouts_per_leaf, chance, seed, max_nodes, TREE_MAX_BYTES,
                    DEFAULT_MAX_DEPTH)
        if mast > 0.0:
            tree.set_mast(1.0 - mast)
        tree.set_solver(solver)
        if rave > 0.0:
            tree.set_rave(rave)
        if not 0 <= decisive <= 2:
            raise ValueError(f"decisive is the playouts' lookahead, 0, 1 or 2; found {decisive}")
        if decisive:
            tree.set_decisive(decisive)
        if cutoff is not None:
            tree.set_cutoff(cutoff)
        if factor is not None:
            tree.set_factor(*self.factoring.restriction(factor), self.state_key(state))
        return CircuitMctsTree(self.state_key, self._flat_moves, tree)

    @functools.cached_property
    def factoring(self) -> Factoring:
        """The game's independent sub-games (:func:`~ggp.reasoner.circuit.factors.find_factors`)."""
        return find_factors(self.circuit)

    def factor_at(self, state: State, role: Role) -> Factor | None:
        """The factor holding every legal move of ``role`` in ``state`` (:func:`~ggp.reasoner.factoring.factor_hook`)."""
        if not self.factoring.factored:
            return None
        index = self._move_index[self._role_index[role]]
        offset = self._offsets[self._role_index[role]]
        return factor_of_moves(self.factoring, [offset + index[move] for move in self.legal_moves(state, role)])

    def playout_goals(self, state: State, n: int, seed: int | random.Random = 0) -> list[tuple[int, ...]]:
        """Goals (role order) of ``n`` random playouts from ``state``, run in one batch.

        This is the batch hook of ``ggp.reasoner.playouts``; ``seed`` may be a ``random.Random``, which is
        advanced by one draw. The mean is ``random_playouts(n, seed, start=state).mean_goals``.
        """
        if isinstance(seed, random.Random):
            seed = seed.getrandbits(63)
        summary = self.random_playouts(n, seed, batch=min(max(n, 1), 256), start=state)
        return list(summary.goals)


def _as_index(value: object) -> int | None:
    """``value`` as a Python int when it is an integer (numpy integers included, bools not), else None."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def _bits(value: int) -> list[int]:
    """Indices of the set bits of a non-negative int, ascending."""
    out = []
    while value:
        low = value & -value
        out.append(low.bit_length() - 1)
        value ^= low
    return out


def make_fast_machine(
    description: Description,
    limits: GroundingLimits | None = None,
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    evaluator: EvaluatorKind = "auto",
    budget: CompileBudget = DEFAULT_BUDGET,
) -> StateMachine:
    """The circuit machine, or with a logged notice, when the game cannot be compiled (over the compiler's
    budget, over the grounding limits), what the ``auto`` engine picks (ground once, else per state, else the prover:
    :func:`ggp.reasoner.auto.choose_machine`), so the fast path never plays fewer games than the default."""

    def auto(game: Description) -> StateMachine:
        from ggp.reasoner.auto import choose_machine

        return choose_machine(game, limits)

    return first_that_builds(description, [
        ("circuit", lambda game: CircuitStateMachine(game, limits, max_nodes=max_nodes, evaluator=evaluator,
                                                     budget=budget)),
        ("auto", auto),
    ])
