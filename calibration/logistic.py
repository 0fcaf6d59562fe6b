"""The value of a fitted logistic decision, P = sigmoid(intercept + sum of w x signal).

Apart from the fitting (`fitting.monotone`, which needs scikit-learn) because the nodes
apply fitted models on every run and must not load what only fitting needs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


def sigmoid(value: float) -> float:
    """1 / (1 + e^-value), without overflow for large |value|."""
    return 1 / (1 + math.exp(-value)) if value >= 0 else math.exp(value) / (1 + math.exp(value))


def logistic(intercept: float, coefficients: Mapping[str, float], features: Mapping[str, float]) -> float:
    """The model's probability for these signals (every signal a coefficient names must be there)."""
    return sigmoid(intercept + sum(weight * features[name] for name, weight in coefficients.items()))
