"""One batch results file read for comparison: its records by id, and what could not be read.

Why its own reader rather than the batch's resume scan: a comparison must say what it left
out. A cut-off last line (a run still writing, or killed) is left out and stated; lines that
are not records are counted; a file with no record at all is not a results file, and that is
a one-line error, not an empty comparison.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..batch.provenance import PROVENANCE_KEY
from ..batch.reader import id_key
from ..batch.results_file import ResultsFileError, read_results


class ComparisonError(Exception):
    """Input the comparison cannot use (unreadable, empty, not results, nothing shared): one
    line that says why, for exit 2."""


@dataclass
class RunFile:
    path: Path
    records: dict[str, dict] = field(default_factory=dict)
    """id (as text) -> its record; the first one when an id occurs twice."""
    duplicate_ids: list[str] = field(default_factory=list)
    unreadable_lines: list[int] = field(default_factory=list)
    """Complete lines that are not JSON objects with an `id` and a `result`."""
    truncated_tail: bool = False
    """The last line has no newline and does not parse: a run cut off mid-write."""
    provenances: list[dict[str, Any] | None] = field(default_factory=list)
    """The distinct `provenance` objects of the records, in order of appearance; None stands
    for records written without one (judgegraph before provenance was recorded)."""

    @property
    def name(self) -> str:
        return self.path.name


def read_run(path: Path) -> RunFile:
    """The records of `path` (a batch's results JSONL); `ComparisonError` when it has none, or
    when a record holds what no score may be (`batch.results_file`)."""
    try:
        results = read_results(path)
    except ResultsFileError as error:
        raise ComparisonError(str(error)) from error
    run = RunFile(path=path, unreadable_lines=list(results.unreadable_lines), truncated_tail=results.truncated_tail)
    seen: list[str] = []
    for number, record in results.records:
        if "id" not in record:
            run.unreadable_lines.append(number)
            continue
        key = id_key(record["id"])
        if key in run.records:
            run.duplicate_ids.append(key)
            continue
        run.records[key] = record
        stamp = record.get(PROVENANCE_KEY)
        marker = json.dumps(stamp, sort_keys=True)
        if marker not in seen:
            seen.append(marker)
            run.provenances.append(stamp if isinstance(stamp, dict) else None)
    run.unreadable_lines.sort()
    if results.lines == 0:
        raise ComparisonError(f"{path} is empty: no results to compare")
    if not run.records:
        what = "its only line is cut off" if run.truncated_tail and results.lines == 1 else \
            f"none of its {results.lines:,} line(s) is a record with an 'id' and a 'result'"
        raise ComparisonError(f"{path} is not a judgegraph results file: {what}")
    return run
