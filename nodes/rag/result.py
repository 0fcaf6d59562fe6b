"""The `rag` rubric (seed 000): which nodes it runs and how its 11-key output is assembled.

The metrics are computed independently: a step that fails makes only its own metric null
(with the reason in its explanation), marks the evaluation failed and fills `error`, and the
other metrics are kept.
"""

from __future__ import annotations

from ...calibration.profile import default_profile
from ...schemas.inputs import RagInput
from ...schemas.rag import RagResult
from ..claims.faithfulness import score_faithfulness
from ..common.scoring import MetricScore, round_half_up
from .answer_relevance import NODE as ANSWER_RELEVANCE
from .answer_relevance import score_answer_relevance
from .context_relevance import NODE as CONTEXT_RELEVANCE
from .context_relevance import score_context_relevance
from .semantic_similarity import NODE as SIMILARITY
from .semantic_similarity import score_semantic_similarity

METRIC_NODES = {
    "faithfulness": "extract_claims",
    "context_relevance": CONTEXT_RELEVANCE,
    "answer_relevance": ANSWER_RELEVANCE,
    "semantic_similarity": SIMILARITY,
}
"""The entry node each metric needs (faithfulness fans out to the claim checks from there)."""

NOT_REQUESTED = MetricScore(None, "Not requested.")


def plan_rag(rag: RagInput) -> list[str]:
    """Only the nodes of the metrics the item asks for (all four by default)."""
    return [METRIC_NODES[name] for name in rag.selected_metrics]


def score_rag_metrics(state: dict, rag: RagInput) -> dict[str, MetricScore]:
    """Each metric's typed score and explanation from the finished state; "Not requested." for
    the metrics the item left out. Decided with the run's calibration profile (`finalize`
    puts it in the state it passes; the default profile otherwise)."""
    judgments = state.get("judgments", {})
    profile = state.get("profile") or default_profile()
    passages = rag.passages
    scorers = {
        "faithfulness": lambda: score_faithfulness(
            passages, judgments.get("extract_claims"), state.get("verdicts", [])
        ),
        "context_relevance": lambda: score_context_relevance(
            passages, rag.evaluation_goal, judgments.get(CONTEXT_RELEVANCE), profile.context_relevance_parameters,
            closeness=state.get("measured", {}).get(CONTEXT_RELEVANCE, {}).get("closeness"),
        ),
        "answer_relevance": lambda: score_answer_relevance(
            judgments.get(ANSWER_RELEVANCE), context_empty=not passages,
            parameters=profile.answer_relevance_parameters,
        ),
        "semantic_similarity": lambda: score_semantic_similarity(rag.reference, judgments.get(SIMILARITY), rag.answer),
    }
    selected = rag.selected_metrics
    return {name: score() if name in selected else NOT_REQUESTED for name, score in scorers.items()}


def rag_result(state: dict, rag: RagInput) -> RagResult:
    metrics = score_rag_metrics(state, rag)
    fields: dict = {}
    errors = []
    for name, metric in metrics.items():
        fields[name] = None if metric.score is None else round_half_up(metric.score, 2)
        fields[f"{name}_explanation"] = metric.explanation
        if metric.error:
            errors.append(f"{name}: {metric.error}")
    return RagResult(
        **fields,
        evaluation_status="failed" if errors else "success",
        # a language without agreement figures is judged all the same, and said so here: the
        # seed's `reason` is for "expected/semantic evaluation outcomes"
        reason=rag.item_language.note,
        error="; ".join(errors) or None,
    )


def rag_failure(reason: str) -> RagResult:
    return RagResult(evaluation_status="failed", reason=reason)


def rag_error(error: str) -> RagResult:
    """Judging broke: the seed keeps runtime errors in `error`, input problems in `reason`."""
    return RagResult(evaluation_status="failed", error=error)

