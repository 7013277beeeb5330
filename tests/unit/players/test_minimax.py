"""RAPP's 16 min-max players: every one on every game in games/, the GDL path, and clear refusals."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ggp.gdl.parser import parse_kif
from ggp.match.local import Transcript, play_local
from ggp.match.rules import MatchRules
from ggp.player import Budget
from ggp.players.minimax import MinimaxPlayer
from ggp.players.registry import make_player
from ggp.reasoner.clingo_machine import ClingoStateMachine
from ggp.reasoner.heuristics import HEURISTIC_NAMES, Heuristic
from ggp.reasoner.machine import GroundingLimits, StateMachine
from ggp.translators.sbg.machine import SbgStateMachine
from ggp.translators.sbg.parser import parse_sbg
from ggp.translators.sbg.to_gdl import translate
from tests.conftest import GAMES_DIR, KIF_DIR, ROOT
from tests.helpers.nim_machine import NimMachine

GAME_FILES = sorted(GAMES_DIR.glob("*.sbg"))
SPECS = [f"minimax:h={name},depth=2" for name in HEURISTIC_NAMES]


def _sbg(path: Path) -> SbgStateMachine:
    return SbgStateMachine(parse_sbg(path.read_text(), str(path)))


def _clingo(kif: str) -> ClingoStateMachine:
    return ClingoStateMachine(parse_kif(kif), GroundingLimits(isolate=False))


def test_the_sixteen_names_are_the_papers() -> None:
    assert len(set(HEURISTIC_NAMES)) == 16
    for name in ("C", "CG", "WGM", "WGC", "WGCM"):  # the algorithms the paper's models keep
        assert name in HEURISTIC_NAMES
        player = make_player(f"minimax:h={name},depth=2")
        assert isinstance(player, MinimaxPlayer) and player.label == name
    assert Heuristic.parse("wgcm") == Heuristic.parse("WGCM")


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_all_sixteen_play_legal_reproducible_matches_on_every_game(path: Path) -> None:
    machine = _sbg(path)
    # Each heuristic plays once per game, paired with the one eight places on (C with W, CG with WG, ...).
    for k in range(8):
        specs = (SPECS[k], SPECS[k + 8]) if k % 2 == 0 else (SPECS[k + 8], SPECS[k])
        moves = []
        for _ in range(2):
            players = [make_player(spec, seed=31 * k + i) for i, spec in enumerate(specs)]
            transcript = Transcript()
            ending = play_local(machine, players, seed=k, rules=MatchRules(40), listener=transcript)
            assert transcript.fallbacks == 0, (specs, ending.detail)
            assert ending.goals is not None and ending.reason in ("terminal", "step_cap")
            moves.append([step.joint for step in transcript.steps])
        assert moves[0] == moves[1], specs  # the same seeds replay the match


def test_seeds_vary_the_play_among_equal_moves() -> None:
    machine = _sbg(GAMES_DIR / "gardner.sbg")
    openings = set()
    for seed in range(8):
        player = make_player("minimax:h=C,depth=1", seed=seed)
        player.start(machine, machine.roles[0], Budget())
        openings.add(player.choose(machine.initial_state(), Budget()))
    assert len(openings) > 1  # every opening keeps material: the tie-break picks among them


def test_a_stronger_heuristic_beats_random_play() -> None:
    machine = _sbg(GAMES_DIR / "gardner.sbg")
    score = 0.0
    for seed in range(6):
        players = [make_player("minimax:h=WGC,depth=2", seed=seed), make_player("random", seed=seed)]
        if seed % 2:
            players.reverse()
        ending = play_local(machine, players, seed=seed, rules=MatchRules(200))
        assert ending.goals is not None
        score += ending.goals[seed % 2] / 100
    assert score >= 5


SMALL = """<<Small>> <BOARD> 4 4 |rk..| |p.p.| |.P.P| |..KR| <PIECES>
P (0,1,e) + (1,1,p) + (-1,1,p) & K (0,1,e)+(0,1,p)+(1,0,e)+(1,0,p)+(-1,0,e)+(-1,0,p)+(0,-1,e)+(0,-1,p) &
R (0,1,e)^*(0,1,e)+(0,1,e)^*(0,1,p)+(1,0,e)^*(1,0,e)+(1,0,e)^*(1,0,p)+(-1,0,e)^*(-1,0,e)+(-1,0,e)^*(-1,0,p) &
<GOALS> 30 & #k 0 & #K 0 & @P 0 3, 1 3, 2 3, 3 3 & @p 0 0, 1 0, 2 0, 3 0 &"""


