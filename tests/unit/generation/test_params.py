"""Parameter sets: the four built-in ones, and YAML/JSON files that override them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggp.errors import InputError
from ggp.generation.params import BUILTIN, load_params, resolve_params


def test_four_built_in_sets_that_differ_and_pass_their_checks() -> None:
    assert len(BUILTIN) == 4
    assert len({(p.p_rider, p.max_word_letters, p.p_restricted_on, p.p_forward_only) for p in BUILTIN.values()}) == 4
    for params in BUILTIN.values():
        assert params.check() is params


def test_a_yaml_file_overrides_its_base_set(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("base: riders\np_rider: 0.9\nsizes: [8]\n")
    params = load_params(path)
    assert (params.name, params.p_rider, params.sizes) == ("mine", 0.9, (8,))
    assert params.max_vector == BUILTIN["riders"].max_vector


def test_a_json_file_works_too(tmp_path: Path) -> None:
    path = tmp_path / "j.json"
    path.write_text('{"max_word_letters": 2, "p_compound": 0.5}')
    assert resolve_params(str(path))[0].max_word_letters == 2


@pytest.mark.parametrize(("text", "message"), [
    ("p_rider: 2\n", "p_rider must be a probability"),
    ("colour: red\n", "unknown parameter 'colour'"),
    ("base: nope\n", "unknown base parameter set 'nope'"),
    ("sizes: [5, 6]\n", "sizes must be a non-empty subset"),
    ("types: [2, 9]\n", "types must satisfy"),
    ("p_rider: [\n", "cannot parse parameter file"),
    ("- 1\n", "must be a mapping"),
])
def test_bad_parameter_files_get_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as info:
        load_params(path)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_resolve_names_a_set_or_all_of_them() -> None:
    assert [p.name for p in resolve_params(None)] == list(BUILTIN)
    assert resolve_params("compound") == [BUILTIN["compound"]]
    with pytest.raises(InputError, match=r"no parameter set or file named 'x\.yaml'"):
        resolve_params("x.yaml")
