"""The seed games ("Slovania obchodnikmi"): the known values of their README, reproduced.

The game files live in ../shared/gdl-corpus/seed-games; every test skips cleanly without them. They
do not ground once (the fluent domain explodes), so they run on the per-state reasoner.
"""

from __future__ import annotations

import logging
import random
from dataclasses import replace

import pytest

from ggp.files import load_kif
from ggp.gdl.parser import parse_term
from ggp.gdl.terms import Const, Description, Func, Rule, Term
from ggp.reasoner import auto
from ggp.reasoner.auto import choose_machine
from ggp.reasoner.chance import chance_roles, random_joint_move, terminal_goals
from ggp.reasoner.machine import GroundingLimits, State
from ggp.reasoner.naive import NaiveStateMachine
from ggp.reasoner.per_state import PerStateMachine
from tests.conftest import CORPUS
from tests.prerequisites import missing

SEED = CORPUS / "seed-games"

# Legal destinations on classicMap per start field: (after roll 1, after roll 2), from the README.
DISTANCES = {
    1: ({2}, {5}),
    2: ({1, 5}, {1, 4, 6, 8}),
    3: ({4}, {5}),
    4: ({3, 5}, {2, 3, 6, 8}),
    5: ({2, 4, 6, 8}, {1, 3, 7, 9}),
    6: ({5, 7}, {2, 4, 7, 8}),
    7: ({6}, {5}),
    8: ({5, 9}, {2, 4, 6, 9}),
    9: ({8}, {5}),
}


def seed_game(name: str) -> Description:
    path = SEED / f"{name}.kif"
    if not path.is_file():
        missing(f"{path} is not present")
    return load_kif(path)


_machines: dict[str, PerStateMachine] = {}


def machine_for(name: str) -> PerStateMachine:
    """One machine per game for the whole module (set-up costs a fraction of a second each)."""
    if name not in _machines:
        _machines[name] = PerStateMachine(seed_game(name))
    return _machines[name]


def t(text: str) -> Term:
    return parse_term(text)


RED, BLUE, RANDOM = t("red"), t("blue"), t("random")


def after(machine: PerStateMachine, state: State, chance_move: str) -> State:
    """The state after random plays ``chance_move`` while red and blue play noop."""
    return machine.next_state(state, (t("noop"), t("noop"), t(chance_move)))


def replaced(state: State, old: str, new: str) -> State:
    facts = set(state.facts)
    facts.remove(t(old))
    facts.add(t(new))
    return State(frozenset(facts))


@pytest.mark.parametrize(("name", "count"), [("classicMap", 132), ("biggerMap", 870)])
def test_random_has_the_known_number_of_opening_moves_and_the_players_only_noop(name: str, count: int) -> None:
    machine = machine_for(name)
    state = machine.initial_state()
    assert chance_roles(machine) == (2,)
    assert len(machine.legal_moves(state, RANDOM)) == count
    assert machine.legal_moves(state, RED) == (t("noop"),)
    assert machine.legal_moves(state, BLUE) == (t("noop"),)


def test_the_example_opening_gives_red_the_first_move_one_to_five() -> None:
    machine = machine_for("classicMap")
    missions = after(machine, machine.initial_state(), "(generateMissions 1 3)")
    assert t("(control random red)") in missions.facts
    assert machine.legal_moves(missions, RANDOM) == (t("(roll 1)"), t("(roll 2)"))
    rolled = after(machine, missions, "(roll 2)")
    assert machine.legal_moves(rolled, RED) == (t("(move 1 5)"),)
    assert machine.legal_moves(rolled, BLUE) == (t("noop"),)


def red_on(machine: PerStateMachine, field: int, roll: int) -> State:
    """Red to move from ``field`` after rolling ``roll`` (built from the example opening)."""
    missions = after(machine, machine.initial_state(), "(generateMissions 1 3)")
    rolled = after(machine, missions, f"(roll {roll})")
    money = next(f for f in rolled.facts if str(f).startswith("(playerstat red")).args[2]  # type: ignore[union-attr]
    return replaced(rolled, f"(playerStat red 1 {money} 3 1 true)", f"(playerStat red {field} {money} 3 1 true)")


@pytest.mark.parametrize("name", ["classicMap", "classicMapFTD"])
def test_the_whole_distance_table_of_classic_map(name: str) -> None:
    machine = machine_for(name)
    for field, by_roll in DISTANCES.items():
        for roll, expected in enumerate(by_roll, start=1):
            moves = machine.legal_moves(red_on(machine, field, roll), RED)
            assert {str(m) for m in moves} == {f"(move {field} {to})" for to in expected}, (field, roll)


