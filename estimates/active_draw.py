"""The active design's draw: the next item to label is drawn with a probability that grows with
the judge's uncertainty on it (Zrnic and Candes, "Active Statistical Inference", 2024).

Why here, below `labelling/`: the page draws with these weights and `estimate` reads the
probabilities they give back, and the validity benchmark draws exactly as the page does; one
definition serves all three.

- **weight** of an item: UNIFORM_SHARE + (1 - UNIFORM_SHARE) * u / mean(u), with
  u = sqrt(g (1 - g)) and g the judge's score placed on 0..1 of the metric's scale: the standard
  deviation of a label the judge thinks has probability g of being 1, the quantity the optimal
  active rule makes the draw proportional to (Zrnic and Candes, section 3). The uniform share
  keeps every weight at least UNIFORM_SHARE of the average, so no item's inverse probability
  explodes when the judge is sure and wrong (their "mixing with the uniform rule"); a judge sure
  of everything gives the uniform draw.
- **the order**: successive sampling without replacement, each next item drawn among those not
  yet drawn with probability weight / (sum of their weights): exponential clocks
  E_i / weight_i sorted, so the whole order follows from the seed and any prefix is a draw.
- **q_k**: the probability the k-th item had of being drawn at its turn, recorded on its label
  line as `inclusion_probability`; `estimates.ppi.active_mean` inverts it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

UNIFORM_SHARE = 0.5
"""Each item's weight is at least this share of the average weight (the uniform floor)."""


def uncertainty_weights(scores: Sequence[float], scale: tuple[float, float]) -> list[float]:
    """Each item's draw weight from the judge's score on it (see the module's docstring)."""
    low, span = scale[0], (scale[1] - scale[0]) or 1.0
    spreads = [math.sqrt(max(0.0, g * (1 - g))) for g in (min(max((s - low) / span, 0.0), 1.0) for s in scores)]
    mean = sum(spreads) / len(spreads) if spreads else 0.0
    if mean <= 0.0:
        return [1.0] * len(spreads)
    return [UNIFORM_SHARE + (1 - UNIFORM_SHARE) * u / mean for u in spreads]


def successive_order(weights: Sequence[float], rng: random.Random) -> list[int]:
    """The indices in the order drawn, each next one with probability proportional to its weight
    among those left (exponential clocks; weights must be > 0)."""
    clocks = [rng.expovariate(1.0) / weight for weight in weights]
    return sorted(range(len(weights)), key=clocks.__getitem__)


def draw_probabilities(weights_in_order: Sequence[float]) -> list[float]:
    """q_k for each position of a successive order: its weight over the weights not yet drawn."""
    suffix, left = [], 0.0
    for weight in reversed(weights_in_order):  # summed from the end: no drift from subtracting
        left += weight
        suffix.append(left)
    suffix.reverse()
    return [min(1.0, weight / left) if left > 0 else 1.0 for weight, left in zip(weights_in_order, suffix)]
