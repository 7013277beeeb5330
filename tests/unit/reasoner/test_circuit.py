"""The compiled-circuit engine agrees with clingo, and its batch API, caching and fallbacks work."""

from __future__ import annotations

import logging
import random
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ggp.errors import IllegalMoveError, NotStratifiedError, ReasonerError
from ggp.gdl.parser import parse_kif, parse_term
from ggp.native import find_compiler
from ggp.reasoner.circuit import CircuitStateMachine, make_fast_machine
from ggp.reasoner.circuit.budget import CompileBudget
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import State
from ggp.reasoner.per_state import PerStateMachine
from ggp.reasoner.prover import ProverMachine
from ggp.reasoner.wrappers import CachedStateMachine
from ggp.testing import check_state_machine
from tests.conftest import CORPUS, KIF_DIR, kif_games, needs_shared
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine, clingo_machine, random_states

CORPUS_SAMPLE = (
    "3pConnectFour", "3pttc", "aipsrovers01", "asteroidsSerial", "blocker", "buttons", "chomp",
    "connectFourSimultaneous", "copolymer_4", "dualConnect4", "firefighter", "gomoku_11x11",
)
"""Corpus games for the differential test: recursion, several roles, simultaneous moves, puzzles."""

COUNTER = """
(role a) (role b)
(init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal a (add ?n)) (true (count ?c)) (succ ?c ?n))
(<= (legal a wait) (true (count ?c)))
(legal b noop) (legal b pass)
(<= (next (count ?n)) (does a (add ?n)))
(<= (next (count ?c)) (does a wait) (true (count ?c)))
(<= (reach ?x) (true (count ?x)))
(<= (reach ?y) (reach ?x) (succ ?x ?y))
(<= terminal (true (count 3)))
(<= (goal a 100) (true (count 3))) (<= (goal a 0) (not (true (count 3))))
(<= (goal b 50) (reach 3))
"""

GRAPH = """
(role a)
(init (open 1)) (init (open 2)) (init (step 0))
(edge 1 2) (edge 2 1) (edge 2 3) (edge 3 2) (edge 3 1)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (conn 1) (true (open 1)))
(<= (conn ?y) (conn ?x) (edge ?x ?y) (true (open ?y)))
(<= (legal a (toggle ?n)) (edge ?n ?m))
(<= (next (open ?n)) (does a (toggle ?n)) (not (true (open ?n))))
(<= (next (open ?n)) (true (open ?n)) (not (does a (toggle ?n))))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 4)))
(<= (goal a 100) (conn 3)) (<= (goal a 0) (not (conn 3)))
"""
"""Ground-level positive recursion: conn(1), conn(2), conn(3) depend on each other."""

needs_cc = needs(find_compiler() is not None, "no c compiler (cc)")


def _corpus_sample() -> list[Path]:
    return [CORPUS / f"{key}.kif" for key in CORPUS_SAMPLE if (CORPUS / f"{key}.kif").is_file()]


def _assert_agree(circuit: CircuitStateMachine, clingo: ClingoStateMachine, states: list[State], seed: int) -> None:
    rng = random.Random(seed)
    assert circuit.roles == clingo.roles
    assert circuit.initial_state() == clingo.initial_state()
    for state in states:
        want, got = clingo.state_info(state), circuit.state_info(state)
        assert got.legal == want.legal, state
        assert got.terminal == want.terminal, state
        assert [sorted(map(str, g)) for g in got.goal_values] == [sorted(map(str, g)) for g in want.goal_values]
        joints = clingo.legal_joint_moves(state)
        for joint in rng.sample(joints, min(3, len(joints))):
            assert circuit.next_state_and_percepts(state, joint) == clingo.next_state_and_percepts(state, joint)


@pytest.mark.parametrize("path", kif_games() + needs_shared(_corpus_sample()), ids=lambda p: getattr(p, "stem", "none"))
def test_the_circuit_agrees_with_clingo_on_random_states(path: Path | None) -> None:
    assert path is not None
    clingo = clingo_machine(path)
    _assert_agree(circuit_machine(path), clingo, random_states(clingo, seed=7), seed=7)


