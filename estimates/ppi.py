"""The estimators: a mean from labels alone, and the label-corrected (prediction-powered) mean.

Notation: N items, each with the judge's score f; n of them, drawn at random, also carry a
person's label y. The quantity estimated is the mean of y over these N items: a finite
population, which is what a team asks about ("how good is this batch?").

- **labels only**: mean(y), variance (1 - n/N) S^2 / n.
- **PPI++ mean** (Angelopoulos, Duchi and Zrnic, "PPI++: Efficient Prediction-Powered
  Inference", 2023, mean estimation):

      theta(lambda) = lambda * mean(f over all N) + mean(y - lambda * f over the n labelled)
      lambda        = cov(y, f on the labelled) / ((1 + n / N) * var(f over all N)), clipped to [0, 1]
      variance      = (1 - n/N) * S^2(y - lambda * f) / n

  lambda = 1 is the original prediction-powered estimate (Angelopoulos et al., Science 2023):
  the judge's mean plus the mean of its errors on the labelled items (the "rectifier").
  lambda = 0 is the labels-only mean. Whatever the judge's errors, theta is unbiased.
  The judge's mean over the N items is known exactly (every item is scored), so for the mean
  of these N items it carries no sampling variance: the papers' lambda^2 var(f)/N term is for
  a mean over an unseen population, and here the only noise is which n items were labelled,
  a draw without replacement, hence the finite-population factor (1 - n/N): labelling every
  item gives the exact mean with an interval of width 0.
- **S^2, floored**: the sample variance of the n terms, shrunk by one pseudo-label of the
  widest variance the scale allows ((high - low)^2 / 4), as Agresti and Coull's interval adds
  pseudo-observations to a proportion: ((n - 1) s^2 + widest) / n. Ten labels all alike (a
  5 % failure rate shows none in 60 % of draws of 10) have s^2 = 0, a variance that is not
  one; with the floor their interval is about +-0.11 on 0..1 instead of a point, and the
  floor fades as labels accumulate (docs/estimates.md says why this and not Wilson's or a
  bootstrap).
- **stratified** (Fisch et al., "Stratified Prediction-Powered Inference", 2024): PPI++ per
  stratum of the judge's score, weighted by W_h = N_h / N, each with its own (1 - n_h/N_h)
  and floor.
- **active** (Zrnic and Candes, "Active Statistical Inference", 2024): the items were drawn
  one after another without replacement, each with a probability that grows with the judge's
  uncertainty (`labelling.design`); the label line records q_k, the probability its item had
  of being drawn at its turn. Des Raj's ordered estimator (1956) of the total of
  u = y - lambda f: z_k = (sum of u over the items drawn before) + u_k / q_k is unbiased for
  it given any past, so the z_k are martingale differences around it: their mean is unbiased
  after any number of draws (the person may stop anywhere) and their sample variance / n
  estimates its variance (floored as above). This is inverse-probability-weighted PPI for a
  sequential draw.

The 95 % interval is theta +- t * sqrt(variance), t Student's quantile for n - 1 degrees of
freedom (n - H for H strata), then intersected with the metric's scale (the mean lies on it,
so cutting off what lies outside loses no coverage: a faithfulness interval never reaches
1.1), the estimate clipped likewise (a projection onto the scale only moves it closer to the
truth). `benchmarks/estimate_validity.py` measures the coverage in every corner.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z_DEGREES_OF_FREEDOM_CAP = 10_000
PRIOR_LABELS = 4
"""Pseudo-labels, half at each end of the scale, that the interval adds (Agresti and Coull's
"add two successes and two failures"): each variance estimate is shrunk toward the widest
variance by this many, and the interval's centre pulled toward the scale's middle by them."""

Scale = tuple[float, float]


@dataclass(frozen=True)
class MeanEstimate:
    estimate: float
    low: float
    high: float
    variance: float
    n_labels: int
    lam: float | None = None
    """PPI++'s lambda (None for labels only); per stratum for a stratified design, their
    items-weighted mean."""
    imputed_variance: float = 0.0
    """The part of `variance` no number of labels shrinks; 0 for the mean of the N items
    themselves (kept for callers that add estimates)."""
    per_label_variance: float = 0.0
    """S^2: what one label's term contributes, floored; the variance is (1 - n/N) S^2 / n."""
    n_items: int | None = None
    """N of the finite-population factor (None: no factor, as in an active design)."""
    dof: int = 1

    def as_json(self) -> dict[str, float]:
        return {"estimate": _round(self.estimate), "low": _round(self.low), "high": _round(self.high)}

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def spread_half_width(self) -> float:
        """t * sqrt(variance): the half width before the interval is cut to the scale."""
        return t_quantile(self.dof) * math.sqrt(max(self.variance, 0.0))

    @property
    def exact(self) -> bool:
        """Every item is labelled: the labels' mean is the mean, with no interval around it."""
        return self.n_items is not None and self.n_labels >= self.n_items


