"""LiveRAG relevance (seed 002): the model observes, code applies the four-point scale.

The seed's scale:
    2  the response correctly answers the question and contains no irrelevant content
    1  a useful answer that may contain irrelevant content which does not harm its usefulness
    0  no answer is provided (e.g. "I don't know")
   -1  the response does not answer the question whatsoever

Asked for one number, a small judge blurs these steps. So the model answers separate yes/no
questions and the rules below, in this order, turn them into the score:
1. no answer given ("I don't know", "the documents do not say", a refusal) -> 0, whatever
   else is true: the seed names "I don't know" as its example of 0;
2. does not address the question at all -> -1;
3. addresses it but does not answer it correctly -> -1. The seed's 1 and 2 both require a
   correct, useful answer and 0 is reserved for giving no answer, so a wrong (or partly
   wrong) answer can only be -1. With a gold reference, "correct" means agreeing with it;
4. correct, with irrelevant content that harms its usefulness -> -1: not 2 (it has
   irrelevant content), not 1 (the seed's 1 requires that the content does not harm), not 0
   (an answer is given);
5. correct, with harmless irrelevant content -> 1;
6. correct, with no irrelevant content -> 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from ...calibration.profile import Profile
from ...declarations.metric_declaration import MetricDeclaration, RunDetails
from ...declarations.rubric_spec import MetricSpec, NodeSpec
from ...declarations.run_details import step_detail
from ...llm.steps import Step
from ...llm.structured import StepOutcome
from ...run.context import JudgeContext
from ...run.context_view import item_view, view_texts
from ...run.judgment_step import run_judgment
from ...run.state import JudgeState
from ...schemas.inputs import prompt_language
from ...schemas.liverag import LiveRagInput, LiveRagRelevanceJudgment
from ...schemas.metrics import Score

NODE = "judge_liverag_relevance"


def liverag_relevance_texts(state: JudgeState, context: JudgeContext | None) -> list[str]:
    """What the step embeds (`NodeSpec.embeds`): the question and the document lines, when the
    documents will not fit its prompt."""
    live: LiveRagInput = state["inputs"]["liverag"]
    return view_texts(live.question, live.passages, context, live.answer)


def judge_liverag_relevance(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    """One call; the prompt starts with the same system text and data block as the claim
    steps (`prompts.item_data`), so a prompt cache reuses that prefix, and adds the reference."""
    live: LiveRagInput = state["inputs"]["liverag"]
    view = yield from item_view(live.question, live.answer, live.passages, runtime.context)
    return (yield from run_judgment(
        NODE, LiveRagRelevanceJudgment, runtime, view=view,
        **view.item_data(live.question, live.answer).variables(),
        reference=live.reference, language=prompt_language(live.item_language.code),
    ))


def relevance_rule(judgment: LiveRagRelevanceJudgment) -> tuple[int, str]:
    """The score for the model's observations, and the rule that gave it (module docstring)."""
    if judgment.no_answer:
        return 0, "No answer is given (e.g. \"I don't know\")."
    if not judgment.addresses_question:
        return -1, "The response does not address the question."
    if not judgment.answers_correctly:
        return -1, "The response does not answer the question correctly."
    if judgment.contains_irrelevant_content and judgment.irrelevant_content_harms_usefulness:
        return -1, "The answer is correct, but irrelevant content harms its usefulness."
    if judgment.contains_irrelevant_content:
        return 1, "A correct, useful answer with irrelevant content that does not harm it."
    return 2, "The response answers the question correctly, with no irrelevant content."


def score_relevance(outcome: StepOutcome | None) -> Score:
    """Relevance as an int -1..2, or None with the reason when the step gave no valid reply."""
    if outcome is None or outcome.value is None:
        error = outcome.error if outcome is not None else "the step did not run"
        return Score(None, f"could not be judged: {error}", error or "no valid reply")
    score, rule = relevance_rule(outcome.value)
    reasoning = outcome.value.reasoning
    if reasoning and reasoning[-1] not in ".!?…":
        reasoning += "."
    return Score(score, f"{rule} {reasoning}".strip())


def decide_liverag_relevance(signals: StepOutcome | None, parameters: None = None) -> Score:
    """`score_relevance` of the step's outcome; no profile parameters act on it."""
    return score_relevance(signals)


def score_liverag_relevance(state: Mapping[str, Any], live: LiveRagInput, profile: Profile) -> Score:
    return decide_liverag_relevance(state.get("judgments", {}).get(NODE))


def relevance_record_signals(state: Mapping[str, Any], live: LiveRagInput) -> dict[str, Any]:
    """The judge's yes/no observations the four-point scale is computed from, from its reply."""
    outcome = state.get("judgments", {}).get(NODE)
    if outcome is None or outcome.value is None:
        return {}
    return outcome.value.model_dump(exclude={"reasoning"})


def relevance_signals(details: RunDetails) -> dict[str, Any]:
    """The judge's yes/no observations, from a results file's details: the reply's fields, not
    what the step recorded of a shortened context."""
    detail = step_detail(details, NODE)
    return {key: value for key, value in detail.items()
            if key != "reasoning" and key in LiveRagRelevanceJudgment.model_fields}


LIVERAG_RELEVANCE = MetricDeclaration(
    spec=MetricSpec("liverag_relevance", kind="ordinal", scale=(-1, 2), field="relevance_score"),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, judge_liverag_relevance, embeds=liverag_relevance_texts),),
    score=score_liverag_relevance,
    decide=decide_liverag_relevance,
    read_signals=relevance_signals,
    record_signals=relevance_record_signals,
    reads_question=True,
    label="Relevance",
)
