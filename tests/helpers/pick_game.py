"""A one-player game for the native search's tests: the best line, RAVE and nested search."""

from __future__ import annotations


def pick_two_game(items: int = 16) -> str:
    """A one-player game: take 3 of ``items`` items one at a time, scoring 100 when items 3 and 7 are both
    taken, in any order (where all-moves-as-first statistics are exact), else 0."""
    facts = " ".join(f"(item {i})" for i in range(items))
    return f"""
(role picker)
{facts}
(succ 0 1) (succ 1 2) (succ 2 3)
(init (step 0))
(<= (legal picker (take ?i)) (item ?i) (not (true (taken ?i))))
(<= (next (taken ?i)) (does picker (take ?i)))
(<= (next (taken ?i)) (true (taken ?i)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 3)))
(<= (goal picker 100) (true (taken 7)) (true (taken 3)))
(<= (goal picker 0) (not (true (taken 7))))
(<= (goal picker 0) (true (taken 7)) (not (true (taken 3))))
"""
