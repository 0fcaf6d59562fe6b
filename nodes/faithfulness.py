"""Faithfulness from claims and verdicts, by explicit rules, in Python.

The order of the rules is the contract:
1. extraction failed -> null, with the error;
2. empty context -> 1.0 if the answer says it cannot answer, else 0.0 (seed 000);
3. no checkable claims -> 1.0 for an answer that only declines to answer (it asserts nothing
   the context could contradict), null for anything else: never 1.0 by accident;
4. any claim check failed -> null, with the error;
5. a contradiction of a critical claim, with its quote found in the context -> 0.0;
6. otherwise supported / total, where "supported" requires the quote to be found.
"""

from __future__ import annotations

from judgegraph.llm.structured import StepOutcome
from judgegraph.nodes.evidence import quote_found
from judgegraph.nodes.scoring import MetricScore
from judgegraph.schemas.claims import CheckedClaim, ExtractedClaims

METRIC = "Faithfulness"


def _quoted(claim: str, limit: int = 80) -> str:
    return f"'{claim if len(claim) <= limit else claim[: limit - 1] + '…'}'"


def score_faithfulness(
    passages: list[str],
    extraction: StepOutcome[ExtractedClaims] | None,
    verdicts: list[CheckedClaim],
) -> MetricScore:
    if extraction is None or extraction.value is None:
        error = extraction.error if extraction else "claim extraction did not run"
        return MetricScore.failed(METRIC, f"claim extraction failed: {error}")
    claims = extraction.value
    if not passages:
        if claims.declines_to_answer:
            return MetricScore(1.0, "The context is empty and the answer states that it cannot answer from it.")
        return MetricScore(0.0, "The context is empty, so nothing the answer states is supported by it.")
    if not claims.claims:
        if claims.declines_to_answer:
            return MetricScore(1.0, "The answer declines to answer and makes no factual claim that the context could contradict.")
        return MetricScore(None, "The answer makes no checkable factual claim, so faithfulness does not apply.")
    # Quotes are re-checked against this rubric's own passages: with several rubrics on one
    # item, claims were checked against the union of their passages.
    ordered = [
        v.model_copy(update={"evidence_found": quote_found(v.evidence, passages)})
        for v in sorted(verdicts, key=lambda v: v.index)
    ]
    failures = [v for v in ordered if v.error is not None]
    if failures or len(ordered) != len(claims.claims):
        first = failures[0].error if failures else f"{len(ordered)} verdicts for {len(claims.claims)} claims"
        return MetricScore.failed(METRIC, f"claim check failed: {first}")
    critical = [v for v in ordered if v.is_verified_critical_contradiction]
    if critical:
        return MetricScore(
            0.0,
            f"The answer contradicts the context on a critical fact: {_quoted(critical[0].claim)} "
            f"(context: {_quoted(critical[0].evidence)}).",
        )
    supported = sum(v.counts_as_supported for v in ordered)
    total = len(ordered)
    explanation = f"{supported} of {total} claims are supported by the context."
    unsupported = [v for v in ordered if not v.counts_as_supported]
    if unsupported:
        listed = "; ".join(f"{_quoted(v.claim)} ({v.effective_verdict})" for v in unsupported[:4])
        more = f" and {len(unsupported) - 4} more" if len(unsupported) > 4 else ""
        explanation += f" Not supported: {listed}{more}."
    return MetricScore(supported / total, explanation)
