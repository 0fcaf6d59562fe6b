"""`judgegraph estimate` on the console: per metric (and group), the judge's mean, the labels'
own estimate and the label-corrected one side by side, then what the labels are worth.

Group names come from the user's items, so they go into `Text` objects (shown, never read as
markup) through `safe_text`.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..estimates.estimate import EstimateRun, MetricEstimate
from ..estimates.ppi import MeanEstimate
from .safe_text import safe_text


def _mean(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _interval(estimate: MeanEstimate | None) -> str:
    if estimate is None:
        return "–"
    return f"{estimate.estimate:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]"


def _worth(row: MetricEstimate) -> str:
    return "–" if row.effective_labels is None else f"{row.effective_labels:,.0f}"


def _halve(row: MetricEstimate) -> str:
    if row.corrected is None:
        return "–"
    return "not by labels" if row.more_labels_to_halve is None else f"+{row.more_labels_to_halve:,}"


def render_estimates(console: Console, run: EstimateRun) -> None:
    table = Table(title="Label-corrected estimates, 95 % intervals", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="worth: how many labels alone yours equal; to halve: more labels that would halve the "
                          "corrected interval")
    for column, justify in (("metric", "left"), ("items", "right"), ("labels", "right"), ("judge", "right"),
                            ("labels only", "right"), ("corrected", "right"), ("worth", "right"),
                            ("to halve", "right")):
        table.add_column(column, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for row in run.rows:
        name = Text(row.metric) if row.group is None else Text(f"  {row.by}=") + safe_text(row.group or "")
        table.add_row(name, f"{row.n_items:,}", f"{row.n_labels:,}", _mean(row.judge_mean), _interval(row.labels_only),
                      _interval(row.corrected), _worth(row), _halve(row))
    console.print(table)
    for row in run.rows:
        if row.group is None and row.corrected is not None and row.effective_labels is not None:
            design = {"none": "read as a uniform sample", "uniform": "uniform sample",
                      "stratified": "stratified sample"}[row.design]
            halve = ("more labels alone cannot halve the interval: the judge's own spread over the items bounds it"
                     if row.more_labels_to_halve is None else
                     f"about {row.more_labels_to_halve:,} more would halve the interval")
            console.print(Text(f"{row.metric}: your {row.n_labels:,} labels ({design}) are worth "
                               f"{row.effective_labels:,.0f} labels alone; {halve}"))
        for note in row.notes:
            where = row.metric if row.group is None else f"{row.metric} {row.by}="
            console.print(Text(f"{where}", style="yellow") + (safe_text(row.group) if row.group is not None else Text(""))
                          + Text(f": {note}", style="yellow"))
