"""Semantic similarity of the answer to the reference, judged on the 0-5 STS scale.

A missing reference is not a low score: the metric is null with "No reference answer
provided." Missing means JSON null, an absent key, "", whitespace only, or "none" in any
casing after trimming (seed 000).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from judgegraph.graph.context import JudgeContext
from judgegraph.graph.state import JudgeState
from judgegraph.llm.structured import StepOutcome
from judgegraph.nodes.judgment import run_judgment, skip_judgment
from judgegraph.nodes.scoring import MetricScore
from judgegraph.schemas.rag import SimilarityJudgment

NODE = "judge_semantic_similarity"
METRIC = "Semantic similarity"
NO_REFERENCE = "No reference answer provided."


def reference_missing(reference: object) -> bool:
    if reference is None:
        return True
    if not isinstance(reference, str):
        return False
    trimmed = reference.strip()
    return trimmed == "" or trimmed.casefold() == "none"


def judge_semantic_similarity(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict:
    rag = state["inputs"]["rag"]
    if reference_missing(rag.reference):
        return skip_judgment(NODE, runtime, "no reference answer: null without a model call")
    return run_judgment(
        NODE, SimilarityJudgment, runtime,
        question=rag.question, passages=rag.passages, answer=rag.answer, reference=rag.reference,
    )


def score_semantic_similarity(reference: object, outcome: StepOutcome | None) -> MetricScore:
    if reference_missing(reference):
        return MetricScore(None, NO_REFERENCE)
    if outcome is None or outcome.value is None:
        return MetricScore.failed(METRIC, outcome.error if outcome else "the step did not run")
    judgment: SimilarityJudgment = outcome.value
    return MetricScore(judgment.similarity / 5, f"{judgment.reasoning} (similarity {judgment.similarity}/5)")
