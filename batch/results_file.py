"""Reading a batch results file back (for `report` and `compare`): records, and what is not one.

Why one reader for both commands: a results file comes back from disk after hand edits, merges
and other tools, and the two commands must agree on what a record is. Two kinds of bad line
are told apart:

- a line that is not a record at all (not UTF-8, not JSON, not an object with a `result`, or a
  cut-off last line) is left out and counted, so the caller can state what it left out;
- a line that *is* a record but holds what no score may be (`NaN`, `Infinity`, a string or a
  bool where a score goes, a score outside its metric's scale, a usage of the wrong type, a
  details object of the wrong shape) stops the command with one line naming the file, the line
  and the field (`ResultsFileError`, exit 2). Read as it is, such a record would make a
  traceback, a `NaN` mean, or a CI gate that passes on `[+nan, +nan]`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..graph import rubrics
from ..graph.metrics_view import record_metrics
from ..schemas.claims import CheckedClaim
from ..schemas.jsonl import jsonl_lines, line_problem, line_value
from ..schemas.metrics import MetricRecord
from ..schemas.results_record import json_kind, model_problem, record_shape_problem
from ..schemas.untrusted_json import UntrustedJsonError


class ResultsFileError(Exception):
    """A results file that cannot be used; one line naming the file (and line, and field)."""


@dataclass
class ResultsFile:
    path: Path
    records: list[tuple[int, dict]] = field(default_factory=list)
    """(line number, record) in file order."""
    unreadable_lines: list[int] = field(default_factory=list)
    """Complete lines that are not records (not UTF-8, not JSON, not an object with a `result`)."""
    truncated_tail: bool = False
    """The last line has no newline and does not parse: a run cut off mid-write."""
    lines: int = 0
    """Non-blank lines."""


@dataclass(frozen=True)
class ResultsRecord:
    """One record of a results file, checked, with where it is and the metrics the check read."""

    number: int
    offset: int
    """Where its line starts in the file, in bytes (`schemas.jsonl.line_at` reads it again)."""
    record: dict[str, Any]
    metrics: list[MetricRecord]
    """Its metrics as the score check read them: without the details' signals unless the file is
    read `with_signals`."""


def read_results(path: Path, *, with_signals: bool = False) -> ResultsFile:
    """Every record of `path`; `ResultsFileError` when the file cannot be read or a record holds
    an impossible value. `with_signals`: the caller reads the metrics' signals from the details
    (the report), so each recorded claim must be a whole `CheckedClaim`."""
    results = ResultsFile(path=path)
    results.records = [(line.number, line.record) for line in stream_results(results, with_signals=with_signals)]
    return results


def stream_results(results: ResultsFile, *, with_signals: bool = False) -> Iterator[ResultsRecord]:
    """The records of `results.path` one at a time, checked as `read_results` checks them, for a
    reader that keeps only part of each (`compare`); what is not a record is counted into
    `results` as the lines go by (its `records` stay empty)."""
    path = results.path
    try:
        handle = path.open("rb")
    except OSError as error:
        raise ResultsFileError(f"cannot read {path}: {error.strerror or error}") from error
    with handle:
        try:
            for line in jsonl_lines(handle):
                if line.blank:
                    continue
                results.lines += 1
                try:
                    value = line_value(line.raw)
                except UntrustedJsonError:
                    if line.complete:
                        results.unreadable_lines.append(line.number)
                    else:
                        results.truncated_tail = True
                    continue
                if not isinstance(value, dict) or "result" not in value:
                    results.unreadable_lines.append(line.number)
                    continue
                problem, metrics = _checked(value, with_signals)
                if problem:
                    raise ResultsFileError(f"{path} line {line.number}: {problem}")
                yield ResultsRecord(line.number, line.offset, value, metrics)
        except OSError as error:
            raise ResultsFileError(f"cannot read {path}: {error.strerror or error}") from error


def record_problem(record: dict[str, Any], *, with_signals: bool = False) -> str | None:
    """Why `record` cannot be read as a results record (its first bad field), or None."""
    return _checked(record, with_signals)[0]


def _checked(record: dict[str, Any], with_signals: bool) -> tuple[str | None, list[MetricRecord]]:
    """(why `record` cannot be read, or None; the metrics the score check read, which a reader
    can keep rather than read them again)."""
    problem = (line_problem(record, surrogates=False) or record_shape_problem(record) or _results_problem(record)
               or (_claims_problem(record) if with_signals else None))
    if problem:
        return problem, []
    read = record if with_signals else _without_details(record)
    metrics = record_metrics(read)
    return _scores_problem(read, metrics), metrics


def _without_details(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key != "details"}


def _claims_problem(record: dict[str, Any]) -> str | None:
    details = record.get("details") or {}
    for index, claim in enumerate(details.get("verdicts") or []):
        problem = model_problem(CheckedClaim, claim, f"details.verdicts[{index}]")
        if problem:
            return problem
    return None


def _results_problem(record: dict[str, Any]) -> str | None:
    """Each declared rubric's output must be one of the shapes its rubric writes (the seed's
    keys and types): a list where rag's `error` goes would stop the metric readers."""
    names = record["rubric"] if isinstance(record["rubric"], list) else [record["rubric"]]
    for name in names:
        spec = rubrics.find(name)
        if spec is None:
            continue  # a rubric judgegraph does not declare: its score leaves are checked below
        prefix = f"result.{name}" if isinstance(record["rubric"], list) else "result"
        output = record["result"].get(name) if isinstance(record["rubric"], list) else record["result"]
        if output is None and isinstance(record["rubric"], list):
            continue
        problems = [model_problem(model, output, prefix) for model in spec.output_models]
        if all(problems):
            return problems[0]
    return None


def _scores_problem(record: dict[str, Any], metrics: list[MetricRecord]) -> str | None:
    for metric in metrics:
        if metric.score is None:
            continue
        spec = _spec(metric)
        problem = _score_problem(metric.score, metric.scale, spec)
        if problem:  # the score's place is spelled out only for the message
            return f"'{score_path(record, metric)}' {problem}"
    return None


def _score_problem(score: Any, scale: Any, spec: Any) -> str | None:
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return f"must be a number or null, got {json_kind(score)}"
    if isinstance(score, float) and not math.isfinite(score):  # ints are always finite
        return f"is {json_kind(score)}, not a score"
    if scale is not None:
        low, high = scale
        if not all(isinstance(end, (int, float)) and not isinstance(end, bool) for end in scale):
            return f"has a scale of {json_kind(low)}..{json_kind(high)}, which are not numbers"
        if not low <= score <= high:
            return f"is {json_kind(score)}, outside its scale {low:g}..{high:g}"
    if spec is not None and spec.kind == "ordinal" and score != int(score):
        return f"is {json_kind(score)}, not a whole step of its ordinal scale"
    return None


def _spec(metric: MetricRecord) -> Any:
    spec = rubrics.find(metric.rubric)
    return spec.metric(metric.key) if spec is not None else None


def score_path(record: dict[str, Any], metric: MetricRecord) -> str:
    """Where the metric's score sits in the record (`result.faithfulness`,
    `result.rag.faithfulness` in a record of several rubrics), for a message that names it.

    Args:
        record: the results record the metric was read from (`graph.metrics_view.record_metrics`).
        metric: one of its metrics.
    """
    spec = _spec(metric)
    inner = spec.field if spec is not None else metric.key.removeprefix(f"{metric.rubric}.")
    prefix = f"result.{metric.rubric}." if isinstance(record.get("rubric"), list) else "result."
    return prefix + inner
