"""The estimators: a mean from labels alone, and the label-corrected (prediction-powered) mean.

Notation: N items, each with the judge's score f; n of them, drawn at random, also carry a
person's label y. The quantity estimated is the mean of y over the N items.

- **labels only**: mean(y), variance var(y) / n.
- **PPI++ mean** (Angelopoulos, Duchi and Zrnic, "PPI++: Efficient Prediction-Powered
  Inference", 2023, mean estimation):

      theta(lambda) = lambda * mean(f over all N) + mean(y - lambda * f over the n labelled)
      lambda        = cov(y, f on the labelled) / ((1 + n / N) * var(f over all N)), clipped to [0, 1]
      variance      = lambda^2 * var(f over all N) / N + var(y - lambda * f on the labelled) / n

  lambda = 1 is the original prediction-powered estimate (Angelopoulos et al., Science 2023):
  the judge's mean plus the mean of its errors on the labelled items (the "rectifier").
  lambda = 0 is the labels-only mean: a judge that tells nothing is given no weight, so the
  interval is never wider than the labels' alone by more than the lambda estimate's noise.
  Whatever the judge's errors, theta is unbiased: the rectifier measures them.
- **stratified** (Fisch et al., "Stratified Prediction-Powered Inference", 2024): the items
  are cut into strata by the judge's score and each stratum sampled at its own rate; PPI++ is
  run within each stratum (its own lambda) and the strata are weighted by their share of the
  items, W_h = N_h / N: theta = sum W_h theta_h, variance = sum W_h^2 variance_h. The
  labels-only estimate of a stratified sample is weighted the same way (a plain mean of
  labels would over-count the strata sampled more).

The 95 % interval is theta +- t * sqrt(variance), with t Student's quantile for n - 1 degrees
of freedom (n - H for H strata) rather than the normal 1.96: the same at a thousand labels,
6 % wider at 20, where the variance itself is estimated from few labels. Variances use n - 1
(ddof 1). The published reference code (`ppi_py`) uses the normal quantile and ddof 0; the
tests check these formulas against a computation written out from the paper's.

The labelled items are among the N (they are a sample of the results file), so the
"unlabelled" mean here is over all N items: for the mean of the labels over the N items,
the estimator stays unbiased and the variance above is conservative (docs/estimates.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z_DEGREES_OF_FREEDOM_CAP = 10_000


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
    """The part of `variance` that comes from the judge's scores over all items (which more
    labels do not shrink)."""

    def as_json(self) -> dict[str, float]:
        return {"estimate": _round(self.estimate), "low": _round(self.low), "high": _round(self.high)}

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def _round(value: float) -> float:
    return round(float(value), 6)


def t_quantile(degrees_of_freedom: int) -> float:
    """The two-sided 95 % quantile of Student's t (`scipy.special.stdtrit`)."""
    from scipy.special import stdtrit

    return float(stdtrit(max(1, min(degrees_of_freedom, Z_DEGREES_OF_FREEDOM_CAP)), 0.975))


def _var(values: np.ndarray) -> float:
    return float(np.var(values, ddof=1)) if len(values) > 1 else 0.0


def _interval(estimate: float, variance: float, n: int, dof: int, lam: float | None,
              imputed: float = 0.0) -> MeanEstimate:
    half = t_quantile(dof) * math.sqrt(max(variance, 0.0))
    return MeanEstimate(estimate, estimate - half, estimate + half, variance, n, lam, imputed)


def labels_only(labels: np.ndarray) -> MeanEstimate:
    """The mean of the labels with its t interval."""
    y = np.asarray(labels, dtype=float)
    return _interval(float(y.mean()), _var(y) / len(y), len(y), len(y) - 1, None)


def power_tuning(labels: np.ndarray, judged_labelled: np.ndarray, judged_all: np.ndarray) -> float:
    """PPI++'s lambda for the mean, clipped to [0, 1]; 0 when the judge's scores do not vary."""
    y, f = np.asarray(labels, dtype=float), np.asarray(judged_labelled, dtype=float)
    n, big_n = len(y), len(judged_all)
    spread = _var(np.asarray(judged_all, dtype=float))
    if n < 2 or spread == 0.0:
        return 0.0
    covariance = float(np.sum((y - y.mean()) * (f - f.mean())) / (n - 1))
    return float(np.clip(covariance / ((1 + n / big_n) * spread), 0.0, 1.0))


def _ppi_parts(y: np.ndarray, f: np.ndarray, f_all: np.ndarray, lam: float) -> tuple[float, float, float]:
    """(theta, imputed variance, rectifier variance) for one lambda."""
    mean_all = float(f_all.mean())
    rectifier = y - lam * f
    theta = lam * mean_all + float(rectifier.mean())
    return theta, lam * lam * _var(f_all) / len(f_all), _var(rectifier) / len(y)


