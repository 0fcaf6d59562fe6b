"""The `liverag` rubric (seed 002): its three-key output, assembled from its metrics' scores
(`metrics.DECLARED`).

The scores are independent: a failed step nulls only its own score, and `evaluation_notes`
says why, metric by metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration, decided
from ...schemas.liverag import LiveRagInput, LiveRagResult
from ...schemas.metrics import Score
from ..claims.earlier_turns import earlier_turn_note
from .metrics import DECLARED


def _note(label: str, metric: Score) -> str:
    value = "null" if metric.score is None else str(int(metric.score))
    return f"{label}: {value} — {metric.explanation}"


def score_liverag_metrics(state: Mapping[str, Any], live: LiveRagInput,
                          metrics: tuple[MetricDeclaration, ...] = DECLARED) -> dict[str, Score]:
    """Each metric's score from the finished state; a metric that judges the question fails
    with the reason when a conversation's standalone question could not be written."""
    standalone = state.get("standalone")
    unjudged = standalone.error if standalone is not None and live.history else None
    scores: dict[str, Score] = {}
    for metric in metrics:
        if unjudged is not None and metric.reads_question:
            scores[metric.key] = Score(None, f"could not be judged: {unjudged}", unjudged)
        else:
            scores[metric.key] = decided(metric, state, live, state.get("profile"))
    return scores


def liverag_result(scores: Mapping[str, Score], live: LiveRagInput, state: Mapping[str, Any],
                   metrics: tuple[MetricDeclaration, ...] = DECLARED) -> LiveRagResult:
    """The output rendered from the decided scores, with the earlier turns' note."""
    earlier = earlier_turn_note(state.get("verdicts", []), live.question, live.history, live.item_language.code)
    notes = [_note(metric.label, scores[metric.key]) for metric in metrics]
    return LiveRagResult(
        evaluation_notes=" ".join(filter(None, (*notes, earlier, live.item_language.note))),
        **{metric.spec.field: None if scores[metric.key].score is None else int(scores[metric.key].score)
           for metric in metrics},
    )


def liverag_failure(reason: str) -> LiveRagResult:
    """Invalid input: both scores null (not judged), the reason in the notes."""
    return LiveRagResult(evaluation_notes=reason)
