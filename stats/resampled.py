"""Agreement figures over every bootstrap resample at once, with numpy.

Why: `judgegraph calibrate` puts a bootstrap interval on each of its figures, and calling
scikit-learn once per resample costs milliseconds of input checks per call (about 13,000 calls
for one report), which is nearly all of a refit's time. Here a resample is a row of a draws
matrix (`draws`: the same seeded sequence `stats.bootstrap` resamples with), and each figure is
computed for all rows in a few array operations.

The figures are those of `stats.classification`, `stats.ranking` and `stats.correlation`, on
the same conventions: a figure undefined on a resample (one class drawn out, a constant series)
is NaN here, and `interval_over` drops it as `bootstrap_interval` drops a None, so no NaN ever
leaves this module. The tests check each figure against scikit-learn's / SciPy's, resample by
resample.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache

import numpy as np

from .bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED, percentile_interval, resample_draws

Figures = Callable[[np.ndarray], np.ndarray]
"""A figure over a draws matrix (one row of unit indices per resample): one value per row,
NaN where the figure is undefined on that resample."""


@lru_cache(maxsize=8)
def _draws(units: int, resamples: int, seed: int) -> np.ndarray:
    matrix = np.array(resample_draws(units, resamples, seed), dtype=np.intp).reshape(resamples, units)
    matrix.setflags(write=False)
    return matrix


def draws(units: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """The (resamples, units) matrix of the unit indices each resample draws (read-only)."""
    return _draws(units, resamples, seed)


def whole(units: int) -> np.ndarray:
    """The one "resample" that is the sample itself, for the point value of a figure."""
    return np.arange(units, dtype=np.intp).reshape(1, units)


def counts(drawn: np.ndarray, units: int) -> np.ndarray:
    """(resamples, units): how many times each unit is drawn in each resample."""
    rows = drawn.shape[0]
    offsets = (drawn + units * np.arange(rows, dtype=np.intp)[:, None]).ravel()
    return np.bincount(offsets, minlength=rows * units).reshape(rows, units).astype(np.float64)


def interval_over(figure: Figures, units: int, *, resamples: int = DEFAULT_RESAMPLES,
                  confidence: float = DEFAULT_CONFIDENCE, seed: int = DEFAULT_SEED) -> tuple[float, float] | None:
    """`stats.bootstrap_interval` for a figure computed over all resamples at once."""
    if units == 0:
        return None
    values = figure(draws(units, resamples, seed))
    return percentile_interval(values[~np.isnan(values)].tolist(), resamples, confidence)


def paired_interval_over(baseline: Figures, candidate: Figures, units: int, *,
                         resamples: int = DEFAULT_RESAMPLES, confidence: float = DEFAULT_CONFIDENCE,
                         seed: int = DEFAULT_SEED) -> tuple[float, float] | None:
    """`stats.paired_bootstrap_interval` (candidate - baseline on the same resamples)."""
    return interval_over(lambda drawn: candidate(drawn) - baseline(drawn), units,
                         resamples=resamples, confidence=confidence, seed=seed)


def point_value(figure: Figures, units: int) -> float | None:
    """The figure on the sample itself; None where undefined."""
    value = float(figure(whole(units))[0])
    return None if np.isnan(value) else value


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def auroc_over(drawn: np.ndarray, scores: Sequence[float], positives: Sequence[bool]) -> np.ndarray:
    """`stats.ranking.auroc` per resample: P(a drawn positive scores above a drawn negative), a
    tie counting 1/2, as the Mann-Whitney count over the units' pairs weighted by how often
    each unit is drawn (exact in floating point: the counts and weights are small integers and
    halves); NaN unless both classes are drawn."""
    values = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positives, dtype=bool)
    n = len(values)
    drawn_counts = counts(drawn, n)
    wins = (values[:, None] > values[None, :]) + 0.5 * (values[:, None] == values[None, :])
    on_positives, on_negatives = drawn_counts * positive, drawn_counts * ~positive
    won = np.einsum("ri,ij,rj->r", on_positives, wins, on_negatives)
    return _ratio(won, on_positives.sum(axis=1) * on_negatives.sum(axis=1))


def balanced_accuracy_over(drawn: np.ndarray, predicted: Sequence[bool], actual: Sequence[bool]) -> np.ndarray:
    """`stats.classification.balanced_accuracy` per resample (mean of the true-negative and
    true-positive rates, in scikit-learn's order); NaN unless `actual` has both classes drawn."""
    flag = np.asarray(predicted, dtype=bool)
    truth = np.asarray(actual, dtype=bool)
    drawn_counts = counts(drawn, len(truth))
    positives, negatives = (drawn_counts * truth).sum(axis=1), (drawn_counts * ~truth).sum(axis=1)
    caught, cleared = (drawn_counts * (truth & flag)).sum(axis=1), (drawn_counts * (~truth & ~flag)).sum(axis=1)
    both = (positives > 0) & (negatives > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(both, (cleared / negatives + caught / positives) / 2, np.nan)


def mean_squared_error_over(drawn: np.ndarray, scores: Sequence[float], labels: Sequence[float]) -> np.ndarray:
    """The mean of (score - label)^2 over each resample's draws (the Brier score of binary
    labels), summed in draw order as Python's `sum` does; NaN for an empty sample."""
    squares = (np.asarray(scores, dtype=np.float64) - np.asarray(labels, dtype=np.float64)) ** 2
    gathered = squares[drawn] if len(squares) else np.zeros(drawn.shape)
    total = np.zeros(drawn.shape[0])
    for column in range(drawn.shape[1]):  # one vector add per draw: the order of `sum(...)`
        total = total + gathered[:, column]
    return total / drawn.shape[1] if drawn.shape[1] else np.full(drawn.shape[0], np.nan)


def mean_over(drawn: np.ndarray, values: Sequence[float]) -> np.ndarray:
    """The mean of per-unit values over each resample's draws (e.g. pairwise accuracy, whose
    units are pairs worth 1, 1/2 or 0: exact in any order); NaN for an empty sample."""
    if not drawn.shape[1]:
        return np.full(drawn.shape[0], np.nan)
    return np.asarray(values, dtype=np.float64)[drawn].sum(axis=1) / drawn.shape[1]


def spearman_over(drawn: np.ndarray, x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """`stats.correlation.spearman` per resample (Pearson's on the mean ranks); NaN where either
    drawn series is constant."""
    from scipy.stats import rankdata

    if not drawn.shape[1]:
        return np.full(drawn.shape[0], np.nan)
    xs, ys = np.asarray(x, dtype=np.float64)[drawn], np.asarray(y, dtype=np.float64)[drawn]
    defined = (xs.min(axis=1) < xs.max(axis=1)) & (ys.min(axis=1) < ys.max(axis=1))
    rank_x, rank_y = rankdata(xs, axis=1), rankdata(ys, axis=1)
    centred_x = rank_x - rank_x.mean(axis=1, keepdims=True)
    centred_y = rank_y - rank_y.mean(axis=1, keepdims=True)
    spread = np.sqrt((centred_x ** 2).sum(axis=1) * (centred_y ** 2).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.clip((centred_x * centred_y).sum(axis=1) / spread, -1.0, 1.0)
    return np.where(defined, rho, np.nan)


def cohen_kappa_over(drawn: np.ndarray, first: Sequence[Hashable], second: Sequence[Hashable]) -> np.ndarray:
    """`stats.classification.cohen_kappa` per resample (unweighted, scikit-learn's formula over
    the resample's confusion matrix); NaN where one label is all both raters give."""
    labels = sorted(set(first) | set(second), key=repr)
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    if k < 2:
        return np.full(drawn.shape[0], np.nan)
    cells = np.zeros((len(first), k * k))
    cells[np.arange(len(first)), [index[a] * k + index[b] for a, b in zip(first, second)]] = 1.0
    confusion = (counts(drawn, len(first)) @ cells).reshape(-1, k, k)  # rows: first's label
    by_second, by_first = confusion.sum(axis=1), confusion.sum(axis=2)
    total = by_second.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = by_second[:, :, None] * by_first[:, None, :] / total[:, None, None]
        disagree = 1.0 - np.eye(k)
        kappa = 1.0 - (disagree * confusion).sum(axis=(1, 2)) / (disagree * expected).sum(axis=(1, 2))
    given = ((by_second + by_first) > 0).sum(axis=1)
    return np.where(given >= 2, kappa, np.nan)
