"""The few statistics the agreement benchmarks need, in plain Python.

Why not scipy/numpy: neither is a judgegraph dependency, the samples are a few hundred numbers,
and each figure below is a handful of lines whose exact definition (ties, empty classes) the
docs can state. Every function returns None when the figure is undefined (an empty class, a
constant series), never a made-up number.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing the mean of their positions (as Spearman and AUROC need)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        shared = (start + end) / 2 + 1
        for position in range(start, end + 1):
            result[order[position]] = shared
        start = end + 1
    return result


def auroc(scores: Sequence[float], positives: Sequence[bool]) -> float | None:
    """P(a positive scores above a negative), ties counting 1/2 (Mann-Whitney rank formula)."""
    n_pos = sum(1 for p in positives if p)
    n_neg = len(positives) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    rank = ranks(scores)
    pos_rank_sum = sum(r for r, p in zip(rank, positives) if p)
    return (pos_rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def balanced_accuracy(predicted: Sequence[bool], actual: Sequence[bool]) -> float | None:
    """Mean of the true-positive and true-negative rates: 0.5 is chance whatever the balance."""
    pos = [p for p, a in zip(predicted, actual) if a]
    neg = [p for p, a in zip(predicted, actual) if not a]
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(not p for p in neg) / len(neg)) / 2


def best_threshold(scores: Sequence[float], positives: Sequence[bool]) -> tuple[float | None, float | None]:
    """The threshold t maximising balanced accuracy of "positive iff score < t", and that accuracy.

    Scores here are "higher = more faithful", positives are hallucinations, so a low score
    flags. The candidates are the distinct scores themselves (t = 1.0 is the fixed rule
    "hallucinated iff faithfulness < 1"). The threshold is chosen on the same items it is
    scored on: an optimistic, in-sample figure, reported as such.
    """
    best: tuple[float | None, float | None] = (None, None)
    for threshold in sorted(set(scores)):
        accuracy = balanced_accuracy([s < threshold for s in scores], positives)
        if accuracy is not None and (best[1] is None or accuracy > best[1]):
            best = (threshold, accuracy)
    return best


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    if len(x) != len(y) or len(set(x)) < 2 or len(set(y)) < 2:
        return None  # a constant series has no correlation (not 0: undefined)
    mean_x, mean_y = sum(x) / len(x), sum(y) / len(y)
    cov = sum((a - mean_x) * (b - mean_y) for a, b in zip(x, y))
    var_x = sum((a - mean_x) ** 2 for a in x)
    var_y = sum((b - mean_y) ** 2 for b in y)
    return cov / math.sqrt(var_x * var_y)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson correlation of the (tie-averaged) ranks."""
    return pearson(ranks(x), ranks(y))


def pairwise_accuracy(pairs: Sequence[tuple[float, float]]) -> float | None:
    """Share of (positive, negative) pairs where the positive scores higher; a tie counts 1/2."""
    if not pairs:
        return None
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)


def bootstrap_interval(
    statistic: "Callable[[Sequence[int]], float | None]",
    units: int,
    *,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 941,
) -> tuple[float, float] | None:
    """A percentile bootstrap interval for `statistic` over `units` resampled with replacement.

    `statistic` receives a list of unit indices (items, or MS MARCO pairs) and returns the
    figure for that resample, or None when it is undefined there (one class missing); such
    resamples are dropped. Why the bootstrap: with 60 items a balanced accuracy moves by
    about ±0.1 from sampling alone, and two methods can only be told apart when their
    intervals say so. The seed is fixed, so a report is reproducible.
    """
    import random

    if units == 0:
        return None
    generator = random.Random(seed)
    values = []
    for _ in range(resamples):
        sample = [generator.randrange(units) for _ in range(units)]
        value = statistic(sample)
        if value is not None:
            values.append(value)
    if len(values) < resamples // 2:
        return None
    values.sort()
    tail = (1 - confidence) / 2
    low = values[int(tail * (len(values) - 1))]
    high = values[int(round((1 - tail) * (len(values) - 1)))]
    return low, high
