"""Context and answer relevance recomputed from what a run recorded, under any profile, with
no judge call (the relevance metrics' counterpart of `fitting.recompute`).

Why: a fit tries many candidate parameters on every fold, and each must give exactly the score
a live run with that profile would give. So the recorded reply (the step's trace detail: its
labels, P(yes / partly / no), the useful lines, the embedding closeness when measured) goes
through the same scoring functions the graph's rubric uses
(`nodes.rag.context_relevance.decide_context_relevance`,
`nodes.rag.answer_relevance.decide_answer_relevance`).

This module reads the `--details` of batch records; it imports the nodes, so it sits above
them, and is imported only by the fitting and the calibrate command.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..calibration.profile import AnswerRelevanceParameters, ContextRelevanceParameters
from ..calibration.relevance_decisions import AnswerSignals, RecallSignals
from ..declarations.run_details import step_detail
from ..nodes.rag import answer_relevance, context_relevance
from ..schemas.inputs import to_passages
from ..schemas.rag import AnswerRelevanceReply, ContextRelevanceJudgment
from .recompute import judged_details


@dataclass(frozen=True)
class RecordedContextRelevance:
    """One judged item as the context-relevance decisions need it."""

    id: str
    passages: list[str]
    evaluation_goal: str | None
    judgment: ContextRelevanceJudgment | None
    """The reply, useful lines numbered in the whole context; None when the step failed."""
    signals: RecallSignals


@dataclass(frozen=True)
class RecordedAnswerRelevance:
    """One judged item as the answer-relevance decisions need it."""

    id: str
    context_empty: bool
    judgment: AnswerRelevanceReply | None
    """The reply, reasoned or labels only (`AnswerRelevanceParameters.reply`); None when the step failed."""
    signals: AnswerSignals | None = None
    """P(answered) per part and P(direct / partial / evasive) as recorded; None when the step failed."""


def _item(details: dict) -> dict:
    item = details.get("item")
    return item if isinstance(item, dict) else {}


def recorded_context_relevance(record: dict) -> RecordedContextRelevance | None:
    """From a batch record written with `--details`; None when it has no details or was not
    judged for context relevance."""
    details = judged_details(record, "context_relevance")
    if details is None:
        return None
    item = _item(details)
    detail = step_detail(details, context_relevance.NODE)
    judgment = ContextRelevanceJudgment.model_validate(detail) if detail else None
    closeness = detail.get("closeness")
    signals = RecallSignals(dict(detail.get("probabilities") or {}),
                            float(closeness) if isinstance(closeness, (int, float)) else None)
    goal = item.get("evaluation_goal")
    return RecordedContextRelevance(id=str(record.get("id")), passages=to_passages(item.get("context")),
                                    evaluation_goal=goal if isinstance(goal, str) else None,
                                    judgment=judgment, signals=signals)


def context_relevance_score(recorded: RecordedContextRelevance, parameters: ContextRelevanceParameters) -> float | None:
    """The seed's context relevance (unrounded) under `parameters`; None where it failed."""
    if not recorded.passages:
        return context_relevance.EMPTY_CONTEXT.score
    if recorded.judgment is None:
        return None
    signals = context_relevance.ContextRelevanceSignals(recorded.passages, recorded.evaluation_goal,
                                                        recorded.judgment, recorded.signals)
    return context_relevance.decide_context_relevance(signals, parameters).score


def recorded_answer_relevance(record: dict) -> RecordedAnswerRelevance | None:
    """From a batch record written with `--details`; None when it has no details or was not
    judged for answer relevance."""
    details = judged_details(record, "answer_relevance")
    if details is None:
        return None
    detail = step_detail(details, answer_relevance.NODE)
    judgment = answer_relevance.recorded_reply(detail)
    signals = answer_relevance.recorded_signals(detail, judgment) if judgment is not None else None
    return RecordedAnswerRelevance(id=str(record.get("id")), context_empty=not to_passages(_item(details).get("context")),
                                   judgment=judgment, signals=signals)


def answer_relevance_score(recorded: RecordedAnswerRelevance, parameters: AnswerRelevanceParameters) -> float | None:
    """The seed's answer relevance (unrounded) under `parameters`; None where it failed."""
    if recorded.judgment is None:
        return None
    signals = recorded.signals or answer_relevance.written_signals(recorded.judgment)
    return answer_relevance.decide_answer_relevance(
        answer_relevance.AnswerRelevanceSignals(recorded.judgment, signals, recorded.context_empty), parameters).score
