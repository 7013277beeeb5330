"""Sokoban levels as one-player GDL games: level files, optimal solvers, difficulty, generation.

Modules: :mod:`.level` (text format), :mod:`.moves` (playing LURD solutions), :mod:`.solver`
(push- and move-optimal search), :mod:`.metrics` (PSH, LEN, fill), :mod:`.generator` (SYM-style
reverse play), :mod:`.methods` (the generator registry: SYM, PDB, MCTS, PPO) and :mod:`.to_gdl`
(translation to a :class:`~ggp.gdl.terms.Description`).
"""
