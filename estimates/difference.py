"""The label-corrected difference of a metric's mean between two runs of the same items.

`judgegraph compare BEFORE AFTER --labels-a LA --labels-b LB`: LA labels answers of BEFORE,
LB answers of AFTER (a label belongs to one run's answer: the same question answered by two
versions of a system is two things to label). The quantity estimated is the mean over the
items both runs judged of (label after - label before).

- **paired** (the same items labelled in both runs): PPI++ on the per-item differences,
  labels d_y = y_after - y_before against the judge's d_f = f_after - f_before on the
  labelled items, and d_f over all items both runs judged (`ppi.ppi_mean`). The item's own
  difficulty cancels in d_y as it does in the judge's paired difference, so the interval is
  the narrowest the labels allow.
- **unpaired** (label sets that do not share enough items): each run's mean is corrected on
  its own (PPI++ over the items both runs judged), and the difference of the two estimates
  gets the sum of their variances. The two estimates share the items, and their
  correlation, usually positive (a hard item is hard for both versions), would shrink the
  difference's variance: leaving it out makes the interval conservative, never too narrow
  for that reason. Student's t with min(n_before, n_after) - 1 degrees of freedom.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ppi import MeanEstimate, Scale, interval, labels_only, ppi_mean, unsampled_share


@dataclass(frozen=True)
class DifferenceEstimate:
    paired: bool
    labels_only: MeanEstimate
    corrected: MeanEstimate


def difference_of(after: MeanEstimate, before: MeanEstimate, scale: Scale | None = None) -> MeanEstimate:
    """after - before of two independent estimates: variances add, the fewer labels set t, and
    the interval stays on the difference's `scale`."""
    n = min(after.n_labels, before.n_labels)
    variance = after.variance + before.variance
    n_items = after.n_items if after.n_items == before.n_items else None
    share = unsampled_share(n, n_items)
    spread = variance * n / share if share > 0 else 0.0  # what one more label pair carries, as if uniform
    return interval(after.estimate - before.estimate, spread, n, n - 1, None, n_items, scale, variance)


def difference_scale(scale: Scale | None) -> Scale | None:
    """A difference of two values on `scale` lies on [-(high - low), +(high - low)]."""
    return None if scale is None else (-(scale[1] - scale[0]), scale[1] - scale[0])


def paired_difference(y_before: np.ndarray, y_after: np.ndarray, f_before_labelled: np.ndarray,
                      f_after_labelled: np.ndarray, f_before_all: np.ndarray,
                      f_after_all: np.ndarray, scale: Scale | None = None) -> DifferenceEstimate:
    """PPI++ on the per-item differences (the same items labelled in both runs); `scale` is the
    metric's, the differences' is twice as wide."""
    d_y = np.asarray(y_after, dtype=float) - np.asarray(y_before, dtype=float)
    d_f = np.asarray(f_after_labelled, dtype=float) - np.asarray(f_before_labelled, dtype=float)
    d_all = np.asarray(f_after_all, dtype=float) - np.asarray(f_before_all, dtype=float)
    across = difference_scale(scale)
    return DifferenceEstimate(True, labels_only(d_y, len(d_all), across), ppi_mean(d_y, d_f, d_all, scale=across))


def unpaired_difference(y_before: np.ndarray, f_before_labelled: np.ndarray, f_before_all: np.ndarray,
                        y_after: np.ndarray, f_after_labelled: np.ndarray,
                        f_after_all: np.ndarray, scale: Scale | None = None) -> DifferenceEstimate:
    """Each run corrected by its own labels, the two estimates subtracted (variances add)."""
    across = difference_scale(scale)
    return DifferenceEstimate(
        False,
        difference_of(labels_only(y_after, len(f_after_all), scale), labels_only(y_before, len(f_before_all), scale),
                      across),
        difference_of(ppi_mean(y_after, f_after_labelled, f_after_all, scale=scale),
                      ppi_mean(y_before, f_before_labelled, f_before_all, scale=scale), across))
