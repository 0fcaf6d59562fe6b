"""The estimators against the published formulas, written out here with numpy on fixed data:
PPI (Angelopoulos et al., Science 2023): theta = mean(f over all) + mean(y - f over the
labelled); PPI++ (Angelopoulos, Duchi, Zrnic 2023): lambda = cov(y, f) / ((1 + n/N) var(f)),
clipped to [0, 1], variance lambda^2 var(f)/N + var(y - lambda f)/n; stratified PPI: strata
weighted by N_h / N, each stratum's variance shrunk by one pseudo-label of the widest variance. Intervals: estimate +- t(0.975, n - 1) * sqrt(variance)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from judgegraph.estimates.ppi import (
    effective_labels,
    labels_only,
    more_labels_to_halve,
    power_tuning,
    ppi_mean,
    stratified_means,
)

Y = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0], dtype=float)
F_LABELLED = np.array([0.9, 0.2, 0.8, 0.6, 0.4, 0.9, 0.7, 0.3, 0.1, 0.8, 1.0, 0.5])
F_ALL = np.concatenate([F_LABELLED, [0.1, 0.9, 0.95, 0.3, 0.6, 0.8, 0.85, 0.2, 0.7, 0.75, 0.65, 0.9, 0.4, 0.55]])


def test_ppi_with_lambda_one_is_the_judges_mean_plus_the_rectifier():
    n, big_n = len(Y), len(F_ALL)
    theta = F_ALL.mean() + (Y - F_LABELLED).mean()
    variance = F_ALL.var(ddof=1) / big_n + (Y - F_LABELLED).var(ddof=1) / n
    half = stats.t.ppf(0.975, n - 1) * math.sqrt(variance)
    got = ppi_mean(Y, F_LABELLED, F_ALL, lam=1.0)
    assert got.estimate == pytest.approx(theta, abs=1e-12)
    assert (got.low, got.high) == pytest.approx((theta - half, theta + half), abs=1e-12)


def test_ppi_plus_plus_tunes_lambda_by_the_papers_formula():
    n, big_n = len(Y), len(F_ALL)
    covariance = np.cov(Y, F_LABELLED, ddof=1)[0, 1]
    lam = float(np.clip(covariance / ((1 + n / big_n) * F_ALL.var(ddof=1)), 0, 1))
    theta = lam * F_ALL.mean() + (Y - lam * F_LABELLED).mean()
    variance = lam ** 2 * F_ALL.var(ddof=1) / big_n + (Y - lam * F_LABELLED).var(ddof=1) / n
    half = stats.t.ppf(0.975, n - 1) * math.sqrt(variance)
    got = ppi_mean(Y, F_LABELLED, F_ALL)
    assert 0 < lam < 1 and got.lam == pytest.approx(lam, abs=1e-12)
    assert got.estimate == pytest.approx(theta, abs=1e-12)
    assert (got.low, got.high) == pytest.approx((theta - half, theta + half), abs=1e-12)
    only = labels_only(Y)
    half_only = stats.t.ppf(0.975, n - 1) * Y.std(ddof=1) / math.sqrt(n)
    assert (only.estimate, only.low, only.high) == pytest.approx((Y.mean(), Y.mean() - half_only, Y.mean() + half_only))
    assert effective_labels(n, only, got) == pytest.approx(n * (Y.var(ddof=1) / n) / variance)


def test_lambda_is_clipped_a_judge_pointing_the_wrong_way_gets_no_weight():
    assert power_tuning(Y, 1 - F_LABELLED, 1 - F_ALL) == 0.0
    wrong = ppi_mean(Y, 1 - F_LABELLED, 1 - F_ALL)
    assert (wrong.estimate, wrong.variance) == pytest.approx((labels_only(Y).estimate, labels_only(Y).variance))
    squeezed = 0.5 + 0.1 * (F_LABELLED - 0.5)  # informative but on a tenth of the scale: lambda > 1, clipped
    assert np.cov(Y, squeezed)[0, 1] / ((1 + 12 / 26) * np.var(0.5 + 0.1 * (F_ALL - 0.5), ddof=1)) > 1
    assert power_tuning(Y, squeezed, 0.5 + 0.1 * (F_ALL - 0.5)) == 1.0


def test_a_constant_judge_gives_lambda_zero_not_a_division_by_zero():
    assert power_tuning(Y, np.full(len(Y), 0.5), np.full(30, 0.5)) == 0.0


def test_the_stratified_estimate_weights_each_strata_ppi_by_its_share_of_the_items():
    rng = np.random.default_rng(3)
    strata_all = np.repeat([0, 1], [40, 60])
    f_all = np.where(strata_all == 0, rng.uniform(0, 0.5, 100), rng.uniform(0.5, 1, 100))
    labelled = np.concatenate([rng.choice(40, 12, replace=False), 40 + rng.choice(60, 8, replace=False)])
    y = (rng.uniform(size=20) < f_all[labelled]).astype(float)
    only, corrected = stratified_means(y, f_all[labelled], strata_all[labelled], f_all, strata_all)
    theta = variance = only_theta = only_var = 0.0
    for h, size in ((0, 40), (1, 60)):
        weight = size / 100
        yh, fh, fall = y[strata_all[labelled] == h], f_all[labelled][strata_all[labelled] == h], f_all[strata_all == h]
        nh = len(yh)
        part = ppi_mean(yh, fh, fall)
        theta += weight * part.estimate
        # each stratum's variance with one pseudo-label of the widest variance on 0..1, 1/4
        rectifier = ((nh - 1) * (yh - part.lam * fh).var(ddof=1) + 0.25) / nh / nh
        variance += weight ** 2 * (part.imputed_variance + rectifier)
        only_theta += weight * yh.mean()
        only_var += weight ** 2 * ((nh - 1) * yh.var(ddof=1) + 0.25) / nh / nh
    t = stats.t.ppf(0.975, 20 - 2)
    assert corrected.estimate == pytest.approx(theta) and corrected.variance == pytest.approx(variance)
    assert (corrected.low, corrected.high) == pytest.approx((theta - t * math.sqrt(variance), theta + t * math.sqrt(variance)))
    assert (only.estimate, only.variance) == pytest.approx((only_theta, only_var))


def test_more_labels_to_halve_solves_the_variance_for_a_quarter():
    got = ppi_mean(Y, F_LABELLED, F_ALL)
    more = more_labels_to_halve(len(Y), 10_000, got)
    assert more is not None
    labelled_part = got.variance - got.imputed_variance
    assert got.imputed_variance + labelled_part * len(Y) / (len(Y) + more) <= got.variance / 4 + 1e-12
    assert got.imputed_variance + labelled_part * len(Y) / (len(Y) + more - 1) > got.variance / 4
    assert more_labels_to_halve(len(Y), len(F_ALL), got) is None  # more labels than items


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(10, 60), noise=st.floats(0.0, 1.0))
def test_the_corrected_interval_is_never_much_wider_than_the_labels_alone(seed, n, noise):
    """lambda is chosen to minimise the variance; estimated on the same labels it can miss by a
    little, never by a wide margin (the interval of a useless judge is the labels' own)."""
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < 0.6).astype(float)
    f_lab = np.clip(y * (1 - noise) + rng.uniform(size=n) * noise, 0, 1)
    f_all = np.concatenate([f_lab, np.clip(rng.uniform(size=400), 0, 1)])
    only, corrected = labels_only(y), ppi_mean(y, f_lab, f_all)
    assert math.isfinite(corrected.low) and corrected.low <= corrected.estimate <= corrected.high
    assert corrected.variance <= only.variance * 1.5 + 1e-12
