"""One match loop for every caller: the arena, self-play and the manager (docs/matches.md).

:mod:`~ggp.match.rules` holds the rules (step cap, fallbacks, chance, end reasons),
:mod:`~ggp.match.referee` every reasoner call of a match, :mod:`~ggp.match.loop` the loop over
seats, and :mod:`~ggp.match.local` the in-process transport (player objects); the manager supplies
the HTTP transport (:class:`ggp.manager.runner.HttpSeat`).
"""
