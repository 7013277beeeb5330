"""Hand-made Sokoban levels with their optimal counts, shared by the Sokoban tests.

L1-L3 are the specification's test levels (section 4, values from BFS and a clingo horizon check).
H1 and H2 are ours, counted by hand:

- H1: one walk step right, then two pushes right: 3 moves, 2 pushes.
- H2: the box needs 2 pushes right and 1 up (Manhattan distance 3, so 3 pushes at least). Every
  first push needs one walk step first, and turning from one push direction to a perpendicular one
  needs 2 walk steps (from behind the box on one side to behind it on the other), so at least
  3 + 1 + 2 = 6 moves, reached by ``uRRdrU``.
- DEAD: the box sits in a corner off its goal, so the level has no solution.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    name: str
    text: str
    moves: int
    pushes: int
    width: int
    height: int


L1 = Known("L1", "#####\n#@$.#\n#####\n", 1, 1, 5, 3)
L2 = Known("L2", "######\n#    #\n# $$ #\n# .. #\n#  @ #\n######\n", 9, 2, 6, 6)
L3 = Known("L3", "####\n# .#\n#  ###\n#*@  #\n#  $ #\n#  ###\n####\n", 33, 8, 6, 7)
H1 = Known("H1", "#######\n#@ $ .#\n#######\n", 3, 2, 7, 3)
H2 = Known("H2", "######\n#   .#\n# $  #\n#@   #\n######\n", 6, 3, 6, 5)

KNOWN = (L1, L2, L3, H1, H2)

DEAD = "#####\n#$ .#\n#@  #\n#####\n"
