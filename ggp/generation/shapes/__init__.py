"""Generated piece shapes for SBG games (Żarczyński's thesis, ch. 4): one SVG outline per piece type.

The pipeline: strategic metrics of each piece (:mod:`.strategic`) -> a target visual vector made of the
chess silhouettes' visual metrics (:mod:`.mapping`, :mod:`.base_set`, :mod:`.visual`) -> an evolved
outline near that target and unlike the game's other pieces (:mod:`.evolution`) -> SVG files, both
colours, and an HTML contact sheet (:mod:`.files`). See docs/shapes.md.

>>> from ggp.generation.shapes.base_set import CHESS
>>> pieces = piece_shapes(CHESS, "individual", seed=1, params=EvolutionParams(population=4, generations=1))
>>> [piece.letter for piece in pieces]
['B', 'K', 'N', 'P', 'Q', 'R']
"""

from __future__ import annotations

from dataclasses import dataclass

from ggp.generation.shapes.evolution import VARIANTS, EvolutionParams, Variant, evolve
from ggp.generation.shapes.mapping import Target, map_to_targets
from ggp.generation.shapes.outline import Shape
from ggp.generation.shapes.strategic import StrategicMetrics, strategic_metrics
from ggp.translators.sbg.model import SbgGame

__all__ = ["VARIANTS", "EvolutionParams", "PieceShape", "Variant", "piece_shapes"]


@dataclass(frozen=True, slots=True)
class PieceShape:
    """One piece type's generated outline with what led to it."""

    letter: str
    """Upper-case SBG letter."""
    count: int
    """Pieces of this type on the initial board (both sides)."""
    strategic: StrategicMetrics
    target: Target
    shape: Shape


def piece_shapes(game: SbgGame, variant: Variant = "two-stage", seed: int = 0,
                 params: EvolutionParams | None = None) -> list[PieceShape]:
    """An outline for every piece type on the initial board, by letter; deterministic for a seed.
    Raises :class:`~ggp.errors.InputError` for an unknown variant."""
    metrics = strategic_metrics(game)
    targets = map_to_targets(metrics)
    shapes = evolve(targets, variant, seed, params)
    counts = {letter: sum(ch.upper() == letter for _, _, ch in game.pieces()) for letter in metrics}
    return [PieceShape(letter, counts[letter], metrics[letter], targets[letter], shapes[letter]) for letter in metrics]
