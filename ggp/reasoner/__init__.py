"""Reasoners: the StateMachine protocol, the clingo backend and the compiled fast path.

Only this package imports clingo, and no ``clingo.Symbol`` leaves it.
"""

from ggp.reasoner.machine import JointMove, Move, Role, State, StateMachine

__all__ = ["JointMove", "Move", "Role", "State", "StateMachine"]
