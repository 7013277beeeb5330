"""Simplified Boardgames (SBG): parser, printer, NFA move search, reference engine and GDL translator.

See ``/work/shared/spec/sbg.md`` (the team's SBG spec) for the format and every decision taken.
"""

from ggp.translators.sbg.engine import SbgEngine, SbgState
from ggp.translators.sbg.machine import SbgStateMachine
from ggp.translators.sbg.model import SbgGame, SbgWarning
from ggp.translators.sbg.parser import parse_sbg
from ggp.translators.sbg.printer import to_sbg

__all__ = ["SbgEngine", "SbgGame", "SbgState", "SbgStateMachine", "SbgWarning", "parse_sbg", "to_sbg"]
