"""Answer relevance: the model observes, code applies the seed's rules.

The model reports the question's parts and which are answered, how direct the answer is, and,
for a refusal, whether it gives a reason, its category, whether it cites the missing
information or policy, and whether the context actually holds the answer. Then:
- a refusal is valid when it gives a reason, maps to one of the four categories, cites the
  missing information or policy, and (except for safety refusals) the context really lacks
  the answer: 1.0; any other refusal: 0.0;
- otherwise score = (parts answered / parts) * directness factor (the calibration profile's;
  by default direct 1.0, partial 0.75, evasive 0.5), so 1.0 means every part answered head-on.

A profile may grade both inputs (`answered_from: probabilities`): parts answered becomes the
expected number under the judge's P(answered) per part, and the factor its expectation under
P(direct / partial / evasive), read from the reply's token log-probabilities like context
relevance's P(yes / partly / no). A small judge's written labels put most answers on the same
few values (0, 0.75, 1.0), so two answers to one question tie however differently sure the
judge was. Without log-probabilities the written labels count 1/0, which is the plain rule.

Two replies can be asked for (the profile's `reply`): `reasoned` (the default), a short
reasoning text then the labels, whose text ends the explanation; or `labels`
(`prompts/judge_answer_relevance_labels.j2`, `schemas.rag.AnswerRelevanceLabels`), the labels
alone, a few dozen generated tokens, with the whole explanation written by code
(`answer_relevance_explanation`). Log-probabilities are asked for when the score reads them,
when `calibrate` records every signal, and always for the labels reply, where they cost little;
the reasoned reply's hundred-odd tokens make them cost the embedded judge seconds per item.
The signals are recorded in the step's trace detail (`probabilities`, and `reply` for the
labels reply) and, typed, in the state (`measured`, with the deciding judge's parameters), and
one function, `decide_answer_relevance`, decides live (once, at `finalize`, like every other
metric) and recorded replies of either shape alike.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from langgraph.runtime import Runtime

from ...calibration.profile import AnswerRelevanceParameters, Profile
from ...calibration.relevance_decisions import ANSWER_RELEVANCE_CALIBRATION, AnswerSignals, directness_factor, parts_answered
from ...declarations.metric_declaration import MetricDeclaration, RunDetails
from ...declarations.rubric_spec import MetricSpec, NodeSpec
from ...declarations.run_details import step_detail
from ...llm.boolean_probabilities import boolean_probabilities
from ...llm.steps import Step
from ...llm.structured import StepOutcome
from ...llm.verdict_probabilities import label_probabilities
from ...run.context import JudgeContext, resolved_context
from ...run.context_view import item_view
from ...prompts import render_messages
from ...run.escalation import decide
from ...run.judgment_step import judgment_update
from ...run.state import JudgeState, MeasuredSignals
from ...schemas.inputs import prompt_language
from ...schemas.metrics import Score
from ...schemas.rag import AnswerRelevanceJudgment, AnswerRelevanceLabels, AnswerRelevanceReply, RagInput
from .answer_relevance_explanation import DIRECTNESS_WORDS, labels_explanation, refusal_explanation

NODE = "judge_answer_relevance"
LABELS_TEMPLATE = "judge_answer_relevance_labels"
"""The labels reply's prompt; its trace event is still the node's."""
METRIC_KEY = "answer_relevance"
METRIC = "Answer relevance"
DIRECTNESS = ("direct", "partial", "evasive")


def judge_answer_relevance(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    """Ask the judge, read its signals once, and record them with the deciding judge's
    parameters in the state (`measured`, decided at `finalize`) and the graded signals in the
    step's trace event before it is emitted."""
    rag = state["inputs"]["rag"]
    view = yield from item_view(rag.question, rag.answer, rag.passages, runtime.context)
    context = yield from resolved_context(runtime.context)
    parameters = context.profile.answer_relevance_parameters
    graded = context.record_all_signals or parameters.reads_probabilities
    labels = parameters.reply == "labels"
    started = time.perf_counter()
    messages = render_messages(LABELS_TEMPLATE if labels else NODE,
                               **view.item_data(rag.question, rag.answer).variables(),
                               language=prompt_language(rag.item_language.code))
    deciding = yield from decide("answer_relevance", context, messages,
                                 AnswerRelevanceLabels if labels else AnswerRelevanceJudgment, p_answered, graded=graded)
    if deciding.context is not context:  # escalated: the second judge's profile reads its reply
        context = deciding.context
        parameters = context.profile.answer_relevance_parameters
        graded = context.record_all_signals or parameters.reads_probabilities
    outcome = deciding.outcome
    derived: dict = ({"reply": "labels"} if labels else {}) | deciding.detail()
    measured: dict[str, MeasuredSignals] = {}
    if outcome.value is not None:
        signals = reply_signals(outcome) if graded else written_signals(outcome.value)
        if graded:
            derived["probabilities"] = recorded_probabilities(signals)
        measured[METRIC_KEY] = MeasuredSignals(
            AnswerRelevanceSignals(outcome.value, signals, context_empty=not rag.passages, graded=graded), parameters)
    return judgment_update(NODE, outcome, started, runtime, derived | view.recorded_detail()) | {"measured": measured}


