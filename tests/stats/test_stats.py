"""judgegraph.stats: known values, None where a figure is undefined, reproducible intervals.

The benchmarks' figures and the coming `compare` / `calibrate` commands share these functions;
the metrics are scikit-learn's and SciPy's, the conventions (None, the seeded resampler) ours.
"""

from __future__ import annotations

import math
import random
import warnings

import pytest

from judgegraph import stats


def test_statistics_match_known_values():
    assert stats.auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == 0.75
    assert stats.auroc([1, 1, 0], [True, False, False]) == 0.75  # a tie counts one half
    assert stats.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(0.8207826816681233)
    assert stats.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert stats.pearson([1, 1, 1], [1, 2, 3]) is None
    assert stats.pairwise_accuracy([(1, 0), (0.5, 0.5), (0, 1)]) == 0.5
    assert stats.best_threshold([1, 1, 0.5, 0, 1], [False, False, True, True, True]) == (1, pytest.approx(5 / 6))


def test_balanced_accuracy_is_the_mean_of_both_rates():
    predicted = [True, True, False, False, False]
    actual = [True, False, False, False, True]
    assert stats.balanced_accuracy(predicted, actual) == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert stats.balanced_accuracy([True] * 4, [True, False, True, False]) == 0.5  # chance, whatever the balance


def test_cohen_kappa_corrects_agreement_for_chance():
    assert stats.cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    # agreement 0.5 where chance alone gives 0.5: no skill
    assert stats.cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == 0.0
    assert stats.cohen_kappa(["yes", "yes", "no", "no"], ["yes", "no", "no", "no"]) == pytest.approx(0.5)


@pytest.mark.parametrize("figure", [
    lambda: stats.auroc([0.1, 0.9], [True, True]),
    lambda: stats.auroc([], []),
    lambda: stats.balanced_accuracy([True, False], [False, False]),
    lambda: stats.spearman([1, 2, 3], [4, 4, 4]),
    lambda: stats.spearman([1, 2], [1, 2, 3]),
    lambda: stats.pearson([], []),
    lambda: stats.pairwise_accuracy([]),
    lambda: stats.cohen_kappa(["a", "a"], ["a", "a"]),
    lambda: stats.cohen_kappa([], []),
], ids=["auroc-one-class", "auroc-empty", "ba-one-class", "spearman-constant", "spearman-lengths",
        "pearson-empty", "pairwise-empty", "kappa-constant", "kappa-empty"])
def test_an_undefined_figure_is_none_without_a_warning(figure):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert figure() is None


def test_figures_are_plain_floats():
    values = [stats.auroc([0.1, 0.9], [False, True]), stats.balanced_accuracy([True, False], [True, False]),
              stats.spearman([1, 2, 3], [1, 3, 2]), stats.pearson([1, 2, 3], [1, 3, 2]),
              stats.cohen_kappa([1, 0], [1, 0])]
    assert all(type(value) is float for value in values)


def test_best_threshold_is_none_without_both_classes():
    assert stats.best_threshold([0.2, 0.8], [True, True]) == (None, None)


# --- bootstrap intervals ------------------------------------------------------------------------

VALUES = [0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.65, 0.5, 0.3, 0.75]


def mean_of(sample):
    return sum(VALUES[i] for i in sample) / len(sample)


def test_the_interval_contains_the_point_estimate_and_is_reproducible():
    point = mean_of(range(len(VALUES)))
    low, high = stats.bootstrap_interval(mean_of, len(VALUES))
    assert low <= point <= high and low < high
    assert stats.bootstrap_interval(mean_of, len(VALUES)) == (low, high)
    assert 0.0 <= low and high <= 1.0
    narrower = stats.bootstrap_interval(mean_of, len(VALUES), confidence=0.5)
    assert low <= narrower[0] <= narrower[1] <= high


def test_undefined_resamples_are_dropped_and_too_many_give_none():
    assert stats.bootstrap_interval(mean_of, 0) is None
    assert stats.bootstrap_interval(lambda sample: None, 10) is None
    often = stats.bootstrap_interval(lambda sample: None if 0 in sample else mean_of(sample), len(VALUES))
    assert often is None  # item 0 is in ~65 % of resamples: fewer than half remain
    sometimes = stats.bootstrap_interval(lambda sample: None if sample.count(0) >= 2 else mean_of(sample), len(VALUES))
    assert sometimes is not None  # ~26 % dropped


def test_the_resampler_is_the_seeded_sequence_the_published_figures_used():
    """Python's random.Random(941), `randrange(units)` per draw: changing it would move every
    published interval, so it is pinned here."""
    seen: list[list[int]] = []
    stats.bootstrap_interval(lambda sample: seen.append(list(sample)) or 0.0, 5, resamples=2)
    generator = random.Random(941)
    assert seen == [[generator.randrange(5) for _ in range(5)] for _ in range(2)]


def test_a_paired_interval_sees_a_small_consistent_gain_that_separate_intervals_miss():
    generator = random.Random(3)
    labels = [n % 2 == 0 for n in range(80)]
    difficulty = [generator.random() for _ in labels]  # shared by both methods
    a = [d < 0.6 for d in difficulty]                  # right on the easier 60 %
    b = [d < 0.7 for d in difficulty]                  # right on those and 10 % more
    right_a = [x if label else not x for x, label in zip(a, labels)]
    right_b = [x if label else not x for x, label in zip(b, labels)]

    def accuracy(right):
        return lambda sample: sum(right[i] for i in sample) / len(sample)

    low, high = stats.paired_bootstrap_interval(accuracy(right_a), accuracy(right_b), len(labels))
    assert 0 < low <= high  # b is better, beyond resampling noise
    separate_a = stats.bootstrap_interval(accuracy(right_a), len(labels))
    separate_b = stats.bootstrap_interval(accuracy(right_b), len(labels))
    assert separate_b[0] < separate_a[1]  # the separate intervals overlap


def test_a_paired_interval_drops_resamples_where_either_side_is_undefined():
    def never(sample):
        return None

    assert stats.paired_bootstrap_interval(never, lambda sample: 1.0, 10) is None
    interval = stats.paired_bootstrap_interval(mean_of, mean_of, len(VALUES))
    assert interval == (0.0, 0.0)
    assert not any(math.isnan(x) for x in interval)
