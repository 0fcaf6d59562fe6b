"""The `rag` output (seed 000) read back as metric records: one per requested metric.

The output says "not judged" its own way: invalid input fills `reason` and nulls every
metric; a failed step nulls its metric and names it in `error`; a metric that does not apply
(no reference for semantic similarity) is null with no error. With the run's details, each
record also carries what the step measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration
from ...schemas.metrics import MetricRecord, Score, Status
from .metrics import DECLARED
from .result import NOT_REQUESTED, failure_text

METRICS = tuple(metric.spec for metric in DECLARED)
SCALE = (0, 1)


def _names(result: dict, selected: tuple[str, ...] | None, declared: Mapping[str, MetricDeclaration]) -> tuple[str, ...]:
    # a metric that does not apply to the item (`MetricDeclaration.applies`) has no key in its output
    return selected or tuple(name for name, metric in declared.items() if metric.applies is None or name in result)


def _input_failure(result: dict, names: tuple[str, ...]) -> list[MetricRecord] | None:
    """Invalid input fills `reason` and fails the evaluation: nothing was judged (a judged
    item's `reason` may hold a note, such as its language having no figures)."""
    if result.get("reason") and result.get("evaluation_status") == "failed":
        return [MetricRecord(name, None, result["reason"], "failed", "rag", SCALE, result["reason"]) for name in names]
    return None


def rag_score_records(scores: Mapping[str, Score], result: dict, selected: tuple[str, ...] | None = None,
                      metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    """A judged run's metric records: status, cause and signals from its typed scores, the
    score as rendered (rounded), and each failed record's error the scores' causes rendered as
    the output's `error` renders them (`result.failure_text`)."""
    declared = {metric.key: metric for metric in metrics}
    names = _names(result, selected, declared)
    failed_input = _input_failure(result, names)
    if failed_input is not None:
        return failed_input
    failures = failure_text(scores)
    records = []
    for name in names:
        score = scores.get(name)
        if score is None or not score.requested:
            continue
        records.append(MetricRecord(name, result.get(name), score.explanation, score.status, "rag", SCALE,
                                    failures if score.status == "failed" else None, signals=score.signals))
    return records


def read_rag_metrics(result: dict, selected: tuple[str, ...] | None = None,
                     details: Mapping[str, Any] | None = None,
                     metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    """An output read back from a results file: its metric records; with the run's details,
    each carries the signals its declaration reads from them (`MetricDeclaration.read_signals`).

    A file holds only the rendered output, so which metric failed is read from where the
    renderer wrote it (`result.failure_text`: `name: cause; ...`); a judged run's records come
    from its typed scores instead (`rag_score_records`)."""
    declared = {metric.key: metric for metric in metrics}
    names = _names(result, selected, declared)
    failed_input = _input_failure(result, names)
    if failed_input is not None:
        return failed_input
    error = result.get("error") or ""
    failed = {part.split(":", 1)[0].strip() for part in error.split(";") if part.strip()}
    records = []
    for name in names:
        if name not in result and declared[name].applies is not None:
            continue
        score = result.get(name)
        status: Status = "judged" if score is not None else ("failed" if name in failed else "not_applicable")
        explanation = result.get(f"{name}_explanation")
        if status == "not_applicable" and explanation == NOT_REQUESTED.explanation:
            continue
        records.append(MetricRecord(name, score, explanation, status, "rag", SCALE,
                                    error if status == "failed" else None,
                                    signals=declared[name].read_signals(details)))
    return records
