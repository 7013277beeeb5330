"""The choice of a circuit's evaluator: compiled C when a compiler is found, interpreted C for huge
circuits, numpy without a compiler (:func:`make_evaluator`); the interface is :mod:`.evaluator`."""

from __future__ import annotations

import logging
from pathlib import Path

from ggp.errors import ReasonerError
from ggp.native import find_compiler
from ggp.reasoner.circuit.build import Circuit
from ggp.reasoner.circuit.evaluator import Evaluator, EvaluatorKind
from ggp.reasoner.circuit.native_evaluator import CEvaluator, InterpretedEvaluator, compiled_is_cached
from ggp.reasoner.circuit.numpy_evaluator import NumpyEvaluator

log = logging.getLogger(__name__)


INTERPRET_MIN_LITERALS = 1_500_000
"""Above this many circuit literals ``auto`` interprets instead of compiling at all (even an
unoptimised build of 8x8 chess, 115,563 literals, takes about 5 s)."""


def make_evaluator(circuit: Circuit, kind: EvaluatorKind = "auto", directory: Path | None = None) -> Evaluator:
    """An evaluator of ``circuit``; ``auto`` compiles to C when a compiler is found, else uses numpy.

    ``auto`` compiles circuits over :data:`COMPILE_MAX_LITERALS` without optimisation and interprets
    those over :data:`INTERPRET_MIN_LITERALS`. ``c`` and ``interpreter`` need a
    C compiler (:class:`ReasonerError` without one); ``numpy`` never does.
    """
    if kind == "numpy":
        log.info("circuit evaluator: numpy (requested)")
        return NumpyEvaluator(circuit)
    compiler = find_compiler()
    if compiler is None:
        if kind != "auto":
            raise ReasonerError("no c compiler found (tried $CC, cc, gcc, clang)")
        log.warning("circuit evaluator: numpy (no c compiler found)")
        return NumpyEvaluator(circuit)
    evaluator: CEvaluator | InterpretedEvaluator
    if kind == "auto" and circuit.size()[1] > INTERPRET_MIN_LITERALS:
        log.info("circuit of %d literals: interpreting it rather than compiling", circuit.size()[1])
        kind = "interpreter"
    try:
        if kind == "interpreter":
            evaluator = InterpretedEvaluator(circuit, compiler, directory)
        else:
            evaluator = CEvaluator(circuit, compiler, directory)
    except ReasonerError as exc:
        if kind != "auto":
            raise
        log.warning("circuit evaluator: numpy (%s)", exc)
        return NumpyEvaluator(circuit)
    log.info("circuit evaluator: %s (%s, %s)", evaluator.name, compiler[1], "cached" if evaluator.cached else "compiled")
    return evaluator


def compiler_would_run(circuit: Circuit, directory: Path | None = None) -> bool:
    """True when ``auto`` (:func:`make_evaluator`) would run the C compiler on ``circuit`` now: a compiler
    exists, the circuit is compiled rather than interpreted, and its library is not in the cache. A player
    plays on the interpreter meanwhile (seconds to minutes for a large game at ``-O2``)."""
    compiler = find_compiler()
    if compiler is None or circuit.size()[1] > INTERPRET_MIN_LITERALS:
        return False
    return not compiled_is_cached(circuit, compiler, directory)
