"""How well scores rank positives above negatives, whatever threshold would be used.

AUROC over all items; pairwise accuracy within given pairs (e.g. MS MARCO's relevant and
irrelevant passage for the same query), where each pair is a comparison of its own.
"""

from __future__ import annotations

from collections.abc import Sequence


def auroc(scores: Sequence[float], positives: Sequence[bool]) -> float | None:
    """P(a positive scores above a negative), a tie counting 1/2; None unless both classes occur."""
    labels = [bool(p) for p in positives]
    if len(set(labels)) < 2:
        return None
    from sklearn.metrics import roc_auc_score  # scikit-learn loads only when a figure is asked for

    return float(roc_auc_score(labels, list(scores)))


def pairwise_accuracy(pairs: Sequence[tuple[float, float]]) -> float | None:
    """Share of (positive, negative) pairs where the positive scores higher; a tie counts 1/2."""
    if not pairs:
        return None
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)
