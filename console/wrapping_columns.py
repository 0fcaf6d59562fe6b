"""A rich table narrower than the console without cutting a figure: names and intervals wrap.

Why not rich's own narrowing: a table wider than the console shrinks its wrapping columns
with no regard to their minimum widths, then, when that is not enough, every column evenly,
and crops the cells of the columns that may not wrap (a count or a mean becomes "0…"). Here
the columns that may wrap (names, intervals, phrases) share the width the others leave, each
at least its floor, the width under which it would fold a header or a figure mid-word, so the
figures of the others stay whole. Below the floors nothing fits, and rich narrows as it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from rich.console import JustifyMethod


@dataclass(frozen=True)
class WrapColumn:
    header: str
    justify: JustifyMethod = "right"
    floor: int | None = None
    """The narrowest this column wraps to without folding its header or a figure mid-word;
    None: it never wraps (counts, means)."""


def frame_width(table: Table, count: int) -> int:
    """The width `table` takes beyond the cells of its `count` columns: the padding either side
    of each cell (none outside the edge cells without `pad_edge`), the box's dividers and
    edges. (Collapsed padding is not counted: the tables here do not collapse it.)"""
    _, right, _, left = table.padding
    padding = count * (left + right) - (0 if table.pad_edge else left + right)
    box = (count - 1 + (2 if table.show_edge else 0)) if table.box else 0
    return padding + box


def wrap_widths(columns: Sequence[WrapColumn], rows: Sequence[Sequence[Text]], given_first: Sequence[int],
                width: int, frame: int) -> dict[int, int] | None:
    """The widths of the wrapping columns (by index) when the table is wider than `width` and
    fits with each of them at its floor; they get the width beyond their floors in the order
    of `given_first`. None when the table fits as it is, or does not fit even at the floors."""
    natural = [max([cell_len(column.header)] + [row[index].cell_len for row in rows])
               for index, column in enumerate(columns)]
    room = width - frame - sum(n for n, column in zip(natural, columns) if column.floor is None)
    wrapping = {index: column.floor for index, column in enumerate(columns) if column.floor is not None}
    if sum(natural[index] for index in wrapping) <= room or sum(wrapping.values()) > room:
        return None
    widths = {index: min(floor, natural[index]) for index, floor in wrapping.items()}
    for index in given_first:
        widths[index] += min(natural[index] - widths[index], room - sum(widths.values()))
    return widths


def fill_table(table: Table, columns: Sequence[WrapColumn], rows: Sequence[Sequence[Text]],
               given_first: Sequence[int], width: int) -> Table:
    """`table` (with no column yet) with `columns` and `rows`, made to fit `width` columns of
    the console by `wrap_widths`."""
    widths = wrap_widths(columns, rows, given_first, width, frame_width(table, len(columns))) or {}
    for index, column in enumerate(columns):
        table.add_column(column.header, justify=column.justify, no_wrap=column.floor is None, overflow="fold",
                         width=widths.get(index))
    for cells in rows:
        table.add_row(*cells)
    return table
