"""Semantic similarity of the answer to the reference: sentence embeddings, else the judge.

With an embedder (the packaged multilingual-e5-small by default), the score is the cosine of
the answer's and the reference's embeddings on people's 0..1 scale
(`llm.embeddings.similarity_from_cosine`), with no model call: it tracks people in every
language measured, far better than a small judge's 0-5 rating (docs/benchmarks.md). For QA, one thing embeddings miss is
a wrong number ("2007" for "2005" reads as near-identical): when the answer gives a number of
the same kind as the reference where the reference's number is absent, the score is capped at
`NUMBER_CONFLICT_CAP` and the explanation names both. Without an embedder, the judge rates
the pair on the 0-5 STS scale, and the same cap applies to its rating.

A missing reference is not a low score: the metric is null with "No reference answer
provided." Missing means JSON null, an absent key, "", whitespace only, or "none" in any
casing after trimming (seed 000).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langgraph.runtime import Runtime

from ...calibration.profile import Profile
from ...declarations.metric_declaration import MetricDeclaration, RunDetails
from ...declarations.rubric_spec import MetricSpec, NodeSpec
from ...declarations.rule_failure import rule_failure
from ...declarations.run_details import step_detail
from ...llm.embeddings import run_embedder, cosine, similarity_from_cosine
from ...llm.steps import Step, blocking
from ...llm.structured import StepOutcome
from ...run.context import JudgeContext
from ...run.context_view import item_view
from ...run.judgment_step import run_judgment, skip_judgment
from ...run.state import JudgeState
from ...run.tracing import emit, plain_event
from ...schemas.inputs import prompt_language
from ...schemas.metrics import Score
from ...schemas.rag import EmbeddingSimilarity, RagInput, SimilarityJudgment
from ...text.quotes import numbers_in
from ..claims.code_checks import number_conflict

NODE = "judge_semantic_similarity"
METRIC = "Semantic similarity"
NO_REFERENCE = "No reference answer provided."
NUMBER_CONFLICT_CAP = 0.5


def reference_missing(reference: object) -> bool:
    if reference is None:
        return True
    if not isinstance(reference, str):
        return False
    trimmed = reference.strip()
    return trimmed == "" or trimmed.casefold() == "none"


def similarity_texts(state: JudgeState, context: JudgeContext | None) -> list[str]:
    """What the step embeds (`NodeSpec.embeds`): the answer and the reference, when there is one."""
    rag = state["inputs"]["rag"]
    return [] if reference_missing(rag.reference) else [rag.answer, rag.reference]


def judge_semantic_similarity(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    rag = state["inputs"]["rag"]
    if reference_missing(rag.reference):
        return skip_judgment(NODE, runtime, "no reference answer: null without a model call")
    if getattr(runtime.context, "embeddings", True):
        embedder = yield from blocking(run_embedder, runtime.context)  # may load the model
        if embedder is not None:
            started = time.perf_counter()
            vectors = yield from blocking(embedder.embed, [rag.answer, rag.reference])
            return _embedding_similarity(rag.answer, rag.reference, embedder, vectors, started, runtime)
    view = yield from item_view(rag.question, rag.answer, rag.passages, runtime.context)
    return (yield from run_judgment(
        NODE, SimilarityJudgment, runtime,
        **view.item_data(rag.question, rag.answer).variables(),
        reference=rag.reference, language=prompt_language(rag.item_language.code),
    ))


def _conflict_text(answer: str, reference: str) -> str:
    """All the answer's numbers the reference lacks, and the reference's own: which one is the
    wrong one is not for code to guess ("1995, 2007" against "2005")."""
    own = sorted(numbers_in(answer) - numbers_in(reference))
    theirs = sorted(numbers_in(reference) - numbers_in(answer))
    return f"the answer gives {', '.join(own)} where the reference gives {', '.join(theirs)}"


def _embedding_similarity(answer: str, reference: str, embedder, vectors, started: float, runtime) -> dict:
    answer_vector, reference_vector = vectors
    try:
        conflict = number_conflict(answer, "", reference, [reference])
        conflict_text = _conflict_text(answer, reference) if conflict else None
    except Exception as error:  # noqa: BLE001 - a rule failure fails this metric, not the item
        reason = rule_failure(error)
        event = emit(runtime, plain_event(NODE, started, outcome="failed", note=reason))
        return {"judgments": {NODE: StepOutcome(None, error=reason)}, "trace": [event]}
    closeness = cosine(answer_vector, reference_vector)
    value = EmbeddingSimilarity(
        cosine=round(closeness, 4),
        similarity=round(similarity_from_cosine(embedder, closeness), 4),
        model_id=embedder.model_id,
        number_conflict=conflict_text,
    )
    event = emit(runtime, plain_event(NODE, started, **value.model_dump()))
    return {"judgments": {NODE: StepOutcome(value)}, "trace": [event]}


@dataclass(frozen=True)
class SimilaritySignals:
    """What semantic similarity is decided from: the reference, the step's outcome (the
    embedding cosine or the judge's 0-5 rating) and the answer (for the wrong-number cap)."""

    reference: object
    outcome: StepOutcome | None
    answer: str | None = None


