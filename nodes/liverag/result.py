"""The `liverag` rubric (seed 002): its plan and its three-key output.

Relevance comes from `relevance.py`, faithfulness from `quote_faithfulness.py` (over the shared
claims). The two scores are independent: a failed step nulls only its own score, and
`evaluation_notes` says why.
"""

from __future__ import annotations

from ...schemas.liverag import LiveRagInput, LiveRagResult
from ...schemas.metrics import MetricScore
from ..claims.earlier_turns import earlier_turn_note
from .quote_faithfulness import score_liverag_faithfulness
from .relevance import NODE as RELEVANCE
from .relevance import score_relevance


def plan_liverag(_: LiveRagInput) -> list[str]:
    return ["extract_claims", RELEVANCE]


def _note(label: str, metric: MetricScore) -> str:
    value = "null" if metric.score is None else str(int(metric.score))
    return f"{label}: {value} — {metric.explanation}"


def liverag_result(state: dict, live: LiveRagInput) -> LiveRagResult:
    judgments = state.get("judgments", {})
    standalone = state.get("standalone")
    if standalone is not None and standalone.error is not None and live.history:
        relevance = MetricScore(None, f"could not be judged: {standalone.error}", standalone.error)
    else:
        relevance = score_relevance(judgments.get(RELEVANCE))
    faithfulness = score_liverag_faithfulness(
        live.passages, judgments.get("extract_claims"), state.get("verdicts", []))
    earlier = earlier_turn_note(state.get("verdicts", []), live.question, live.history, live.item_language.code)
    return LiveRagResult(
        evaluation_notes=" ".join(filter(None, (
            _note("Relevance", relevance), _note("Faithfulness", faithfulness), earlier, live.item_language.note))),
        relevance_score=None if relevance.score is None else int(relevance.score),
        faithfulness_score=None if faithfulness.score is None else int(faithfulness.score),
    )


def liverag_failure(reason: str) -> LiveRagResult:
    """Invalid input: both scores null (not judged), the reason in the notes."""
    return LiveRagResult(evaluation_notes=reason)
