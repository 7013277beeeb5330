"""Self-configuration (issue 41): the choice is a pure function of a seeded measurement of the rules' game,
made within the start clock; games of known structure get the settings their structure calls for, and a
clock too short, an engine without the native search or a measurement that fails give the safe defaults."""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path

import pytest

from ggp.gdl.parser import parse_kif
from ggp.native import find_compiler
from ggp.player import Budget
from ggp.players.mcts import DEFAULT_DECISIVE, MctsPlayer
from ggp.players.registry import make_player
from ggp.players.selfconfig import (
    MIN_DECISIONS,
    PAIR_FIT_MIN,
    SAFE_DEFAULTS_REASON,
    WIN_SHARE_MIN,
    GameProfile,
    choose_settings,
    profile_game,
)
from ggp.reasoner.circuit import CircuitStateMachine
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.machine import Role, State, StateMachine
from tests.conftest import KIF_DIR
from tests.helpers.search_replay import PICK_GAME
from tests.prerequisites import needs
from tests.unit.reasoner.circuit_support import LOCAL, circuit_machine

needs_cc = needs(find_compiler() is not None, "no c compiler (cc)")


def profile(decisions: int = 200, wins: int = 0, fits: int = 0, roles: int = 2, complete: bool = True) -> GameProfile:
    return GameProfile(roles, False, decisions, wins, fits, 0, decisions, 8.0, 0.1, complete)


def machine_of(game: str) -> CircuitStateMachine:
    return circuit_machine(KIF_DIR / game / f"{game}.kif", "c")


def test_the_lookahead_needs_common_decisive_moves_and_replies_that_fit() -> None:
    wins, fits = round(WIN_SHARE_MIN * 200), round(PAIR_FIT_MIN * 200)
    assert choose_settings(profile(wins=wins, fits=fits)).decisive == 2
    assert choose_settings(profile(wins=wins - 1, fits=200)).decisive == 0  # decisive moves too rare
    assert choose_settings(profile(wins=200, fits=fits - 1)).decisive == 0  # the pairs rarely fit 64 lanes
    assert choose_settings(profile(wins=200, fits=200, roles=1)).decisive == 0  # a puzzle: nothing to avoid
    assert choose_settings(profile(wins=wins, fits=fits)) == choose_settings(profile(wins=wins, fits=fits))


def test_no_measurement_or_too_little_of_one_gives_the_safe_defaults_and_says_why() -> None:
    assert choose_settings(None, "why not").decisive == DEFAULT_DECISIVE
    assert choose_settings(None, "why not").reason == "why not"
    cut = choose_settings(profile(decisions=MIN_DECISIONS - 1, wins=50, fits=50, complete=False))
    assert cut.decisive == DEFAULT_DECISIVE and "the start clock ended the measurement after" in cut.reason
    enough = choose_settings(profile(decisions=MIN_DECISIONS, wins=MIN_DECISIONS, fits=MIN_DECISIONS, complete=False))
    assert enough.decisive == 2  # a cut measurement that saw enough decisions still decides
    assert choose_settings(profile(decisions=0)).reason.startswith(SAFE_DEFAULTS_REASON)


@needs_cc
@pytest.mark.parametrize(("game", "decisive"), [("connectFour", 2), ("breakthrough", 0)])
def test_a_connection_game_gets_the_lookahead_and_a_wide_race_game_does_not(game: str, decisive: int) -> None:
    # connectFour: a move wins at once in about a quarter of random play's decisions, and 7 moves x 7
    # replies fit one lane word. breakthrough: some 25 moves x 25 replies never fit.
    measured = profile_game(machine_of(game), seed=5)
    assert measured.complete and measured.decisions > 0
    assert (measured.fit_share >= PAIR_FIT_MIN) == (decisive == 2)
    if decisive == 2:
        assert measured.win_share >= WIN_SHARE_MIN
    assert choose_settings(measured).decisive == decisive


@needs_cc
def test_the_measurement_is_a_function_of_the_seed_and_the_rules() -> None:
    machine = machine_of("connectFour")
    first, again, other = (profile_game(machine, seed) for seed in (5, 5, 6))
    assert dataclasses.replace(first, seconds=0.0) == dataclasses.replace(again, seconds=0.0)
    assert dataclasses.replace(first, seconds=0.0) != dataclasses.replace(other, seconds=0.0)


@needs_cc
def test_a_puzzle_is_recognised_and_searched_with_nmcs_and_no_lookahead(tmp_path: Path) -> None:
    path = tmp_path / "pick.kif"
    path.write_text(PICK_GAME)
    machine = CircuitStateMachine(parse_kif(PICK_GAME, str(path)), LOCAL, evaluator="c")
    settings = choose_settings(profile_game(machine, seed=1))
    assert settings.puzzle and settings.decisive == 0
    assert "NMCS and the best line" in settings.describe()


