"""MctsPlayer: Monte Carlo tree search with UCT, decoupled per role for simultaneous moves.

Each tree node keeps, for every role, visit counts and goal totals per legal move (decoupled UCT):
every role picks its own move by UCB1 on its own goal, and the picks form the joint move. Turn-taking
games are the special case where all but one role have a single move, and single-player games
need no special case at all. A role named ``random`` is chance (GDL-II's built-in player): its move
is drawn uniformly instead of by UCB1, so the search averages over it rather than fearing its worst
move. Leaves are scored by random playouts (batched when the machine offers ``playout_goals``).
The tree is kept between turns: the next ``choose`` reuses the child that matches the new state.
An iteration is one selection-expansion-playout-backup pass.

On a machine that offers ``mcts_tree`` (the compiled circuit) the same search runs in the machine's
C code (:meth:`MctsPlayer._native_search`): Python only starts it in slices of :data:`_NATIVE_SLICE`
seconds and reads the root's statistics, so an iteration costs no Python at all. That tree is kept
between turns too (the new root may be the old root, a child or a grandchild) and holds at most
:data:`NATIVE_MAX_NODES` nodes (later leaves are scored without being stored).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable, Sequence

from ggp.player import Budget
from ggp.players.base import BasePlayer
from ggp.players.heuristic import HeuristicChoice, choose_cutoff
from ggp.players.selfconfig import SAFE_DEFAULTS_REASON, SearchSettings, choose_settings, profile_game
from ggp.reasoner.factoring import factor_hook
from ggp.reasoner.machine import CHANCE_ROLE, JointMove, Move, Role, State, StateMachine
from ggp.reasoner.playouts import (
    MctsTree,
    PlayoutInterrupted,
    TreeRootStatistics,
    mcts_tree_hook,
    nested_hook,
    playout_goals,
    safe_goals,
)

log = logging.getLogger(__name__)

_BEST_EVERY = 32
"""Iterations between updates of the anytime best move."""

_NATIVE_SLICE = 0.02
"""Seconds of native search between two looks from Python (the anytime best move, the cancel event)."""

NATIVE_MAX_NODES = 1_000_000
"""Nodes a native search tree may hold (the machine also bounds its memory)."""


class _Node:
    """One state in the tree with decoupled per-role statistics."""

    __slots__ = ("children", "count", "goals", "moves", "state", "terminal", "totals", "visits")

    def __init__(self, machine: StateMachine, state: State) -> None:
        self.state = state
        self.moves: list[tuple[Move, ...]] = []
        self.terminal = machine.is_terminal(state)
        if not self.terminal:
            self.moves = [machine.legal_moves(state, role) for role in machine.roles]
            self.terminal = any(not moves for moves in self.moves)
        self.goals = tuple(g / 100.0 for g in safe_goals(machine, state)) if self.terminal else ()
        self.visits = [[0] * len(moves) for moves in self.moves]
        self.totals = [[0.0] * len(moves) for moves in self.moves]
        self.children: dict[JointMove, _Node] = {}
        self.count = 0


DEFAULT_EXPLORATION = 0.4
"""UCB1's exploration constant c on goals scaled to 0..1: CadiaPlayer's 40 on GDL's 0..100 scale
(Finnsson & Björnsson 2008). Measured here (2026-11-25, circuit engine, arena games with seats swapped):
c = 0.4 beat c = 1.0 at equal iterations 39-5-16 on connectFour (3,000 a move, 60 games) and 32-8 on
breakthrough (40 games), and on three-player chineseCheckers3 against two Monte Carlo players won 110
of 120 games to c = 1.0's 100 (2,000 iterations a move; 112 and 103 at 8,000)."""


DEFAULT_MAST = 0.3
"""The share of MAST moves in playouts by default (see :class:`MctsPlayer`; epsilon 0.7). Measured here
(2026-11-25, circuit engine, arena games with seats swapped, both sides at exploration 0.4): on
three-player chineseCheckers3 one player with MAST against two without scored 37 of 60 games (a third is
even; a share of 0.6 scored 34), at equal iterations (2,000 a move); even on the two-player games:
connectFour 79.5 of 160 (3,000 iterations; a share of 0.6 lost, 14.5 of 60), breakthrough 18 of 40,
ticTacToe 49.5 of 100 (all but one drawn)."""