def _round(value: float) -> float:
    return round(float(value), 6)


def t_quantile(degrees_of_freedom: int) -> float:
    """The two-sided 95 % quantile of Student's t (`scipy.special.stdtrit`)."""
    from scipy.special import stdtrit

    return float(stdtrit(max(1, min(degrees_of_freedom, Z_DEGREES_OF_FREEDOM_CAP)), 0.975))


def _var(values: np.ndarray) -> float:
    return float(np.var(values, ddof=1)) if len(values) > 1 else 0.0


def widest_variance(scale: Scale | None) -> float:
    """The largest variance values on `scale` can have: half at each end."""
    return 0.0 if scale is None else (scale[1] - scale[0]) ** 2 / 4


def floored(variance: float, n: int, widest: float) -> float:
    """A variance estimated from n values, shrunk toward `widest` by PRIOR_LABELS pseudo-labels
    (half at each end of the scale): n labels all alike are not certain."""
    if widest <= 0.0:
        return variance
    return ((n - 1) * variance + PRIOR_LABELS * widest) / (n - 1 + PRIOR_LABELS)


def unsampled_share(n: int, n_items: int | None) -> float:
    """The finite-population factor 1 - n/N (1 without a finite population)."""
    return 1.0 if not n_items else max(0.0, 1.0 - n / n_items)


def clip_to(scale: Scale | None, value: float) -> float:
    return float(value) if scale is None else float(min(max(value, scale[0]), scale[1]))


def interval(estimate: float, per_label_variance: float, n: int, dof: int, lam: float | None,
             n_items: int | None, scale: Scale | None, variance: float | None = None) -> MeanEstimate:
    """centre +- t * sqrt(variance), kept on `scale`, with the estimate inside it. `variance`
    defaults to (1 - n/N) S^2 / n. The centre is the estimate pulled toward the scale's middle
    by PRIOR_LABELS pseudo-labels (Agresti-Coull), times 1 - n/N so that it is the estimate
    itself once every item is labelled: ten labels all 1 then give [0.66, 1], not [0.89, 1],
    which a batch whose mean is 0.8 shows one time in ten."""
    share = unsampled_share(n, n_items)
    if variance is None:
        variance = share * per_label_variance / max(n, 1)
    centre = estimate
    if scale is not None:
        centre += share * PRIOR_LABELS * ((scale[0] + scale[1]) / 2 - estimate) / (n + PRIOR_LABELS)
    half = t_quantile(dof) * math.sqrt(max(variance, 0.0))
    estimate = clip_to(scale, estimate)
    return MeanEstimate(estimate, min(clip_to(scale, centre - half), estimate),
                        max(clip_to(scale, centre + half), estimate),
                        variance, n, lam, 0.0, per_label_variance, n_items, dof)


def labels_only(labels: np.ndarray, n_items: int | None = None, scale: Scale | None = None) -> MeanEstimate:
    """The mean of the labels with its t interval (over `n_items` items when the labels are a
    sample of a finite batch)."""
    y = np.asarray(labels, dtype=float)
    spread = floored(_var(y), len(y), widest_variance(scale))
    return interval(float(y.mean()), spread, len(y), len(y) - 1, None, n_items, scale)


