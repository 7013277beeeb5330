"""Small recorded plays whose metric values the tests work out by hand."""

from __future__ import annotations

from ggp.evaluation.ludii.trace import Observations, PlayTrace

# A wins; A moves at steps 0 and 2, B at step 1. Evaluations e_A per state, e_B = 1 - e_A, so on
# Ludii's scale v_A = 2 e_A - 1 = [0, 0.5, -0.5, 1] and v_B = -v_A = [0, -0.5, 0.5, -1].
SWING = PlayTrace(
    goals=(100, 0),
    observed=Observations(
        legal=((3, 1), (1, 2), (2, 1)),
        situations=(0, 1, 2, 3),
        scores=((50, 50), (60, 40), (30, 70), (100, 0)),
        sites=4,
        occupied=(1, 2, 2, 1),
        pieces=(1, 2, 2, 1),
        positions=(0, 1, 2, 1),
        covered=(0, 1, 3),
        contents=("o", "x"),
        distances=(1, 2),
        clarity=((0.25, 0.75), (0.5, 0.25), (0.0, 0.0)),
    ),
    evaluations=((0.5, 0.5), (0.75, 0.25), (0.25, 0.75), (1.0, 0.0)),
)

# B wins after a forced step 1: v_A = [0, 0.8, 0.2, -1]... written as e_A = [0.5, 0.9, 0.6, 0.0].
FORCED = PlayTrace(
    goals=(0, 100),
    observed=Observations(legal=((2, 1), (1, 1), (1, 3)), situations=(0, 1, 2, 1)),
    evaluations=((0.5, 0.5), (0.9, 0.1), (0.6, 0.4), (0.0, 1.0)),
)

DRAW = PlayTrace((50, 50), observed=Observations(legal=((2, 1), (1, 2)), situations=(0, 1, 2)))
TIMEOUT = PlayTrace((50, 50), "turn_limit", observed=Observations(legal=((2, 1),) * 5, situations=(0, 1, 0, 1, 0, 1)))
