"""A one-player KIF game where one move is always the better one: what MAST playouts should learn."""

from __future__ import annotations


def chain_game(steps: int = 20) -> str:
    """A one-player game of ``steps`` choices between ``good`` and ``bad``, scored 5 points a ``good``
    (100 for all of them): a uniformly random playout scores 50 on average from the start."""
    succ = " ".join(f"(succ {n} {n + 1})" for n in range(steps))
    values = " ".join(f"(value {n} {round(100 * n / steps)})" for n in range(steps + 1))
    return f"""
(role walker)
(init (step 0)) (init (score 0))
{succ}
{values}
(<= (legal walker good) (true (step ?n)))
(<= (legal walker bad) (true (step ?n)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (score ?m)) (does walker good) (true (score ?n)) (succ ?n ?m))
(<= (next (score ?n)) (does walker bad) (true (score ?n)))
(<= terminal (true (step {steps})))
(<= (goal walker ?g) (true (score ?n)) (value ?n ?g))
"""