DEFAULT_SOLVER = True
"""MCTS-Solver on by default (see :class:`MctsPlayer`). Measured here (circuit engine, arena games with seats
rotated, against ``solver=0`` at equal iterations, ``decisive=0`` on both sides; first run 2026-11-27, rerun
2026-11-28 with the same figures; docs/players.md has the table and the data): connectFour 168.5 of 300
(56.2%, 95% interval 50.5%-61.7%, 3,000 iterations a move), ticTacToe 51.5 of 100, breakthrough 75 of 180
(1,000 iterations), which paired with identical players on the same seats and seeds is even (47 to 50 of
120)."""


DEFAULT_RAVE = 0.0
"""RAVE's equivalence parameter k by default (see :class:`MctsPlayer`; 0: off). Off because it showed no gain in
its duels (2026-11-28, against ``rave=0`` at equal iterations, ``decisive=0`` on both sides; docs/players.md):
connectFour 48.5 of 100 at k = 500 and 53.5 of 100 at k = 50 (3,000 iterations a move), breakthrough 10 of 30
at k = 500 (1,000 iterations), what identical players score on the same 30 seats and seeds. (The first
figures of 2026-11-27, 22.5 and 40.5 of 100 and 8 of 30, do not reproduce on that day's committed code.)"""


DEFAULT_DECISIVE = 0
"""The playouts' lookahead where no measurement decides it (see :class:`MctsPlayer`; by default the player
chooses it per match, :mod:`ggp.players.selfconfig`): 0 none, 1 decisive moves, 2 anti-decisive too.
Off then because it depends on the game (2026-11-27, against the default player, docs/players.md): at equal time
``decisive=2`` won connectFour 34-1-5 (0.5 s a move, with a seventh of the iterations) and was even on
connectFourSimultaneous (22-1-17), but lost breakthrough 7-23 and reversi 6-14 (0.25 s), where its checks
cost half the iterations or more and rarely change a move."""


DEFAULT_MIX = True
"""Whether the move played at a simultaneous-move root is drawn from decoupled UCT's visit counts (see
:meth:`MctsPlayer._pick_from`) rather than the most visited one."""


DEFAULT_LINE = True
"""Whether, in a game with one role, the player follows the best line its search has played to the end (see
:meth:`MctsPlayer._pick_native`)."""


DEFAULT_NESTED: int | None = None
"""The highest level of Nested Monte-Carlo Search run per decision in one-role games by default (see
:class:`MctsPlayer`): None, levels rising until a clocked decision's share of time ends, none without a clock
(an iteration budget does not bound NMCS, whose level n costs some hundred times level n - 2). Measured here
(2026-11-27, circuit engine, knightsTour, 10 games at 2,000 iterations a move; docs/players.md): mean goal
93.4 without NMCS, 87.7 and 90.7 with levels up to 1 and 2, 99.6 (nine tours) and 100.0 (ten) up to 3 and 4;
level 4 from the start takes 0.8 s of one core, so a 10 s start clock or a 2 s play clock reaches it."""


DEFAULT_CUTOFF = -1
"""The playout cut-off's depth by default: -1, off (``cutoff`` in :class:`MctsPlayer`). Its duels
(docs/players.md, 2026-11-28, cut 8 moves past the leaf against no cut, 1,000 iterations a move) won
checkersTiny (63.5% over 100 games) but lost checkersTorus (16.2%) and reversi (22.5%) and showed nothing on
breakthrough, and the validated correlation does not tell these apart (0.49 on checkersTiny, 0.51 on
checkersTorus), so self-configuration does not turn it on."""

CONFIGURE_SHARE = 0.3
"""The share of the start clock self-configuration may spend measuring (the rest is NMCS's or idle)."""

CONFIGURE_MIN_SECONDS = 0.05
"""Below this much start clock for the measurement, self-configuration keeps the safe defaults."""


_NESTED_UNCAPPED = 64
"""The highest NMCS level of ``nested=None`` under a clock: in effect none, the clock ends it much earlier."""

NESTED_SHARE = 0.5
"""The share of a clocked decision's time that ``nested`` gives Nested Monte-Carlo Search before the tree search
takes the rest (the start clock goes to it whole)."""


