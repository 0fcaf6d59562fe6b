"""The escalation band's fit (fixed-sequence testing, Jung et al. 2024): its guarantee on a
synthetic set, where the first judge's confidence is calibrated and agreements are drawn from it.
The band is fitted on a small set and checked on a large held-out one, over many seeded draws:
the kept decisions meet the target in at least 1 - delta of them, less the held-out set's own
sampling noise."""

from __future__ import annotations

import numpy as np
import pytest

from judgegraph.stats.fixed_sequence import NOTHING_KEPT, fit_threshold


def _draw(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    confidence = rng.uniform(0.5, 1.0, n)
    return confidence, rng.uniform(size=n) < confidence  # calibrated: right with probability c


@pytest.mark.parametrize("target", [0.9, 0.95])
def test_the_target_is_met_on_held_out_decisions_in_most_seeded_draws(target):
    delta, met, kept_shares = 0.1, 0, []
    draws = 200
    for seed in range(draws):
        rng = np.random.default_rng(seed)
        fit = fit_threshold(*_draw(rng, 600), target=target, delta=delta)
        confidence, agrees = _draw(rng, 20_000)
        kept = confidence >= fit.threshold
        if fit.threshold >= NOTHING_KEPT or not kept.any():
            met += 1  # nothing kept: every decision is the second judge's own
            continue
        kept_shares.append(kept.mean())
        met += agrees[kept].mean() >= target - 0.005  # the held-out set's own noise, +-0.005
    assert met / draws >= 1 - delta - 0.03
    assert np.mean(kept_shares) > 0.05  # and it keeps decisions: not a vacuous band


def test_a_fit_on_too_few_decisions_keeps_none():
    fit = fit_threshold([0.99] * 10, [True] * 10, target=0.95, delta=0.1)
    assert fit.threshold == NOTHING_KEPT and fit.kept == 0


def test_a_first_judge_that_always_agrees_keeps_everything_it_can_test():
    confidence = list(np.linspace(0.5, 1.0, 500))
    fit = fit_threshold(confidence, [True] * 500, target=0.9, delta=0.1)
    assert fit.threshold == 0.5 and fit.kept == 500
