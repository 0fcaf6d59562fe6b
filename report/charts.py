"""Score distributions as histogram bins, for the inline SVG charts of the report.

Why bins computed here: the template only draws rectangles from numbers, so the page needs
no chart library, no CDN and no script to show a distribution.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bin:
    label: str
    count: int


def _is_integral(values: list[float]) -> bool:
    return all(float(v).is_integer() for v in values)


def histogram(values: list[float], scale: tuple[float, float] | None) -> list[Bin]:
    """One bin per integer on small integer scales (coverage 0..5, liverag -1..2), else ten
    equal bins over the scale (0..1 for rag metrics) or over the data's own range, each named by
    its lower bound and holding the scores from it up to the next, then a bar of its own for the
    top of the scale. Why that top bar: a perfect score is the judge's most common verdict, and in
    the tenth bin it was drawn in the bar labelled "0.9", as if no item had scored 1.0."""
    low, high = scale if scale else ((min(values), max(values)) if values else (0, 1))
    if (scale is None or scale != (0, 1)) and _is_integral(values) and float(low).is_integer() \
            and float(high).is_integer() and 0 < high - low <= 12:
        counts = {int(v): 0 for v in range(int(low), int(high) + 1)}
        for value in values:
            counts[int(value)] = counts.get(int(value), 0) + 1
        return [Bin(str(k), counts[k]) for k in sorted(counts)]
    if high <= low:
        return [Bin(f"{low:g}", len(values))]
    width = (high - low) / 10
    counts = [0] * 11
    for value in values:
        index = 10 if value >= high else min(9, max(0, int((value - low) / width)))
        counts[index] += 1
    return [Bin(f"{low + i * width:.1f}", count) for i, count in enumerate(counts)]