@needs_cc
def test_the_player_configures_itself_logs_one_line_and_a_given_option_stays(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ggp.players.mcts")
    machine = machine_of("connectFour")
    player = MctsPlayer(seed=2)
    player.start(machine, machine.roles[0], Budget.for_seconds(10))
    assert player.decisive == 2 and player.configuration is not None and player.configuration.decisive == 2
    lines = [r.getMessage() for r in caplog.records if r.name == "ggp.players.mcts"]
    assert len(lines) == 1 and lines[0].startswith("mcts as red: decisive=2") and "s of the start clock" in lines[0]
    given = make_player("mcts:decisive=0", seed=2)
    assert isinstance(given, MctsPlayer)
    given.start(machine, machine.roles[0], Budget.for_seconds(10))
    assert given.decisive == 0 and given.configuration is not None  # (factor is still chosen)
    every = make_player("mcts:decisive=0,factor=0", seed=2)
    assert isinstance(every, MctsPlayer)
    every.start(machine, machine.roles[0], Budget.for_seconds(10))
    assert every.decisive == 0 and not every.factored and every.configuration is None


@needs_cc
def test_with_or_without_a_start_clock_the_choice_is_the_same(caplog: pytest.LogCaptureFixture) -> None:
    # ggp arena's in-process seats start without a clock, a manager's seat with one: one mechanism, one choice.
    machine = machine_of("connectFour")
    choices = []
    for budget in (Budget(), Budget.for_seconds(60), Budget(iterations=10)):
        player = make_player("mcts", seed=4)
        assert isinstance(player, MctsPlayer)
        player.start(machine, machine.roles[1], budget)
        choices.append(player.configuration)
    assert choices[0] == choices[1] == choices[2] and choices[0] is not None and choices[0].decisive == 2


@needs_cc
def test_a_start_clock_too_short_to_measure_plays_with_the_safe_defaults_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="ggp.players.mcts")
    machine = machine_of("connectFour")
    player = MctsPlayer(seed=2, budget=Budget(iterations=50))
    player.start(machine, machine.roles[0], Budget(deadline=time.monotonic()))
    assert player.decisive == DEFAULT_DECISIVE
    assert "the start clock is too short to measure" in caplog.text
    state = machine.initial_state()
    assert player.choose(state, Budget()) in machine.legal_moves(state, machine.roles[0])


def test_an_engine_without_the_native_search_keeps_the_defaults(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ggp.players.mcts")
    machine = ClingoStateMachine(parse_kif((KIF_DIR / "ticTacToe" / "ticTacToe.kif").read_text(), "ticTacToe.kif"), LOCAL)
    player = MctsPlayer(seed=1)
    player.start(machine, machine.roles[0], Budget.for_seconds(5))
    assert player.decisive == DEFAULT_DECISIVE and "no native search on this engine yet" in caplog.text


class _Tripping:
    """A circuit machine whose legal-move query fails from the 20th call on (the measurement's, not the search's)."""

    def __init__(self, machine: CircuitStateMachine) -> None:
        self._machine = machine
        self.calls = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._machine, name)

    def legal_moves(self, state: State, role: Role) -> tuple[object, ...]:
        self.calls += 1
        if self.calls >= 20:
            raise RuntimeError("a query failed")
        return self._machine.legal_moves(state, role)


@needs_cc
def test_a_measurement_that_fails_gives_the_defaults_never_a_refusal(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ggp.players.mcts")
    tripping = _Tripping(machine_of("connectFour"))
    player = MctsPlayer(seed=1)
    machine: StateMachine = tripping  # type: ignore[assignment]
    player.start(machine, tripping._machine.roles[0], Budget.for_seconds(5))
    assert player.decisive == DEFAULT_DECISIVE
    assert "the measurement failed (a query failed)" in caplog.text


def test_the_docs_table_of_the_choices_is_printed_from_the_committed_profiles() -> None:
    import json

    from tests.helpers.benchmarks import load_benchmark

    root = Path(__file__).resolve().parents[3]
    choices = load_benchmark("selfconfig_choices")
    data = root / "benchmarks" / "data" / "selfconfig_choices.jsonl"
    rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    assert [row["game"] for row in rows] == list(choices.GAMES)
    for row in rows:  # each committed choice is the pure function of its committed profile
        if "decisions" in row:
            measured = GameProfile(1 if row["puzzle"] else 2, False, row["decisions"],
                                   round(row["win_share"] * row["decisions"]), round(row["fit_share"] * row["decisions"]),
                                   0, row["decisions"], row["branching"], row["seconds"], True)
            assert choose_settings(measured).decisive == row["decisive"]
    assert choices.table(rows) in (root / "docs" / "strength.md").read_text(encoding="utf-8")
