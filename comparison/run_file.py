"""One batch results file read for comparison: its records by id, and what could not be read.

Why its own reader rather than the batch's resume scan: a comparison must say what it left
out. A cut-off last line (a run still writing, or killed) is left out and stated; lines that
are not records are counted; a file with no record at all is not a results file, and that is
a one-line error, not an empty comparison.

Why it keeps no record: the file is read as a stream, each record checked as `report` checks
it (`batch.results_file`) and kept as what the comparison counts on (its metrics' statuses and
scores, `metric_table`; its provenance, once per distinct one; its conversation turn) and
where its line starts. The explanations, claims and item fields of the few items a comparison
shows are read again from there (`RunFile.record`), so memory grows by bytes per record, not
by the records' text.
"""

from __future__ import annotations

import json
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..batch.conversations import ConversationCollector, ConversationSummary
from ..batch.provenance import PROVENANCE_KEY
from ..batch.reader import id_key
from ..batch.results_file import ResultsFile, ResultsFileError, stream_results
from ..schemas.jsonl import line_at, line_value
from ..schemas.untrusted_json import UntrustedJsonError
from .metric_table import MetricCell, MetricTable


class ComparisonError(Exception):
    """Input the comparison cannot use (unreadable, empty, not results, nothing shared): one
    line that says why, for exit 2."""


@dataclass
class RunFile:
    path: Path
    ids: dict[str, int] = field(default_factory=dict)
    """id (as text) -> its record's row (the first record when an id occurs twice), in file order."""
    duplicate_ids: list[str] = field(default_factory=list)
    unreadable_lines: list[int] = field(default_factory=list)
    """Complete lines that are not JSON objects with an `id` and a `result`."""
    truncated_tail: bool = False
    """The last line has no newline and does not parse: a run cut off mid-write."""
    provenances: list[dict[str, Any] | None] = field(default_factory=list)
    """The distinct `provenance` objects of the records, in order of appearance; None stands
    for records written without one (judgegraph before provenance was recorded)."""
    conversations: list[ConversationSummary] = field(default_factory=list)
    """Per conversation (conversation files only): its turns' figures (`batch.conversations`)."""
    metrics: MetricTable = field(default_factory=MetricTable)
    offsets: array = field(default_factory=lambda: array("q"))
    """Per row: where the record's line starts in the file, in bytes."""

    @property
    def name(self) -> str:
        return self.path.name

    def cells(self, item_id: str) -> dict[str, MetricCell]:
        """The metrics of `item_id`'s record by key, as the pairing reads them."""
        return self.metrics.row(self.ids[item_id])

    def record(self, item_id: str) -> dict[str, Any]:
        """`item_id`'s whole record, read again from the file; `ComparisonError` when the file no
        longer holds it there (rewritten since it was read)."""
        try:
            with self.path.open("rb") as handle:
                value = line_value(line_at(handle, self.offsets[self.ids[item_id]]))
        except (OSError, UntrustedJsonError):
            value = None
        if not isinstance(value, dict) or "id" not in value or id_key(value["id"]) != item_id:
            raise ComparisonError(f"{self.path} changed while it was compared: the record of {item_id!r} "
                                  f"is no longer where it was")
        return value


def read_run(path: Path) -> RunFile:
    """The records of `path` (a batch's results JSONL); `ComparisonError` when it has none, or
    when a record holds what no score may be (`batch.results_file`)."""
    run = RunFile(path=path)
    results = ResultsFile(path=path)
    seen: set[str] = set()
    conversations = ConversationCollector()
    try:
        for line in stream_results(results):
            record = line.record
            if "id" not in record:
                run.unreadable_lines.append(line.number)
                continue
            key = id_key(record["id"])
            if key in run.ids:
                run.duplicate_ids.append(key)
                continue
            run.ids[key] = len(run.offsets)
            run.offsets.append(line.offset)
            run.metrics.append(line.metrics)
            conversations.add(record)
            stamp = record.get(PROVENANCE_KEY)
            marker = json.dumps(stamp, sort_keys=True)
            if marker not in seen:
                seen.add(marker)
                run.provenances.append(stamp if isinstance(stamp, dict) else None)
    except ResultsFileError as error:
        raise ComparisonError(str(error)) from error
    run.unreadable_lines = sorted([*results.unreadable_lines, *run.unreadable_lines])
    run.truncated_tail = results.truncated_tail
    run.conversations = conversations.summaries()
    if results.lines == 0:
        raise ComparisonError(f"{path} is empty: no results to compare")
    if not run.ids:
        what = "its only line is cut off" if run.truncated_tail and results.lines == 1 else \
            f"none of its {results.lines:,} line(s) is a record with an 'id' and a 'result'"
        raise ComparisonError(f"{path} is not a judgegraph results file: {what}")
    return run
