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
from .wrapping_columns import WrapColumn, fill_table


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
    return "exact" if row.more_labels_to_halve is None else f"+{row.more_labels_to_halve:,}"


_COLUMNS = (WrapColumn("metric", "left", 12), WrapColumn("items"), WrapColumn("labels"), WrapColumn("judge"),
            WrapColumn("labels only", floor=len("corrected")), WrapColumn("corrected", floor=len("corrected")),
            WrapColumn("worth"), WrapColumn("to halve", floor=len("labels")))
"""The names and the intervals may wrap; the counts and means never do."""
_GIVEN_FIRST = (4, 5, 7, 0)
"""The wrapping columns in the order they get width beyond their floors: the intervals first."""


def _rows(run: EstimateRun) -> list[list[Text]]:
    rows = []
    for row in run.rows:
        name = Text(row.metric) if row.group is None else Text(f"  {row.by}=") + safe_text(row.group or "")
        rows.append([name] + [Text(cell) for cell in (f"{row.n_items:,}", f"{row.n_labels:,}", _mean(row.judge_mean),
                                                      _interval(row.labels_only), _interval(row.corrected),
                                                      _worth(row), _halve(row))])
    return rows


def render_estimates(console: Console, run: EstimateRun) -> None:
    table = Table(title="Label-corrected estimates, 95 % intervals", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="worth: how many labels alone yours equal; to halve: more labels that would halve the "
                          "corrected interval")
    console.print(fill_table(table, _COLUMNS, _rows(run), _GIVEN_FIRST, console.width))
    for row in run.rows:
        if row.group is None and row.corrected is not None and row.effective_labels is not None:
            design = {"none": "read as a uniform sample", "uniform": "uniform sample",
                      "stratified": "stratified sample", "active": "active draw"}[row.design]
            halve = ("every item is labelled: the mean is exact" if row.more_labels_to_halve is None else
                     f"about {row.more_labels_to_halve:,} more would halve the interval")
            target = ("" if row.target_width is None else
                      f"; no number of labels up to the {row.n_items:,} items gives +-{row.target_width:g} with this "
                      f"draw" if row.labels_for_target is None else
                      f"; about {row.labels_for_target:,} labels in all for +-{row.target_width:g}"
                      f" ({max(row.labels_for_target - row.n_labels, 0):,} more)")
            console.print(Text(f"{row.metric}: your {row.n_labels:,} labels ({design}) are worth "
                               f"{row.effective_labels:,.0f} labels alone out of {row.n_items:,} items; "
                               f"{halve}{target}"))
        for note in row.notes:
            where = row.metric if row.group is None else f"{row.metric} {row.by}="
            console.print(Text(f"{where}", style="yellow") + (safe_text(row.group) if row.group is not None else Text(""))
                          + Text(f": {note}", style="yellow"))
