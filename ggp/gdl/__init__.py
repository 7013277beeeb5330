"""GDL front end: terms, the KIF parser and printer, and the static validator (with its dependency graphs).

This package maps text to objects and back; it never imports clingo or aiohttp and never reads
files (callers pass text and a file name for messages).
"""

from ggp.gdl.parser import parse_kif, parse_literal, parse_term
from ggp.gdl.printer import rule_to_kif, to_kif
from ggp.gdl.terms import (
    KEYWORD_ARITIES,
    KEYWORDS,
    RESERVED,
    Atom,
    Const,
    Description,
    Distinct,
    Func,
    Literal,
    Not,
    Or,
    Rule,
    Term,
    Var,
)

__all__ = [
    "KEYWORDS", "KEYWORD_ARITIES", "RESERVED",
    "Atom", "Const", "Description", "Distinct", "Func", "Literal", "Not", "Or", "Rule", "Term", "Var",
    "parse_kif", "parse_literal", "parse_term", "rule_to_kif", "to_kif",
]
