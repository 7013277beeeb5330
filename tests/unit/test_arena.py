"""In-process arena: seat rotation, outcomes, fallbacks for failing players, and the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.arena import ArenaGame, format_table, outcome_of, run_arena, standings
from ggp.cli import main
from ggp.errors import GgpError
from ggp.match.local import Transcript, play_local
from ggp.player import Budget
from ggp.players.alphabeta import AlphaBetaPlayer
from ggp.players.legal_player import LegalPlayer
from ggp.players.random_player import RandomPlayer
from ggp.reasoner.machine import Move, Role, State, StateMachine
from tests.helpers.nim_machine import ChanceMachine, NimMachine, StuckNim
from tests.unit.evaluation.tiny_games import NO_LEGAL_MOVE


def test_seats_rotate_and_alphabeta_beats_random_from_both_seats_of_a_first_player_win() -> None:
    machine = NimMachine((1, 2))  # first player wins with perfect play
    makers = [lambda seed: AlphaBetaPlayer(seed), lambda seed: RandomPlayer(seed)]
    results = run_arena(machine, makers, games=4, seed=5)
    assert [game.seats for game in results] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    table = standings(results, ["alphabeta", "random"])
    assert table[0].games == table[1].games == 4
    assert table[0].wins + table[1].wins == 4
    # As first player alpha-beta always wins.
    assert all(game.goals[0] == 100 for game in results if game.seats[0] == 0)
    assert table[0].wins >= 2 and table[0].win_rate == table[0].wins / 4


def test_the_same_seed_replays_the_same_games() -> None:
    machine = NimMachine((2, 3))
    makers = [lambda seed: RandomPlayer(seed), lambda seed: RandomPlayer(seed)]
    first = run_arena(machine, makers, games=6, seed=1)
    assert first == run_arena(machine, makers, games=6, seed=1)
    assert len({(g.goals, g.length) for g in first}) > 1


class Failing(LegalPlayer):
    def _search(self, state: State, legal: tuple[Move, ...], budget: Budget) -> Move:
        raise ValueError("cannot think")


def test_a_failing_player_plays_legal_moves_never_nil_and_is_counted() -> None:
    transcript = Transcript()
    machine = NimMachine((2, 2))
    play_local(machine, [Failing(0), LegalPlayer(1)], seed=0, listener=transcript)
    assert all(step.errors == ("", "") for step in transcript.steps)  # no IL null: a legal move every step
    assert transcript.fallbacks > 0
    results = run_arena(NimMachine((2, 2)), [lambda s: Failing(s), lambda s: LegalPlayer(s)], games=2)
    assert all(game.errors > 0 and game.end_reason == "terminal" for game in results)


def test_max_steps_ends_a_long_game_as_a_step_cap_draw() -> None:
    results = run_arena(NimMachine((9, 9)), [lambda s: LegalPlayer(s), lambda s: LegalPlayer(s)], games=1, max_steps=2)
    assert results[0].end_reason == "step_cap" and results[0].length == 2 and results[0].goals == (50, 50)



def test_a_role_without_a_legal_move_stops_the_arena_with_one_clear_line() -> None:
    with pytest.raises(GgpError) as caught:
        run_arena(StuckNim((3, 3)), [lambda s: RandomPlayer(s), lambda s: RandomPlayer(s)], games=1)
    message = str(caught.value)
    assert "\n" not in message and "role 'second' has no legal move in a non-terminal state after 1 steps" in message


def test_the_chance_role_gets_no_entrant() -> None:
    results = run_arena(ChanceMachine(), [lambda s: LegalPlayer(s)], games=2, seed=3)
    assert [len(game.goals) for game in results] == [1, 1] and all(game.seats == (0,) for game in results)


def test_one_player_per_role_is_required() -> None:
    maker = [lambda seed: RandomPlayer(seed)]
    with pytest.raises(ValueError, match="one per role"):
        run_arena(NimMachine(), maker, games=1)


def test_outcomes_and_the_table() -> None:
    assert outcome_of(0, (100, 0)) == "win"
    assert outcome_of(0, (50, 50)) == "draw"
    assert outcome_of(0, (0, 100)) == "loss"
    assert outcome_of(0, (0,)) == "loss" and outcome_of(0, (100,)) == "win"
    games = [ArenaGame((0, 1), (100, 0), 3, "terminal", 0), ArenaGame((1, 0), (50, 50), 4, "terminal", 0)]
    table = standings(games, ["a", "b"])
    assert (table[0].wins, table[0].draws, table[0].losses, table[0].score) == (1, 1, 0, 0.75)
    text = format_table(table)
    assert text.splitlines()[0].startswith("player") and "75.0" in text.splitlines()[1]




def test_ggp_arena_reports_a_role_without_legal_moves_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "stuck.kif"
    game.write_text(NO_LEGAL_MOVE)
    assert main(["arena", str(game), "--player", "random", "--player", "random", "--games", "1", "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "ggp arena: game error: role 'white' has no legal move in a non-terminal state after 0 steps"


def test_an_sbg_game_plays_on_the_sbg_engine_so_a_board_heuristic_chooses_every_move(
        capsys: pytest.CaptureFixture[str]) -> None:
    # On the GDL translation W refuses the game ("needs a board game with piece rules"), and the arena used
    # to score it on fallback moves; on the SBG engine (as in ggp evaluate) it plays every move itself.
    import json

    game = str(Path(__file__).resolve().parents[2] / "games" / "gardner.sbg")
    code = main(["arena", game, "--player", "minimax:h=WGCM,depth=1", "--player", "minimax:h=C,depth=1",
                 "--games", "2", "--max-steps", "12", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert [g["errors"] for g in out["games"]] == [0, 0]
    assert [s["fallbacks"] for s in out["standings"]] == [0, 0]


def test_a_player_that_refuses_the_game_stops_the_arena_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "ticTacToe", "--player", "minimax:h=WGCM,depth=1", "--player", "random", "--games", "2"])
    captured = capsys.readouterr()
    assert code == 1 and "goals" not in captured.out + captured.err
    assert captured.err.strip() == (
        "ggp arena: ticTacToe: player minimax:h=WGCM,depth=1 cannot play role xplayer: min-max WGCM: heuristic "
        "term W (weighted material: piece values from move rules) needs a board game with piece rules (SBG); "
        "this game is plain GDL")


class RefusesAtStart(LegalPlayer):
    def start(self, machine: object, role: object, budget: Budget) -> None:
        raise ValueError("not this game")


def test_a_refusing_player_stops_run_arena_instead_of_playing_fallbacks() -> None:
    with pytest.raises(GgpError, match="refused the game: not this game"):
        run_arena(NimMachine((2, 2)), [lambda s: RefusesAtStart(s), lambda s: LegalPlayer(s)], games=2)


def test_fallbacks_are_counted_per_entrant_and_the_table_marks_the_row() -> None:
    results = run_arena(NimMachine((2, 2)), [lambda s: Failing(s), lambda s: LegalPlayer(s)], games=2)
    table = standings(results, ["failing", "legal"])
    assert table[0].fallbacks == sum(game.errors for game in results) > 0 and table[1].fallbacks == 0
    text = format_table(table)
    assert "failing *" in text and "legal *" not in text
    assert f"* failing: {table[0].fallbacks} moves were fallbacks" in text


def test_a_game_with_more_roles_than_players_is_refused_up_front(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "threePlayerTicTacToe", "--player", "random", "--player", "random"])
    assert code == 1
    assert capsys.readouterr().err.strip() == (
        "ggp arena: threePlayerTicTacToe: the game has 3 player roles (red, green, blue) but 2 players were "
        "given; give one per role")


class _Settings:
    def describe(self) -> str:
        return "chose\nthis"


class _Configuring(RandomPlayer):
    """A random player that configures itself at START, as the default ``mcts`` does."""

    configuration: _Settings | None = None

    def start(self, machine: StateMachine, role: Role, budget: Budget) -> None:
        super().start(machine, role, budget)
        self.configuration = _Settings()


def test_each_game_keeps_what_self_configuring_players_chose_per_role() -> None:
    makers = [lambda seed: _Configuring(seed), lambda seed: RandomPlayer(seed)]
    results = run_arena(NimMachine((1, 2)), makers, games=2, seed=3)
    assert [game.configurations for game in results] == [("chose this", ""), ("", "chose this")]
    plain = run_arena(NimMachine((1, 2)), [lambda seed: RandomPlayer(seed)] * 2, games=1)
    assert plain[0].configurations == ()


def test_ggp_arena_json_gives_the_default_mcts_choice_per_game(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["arena", "ticTacToe", "--engine", "per-state", "--player", "mcts:iterations=10", "--player", "random",
                 "--games", "2", "--json"]) == 0
    games = json.loads(capsys.readouterr().out)["games"]
    # The per-state engine has no native search: the safe defaults, and the line says why (docs/players.md).
    assert [game["configurations"] for game in games] == [
        ["decisive=0, no NMCS (not a puzzle): the safe defaults: no native search on this engine yet", ""],
        ["", "decisive=0, no NMCS (not a puzzle): the safe defaults: no native search on this engine yet"]]
    assert main(["arena", "ticTacToe", "--engine", "per-state", "--player", "random", "--player", "random",
                 "--games", "1", "--json"]) == 0
    assert "configurations" not in json.loads(capsys.readouterr().out)["games"][0]
