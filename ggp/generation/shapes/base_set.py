"""The base set (§4.1.4): six chess silhouettes drawn for this project as SVG paths on a 200x200 canvas.

They anchor the mapping: a piece whose strategic metrics equal a chess piece's gets that piece's visual
metrics as its target, and the evolution starts from mutated copies of them. Five are symmetric (the
path is the right half, from the top of the axis down to the bottom of it); the knight is drawn whole,
facing left.

>>> sorted(BASE_SET)
['B', 'K', 'N', 'P', 'Q', 'R']
>>> from ggp.generation.shapes.outline import to_geometry
>>> all(to_geometry(shape) is not None for shape in BASE_SET.values())
True
"""

from __future__ import annotations

from types import MappingProxyType

from ggp.generation.shapes.outline import Shape, parse_path
from ggp.translators.sbg.model import SbgGame
from ggp.translators.sbg.parser import parse_sbg

_PATHS = {
    # A round head on a short neck, a collar, a flared foot.
    "P": ("M100 40C122 40 134 58 128 76C125 86 119 92 112 96L126 104L118 112C122 136 134 154 148 162"
          "L150 178L100 178", True),
    # Three merlons, a straight tower, a wide foot.
    "R": ("M100 30L110 30L110 46L124 46L124 30L146 30L146 62L132 72L134 140L150 156L154 178L100 178", True),
    # A ball on a pointed mitre, a collar, a slim body.
    "B": ("M100 20C110 20 112 32 105 36C126 52 136 78 126 100L112 110L126 116L114 124C120 146 136 158 146 166"
          "L148 178L100 178", True),
    # A horse's head: ears, brow, muzzle, the throat cut back, a mane down to the foot.
    "N": ("M62 178L154 178L150 160C142 150 138 138 140 118C144 86 148 60 124 38L112 22L102 36C82 42 62 62 48 86"
          "L42 102C48 114 60 116 72 106C82 100 92 98 100 94C98 114 82 132 72 150L60 162Z", False),
    # A crown of three spikes, a waist, a flared foot.
    "Q": ("M100 22L112 58L130 30L134 64L160 42L146 96L128 104C126 130 134 150 148 162L152 178L100 178", True),
    # A cross on a dome, a collar, a flared foot.
    "K": ("M100 12L106 12L106 24L118 24L118 34L106 34L106 44C132 46 148 62 138 86L126 104L136 110L124 118"
          "C126 140 136 156 150 164L152 178L100 178", True),
}

BASE_SET: MappingProxyType[str, Shape] = MappingProxyType(
    {letter: parse_path(data, symmetric) for letter, (data, symmetric) in _PATHS.items()})
"""Chess letter (P, N, B, R, Q, K) -> its silhouette."""


CHESS_SBG = """<<Simplified chess>>
<BOARD> 8 8
|rnbqkbnr|
|pppppppp|
|........|
|........|
|........|
|........|
|PPPPPPPP|
|RNBQKBNR|
<PIECES>
P (0,1,e) + (-1,1,p) + (1,1,p) &
N (1,2,e) + (1,2,p) + (2,1,e) + (2,1,p) + (2,-1,e) + (2,-1,p) + (1,-2,e) + (1,-2,p) + (-1,-2,e) +
  (-1,-2,p) + (-2,-1,e) + (-2,-1,p) + (-2,1,e) + (-2,1,p) + (-1,2,e) + (-1,2,p) &
B (1,1,e)^*((1,1,e) + (1,1,p)) + (1,-1,e)^*((1,-1,e) + (1,-1,p)) + (-1,1,e)^*((-1,1,e) + (-1,1,p)) +
  (-1,-1,e)^*((-1,-1,e) + (-1,-1,p)) &
R (1,0,e)^*((1,0,e) + (1,0,p)) + (-1,0,e)^*((-1,0,e) + (-1,0,p)) + (0,1,e)^*((0,1,e) + (0,1,p)) +
  (0,-1,e)^*((0,-1,e) + (0,-1,p)) &
Q (1,0,e)^*((1,0,e) + (1,0,p)) + (-1,0,e)^*((-1,0,e) + (-1,0,p)) + (0,1,e)^*((0,1,e) + (0,1,p)) +
  (0,-1,e)^*((0,-1,e) + (0,-1,p)) + (1,1,e)^*((1,1,e) + (1,1,p)) + (1,-1,e)^*((1,-1,e) + (1,-1,p)) +
  (-1,1,e)^*((-1,1,e) + (-1,1,p)) + (-1,-1,e)^*((-1,-1,e) + (-1,-1,p)) &
K (1,0,e) + (1,0,p) + (-1,0,e) + (-1,0,p) + (0,1,e) + (0,1,p) + (0,-1,e) + (0,-1,p) + (1,1,e) +
  (1,1,p) + (1,-1,e) + (1,-1,p) + (-1,1,e) + (-1,1,p) + (-1,-1,e) + (-1,-1,p) &
<GOALS> 200 &
@P 0 7, 1 7, 2 7, 3 7, 4 7, 5 7, 6 7, 7 7 &
@p 0 0, 1 0, 2 0, 3 0, 4 0, 5 0, 6 0, 7 0 &
#K 0 &
#k 0 &
"""
"""The thesis's simplified chess (no double step, a pawn reaching the last row wins): the game whose
pieces the base set draws, so the mapping compares a game's pieces with these."""

CHESS: SbgGame = parse_sbg(CHESS_SBG, "simplified_chess.sbg")