@needs_cc
@pytest.mark.parametrize("key", ["ticTacToe", "connectFour", "breakthrough"])
def test_the_compiled_circuit_agrees_with_clingo(key: str) -> None:
    path = KIF_DIR / key / f"{key}.kif"
    clingo = clingo_machine(path)
    machine = circuit_machine(path, "c")
    assert machine.evaluator.name == "c"
    _assert_agree(machine, clingo, random_states(clingo, seed=3), seed=3)
    assert check_state_machine(machine, playouts=2, seed=1) > 2


@pytest.mark.parametrize("key", ["ticTacToe", "connectFour", "kuhnPoker"])
def test_the_numpy_evaluator_agrees_with_the_c_one_on_batches(key: str) -> None:
    path = KIF_DIR / key / f"{key}.kif"
    native, pure = circuit_machine(path), circuit_machine(path, "numpy")
    assert pure.evaluator.name == "numpy"
    states = random_states(clingo_machine(path), seed=11, playouts=4)
    bits = native.states_to_bits(states)
    assert np.array_equal(native.legal_mask(bits), pure.legal_mask(bits))
    assert np.array_equal(native.terminal(bits), pure.terminal(bits))
    assert np.array_equal(native.goals_batch(bits), pure.goals_batch(bits))
    live = [i for i, s in enumerate(states) if not native.is_terminal(s)]
    mask = native.legal_mask(bits[live])
    joint = _first_legal(native, mask)
    assert np.array_equal(native.next_states(bits[live], joint), pure.next_states(bits[live], joint))
    for state in states[:5]:  # single-state queries of the numpy evaluator
        assert pure.state_info(state) == native.state_info(state)


def _first_legal(machine: CircuitStateMachine, mask: np.ndarray) -> np.ndarray:
    """(batch, roles) per-role index of each state's first legal move."""
    offsets = [0]
    for moves in machine.circuit.moves:
        offsets.append(offsets[-1] + len(moves))
    return np.stack([np.argmax(mask[:, offsets[r]:offsets[r + 1]], axis=1) for r in range(len(machine.roles))], axis=1)


def test_the_batch_api_matches_the_single_state_api() -> None:
    path = KIF_DIR / "connectFour" / "connectFour.kif"
    machine = circuit_machine(path)
    states = random_states(clingo_machine(path), seed=5, playouts=3)
    bits = machine.states_to_bits(states)
    assert machine.bits_to_states(bits) == states
    mask = machine.legal_mask(bits)
    columns = machine.moves
    for row, state in enumerate(states):
        legal = [tuple(m for (r, m), on in zip(columns, mask[row]) if on and r == role) for role in machine.roles]
        assert tuple(legal) == machine.state_info(state).legal
        assert machine.terminal(bits)[row] == machine.is_terminal(state)
        if machine.is_terminal(state):
            assert tuple(machine.goals_batch(bits)[row]) == machine.goals(state)
    live = [i for i, s in enumerate(states) if not machine.is_terminal(s)]
    joint = _first_legal(machine, mask[live])
    after = machine.bits_to_states(machine.next_states(bits[live], joint))
    for row, index in enumerate(live):
        moves = tuple(machine.circuit.moves[r][joint[row, r]] for r in range(len(machine.roles)))
        assert after[row] == machine.next_state(states[index], moves)


def test_next_states_refuses_an_illegal_move_in_a_batch() -> None:
    machine = circuit_machine(KIF_DIR / "ticTacToe" / "ticTacToe.kif")
    bits = machine.states_to_bits([machine.initial_state()])
    mask = machine.legal_mask(bits)
    illegal = next(i for i, on in enumerate(mask[0]) if not on)  # xplayer's noop: x moves first
    joint = _first_legal(machine, mask)
    owner = machine.roles.index(machine.moves[illegal][0])
    joint[0, owner] = machine.circuit.moves[owner].index(machine.moves[illegal][1])
    assert owner == 0
    with pytest.raises(IllegalMoveError, match="not legal in batch state 0"):
        machine.next_states(bits, joint)


def test_the_single_state_api_refuses_illegal_joint_moves() -> None:
    machine = CircuitStateMachine(parse_kif(COUNTER, "counter.kif"), LOCAL)
    state = machine.initial_state()
    with pytest.raises(IllegalMoveError, match=r"\(add 2\) is not a legal move for a"):
        machine.next_state(state, (parse_term("(add 2)"), parse_term("noop")))
    with pytest.raises(IllegalMoveError, match="needs 2 moves, got 1"):
        machine.next_state(state, (parse_term("wait"),))
    # Moves parsed afresh (not the machine's own objects) are found by value.
    after = machine.next_state(state, (parse_term("(add 1)"), parse_term("pass")))
    assert str(after) == "(count 1)"