@dataclass(frozen=True)
class AnswerRelevanceSignals:
    """What answer relevance is decided from: the judge's reply and what was read of it
    (`signals`: the graded probabilities, or the written labels as 1/0), live or recorded."""

    judgment: AnswerRelevanceReply
    signals: AnswerSignals
    context_empty: bool
    graded: bool = False
    """Whether `signals` were read from the reply's token log-probabilities (the profile reads
    them, or `calibrate` records every signal): the trace and the metric record then carry them."""


def recorded_probabilities(signals: AnswerSignals) -> dict[str, Any]:
    """The graded signals as the step's trace detail records them (`probabilities`)."""
    return {"answered": [round(p, 6) for p in signals.answered], "directness": dict(signals.directness)}


def decide_answer_relevance(signals: AnswerRelevanceSignals, parameters: AnswerRelevanceParameters) -> Score:
    """The metric from its signals under `parameters`, live or recorded: refusals by the seed's
    rules, any other answer by parts answered / parts x directness factor under the profile
    (`answered_from: labels` reads the written labels instead of the probabilities). The
    explanation is code's (`answer_relevance_explanation`); a reasoned reply's text ends it."""
    judgment = signals.judgment
    reasoning = f" {judgment.reasoning}" if isinstance(judgment, AnswerRelevanceJudgment) else ""
    if judgment.is_refusal:
        problem = refusal_problem(judgment, signals.context_empty)
        return Score(1.0 if problem is None else 0.0,
                           refusal_explanation(judgment.refusal_category, problem) + reasoning)
    parts = judgment.question_parts
    written = written_signals(judgment)
    read = signals.signals if parameters.answered_from == "probabilities" else written
    answered = parts_answered(read)
    factor = directness_factor(read, parameters)
    score = min(1.0, answered / len(parts) * factor)
    graded = read != written
    if isinstance(judgment, AnswerRelevanceLabels):
        return Score(score, labels_explanation([part.part for part in parts], read.answered, answered,
                                                     judgment.directness, read.directness, factor, graded))
    count = f"{answered:.2f} (expected)" if graded else f"{answered:g}"
    how = DIRECTNESS_WORDS[judgment.directness]
    if graded:
        how += " (" + ", ".join(f"p_{level} {read.directness.get(level, 0.0):.2f}" for level in DIRECTNESS) + ")"
    return Score(
        score,
        f"Answers {count} of {len(parts)} part(s) of the question, {how} "
        f"(x{f'{factor:.2f}' if graded else factor}).{reasoning}",
    )


def written_signals(judgment: AnswerRelevanceReply) -> AnswerSignals:
    """The labels the reply wrote, as 1/0 probabilities."""
    return AnswerSignals(tuple(1.0 if part.answered else 0.0 for part in judgment.question_parts),
                         {level: 1.0 if level == judgment.directness else 0.0 for level in DIRECTNESS})


def reply_signals(outcome: StepOutcome) -> AnswerSignals:
    """P(answered) per part and P(direct / partial / evasive) from the reply's token
    log-probabilities; a value without them counts as written (1/0)."""
    judgment: AnswerRelevanceReply = outcome.value
    answered = tuple(boolean_probabilities(outcome.token_logprobs, "answered",
                                           [part.answered for part in judgment.question_parts]))
    directness, _ = label_probabilities(outcome.token_logprobs, "directness", DIRECTNESS, judgment.directness)
    return AnswerSignals(answered, directness)


def p_answered(outcome: StepOutcome, context: JudgeContext) -> tuple[float | None, bool]:
    """The decision's probability for escalation: the mean P(answered) over the question's
    parts, from the reply's token log-probabilities (the written labels without them; None
    without parts), and whether it came from them."""
    judgment: AnswerRelevanceReply = outcome.value
    if not judgment.question_parts:
        return None, False
    answered = boolean_probabilities(outcome.token_logprobs, "answered",
                                     [part.answered for part in judgment.question_parts])
    return sum(answered) / len(answered), bool(outcome.token_logprobs)


