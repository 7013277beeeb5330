"""The project's error tree and source positions.

Every error raised on purpose descends from :class:`GgpError`. Errors caused by bad input are also
``ValueError`` and print as ``file:line:column: message`` when a position is known.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourcePos:
    """A 1-based line and column in a named source (a file path or ``<string>``)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class GgpError(Exception):
    """Base of every error this project raises on purpose."""


class InputError(GgpError, ValueError):
    """Bad input: carries a message and, where known, the position of the offending text."""

    def __init__(self, message: str, pos: SourcePos | None = None) -> None:
        super().__init__(f"{pos}: {message}" if pos else message)
        self.message = message
        self.pos = pos


class GdlError(InputError):
    """A problem with a GDL description."""


class GdlSyntaxError(GdlError):
    """KIF text that cannot be read as GDL."""


class GdlValidationError(GdlError):
    """A description that parses but breaks a GDL restriction."""


class ReasonerError(GgpError):
    """The reasoner cannot answer: grounding limits hit, illegal joint move, no answer set."""


class NotStratifiedError(ReasonerError):
    """The game's ground program has a cycle through negation (no unique answer set): no engine can give
    it one meaning, so engine fallbacks do not apply."""


class IllegalMoveError(ReasonerError, ValueError):
    """A joint move that is not legal in the given state."""


class ProtocolError(InputError):
    """A GGP protocol message that cannot be parsed or is not allowed here."""


class SbgError(InputError):
    """A malformed Simplified Boardgames file."""


class SokobanError(InputError):
    """A malformed Sokoban level."""
