"""Agreement of scores with human labels, by label kind, as `judgegraph calibrate` reports it.

Binary labels: AUROC (threshold-free ranking) and balanced accuracy at a threshold chosen on
the training folds only; graded labels: Spearman; ordinal scales: Cohen's kappa of the score
mapped onto the scale's levels. The primary figure (AUROC, Spearman, kappa) is what a fit
maximises and what the learning curve shows. Labels are "higher = better" (faithful = 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from ..stats import auroc, balanced_accuracy, best_threshold, cohen_kappa, spearman
from ..stats.resampled import auroc_over, balanced_accuracy_over, cohen_kappa_over, spearman_over
from .labels import LabelKind

PRIMARY = {"binary": "auroc", "graded": "spearman", "ordinal": "kappa"}


def to_levels(scores: Sequence[float], levels: Sequence[float]) -> list[int]:
    """Scores in 0..1 onto the label scale's whole steps (round half up)."""
    low, high = min(levels), max(levels)
    return [int(Decimal(str(low + s * (high - low))).quantize(Decimal(1), ROUND_HALF_UP)) for s in scores]


def primary(scores: Sequence[float], labels: Sequence[float], kind: LabelKind,
            levels: Sequence[float] = (0.0, 1.0)) -> float | None:
    """The kind's primary agreement figure; None where undefined."""
    if kind == "binary":
        return auroc(scores, [label == 1.0 for label in labels])
    if kind == "graded":
        return spearman(scores, labels)
    return cohen_kappa(to_levels(scores, levels), [int(label) for label in labels])


def primary_over(drawn: np.ndarray, scores: Sequence[float], labels: Sequence[float], kind: LabelKind,
                 levels: Sequence[float] = (0.0, 1.0)) -> np.ndarray:
    """`primary` on every bootstrap resample at once (a row of unit indices per resample;
    NaN where undefined: `stats.resampled`)."""
    if kind == "binary":
        return auroc_over(drawn, scores, [label == 1.0 for label in labels])
    if kind == "graded":
        return spearman_over(drawn, scores, labels)
    return cohen_kappa_over(drawn, to_levels(scores, levels), [int(label) for label in labels])


def failure_threshold(scores: Sequence[float], labels: Sequence[float]) -> float | None:
    """Binary labels: the threshold t of "flag a failure iff score < t" with the best balanced
    accuracy on these (training) items."""
    threshold, _ = best_threshold(scores, [label == 0.0 for label in labels])
    return threshold


def flagged_balanced_accuracy(flags: Sequence[bool], labels: Sequence[float]) -> float | None:
    return balanced_accuracy(flags, [label == 0.0 for label in labels])


def flagged_balanced_accuracy_over(drawn: np.ndarray, flags: Sequence[bool], labels: Sequence[float]) -> np.ndarray:
    """`flagged_balanced_accuracy` on every bootstrap resample at once."""
    return balanced_accuracy_over(drawn, flags, [label == 0.0 for label in labels])