def power_tuning(labels: np.ndarray, judged_labelled: np.ndarray, judged_all: np.ndarray) -> float:
    """PPI++'s lambda for the mean, clipped to [0, 1]; 0 when the judge's scores do not vary."""
    y, f = np.asarray(labels, dtype=float), np.asarray(judged_labelled, dtype=float)
    n, big_n = len(y), len(judged_all)
    spread = _var(np.asarray(judged_all, dtype=float))
    if n < 2 or spread == 0.0:
        return 0.0
    covariance = float(np.sum((y - y.mean()) * (f - f.mean())) / (n - 1))
    return float(np.clip(covariance / ((1 + n / big_n) * spread), 0.0, 1.0))


def _ppi_parts(y: np.ndarray, f: np.ndarray, f_all: np.ndarray, lam: float) -> tuple[float, float]:
    """(theta, S^2 of the rectifier, unfloored) for one lambda."""
    rectifier = y - lam * f
    return lam * float(f_all.mean()) + float(rectifier.mean()), _var(rectifier)


def ppi_mean(labels: np.ndarray, judged_labelled: np.ndarray, judged_all: np.ndarray,
             lam: float | None = None, scale: Scale | None = None) -> MeanEstimate:
    """The PPI++ mean (power-tuned unless `lam` is given) of the labels over the items of
    `judged_all`, among which the labelled ones are, with its t interval."""
    y = np.asarray(labels, dtype=float)
    f = np.asarray(judged_labelled, dtype=float)
    f_all = np.asarray(judged_all, dtype=float)
    lam = power_tuning(y, f, f_all) if lam is None else lam
    theta, spread = _ppi_parts(y, f, f_all, lam)
    return interval(theta, floored(spread, len(y), widest_variance(scale)), len(y), len(y) - 1, lam,
                    len(f_all), scale)


def active_mean(labels: np.ndarray, judged_labelled: np.ndarray, judged_all: np.ndarray,
                draw_probabilities: Sequence[float], lam: float | None = None,
                scale: Scale | None = None) -> MeanEstimate:
    """The PPI++ mean of an active (sequential, without replacement) draw, the labels in the
    order they were drawn, each with the probability q_k its item had at its turn: Des Raj's
    ordered estimator of the rectifier's total (see the module's docstring). `lam=0` gives
    the labels-only estimate of the same draw."""
    y = np.asarray(labels, dtype=float)
    f = np.asarray(judged_labelled, dtype=float)
    f_all = np.asarray(judged_all, dtype=float)
    q = np.asarray(draw_probabilities, dtype=float)
    big_n = len(f_all)
    lam = power_tuning(y, f, f_all) if lam is None else lam
    rectifier = y - lam * f
    before = np.concatenate([[0.0], np.cumsum(rectifier)[:-1]])
    terms = (before + rectifier / q) / big_n
    theta = lam * float(f_all.mean()) + float(terms.mean())
    spread = floored(_var(terms), len(y), widest_variance(scale))
    return interval(theta, spread, len(y), len(y) - 1, lam, None, scale)


