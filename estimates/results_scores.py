"""The judge's scores of a results file, streamed: one number per item and metric, nothing else.

Why not `batch.results_file.read_results`: that reader keeps every record and checks each
one whole (pydantic shapes, every score), which `report` and `compare` need and which costs
about 20 microseconds a record; an estimate over a million records needs each record's id,
the asked metrics' scores and at most one field, in a few seconds. So each line is parsed
(orjson when it is installed, as it is with langchain-core; any line it refuses goes through
the project's strict reader, `schemas.jsonl`, so the verdict on a bad line is the same) and
a declared rubric's score is read straight from its field, falling back to the rubric's own
reader (`graph.metrics_view`) only when that field holds no number (a failed or not
applicable metric, whose status the reader tells).

What the file holds beyond scores is told, not absorbed: lines that are not records, a
cut-off last line, repeated ids (the first record counts, as in `compare`), and a score
outside its metric's scale or not a number (a string, a bool, a list where a score goes) stops
the reading with its line and field, as in `compare`: a hand-edited `"0.5"` is not a failure.
"""

from __future__ import annotations

import codecs
import json
import math
from array import array
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from ..batch.results_file import score_path
from ..graph import rubrics
from ..graph.metrics_view import record_metrics
from ..schemas.jsonl import line_problem, line_value
from ..schemas.results_record import json_kind
from ..schemas.untrusted_json import UntrustedJsonError

try:  # a dependency of langsmith, hence of langchain-core; the strict reader does without it
    import orjson

    _fast_loads: Any = orjson.loads
    _FastError: Any = orjson.JSONDecodeError
except ImportError:  # pragma: no cover - orjson comes with langchain-core on CPython
    _fast_loads, _FastError = None, None

NOT_JUDGED = float("nan")
"""The score array's mark for an item whose metric was not judged (failed, not applicable,
absent); never read as a score, only counted."""
MISSING_GROUP = "(none)"
READ_BUFFER = 1 << 20
"""Bytes read at a time: the default 8 KiB makes a read call per few lines, which measured
0.4 CPU seconds of a million-record file's splitting into lines; 1 MiB halves that."""


class ResultsScoresError(ValueError):
    """A results file that cannot be used; one line naming the file (and line, and field)."""


@dataclass
class MetricColumn:
    """One metric's scores over the file's records (NOT_JUDGED where not judged)."""

    key: str
    scale: tuple[float, float] | None
    scores: array = field(default_factory=lambda: array("d"))
    failed: int = 0
    not_applicable: int = 0
    absent: int = 0

    def values(self) -> np.ndarray:
        return np.frombuffer(self.scores, dtype=float) if len(self.scores) else np.zeros(0)


@dataclass
class ResultsScores:
    path: Path
    columns: dict[str, MetricColumn]
    ids: dict[str, int]
    """Record index of each id asked for (the labelled ones) that the file holds."""
    records: int = 0
    groups: array | None = None
    """Each record's group index (with `by`), into `group_names`."""
    group_names: list[str] = field(default_factory=list)
    unreadable_lines: list[int] = field(default_factory=list)
    truncated_tail: bool = False
    duplicate_ids: int = 0
    first_record: dict | None = None
    """For naming the metrics the file has when it lacks one asked for."""

    @property
    def name(self) -> str:
        return self.path.name


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Refused(Exception):
    """A line that is a JSON value holding what no record may."""


class _FieldReader:
    """Reads one metric's score straight from a declared rubric's field, cached per rubric."""

    def __init__(self, metric: str) -> None:
        self.metric = metric
        self.fields: dict[str, str | None] = {}
        self.scales: dict[str, tuple[float, float] | None] = {}

    def field_of(self, rubric: str) -> str | None:
        if rubric not in self.fields:
            spec = rubrics.find(rubric)
            metric = spec.metric(self.metric) if spec is not None else None
            plain = metric is not None and "." not in metric.field and metric.label_field is None
            self.fields[rubric] = metric.field if plain else None
            self.scales[rubric] = metric.scale if metric is not None else None
        return self.fields[rubric]


def _shown(score: float) -> str:
    """`score` in a message: `:g`, or its length for an integer too long for a float (JSON has
    no limit on digits; the strict reader refuses only those Python cannot read)."""
    try:
        return f"{score:g}"
    except OverflowError:
        return f"a number of {len(str(abs(score))):,} digits"


