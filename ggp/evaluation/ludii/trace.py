"""The compact per-play record Ludii's metrics read, and how a worker observes it from a played match.

Ludii replays each trial and looks at every state; a GDL evaluation keeps only what the metrics need,
so ``results.jsonl`` stays small (a few integers per step):

- per step s_0..s_{L-1}: every role's legal-move count (branching, decision moves, turns, the mover);
- per state s_0..s_L: occupied board sites, pieces on the board, a position id (board only) and a
  situation id (the whole state), the goal values (Ludii's scores; GDL has no other score);
- per move that carried a piece from one site to another: the distance (king steps, i.e. Ludii's
  distance over adjacent sites of a square board);
- the sites ever occupied and the distinct piece contents seen;
- optionally, in up to :data:`CLARITY_STEPS` evenly spaced steps, the mover's clarity (narrowness and
  variance of its legal moves' evaluations: one playout-estimated state per legal move, the costliest
  record, hence the sample).

State evaluations per role (random-playout estimates in [0, 1]) stay where self-play keeps them
(``MatchResult.evaluations``); :class:`PlayTrace` joins both for the metrics.

>>> board = BoardSpec("cell", 3, 0, 1, None, 2, ("1", "2"), ("1", "2"))
>>> from ggp.gdl.terms import Const, Func
>>> state = frozenset({Func("cell", (Const("1"), Const("1"), Const("x"))),
...                    Func("cell", (Const("1"), Const("2"), Const("b")))})
>>> board.contents(state)
{0: 'x'}
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, pvariance
from typing import Any, Literal

from ggp.errors import GgpError
from ggp.gdl.terms import Func, Term
from ggp.match.rules import EndReason
from ggp.reasoner.machine import State, StateMachine

CLARITY_STEPS = 6
"""Steps per play whose legal moves are all evaluated for the clarity metrics (evenly spaced; their mean
estimates Ludii's mean over every move at a fraction of the playouts)."""

BLANK = frozenset({"b", "blank", "empty", "e", "0", "none"})
"""Cell contents that mean "nothing here" (the web board's list, ggp/manager/static/board.js)."""


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """The board a game's states are read on: the fluent relation of its cells, the argument positions of
    column, row (``None`` on a 1-D board), owner and piece, and the coordinates in board order.

    Built by the command from the manager's board recognition (or the SBG board); sites are numbered
    row-major, ``x + y * len(xs)``.
    """

    relation: str
    arity: int
    x: int
    y: int | None
    owner: int | None
    piece: int | None
    xs: tuple[str, ...]
    ys: tuple[str, ...] = ()

    @property
    def sites(self) -> int:
        """Number of board sites (Ludii's default site type: the cells)."""
        return len(self.xs) * max(1, len(self.ys))

    def coordinates(self, site: int) -> tuple[int, int]:
        """(column, row) indices of a site."""
        return site % len(self.xs), site // len(self.xs)

    def contents(self, facts: Iterable[Term]) -> dict[int, str]:
        """The non-empty sites of a state: site -> its content text (owner and piece; several pieces on one
        site are joined with ``+``)."""
        columns = {x: i for i, x in enumerate(self.xs)}
        rows = {y: i for i, y in enumerate(self.ys)}
        found: dict[int, list[str]] = {}
        for fact in facts:
            if not (isinstance(fact, Func) and fact.name == self.relation and len(fact.args) == self.arity):
                continue
            column = columns.get(str(fact.args[self.x]))
            row = 0 if self.y is None else rows.get(str(fact.args[self.y]))
            if column is None or row is None:
                continue
            owner = None if self.owner is None else str(fact.args[self.owner])
            piece = self.relation if self.piece is None else str(fact.args[self.piece])
            if owner is None and piece.lower() in BLANK:
                continue
            found.setdefault(column + row * len(self.xs), []).append(piece if owner is None else f"{owner} {piece}")
        return {site: "+".join(sorted(texts)) for site, texts in found.items()}

    @classmethod
    def sbg(cls, width: int, height: int) -> BoardSpec:
        """The board of a Simplified Boardgames game as its translation writes it: ``(cell x y owner piece)``
        with columns and rows numbered from 0."""
        return cls("cell", 4, 0, 1, 2, 3, tuple(str(x) for x in range(width)), tuple(str(y) for y in range(height)))

    def to_json(self) -> dict[str, Any]:
        return {"relation": self.relation, "arity": self.arity, "x": self.x, "y": self.y, "owner": self.owner,
                "piece": self.piece, "xs": list(self.xs), "ys": list(self.ys)}


Recorded = Literal["full", "legal", "branching"]
"""How much of a play was recorded: ``full`` (everything below), ``legal`` (only the per-step legal-move
counts: a match played when no metric needed more, ``--metrics rapp``), ``branching`` (only the product of
those counts per step: a result line written before per-role counts were kept)."""


@dataclass(frozen=True, slots=True)
class Observations:
    """What a worker records of one play for the metrics (see the module docstring).

    ``sites`` is ``None`` when the game has no board (then the board fields are empty); ``scores`` is
    ``None`` when the goals cannot be read in some non-terminal state; ``clarity`` is ``None`` when it
    was not measured (or the game has simultaneous moves); ``recorded`` says whether the rest was
    recorded at all.
    """

    legal: tuple[tuple[int, ...], ...] = ()
    situations: tuple[int, ...] = ()
    scores: tuple[tuple[int, ...], ...] | None = None
    sites: int | None = None
    occupied: tuple[int, ...] = ()
    pieces: tuple[int, ...] = ()
    positions: tuple[int, ...] = ()
    covered: tuple[int, ...] = ()
    contents: tuple[str, ...] = ()
    distances: tuple[int, ...] = ()
    clarity: tuple[tuple[float, float], ...] | None = None
    recorded: Recorded = "full"

    def to_json(self) -> dict[str, Any]:
        return {name: _listed(getattr(self, name)) for name in self.__slots__}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Observations:
        def nested(value: Any) -> Any:
            return None if value is None else tuple(tuple(v) for v in value)

        scores, clarity = data.get("scores"), data.get("clarity")
        return cls(
            legal=tuple(tuple(int(v) for v in row) for row in data.get("legal", ())),
            situations=tuple(data.get("situations", ())),
            scores=nested(scores),
            sites=data.get("sites"),
            occupied=tuple(data.get("occupied", ())),
            pieces=tuple(data.get("pieces", ())),
            positions=tuple(data.get("positions", ())),
            covered=tuple(data.get("covered", ())),
            contents=tuple(data.get("contents", ())),
            distances=tuple(data.get("distances", ())),
            clarity=None if clarity is None else tuple((float(a), float(b)) for a, b in clarity),
            recorded=data.get("recorded", "full"),
        )


def _listed(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_listed(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class PlayTrace:
    """One finished play as every metric reads it (the one play record of the evaluation).

    ``goals`` per role in role order; ``first_mover`` the index of the role that moves first (Ludii's
    player 1); ``evaluations`` per state s_0..s_L one estimated goal/100 in [0, 1] per role, or ``None``
    when no state was evaluated. The metrics use Ludii's scale, 2e - 1 in [-1, 1] (:meth:`value`).
    """

    goals: tuple[int, ...]
    end_reason: EndReason = "terminal"
    first_mover: int = 0
    observed: Observations = Observations()
    evaluations: tuple[tuple[float, ...], ...] | None = None

    @property
    def length(self) -> int:
        """Moves played (Ludii's ``numberRealMoves``)."""
        return len(self.observed.legal)

    @property
    def roles(self) -> int:
        return len(self.goals)

    def value(self, state: int, role: int) -> float:
        """The state evaluation of ``role`` in state ``state`` on Ludii's scale [-1, 1]."""
        assert self.evaluations is not None
        return 2 * self.evaluations[state][role] - 1

    def branching(self, step: int) -> int:
        """Legal joint moves in step ``step``: the mover's legal moves in a turn-taking game."""
        product = 1
        for count in self.observed.legal[step]:
            product *= count
        return product

    def deciders(self, step: int) -> tuple[int, ...]:
        """The roles with more than one legal move in step ``step``."""
        return tuple(r for r, count in enumerate(self.observed.legal[step]) if count > 1)

    def movers(self) -> tuple[tuple[int, ...], ...]:
        """Per step the roles that move: those with a choice (several: a simultaneous step).

        A step where no role has a choice (a forced move beside the others' noops, which GDL does not tell
        apart) gets a mover by the play around it, so that turns change as Ludii's do (a turn each time
        the mover changes): before a decision of another role it continues the previous mover (a
        move-again such as a forced second jump; the turn count is the same either way); at the end of
        the play, or before the previous mover decides again, it is the next role's while the play
        alternates (the last two steps had different movers: the role that followed the previous mover
        the last time, else the next in role order), so tic-tac-toe's forced ninth move is X's own turn.
        """
        decided = [self.deciders(step) for step in range(self.length)]
        upcoming: list[tuple[int, ...] | None] = [None] * (self.length + 1)
        for step in range(self.length - 1, -1, -1):
            upcoming[step] = decided[step] or upcoming[step + 1]
        movers: list[tuple[int, ...]] = []
        follower: dict[tuple[int, ...], tuple[int, ...]] = {}
        for step, deciding in enumerate(decided):
            mover = deciding or self._forced_mover(movers, follower, upcoming[step + 1])
            if movers and movers[-1] != mover:
                follower[movers[-1]] = mover
            movers.append(mover)
        return tuple(movers)

    def _forced_mover(self, movers: Sequence[tuple[int, ...]], follower: Mapping[tuple[int, ...], tuple[int, ...]],
                      upcoming: tuple[int, ...] | None) -> tuple[int, ...]:
        """The mover of a step where no role has a choice (:meth:`movers`), given the movers before it
        and the roles of the next step with a choice (``None``: none comes)."""
        if not movers:
            return (self.first_mover,)
        previous = movers[-1]
        moved_twice = len(movers) > 1 and movers[-2] == previous
        if len(previous) != 1 or moved_twice or (upcoming is not None and upcoming != previous):
            return previous
        return follower.get(previous, ((previous[0] + 1) % self.roles,))


# --- observing a play ----------------------------------------------------------------------------

Estimator = Callable[[State, int], float]
"""(state, role) -> the role's estimated goal/100 in that state."""


def observe(
    machine: StateMachine,
    states: Sequence[State],
    legal: Sequence[Sequence[int]],
    board: BoardSpec | None,
    *,
    clarity: Estimator | None = None,
) -> Observations:
    """The observations of a play with states s_0..s_L and per-step legal-move counts per role.

    ``clarity``, when given, evaluates the state after each legal move of the mover (Ludii's
    ``evaluateMove``) in :func:`clarity_steps` of the play; a step where several roles choose leaves
    clarity out for the whole play, as Ludii does not measure it on simultaneous-move games.
    """
    situations = _ids(state.facts for state in states)
    scores: tuple[tuple[int, ...], ...] | None
    try:
        scores = tuple(tuple(machine.goals(state)) for state in states)
    except (GgpError, ValueError):
        scores = None
    measured = _clarity(machine, states, legal, clarity) if clarity is not None else None
    if board is None:
        return Observations(tuple(tuple(row) for row in legal), situations, scores, clarity=measured)
    boards = [board.contents(state.facts) for state in states]
    covered = sorted(set().union(*boards)) if boards else []
    contents = sorted({text for found in boards for text in found.values()})
    distances = [d for before, after in itertools.pairwise(boards) if (d := move_distance(board, before, after)) is not None]
    return Observations(
        tuple(tuple(row) for row in legal), situations, scores, board.sites,
        tuple(len(found) for found in boards),
        tuple(sum(text.count("+") + 1 for text in found.values()) for found in boards),
        _ids(frozenset(found.items()) for found in boards),
        tuple(covered), tuple(contents), tuple(distances), measured,
    )


def _ids(keys: Iterable[object]) -> tuple[int, ...]:
    """Each key's index among the distinct keys in order of first appearance."""
    seen: dict[object, int] = {}
    return tuple(seen.setdefault(key, len(seen)) for key in keys)


def move_distance(board: BoardSpec, before: Mapping[int, str], after: Mapping[int, str]) -> int | None:
    """How far a piece travelled between two boards, or ``None`` when no piece moved (a placement, a pass).

    A move is read from the difference: exactly one site emptied (the from-site) and some site gained a
    content (the to-site; the one holding the emptied site's piece when several did). The distance is
    the king-step (Chebyshev) distance, Ludii's distance over adjacent sites of a square board.
    """
    emptied = [site for site in before if site not in after]
    gained = [site for site, text in after.items() if before.get(site) != text]
    if len(emptied) != 1 or not gained:
        return None
    origin = emptied[0]
    target = next((site for site in gained if after[site] == before[origin]), gained[0])
    (x0, y0), (x1, y1) = board.coordinates(origin), board.coordinates(target)
    return max(abs(x0 - x1), abs(y0 - y1))


def clarity_of(values: Sequence[float]) -> tuple[float, float]:
    """(narrowness, variance) of one step's legal-move evaluations, on Ludii's scale [-1, 1].

    Narrowness: the share of moves valued above mean + 0.75 (max - mean); variance: the population
    variance (Ludii's ClarityNarrowness and ClarityVariance, per move; float division, where Ludii's
    integer division gives 0 whenever some move is not above the threshold).

    >>> clarity_of([1.0, -1.0, -1.0, -1.0])
    (0.25, 0.75)
    """
    if not values:
        return 0.0, 0.0
    mean, best = fmean(values), max(values)
    threshold = mean + 0.75 * (best - mean)
    return sum(v > threshold for v in values) / len(values), pvariance(values)


def clarity_steps(length: int, most: int = CLARITY_STEPS) -> list[int]:
    """The steps of a play of ``length`` moves whose clarity is measured: all of them, or ``most`` evenly
    spaced ones.

    >>> clarity_steps(4), clarity_steps(60)
    ([0, 1, 2, 3], [0, 10, 20, 30, 40, 50])
    """
    if length <= most:
        return list(range(length))
    return [i * length // most for i in range(most)]


def _clarity(
    machine: StateMachine, states: Sequence[State], legal: Sequence[Sequence[int]], estimate: Estimator
) -> tuple[tuple[float, float], ...] | None:
    if any(sum(count > 1 for count in counts) > 1 for counts in legal):
        return None
    found = []
    for step in clarity_steps(len(legal)):
        state, counts = states[step], legal[step]
        deciding = [r for r, count in enumerate(counts) if count > 1]
        role = deciding[0] if deciding else max(range(len(counts)), key=lambda r: counts[r])
        choices = [machine.legal_moves(state, r) for r in machine.roles]
        values = []
        for move in choices[role]:
            joint = tuple(move if r == role else options[0] for r, options in enumerate(choices))
            values.append(2 * estimate(machine.next_state(state, joint), role) - 1)
        found.append(clarity_of(values))
    return tuple(found)


def playout_estimator(machine: StateMachine, playouts: int, rng: random.Random) -> Estimator:
    """Estimate a role's goal/100 by the mean of ``playouts`` random playouts (terminal states: the goal)."""
    from ggp.reasoner.playouts import playout_goals

    def estimate(state: State, role: int) -> float:
        if machine.is_terminal(state):
            return machine.goals(state)[role] / 100
        results = playout_goals(machine, state, playouts, rng)
        return sum(r[role] for r in results) / (100 * len(results))

    return estimate
