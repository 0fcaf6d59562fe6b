"""Answer relevance: the model observes, code applies the seed's rules.

The model reports the question's parts and which are answered, how direct the answer is, and,
for a refusal, whether it gives a reason, its category, whether it cites the missing
information or policy, and whether the context actually holds the answer. Then:
- a refusal is valid when it gives a reason, maps to one of the four categories, cites the
  missing information or policy, and (except for safety refusals) the context really lacks
  the answer: 1.0; any other refusal: 0.0;
- otherwise score = (parts answered / parts) * directness factor (the calibration profile's;
  by default direct 1.0, partial 0.75, evasive 0.5), so 1.0 means every part answered head-on.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from ...calibration.profile import AnswerRelevanceParameters
from ...calibration.relevance_decisions import directness_factor
from ...graph.context import JudgeContext
from ...graph.state import JudgeState
from ...llm.steps import Step
from ...llm.structured import StepOutcome
from ...schemas.inputs import prompt_language
from ...schemas.rag import AnswerRelevanceJudgment
from ..common.context_view import judge_view
from ..common.judgment import run_judgment
from ..common.scoring import MetricScore

NODE = "judge_answer_relevance"
METRIC = "Answer relevance"
_DIRECTNESS_WORDS = {"direct": "directly", "partial": "only partly directly", "evasive": "evasively"}


def judge_answer_relevance(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    rag = state["inputs"]["rag"]
    view = yield from judge_view(rag.question, rag.passages, runtime.context, rag.answer)
    update = yield from run_judgment(
        NODE, AnswerRelevanceJudgment, runtime,
        question=rag.question, passages=view.shown(rag.passages), answer=rag.answer,
        context_note=view.note(), language=prompt_language(rag.item_language.code),
    )
    return view.recorded(update)


def refusal_problem(judgment: AnswerRelevanceJudgment, context_empty: bool) -> str | None:
    """Why a refusal is invalid, or None when it meets every criterion."""
    if not judgment.refusal_reason_given:
        return "it refuses without stating a clear reason"
    if judgment.refusal_category == "none":
        return "its reason maps to none of insufficient context, safety, ambiguous or out-of-scope"
    if not judgment.refusal_cites_missing_info_or_policy:
        return "it does not cite the missing information or the policy behind it"
    if judgment.refusal_category != "safety" and judgment.context_contains_answer and not context_empty:
        return "the context holds the answer, so it should have answered"
    return None


def score_answer_relevance(outcome: StepOutcome | None, context_empty: bool,
                           parameters: AnswerRelevanceParameters) -> MetricScore:
    if outcome is None or outcome.value is None:
        return MetricScore.failed(METRIC, outcome.error if outcome else "the step did not run")
    judgment: AnswerRelevanceJudgment = outcome.value
    if judgment.is_refusal:
        category = judgment.refusal_category.replace("-", " ")
        problem = refusal_problem(judgment, context_empty)
        if problem is None:
            return MetricScore(1.0, f"A valid refusal ({category}): it states its reason and cites what is missing. {judgment.reasoning}")
        return MetricScore(0.0, f"An invalid refusal: {problem}. {judgment.reasoning}")
    parts = judgment.question_parts
    answered = sum(part.answered for part in parts)
    factor = directness_factor(judgment.directness, parameters)
    score = answered / len(parts) * factor
    return MetricScore(
        score,
        f"Answers {answered} of {len(parts)} part(s) of the question, {_DIRECTNESS_WORDS[judgment.directness]} "
        f"(x{factor}). {judgment.reasoning}",
    )