def _check_score(score: float, scale: tuple[float, float] | None, where: str) -> None:
    if isinstance(score, float) and not math.isfinite(score):
        raise ResultsScoresError(f"{where} is {score}, not a score")
    if scale is not None and not scale[0] <= score <= scale[1]:
        raise ResultsScoresError(f"{where} is {_shown(score)}, outside its scale {scale[0]:g}..{scale[1]:g}")


def _group_value(record: dict, by: str) -> str:
    value = record.get(by)
    if value is None:
        details = record.get("details")
        item = details.get("item") if isinstance(details, dict) else None
        value = item.get(by) if isinstance(item, dict) else None
    if value is None:
        return MISSING_GROUP
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _strict(raw: bytes) -> Any:
    """The line's value by the project's strict reader (`schemas.jsonl`); `UntrustedJsonError`
    when it is not JSON, `_Refused` when it holds what no record may (NaN, an integer too long)."""
    value = line_value(raw.rstrip(b"\r\n"))
    problem = line_problem(value, surrogates=False)
    if problem:
        raise _Refused(problem)
    return value


def _no_fast_parser(raw: bytes) -> None:
    """Without orjson every line takes the strict reader's path."""
    return None


Plan = list[tuple[array, str, float, float]]
"""Per declared rubric: (the metric's score column, its field, the scale's ends) per metric."""


def _plan(rubric: Any, result: ResultsScores, readers: dict[str, _FieldReader]) -> Plan | None:
    """How to read each metric straight from a `rubric` record's field; None when one of them
    has no plain field (that rubric's records go through its reader)."""
    if not isinstance(rubric, str):
        return None
    plan = []
    for metric, reader in readers.items():
        field_name = reader.field_of(rubric)
        if field_name is None:
            return None
        scale = reader.scales[rubric]
        result.columns[metric].scale = result.columns[metric].scale or scale
        low, high = (float(scale[0]), float(scale[1])) if scale is not None else (-math.inf, math.inf)
        plan.append((result.columns[metric].scores, field_name, low, high))
    return plan


def read_scores(path: Path, metrics: list[str], wanted_ids: set[str], by: str | None = None) -> ResultsScores:
    """The scores of `metrics` in every record of `path`, the record index of each of
    `wanted_ids` found, and each record's `by` group (raises `ResultsScoresError`).

    The loop is written for speed (a million records): a line the fast parser reads as an
    object with a string `id` and a `result` object (what a batch writes) goes straight to the
    record's bookkeeping, and a record whose every asked score sits in its rubric's field as a
    number inside the scale is read from there. Any other line goes through `_other_line` (the
    strict reader's verdict) and any other record through `_read_record`, which tells its
    status or stops on it."""
    path = Path(path)
    result = ResultsScores(path=path, columns={m: MetricColumn(m, None) for m in metrics}, ids={})
    readers = {m: _FieldReader(m) for m in metrics}
    plans: dict[Any, Plan | None] = {}
    seen_ids: set[str] = set()
    group_index: dict[str, int] = {}
    groups = array("i") if by is not None else None
    loads, fast_error = (_fast_loads, _FastError) if _fast_loads is not None else (_no_fast_parser, ValueError)
    try:
        handle = path.open("rb", buffering=READ_BUFFER)
    except OSError as error:
        raise ResultsScoresError(f"cannot read {path}: {error.strerror or error}") from error
    if path.is_dir():
        handle.close()
        raise ResultsScoresError(f"cannot read {path}: is a directory")
    records = 0
    with handle:
        first = handle.readline()
        if first.startswith(codecs.BOM_UTF8):
            first = first[len(codecs.BOM_UTF8):]
        for number, raw in enumerate(chain((first,), handle), start=1):
            try:
                record = loads(raw)
            except fast_error:
                record = None
            if record.__class__ is not dict or (item_id := record.get("id")).__class__ is not str \
                    or (output := record.get("result")).__class__ is not dict:  # not what a batch writes
                record = _other_line(raw, number, record, result)
                if record is None:
                    continue
                item_id, output = str(record["id"]), record["result"]
            if item_id in seen_ids:
                result.duplicate_ids += 1
                continue
            seen_ids.add(item_id)
            if item_id in wanted_ids:
                result.ids[item_id] = records
            if not records:
                result.first_record = record
            records += 1
            rubric = record.get("rubric")
            try:
                plan = plans[rubric]
            except KeyError:
                plan = plans[rubric] = _plan(rubric, result, readers)
            except TypeError:  # a rubric that is a list or an object: no plain field to read
                plan = None
            if plan is None or output.__class__ is not dict:
                _read_record(record, number, path, result, readers)
            else:
                for scores, field_name, low, high in plan:
                    value = output.get(field_name)
                    if (value.__class__ is float or value.__class__ is int) and low <= value <= high:
                        scores.append(value)
                    else:
                        for appended, _, _, _ in plan:  # the record is read whole by the slow path
                            if appended is scores:
                                break
                            appended.pop()
                        _read_record(record, number, path, result, readers)
                        break
            if groups is not None:
                name = _group_value(record, by)  # type: ignore[arg-type]
                groups.append(group_index.setdefault(name, len(group_index)))
    result.records = records
    result.groups = groups
    result.group_names = list(group_index)
    if records == 0:
        raise ResultsScoresError(f"{path} is not a judgegraph results file: no line is a record with an 'id' "
                                 f"and a 'result'")
    return result


