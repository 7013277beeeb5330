"""The manager's isolated referee: one worker round trip per step, and the same answers and errors as
asking each question in a call of its own (issue 33)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from ggp.errors import ReasonerError
from ggp.gdl.terms import Const, Description, Func
from ggp.manager import reasoning
from ggp.manager.reasoning import ReasonerLimits, Reasoners
from ggp.match.referee import Referee
from ggp.match.rules import GameBroken
from ggp.reasoner.isolation import Worker
from ggp.reasoner.machine import Move, Role, State
from tests.helpers.manager_machines import COUNTER_KIF, CounterMachine

BROKEN_KIF = COUNTER_KIF.replace("(role p1) (role p2)", "(role p1) (role p2) (broken yes)")
"""The counter game, with a fact that makes :func:`machine_for` build a :class:`BrokenMachine`."""

STEP_1 = Func("step", (Const("1"),))


class BrokenMachine(CounterMachine):
    """A four-turn counter game whose goals fail, and whose legal moves fail from turn 2 on."""

    def __init__(self) -> None:
        super().__init__(length=4)

    def legal_moves(self, state: State, role: Role) -> tuple[Move, ...]:
        if self._value(state, "turn") >= 2:
            raise KeyError("no legal moves past turn 1")
        return super().legal_moves(state, role)

    def goals(self, state: State) -> tuple[int, ...]:
        raise ReasonerError("no goal value for p1")


def machine_for(description: Description) -> CounterMachine:
    """The factory the workers build their machine with (a module-level function: pickled by name)."""
    if any(str(rule.head) == "(broken yes)" for rule in description.rules):
        return BrokenMachine()
    return CounterMachine(length=10)


@pytest.fixture
async def reasoners() -> AsyncIterator[Reasoners]:
    reasoners = Reasoners(machine_for, ReasonerLimits(call_s=20.0, load_s=60.0))
    yield reasoners
    await reasoners.close()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every worker call from now on, counted by the worker function's name."""
    counted: Counter[str] = Counter()
    call = Worker.call

    async def counting(self: Worker, function: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Any:
        counted[function.__name__] += 1
        return await call(self, function, args, seconds)

    monkeypatch.setattr(Worker, "call", counting)
    return counted


async def play(referee: Referee) -> tuple[list[State], tuple[int, ...]]:
    """Play the first legal moves to the end: the states passed and the goals."""
    states = [referee.state]
    while not await referee.is_terminal():
        legal = await referee.legal()
        await referee.advance(tuple(moves[-1] for moves in legal))
        states.append(referee.state)
    return states, await referee.goals()


async def test_a_match_costs_one_worker_call_per_step_with_the_answers_of_the_machine_itself(
    reasoners: Reasoners, calls: Counter[str],
) -> None:
    slot = await reasoners.load(COUNTER_KIF, "counter.kif")
    calls.clear()  # the load's own call
    states, goals = await play(reasoners.referee(slot))
    assert len(states) == 11
    assert calls == Counter({"_worker_step": 10})  # was terminal, legal and next per step, then goals: 31
    assert (states, goals) == await play(Referee(CounterMachine(length=10)))


async def test_a_question_that_fails_raises_what_a_call_asking_it_alone_raises(
    reasoners: Reasoners, calls: Counter[str],
) -> None:
    slot = await reasoners.load(BROKEN_KIF, "broken.kif")
    referee = reasoners.referee(slot)
    for _ in range(2):
        await referee.advance(tuple(moves[0] for moves in await referee.legal()))
    with pytest.raises(ReasonerError) as kept:
        await referee.legal()
    with pytest.raises(ReasonerError) as alone:
        await reasoners.call(slot, reasoning._worker_legal, (referee.state,), "legal")
    assert str(kept.value) == str(alone.value) == "KeyError: 'no legal moves past turn 1'"
    for _ in range(2):  # to turn 4: terminal, and the goals fail
        await referee.advance((STEP_1, STEP_1))
    assert await referee.is_terminal()
    calls.clear()
    with pytest.raises(GameBroken, match=r"^no goal values at the terminal state: no goal value for p1$"):
        await referee.goals()
    assert not calls  # answered from the step's call


async def test_a_worker_killed_mid_match_is_replaced_and_the_match_goes_on(
    reasoners: Reasoners, calls: Counter[str],
) -> None:
    slot = await reasoners.load(COUNTER_KIF, "counter.kif")
    referee = reasoners.referee(slot)
    await referee.advance(tuple(moves[0] for moves in await referee.legal()))
    slot.worker.kill()
    calls.clear()
    states, goals = await play(referee)
    assert slot.replaced == 1 and slot.worker.alive
    assert calls == Counter({"_worker_load": 1, "_worker_step": 9})  # the reload, then one call per step
    reference = Referee(CounterMachine(length=10))
    await reference.advance(tuple(moves[0] for moves in await reference.legal()))
    assert (states, goals) == await play(reference)


def test_the_initial_verdict_comes_with_the_load() -> None:
    """A game whose initial state is terminal: its goals are probed at the load too."""
    reasoning._LOADED.clear()
    loaded = reasoning._worker_load(COUNTER_KIF.replace("(turn 10)", "(turn 0)"), "done.kif", machine_for_zero, None,
                                    "done.kif")
    reasoning._LOADED.clear()
    assert isinstance(loaded, reasoning.LoadedGame)
    assert loaded.verdict == reasoning.Verdict(True, goals=(100, 100))


def machine_for_zero(description: Description) -> CounterMachine:
    """A counter game that is over before it starts."""
    return CounterMachine(length=0)
