"""The paired bootstrap of a mean difference in numpy (`stats.mean_bootstrap`), which `compare`
uses: the same draws as `stats.bootstrap.resample_draws` (Python's seeded generator), the same
interval as the straightforward reference up to float summation, in bounded chunks."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgegraph.comparison.paired_stats import ordinal_stats, score_stats
from judgegraph.stats.bootstrap import paired_bootstrap_interval, resample_draws
from judgegraph.stats.mean_bootstrap import draw_chunks, paired_mean_interval


def reference_interval(before: list[float], after: list[float]) -> tuple[float, float] | None:
    """The estimator as it was written first: Python lists, one resample at a time."""
    def mean_over(values):
        return lambda sample: sum(values[i] for i in sample) / len(sample)

    return paired_bootstrap_interval(mean_over(before), mean_over(after), len(before)) if before else None


@pytest.mark.parametrize("units", [1, 2, 3, 7, 64, 1000, 65_537])
@pytest.mark.parametrize("chunk_cells", [1, 999, 2_000_000])
def test_the_chunks_are_pythons_draws_row_for_row(units, chunk_cells):
    expected = np.array(resample_draws(units, 40, 941))
    got = np.concatenate(list(draw_chunks(units, 40, 941, chunk_cells=chunk_cells)))
    assert got.shape == expected.shape and (got == expected).all()


def test_a_chunk_never_holds_more_than_its_cells_whatever_the_resamples():
    shapes = [rows.shape for rows in draw_chunks(5_000, resamples=1_000, chunk_cells=20_000)]
    assert sum(rows for rows, _ in shapes) == 1_000
    assert max(rows * units for rows, units in shapes) <= 20_000


def test_on_fixed_seeded_data_the_interval_is_the_references():
    generator = random.Random(7)
    before = [round(generator.random(), 2) for _ in range(500)]
    after = [round(min(1.0, b + generator.gauss(0.03, 0.2)), 2) for b in before]
    assert paired_mean_interval(before, after) == pytest.approx(reference_interval(before, after), abs=1e-12)


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=60),
       st.integers(1, 500))
def test_any_paired_scores_give_the_reference_interval(pairs, chunk_cells):
    before, after = [b for b, _ in pairs], [a for _, a in pairs]
    got = paired_mean_interval(before, after, resamples=200, chunk_cells=chunk_cells)
    want = paired_bootstrap_interval(lambda s: sum(before[i] for i in s) / len(s),
                                     lambda s: sum(after[i] for i in s) / len(s), len(before), resamples=200)
    assert got == pytest.approx(want, abs=1e-9)


def test_compare_statistics_keep_their_figures():
    before = [0.5, 0.75, 1.0, 0.25, 0.0, 1.0, 0.5, 0.5]
    after = [0.75, 0.75, 0.5, 0.5, 0.25, 1.0, 1.0, 0.25]
    stats = score_stats(before, after)
    want = reference_interval(before, after)
    assert stats.interval == (round(want[0], 10), round(want[1], 10))
    steps_before, steps_after = [1, 2, 3, 3, 0, 2], [2, 2, 1, 3, 1, 2]
    ordinal = ordinal_stats(steps_before, steps_after, (0, 3))
    down = [1.0 if a < b else 0.0 for b, a in zip(steps_before, steps_after)]
    up = [1.0 if a > b else 0.0 for b, a in zip(steps_before, steps_after)]
    want = reference_interval(down, up)
    assert ordinal.interval == (round(want[0], 10), round(want[1], 10))


def test_no_units_no_interval():
    assert paired_mean_interval([], []) is None
