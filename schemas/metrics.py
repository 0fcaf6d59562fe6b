"""A metric of one item as decided (`Score`: what a rubric's scoring code returns, carried
typed to every consumer of the run) and its record (`MetricRecord`: one metric of one rubric
output, judged, not applicable or failed).

Why one record type: the LangSmith evaluators (one feedback row per metric), the HTML report
(counts and score distributions per metric) and later calibration must agree on what each
rubric's output means. A judged run's records are made from its scores
(`nodes/<rubric>/metric_records.py`'s `<rubric>_score_records`); an output read back from a
results file, where the outputs follow the seeds and say "not judged" in rubric-specific ways,
is read by its rubric's reader (`read_<rubric>_metrics`); `graph.metrics_view` picks which. A
metric that was not judged keeps `score=None` with the reason, never a made-up 0.

The score-like leaves of an output that no rubric declares are found by `metric_leaves`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["judged", "not_applicable", "failed"]


@dataclass(frozen=True)
class Score:
    """One metric of one item, typed from the step that decides it to every consumer: its value
    with the sentence that justifies it, or the cause that prevented it (`error` is None exactly
    when the metric was judged or does not apply), what the decision read (`signals`) and its
    `status`. The seed-shaped output is rendered from the scores once, at the graph's edge
    (`RubricSpec.finalize`); the metric records of a judged run are made from them
    (`RubricSpec.score_records`), so no consumer reads a status or cause back from the output."""

    score: float | None
    explanation: str | None
    error: str | None = None
    """The failure cause: why the metric could not be judged."""
    signals: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """What the decision read and derived (inspect_ai's `Score.metadata`): context relevance's
    recall, precision and label probabilities. In a finished run's scores, what its metric
    record carries, made by the deciding step from typed state
    (`MetricDeclaration.record_signals`)."""
    breakdown: Any = field(default=None, compare=False)
    """The per-item breakdown its output shows after the score (`MetricDeclaration.output_block`:
    citations' report, coverage's bullets, expected_output's evaluation), or None."""
    scale: tuple[float, float] | None = None
    """The value's range when the item sets it (expected_output's own range); else the
    metric's declared scale (`MetricSpec.scale`)."""
    label: str | None = None
    """A categorical result (expected_output's `categorical` type): judged, with no value."""
    requested: bool = True
    """False for a metric the item left out of its `metrics`: its output keys say "Not
    requested." and it has no metric record."""

    @property
    def status(self) -> Status:
        """`failed` with a cause, `judged` with a value or label, else `not_applicable`."""
        if self.error is not None:
            return "failed"
        return "judged" if self.score is not None or self.label is not None else "not_applicable"

    @classmethod
    def failed(cls, metric: str, error: str, signals: Mapping[str, Any] | None = None,
               breakdown: Any = None) -> "Score":
        return cls(None, f"{metric} could not be judged: {error}", error, dict(signals or {}), breakdown=breakdown)


@dataclass(frozen=True)
class MetricRecord:
    """One metric of one rubric output, as every consumer of outputs reads it."""

    key: str
    score: float | int | None
    comment: str | None
    status: Status
    rubric: str
    scale: tuple[float, float] | None = None
    """The score's range, for charts: (0, 1) for rag, (-1, 2) for liverag relevance, ..."""
    error: str | None = None
    value: str | None = None
    """A categorical result (expected_output's `categorical` type), which has no score."""
    signals: Mapping[str, Any] = field(default_factory=dict)
    """What the judge and code measured on the way to the score (label probabilities, claim
    supports, counts...), kept apart from the score and its explanation; empty when the run's
    details were not at hand or the metric has none."""


def is_score_key(key: str, siblings: dict) -> bool:
    return "score" in key.lower() or f"{key}_explanation" in siblings


def metric_leaves(result: Any, prefix: str = "") -> Iterator[tuple[str, float | None]]:
    """(dotted path, value) of every score-like leaf; None means judged as null / failed.

    A leaf is score-like when it is numeric (or null) and its key contains "score" (`score`,
    `relevance_score`, `evaluation.result.score`) or the same dict has a `<key>_explanation`
    sibling; counts such as `confidence` or range bounds are left out."""
    if not isinstance(result, dict):
        return
    for key, value in result.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from metric_leaves(value, f"{path}.")
        elif is_number_or_null(value) and is_score_key(str(key), result):
            yield path, None if value is None else float(value)


def is_number_or_null(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def value_at(result: Any, path: str) -> tuple[bool, Any]:
    """(found, value) of a dotted path in a nested dict (`"evaluation.result.score"`)."""
    current = result
    for part in path.split("."):
        if not isinstance(current, dict) or part not in current:
            return False, None
        current = current[part]
    return True, current