def decide_semantic_similarity(signals: SimilaritySignals, parameters: None = None) -> Score:
    """The metric from the step's outcome; no profile parameters act on it. The wrong-number
    cap is a rule of this code, not of how closeness was measured, so it applies to the judge's
    rating too (given the `answer`): a run without the embedding model must not score a wrong
    year higher than one with it."""
    reference, outcome, answer = signals.reference, signals.outcome, signals.answer
    if reference_missing(reference):
        return Score(None, NO_REFERENCE)
    if outcome is None or outcome.value is None:
        return Score.failed(METRIC, outcome.error if outcome else "the step did not run")
    judgment = outcome.value
    if isinstance(judgment, EmbeddingSimilarity):
        score = max(0.0, judgment.cosine if judgment.similarity is None else judgment.similarity)
        explanation = f"Embedding cosine {judgment.cosine:.2f} between the answer and the reference ({judgment.model_id})"
        explanation += "." if judgment.similarity is None else f", similarity {score:.2f} on a 0..1 scale."
        if judgment.number_conflict and score > NUMBER_CONFLICT_CAP:
            score = NUMBER_CONFLICT_CAP
            explanation += f" Capped at {NUMBER_CONFLICT_CAP}: {judgment.number_conflict}."
        return Score(score, explanation)
    score = judgment.similarity / 5
    explanation = f"{judgment.reasoning} (similarity {judgment.similarity}/5)"
    if answer is not None and isinstance(reference, str) and score > NUMBER_CONFLICT_CAP \
            and number_conflict(answer, "", reference, [reference]):
        score = NUMBER_CONFLICT_CAP
        explanation += f". Capped at {NUMBER_CONFLICT_CAP}: {_conflict_text(answer, reference)}."
    return Score(score, explanation)


def score_semantic_similarity(state: Mapping[str, Any], rag: RagInput, profile: Profile) -> Score:
    return decide_semantic_similarity(SimilaritySignals(rag.reference, state.get("judgments", {}).get(NODE), rag.answer))


def similarity_record_signals(state: Mapping[str, Any], rag: RagInput) -> dict[str, Any]:
    """The metric record's signals from the step's typed outcome: the embedding cosine, or the
    judge's 0-5 rating."""
    outcome = state.get("judgments", {}).get(NODE)
    value = outcome.value if outcome is not None else None
    if isinstance(value, EmbeddingSimilarity):
        return {"cosine": value.cosine, "similarity": value.similarity, "embedding_model": value.model_id,
                "number_conflict": value.number_conflict}
    return {} if value is None else {"similarity_0_to_5": value.similarity}


def metric_record_signals(details: RunDetails) -> dict[str, Any]:
    """What the step's trace event recorded, as the metric record's signals."""
    detail = step_detail(details, NODE)
    if not detail:
        return {}
    if "cosine" in detail:
        return {"cosine": detail["cosine"], "similarity": detail.get("similarity"),
                "embedding_model": detail.get("model_id"),
                "number_conflict": detail.get("number_conflict")}
    return {"similarity_0_to_5": detail.get("similarity")}


SOURCES = (
    "nodes/rag/semantic_similarity.py", "llm/embeddings.py", "text/quotes.py", "nodes/claims/code_checks.py",
    "text/numbers.py", "run/context_view.py", "prompts/_system_qa.j2", "prompts/_language.j2",
    "prompts/_item_data.j2", "prompts/_lines.j2", "prompts/_answer.j2", "prompts/judge_semantic_similarity.j2",
)
"""The files that define what its signals mean (`calibration.signal_hash`): the embedding cosine
and its scale, the number-conflict cap, and the judge's STS rating without an embedder."""

SEMANTIC_SIMILARITY = MetricDeclaration(
    spec=MetricSpec("semantic_similarity", kind="score", scale=(0, 1), field="semantic_similarity"),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, judge_semantic_similarity, embeds=similarity_texts),),
    score=score_semantic_similarity,
    decide=decide_semantic_similarity,
    read_signals=metric_record_signals,
    record_signals=similarity_record_signals,
    signal_sources=SOURCES,
)
