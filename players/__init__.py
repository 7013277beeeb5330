"""Game players: random, legal, flat Monte Carlo, MCTS (UCT) and alpha-beta, one module each.

Players depend only on :mod:`ggp.player`, the StateMachine protocol and :mod:`ggp.gdl.terms`.
:mod:`ggp.players.registry` maps type names (``mcts:iterations=200``) to constructors for the CLI.
"""