def _other_line(raw: bytes, number: int, parsed: Any, result: ResultsScores) -> dict | None:
    """A line that is not a batch-shaped record at first look: the record it holds (an id of
    another type, a `result` that is not an object), or None when it holds none (blank lines
    skipped, the others counted). A line the fast parser refused, or one whose id it may have
    rounded (a float), is read again by the strict reader, as `compare` and `report` would;
    `ResultsScoresError` when that reader refuses what it holds."""
    record = parsed
    if record.__class__ is not dict or record.get("id").__class__ is float:
        if not raw.strip():
            return None
        try:
            record = _strict(raw)
        except UntrustedJsonError:
            if raw.endswith(b"\n"):
                result.unreadable_lines.append(number)
            else:
                result.truncated_tail = True
            return None
        except _Refused as problem:
            raise ResultsScoresError(f"{result.path} line {number}: {problem}") from None
        if not isinstance(record, dict):
            result.unreadable_lines.append(number)
            return None
    if record.get("result") is None or "id" not in record:
        result.unreadable_lines.append(number)
        return None
    return record


def _read_record(record: dict, number: int, path: Path, result: ResultsScores,
                 readers: dict[str, _FieldReader]) -> None:
    rubric = record.get("rubric")
    output = record.get("result")
    slow: list[str] = []
    for metric, reader in readers.items():
        column = result.columns[metric]
        name = rubric if isinstance(rubric, str) else None
        field_name = reader.field_of(name) if name is not None else None
        score = output.get(field_name) if field_name is not None and isinstance(output, dict) else None
        if _number(score):
            scale = reader.scales[name]  # type: ignore[index]
            column.scale = column.scale or scale
            _check_score(score, scale, f"{path} line {number}: 'result.{field_name}'")
            column.scores.append(float(score))
        else:
            slow.append(metric)
    if not slow:
        return
    read = {m.key: m for m in record_metrics({k: v for k, v in record.items() if k != "details"})}
    for metric in slow:
        column = result.columns[metric]
        found = read.get(metric)
        if found is None:
            column.absent += 1
        elif found.status == "judged" and _number(found.score):
            column.scale = column.scale or found.scale
            _check_score(found.score, found.scale, f"{path} line {number}: {metric!r}")  # type: ignore[arg-type]
            column.scores.append(float(found.score))  # type: ignore[arg-type]
            continue
        elif found.status == "judged" and found.score is not None:  # a hand edit, not a failed metric
            raise ResultsScoresError(f"{path} line {number}: '{score_path(record, found)}' must be a number "
                                     f"or null, got {json_kind(found.score)}")
        elif found.status == "not_applicable":
            column.not_applicable += 1
        else:
            column.failed += 1
        column.scores.append(NOT_JUDGED)


def metrics_of(record: dict | None) -> list[str]:
    """The metric keys of one record (for naming what a file has)."""
    return [] if record is None else [m.key for m in record_metrics({k: v for k, v in record.items() if k != "details"})]
