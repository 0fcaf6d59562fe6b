"""`judgegraph.estimate(results, labels)`: the `estimate` command's numbers, from Python.

Returns exactly the list `judgegraph estimate --json` prints; what the command says on stderr
(labelled ids the results lack, failed items left out, a file with no design) is issued as
`EstimateWarning`s, and input it cannot estimate from raises `EstimateError`.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from .estimate import EstimateError, estimate_files

__all__ = ["EstimateError", "EstimateWarning", "estimate"]


class EstimateWarning(UserWarning):
    """Something the inputs held that the estimate left out or assumed."""


def estimate(results: str | Path, labels: str | Path, metrics: str | list[str] | None = None,
             by: str | None = None, *, accept_other_results: bool = False) -> list[dict[str, Any]]:
    """Per metric (and per `by` group): the judge's mean, the labels-only and the label-corrected
    (PPI++) means with 95 % intervals, and the labels' worth (docs/estimates.md). Labels drawn
    from another results file (the sha256 their design records differs) raise `EstimateError`
    unless `accept_other_results`."""
    chosen = [metrics] if isinstance(metrics, str) else metrics
    run = estimate_files(Path(results), Path(labels), chosen, by, accept_other_results=accept_other_results)
    for note in run.notes:
        warnings.warn(note, EstimateWarning, stacklevel=2)
    return run.as_json()
