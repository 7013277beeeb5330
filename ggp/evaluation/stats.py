"""Small statistics shared by the evaluation reports and the benchmark scripts.

>>> [round(x, 3) for x in wilson(20, 20)]
[0.839, 1.0]
>>> [round(x, 3) for x in wilson(5, 10)]
[0.237, 0.763]
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default), clipped to [0, 1].

    ``successes`` counts successes out of ``n`` trials (a draw may count as half a success). With no
    trials the interval is [0, 1].
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
