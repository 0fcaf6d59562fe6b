"""Correlation of judge scores with human scores (e.g. STS-B similarity ratings).

Spearman first: a judge's scores need only rank items as people do, not share their scale.
A constant series has no correlation: None, not 0 and not NaN.
"""

from __future__ import annotations

from collections.abc import Sequence

from scipy.stats import pearsonr, spearmanr


def _defined(x: Sequence[float], y: Sequence[float]) -> bool:
    return len(x) == len(y) and len(set(x)) >= 2 and len(set(y)) >= 2


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's linear correlation."""
    if not _defined(x, y):
        return None
    return float(pearsonr(list(x), list(y)).statistic)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (Pearson's on the ranks, ties sharing their mean rank)."""
    if not _defined(x, y):
        return None
    return float(spearmanr(list(x), list(y)).statistic)
