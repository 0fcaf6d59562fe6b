"""k-fold cross-validation of any metric's fit: held-out agreement before and after, with
bootstrap intervals, and a learning curve.

Why held-out folds: a fit judged on the labels it was fitted on always looks better. Every
item is scored once, by a profile fitted on the other folds; "before" is the default profile
on the same items, and for binary labels both sides get their balanced-accuracy threshold
from the training folds only. Intervals resample the held-out items (`stats.bootstrap`), the
difference interval pairs before and after on the same resample.

The metric comes in as a `MetricFit`: how a recorded item is scored under parameters, and how
parameters are fitted on items and labels (`fitting.fitted_metrics`), so faithfulness,
context relevance and answer relevance share this code.

Items may come in groups (the passages retrieved for one query: MS MARCO's relevant and
irrelevant passage of a query). A group stays in one fold, so a query is never scored by a fit
that saw its other passage, and binary labels also give the pairwise accuracy: the share of
(relevant, irrelevant) pairs of a group where the relevant one scores higher.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..stats.ranking import pairwise_accuracy
from ..stats.resampled import Figures, interval_over, mean_over, mean_squared_error_over, paired_interval_over, point_value
from .agreement import PRIMARY, failure_threshold, flagged_balanced_accuracy_over, primary_over
from .labels import LabelKind
from .model_choice import within_group_pairs

DEFAULT_FOLDS = 5
SEED = 941
LEARNING_CURVE_SIZES = (25, 50)
FIXED_CUT = 0.5
"""Where a score starts to count as a pass in the harness and the seeds' reading (faithfulness
0.5: more likely supported than not); the threshold-free and training-fold-threshold figures sit
beside it, as a fit can move the scale without changing the ranking."""
BOOTSTRAP_RESAMPLES = 1000
"""Per interval; every figure is computed on all resamples at once (`stats.resampled`)."""

R = TypeVar("R")
P = TypeVar("P")


@dataclass(frozen=True)
class MetricFit(Generic[R, P]):
    """What cross-validation needs of a metric."""

    score: Callable[[R, P], float | None]
    """A recorded item's score under parameters (no judge call); None where judging failed."""
    fit: Callable[[Sequence[R], Sequence[float], LabelKind, P, Sequence[float], Sequence[str] | None], P]
    """Parameters fitted on (items, labels, label kind, start parameters, label levels, groups:
    each item's group name, or None when the labels file names none)."""


@dataclass
class HeldOut:
    """Per scored item, in item order: its label and its held-out scores and flags."""

    labels: list[float] = field(default_factory=list)
    before: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)
    flags_before: list[bool] = field(default_factory=list)
    flags_after: list[bool] = field(default_factory=list)
    groups: list[str] | None = None


def _splits(labels: Sequence[float], kind: LabelKind, folds: int, seed: int, groups: Sequence[str] | None):
    from sklearn.model_selection import KFold, StratifiedGroupKFold, StratifiedKFold

    indices = list(range(len(labels)))
    if groups is not None:
        names = sorted(set(groups))
        n_splits = max(2, min(folds, len(names)))
        if kind == "binary":
            splitter = StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
            return list(splitter.split(indices, list(labels), list(groups)))
        splits = []
        for _, test_names in KFold(n_splits=n_splits, shuffle=True, random_state=seed).split(names):
            held_out = {names[g] for g in test_names}
            splits.append(([i for i in indices if groups[i] not in held_out], [i for i in indices if groups[i] in held_out]))
        return splits
    if kind == "binary":
        smallest = min(sum(1 for v in labels if v == c) for c in set(labels))
        splitter = StratifiedKFold(n_splits=max(2, min(folds, smallest)), shuffle=True, random_state=seed)
        return list(splitter.split(indices, list(labels)))
    return list(KFold(n_splits=max(2, min(folds, len(labels))), shuffle=True, random_state=seed).split(list(labels)))


def _subsample(train: Sequence[int], labels: Sequence[float], kind: LabelKind, size: int, seed: int) -> list[int]:
    from sklearn.model_selection import train_test_split

    if size >= len(train):
        return list(train)
    stratify = [labels[i] for i in train] if kind == "binary" else None
    chosen, _ = train_test_split(list(train), train_size=size, stratify=stratify, random_state=seed)
    return list(chosen)


