"""One log line per match instead of one per move: a tally of a match's repeated troubles.

A demo's play clock of 1 s on a loaded machine makes searches overrun on most moves; a WARNING per move
(479 lines in 33 minutes of ``ggp demo``) hides everything else. Each move's line goes to INFO (``-v``
shows it) and the match's end logs one WARNING with the counts.
"""

from __future__ import annotations

from collections import Counter


class Tally:
    """Counts of short reasons (``"search overran the play clock"``, ``"white (legal) TO"``), in first-seen order.

    >>> tally = Tally()
    >>> for why in ("TO", "IL nil", "TO"):
    ...     tally.add(why)
    >>> tally.summary()
    '3 moves: 2 x TO, 1 x IL nil'
    >>> Tally().summary()
    ''
    """

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def add(self, why: str) -> None:
        """Count one more move that had trouble ``why``."""
        self.counts[why] += 1

    def summary(self) -> str:
        """``"N moves: k x why, ..."`` most frequent first (ties in first-seen order), or ``""`` for none."""
        if not self.counts:
            return ""
        total = sum(self.counts.values())
        parts = ", ".join(f"{count} x {why}" for why, count in self.counts.most_common())
        return f"{total} move{'s' if total != 1 else ''}: {parts}"
