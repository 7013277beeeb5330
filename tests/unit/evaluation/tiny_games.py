"""Tiny KIF games for the evaluation tests: a playable Nim and three games that cannot be played."""

from __future__ import annotations

_MINUS = " ".join(f"(minus {n} {k} {n - k})" for n in range(1, 8) for k in (1, 2) if n - k >= 0)

NIM = f"""
(role white) (role black)
(init (pile 7)) (init (control white))
{_MINUS}
(<= (legal ?p (take ?k)) (true (control ?p)) (true (pile ?n)) (minus ?n ?k ?m))
(<= (legal white noop) (true (control black)))
(<= (legal black noop) (true (control white)))
(<= (next (pile ?m)) (does ?p (take ?k)) (true (pile ?n)) (minus ?n ?k ?m))
(<= (next (control black)) (true (control white)))
(<= (next (control white)) (true (control black)))
(<= (next (last ?p)) (does ?p (take ?k)))
(<= terminal (true (pile 0)))
(<= (goal ?p 100) (true (last ?p)))
(<= (goal ?p 0) (role ?p) (not (true (last ?p))))
"""
"""Nim with 7 stones, take 1 or 2, whoever takes the last stone wins (white wins with perfect play)."""

NO_LEGAL_MOVE = """
(role white) (role black)
(init (control white))
(<= (legal white go) (true (control black)))
(<= (legal black noop) (true (control white)))
(<= (next (control black)) (true (control white)))
(<= terminal (true (control black)))
(<= (goal ?p 50) (role ?p))
"""
"""White has no legal move in the initial state."""

ENDLESS = """
(role white) (role black)
(init (control white))
(<= (legal ?p go) (role ?p))
(<= (next (control white)) (true (control white)))
(<= terminal (true (over)))
(<= (goal ?p 50) (role ?p))
"""
"""Nothing ever makes the game terminal."""

MISSING_GOAL = """
(role white) (role black)
(init (control white))
(<= (legal ?p go) (role ?p))
(<= (next (done)) (true (control white)))
(<= terminal (true (done)))
(<= (goal white 100) (true (done)))
"""
"""Ends after one step, but black never gets a goal value."""
