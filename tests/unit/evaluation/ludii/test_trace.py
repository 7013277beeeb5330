"""Observing a play: board occupancy, positions, move distances and clarity from states."""

from __future__ import annotations

from ggp.evaluation.ludii.trace import BoardSpec, Observations, clarity_of, move_distance, observe
from ggp.gdl.terms import Const, Func, Term
from ggp.reasoner.machine import State

BOARD = BoardSpec("cell", 3, 0, 1, None, 2, ("a", "b", "c"), ("1", "2", "3"))


def cell(x: str, y: str, piece: str) -> Term:
    return Func("cell", (Const(x), Const(y), Const(piece)))


def state(*pieces: tuple[str, str, str]) -> State:
    blanks = {(x, y) for x in "abc" for y in "123"} - {(x, y) for x, y, _ in pieces}
    return State(frozenset([cell(*p) for p in pieces] + [cell(x, y, "b") for x, y in blanks]))


class Goals:
    """Just enough of a machine for :func:`observe`: goals by the number of x pieces."""

    roles = ("x", "o")

    def goals(self, state: State) -> tuple[int, ...]:
        xs = sum(isinstance(f, Func) and str(f.args[2]) == "x" for f in state.facts)
        return (min(100, 50 * xs), 0)


def test_a_sliding_piece_is_read_from_the_board() -> None:
    states = [state(("a", "1", "x")), state(("c", "3", "x")), state(("c", "3", "x"), ("a", "1", "o")),
              state(("a", "1", "x"))]
    found = observe(Goals(), states, [(2, 1), (1, 2), (2, 1)], BOARD)  # type: ignore[arg-type]
    assert found.sites == 9
    assert found.occupied == (1, 1, 2, 1) and found.pieces == (1, 1, 2, 1)
    assert found.positions == (0, 1, 2, 0) and found.situations == (0, 1, 2, 0)
    assert found.covered == (0, 8)  # a1 and c3
    assert found.contents == ("o", "x")
    # a1 -> c3 is two king steps; the placement of o moves nothing; x on c3 then captures o on a1.
    assert found.distances == (2, 2)
    assert found.scores == ((50, 0), (50, 0), (50, 0), (50, 0))


def test_a_game_without_board_records_no_board_fields() -> None:
    found = observe(Goals(), [state(), state(("a", "1", "x"))], [(2, 1)], None)  # type: ignore[arg-type]
    assert found.sites is None and found.occupied == () and found.situations == (0, 1)


def test_move_distance_follows_the_moved_piece() -> None:
    before = {0: "x", 4: "o"}
    assert move_distance(BOARD, before, {4: "x"}) == 1  # x captures o on b2
    assert move_distance(BOARD, before, {0: "x", 4: "o", 8: "x"}) is None  # a placement


def test_clarity_of_one_step() -> None:
    # Mean 0.25, max 1: threshold 0.8125, one value of four above it; variance (0.5625 + 3 * 0.0625) / 4.
    narrowness, spread = clarity_of([1.0, 0.0, 0.0, 0.0])
    assert narrowness == 0.25 and spread == 0.1875
    assert clarity_of([0.5]) == (0.0, 0.0)  # a forced move: nothing is above its own value


def test_observations_round_trip_through_json() -> None:
    found = Observations(legal=((2, 1),), situations=(0, 1), scores=((0, 100),), sites=4, occupied=(1, 2),
                         clarity=((0.5, 0.25),))
    assert Observations.from_json(found.to_json()) == found
