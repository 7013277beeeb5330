"""The fast path: a game's ground program compiled to a Boolean circuit, evaluated 64 states per word.

See :mod:`~ggp.reasoner.circuit.machine` for the StateMachine and batch API, and docs/fastpath.md.
"""

from ggp.reasoner.circuit.extract import CircuitError, CircuitTooLargeError
from ggp.reasoner.circuit.machine import CircuitStateMachine, PlayoutSummary, make_fast_machine

__all__ = ["CircuitError", "CircuitStateMachine", "CircuitTooLargeError", "PlayoutSummary", "make_fast_machine"]
