"""The report's "label-corrected estimates" table: `judgegraph estimate`'s rows on the page.

Why no computation here: the page must show the numbers `judgegraph estimate` prints and
`judgegraph.estimate(...)` returns, so it calls the same `estimate_files` and renders its
`MetricEstimate` rows; a labels file that command refuses is refused here the same way (one
line, exit 2).
"""

from __future__ import annotations

from pathlib import Path

from .build import Report, ReportError


def add_estimates(report: Report, results: Path, labels: Path, metrics: list[str] | None) -> None:
    """Put the estimates of `metrics` over `results` with `labels` on `report`;
    `ReportError` (one line) when they cannot be made."""
    from ..estimates.estimate import EstimateError, estimate_files

    try:
        run = estimate_files(results, labels, metrics)
    except EstimateError as error:
        raise ReportError(str(error)) from None
    report.estimates = list(run.rows)
    report.estimate_notes = list(run.notes)
    report.labels_source = str(labels)