def test_terminal_holds_at_ten_points_not_nine_and_goals_are_raw_points() -> None:
    machine = machine_for("classicMap")
    missions = after(machine, machine.initial_state(), "(generateMissions 1 3)")
    nine = replaced(missions, "(playerStat red 1 4 3 1 true)", "(playerStat red 1 4 3 9 true)")
    ten = replaced(missions, "(playerStat red 1 4 3 1 true)", "(playerStat red 1 4 3 10 true)")
    assert not machine.is_terminal(nine)
    assert machine.is_terminal(ten)
    assert terminal_goals(machine, ten) == (10, 1, 0)
    assert machine.goals(nine) == (9, 1, 0)


def with_start_money(description: Description, money: int) -> Description:
    """The game with the players' start money (set by random's generateMissions) changed to ``money``."""

    def fix(rule: Rule) -> Rule:
        head = rule.head
        if not (isinstance(head, Func) and head.name == "next" and isinstance(head.args[0], Func)):
            return rule
        fluent = head.args[0]
        draws = any("generatemissions" in str(literal) for literal in rule.body)
        if fluent.name != "playerstat" or not draws:
            return rule
        args = list(fluent.args)
        args[2] = Const(str(money))
        return replace(rule, head=Func("next", (Func("playerstat", tuple(args)),)))

    return replace(description, rules=tuple(fix(rule) for rule in description.rules))


@pytest.mark.parametrize(("computed", "precomputed", "playouts"), [
    ("classicMap", "classicMapFTD", 2), ("biggerMap", "biggerMapFTD", 1),
])
def test_precomputed_distances_give_the_same_play_once_start_money_is_aligned(
    computed: str, precomputed: str, playouts: int
) -> None:
    slow = machine_for(computed)
    fast = PerStateMachine(with_start_money(seed_game(precomputed), 4 if computed == "classicMap" else 5))
    rng = random.Random(7)
    for _ in range(playouts):
        state = slow.initial_state()
        assert fast.initial_state() == state
        for _ in range(150):
            for role in slow.roles:
                assert fast.legal_moves(state, role) == slow.legal_moves(state, role)
            if slow.is_terminal(state):
                assert fast.is_terminal(state) and fast.goals(state) == slow.goals(state)
                break
            joint = random_joint_move(slow, state, rng)
            following = slow.next_state(state, joint)
            assert fast.next_state(state, joint) == following
            state = following


def test_the_unaligned_precomputed_game_really_starts_with_five_coins() -> None:
    machine = PerStateMachine(seed_game("classicMapFTD"))
    missions = after(machine, machine.initial_state(), "(generateMissions 1 3)")
    assert t("(playerStat red 1 5 3 1 true)") in missions.facts


def test_per_state_answers_match_a_fresh_clingo_grounding_per_query() -> None:
    description = seed_game("classicMap")
    machine, reference = machine_for("classicMap"), NaiveStateMachine(description)
    rng = random.Random(3)
    state = machine.initial_state()
    assert reference.initial_state() == state
    for _ in range(12):
        assert machine.legal_joint_moves(state) == reference.legal_joint_moves(state)
        assert machine.is_terminal(state) == reference.is_terminal(state)
        joint = random_joint_move(machine, state, rng)
        state_after = machine.next_state(state, joint)
        assert reference.next_state(state, joint) == state_after
        state = state_after


def test_auto_mode_falls_back_to_per_state_and_says_so(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    description = seed_game("classicMap")
    monkeypatch.setattr(auto, "_FAILED", {})  # earlier tests in this process may have tried this game
    with caplog.at_level(logging.INFO, logger="ggp.reasoner"):
        machine = choose_machine(description, GroundingLimits(seconds=30, memory_mb=2048), budget_seconds=1.0)
    assert isinstance(machine, PerStateMachine)
    assert "the ground-once (clingo) engine cannot play this game" in caplog.text
    assert "reasoner engine per-state" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="ggp.reasoner"):
        again = choose_machine(description, GroundingLimits(seconds=30, memory_mb=2048), budget_seconds=1.0)
    assert isinstance(again, PerStateMachine)
    assert "failed earlier in this process" in caplog.text and "cannot play this game" not in caplog.text


def test_a_random_game_reaches_a_terminal_state_with_integer_point_goals() -> None:
    machine = machine_for("classicMap")
    rng = random.Random(11)
    state = machine.initial_state()
    for _ in range(3000):
        if machine.is_terminal(state):
            break
        state = machine.next_state(state, random_joint_move(machine, state, rng))
    goals = terminal_goals(machine, state)
    assert max(goals[:2]) >= 10 and goals[2] == 0
