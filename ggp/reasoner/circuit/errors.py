"""Why a game is not compiled to a circuit: the errors the compiler raises (one line each)."""

from __future__ import annotations

from ggp.errors import ReasonerError


class CircuitError(ReasonerError):
    """The game cannot be compiled to a circuit (over its budget, unstratified, unsupported rules)."""


class CircuitTooLargeError(CircuitError):
    """The ground program has more rules than the node limit: the signal to ground it again with its rule
    bodies split (:func:`~ggp.reasoner.circuit.extract.ground_program`); never the reason a game is refused."""


class CompileBudgetError(CircuitError):
    """Compiling the game spent more CPU time or memory than its
    :class:`~ggp.reasoner.circuit.budget.CompileBudget`; the message names the budget and the figure reached."""
