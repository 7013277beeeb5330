"""Ludii's game metrics (Ludeme/Ludii, ``Evaluation/src/metrics``) computed on recorded GDL plays.

- :mod:`~ggp.evaluation.ludii.trace`: the compact per-play record (legal-move counts, board occupancy,
  position ids, move distances, scores, state evaluations) and how a worker observes it from a play;
- :mod:`~ggp.evaluation.ludii.single`: the single metrics (outcome, duration, state repetition,
  complexity, board coverage, state evaluation);
- :mod:`~ggp.evaluation.ludii.families`: the nine multi-metric families and their eleven aggregates;
- :mod:`~ggp.evaluation.ludii.catalogue`: every metric under its Ludii name with its group, Browne's
  group, range and source file, and :func:`~ggp.evaluation.ludii.catalogue.measure` (values, n/a with
  reasons, intervals);
- :mod:`~ggp.evaluation.ludii.intrinsic`: Browne's intrinsic criteria, from the rules alone.

Definitions are re-stated from Ludii's sources, not copied; docs/evaluation.md has the per-metric table.
"""
