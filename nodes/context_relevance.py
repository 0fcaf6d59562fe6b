"""Context relevance: the model judges precision and recall; code weighs them by the goal.

score = w * recall + (1 - w) * precision, with w from the evaluation goal:
0.8 for fact-checking, legal or medical work (recall matters most), 0.2 for creative
generation or safety-critical hallucination reduction (precision matters most), 0.5 otherwise.
With recall 1 and precision 0 this gives 0.5 / 0.8 / 0.2, and with precision 1 and recall 0
it gives 0.5 / 0.2 / 0.8: the seed's worked examples.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime

from judgegraph.graph.context import JudgeContext
from judgegraph.graph.state import JudgeState
from judgegraph.llm.structured import StepOutcome
from judgegraph.nodes.judgment import run_judgment, skip_judgment
from judgegraph.nodes.scoring import MetricScore
from judgegraph.nodes.semantic_similarity import reference_missing
from judgegraph.schemas.rag import ContextRelevanceJudgment

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


def judge_context_relevance(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict:
    rag = state["inputs"]["rag"]
    if not rag.passages:
        return skip_judgment(NODE, runtime, "empty context: scored 0.0 without a model call")
    reference = None if reference_missing(rag.reference) else rag.reference
    return run_judgment(
        NODE, ContextRelevanceJudgment, runtime,
        question=rag.question, passages=rag.passages, answer=rag.answer, reference=reference,
    )


def score_context_relevance(
    passages: list[str], evaluation_goal: str | None, outcome: StepOutcome | None
) -> MetricScore:
    if not passages:
        return MetricScore(0.0, "The context is empty, so it holds nothing relevant to the question.")
    if outcome is None or outcome.value is None:
        return MetricScore.failed(METRIC, outcome.error if outcome else "the step did not run")
    judgment: ContextRelevanceJudgment = outcome.value
    weight, priority = recall_weight(evaluation_goal)
    score = weight * judgment.recall + (1 - weight) * judgment.precision
    explanation = (
        f"{judgment.reasoning} (precision {judgment.precision:.2f}, recall {judgment.recall:.2f}, "
        f"{priority}: {weight:.1f}*recall + {1 - weight:.1f}*precision)"
    )
    return MetricScore(score, explanation)