def recorded_reply(detail: dict) -> AnswerRelevanceReply | None:
    """The reply a run recorded in the step's detail, in the shape it was asked for (the labels
    reply's detail says `"reply": "labels"`; records from before it are reasoned replies); None
    when nothing was recorded. Raises pydantic's ValidationError for a detail of neither shape."""
    if not detail:
        return None
    schema = AnswerRelevanceLabels if detail.get("reply") == "labels" else AnswerRelevanceJudgment
    return schema.model_validate(detail)


def recorded_signals(detail: dict, judgment: AnswerRelevanceReply) -> AnswerSignals:
    """The signals a run recorded in the step's detail; a record from before they were recorded
    (or a malformed one) reads as the written labels, which is what that run scored."""
    recorded = detail.get("probabilities")
    written = written_signals(judgment)
    if not isinstance(recorded, dict):
        return written
    answered, directness = recorded.get("answered"), recorded.get("directness")
    if (not isinstance(answered, list) or len(answered) != len(written.answered)
            or not all(isinstance(p, (int, float)) and 0 <= p <= 1 for p in answered)
            or not isinstance(directness, dict) or set(directness) != set(DIRECTNESS)
            or not all(isinstance(p, (int, float)) and 0 <= p <= 1 for p in directness.values())):
        return written
    return AnswerSignals(tuple(float(p) for p in answered), {k: float(v) for k, v in directness.items()})


def refusal_problem(judgment: AnswerRelevanceReply, context_empty: bool) -> str | None:
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


def score_answer_relevance(state: Mapping[str, Any], rag: RagInput, profile: Profile) -> Score:
    """The metric of a finished run: the step's error when it failed, else decided from the
    signals the node read (`judge_answer_relevance`) under the parameters of the judge that
    decided (the run's profile unless escalated), with its record's signals."""
    outcome = state.get("judgments", {}).get(NODE)
    measured: MeasuredSignals[AnswerRelevanceSignals, AnswerRelevanceParameters] | None = (
        state.get("measured", {}).get(METRIC_KEY))
    if outcome is None or outcome.value is None or measured is None:
        return Score.failed(METRIC, outcome.error if outcome else "the step did not run")
    signals = measured.signals
    score = decide_answer_relevance(signals, measured.parameters)
    labels = isinstance(signals.judgment, AnswerRelevanceLabels)
    recorded = (signals.judgment.model_dump() | ({"reply": "labels"} if labels else {})
                | ({"probabilities": recorded_probabilities(signals.signals)} if signals.graded else {}))
    return replace(score, signals=record_signals_of(recorded))


def metric_record_signals(details: RunDetails) -> dict[str, Any]:
    """What the step's trace event recorded, as the metric record's signals (a results file's;
    a judged run's come on its Score, `score_answer_relevance`)."""
    return record_signals_of(step_detail(details, NODE))


def record_signals_of(detail: Mapping[str, Any]) -> dict[str, Any]:
    """The metric record's signals from the step's detail, as the node records it."""
    if not detail:
        return {}
    parts = detail.get("question_parts") or []
    probabilities = detail.get("probabilities") if isinstance(detail.get("probabilities"), dict) else {}
    refusal = detail.get("refusal") if isinstance(detail.get("refusal"), dict) else None
    labels = detail.get("reply") == "labels"
    return {"question_parts": len(parts),
            "parts_answered": sum(bool(p.get("answered")) for p in parts if isinstance(p, dict)),
            "answered_probabilities": probabilities.get("answered"),
            "directness_probabilities": probabilities.get("directness"),
            "directness": detail.get("directness"),
            "is_refusal": refusal is not None if labels else detail.get("is_refusal"),
            "refusal_category": ((refusal or {}).get("category", "none") if labels
                                 else detail.get("refusal_category")),
            "context_contains_answer": ((refusal or {}).get("context_contains_answer", False) if labels
                                        else detail.get("context_contains_answer")),
            "reply": "labels" if labels else "reasoned"}


ANSWER_RELEVANCE = MetricDeclaration(
    spec=MetricSpec(METRIC_KEY, kind="score", scale=(0, 1), field=METRIC_KEY),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, judge_answer_relevance),),
    score=score_answer_relevance,
    decide=decide_answer_relevance,
    read_signals=metric_record_signals,
    calibration=ANSWER_RELEVANCE_CALIBRATION,
    reads_question=True,
)