@pytest.mark.parametrize("evaluator", ["interpreter", "numpy"] + (["c"] if find_compiler() else []))
def test_recursion_inside_a_component_reaches_its_fixpoint(evaluator: str) -> None:
    game = parse_kif(GRAPH, "graph.kif")
    machine = CircuitStateMachine(game, LOCAL, evaluator=evaluator)  # type: ignore[arg-type]
    clingo = ClingoStateMachine(game, LOCAL)
    assert any(s.recursive for s in machine.circuit.phase_a)
    states = random_states(clingo, seed=2, playouts=6)
    assert {clingo.goals(s) for s in states} == {(0,), (100,)}
    _assert_agree(machine, clingo, states, seed=2)
    assert machine.goals(states[0]) == (0,)  # 1 and 2 open, 3 closed


def test_random_playouts_are_seeded_and_consistent() -> None:
    machine = circuit_machine(KIF_DIR / "ticTacToe" / "ticTacToe.kif")
    first = machine.random_playouts(500, seed=3, batch=128)
    again = machine.random_playouts(500, seed=3, batch=128)
    other = machine.random_playouts(500, seed=4, batch=128)
    assert (first.playouts, first.states, first.goal_sums) == (again.playouts, again.states, again.goal_sums)
    assert first.goals != other.goals
    assert first.playouts == len(first) == 500
    assert 5 <= first.mean_depth <= 9 and first.states == sum(first) + 500
    assert first.goal_sums == tuple(float(sum(g[r] for g in first.goals)) for r in range(2))
    # Every playout of tic-tac-toe ends in a win, a loss or a draw, scored (100, 0), (0, 100) or (50, 50).
    assert set(first.goals) <= {(100, 0), (0, 100), (50, 50)} and first.cut == first.stuck == 0


def _state(*texts: str) -> State:
    return State(frozenset(parse_term(t) for t in texts))


def _exact_random_play_value(machine: ClingoStateMachine, state: State) -> tuple[float, ...]:
    """Expected goals under uniformly random joint moves, by enumerating the (small) game tree."""
    if machine.is_terminal(state):
        return tuple(float(g) for g in machine.goals(state))
    values = [_exact_random_play_value(machine, machine.next_state(state, j)) for j in machine.legal_joint_moves(state)]
    return tuple(sum(v[r] for v in values) / len(values) for r in range(len(machine.roles)))


def test_playout_goals_match_the_exact_value_of_random_play() -> None:
    path = KIF_DIR / "ticTacToe" / "ticTacToe.kif"
    machine = circuit_machine(path)
    board = ["(cell 1 1 x)", "(cell 1 2 x)", "(cell 2 1 o)", "(cell 2 2 o)", "(cell 2 3 b)", "(cell 3 1 b)",
             "(cell 3 2 b)", "(cell 3 3 b)"]
    won = _state(*board, "(cell 1 3 x)", "(control oplayer)")
    assert machine.playout_goals(won, 10, random.Random(1)) == [(100, 0)] * 10
    open_row = _state(*board, "(cell 1 3 b)", "(control xplayer)")
    exact = _exact_random_play_value(clingo_machine(path), open_row)
    mean = machine.random_playouts(20_000, seed=2, start=open_row).mean_goals
    assert exact == (55.0, 45.0)  # x completes the row at once with probability 1/5, ...
    assert all(abs(m - e) < 2.0 for m, e in zip(mean, exact)), mean  # 20,000 playouts: standard error ~0.35


def test_playouts_are_cut_at_the_depth_limit() -> None:
    machine = CircuitStateMachine(parse_kif(COUNTER, "counter.kif"), LOCAL)
    summary = machine.random_playouts(64, seed=0, max_depth=1)
    assert summary.cut > 0 and max(summary) == 1


