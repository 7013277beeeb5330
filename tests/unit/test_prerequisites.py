"""A missing prerequisite skips locally and fails in CI (tests/prerequisites.py)."""

from __future__ import annotations

import pytest

from tests import prerequisites


def test_a_missing_prerequisite_skips_the_test_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prerequisites, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        prerequisites.missing("chromium is not installed")


def test_a_missing_prerequisite_fails_the_test_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prerequisites, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="missing prerequisite in CI: chromium is not installed"):
        prerequisites.missing("chromium is not installed")


def test_a_module_that_cannot_be_imported_is_a_missing_prerequisite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prerequisites, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="'no_such_module_ggp'"):
        prerequisites.require_module("no_such_module_ggp")
    assert prerequisites.require_module("json").dumps([1]) == "[1]"


@prerequisites.needs(True, "always there")
def test_a_needs_mark_that_is_met_lets_the_test_run() -> None:
    assert prerequisites.IN_CI in (True, False)


def test_ci_is_read_from_the_environment() -> None:
    assert prerequisites.ci_from({"CI": "true"}) and prerequisites.ci_from({"CI": "1"})
    assert not prerequisites.ci_from({}) and not prerequisites.ci_from({"CI": "false"})
