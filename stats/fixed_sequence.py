"""Fixed-sequence testing of a confidence threshold (Jung et al. 2024, "Trust or Escalate",
arXiv 2407.18370, after Bauer 1991 and Angelopoulos et al.'s Learn-then-Test).

The question: above which confidence may the first judge's decisions be kept, so that the kept
decisions agree with the second judge at least at `target`, with probability at least
1 - `delta` over the draw of the fitting items? Each candidate threshold t of a fixed grid,
from the strictest down, is a hypothesis "the disagreement rate of decisions with confidence
>= t is above alpha = 1 - target"; its p-value is the exact binomial tail P(Bin(n, alpha) <=
k) for n kept decisions of which k disagree. The thresholds are tested in order, each at level
delta, and the search stops at the first that cannot be rejected: the last rejected one is
returned. Testing in a fixed order needs no multiplicity correction, which is why the grid is
fixed in advance (`GRID`) and never drawn from the data. A threshold that keeps too few
decisions for its test to reject whatever they say ((1 - alpha)^n > delta: for target 0.95 and
delta 0.1, fewer than 45) is passed over rather than stopping the search at the top of the grid;
which thresholds are passed over depends on the confidences only, never on the agreements, so
the agreements' tests stay valid given the confidences.

The guarantee is on the kept decisions (selective agreement), as in the paper; the escalated
ones are the second judge's own, so the run as a whole agrees with the second judge at least
as often.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scipy.stats import binom

GRID: tuple[float, ...] = tuple(round(1 - i * 0.005, 3) for i in range(1, 101))
"""The thresholds tested, strictest first: 0.995, 0.990, ..., 0.500."""
NOTHING_KEPT = 1.0
"""The threshold returned when not even the strictest can be kept: escalate every decision."""


@dataclass(frozen=True)
class ThresholdFit:
    threshold: float
    """Keep a decision whose confidence is >= this; escalate the rest (1.0: escalate all)."""
    kept: int
    disagreeing: int
    n: int
    p_value: float | None
    """The p-value of the returned threshold's test (None when nothing is kept)."""

    @property
    def kept_share(self) -> float:
        return self.kept / self.n if self.n else 0.0


def fit_threshold(confidences: Sequence[float], agrees: Sequence[bool], target: float, delta: float = 0.1,
                  grid: Sequence[float] = GRID) -> ThresholdFit:
    """The least strict threshold of `grid` whose kept decisions agree at `target` with
    confidence 1 - `delta` (fixed-sequence testing, module docstring)."""
    if len(confidences) != len(agrees):
        raise ValueError("one agreement per confidence")
    alpha = 1 - target
    chosen = ThresholdFit(NOTHING_KEPT, 0, 0, len(confidences), None)
    for threshold in grid:
        kept = [agree for confidence, agree in zip(confidences, agrees) if confidence >= threshold]
        if (1 - alpha) ** len(kept) > delta:  # no outcome could reject: this test has no power
            continue
        disagreeing = sum(1 for agree in kept if not agree)
        p_value = float(binom.cdf(disagreeing, len(kept), alpha))
        if p_value > delta:
            break
        chosen = ThresholdFit(threshold, len(kept), disagreeing, len(confidences), p_value)
    return chosen