@pytest.mark.parametrize("evaluator", ["interpreter", "numpy"])
def test_every_evaluator_runs_playouts(evaluator: str) -> None:
    machine = circuit_machine(KIF_DIR / "ticTacToe" / "ticTacToe.kif", evaluator)
    summary = machine.random_playouts(130, seed=1, batch=64)
    assert summary.playouts == 130 and set(summary.goals) <= {(100, 0), (0, 100), (50, 50)}


def test_a_game_over_the_compilers_budget_falls_back_to_auto(caplog: pytest.LogCaptureFixture) -> None:
    game = parse_kif(COUNTER, "counter.kif")
    with caplog.at_level(logging.WARNING):
        machine = make_fast_machine(game, LOCAL, budget=CompileBudget(cpu_seconds=0.0))
    assert isinstance(machine, CachedStateMachine) and isinstance(machine.inner, ClingoStateMachine)
    assert "exceeded its budget of 0 s of CPU" in caplog.text and "playing it with the auto engine" in caplog.text
    assert isinstance(make_fast_machine(game, LOCAL), CircuitStateMachine)


def test_a_game_over_the_grounding_limits_gets_what_auto_picks(caplog: pytest.LogCaptureFixture) -> None:
    # Neither the circuit nor a ground-once clingo machine fits 5 atoms; auto's per-state reasoner or
    # prover does (before, the circuit fell back to clingo alone and the game could not be played at all).
    game = parse_kif(COUNTER, "counter.kif")
    tiny = replace(LOCAL, max_atoms=5)
    with pytest.raises(ReasonerError):
        make_machine(game, "clingo", tiny)
    with caplog.at_level(logging.WARNING):
        machine = make_fast_machine(game, tiny)
    assert isinstance(machine, PerStateMachine | ProverMachine)
    assert "playing it with the auto engine" in caplog.text
    check_state_machine(machine)


def test_an_unstratified_game_is_refused_with_its_cycle_and_without_a_fallback() -> None:
    # No other engine could give a ground negative cycle one meaning: the fallback to clingo is not tried.
    game = parse_kif("(role a) (init s) (legal a go) (<= p (true s) (not q)) (<= q (true s) (not p)) "
                     "(<= terminal p) (goal a 0)", "loop.kif")
    cycle = r"loop\.kif: not stratified: ground atoms depend on their own negation: (p <- not q <- not p|q <- not p <- not q)$"
    with pytest.raises(NotStratifiedError, match=cycle):
        CircuitStateMachine(game, LOCAL)
    with pytest.raises(NotStratifiedError, match=cycle):
        make_fast_machine(game, LOCAL)


@needs_cc
def test_a_corrupt_cache_entry_is_rebuilt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    game = parse_kif(COUNTER, "counter.kif")
    first, second = tmp_path / "first", tmp_path / "second"
    assert not CircuitStateMachine(game, LOCAL, evaluator="c", cache_dir=first).evaluator.cached  # type: ignore[attr-defined]
    assert CircuitStateMachine(game, LOCAL, evaluator="c", cache_dir=first).evaluator.cached  # type: ignore[attr-defined]
    # A copy that this process never loaded (truncating a loaded library would crash it).
    shutil.copytree(first, second)
    library = next(second.glob("*.so"))
    library.write_bytes(library.read_bytes()[:100])  # as a crash in the middle of writing would leave it
    with caplog.at_level(logging.WARNING):
        rebuilt = CircuitStateMachine(game, LOCAL, evaluator="c", cache_dir=second)
    assert "corrupt" in caplog.text and not rebuilt.evaluator.cached  # type: ignore[attr-defined]
    assert rebuilt.legal_moves(rebuilt.initial_state(), rebuilt.roles[1]) == (parse_term("noop"), parse_term("pass"))
    assert library.stat().st_size > 1000
    next(second.glob("*.sha256")).write_text("0" * 64)
    assert not CircuitStateMachine(game, LOCAL, evaluator="c", cache_dir=second).evaluator.cached  # type: ignore[attr-defined]


