"""k-fold cross-validation of a faithfulness fit: held-out agreement before and after, with
bootstrap intervals, and a learning curve.

Why held-out folds: a fit judged on the labels it was fitted on always looks better. Every
item is scored once, by a profile fitted on the other folds; "before" is the default profile
on the same items, and for binary labels both sides get their balanced-accuracy threshold
from the training folds only. Intervals resample the held-out items (`stats.bootstrap`), the
difference interval pairs before and after on the same resample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..stats import bootstrap_interval, paired_bootstrap_interval
from .agreement import PRIMARY, failure_threshold, flagged_balanced_accuracy, primary
from .fitting import fit_faithfulness
from .labels import LabelKind
from .profile import FaithfulnessParameters
from .recompute import RecordedFaithfulness, faithfulness_score

DEFAULT_FOLDS = 5
SEED = 941
LEARNING_CURVE_SIZES = (25, 50)
BOOTSTRAP_RESAMPLES = 1000
"""Per interval; each resample recomputes a figure with scikit-learn (about 5 ms), so a report
with its learning curve costs some 30 s of CPU on 2 cores, no judge call."""


@dataclass
class HeldOut:
    """Per scored item, in item order: its label and its held-out scores and flags."""

    labels: list[float] = field(default_factory=list)
    before: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)
    flags_before: list[bool] = field(default_factory=list)
    flags_after: list[bool] = field(default_factory=list)


def _splits(labels: Sequence[float], kind: LabelKind, folds: int, seed: int):
    from sklearn.model_selection import KFold, StratifiedKFold

    if kind == "binary":
        smallest = min(sum(1 for v in labels if v == c) for c in set(labels))
        splitter = StratifiedKFold(n_splits=max(2, min(folds, smallest)), shuffle=True, random_state=seed)
        return list(splitter.split(list(range(len(labels))), list(labels)))
    return list(KFold(n_splits=max(2, min(folds, len(labels))), shuffle=True, random_state=seed).split(list(labels)))


def _subsample(train: Sequence[int], labels: Sequence[float], kind: LabelKind, size: int, seed: int) -> list[int]:
    from sklearn.model_selection import train_test_split

    if size >= len(train):
        return list(train)
    stratify = [labels[i] for i in train] if kind == "binary" else None
    chosen, _ = train_test_split(list(train), train_size=size, stratify=stratify, random_state=seed)
    return list(chosen)


def cross_validate(items: Sequence[RecordedFaithfulness], labels: Sequence[float], kind: LabelKind,
                   default: FaithfulnessParameters, *, folds: int = DEFAULT_FOLDS, seed: int = SEED,
                   train_size: int | None = None, levels: Sequence[float] = (0.0, 1.0)) -> HeldOut:
    """Held-out scores of the default and of per-fold fits, over the items the default scores
    (an item whose judging failed has no score under any profile)."""
    before_all = [faithfulness_score(r, default) for r in items]
    usable = [i for i, s in enumerate(before_all) if s is not None]
    kept_labels = [labels[i] for i in usable]
    held = HeldOut()
    for train, test in _splits(kept_labels, kind, folds, seed):
        if train_size is not None:
            train = _subsample(train, kept_labels, kind, train_size, seed)
        train_items = [items[usable[i]] for i in train]
        train_labels = [kept_labels[i] for i in train]
        fitted = fit_faithfulness(train_items, train_labels, kind, default, levels)
        cut_before = cut_after = None
        if kind == "binary":
            cut_before = failure_threshold([before_all[usable[i]] for i in train], train_labels)
            cut_after = failure_threshold([faithfulness_score(r, fitted) for r in train_items], train_labels)
        for i in test:
            recorded = items[usable[i]]
            before, after = before_all[usable[i]], faithfulness_score(recorded, fitted)
            held.labels.append(kept_labels[i])
            held.before.append(before)
            held.after.append(after if after is not None else before)
            held.flags_before.append(cut_before is not None and before < cut_before)
            held.flags_after.append(cut_after is not None and held.after[-1] < cut_after)
    return held


def _figure(statistic, units: int) -> dict:
    value = statistic(list(range(units)))
    interval = bootstrap_interval(statistic, units, resamples=BOOTSTRAP_RESAMPLES)
    return {"value": None if value is None else round(value, 4),
            "interval": None if interval is None else [round(interval[0], 4), round(interval[1], 4)]}


def held_out_figures(held: HeldOut, kind: LabelKind, levels: Sequence[float] = (0.0, 1.0)) -> dict:
    """{figure name: {"before": {value, interval}, "after": ..., "difference": interval}}."""
    n = len(held.labels)

    def pick(values):
        return lambda sample: [values[i] for i in sample]

    labels = pick(held.labels)
    statistics = {
        PRIMARY[kind]: (lambda s: primary(pick(held.before)(s), labels(s), kind, levels),
                        lambda s: primary(pick(held.after)(s), labels(s), kind, levels)),
    }
    if kind == "binary":
        statistics["balanced_accuracy"] = (
            lambda s: flagged_balanced_accuracy(pick(held.flags_before)(s), labels(s)),
            lambda s: flagged_balanced_accuracy(pick(held.flags_after)(s), labels(s)),
        )
    figures: dict = {"n": n}
    for name, (before, after) in statistics.items():
        difference = paired_bootstrap_interval(before, after, n, resamples=BOOTSTRAP_RESAMPLES)
        figures[name] = {"before": _figure(before, n), "after": _figure(after, n),
                         "difference": None if difference is None else [round(difference[0], 4), round(difference[1], 4)]}
    return figures


def learning_curve(items: Sequence[RecordedFaithfulness], labels: Sequence[float], kind: LabelKind,
                   default: FaithfulnessParameters, *, folds: int = DEFAULT_FOLDS, seed: int = SEED,
                   levels: Sequence[float] = (0.0, 1.0), full: HeldOut | None = None) -> list[dict]:
    """Held-out primary agreement of fits on 25, 50 and all training labels (per fold)."""
    name = PRIMARY[kind]
    points = []
    train_total = int(len(labels) * (1 - 1 / max(2, folds)))
    for size in [*[s for s in LEARNING_CURVE_SIZES if s < train_total], None]:
        held = full if size is None and full is not None else cross_validate(
            items, labels, kind, default, folds=folds, seed=seed, train_size=size, levels=levels)
        n = len(held.labels)

        def statistic(sample, held=held):
            return primary([held.after[i] for i in sample], [held.labels[i] for i in sample], kind, levels)

        points.append({"labels": size if size is not None else "all", "statistic": name,
                       **_figure(statistic, n)})
    return points
