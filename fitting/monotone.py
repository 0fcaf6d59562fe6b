"""A logistic regression that is monotone in each signal, for any metric's fitted decision.

Why monotone: a profile is fitted on 25-100 labels, where noise alone can make a signal look as
if it pointed the wrong way (more "supported" from the judge making support less likely, a
closer context making recall lower). Such a fit would invert what the signal means for every
item it later scores. So each signal comes with the sign its coefficient must have; after a
fit, the signal whose coefficient has the wrong sign and the largest size is dropped and the
model is refitted on the rest, until every coefficient agrees (or no signal is left, and the
model is the labels' base rate).

Graded targets y in 0..1 enter as a pair of rows, class 1 with weight y and class 0 with weight
1 - y, so a 0.7 label counts as 70 % of a positive; binary labels are the case y in {0, 1}.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..calibration.profile import LOGISTIC_BOUND

REGULARISATION_C = 1.0
"""scikit-learn's default L2 strength: with 25-100 rows and a few signals in 0..1 it keeps
coefficients finite on separable data without tuning another knob on the same few labels."""


class FitError(ValueError):
    """The labels cannot support a fit (too few rows, one class only); one line."""


def _bounded(intercept: float, coefficients: dict[str, float]) -> tuple[float, dict[str, float]]:
    """The fit, when a profile can hold it (`calibration.profile.LOGISTIC_BOUND`)."""
    if not all(abs(value) <= LOGISTIC_BOUND for value in (intercept, *coefficients.values())):
        raise FitError(f"the logistic fit did not converge to weights within +-{LOGISTIC_BOUND:g}")
    return intercept, coefficients


def unit_targets(labels: Sequence[float], levels: Sequence[float]) -> list[float]:
    """Labels on the scale 0..1 (ordinal levels 1..5 -> 0, 0.25, ..., 1)."""
    low, high = min(levels), max(levels)
    return [(label - low) / (high - low) if high > low else 1.0 for label in labels]


def monotone_logistic(rows: Sequence[Mapping[str, float]], targets: Sequence[float],
                      signs: Mapping[str, int]) -> tuple[float, dict[str, float]]:
    """(intercept, coefficients) of a logistic regression of `targets` (0..1) on the signals
    named in `signs` (in that order), each coefficient of its sign (+1 or -1) or dropped."""
    from sklearn.linear_model import LogisticRegression  # loaded only when fitting

    features, classes, weights = [], [], []
    for row, target in zip(rows, targets):
        for cls, weight in ((1, target), (0, 1.0 - target)):
            if weight > 0:
                features.append(row)
                classes.append(cls)
                weights.append(weight)
    if len(set(classes)) < 2:
        raise FitError("every label is the same class: a fit needs both good and bad items")
    kept = list(signs)
    while kept:
        model = LogisticRegression(C=REGULARISATION_C, solver="liblinear", intercept_scaling=10.0)
        model.fit([[row[name] for name in kept] for row in features], classes, sample_weight=weights)
        coefficients = dict(zip(kept, (float(c) for c in model.coef_[0])))
        wrong = [name for name, c in coefficients.items() if c * signs[name] < 0]
        if not wrong:
            return _bounded(float(model.intercept_[0]), coefficients)
        kept.remove(max(wrong, key=lambda name: abs(coefficients[name])))
    share = min(max(sum(t * w for t, w in zip(classes, weights)) / sum(weights), 1e-6), 1 - 1e-6)
    return math.log(share / (1 - share)), {}
