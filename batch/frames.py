"""pandas at the edges of `evaluate_batch`: a DataFrame's rows in, a DataFrame of scores out.

Why its own module: pandas is optional (the `pandas` extra) and never imported by judgegraph
unless the caller hands it a DataFrame or asks for one, so a frame is recognised by its type's
module, and pandas is imported only to build the frame a caller asked for.

The scores frame has one row per record: a metric `m` is the columns `m` (its score, or its
label for a label metric) and `m_explanation`; then `id`, `rubric`, `status` (`judged`, or
`failed` when the record holds a failure: the rule of the CLI's exit 1 and `--retry-failed`,
`batch.summary.holds_a_failure`) and `error` (its reasons). A row skipped as a duplicate id
gets `status` `duplicate`; the turns of a conversation row get a row each, plus a `turn`
column. The rows carry the input's index labels, so the frame lines up with the input.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..graph.metrics_view import record_metrics
from .input_formats import STRUCTURED_COLUMNS, cell_value, repeated_names
from .summary import failure_reasons, holds_a_failure

RECORD_COLUMNS = ("id", "rubric", "status", "error")


def is_dataframe(value: Any) -> bool:
    """A pandas DataFrame (or a subclass), recognised without importing pandas."""
    return any((kind.__module__ or "").startswith("pandas") and kind.__name__ == "DataFrame"
               for kind in type(value).__mro__)


def is_pandas(value: Any) -> bool:
    """Any pandas object (a Series, a DataFrame...), recognised without importing pandas."""
    return (type(value).__module__ or "").startswith("pandas")


def frame_rows(frame: Any, list_columns: Collection[str] = ()) -> list[dict]:
    """The frame's rows as dicts, column name to cell (a missing cell stays NaN / None / NA
    here: `batch.item_values` reads it as an absent field).

    A frame read from a CSV file (`pd.read_csv`) holds a list column as text; a text cell of a
    column that may hold a list or an object (a context, `metrics`...; `list_columns` adds the
    sources a field map reads as one) is read as the CLI's CSV reader reads it: JSON, or the
    Python list pandas writes, never evaluated. A cell that does not parse stays text.

    Two columns whose names read the same as text (`1` and `"1"`, or a name repeated) raise
    `ValueError`: a row read as a dict would keep the last and drop the other, as a CSV header
    or a Parquet file that repeats a column is refused."""
    columns = [str(column) for column in frame.columns]
    repeated = repeated_names(columns)
    if repeated:
        raise ValueError(f"the frame has more than one column named {', '.join(map(repr, repeated))} "
                         f"(as text): rename them so that each field is read from one column")
    structured = STRUCTURED_COLUMNS | set(list_columns)
    parsed = [index for index, column in enumerate(columns) if column in structured]
    rows = []
    for cells in frame.itertuples(index=False, name=None):
        row = dict(zip(columns, cells))
        for index in parsed:
            cell = cells[index]
            if isinstance(cell, str):
                value, problem = cell_value(columns[index], cell, structured)
                if problem is None:
                    row[columns[index]] = value
        rows.append(row)
    return rows


def score_row(record: dict) -> dict[str, Any]:
    """One record as a row: each metric's score and explanation, then the record's columns."""
    row: dict[str, Any] = {}
    try:
        metrics = record_metrics(record)
    except (TypeError, ValueError, AttributeError, KeyError):  # a result shape no reader knows
        metrics = []
    for metric in metrics:
        row[metric.key] = metric.score if metric.score is not None else metric.value
        row[f"{metric.key}_explanation"] = metric.comment
    failed = holds_a_failure(record)
    rubric = record.get("rubric")
    row.update(id=record.get("id"), rubric="+".join(rubric) if isinstance(rubric, list) else rubric,
               status="failed" if failed else "judged",
               error="; ".join(failure_reasons(record)) if failed else None)
    conversation = record.get("conversation")
    if isinstance(conversation, dict):
        row["turn"] = conversation.get("turn")
    return row


def scores_frame(records: Sequence[dict], index: Sequence[Any] | None = None,
                 skipped: Sequence[tuple[int, str | int, str]] = ()) -> Any:
    """The scores frame of `records` (each with its 1-based input position in `line`); `index`
    holds the input's index labels by position (None: the positions from 0), `skipped` the
    rows that have no record of their own: (position, id, why). A pandas Index keeps its
    names, levels and dtype, so `frame.join(scores)` lines up on a named or multi-level index."""
    import pandas as pd

    rows: list[tuple[int, int, dict[str, Any]]] = []
    for record in records:
        row = score_row(record)
        rows.append((int(record.get("line") or 0), int(row.get("turn") or 0), row))
    for line, item_id, why in skipped:
        rows.append((line, 0, {"id": item_id, "status": "duplicate", "error": why}))
    rows.sort(key=lambda entry: (entry[0], entry[1]))
    positions = [line - 1 for line, _, _ in rows]
    columns = _columns([row for _, _, row in rows])
    frame = pd.DataFrame([row for _, _, row in rows], columns=columns)
    frame.index = index.take(positions) if isinstance(index, pd.Index) else pd.Index(
        [index[position] for position in positions] if index is not None else positions)
    return frame


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    """Metric columns in the order first met, then the record's columns."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key not in RECORD_COLUMNS and key != "turn":
                seen.setdefault(key, None)
    tail = [*RECORD_COLUMNS, *(["turn"] if any("turn" in row for row in rows) else [])]
    return [*seen, *tail]
