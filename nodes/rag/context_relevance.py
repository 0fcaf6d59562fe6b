"""Context relevance: recall from the judge's graded "is the answer in the context?", precision
from the lines it marks useful; code weighs them by the goal.

The judge sees the context as numbered lines and answers two small questions: does the context
hold what the question needs (yes / partly / no), and which lines help. Recall is what the
calibration profile makes of P(yes / partly / no) (`calibration.relevance_decisions`; by
default P(yes) + P(partly)/2) from the reply's token log-probabilities (graded, where a 1.5B judge's
own 0..1 numbers were nearly binary and ranked MS MARCO pairs below chance); precision is the
share of the context's words that sit in the useful lines.

score = w * recall + (1 - w) * precision, with w from the evaluation goal:
0.8 for fact-checking, legal or medical work (recall matters most), 0.2 for creative
generation or safety-critical hallucination reduction (precision matters most), 0.5 otherwise.
With recall 1 and precision 0 this gives 0.5 / 0.8 / 0.2, and with precision 1 and recall 0
it gives 0.5 / 0.2 / 0.8: the seed's worked examples.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime

from ...calibration.profile import ContextRelevanceParameters, profile_for
from ...calibration.relevance_decisions import context_recall
from ...graph.context import JudgeContext
from ...graph.state import JudgeState
from ...llm.steps import Step
from ...llm.structured import StepOutcome
from ...llm.verdict_probabilities import label_probabilities
from ...schemas.inputs import prompt_language
from ...schemas.rag import ContextRelevanceJudgment
from ...text.tokens import word_count
from ..common.context_view import ContextView, judge_view
from ..common.judgment import run_judgment, skip_judgment
from ..common.scoring import MetricScore
from ..common.segmentation import context_lines
from .semantic_similarity import reference_missing

NODE = "judge_context_relevance"
METRIC = "Context relevance"

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


def judge_context_relevance(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    rag = state["inputs"]["rag"]
    if not rag.passages:
        return skip_judgment(NODE, runtime, "empty context: scored 0.0 without a model call")
    reference = None if reference_missing(rag.reference) else rag.reference
    view = yield from judge_view(rag.question, rag.passages, runtime.context, reference)
    update = yield from run_judgment(
        NODE, ContextRelevanceJudgment, runtime, graded=True,
        question=rag.question, lines=view.lines, reference=reference, context_note=view.note(),
        language=prompt_language(rag.item_language.code),
    )
    outcome = update["judgments"][NODE]
    if outcome.value is not None and not view.whole:
        outcome.value = in_whole_context(outcome.value, view)
        update["trace"][0].detail |= {"useful_lines": outcome.value.useful_lines}
    view.recorded(update)
    if outcome.value is not None:
        parameters = profile_for(runtime.context).context_relevance_parameters
        recall, precision, probabilities = recall_and_precision(rag.passages, outcome, parameters)
        update["trace"][0].detail |= {"recall": round(recall, 4), "precision": round(precision, 4),
                                      "probabilities": probabilities}
    return update


def in_whole_context(judgment: ContextRelevanceJudgment, view: ContextView) -> ContextRelevanceJudgment:
    """The judgment with its useful lines renumbered from the lines shown to the whole context's,
    so precision is the share of the *whole* context's words that help: lines the view left out
    (the farthest from the question) count as not useful."""
    numbers = (view.original_line_number(n) for n in judgment.useful_lines)
    return judgment.model_copy(update={"useful_lines": sorted({n for n in numbers if n is not None})})


def recall_and_precision(passages: list[str], outcome: StepOutcome,
                         parameters: ContextRelevanceParameters) -> tuple[float, float, dict[str, float]]:
    """(recall, precision, label probabilities) from the judge's reply, in code."""
    judgment: ContextRelevanceJudgment = outcome.value
    probabilities, _ = label_probabilities(
        outcome.token_logprobs, "answer_in_context", ("yes", "partly", "no"), judgment.answer_in_context
    )
    recall = context_recall(probabilities, parameters)
    lines = context_lines(passages)
    useful = {n for n in judgment.useful_lines if 0 < n <= len(lines)}
    total_words = sum(word_count(line) for line in lines) or 1
    precision = sum(word_count(lines[n - 1]) for n in useful) / total_words
    return recall, precision, probabilities


def score_context_relevance(
    passages: list[str], evaluation_goal: str | None, outcome: StepOutcome | None,
    parameters: ContextRelevanceParameters,
) -> MetricScore:
    if not passages:
        return MetricScore(0.0, "The context is empty, so it holds nothing relevant to the question.")
    if outcome is None or outcome.value is None:
        return MetricScore.failed(METRIC, outcome.error if outcome else "the step did not run")
    recall, precision, probabilities = recall_and_precision(passages, outcome, parameters)
    return combine(recall, precision, evaluation_goal, outcome.value, probabilities)


def combine(recall: float, precision: float, evaluation_goal: str | None,
            judgment: ContextRelevanceJudgment | None = None, probabilities: dict[str, float] | None = None) -> MetricScore:
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
    return MetricScore(score, explanation)
