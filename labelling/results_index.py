"""A results file indexed once by byte offsets: each item read back with one seek, never the file.

Why an index: the page must show the next item in well under a second on a file of 100,000
records (hundreds of megabytes with `--details`). Reading it whole per request, or keeping every
record in memory, does not scale; one pass at start keeps, per record, where its line starts,
its id and its judge scores (for the strata), and hashes the bytes on the way (the labels file
records the hash, so a resumed session knows the results did not change under it).

Only the parts of a record the index needs are checked in this pass (its id, result and scores,
as `batch.results_file` checks them for `report` and `compare`); its details, most of its bytes,
are checked when the item is read back to be shown. Which records are labelled is the
design's choice (`labelling.design`).
"""

from __future__ import annotations

import codecs
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..batch.results_file import record_problem
from ..graph.metrics_view import record_metrics
from ..schemas.jsonl import line_problem, line_value
from ..schemas.untrusted_json import UntrustedJsonError
from .errors import LabellingError
from .scales import SCALES


@dataclass(frozen=True)
class IndexedRecord:
    offset: int
    """Where the record's line starts in the file."""
    size: int
    """Its bytes, without the newline."""
    line: int
    id: str
    scores: dict[str, float | None]
    """The judge's score per labelable metric of the record (None when not judged)."""
    has_item: bool
    """Whether the record carries the judged item (`--details`)."""


@dataclass
class ResultsIndex:
    path: Path
    sha256: str
    records: list[IndexedRecord] = field(default_factory=list)
    """Every record with a labelable metric (judged or not), in file order."""
    not_records: int = 0
    """Lines that are not results records (not JSON, no `result`, a cut-off tail)."""
    metrics_seen: list[str] = field(default_factory=list)
    """The labelable metrics the records hold, in `SCALES` order."""

    def read(self, record: IndexedRecord) -> dict:
        """The whole record: one seek and one read of its line. Its details are checked here, when
        the item is shown, not in the index's pass (they are most of a record's bytes)."""
        with self.path.open("rb") as handle:
            handle.seek(record.offset)
            raw = handle.read(record.size)
        if record.offset == 0 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8):]
        try:
            value = line_value(raw.rstrip(b"\r"))
        except UntrustedJsonError as error:
            raise LabellingError(f"{self.path} line {record.line}: {error} (the file changed since it was read?)") from None
        problem = line_problem(value, surrogates=False) if isinstance(value, dict) else "not a record"
        if problem:
            raise LabellingError(f"{self.path} line {record.line}: {problem}")
        return value


def _lines(handle, digest) -> Any:
    """(line number, offset, raw line without its newline, complete) of a binary file."""
    offset = 0
    for number, raw in enumerate(handle, start=1):
        digest.update(raw)
        complete = raw.endswith(b"\n")
        yield number, offset, raw[:-1] if complete else raw, complete
        offset += len(raw)


def index_results(path: Path) -> ResultsIndex:
    """One pass over `path`; `LabellingError` when it cannot be read, holds an impossible value,
    or gives one id to two records."""
    digest = hashlib.sha256()
    index = ResultsIndex(path=path, sha256="")
    seen_ids: dict[str, int] = {}
    metrics_seen: set[str] = set()
    try:
        handle = path.open("rb")
    except OSError as error:
        raise LabellingError(f"cannot read {path}: {error.strerror or error}") from error
    with handle:
        try:
            for number, offset, raw, complete in _lines(handle, digest):
                body = raw[3:] if number == 1 and raw.startswith(codecs.BOM_UTF8) else raw
                if not body.strip():
                    continue
                try:
                    record = line_value(body.rstrip(b"\r"))
                except UntrustedJsonError:
                    index.not_records += 1
                    continue
                if not isinstance(record, dict) or "result" not in record:
                    index.not_records += 1
                    continue
                problem = record_problem({key: value for key, value in record.items() if key != "details"})
                if problem:
                    raise LabellingError(f"{path} line {number}: {problem}")
                details = record.get("details")
                has_item = isinstance(details, dict) and isinstance(details.get("item"), dict)
                indexed = _indexed(record, number, offset, len(raw), has_item)
                if indexed is None:
                    continue
                if indexed.id in seen_ids:
                    raise LabellingError(f"{path} lines {seen_ids[indexed.id]} and {number} hold the same id "
                                         f"{indexed.id!r}: a label could not say which record it is for")
                seen_ids[indexed.id] = number
                metrics_seen.update(indexed.scores)
                index.records.append(indexed)
        except OSError as error:
            raise LabellingError(f"cannot read {path}: {error.strerror or error}") from error
    index.sha256 = digest.hexdigest()
    index.metrics_seen = [metric for metric in SCALES if metric in metrics_seen]
    return index


def _indexed(record: dict, number: int, offset: int, size: int, has_item: bool) -> IndexedRecord | None:
    scores: dict[str, float | None] = {}
    for metric in record_metrics(record):
        if metric.key in SCALES:
            judged = metric.status == "judged" and metric.score is not None
            scores[metric.key] = float(metric.score) if judged else None
    if not scores:
        return None
    return IndexedRecord(offset=offset, size=size, line=number, id=str(record.get("id", f"line-{number}")),
                         scores=scores, has_item=has_item)
