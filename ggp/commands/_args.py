"""Argument types shared by the ``ggp`` subcommands: each turns bad text into one argparse error line.

>>> positive_int("3"), non_negative_int("0"), positive_float("0.5"), size_arg("8x6")
(3, 0, 0.5, (8, 6))
>>> positive_int("0")
Traceback (most recent call last):
argparse.ArgumentTypeError: expected a whole number >= 1, got '0'
"""

from __future__ import annotations

import argparse
import re


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    return _whole(text, 1)


def non_negative_int(text: str) -> int:
    """A whole number >= 0."""
    return _whole(text, 0)


def positive_float(text: str) -> float:
    """A number > 0 (not NaN)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def size_arg(text: str) -> tuple[int, int]:
    """``WxH`` (e.g. ``8x8``) as a pair of whole numbers."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected WxH such as 8x8, got {text!r}")
    return int(match.group(1)), int(match.group(2))