def ppi_mean(labels: np.ndarray, judged_labelled: np.ndarray, judged_all: np.ndarray,
             lam: float | None = None) -> MeanEstimate:
    """The PPI++ mean (power-tuned unless `lam` is given) with its t interval."""
    y = np.asarray(labels, dtype=float)
    f = np.asarray(judged_labelled, dtype=float)
    f_all = np.asarray(judged_all, dtype=float)
    lam = power_tuning(y, f, f_all) if lam is None else lam
    theta, imputed, rectified = _ppi_parts(y, f, f_all, lam)
    return _interval(theta, imputed + rectified, len(y), len(y) - 1, lam, imputed)


def stratified_means(labels: np.ndarray, judged_labelled: np.ndarray, strata_labelled: np.ndarray,
                     judged_all: np.ndarray, strata_all: np.ndarray,
                     scale: tuple[float, float] = (0.0, 1.0)) -> tuple[MeanEstimate, MeanEstimate]:
    """(labels only, PPI++) for a stratified sample; `strata_*` hold each item's stratum index,
    `scale` the labels' range. Every stratum that holds items must hold two labels or more
    (`StratumError` otherwise)."""
    y, f = np.asarray(labels, dtype=float), np.asarray(judged_labelled, dtype=float)
    f_all = np.asarray(judged_all, dtype=float)
    big_n, n = len(f_all), len(y)
    only_theta = only_var = theta = variance = imputed = weighted_lam = 0.0
    parts = []
    for stratum in np.unique(strata_all):
        in_all, in_labelled = strata_all == stratum, strata_labelled == stratum
        n_h = int(in_labelled.sum())
        if n_h < 2:
            raise StratumError(int(stratum), n_h)
        y_h, f_h, f_all_h = y[in_labelled], f[in_labelled], f_all[in_all]
        lam = power_tuning(y_h, f_h, f_all_h)
        parts.append((int(in_all.sum()) / big_n, n_h, y_h, lam, _ppi_parts(y_h, f_h, f_all_h, lam)))
    dof = n - len(parts)
    widest = (scale[1] - scale[0]) ** 2 / 4
    for weight, n_h, y_h, lam, (theta_h, imputed_h, rectified_h) in parts:
        only_theta += weight * float(y_h.mean())
        only_var += weight * weight * _shrunk(_var(y_h), n_h, widest) / n_h
        theta += weight * theta_h
        rectified_h = _shrunk(rectified_h * n_h, n_h, widest) / n_h
        variance += weight * weight * (imputed_h + rectified_h)
        imputed += weight * weight * imputed_h
        weighted_lam += weight * lam
    return (_interval(only_theta, only_var, n, dof, None),
            _interval(theta, variance, n, dof, weighted_lam, imputed))


STRATUM_PRIOR_LABELS = 1
"""Pseudo-labels of the widest variance each stratum's variance estimate is shrunk toward."""


def _shrunk(variance: float, n_h: int, pooled: float) -> float:
    """A stratum's variance estimate from its few labels, shrunk toward the widest variance
    labels on the scale can have ((high - low)^2 / 4): a stratum where the judge is sure often
    shows few labels, all alike (a variance of 0 that is not one), and an interval built on
    that covers far less than 95 % (measured: 82 % at 20 labels in three strata). One
    pseudo-label, as Agresti and Coull's interval adds for a proportion, keeps it honest; with
    many labels the stratum's own estimate wins."""
    weight = STRATUM_PRIOR_LABELS
    return ((n_h - 1) * variance + weight * pooled) / (n_h - 1 + weight)


class StratumError(ValueError):
    """A stratum with items and fewer than two labels: its variance cannot be estimated."""

    def __init__(self, stratum: int, labels: int) -> None:
        super().__init__(f"stratum {stratum} has {labels} label(s)")
        self.stratum, self.labels = stratum, labels


def effective_labels(n: int, only: MeanEstimate, corrected: MeanEstimate) -> float:
    """"Your n labels are worth this many labels alone": n * var(labels only) / var(corrected)."""
    if corrected.variance <= 0.0:
        return float(n)
    return n * only.variance / corrected.variance


def more_labels_to_halve(n: int, n_items: int, corrected: MeanEstimate) -> int | None:
    """About how many more labels (drawn the same way) would halve the corrected interval: the
    labelled part of the variance shrinks as 1/n, the judge's part over all items does not.
    None when no number of labels up to the items' count would do it."""
    target = corrected.variance / 4
    labelled_part = corrected.variance - corrected.imputed_variance
    if labelled_part <= 0.0 or target <= corrected.imputed_variance:
        return None
    factor = labelled_part / (target - corrected.imputed_variance)
    needed = math.ceil(n * factor - 1e-9)
    return needed - n if needed <= n_items else None
