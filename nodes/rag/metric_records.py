"""The `rag` output (seed 000) read back as metric records: one per requested metric.

The output says "not judged" its own way: invalid input fills `reason` and nulls every
metric; a failed step nulls its metric and names it in `error`; a metric that does not apply
(no reference for semantic similarity) is null with no error. With the run's details, each
record also carries what the step measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...schemas.inputs import RAG_METRICS
from ...schemas.metrics import Metric, Status
from ..claims.measured import claim_signals
from ..common.recorded import step_detail
from ..common.rubric_spec import MetricSpec
from .answer_relevance import NODE as ANSWER_RELEVANCE
from .context_relevance import NODE as CONTEXT_RELEVANCE
from .result import NOT_REQUESTED
from .semantic_similarity import NODE as SIMILARITY

METRICS = tuple(
    MetricSpec(name, kind="score", scale=(0, 1), field=name, from_claims=name == "faithfulness")
    for name in RAG_METRICS
)
SCALE = (0, 1)


def _context_relevance(detail: dict) -> dict[str, Any]:
    probabilities = detail.get("probabilities") or {}
    return {"answer_in_context": detail.get("answer_in_context"), "p_yes": probabilities.get("yes"),
            "p_partly": probabilities.get("partly"), "p_no": probabilities.get("no"),
            "useful_lines": detail.get("useful_lines"), "recall": detail.get("recall"),
            "precision": detail.get("precision"), "closeness": detail.get("closeness")}


def _answer_relevance(detail: dict) -> dict[str, Any]:
    parts = detail.get("question_parts") or []
    probabilities = detail.get("probabilities") if isinstance(detail.get("probabilities"), dict) else {}
    return {"question_parts": len(parts), "parts_answered": sum(bool(p.get("answered")) for p in parts),
            "answered_probabilities": probabilities.get("answered"),
            "directness_probabilities": probabilities.get("directness"),
            "directness": detail.get("directness"), "is_refusal": detail.get("is_refusal"),
            "refusal_category": detail.get("refusal_category"),
            "context_contains_answer": detail.get("context_contains_answer")}


def _semantic_similarity(detail: dict) -> dict[str, Any]:
    if "cosine" in detail:
        return {"cosine": detail["cosine"], "similarity": detail.get("similarity"),
                "embedding_model": detail.get("model_id"),
                "number_conflict": detail.get("number_conflict")}
    return {"similarity_0_to_5": detail.get("similarity")}


_STEP_SIGNALS = {
    "context_relevance": (CONTEXT_RELEVANCE, _context_relevance),
    "answer_relevance": (ANSWER_RELEVANCE, _answer_relevance),
    "semantic_similarity": (SIMILARITY, _semantic_similarity),
}


def rag_signals(name: str, details: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the metric's step measured, from the run's details; empty without them."""
    if name == "faithfulness":
        return claim_signals(details)
    node, read = _STEP_SIGNALS[name]
    detail = step_detail(details, node)
    return read(detail) if detail else {}


def read_rag_metrics(result: dict, selected: tuple[str, ...] | None = None,
                     details: Mapping[str, Any] | None = None) -> list[Metric]:
    names = selected or RAG_METRICS
    if result.get("reason") and result.get("evaluation_status") == "failed":  # invalid input: nothing judged
        # (a judged item's `reason` may hold a note, such as its language having no figures)
        return [Metric(name, None, result["reason"], "failed", "rag", SCALE, result["reason"]) for name in names]
    error = result.get("error") or ""
    failed = {part.split(":", 1)[0].strip() for part in error.split(";") if part.strip()}
    metrics = []
    for name in names:
        score = result.get(name)
        status: Status = "judged" if score is not None else ("failed" if name in failed else "not_applicable")
        explanation = result.get(f"{name}_explanation")
        if status == "not_applicable" and explanation == NOT_REQUESTED.explanation:
            continue
        metrics.append(Metric(name, score, explanation, status, "rag", SCALE, error if status == "failed" else None,
                              signals=rag_signals(name, details)))
    return metrics
