"""The paired bootstrap interval of a difference of means, in numpy, in bounded memory.

Why: `judgegraph compare` puts a paired bootstrap interval on every metric's mean difference,
and resampling 100,000 items 1,000 times as Python lists of indices takes minutes and
gigabytes. Here the resamples are drawn a block of rows at a time (`CHUNK_CELLS` draws at most),
each block's per-resample means are computed with array operations, and only the means are
kept: one float per resample, so memory does not grow with the number of items times the
number of resamples.

The estimator and the draws are `stats.bootstrap`'s, exactly: the same seeded Mersenne Twister
stream (Python's `random.Random(seed)`, whose state numpy's `MT19937` takes over word for
word), the same rejection rule `randrange` applies to each 32-bit word, the same percentile
rule (`percentile_interval`). Only the summation order of the means differs (numpy's pairwise
sums), so an interval agrees with `paired_bootstrap_interval`'s to the last few bits of a float.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import numpy as np

from .bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED, percentile_interval

CHUNK_CELLS = 2_000_000
"""Unit draws held at once (16 MB of indices), whatever the number of units or resamples."""


def _python_stream(seed: int) -> np.random.MT19937:
    """numpy's Mersenne Twister in the state `random.Random(seed)` starts in."""
    _, state, _ = random.Random(seed).getstate()
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937",
                       "state": {"key": np.array(state[:624], dtype=np.uint32), "pos": state[624]}}
    return generator


def draw_chunks(units: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                chunk_cells: int = CHUNK_CELLS) -> Iterator[np.ndarray]:
    """The rows of `stats.bootstrap.resample_draws(units, resamples, seed)`, a block of rows at a
    time (each block at most `chunk_cells` draws, at least one row). `randrange(units)` takes the
    top `units.bit_length()` bits of one 32-bit word and draws again while they are `units` or
    more; the words are filtered the same way here, so the accepted values are the same."""
    if units < 1 or units >= 2**32:
        raise ValueError(f"units must be in 1..2**32-1, not {units}")
    generator = _python_stream(seed)
    shift = 32 - units.bit_length()
    rows_per_chunk = max(1, chunk_cells // units)
    pending = np.empty(0, dtype=np.intp)
    remaining = resamples
    while remaining > 0:
        rows = min(rows_per_chunk, remaining)
        needed = rows * units
        parts = [pending]
        have = len(pending)
        while have < needed:
            words = generator.random_raw(max(1024, int((needed - have) * 1.1) + 64)) >> shift
            accepted = words[words < units].astype(np.intp)
            parts.append(accepted)
            have += len(accepted)
        stream = np.concatenate(parts)
        pending = stream[needed:].copy()
        yield stream[:needed].reshape(rows, units)
        remaining -= rows


def paired_mean_interval(baseline: Sequence[float], candidate: Sequence[float], *,
                         resamples: int = DEFAULT_RESAMPLES, confidence: float = DEFAULT_CONFIDENCE,
                         seed: int = DEFAULT_SEED, chunk_cells: int = CHUNK_CELLS) -> tuple[float, float] | None:
    """`stats.paired_bootstrap_interval` of mean(candidate) - mean(baseline) over the paired
    units (`baseline[i]` and `candidate[i]` measured on the same unit); None with no units."""
    differences = np.asarray(candidate, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    units = len(differences)
    if units == 0:
        return None
    means = np.concatenate([differences[rows].mean(axis=1)
                            for rows in draw_chunks(units, resamples, seed, chunk_cells)])
    return percentile_interval(means.tolist(), resamples, confidence)
