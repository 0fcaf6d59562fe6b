"""Each record's metrics as the pairing reads them, held in flat arrays instead of records.

Why: a parsed results record costs about 4.7 KB of memory (explanations, usage, provenance,
details), and two 100,000-record files held whole take 1.4 GB. Pairing, statistics and the
gate need, per record and metric, only which metric it is, its status and its score or label:
here that is a few bytes in arrays (a metric's name, rubric and scale are stored once per file).
What only the shown items need (explanations, claims, the item's fields) is read again from
the file, one record at a time (`run_file.RunFile.record`).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable
from typing import Any, NamedTuple

from ..graph.metrics_view import record_metrics
from ..schemas.metrics import MetricRecord


class MetricCell(NamedTuple):
    """One metric of one record: what the pairing reads of its `MetricRecord`."""

    key: str
    rubric: str
    scale: tuple[float, float] | None
    status: str
    score: float | None
    """The score as a float; None when the metric holds no number."""
    value: Any
    """A categorical result (a label), or None."""


def metrics_by_key(metrics: Iterable[MetricRecord]) -> dict[str, MetricRecord]:
    """A record's metrics by key, as the comparison reads them: a key met twice keeps its first
    place and its last metric."""
    return {metric.key: metric for metric in metrics}


def record_metrics_by_key(record: dict[str, Any]) -> dict[str, MetricRecord]:
    """A record's metrics by key, read without its `details`, as `batch.results_file` reads
    them for the comparison: scores, statuses and explanations, not the signals the details add
    (a hand-edited or foreign details object must not stop a comparison)."""
    return metrics_by_key(record_metrics({key: value for key, value in record.items() if key != "details"}))


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class MetricTable:
    """Rows of metric cells, one row per record, appended in file order."""

    def __init__(self) -> None:
        self._kinds: list[tuple[str, str, tuple[float, float] | None]] = []
        """(key, rubric, scale) of each distinct metric."""
        self._kind_index: dict[tuple[str, str, str], int] = {}
        self._statuses: list[str] = []
        self._status_index: dict[str, int] = {}
        self._starts = array("q", [0])
        """Row r's cells are cells _starts[r] to _starts[r + 1] - 1."""
        self._kind = array("l")
        self._status = array("B")
        self._score = array("d")
        """NaN where the cell holds no number (never a score: validated scores are finite)."""
        self._values: dict[int, Any] = {}
        """Cell -> its label, for the cells that have one."""

    def __len__(self) -> int:
        return len(self._starts) - 1

    def append(self, metrics: Iterable[MetricRecord]) -> None:
        """One record's metrics (as `metrics_by_key` orders them) as the next row."""
        for metric in metrics_by_key(metrics).values():
            # repr keeps (0, 1) and (0.0, 1.0) apart, as the JSON output does
            kind = (metric.key, metric.rubric, repr(metric.scale))
            index = self._kind_index.get(kind)
            if index is None:
                index = self._kind_index[kind] = len(self._kinds)
                self._kinds.append((metric.key, metric.rubric, metric.scale))
            status = self._status_index.get(metric.status)
            if status is None:
                status = self._status_index[metric.status] = len(self._statuses)
                self._statuses.append(metric.status)
            if metric.value is not None:
                self._values[len(self._score)] = metric.value
            self._kind.append(index)
            self._status.append(status)
            self._score.append(float(metric.score) if _is_number(metric.score) else math.nan)  # type: ignore[arg-type]
        self._starts.append(len(self._score))

    def row(self, row: int) -> dict[str, MetricCell]:
        """The cells of row `row` by metric key, in the record's order."""
        cells = {}
        for cell in range(self._starts[row], self._starts[row + 1]):
            key, rubric, scale = self._kinds[self._kind[cell]]
            score = self._score[cell]
            cells[key] = MetricCell(key, rubric, scale, self._statuses[self._status[cell]],
                                    None if math.isnan(score) else score, self._values.get(cell))
        return cells
