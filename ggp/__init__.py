"""ggp: a General Game Playing toolkit.

Reads and validates GDL (KIF) games, reasons about them with clingo, plays them over the
Stanford GGP protocol, and evaluates game quality by self-play.
"""

__version__ = "0.1.0"
