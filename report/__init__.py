"""`judgegraph report results.jsonl -o report.html`: one self-contained HTML page of a batch run.

The page works offline (no CDN, no external file: its CSS, script and SVG charts are inline)
and shows the run summary, per-metric counts and score distributions, a sortable and
filterable table of items, and per item its metrics with explanations, the claims with their
verdicts, the evidence highlighted in the context, and the step trace (from `--details`).
User text is escaped by Jinja2's autoescape, and a Content-Security-Policy lets only the
page's own script run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .build import Report, ReportError, build_report
from .render import render_html

__all__ = ["Report", "ReportError", "ReportStats", "build_report", "render_html", "write_report"]


@dataclass(frozen=True)
class ReportStats:
    items: int
    failed: int
    bytes: int


def write_report(results: Path, output: Path, *, title: str | None = None, labels: Path | None = None,
                 metrics: list[str] | None = None, accept_other_results: bool = False) -> ReportStats:
    """Read `results` (a batch's JSONL), write the HTML report to `output`; with `labels`, the
    page also shows each metric's label-corrected estimate (of `metrics`, default: those the
    labels name), computed by `judgegraph estimate`'s own function."""
    report = build_report(Path(results), title=title)
    if labels is not None:
        add_estimates(report, Path(results), Path(labels), metrics, accept_other_results=accept_other_results)
    # backslashreplace: an id holding a lone surrogate (kept JSON-escaped in the results,
    # batch.writer) shows as \udXXX instead of stopping the report.
    data = render_html(report).encode("utf-8", "backslashreplace")
    try:
        Path(output).write_bytes(data)
    except OSError as error:
        raise ReportError(f"cannot write {output}: {error.strerror or error}") from error
    return ReportStats(items=len(report.items), failed=report.failed, bytes=len(data))


def add_estimates(report: Report, results: Path, labels: Path, metrics: list[str] | None, *,
                  accept_other_results: bool = False) -> None:
    """Put `judgegraph estimate`'s rows for `metrics` over `results` with `labels` on `report`;
    `ReportError` (one line) when they cannot be made.

    Why no computation here: the page must show the numbers `judgegraph estimate` prints and
    `judgegraph.estimate(...)` returns, so it calls the same `estimate_files` and renders its
    `MetricEstimate` rows; a labels file that command refuses is refused here the same way."""
    from ..estimates.estimate import EstimateError, estimate_files

    try:
        run = estimate_files(results, labels, metrics, accept_other_results=accept_other_results)
    except EstimateError as error:
        raise ReportError(str(error)) from None
    report.estimates = list(run.rows)
    report.estimate_notes = list(run.notes)
    report.labels_source = str(labels)
