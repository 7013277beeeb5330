"""The Wilson score interval (the one copy used by the reports and the benchmark scripts)."""

from __future__ import annotations

import pytest

from ggp.evaluation.stats import wilson


def test_wilson_matches_hand_computed_values_and_stays_inside_zero_one() -> None:
    # p = 0.8, n = 50: centre 0.7849, half-width 0.1085 (Wilson 1927; any statistics table).
    low, high = wilson(40, 50)
    assert low == pytest.approx(0.6696, abs=1e-4) and high == pytest.approx(0.8876, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)
    # A draw counts as half a success: 3 wins and 2 draws of 5 is 4 successes.
    assert wilson(3 + 0.5 * 2, 5) == wilson(4, 5)
    # More trials at the same fraction give a narrower interval.
    narrow, wide = wilson(80, 100), wilson(8, 10)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
