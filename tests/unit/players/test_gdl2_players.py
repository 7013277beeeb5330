"""GDL-II players: the belief state, which players support GDL-II, and dmcts against random (clingo)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.files import load_kif
from ggp.gdl.parser import parse_term
from ggp.gdl.terms import Const, Func
from ggp.match.local import Transcript, play_local
from ggp.player import Budget, Gdl2Player
from ggp.players import gdl2_support
from ggp.players.determinized_mcts import DeterminizedMctsPlayer
from ggp.players.gdl2_support import BeliefState, HiddenStatePlayer
from ggp.players.registry import PLAYER_TYPES, make_player
from ggp.reasoner.engines import make_machine
from ggp.reasoner.machine import State, StateMachine
from tests.conftest import KIF_DIR
from tests.prerequisites import missing

GUESS = KIF_DIR / "guessNumber" / "guessNumber.kif"
KUHN = KIF_DIR / "kuhnPoker" / "kuhnPoker.kif"


def machine(path: Path) -> StateMachine:
    if not path.is_file():
        missing(f"{path.name} is not present")
    return make_machine(load_kif(path), "clingo")


@pytest.fixture(scope="module")
def guess() -> StateMachine:
    return machine(GUESS)


def secrets(states: list[State]) -> list[int]:
    return sorted(int(str(f.args[0])) for s in states for f in s.facts if isinstance(f, Func) and f.name == "secret")


def answer(k: int, yes: bool) -> frozenset[Func]:
    return frozenset({Func("answer", (Const(str(k)), Const("yes" if yes else "no")))})


def test_random_legal_and_dmcts_support_gdl2_and_the_searching_players_do_not() -> None:
    supported = {kind for kind in PLAYER_TYPES if isinstance(make_player(kind), Gdl2Player)}
    assert supported == {"random", "legal", "dmcts"}
    player = make_player("dmcts:iterations=40,samples=2,exploration=0.5", seed=3)
    assert isinstance(player, DeterminizedMctsPlayer) and player.samples == 2 and player.exploration == 0.5
    with pytest.raises(ValueError, match="samples must be at least 1"):
        make_player("dmcts:samples=0")


def test_the_belief_keeps_exactly_the_secrets_the_answers_allow(guess: StateMachine) -> None:
    belief = BeliefState(guess, Const("guesser"), seed=0)
    belief.update(Const("noop"), frozenset())
    assert secrets(belief.states) == list(range(1, 9))
    belief.update(parse_term("(ask 5)"), answer(5, True))
    assert secrets(belief.states) == [1, 2, 3, 4]
    belief.update(parse_term("(ask 3)"), answer(3, False))
    assert secrets(belief.states) == [3, 4]
    assert belief.turn == 3 and {str(m) for m in belief.own_legal_moves()} >= {"(guess 3)", "(ask 2)"}
    assert len(belief.sample(1)) == 1 and secrets(belief.sample(5)) == [3, 4]


def test_a_trimmed_belief_that_loses_the_true_state_is_rebuilt_from_the_history(guess: StateMachine) -> None:
    belief = BeliefState(guess, Const("guesser"), seed=4, max_states=2)
    belief.update(Const("noop"), frozenset())
    kept = secrets(belief.states)
    assert len(kept) == 2
    # An answer that rules out both kept secrets: only a search from the initial state finds the rest.
    k, yes = (max(kept) + 1, False) if max(kept) < 8 else (min(kept), True)
    belief.update(parse_term(f"(ask {k})"), answer(k, yes))
    expected = [n for n in range(1, 9) if (n < k) == yes]
    assert secrets(belief.states) and set(secrets(belief.states)) <= set(expected)


def test_observe_resets_at_turn_zero_ignores_repeats_and_treats_missed_turns_as_unknown(guess: StateMachine) -> None:
    player = make_player("random", seed=1)
    assert isinstance(player, HiddenStatePlayer)
    player.start(guess, Const("guesser"), Budget())
    player.observe(0, None, frozenset())
    assert [str(m) for m in player.own_legal_moves()] == ["noop"]
    player.observe(1, Const("noop"), frozenset())
    player.observe(1, Const("noop"), frozenset())  # a repeated PLAY changes nothing
    player.observe(3, parse_term("(ask 2)"), answer(2, True))  # turn 2 was missed
    assert player.belief is not None and player.belief.turn == 3
    assert secrets(player.belief.states) == [1]
    assert player.choose_hidden(Budget(iterations=1)) in player.own_legal_moves()
    player.observe(0, None, frozenset())
    assert player.belief.turn == 0


def test_dmcts_finds_the_number_clearly_more_often_than_random(guess: StateMachine) -> None:
    games = 30  # 12 games left the difference to the chance draws (3 vs 1 with one seeding)
    wins = {}
    for spec in ("random", "dmcts:iterations=100,samples=8"):
        won = 0
        for number in range(games):
            player = make_player(spec, seed=number)
            assert isinstance(player, Gdl2Player)
            transcript = Transcript()
            ending = play_local(guess, [player, None], seed=100 + number, listener=transcript, gdl2=True)
            assert ending.goals is not None and transcript.fallbacks == 0  # every move was the player's own
            won += ending.goals[0] == 100
        wins[spec] = won
    assert wins["dmcts:iterations=100,samples=8"] >= wins["random"] + 3, wins


def test_dmcts_guesses_the_only_number_left(guess: StateMachine) -> None:
    player = make_player("dmcts:iterations=150,samples=4", seed=2)
    assert isinstance(player, DeterminizedMctsPlayer)
    player.start(guess, Const("guesser"), Budget())
    for turn, (move, seen) in enumerate([("noop", frozenset()), ("(ask 7)", answer(7, False)),
                                         ("(ask 8)", answer(8, True))], start=1):
        player.observe(turn, parse_term(move), seen)
    assert str(player.choose_hidden(Budget())) == "(guess 7)"
    assert max(player.last_scores.values()) == player.last_scores[parse_term("(guess 7)")] == 1.0


def test_kuhn_poker_players_only_use_their_own_card() -> None:
    kuhn = machine(KUHN)
    player = make_player("dmcts:iterations=60,samples=3", seed=0)
    assert isinstance(player, HiddenStatePlayer)
    player.start(kuhn, Const("first"), Budget())
    player.observe(1, Const("noop"), frozenset({parse_term("(yourcard king)")}))
    assert player.belief is not None
    hands = {str(f) for s in player.belief.states for f in s.facts if isinstance(f, Func) and f.name == "holds"}
    assert hands == {"(holds first king)", "(holds second jack)", "(holds second queen)"}
    assert player.choose_hidden(Budget()) in {parse_term("check"), parse_term("bet")}


def test_a_belief_update_past_its_work_limit_keeps_the_consistent_states_found_so_far(
    guess: StateMachine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gdl2_support, "UPDATE_NODES", 1)
    belief = BeliefState(guess, Const("guesser"), seed=0)
    belief.update(Const("noop"), frozenset())  # one state to expand: the limit only stops between states
    assert len(belief.states) == 8
    belief.update(parse_term("(ask 5)"), answer(5, False))
    assert len(secrets(belief.states)) == 1 and secrets(belief.states)[0] >= 5