def cross_validate(metric: MetricFit[Any, Any], items: Sequence[Any], labels: Sequence[float], kind: LabelKind,
                   default: Any, *, folds: int = DEFAULT_FOLDS, seed: int = SEED, train_size: int | None = None,
                   levels: Sequence[float] = (0.0, 1.0), groups: Sequence[str] | None = None) -> HeldOut:
    """Held-out scores of the default and of per-fold fits, over the items the default scores
    (an item whose judging failed has no score under any profile)."""
    before_all = [metric.score(r, default) for r in items]
    usable = [i for i, s in enumerate(before_all) if s is not None]
    kept_labels = [labels[i] for i in usable]
    kept_groups = None if groups is None else [groups[i] for i in usable]
    held = HeldOut(groups=None if groups is None else [])
    for train, test in _splits(kept_labels, kind, folds, seed, kept_groups):
        if train_size is not None:
            train = _subsample(train, kept_labels, kind, train_size, seed)
        train_items = [items[usable[i]] for i in train]
        train_labels = [kept_labels[i] for i in train]
        train_groups = None if kept_groups is None else [kept_groups[i] for i in train]
        fitted = metric.fit(train_items, train_labels, kind, default, levels, train_groups)
        cut_before = cut_after = None
        if kind == "binary":
            cut_before = failure_threshold([before_all[usable[i]] for i in train], train_labels)
            cut_after = failure_threshold([metric.score(r, fitted) for r in train_items], train_labels)
        for i in test:
            before, after = before_all[usable[i]], metric.score(items[usable[i]], fitted)
            held.labels.append(kept_labels[i])
            held.before.append(before)
            held.after.append(after if after is not None else before)
            held.flags_before.append(cut_before is not None and before < cut_before)
            held.flags_after.append(cut_after is not None and held.after[-1] < cut_after)
            if held.groups is not None and kept_groups is not None:
                held.groups.append(kept_groups[i])
    return held


def _figure(figure: Figures, units: int) -> dict:
    value = point_value(figure, units)
    interval = interval_over(figure, units, resamples=BOOTSTRAP_RESAMPLES)
    return {"value": None if value is None else round(value, 4),
            "interval": None if interval is None else [round(interval[0], 4), round(interval[1], 4)]}


def _compared(before: Figures, after: Figures, units: int) -> dict:
    difference = paired_interval_over(before, after, units, resamples=BOOTSTRAP_RESAMPLES)
    return {"before": _figure(before, units), "after": _figure(after, units),
            "difference": None if difference is None else [round(difference[0], 4), round(difference[1], 4)]}


def held_out_figures(held: HeldOut, kind: LabelKind, levels: Sequence[float] = (0.0, 1.0)) -> dict:
    """{figure name: {"before": {value, interval}, "after": ..., "difference": interval}}.

    Each figure is computed on all bootstrap resamples at once (`stats.resampled`)."""
    n = len(held.labels)
    labels = held.labels
    figures: dict = {"n": n}

    def agreement(scores: list[float]) -> Figures:
        return lambda drawn: primary_over(drawn, scores, labels, kind, levels)

    figures[PRIMARY[kind]] = _compared(agreement(held.before), agreement(held.after), n)
    if kind == "binary":
        def flagged(flags: list[bool]) -> Figures:
            return lambda drawn: flagged_balanced_accuracy_over(drawn, flags, labels)

        def at_the_cut(scores: list[float]) -> Figures:  # the decision as shipped: a score below 0.5 is a failure
            return flagged([v < FIXED_CUT for v in scores])

        def brier(scores: list[float]) -> Figures:  # what the fit minimises: do the scores mean what they say?
            return lambda drawn: mean_squared_error_over(drawn, scores, labels)

        figures["balanced_accuracy"] = _compared(flagged(held.flags_before), flagged(held.flags_after), n)
        figures["balanced_accuracy_at_0.5"] = _compared(at_the_cut(held.before), at_the_cut(held.after), n)
        figures["brier"] = _compared(brier(held.before), brier(held.after), n)
        pairs = within_group_pairs(held.labels, held.groups)
        if pairs:
            def pairwise(scores: list[float]) -> Figures:
                won = [pairwise_accuracy([(scores[good], scores[bad])]) or 0.0 for good, bad in pairs]  # a pair alone: 1, 1/2 or 0
                return lambda drawn: mean_over(drawn, won)

            figures["pairwise_accuracy"] = {**_compared(pairwise(held.before), pairwise(held.after), len(pairs)),
                                            "pairs": len(pairs)}
    return figures


def learning_curve_sizes(labels: int, folds: int = DEFAULT_FOLDS) -> list[int | None]:
    """The training sizes of the learning curve's points for `labels` labels (None: all the
    training folds' labels); a size is shown only below what the folds train on."""
    train_total = int(labels * (1 - 1 / max(2, folds)))
    return [*[size for size in LEARNING_CURVE_SIZES if size < train_total], None]


def learning_curve(metric: MetricFit[Any, Any], items: Sequence[Any], labels: Sequence[float], kind: LabelKind,
                   default: Any, *, folds: int = DEFAULT_FOLDS, seed: int = SEED,
                   levels: Sequence[float] = (0.0, 1.0), full: HeldOut | None = None,
                   groups: Sequence[str] | None = None,
                   on_point: Callable[[int | None], None] | None = None) -> list[dict]:
    """Held-out primary agreement of fits on 25, 50 and all training labels (per fold).
    `on_point(size)` is told as each point starts (a long curve shows its progress)."""
    name = PRIMARY[kind]
    points = []
    for size in learning_curve_sizes(len(labels), folds):
        if on_point is not None:
            on_point(size)
        held = full if size is None and full is not None else cross_validate(
            metric, items, labels, kind, default, folds=folds, seed=seed, train_size=size, levels=levels,
            groups=groups)

        def agreement(drawn, held=held):
            return primary_over(drawn, held.after, held.labels, kind, levels)

        points.append({"labels": size if size is not None else "all", "statistic": name,
                       **_figure(agreement, len(held.labels))})
    return points
