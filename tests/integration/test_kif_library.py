"""The project's own games in kif/: ggp.org layout, METADATA that matches the rules, clean KIF round trips.

Each game lives in kif/<key>/ with <key>.kif, a JSON METADATA file as on ggp.org and an optional
plain-words description. Simulation checks (termination, playability, goals) belong to the
validator and reasoner tests; this module checks the files themselves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ggp.files import load_kif
from ggp.gdl.parser import parse_kif
from ggp.gdl.printer import to_kif
from ggp.gdl.terms import Description, Func, Var, atoms_of
from tests.conftest import KIF_DIR

GAME_DIRS = sorted(path for path in KIF_DIR.iterdir() if path.is_dir()) if KIF_DIR.is_dir() else []

EXPECTED_GAMES = {
    "breakthrough",
    "connectFour",
    "guessNumber",
    "kuhnPoker",
    "rockPaperScissors",
    "threePlayerTicTacToe",
    "ticTacToe",
}

METADATA_KEYS = {"gameName", "rulesheet", "stylesheet", "user_interface", "roleNames", "numRoles", "version"}


def load_metadata(game_dir: Path) -> dict[str, Any]:
    data = json.loads((game_dir / "METADATA").read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{game_dir.name}/METADATA is not a JSON object"
    return data


def load_game(game_dir: Path) -> Description:
    return load_kif(game_dir / f"{game_dir.name}.kif")


def relations(description: Description) -> set[str]:
    """Every relation name used in a head or a body."""
    names = {rule.head.name for rule in description.rules}
    for rule in description.rules:
        for literal in rule.body:
            names.update(atom.name for atom, _ in atoms_of(literal))
    return names


def test_the_library_holds_the_reference_games() -> None:
    assert {path.name for path in GAME_DIRS} >= EXPECTED_GAMES


@pytest.mark.parametrize("game_dir", GAME_DIRS, ids=lambda path: path.name)
def test_game_folder_has_rulesheet_and_valid_metadata(game_dir: Path) -> None:
    key = game_dir.name
    assert (game_dir / f"{key}.kif").is_file()
    metadata = load_metadata(game_dir)
    assert set(metadata) >= METADATA_KEYS, f"missing keys {sorted(METADATA_KEYS - set(metadata))}"
    assert metadata["rulesheet"] == f"{key}.kif"
    assert isinstance(metadata["gameName"], str) and metadata["gameName"]
    assert isinstance(metadata["version"], int)
    assert metadata["numRoles"] == len(metadata["roleNames"])
    if metadata.get("description") is not None:
        assert (game_dir / metadata["description"]).is_file()


@pytest.mark.parametrize("game_dir", GAME_DIRS, ids=lambda path: path.name)
def test_metadata_role_names_equal_the_roles_of_the_rules(game_dir: Path) -> None:
    roles = [str(role) for role in load_game(game_dir).roles]
    assert roles
    assert load_metadata(game_dir)["roleNames"] == roles


@pytest.mark.parametrize("game_dir", GAME_DIRS, ids=lambda path: path.name)
def test_game_round_trips_through_the_printer(game_dir: Path) -> None:
    description = load_game(game_dir)
    text = to_kif(description)
    again = parse_kif(text, "printed")
    assert again == description
    assert to_kif(again) == text


@pytest.mark.parametrize("game_dir", GAME_DIRS, ids=lambda path: path.name)
def test_game_declares_base_and_input(game_dir: Path) -> None:
    names = relations(load_game(game_dir))
    assert {"base", "input", "init", "legal", "next", "goal", "terminal"} <= names


@pytest.mark.parametrize("game_dir", GAME_DIRS, ids=lambda path: path.name)
def test_gdl_ii_games_list_random_as_a_role(game_dir: Path) -> None:
    description = load_game(game_dir)
    roles = {str(role) for role in description.roles}
    uses_sees = "sees" in relations(description)
    assert uses_sees == ("random" in roles)


def test_gdl_ii_games_are_the_expected_ones() -> None:
    gdl_ii = {path.name for path in GAME_DIRS if "sees" in relations(load_game(path))}
    assert {"guessNumber", "kuhnPoker"} <= gdl_ii


def test_goal_values_are_integers_from_0_to_100() -> None:
    for game_dir in GAME_DIRS:
        for rule in load_game(game_dir).rules:
            head = rule.head
            if isinstance(head, Func) and head.name == "goal" and not isinstance(head.args[1], Var):
                assert 0 <= int(str(head.args[1])) <= 100, f"{game_dir.name}: {head}"


def _initial_choices(key: str) -> dict[str, int]:
    """How many legal moves each role has in the initial state of kif/<key>."""
    from ggp.reasoner.naive import NaiveStateMachine

    machine = NaiveStateMachine(load_game(KIF_DIR / key))
    state = machine.initial_state()
    return {str(role): len(machine.legal_moves(state, role)) for role in machine.roles}


def test_the_library_has_an_n_player_and_a_simultaneous_move_game() -> None:
    assert len(load_game(KIF_DIR / "threePlayerTicTacToe").roles) == 3
    assert _initial_choices("threePlayerTicTacToe") == {"red": 16, "green": 1, "blue": 1}  # others noop
    # Simultaneous: both roles have a real choice in the same state.
    assert _initial_choices("rockPaperScissors") == {"left": 3, "right": 3}
