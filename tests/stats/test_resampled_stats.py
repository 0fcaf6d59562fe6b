"""The numpy figures over all bootstrap resamples at once (`stats.resampled`) are scikit-learn's
and SciPy's figures resample by resample (`stats.classification`, `stats.ranking`,
`stats.correlation`, the reference), on the same seeded draws: undefined on the same resamples
(one class drawn out, a constant series), equal to 1e-12 elsewhere, so the intervals and the
held-out figures `judgegraph calibrate` reports are the ones the per-resample code gave.
Label sets with ties, with a single positive (many one-class resamples), with every score
tied, with three items, and with sixty."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from judgegraph.fitting.agreement import PRIMARY, failure_threshold, flagged_balanced_accuracy, primary
from judgegraph.fitting.cross_validation import HeldOut, held_out_figures
from judgegraph.fitting.model_choice import within_group_pairs
from judgegraph.stats import (
    auroc, balanced_accuracy, bootstrap_interval, cohen_kappa, paired_bootstrap_interval, pairwise_accuracy, spearman,
)
from judgegraph.stats import resampled
from judgegraph.stats.bootstrap import percentile_interval, resample_draws

RESAMPLES, SEED, TOLERANCE = 100, 941, 1e-12
"""100 resamples: the code is the same at 1,000, and the reference calls scikit-learn per resample."""


def label_set(name: str) -> tuple[list[float], list[float], list[bool]]:
    """(scores, second scores, positives) of a named label set."""
    rng = random.Random(name)
    if name == "ties":
        n = 12
        scores = [rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]) for _ in range(n)]
        positives = [i % 2 == 0 for i in range(n)]
    elif name == "one positive":
        n = 10
        scores = [rng.choice([0.2, 0.4, 0.6]) for _ in range(n)]
        positives = [i == 3 for i in range(n)]
    elif name == "all tied":
        n = 8
        scores = [0.5] * n
        positives = [i < 3 for i in range(n)]
    elif name == "three items":
        n = 3
        scores, positives = [0.9, 0.1, 0.9], [True, False, False]
    else:
        n = 60
        scores = [rng.random() for _ in range(n)]
        positives = [rng.random() < 0.4 for _ in range(n)]
    second = [round(s * 4) / 4 if i % 3 else 1.0 - s for i, s in enumerate(scores)]
    return scores, second, positives


SETS = ("ties", "one positive", "all tied", "three items", "sixty")


def per_resample(statistic: Callable[[list[int]], float | None], units: int) -> list[float | None]:
    return [statistic(sample) for sample in resample_draws(units, RESAMPLES, SEED)]


def assert_same(reference: Sequence[float | None], values: np.ndarray) -> None:
    assert len(reference) == len(values)
    undefined = [value is None for value in reference]
    assert undefined == np.isnan(values).tolist()
    for expected, got in zip(reference, values.tolist()):
        if expected is not None:
            assert abs(expected - got) <= TOLERANCE, (expected, got)


def pick(values: Sequence, sample: Sequence[int]) -> list:
    return [values[i] for i in sample]


@pytest.mark.parametrize("name", SETS)
def test_every_figure_over_all_resamples_is_the_library_figure_of_each_resample(name):
    scores, second, positives = label_set(name)
    n = len(scores)
    drawn = resampled.draws(n, RESAMPLES, SEED)
    flags = [s < 0.5 for s in scores]
    levels_a, levels_b = [round(s * 2) for s in scores], [round(s * 2) for s in second]
    cases = {
        "auroc": (lambda s: auroc(pick(scores, s), pick(positives, s)), resampled.auroc_over(drawn, scores, positives)),
        "balanced accuracy": (lambda s: balanced_accuracy(pick(flags, s), pick(positives, s)),
                              resampled.balanced_accuracy_over(drawn, flags, positives)),
        "spearman": (lambda s: spearman(pick(scores, s), pick(second, s)), resampled.spearman_over(drawn, scores, second)),
        "kappa": (lambda s: cohen_kappa(pick(levels_a, s), pick(levels_b, s)),
                  resampled.cohen_kappa_over(drawn, levels_a, levels_b)),
        "brier": (lambda s: sum((v - float(y)) ** 2 for v, y in zip(pick(scores, s), pick(positives, s))) / len(s),
                  resampled.mean_squared_error_over(drawn, scores, [float(p) for p in positives])),
    }
    for figure, (reference, values) in cases.items():
        expected = per_resample(reference, n)
        assert_same(expected, values)
        interval = percentile_interval([v for v in expected if v is not None], RESAMPLES)
        got = resampled.interval_over(lambda d, values=values: values, n, resamples=RESAMPLES, seed=SEED)
        assert (interval is None) == (got is None), figure
        if interval is not None:
            assert np.allclose(interval, got, rtol=0, atol=TOLERANCE), figure
    if name == "one positive":  # many resamples draw no positive: the figure is undefined there
        assert np.isnan(cases["auroc"][1]).sum() > RESAMPLES // 4


def test_the_draws_are_the_seeded_sequence_of_the_per_resample_bootstrap():
    assert resampled.draws(7, 50, 3).tolist() == resample_draws(7, 50, 3)
    seen: list[list[int]] = []
    bootstrap_interval(lambda sample: seen.append(list(sample)) or 0.0, 7, resamples=50, seed=3)
    assert seen == resample_draws(7, 50, 3)


@pytest.mark.parametrize("name", SETS)
def test_a_paired_interval_over_all_resamples_is_the_per_resample_one(name):
    scores, second, positives = label_set(name)
    n = len(scores)
    reference = paired_bootstrap_interval(lambda s: auroc(pick(scores, s), pick(positives, s)),
                                          lambda s: auroc(pick(second, s), pick(positives, s)), n,
                                          resamples=RESAMPLES, seed=SEED)
    got = resampled.paired_interval_over(lambda d: resampled.auroc_over(d, scores, positives),
                                         lambda d: resampled.auroc_over(d, second, positives), n,
                                         resamples=RESAMPLES, seed=SEED)
    assert (reference is None) == (got is None)
    if reference is not None:
        assert np.allclose(reference, got, rtol=0, atol=TOLERANCE)


# --- the held-out figures of `judgegraph calibrate` ---------------------------------------------

def reference_held_out_figures(held: HeldOut, kind: str, levels: Sequence[float]) -> dict:
    """The held-out figures as computed before `stats.resampled`: each figure recomputed with
    scikit-learn / SciPy on each resample (`stats.bootstrap`)."""
    n = len(held.labels)

    def figure(statistic, units):
        value = statistic(list(range(units)))
        interval = bootstrap_interval(statistic, units, resamples=RESAMPLES)
        return {"value": None if value is None else round(value, 4),
                "interval": None if interval is None else [round(interval[0], 4), round(interval[1], 4)]}

    def compared(before, after, units):
        difference = paired_bootstrap_interval(before, after, units, resamples=RESAMPLES)
        return {"before": figure(before, units), "after": figure(after, units),
                "difference": None if difference is None else [round(difference[0], 4), round(difference[1], 4)]}

    def labels(s):
        return pick(held.labels, s)

    figures: dict = {"n": n}
    figures[PRIMARY[kind]] = compared(lambda s: primary(pick(held.before, s), labels(s), kind, levels),
                                      lambda s: primary(pick(held.after, s), labels(s), kind, levels), n)
    if kind == "binary":
        figures["balanced_accuracy"] = compared(
            lambda s: flagged_balanced_accuracy(pick(held.flags_before, s), labels(s)),
            lambda s: flagged_balanced_accuracy(pick(held.flags_after, s), labels(s)), n)

        def at_the_cut(scores):
            return lambda s: flagged_balanced_accuracy([v < 0.5 for v in pick(scores, s)], labels(s))

        def brier(scores):
            return lambda s: sum((v - y) ** 2 for v, y in zip(pick(scores, s), labels(s))) / max(len(s), 1)

        figures["balanced_accuracy_at_0.5"] = compared(at_the_cut(held.before), at_the_cut(held.after), n)
        figures["brier"] = compared(brier(held.before), brier(held.after), n)
        pairs = within_group_pairs(held.labels, held.groups)
        if pairs:
            def pairwise(scores):
                return lambda s: pairwise_accuracy([(scores[pairs[i][0]], scores[pairs[i][1]]) for i in s])

            figures["pairwise_accuracy"] = {**compared(pairwise(held.before), pairwise(held.after), len(pairs)),
                                            "pairs": len(pairs)}
    return figures


def held_out(name: str, kind: str, grouped: bool = False) -> tuple[HeldOut, list[float]]:
    scores, second, positives = label_set(name)
    if kind == "binary":
        labels = [1.0 if p else 0.0 for p in positives]
        levels = [0.0, 1.0]
    elif kind == "graded":
        labels = [round(s, 1) for s in second]
        levels = sorted(set(labels))
    else:
        labels = [float(round(s * 4)) for s in second]
        levels = [0.0, 1.0, 2.0, 3.0, 4.0]
    cut_before, cut_after = failure_threshold(scores, labels), failure_threshold(second, labels)
    held = HeldOut(labels=labels, before=scores, after=second,
                   flags_before=[cut_before is not None and s < cut_before for s in scores],
                   flags_after=[cut_after is not None and s < cut_after for s in second],
                   groups=[f"q{i // 2}" for i in range(len(labels))] if grouped else None)
    return held, levels


@pytest.mark.parametrize(("name", "kind", "grouped"), [
    ("ties", "binary", True), ("one positive", "binary", False), ("ties", "graded", False),
    ("sixty", "ordinal", False),
])
def test_the_held_out_figures_are_those_of_the_per_resample_library_figures(name, kind, grouped, monkeypatch):
    monkeypatch.setattr("judgegraph.fitting.cross_validation.BOOTSTRAP_RESAMPLES", RESAMPLES)
    held, levels = held_out(name, kind, grouped)
    got = held_out_figures(held, kind, levels)
    assert got == reference_held_out_figures(held, kind, levels)
    assert got[PRIMARY[kind]]["after"]["interval"] is not None
    if grouped:
        assert got["pairwise_accuracy"]["pairs"] > 0