def test_without_a_compiler_the_numpy_evaluator_is_chosen(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("CC", "no-such-compiler-ggp")
    with caplog.at_level(logging.WARNING):
        machine = CircuitStateMachine(parse_kif(COUNTER, "counter.kif"), LOCAL)
    assert machine.evaluator.name == "numpy" and "no c compiler found" in caplog.text
    assert machine.random_playouts(10, seed=1).playouts == 10


def test_the_engine_registry_builds_the_circuit() -> None:
    machine = make_machine(parse_kif(COUNTER, "counter.kif"), "circuit", LOCAL)
    assert isinstance(machine, CircuitStateMachine)


def test_unknown_fluents_are_a_clear_error() -> None:
    machine = CircuitStateMachine(parse_kif(COUNTER, "counter.kif"), LOCAL)
    with pytest.raises(Exception, match=r"fluent \(count 9\) can never hold"):
        machine.legal_moves(State(frozenset({parse_term("(count 9)")})), machine.roles[0])


def test_packed_state_queries_agree_with_the_state_machine() -> None:
    path = KIF_DIR / "connectFour" / "connectFour.kif"
    machine = circuit_machine(path)
    for state in random_states(clingo_machine(path), seed=9, playouts=2)[:20]:
        key = machine.state_key(state)
        assert machine.key_state(key) == state
        legal_ids, terminal, _ = machine.key_info(key)
        assert terminal == machine.is_terminal(state)
        per_role = [[i for i in legal_ids if machine.moves[i][0] == role] for role in machine.roles]
        assert [tuple(machine.moves[i][1] for i in ids) for ids in per_role] == [
            machine.legal_moves(state, role) for role in machine.roles
        ]
        if not terminal:
            chosen = [ids[-1] for ids in per_role]
            expected = machine.next_state(state, tuple(machine.moves[i][1] for i in chosen))
            assert machine.key_state(machine.key_next(key, chosen)) == expected


def test_a_failing_compiler_falls_back_to_numpy_in_auto_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fake = tmp_path / "fakecc"
    fake.write_text('#!/bin/sh\nif [ "$1" = --version ]; then echo fakecc 1.0; exit 0; fi\necho "fatal: broken" >&2\nexit 1\n')
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    game = parse_kif(COUNTER, "counter.kif")
    with caplog.at_level(logging.WARNING):
        machine = CircuitStateMachine(game, LOCAL, cache_dir=tmp_path / "cache")
    assert machine.evaluator.name == "numpy" and "fatal: broken" in caplog.text
    with pytest.raises(ReasonerError, match=r"c compiler .* failed: fatal: broken"):
        CircuitStateMachine(game, LOCAL, evaluator="c", cache_dir=tmp_path / "cache")


@needs_cc
def test_a_compiler_refusing_the_cpu_tuning_flags_gets_the_plain_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ggp.native import FLAGS
    from ggp.reasoner.circuit import native_evaluator

    monkeypatch.setattr(native_evaluator, "native_flags", lambda: ("-fno-such-flag-for-the-test",))
    machine = CircuitStateMachine(parse_kif(COUNTER, "counter.kif"), LOCAL, cache_dir=tmp_path)
    assert machine.evaluator.name == "c" and machine.evaluator.flags == FLAGS  # type: ignore[attr-defined]


@needs_cc
def test_a_large_circuit_is_compiled_without_optimisation_and_a_huge_one_interpreted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ggp.native import FLAGS, UNOPTIMISED_FLAGS, native_flags
    from ggp.reasoner.circuit import evaluate, native_evaluator

    game = parse_kif(COUNTER, "counter.kif")
    normal = CircuitStateMachine(game, LOCAL, cache_dir=tmp_path)
    assert normal.evaluator.name == "c" and normal.evaluator.flags == (*FLAGS, *native_flags())  # type: ignore[attr-defined]
    monkeypatch.setattr(native_evaluator, "COMPILE_MAX_LITERALS", 1)  # every circuit counts as large now
    large = CircuitStateMachine(game, LOCAL, cache_dir=tmp_path)
    assert large.evaluator.name == "c" and large.evaluator.flags == UNOPTIMISED_FLAGS  # type: ignore[attr-defined]
    assert not large.evaluator.cached  # type: ignore[attr-defined]  # the flags are part of the cache key
    state = normal.initial_state()
    for _ in range(3):
        assert large.legal_joint_moves(state) == normal.legal_joint_moves(state)
        state = normal.next_state(state, normal.legal_joint_moves(state)[0])
    monkeypatch.setattr(evaluate, "INTERPRET_MIN_LITERALS", 1)
    assert CircuitStateMachine(game, LOCAL, cache_dir=tmp_path).evaluator.name == "interpreter"
