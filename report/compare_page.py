"""`judgegraph compare ... -o compare.html`: the comparison as one self-contained HTML page.

In the report's style and with its safety rules: Jinja2 autoescape (every id, explanation,
answer and claim is text, never markup), inline CSS and SVG only, and a Content-Security-Policy
that allows no script at all (the page needs none: the items open with `<details>`). What the
page draws is computed here as numbers: per metric the 95 % interval against zero (and the
gate's -margin), and the distribution of the per-item differences.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from ..comparison import Comparison, ComparisonError, GateVerdict, MetricComparison
from .charts import Bin, histogram
from .render import environment, static_file


@dataclass(frozen=True)
class IntervalPlot:
    """An interval drawn on a 0..WIDTH axis centred on 0, with the gate's -margin if gated."""

    low: float
    high: float
    point: float
    zero: float
    margin: float | None
    span: float
    """The difference shown at each end of the axis (+-span)."""


WIDTH = 200.0


def _x(value: float, span: float) -> float:
    return round(WIDTH / 2 + (WIDTH / 2) * max(-1.0, min(1.0, value / span)), 1)


def _span(metric: MetricComparison) -> float:
    """+-the scale's width for scores (1 for rag's 0..1), 1 for shares; else the data's reach."""
    if metric.ordinal is not None:
        return 1.0
    scale = metric.pairs.scale
    if scale is not None:
        return float(scale[1] - scale[0]) or 1.0
    reach = [abs(c) for c in metric.changes] + [abs(v) for v in (metric.gate_interval or ())]
    return max(reach, default=1.0) or 1.0


def interval_plot(metric: MetricComparison, margin: float | None) -> IntervalPlot | None:
    interval = metric.gate_interval
    if interval is None:
        return None
    span = _span(metric)
    point = metric.score.mean_difference if metric.score is not None else metric.ordinal.net_share_improved  # type: ignore[union-attr]
    if metric.corrected is not None:  # the gate's interval is then the label-corrected one: its point too
        point = metric.corrected.estimate.corrected.estimate
    return IntervalPlot(low=_x(interval[0], span), high=_x(interval[1], span), point=_x(point or 0.0, span),
                        zero=_x(0.0, span), margin=_x(-margin, span) if margin is not None else None, span=span)


def difference_bins(metric: MetricComparison) -> list[Bin]:
    """The per-item differences: one bin per step on ordinal scales; for scores five bins each
    side of a bin of exact ties (0), so "unchanged" is never mixed with "a little better"."""
    changes = metric.changes
    if not changes:
        return []
    if metric.ordinal is not None and metric.pairs.scale is not None:
        width = metric.pairs.scale[1] - metric.pairs.scale[0]
        return histogram(changes, (-width, width))
    span = _span(metric)
    step = span / 5
    bins = []
    for i in range(5):
        low, high = -span + i * step, -span + (i + 1) * step
        count = sum(1 for c in changes if c < 0 and (low <= c < high or (i == 0 and c < low)))
        bins.append(Bin(f"{low:+.1f}", count))
    bins.append(Bin("0", sum(1 for c in changes if c == 0)))
    for i in range(5):
        low, high = i * step, (i + 1) * step
        count = sum(1 for c in changes if c > 0 and (low < c <= high or (i == 4 and c > high)))
        bins.append(Bin(f"{high:+.1f}", count))
    return bins


@dataclass
class MetricView:
    metric: MetricComparison
    plot: IntervalPlot | None
    bins: list[Bin]
    gate: GateVerdict | None

    @property
    def peak(self) -> int:
        return max((b.count for b in self.bins), default=0)


def render_compare_html(comparison: Comparison, gate: list[GateVerdict] | None = None, *,
                        title: str | None = None) -> str:
    verdicts = {v.metric: v for v in gate or []}
    views = []
    for metric in comparison.metrics:
        verdict = verdicts.get(metric.key)
        views.append(MetricView(metric, interval_plot(metric, verdict.margin if verdict else None),
                                difference_bins(metric), verdict))
    template = environment().get_template("compare.html.j2")
    return template.render(
        comparison=comparison, views=views, gate=gate or [],
        title=title or f"{comparison.before.name} → {comparison.after.name}",
        css=Markup(static_file("report.css") + "\n" + static_file("compare.css")), width=WIDTH,
    )


def write_compare_page(comparison: Comparison, output: Path, gate: list[GateVerdict] | None = None, *,
                       title: str | None = None) -> int:
    """Write the page; returns its size in bytes. `ComparisonError` when it cannot be written."""
    html = render_compare_html(comparison, gate, title=title)
    try:
        Path(output).write_text(html, encoding="utf-8")
    except OSError as error:
        raise ComparisonError(f"cannot write {output}: {error.strerror or error}") from error
    return len(html.encode("utf-8"))
