"""Paired statistics per kind of scale: scores, ordinal steps, labels.

Why three kinds and not one mean for all:
- **scores** (rag's 0..1, expected_output's numbers): a mean difference makes sense; its 95 %
  interval comes from the paired bootstrap (`stats.mean_bootstrap`, numpy in bounded
  memory, the draws of `stats.paired_bootstrap_interval`: the items are resampled once for
  both runs), and the sign test (an exact binomial test on wins against
  losses) says whether more items went up than down. The sign test rather than a t-test: the
  differences of 0..1 judge scores are lumpy (many ties at 0, jumps of 1), which it assumes
  nothing about.
- **ordinal steps** (liverag's -1..2, coverage's 0..5): the steps are ranks, not distances, so
  there is no mean. Up / down / same counts and the Wilcoxon signed-rank test (which ranks the
  sizes of the changes). For the CI gate, the interval is that of the *net share improved*,
  (up - down) / n, from the same paired bootstrap: -0.1 means one item in ten more went down
  than up.
- **labels** (expected_output's categories): no order, no difference; a transition matrix
  (before -> after) and, per label, McNemar's exact test: among the items that gained or lost
  the label, is one direction more frequent than chance? McNemar's exact test is a binomial
  test on those discordant items, so it is done with SciPy's `binomtest`.

A figure that is undefined on the data (no pairs, no item changed) is None, never NaN.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from scipy.stats import binomtest, wilcoxon

from ..stats.mean_bootstrap import paired_mean_interval

Interval = tuple[float, float]


@dataclass(frozen=True)
class ScoreStats:
    n: int
    mean_before: float | None
    mean_after: float | None
    mean_difference: float | None
    interval: Interval | None
    """95 % paired bootstrap interval of the mean of (after - before)."""
    wins: int
    losses: int
    ties: int
    sign_test_p: float | None
    """Two-sided exact sign test of wins against losses (ties left out); None when none changed."""


@dataclass(frozen=True)
class OrdinalStats:
    n: int
    up: int
    down: int
    same: int
    wilcoxon_p: float | None
    """Two-sided Wilcoxon signed-rank test on the step changes (zeros left out); None when none changed."""
    net_share_improved: float | None
    """(up - down) / n."""
    interval: Interval | None
    """95 % paired bootstrap interval of the net share improved."""
    steps: list[float] = field(default_factory=list)
    """The scale's steps, for the transition matrix's rows and columns."""
    transitions: dict[tuple[float, float], int] = field(default_factory=dict)


@dataclass(frozen=True)
class LabelTest:
    """McNemar's exact test for one label: items that lost it against items that gained it."""

    label: str
    lost: int
    gained: int
    p: float | None


@dataclass(frozen=True)
class LabelStats:
    n: int
    changed: int
    labels: list[str]
    transitions: dict[tuple[str, str], int]
    tests: list[LabelTest]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _rounded(interval: Interval | None) -> Interval | None:
    """Interval ends to 10 decimals: a difference of two means of two-decimal scores is 0.25,
    not 0.24999999999999994 (the bootstrap subtracts floats)."""
    return None if interval is None else (round(interval[0], 10), round(interval[1], 10))


def sign_test(wins: int, losses: int) -> float | None:
    """Two-sided exact binomial test of `wins` out of `wins + losses` against 1/2."""
    if wins + losses == 0:
        return None
    return _finite(binomtest(wins, wins + losses, 0.5).pvalue)


def score_stats(before: Sequence[float], after: Sequence[float]) -> ScoreStats:
    n = len(before)
    changes = [a - b for b, a in zip(before, after, strict=True)]
    wins = sum(1 for c in changes if c > 0)
    losses = sum(1 for c in changes if c < 0)
    interval = _rounded(paired_mean_interval(before, after))
    mean_before, mean_after = _mean(before), _mean(after)
    return ScoreStats(
        n=n, mean_before=mean_before, mean_after=mean_after,
        mean_difference=_mean(changes), interval=interval,
        wins=wins, losses=losses, ties=n - wins - losses, sign_test_p=sign_test(wins, losses),
    )


def wilcoxon_p(changes: Sequence[float]) -> float | None:
    """Two-sided Wilcoxon signed-rank p on the non-zero changes (SciPy's exact distribution
    when they have no ties and are few, its normal approximation otherwise)."""
    nonzero = [c for c in changes if c != 0]
    if not nonzero:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "exact p-value cannot be computed with ties": it falls back
        result = wilcoxon(nonzero, zero_method="wilcox", alternative="two-sided")
    return _finite(result.pvalue)


def ordinal_stats(before: Sequence[float], after: Sequence[float],
                  scale: tuple[float, float] | None) -> OrdinalStats:
    n = len(before)
    changes = [a - b for b, a in zip(before, after, strict=True)]
    up_flags = [1.0 if c > 0 else 0.0 for c in changes]
    down_flags = [1.0 if c < 0 else 0.0 for c in changes]
    up, down = int(sum(up_flags)), int(sum(down_flags))
    interval = _rounded(paired_mean_interval(down_flags, up_flags))
    observed = {float(v) for v in (*before, *after)}
    if scale is not None and all(float(v).is_integer() for v in scale):
        observed |= {float(v) for v in range(int(scale[0]), int(scale[1]) + 1)}
    transitions = Counter((float(b), float(a)) for b, a in zip(before, after, strict=True))
    return OrdinalStats(
        n=n, up=up, down=down, same=n - up - down, wilcoxon_p=wilcoxon_p(changes),
        net_share_improved=(up - down) / n if n else None, interval=interval,
        steps=sorted(observed), transitions=dict(transitions),
    )


def label_stats(before: Sequence[str], after: Sequence[str]) -> LabelStats:
    pairs = list(zip(before, after, strict=True))
    labels = list(dict.fromkeys([*before, *after]))
    tests = []
    for label in labels:
        lost = sum(1 for b, a in pairs if b == label and a != label)
        gained = sum(1 for b, a in pairs if b != label and a == label)
        tests.append(LabelTest(label, lost, gained, sign_test(gained, lost)))
    return LabelStats(n=len(pairs), changed=sum(1 for b, a in pairs if b != a), labels=labels,
                      transitions=dict(Counter(pairs)), tests=tests)