def test_constant_material_agrees_on_the_sbg_engine_and_on_its_gdl_translation() -> None:
    # C counts pieces; on GDL the pieces are the fluents naming a role, the same count. So the native
    # search on the SBG engine and the generic search on clingo must rate the moves alike.
    game = parse_sbg(SMALL)
    native, generic = SbgStateMachine(game), _clingo_of(game)
    state = native.initial_state()
    for ply in range(6):
        if native.is_terminal(state):
            break
        role = native.roles[ply % 2]
        best = []
        for machine in (native, generic):
            player = MinimaxPlayer(seed=ply, h="C")
            player.start(machine, role, Budget())
            legal = machine.legal_moves(state, role)
            if isinstance(machine, SbgStateMachine):
                values = dict(machine.minimax_values(state, role, player.heuristic, 2))
            else:
                values = dict(player._root_values(state, legal, 2))
            top = max(values.values())
            best.append(sorted(str(move) for move, value in values.items() if value > top - 1e-9))
        assert best[0] == best[1], ply
        state = native.next_state(state, native.legal_joint_moves(state)[ply % len(native.legal_joint_moves(state))])


def _clingo_of(game: object) -> StateMachine:
    from ggp.gdl.printer import to_kif

    return _clingo(to_kif(translate(game)))  # type: ignore[arg-type]


TIC_TAC_TOE = (KIF_DIR / "ticTacToe" / "ticTacToe.kif").read_text()


@pytest.mark.parametrize("name", ["C", "CG", "CM", "CGM"])
def test_gdl_games_get_the_terms_that_make_sense(name: str) -> None:
    machine = _clingo(TIC_TAC_TOE)
    players = [make_player(f"minimax:h={name},depth=2", seed=1), make_player("random", seed=2)]
    transcript = Transcript()
    ending = play_local(machine, players, seed=3, rules=MatchRules(20), listener=transcript)
    assert transcript.fallbacks == 0 and ending.reason == "terminal"


def test_on_gdl_a_win_in_one_is_taken() -> None:
    machine = _clingo(TIC_TAC_TOE)
    xplayer = machine.roles[0]
    state = machine.initial_state()
    # x plays (1,1), o (2,1), x (1,2), o (2,2): x wins with (1,3).
    for move in ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"]:
        joint = []
        for role in machine.roles:
            legal = machine.legal_moves(state, role)
            joint.append(next((m for m in legal if str(m) == move), legal[0]))
        state = machine.next_state(state, tuple(joint))
    player = make_player("minimax:h=C,depth=2", seed=0)
    player.start(machine, xplayer, Budget())
    assert str(player.choose(state, Budget())) == "(mark 1 3)"


@pytest.mark.parametrize(("name", "term"), [("W", "W (weighted material"), ("CC", "C (control")])
def test_terms_that_need_piece_rules_are_refused_on_gdl_by_name(name: str, term: str) -> None:
    machine = _clingo(TIC_TAC_TOE)
    with pytest.raises(ValueError, match=rf"heuristic term {re.escape(term)}.*plain GDL") as caught:
        make_player(f"minimax:h={name}").start(machine, machine.roles[0], Budget())
    assert "\n" not in str(caught.value)


def test_games_without_two_roles_or_without_pieces_are_refused() -> None:
    three = _clingo((KIF_DIR / "threePlayerTicTacToe" / "threePlayerTicTacToe.kif").read_text())
    with pytest.raises(ValueError, match="needs a two-player game without chance, this one has 3 roles"):
        make_player("minimax:h=C").start(three, three.roles[0], Budget())
    nim = NimMachine((2, 3))
    with pytest.raises(ValueError, match="material finds no piece fluents"):
        make_player("minimax:h=CG").start(nim, nim.roles[0], Budget())


def test_evaluate_reports_a_heuristic_that_cannot_be_computed_in_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ggp", "evaluate", str(KIF_DIR / "threePlayerTicTacToe" / "threePlayerTicTacToe.kif"),
         "--players", "minimax:h=CG,depth=2;minimax:h=WGC,depth=2", "--matches", "1", "--out", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("threePlayerTicTacToe"))
    assert "unplayable" in line and "needs a two-player game" in line and "minimax:h=CG,depth=2" in line
