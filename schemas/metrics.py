"""A rubric's seed-shaped output read as a list of metrics, each judged, not applicable or failed.

Why one place: the LangSmith evaluators (one feedback row per metric) and the HTML report (counts
and score distributions per metric) must agree on what each rubric's output means. The
outputs themselves follow the seeds and say "not judged" in rubric-specific ways (rag: a null
score and its metric named in `error`; expected_output: the error object; ...); this module
is the single translation. A metric that was not judged keeps `score=None` with the reason,
never a made-up 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["judged", "not_applicable", "failed"]

RAG_METRICS = ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity")


@dataclass(frozen=True)
class Metric:
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


def rag_metrics(result: dict, selected: tuple[str, ...] | None = None) -> list[Metric]:
    names = selected or RAG_METRICS
    if result.get("reason"):  # invalid input: nothing was judged
        return [Metric(name, None, result["reason"], "failed", "rag", (0, 1), result["reason"]) for name in names]
    error = result.get("error") or ""
    failed = {part.split(":", 1)[0].strip() for part in error.split(";") if part.strip()}
    metrics = []
    for name in names:
        score = result.get(name)
        status: Status = "judged" if score is not None else ("failed" if name in failed else "not_applicable")
        explanation = result.get(f"{name}_explanation")
        if status == "not_applicable" and explanation == "Not requested.":
            continue
        metrics.append(Metric(name, score, explanation, status, "rag", (0, 1), error if status == "failed" else None))
    return metrics


def liverag_metrics(result: dict, selected: tuple[str, ...] | None = None) -> list[Metric]:
    notes = result.get("evaluation_notes")
    return [
        Metric(key, result.get(field), notes, "judged" if result.get(field) is not None else "failed", "liverag", scale)
        for field, key, scale in (("relevance_score", "liverag_relevance", (-1, 2)),
                                  ("faithfulness_score", "liverag_faithfulness", (-1, 1)))
    ]


def coverage_metrics(result: dict, selected: tuple[str, ...] | None = None) -> list[Metric]:
    score = result.get("score")
    return [Metric("coverage", score, "\n".join(result.get("rationale") or []),
                   "judged" if score is not None else "failed", "coverage", (0, 5))]


def expected_output_metrics(result: dict, selected: tuple[str, ...] | None = None) -> list[Metric]:
    if result.get("error") or "evaluation" not in result:
        message = result.get("error_message") or "no evaluation"
        return [Metric("expected_output", None, message, "failed", "expected_output", error=message)]
    evaluation = result["evaluation"]
    judged = evaluation.get("result") or {}
    scale = (judged["min_range"], judged["max_range"]) if "min_range" in judged else None
    return [Metric("expected_output", judged.get("score"), evaluation.get("reasoning"), "judged",
                   "expected_output", scale, value=judged.get("category"))]


READERS = {
    "rag": rag_metrics,
    "liverag": liverag_metrics,
    "coverage": coverage_metrics,
    "expected_output": expected_output_metrics,
}


def generic_metrics(rubric: str, result: dict) -> list[Metric]:
    """A rubric this module does not know yet: every score-like leaf, None meaning not judged."""
    from ..batch.summary import metric_leaves

    return [Metric(f"{rubric}.{path}", value, None, "judged" if value is not None else "failed", rubric)
            for path, value in metric_leaves(result)]


def rubric_metrics(rubric: str, result: Any, selected: tuple[str, ...] | None = None) -> list[Metric]:
    if not isinstance(result, dict):
        return []
    reader = READERS.get(rubric)
    return reader(result, selected) if reader else generic_metrics(rubric, result)


def record_metrics(record: dict) -> list[Metric]:
    """Every metric of one batch output line (`{"rubric", "result", ...}`), all rubrics of it."""
    rubric = record.get("rubric")
    result = record.get("result")
    if isinstance(rubric, list):
        return [m for name in rubric for m in rubric_metrics(name, (result or {}).get(name))]
    return rubric_metrics(str(rubric), result)
