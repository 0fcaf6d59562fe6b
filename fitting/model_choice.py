"""What a fit optimises, and whether a fitted model may replace the rule it starts from.

Why apart from the metrics' fitting modules: faithfulness (support per claim) and context
relevance (recall) make the same two choices, and must make them the same way.
- `fit_objective`: for binary labels, minus the Brier score, a proper scoring rule, so a fit
  is rewarded for probabilities that mean what they say (a faithful item at 0.2 costs), not
  only for ranking items (AUROC cannot see a threshold the judge's scale puts in the wrong
  place); for graded and ordinal labels, the kind's primary figure.
- `fit_beats_start`: a model fitted on the labels replaces the start's rule only when it does
  better on held-out inner folds of those labels. A hand-set rule that was tuned on similar
  data can beat a fit on 30 labels, and in-sample agreement would always favour the fit. When
  the labels come in groups (the passages of one query), the inner folds keep a group whole
  and "better" is first the pairwise accuracy within groups, what such labels measure, then
  the item objective.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..stats.ranking import pairwise_accuracy
from .agreement import primary
from .labels import LabelKind
from .monotone import FitError

R = TypeVar("R")
P = TypeVar("P")
INNER_FOLDS = 5
TIE = 1e-9


def fit_objective(scores: Sequence[float], labels: Sequence[float], kind: LabelKind,
                  levels: Sequence[float] = (0.0, 1.0)) -> float | None:
    """What a fit maximises (higher is better); None where undefined."""
    if kind != "binary":
        return primary(scores, labels, kind, levels)
    if not scores:
        return None
    return -sum((s - label) ** 2 for s, label in zip(scores, labels)) / len(scores)


def objective_under(items: Sequence[R], labels: Sequence[float], kind: LabelKind, parameters: Sequence[P],
                    score: Callable[[R, P], float | None], levels: Sequence[float]) -> float:
    """`fit_objective` over the items' scores, item i scored under parameters[i] (failed items
    left out; -inf when nothing is scored)."""
    scored = [(s, label) for item, p, label in zip(items, parameters, labels) if (s := score(item, p)) is not None]
    value = fit_objective([s for s, _ in scored], [label for _, label in scored], kind, levels)
    return float("-inf") if value is None else value


def within_group_pairs(labels: Sequence[float], groups: Sequence[str] | None) -> list[tuple[int, int]]:
    """(good item, bad item) index pairs of the same group (binary labels 1 / 0)."""
    if groups is None:
        return []
    members: dict[str, list[int]] = {}
    for index, group in enumerate(groups):
        members.setdefault(group, []).append(index)
    return [(good, bad) for indices in members.values() for good in indices for bad in indices
            if labels[good] == 1.0 and labels[bad] == 0.0]


def pairwise_objective(scores: Sequence[float | None], pairs: Sequence[tuple[int, int]]) -> float | None:
    """`stats.ranking.pairwise_accuracy` over index pairs (a tie counts 1/2; a failed score,
    None, loses to any score)."""
    def value(index: int) -> float:
        score = scores[index]
        return -1.0 if score is None else score

    return pairwise_accuracy([(value(good), value(bad)) for good, bad in pairs])


def _inner_folds(labels: Sequence[float], kind: LabelKind, groups: Sequence[str] | None = None) -> list:
    from sklearn.model_selection import GroupKFold, KFold, StratifiedKFold

    if groups is not None:
        names = set(groups)
        if len(names) < 2:
            return []
        return list(GroupKFold(n_splits=min(INNER_FOLDS, len(names))).split(list(labels), list(labels), list(groups)))
    if kind == "binary":
        if len(set(labels)) < 2:
            return []
        smallest = min(sum(1 for v in labels if v == c) for c in set(labels))
        if smallest < 2:
            return []
        splitter = StratifiedKFold(n_splits=min(INNER_FOLDS, smallest), shuffle=True, random_state=0)
        return list(splitter.split(list(range(len(labels))), list(labels)))
    if len(labels) < 2:
        return []
    return list(KFold(n_splits=min(INNER_FOLDS, len(labels)), shuffle=True, random_state=0).split(list(labels)))


def fit_beats_start(items: Sequence[R], labels: Sequence[float], kind: LabelKind, start: P,
                    fit: Callable[[Sequence[R], Sequence[float], Sequence[str] | None], P],
                    score: Callable[[R, P], float | None], levels: Sequence[float] = (0.0, 1.0),
                    groups: Sequence[str] | None = None) -> bool:
    """Whether `fit` (on inner training folds) scores the held-out inner folds better than
    `start` does (False when the labels cannot tell: too few, or one class). With `groups`, a
    group stays in one inner fold and pairwise accuracy within groups decides first."""
    order: list[int] = []
    fitted_for: list[P] = []
    for train, test in _inner_folds(labels, kind, groups):
        try:
            fitted = fit([items[i] for i in train], [labels[i] for i in train],
                         None if groups is None else [groups[i] for i in train])
        except FitError:
            fitted = start
        order += list(test)
        fitted_for += [fitted] * len(test)
    if not order:
        return False
    held_items, held_labels = [items[i] for i in order], [labels[i] for i in order]
    pairs = within_group_pairs(held_labels, None if groups is None else [groups[i] for i in order])
    if kind == "binary" and pairs:
        ranked_after = pairwise_objective([score(item, p) for item, p in zip(held_items, fitted_for)], pairs)
        ranked_before = pairwise_objective([score(item, start) for item in held_items], pairs)
        if abs(ranked_after - ranked_before) > TIE:
            return ranked_after > ranked_before
    return (objective_under(held_items, held_labels, kind, fitted_for, score, levels)
            > objective_under(held_items, held_labels, kind, [start] * len(order), score, levels) + TIE)