class MctsPlayer(BasePlayer):
    """UCT with UCB1 (``exploration`` is the constant c on goals scaled to 0..1) and tree reuse.

    ``mast`` is the share of playout moves chosen by MAST (the Move-Average Sampling Technique of
    CadiaPlayer, epsilon-greedy: each role plays the move with the best mean goal over the iterations it
    was played in, tree and playouts, kept for the tree's life; the other moves uniformly at random). It
    applies where the machine runs the search in its own code with one playout per leaf (the compiled
    circuit's ``mcts_tree``); elsewhere the machine's batched playouts stay uniformly random.

    ``solver`` turns on MCTS-Solver (Winands, Björnsson & Saito 2008) in that same native search: a node
    where one role chooses is proven once a child gives that role its highest goal or all its children
    are proven, is then scored by its proven goals (no playout below it), and a proven root ends the
    search; the move chosen is then the proof's (the quickest win, or where the root is not won, the
    slowest way to its value: a fallible opponent must still find it), and elsewhere a move proven worse
    than another (or proven to give the lowest goal while some move is unproven) is never chosen.

    ``rave`` > 0 turns on RAVE there (Gelly & Silver 2007, as in CadiaPlayer): each tree edge also keeps
    all-moves-as-first statistics (the goals of the iterations in which its role played that move at the
    node or later, in the tree or the playout), and UCB1's mean of an edge of n visits becomes
    beta * AMAF mean + (1 - beta) * mean with beta = sqrt(rave / (3n + rave)).

    ``decisive`` (None by default: chosen per match, see below) gives that native search's single playouts a
    lookahead (Teytaud & Teytaud 2010): with 1, at
    each step a role with a move that ends the game at its highest goal plays it (drawn among such moves)
    instead of its random or MAST move; with 2, a role without one also avoids, where it can, a move after
    which the one opponent to choose next has one (anti-decisive moves). The circuit tries all of a role's
    moves in one evaluation, one per lane (and with 2 every reply too, when they fit in 64 lanes), so a
    playout step costs about two (five) more circuit evaluations.

    ``mix`` draws the move played at a simultaneous-move root in proportion to its visits (among the
    moves visited at least half as often as the most visited one); ``mix=0`` plays the most visited one.

    ``line``: in a game with one role (puzzles), the native search keeps the moves of its best-scoring
    iteration that reached the end (tree path and playout), which guarantee that score in a deterministic
    game; the player follows them while the search looks for better (``line=0``: the most visited move).

    ``nested`` adds Nested Monte-Carlo Search (Cazenave 2009) there, in a game with one role and no chance
    where the machine's tree offers it: each decision first runs NMCS levels 1, 2, ... from the current state
    (for a share :data:`NESTED_SHARE` of a clocked decision's time; without a clock each level to its end),
    then the tree search; the sequences NMCS plays to the end feed the same best line, so the better line of
    the two decides the move. A clocked start (the start clock) is spent on NMCS from the initial state. A
    line worth the highest goal (100) ends the decision at once. ``nested=N`` runs levels 1 to N, clock or
    not (0: off); by default (None) levels rise until the clock's share ends, and none run without a clock.
    It needs ``line`` on.

    ``cutoff`` >= 0 validates heuristics in the start clock (:mod:`ggp.players.heuristic`: material and goal
    values, kept where they correlate with the outcome of seeded random playouts) and, where one is kept, cuts
    the native search's single playouts ``cutoff`` joint moves past the leaf, scoring them by the fitted
    evaluation; -1 (:data:`DEFAULT_CUTOFF`) plays them to the end.

    ``factor`` (None by default: chosen per match) searches, in a game whose rules fall apart into independent
    sub-games, each decision's sub-game alone in that native search (one playout per leaf), the rest of the
    state held as it is (:mod:`ggp.reasoner.factoring`); a new tree each decision.

    **Self-configuration.** An option left at None (``decisive``, ``factor``) is chosen per match in :meth:`start`, from the
    rules and a short seeded measurement on the match's machine (:mod:`ggp.players.selfconfig`), within a
    share :data:`CONFIGURE_SHARE` of the start clock
    (count-bounded without a clock, so an arena and a manager's seat choose alike); the choice is logged in
    one INFO line and kept in :attr:`configuration`, which :func:`~ggp.player.configuration_of` reports with
    the match (the player server's START reply header that the manager records, ``ggp arena --json``). A
    ``cutoff`` >= 0 adds its validation to that line (its own INFO line where ``decisive`` and ``factor`` are given).
    A machine without the native search, a start clock too short for the measurement or a measurement
    that fails gives the safe defaults (:data:`DEFAULT_DECISIVE`), and the log line says why. An option
    given by the user is never changed.
    """

    name = "mcts"
    ponders = True  # the tree grown on a forced move is reused at the next decision

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        exploration: float = DEFAULT_EXPLORATION,
        playouts_per_leaf: int = 1,
        mast: float = DEFAULT_MAST,
        solver: bool = DEFAULT_SOLVER,
        rave: float = DEFAULT_RAVE,
        mix: bool = DEFAULT_MIX,
        line: bool = DEFAULT_LINE,
        decisive: int | None = None,
        nested: int | None = DEFAULT_NESTED,
        cutoff: int = DEFAULT_CUTOFF,
        factor: bool | None = None,
    ) -> None:
        super().__init__(seed, budget)
        if not 0.0 <= mast <= 1.0:
            raise ValueError(f"mast is the share of MAST moves in playouts, between 0 and 1; found {mast}")
        self.exploration = exploration
        self.playouts_per_leaf = max(1, playouts_per_leaf)
        self.mast = float(mast)
        self.solver = bool(solver)
        if rave < 0.0:
            raise ValueError(f"rave is RAVE's equivalence parameter k, 0 (off) or more; found {rave}")
        self.rave = float(rave)
        self.mix = bool(mix)
        if decisive not in (None, 0, 1, 2):
            raise ValueError(f"decisive is the playouts' lookahead, 0, 1 or 2; found {decisive}")
        self._decisive_option = decisive
        self.decisive = DEFAULT_DECISIVE if decisive is None else int(decisive)
        self._factor_option = factor
        self.factored = bool(factor)
        self.configuration: SearchSettings | None = None
        """What self-configuration chose for the running match (None when every option was given)."""
        self.line = bool(line)
        self.cutoff = int(cutoff)
        self.heuristic: HeuristicChoice | None = None
        """The playout cut-off validated for the running match (None while ``cutoff`` is -1)."""
        if nested is not None and (nested < 0 or nested != int(nested)):
            raise ValueError(f"nested is the highest level of nested Monte-Carlo search, 0 (off) or more; "
                             f"found {nested}")
        self.nested = None if nested is None else int(nested)
        self._stop: Callable[[], bool] | None = None
        """The running search's clock test, asked inside playouts (None under an iteration budget)."""
        self._root: _Node | None = None
        self._native: MctsTree | None = None
        """The machine's own search tree when it offers one (see :meth:`_native_tree`)."""
        self._native_machine: object = None
        """The machine whose ``mcts_tree`` grew :attr:`_native` (an upgrading machine's current one)."""
        self.last_iterations = 0
        self.last_nested = 0
        """The highest NMCS level the last decision (or a clocked start) finished (0: none)."""

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        super().start(machine, role, budget)
        self._root = None
        self._native = None
        self._chance = [r == CHANCE_ROLE and r != role for r in machine.roles]
        self.last_nested = 0
        self.heuristic = None
        if self.cutoff >= 0 and mcts_tree_hook(machine) is not None:
            given = self._decisive_option is not None and self._factor_option is not None  # (no configuration line)
            self.heuristic = self._validate_heuristic(budget, logged=given)
        if self._decisive_option is None or self._factor_option is None:
            self.configuration = self._configure(budget)
            if self._decisive_option is None:
                self.decisive = self.configuration.decisive
            if self._factor_option is None:
                self.factored = self.configuration.factored
        if budget.deadline is not None and self._nested_levels(budget):
            tree = self._native_tree(machine.initial_state())
            if tree is not None:
                self._nested_search(tree, budget.deadline, budget)

    def _validate_heuristic(self, budget: Budget, logged: bool) -> HeuristicChoice:
        """The playout cut-off for this match (:func:`~ggp.players.heuristic.choose_cutoff`, within a share
        :data:`CONFIGURE_SHARE` of the start clock), logged in an INFO line of its own when ``logged`` (else
        self-configuration's line says it)."""
        started = time.monotonic()
        deadline = None if budget.deadline is None else started + CONFIGURE_SHARE * (budget.deadline - started)
        try:
            choice = choose_cutoff(self.machine, self.seed, self.cutoff, deadline)
        except Exception as exc:  # a game the measurement trips on is played without the cut-off
            choice = HeuristicChoice(None, f"the measurement failed ({exc})")
        if logged:
            log.info("mcts as %s: %s (%.2f s of the start clock)", self.role, choice.describe(),
                     time.monotonic() - started)
        return choice

    def _configure(self, budget: Budget) -> SearchSettings:
        """Chooses the options left at None for this match (see the class notes) and logs the choice."""
        started = time.monotonic()
        deadline = None if budget.deadline is None else started + CONFIGURE_SHARE * (budget.deadline - started)
        if mcts_tree_hook(self.machine) is None:
            waits = getattr(self.machine, "wait_upgraded", None)  # one that upgrades to the circuit in the background
            if callable(waits) and deadline is not None:
                waits(max(0.0, deadline - time.monotonic()))
        puzzle = len(self._chance) == 1 and not self._chance[0]
        if mcts_tree_hook(self.machine) is None:
            settings = choose_settings(None, f"{SAFE_DEFAULTS_REASON}: no native search on this engine yet", puzzle)
        elif deadline is not None and deadline - time.monotonic() < CONFIGURE_MIN_SECONDS:
            settings = choose_settings(None, f"{SAFE_DEFAULTS_REASON}: the start clock is too short to measure", puzzle)
        else:
            try:
                settings = choose_settings(profile_game(self.machine, self.seed, deadline))
            except Exception as exc:  # a game the measurement trips on is played, with the defaults
                settings = choose_settings(None, f"{SAFE_DEFAULTS_REASON}: the measurement failed ({exc})", puzzle)
        if self.heuristic is not None:
            settings = dataclasses.replace(settings, heuristic=self.heuristic.describe())
        log.info("mcts as %s: %s (%.2f s of the start clock)", self.role, settings.describe(),
                 time.monotonic() - started)
        return settings

    def stop(self) -> None:
        self._root = None
        self._native = None
        super().stop()

    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        native = self._native_tree(state)
        if native is not None:
            return self._native_search(native, legal, budget)
        root = self._reuse(state)
        if root.terminal:
            return legal[0]
        done = 0
        clocked = budget.deadline is not None or budget.cancel is not None
        self._stop = budget.out_of_time if clocked else None
        while not budget.exhausted(done):
            try:
                self._iterate(root)
            except PlayoutInterrupted:
                break  # the clock ran out inside a playout: the unfinished iteration leaves no trace
            done += 1
            if done % _BEST_EVERY == 0:
                self._best = self._pick(root)
        self.last_iterations = done
        return self._pick(root, final=True)

    def _native_tree(self, state: State) -> MctsTree | None:
        """The machine's search tree moved to ``state``, or None: the machine offers none, or a subclass
        changes the selection rule (the native search has only this class's)."""
        if type(self)._select is not MctsPlayer._select:
            return None
        hook = mcts_tree_hook(self.machine)
        factored = self.factored and self.playouts_per_leaf == 1  # (a factored tree is never reused)
        if self._native is not None and not factored and getattr(hook, "__self__", None) is self._native_machine:
            self._native.reroot(state)
            return self._native
        if hook is None:  # (a tree whose machine was replaced by a faster one is grown again on the new one)
            return None
        factor_at = factor_hook(self.machine) if factored else None
        factor = None if factor_at is None else factor_at(state, self.role)
        self._native_machine = getattr(hook, "__self__", None)
        self._native = hook(
            state, exploration=self.exploration, playouts_per_leaf=self.playouts_per_leaf, chance=self._chance,
            seed=self.rng.getrandbits(64), max_nodes=NATIVE_MAX_NODES, mast=self.mast, solver=self.solver,
            rave=self.rave, decisive=self.decisive, cutoff=None if self.heuristic is None else self.heuristic.cutoff,
            factor=factor,
        )
        if self._native is not None:
            self._root = None  # a Python tree grown before the machine's upgrade is dropped
        return self._native

    def _native_search(self, tree: MctsTree, legal: tuple[Move, ...], budget: Budget) -> Move:
        """:meth:`_search` by the machine's code, in slices between which the budget is checked."""
        stats = tree.root_statistics(self.index)
        if stats.terminal:
            return legal[0]
        deadline = math.inf if budget.deadline is None else budget.deadline
        nests = self._nested_levels(budget) > 0
        if nests:
            now = time.monotonic()
            share = deadline if math.isinf(deadline) else now + NESTED_SHARE * max(0.0, deadline - now)
            self._nested_search(tree, share, budget)
            stats = tree.root_statistics(self.index)
            self._best = self._pick_native(stats)
        done = 0
        while not budget.exhausted(done) and not (nests and _perfect(stats)):
            todo = math.inf if budget.iterations is None else budget.iterations - done
            slice_end = min(deadline, time.monotonic() + _NATIVE_SLICE)
            ran = tree.search(int(min(todo, 1 << 40)), slice_end)
            done += ran
            stats = tree.root_statistics(self.index)
            self._best = self._pick_native(stats)
            if ran == 0 and time.monotonic() < slice_end:
                break  # the root is proven, or the tree cannot grow a path any more (out of memory)
        self.last_iterations = done
        return self._pick_native(stats, final=True)

    def _nested_levels(self, budget: Budget) -> int:
        """The highest NMCS level a search under ``budget`` may run: 0 unless ``line`` (which NMCS feeds) is on and
        the game has one role, not chance; ``nested`` when set, else :data:`_NESTED_UNCAPPED` under a clock."""
        if not self.line or len(self.machine.roles) != 1 or self._chance[0]:
            return 0
        if self.nested is not None:
            return self.nested
        return _NESTED_UNCAPPED if budget.deadline is not None else 0

    def _nested_search(self, tree: MctsTree, deadline: float, budget: Budget) -> None:
        """NMCS levels 1, 2, ... (see :meth:`_nested_levels`) from the tree's root until one is cut off at
        ``deadline`` (or ``budget``'s clock or cancel event says stop between two levels), or the best line is
        worth 100; :attr:`last_nested` is the highest level finished."""
        nested = nested_hook(tree)
        self.last_nested = 0
        if nested is None:
            return
        for level in range(1, self._nested_levels(budget) + 1):
            if budget.out_of_time() or time.monotonic() >= deadline or _perfect(tree.root_statistics(self.index)):
                break
            if not nested(level, deadline):
                break
            self.last_nested = level

    def _pick_native(self, stats: TreeRootStatistics, final: bool = False) -> Move:
        """The proof's move at a proven root, else the best line's in a one-role game (it guarantees its goal,
        see ``TreeRootStatistics.line``), else :meth:`_pick_from` over the root moves that :func:`_unrefuted`
        keeps."""
        if stats.proof is not None:
            return stats.proof
        if stats.line is not None and self.line:
            return stats.line[0]
        keep = _unrefuted(stats.proven) if stats.proven else range(len(stats.moves))
        return self._pick_from([stats.moves[i] for i in keep], [stats.visits[i] for i in keep],
                               [stats.totals[i] for i in keep], stats.branching, final)

    def move_statistics(self) -> tuple[tuple[Move, int, float], ...]:
        """``(move, visits, mean goal in 0..1)`` for each of the role's moves at the last search's root.

        Empty before a search or at a terminal root; determinized search (``dmcts``) combines these.
        """
        if self._native is not None:
            stats = self._native.root_statistics(self.index)
            return tuple(
                (move, count, total / count if count else 0.0)
                for move, count, total in zip(stats.moves, stats.visits, stats.totals)
            )
        root = self._root
        if root is None or root.terminal:
            return ()
        visits, totals = root.visits[self.index], root.totals[self.index]
        return tuple(
            (move, count, totals[i] / count if count else 0.0)
            for i, (move, count) in enumerate(zip(root.moves[self.index], visits))
        )

    def _simultaneous(self, branching: Sequence[int]) -> bool:
        """Whether another non-chance role has a choice too (``branching``: legal moves per role)."""
        return any(count > 1 and r != self.index and not self._chance[r] for r, count in enumerate(branching))

    def _reuse(self, state: State) -> _Node:
        """The old tree's node for ``state`` (the root or one of its children), else a fresh root."""
        old = self._root
        node: _Node | None = None
        if old is not None:
            if old.state == state:
                node = old
            else:
                node = next((child for child in old.children.values() if child.state == state), None)
        self._root = node if node is not None else _Node(self.machine, state)
        return self._root

    def _pick(self, root: _Node, final: bool = False) -> Move:
        """The most visited move of the player's role at ``root`` (see :meth:`_pick_from`)."""
        i = self.index
        return self._pick_from(root.moves[i], root.visits[i], root.totals[i], [len(m) for m in root.moves], final)

    def _pick_from(
        self, moves: Sequence[Move], visits: Sequence[int], totals: Sequence[float], branching: Sequence[int],
        final: bool = False,
    ) -> Move:
        """The most visited of the role's root ``moves`` (ties: higher mean, then move order).

        With ``final`` at a simultaneous-move root (another non-chance role has a choice too), the
        move is drawn in proportion to its visits among the moves visited at least half as often as
        the most visited one: decoupled UCT's visit counts approximate a mixed strategy, and
        always playing the top one would be exploitable (matching pennies).
        """
        if final and self.mix and self._simultaneous(branching):
            top = max(visits)
            candidates = [i for i, count in enumerate(visits) if 2 * count >= top and count > 0]
            if len(candidates) > 1:
                pick = self.rng.randrange(sum(visits[i] for i in candidates))
                for i in candidates:
                    pick -= visits[i]
                    if pick < 0:
                        return moves[i]
        best = max(
            range(len(moves)),
            key=lambda i: (visits[i], totals[i] / visits[i] if visits[i] else 0.0, -i),
        )
        return moves[best]

    def _select(self, node: _Node, role: int) -> int:
        moves = node.moves[role]
        if len(moves) == 1:
            return 0
        if self._chance[role]:
            return self.rng.randrange(len(moves))
        visits, totals = node.visits[role], node.totals[role]
        unvisited = [i for i, count in enumerate(visits) if count == 0]
        if unvisited:
            # A seeded random order of first tries keeps simultaneous-move searches from
            # settling into the same deterministic cycle whatever the seed.
            return unvisited[self.rng.randrange(len(unvisited))]
        log_n = math.log(node.count)
        c = self.exploration
        best, best_value = 0, -math.inf
        for i, (total, count) in enumerate(zip(totals, visits)):
            value = total / count + c * math.sqrt(log_n / count)
            if value > best_value:  # ties keep the first move
                best, best_value = i, value
        return best

    def _iterate(self, root: _Node) -> None:
        machine = self.machine
        path: list[tuple[_Node, tuple[int, ...]]] = []
        node = root
        while True:
            if node.terminal:
                goals = node.goals
                break
            picks = tuple(self._select(node, r) for r in range(len(node.moves)))
            path.append((node, picks))
            joint = tuple(node.moves[r][i] for r, i in enumerate(picks))
            child = node.children.get(joint)
            if child is None:
                child = _Node(machine, machine.next_state(node.state, joint))
                goals = child.goals if child.terminal else self._playout(child.state)
                node.children[joint] = child  # only once its playout finished
                child.count += 1
                break
            node = child
        for visited, picks in path:
            visited.count += 1
            for r, i in enumerate(picks):
                visited.visits[r][i] += 1
                visited.totals[r][i] += goals[r]

    def _playout(self, state: State) -> tuple[float, ...]:
        results = playout_goals(self.machine, state, self.playouts_per_leaf, self.rng, stop=self._stop)
        n = len(results)
        return tuple(sum(goals[r] for goals in results) / (100.0 * n) for r in range(len(self.machine.roles)))


def _perfect(stats: TreeRootStatistics) -> bool:
    """Whether the root's best line is worth the highest goal there is (100): no search can do better."""
    return stats.line is not None and stats.line[1] >= 1.0


def _unrefuted(proven: Sequence[float | None]) -> list[int]:
    """Indices of the root moves worth choosing given MCTS-Solver's proofs (``proven[i]``: the role's goal
    after move ``i`` under perfect play, None if unproven): a move proven worse than another proven one
    is dropped, and so is a move proven to give goal 0 while some move is unproven (it can only do as
    well); a proven best move that no unproven move can beat for sure is kept with the unproven ones,
    whose visits decide.

    >>> _unrefuted([None, 0.0, 0.5, 1.0])
    [3]
    >>> _unrefuted([None, 0.0, 0.5])
    [0, 2]
    >>> _unrefuted([0.0, 0.0])
    [0, 1]
    """
    known = [v for v in proven if v is not None]
    if not known:
        return list(range(len(proven)))
    best = max(known)
    if best >= 1.0 or len(known) == len(proven):
        return [i for i, v in enumerate(proven) if v == best]
    return [i for i, v in enumerate(proven) if v is None or (v == best and v > 0.0)]
