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


_COLUMNS = (("metric", "left", 12), ("items", "right", None), ("labels", "right", None), ("judge", "right", None),
            ("labels only", "right", len("corrected")), ("corrected", "right", len("corrected")),
            ("worth", "right", None), ("to halve", "right", len("labels")))
"""Each column's header, justification and, for the columns that may wrap (the names and the
intervals), the width under which they would fold a header or a figure mid-word."""
_FRAME = 3 * (len(_COLUMNS) - 1) + 2
"""The table's width beyond its cells: between two columns a padding on each side and the
box's divider, and the box's two edges (`box.SIMPLE_HEAD`, `pad_edge=False`)."""
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


def _wrap_widths(rows: list[list[Text]], width: int) -> dict[int, int] | None:
    """The widths of the wrapping columns when the table is wider than `width` and fits with
    each of them at its floor (None otherwise: at its natural width, or, past the floors, rich
    folds them). Set here because rich's own narrowing ignores minimum widths and then crops
    the columns that overflow, or cuts figures to "0…" when no column may wrap."""
    natural = [max([len(header)] + [row[index].cell_len for row in rows]) for index, (header, _, _) in enumerate(_COLUMNS)]
    room = width - _FRAME - sum(n for n, (_, _, floor) in zip(natural, _COLUMNS) if floor is None)
    wrapping = {index: floor for index, (_, _, floor) in enumerate(_COLUMNS) if floor is not None}
    if sum(natural[index] for index in wrapping) <= room or sum(wrapping.values()) > room:
        return None
    widths = {index: min(floor, natural[index]) for index, floor in wrapping.items()}
    for index in _GIVEN_FIRST:
        widths[index] += min(natural[index] - widths[index], room - sum(widths.values()))
    return widths


def render_estimates(console: Console, run: EstimateRun) -> None:
    table = Table(title="Label-corrected estimates, 95 % intervals", box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="worth: how many labels alone yours equal; to halve: more labels that would halve the "
                          "corrected interval")
    rows = _rows(run)
    widths = _wrap_widths(rows, console.width) or {}
    for index, (header, justify, floor) in enumerate(_COLUMNS):
        table.add_column(header, justify=justify, no_wrap=floor is None, overflow="fold",  # type: ignore[arg-type]
                         width=widths.get(index))
    for cells in rows:
        table.add_row(*cells)
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
