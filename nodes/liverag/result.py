"""The `liverag` rubric (seed 002): faithfulness from the shared claims, notes, registration.

Faithfulness reuses the claims and verdicts of the shared claim pipeline (`nodes.check_claim`):
the answer's claims are checked against the documents. The rules, in order:
1. claim extraction failed -> null, with the error (never a made-up -1);
2. no checkable claims:
   - the answer declines to answer ("I don't know") -> 1: it asserts nothing the documents
     could fail to ground (the same rule as `rag`, which scores such an answer 1.0);
   - anything else -> null: faithfulness does not apply to an answer that states nothing
     checkable, and guessing 1 or -1 would be made up;
3. no documents (an empty list, or only blank strings) -> -1: the answer makes claims and
   nothing was retrieved to ground them, so none is grounded (`rag` scores this 0.0);
4. any claim check failed -> null, with the error;
5. otherwise count the claims that are supported: every one -> 1, some -> 0, none -> -1.
   A claim counts as supported only when the verdict is "supported" AND its evidence quote
   is found in the documents (`CheckedClaim.counts_as_supported`, re-checked against this
   rubric's own documents, because when several rubrics share one extraction the claims are
   checked against the union of their passages).

Relevance comes from `nodes.liverag_relevance`. The two scores are independent: a failed
step nulls only its own score, and `evaluation_notes` says why.
"""

from __future__ import annotations

from ...llm.structured import StepOutcome
from .. import rubrics
from ..claims.check import CLAIM_NODES
from ..common.quotes import quote_found
from .relevance import NODE as RELEVANCE, judge_liverag_relevance, score_relevance
from ..common.scoring import MetricScore
from ...schemas.claims import CheckedClaim, ExtractedClaims
from ...schemas.liverag import LiveRagInput, LiveRagResult

FIELD_LABELS = {
    "question": "user question",
    "answer": "generated answer",
    "documents": "retrieved documents",
    "gold_reference": "gold reference answer",
}

MAX_LISTED = 4
"""Unsupported claims named in the notes; the rest are counted ("and 2 more")."""


def plan_liverag(_: LiveRagInput) -> list[str]:
    return ["extract_claims", RELEVANCE]


def _quoted(text: str, limit: int = 80) -> str:
    return f"'{text if len(text) <= limit else text[: limit - 1] + '…'}'"


def supported_by_documents(verdict: CheckedClaim, documents: list[str]) -> bool:
    """Support counts only when the check itself says so and its quote occurs in the documents.

    The rag rubric's second reading of one-claim answers (`nodes.own_answer`) does not count
    here: LiveRAG's rule asks for a supporting quote, and the judge's own answer is not one."""
    return (verdict.counts_as_supported and not verdict.rescued_by_own_answer
            and quote_found(verdict.evidence, documents))


def _why_unsupported(verdict: CheckedClaim, documents: list[str]) -> str:
    """The verdict in the notes' words: a "supported" whose quote is missing says so."""
    if verdict.rescued_by_own_answer:
        return f"{verdict.model_verdict or 'unsupported'} (no supporting quote)"
    if verdict.verdict == "not-in-context":
        return "not in the documents"
    if verdict.verdict in ("supported", "contradicted") and not quote_found(verdict.evidence, documents):
        return f"{verdict.verdict}, but the quote is not in the documents"
    if verdict.conflict:
        return f"contradicted: {verdict.conflict}"
    return verdict.effective_verdict


def score_faithfulness(
    documents: list[str],
    extraction: StepOutcome[ExtractedClaims] | None,
    verdicts: list[CheckedClaim],
) -> MetricScore:
    """Faithfulness -1..1 by the rules of the module docstring, with the sentence behind it."""
    if extraction is None or extraction.value is None:
        error = extraction.error if extraction is not None else "claim extraction did not run"
        return MetricScore(None, f"could not be judged: claim extraction failed: {error}", error)
    claims = extraction.value
    if not claims.claims:
        if claims.declines_to_answer:
            return MetricScore(1, "The answer declines to answer and asserts nothing the documents would need to ground.")
        return MetricScore(None, "not applicable: the answer makes no checkable factual claim.")
    if not documents:
        return MetricScore(-1, f"No documents were retrieved, so none of the answer's {len(claims.claims)} claim(s) is grounded.")
    ordered = sorted(verdicts, key=lambda v: v.index)
    failures = [v for v in ordered if v.error is not None]
    if failures or len(ordered) != len(claims.claims):
        error = failures[0].error if failures else f"{len(ordered)} verdicts for {len(claims.claims)} claims"
        return MetricScore(None, f"could not be judged: claim check failed: {error}", error)
    unsupported = [v for v in ordered if not supported_by_documents(v, documents)]
    supported = len(ordered) - len(unsupported)
    score = 1 if not unsupported else (0 if supported else -1)
    explanation = f"{supported} of {len(ordered)} claims are supported by the documents."
    if unsupported:
        listed = "; ".join(f"{_quoted(v.claim)} ({_why_unsupported(v, documents)})" for v in unsupported[:MAX_LISTED])
        more = f" and {len(unsupported) - MAX_LISTED} more" if len(unsupported) > MAX_LISTED else ""
        explanation += f" Not supported: {listed}{more}."
    return MetricScore(score, explanation)


def _note(label: str, metric: MetricScore) -> str:
    value = "null" if metric.score is None else str(int(metric.score))
    return f"{label}: {value} — {metric.explanation}"


def finalize_liverag(state: dict, live: LiveRagInput) -> dict:
    judgments = state.get("judgments", {})
    relevance = score_relevance(judgments.get(RELEVANCE))
    faithfulness = score_faithfulness(live.passages, judgments.get("extract_claims"), state.get("verdicts", []))
    result = LiveRagResult(
        evaluation_notes=" ".join((_note("Relevance", relevance), _note("Faithfulness", faithfulness))),
        relevance_score=None if relevance.score is None else int(relevance.score),
        faithfulness_score=None if faithfulness.score is None else int(faithfulness.score),
    )
    return result.model_dump()


def failed_liverag(reason: str) -> dict:
    """Invalid input: both scores null (not judged), the reason in the notes."""
    return LiveRagResult(evaluation_notes=reason).model_dump()


rubrics.register(
    rubrics.RubricSpec(
        name="liverag",
        input_model=LiveRagInput,
        signature_keys=("documents",),
        field_labels=FIELD_LABELS,
        plan=plan_liverag,
        finalize=finalize_liverag,
        failed=failed_liverag,
        nodes=(*CLAIM_NODES, rubrics.NodeSpec(RELEVANCE, judge_liverag_relevance)),
    ),
    detect_priority=30,
)
