"""The fast path: a game's ground program compiled to a Boolean circuit, evaluated 64 states per word.

See :mod:`~ggp.reasoner.circuit.machine` for the StateMachine and batch API, and docs/fastpath.md.
"""

from ggp.reasoner.circuit.budget import CompileBudget
from ggp.reasoner.circuit.errors import CircuitError, CircuitTooLargeError, CompileBudgetError
from ggp.reasoner.circuit.machine import CircuitStateMachine, PlayoutSummary, make_fast_machine

__all__ = [
    "CircuitError", "CircuitStateMachine", "CircuitTooLargeError", "CompileBudget", "CompileBudgetError", "PlayoutSummary",
    "make_fast_machine",
]
