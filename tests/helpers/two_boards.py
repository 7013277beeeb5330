"""A game made of two independent boards, for the factored search's tests (issue 41, item 2)."""

from __future__ import annotations

TWO_BOARDS = """
(role x) (role o)
(index 1) (index 2) (index 3)
(board 1) (board 2)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8) (succ 8 9)
(init (control x 1)) (init (control o 2)) (init (step 0))
(<= (init (cell ?m ?n ?b b)) (index ?m) (index ?n) (board ?b))
(<= (legal ?r (mark ?m ?n ?b)) (true (control ?r ?b)) (true (cell ?m ?n ?b b)))
(<= (next (cell ?m ?n ?b ?r)) (does ?r (mark ?m ?n ?b)))
(<= (next (cell ?m ?n ?b ?c)) (true (cell ?m ?n ?b ?c)) (distinct ?c b))
(<= (next (cell ?m ?n ?b b)) (true (cell ?m ?n ?b b)) (not (marked ?m ?n ?b)))
(<= (marked ?m ?n ?b) (does ?r (mark ?m ?n ?b)))
(<= (next (control x ?b)) (true (control o ?b)))
(<= (next (control o ?b)) (true (control x ?b)))
(<= (next (step ?k)) (true (step ?j)) (succ ?j ?k))
(<= (line ?r) (board ?b) (index ?m) (true (cell ?m 1 ?b ?r)) (true (cell ?m 2 ?b ?r)) (true (cell ?m 3 ?b ?r)))
(<= (line ?r) (board ?b) (index ?n) (true (cell 1 ?n ?b ?r)) (true (cell 2 ?n ?b ?r)) (true (cell 3 ?n ?b ?r)))
(<= (line ?r) (board ?b) (true (cell 1 1 ?b ?r)) (true (cell 2 2 ?b ?r)) (true (cell 3 3 ?b ?r)))
(<= (line ?r) (board ?b) (true (cell 1 3 ?b ?r)) (true (cell 2 2 ?b ?r)) (true (cell 3 1 ?b ?r)))
(<= terminal (line x))
(<= terminal (line o))
(<= terminal (true (step 9)))
(<= (goal x 100) (line x) (not (line o)))
(<= (goal x 50) (line x) (line o))
(<= (goal x 50) (not (line x)) (not (line o)))
(<= (goal x 0) (line o) (not (line x)))
(<= (goal o 100) (line o) (not (line x)))
(<= (goal o 50) (line x) (line o))
(<= (goal o 50) (not (line x)) (not (line o)))
(<= (goal o 0) (line x) (not (line o)))
"""
"""Two tic-tac-toe boards played at once: each turn one player marks one board while the other marks the
other, and they swap boards every turn (as connectFourSimultaneous's two connect-four boards); the first
line on either board wins, nine turns fill both. The step counter changes by itself, whatever is played."""
