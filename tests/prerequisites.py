"""One rule for tests that need something outside the repository (../shared, Chromium, node, a C
compiler, java, an optional extra): locally a missing prerequisite skips the test with the reason; in CI
(``CI`` set to true, as .ci/run is run) it fails the test, so a broken install step cannot hide behind a
green run of skips.

Skips that are decisions, not missing things (a game known to be unsupported, a slow set run on
request), stay plain ``pytest.skip``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from types import ModuleType
from typing import NoReturn

import pytest


def ci_from(environ: Mapping[str, str]) -> bool:
    """Whether ``environ`` says we run in CI (``CI=true``, as CI services and .ci/run set it)."""
    return environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


IN_CI = ci_from(os.environ)


def missing(reason: str) -> NoReturn:
    """Skip the running test for a missing prerequisite, or fail it in CI."""
    if IN_CI:
        pytest.fail(f"missing prerequisite in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def needs(available: bool, reason: str) -> pytest.MarkDecorator:
    """A marker for a test that needs ``available``: ``@needs(NODE is not None, "node is not installed")``.

    The root conftest turns it into :func:`missing` when the test is set up.
    """
    return pytest.mark.prerequisite(available=available, reason=reason)


def require_module(name: str) -> ModuleType:
    """The imported module, or :func:`missing` naming it (the counterpart of ``pytest.importorskip``)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"module {name!r} cannot be imported ({exc})")


def check_marks(item: pytest.Item) -> None:
    """Apply every ``prerequisite`` mark of ``item`` (called from the root conftest at set-up)."""
    for mark in item.iter_markers("prerequisite"):
        if not mark.kwargs.get("available", False):
            missing(str(mark.kwargs.get("reason", "a prerequisite is missing")))
