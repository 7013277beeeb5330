"""Game generation and evolution: chess-like games under the RAPP restrictions, their evolution by
RAPP fitness, and the f_NLD natural-language complexity of their pieces.

It sits above the translators, the players and the evaluation (it plays games to score them), so it
lives in ``ggp`` itself rather than under ``ggp.translators``.
"""