def stratified_means(labels: np.ndarray, judged_labelled: np.ndarray, strata_labelled: np.ndarray,
                     judged_all: np.ndarray, strata_all: np.ndarray,
                     scale: Scale = (0.0, 1.0)) -> tuple[MeanEstimate, MeanEstimate]:
    """(labels only, PPI++) for a stratified sample; `strata_*` hold each item's stratum index,
    `scale` the labels' range. Every stratum that holds items must hold two labels or more
    (`StratumError` otherwise)."""
    y, f = np.asarray(labels, dtype=float), np.asarray(judged_labelled, dtype=float)
    f_all = np.asarray(judged_all, dtype=float)
    big_n, n = len(f_all), len(y)
    only_theta = only_var = theta = variance = weighted_lam = 0.0
    parts = []
    for stratum in np.unique(strata_all):
        in_all, in_labelled = strata_all == stratum, strata_labelled == stratum
        n_h = int(in_labelled.sum())
        if n_h < 2:
            raise StratumError(int(stratum), n_h)
        y_h, f_h, f_all_h = y[in_labelled], f[in_labelled], f_all[in_all]
        lam = power_tuning(y_h, f_h, f_all_h)
        parts.append((int(in_all.sum()), n_h, y_h, lam, _ppi_parts(y_h, f_h, f_all_h, lam)))
    dof = n - len(parts)
    widest = widest_variance(scale)
    for size, n_h, y_h, lam, (theta_h, spread_h) in parts:
        weight, share = size / big_n, unsampled_share(n_h, size)
        only_theta += weight * float(y_h.mean())
        only_var += weight * weight * share * floored(_var(y_h), n_h, widest) / n_h
        theta += weight * theta_h
        variance += weight * weight * share * floored(spread_h, n_h, widest) / n_h
        weighted_lam += weight * lam
    return (interval(only_theta, _pooled(only_var, n, big_n), n, dof, None, big_n, scale, only_var),
            interval(theta, _pooled(variance, n, big_n), n, dof, weighted_lam, big_n, scale, variance))


def _pooled(variance: float, n: int, n_items: int) -> float:
    """The S^2 a uniform sample of n would need for `variance` (what "worth" and "to halve" read)."""
    share = unsampled_share(n, n_items)
    return variance * n / share if share > 0 else 0.0


class StratumError(ValueError):
    """A stratum with items and fewer than two labels: its variance cannot be estimated."""

    def __init__(self, stratum: int, labels: int) -> None:
        super().__init__(f"stratum {stratum} has {labels} label(s)")
        self.stratum, self.labels = stratum, labels


def labels_for_variance(spread: float, variance: float, n_items: int | None) -> float:
    """Labels m of a uniform draw whose (1 - m/N) spread / m is `variance` (real-valued)."""
    if spread <= 0.0:
        return 1.0
    inverse = variance / spread + (1 / n_items if n_items else 0.0)
    return math.inf if inverse <= 0.0 else 1 / inverse


def effective_labels(n: int, only: MeanEstimate, corrected: MeanEstimate) -> float:
    """"Your n labels are worth this many labels alone": the size of a uniform labels-only
    sample with the corrected interval's variance, out of the batch's N items (so never more
    than N: labelling every item is worth exactly every item)."""
    n_items = corrected.n_items
    if corrected.exact or corrected.variance <= 0.0:
        return float(n_items if n_items else n)
    if only.per_label_variance <= 0.0:
        return float(n)
    return labels_for_variance(only.per_label_variance, corrected.variance, n_items)


def labels_for_half_width(estimate: MeanEstimate, half_width: float, limit: int | None = None) -> int | None:
    """About how many labels in all (drawn the same way, t as now) would make the interval's
    half width at most `half_width`; with a finite population at most its size (labelling
    every item is exact). None when no number up to `limit` (the batch's items, for a draw
    with no finite-population factor such as the active one) would."""
    n_items = estimate.n_items
    if estimate.n_labels >= (n_items or math.inf) or estimate.variance <= 0.0:
        return estimate.n_labels
    if half_width <= 0.0:
        return n_items
    target = (half_width / t_quantile(estimate.dof)) ** 2
    needed = max(math.ceil(labels_for_variance(estimate.per_label_variance, target, n_items) - 1e-9), 1)
    if n_items:
        return min(needed, n_items)
    return None if limit is not None and needed > limit else needed


def more_labels_to_halve(n: int, n_items: int, corrected: MeanEstimate) -> int | None:
    """About how many more labels (drawn the same way) would halve the corrected interval;
    None when every item is labelled already (the mean is exact). With the finite-population
    factor it is at most the items left to label."""
    if corrected.exact or n >= n_items:
        return None
    total = labels_for_half_width(corrected, corrected.spread_half_width / 2)
    if total is None:
        return None
    return max(total - n, 0)
