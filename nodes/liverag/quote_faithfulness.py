"""LiveRAG faithfulness (seed 002), -1..1, from the shared claims and verdicts, by rules in Python.

Faithfulness reuses the claims and verdicts of the shared claim pipeline (`nodes/claims/`):
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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...calibration.profile import Profile
from ...declarations.metric_declaration import MetricDeclaration
from ...declarations.rubric_spec import MetricSpec
from ...schemas.metrics import Score
from ...llm.structured import StepOutcome
from ...schemas.claims import CheckedClaim, ExtractedClaims
from ...schemas.liverag import LiveRagInput
from ...text.quotes import quote_found
from ..claims.check_claim import CLAIM_NODES
from ..claims.metric_signals import claim_record_signals, claim_signals

MAX_LISTED = 4
"""Unsupported claims named in the notes; the rest are counted ("and 2 more")."""


def _quoted(text: str, limit: int = 80) -> str:
    return f"'{text if len(text) <= limit else text[: limit - 1] + '…'}'"


def supported_by_documents(verdict: CheckedClaim, documents: list[str]) -> bool:
    """Support counts only when the check itself says so and its quote occurs in the documents.

    The rag rubric's second reading of one-claim answers (`nodes/claims/second_reading.py`)
    does not count here: LiveRAG's rule asks for a supporting quote, and the judge's own answer
    is not one."""
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


def score_liverag_faithfulness(
    documents: list[str],
    extraction: StepOutcome[ExtractedClaims] | None,
    verdicts: list[CheckedClaim],
) -> Score:
    """Faithfulness -1..1 by the rules of the module docstring, with the sentence behind it."""
    if extraction is None or extraction.value is None:
        error = extraction.error if extraction is not None else "claim extraction did not run"
        return Score(None, f"could not be judged: claim extraction failed: {error}", error)
    claims = extraction.value
    if not claims.claims:
        if claims.declines_to_answer:
            return Score(1, "The answer declines to answer and asserts nothing the documents would need to ground.")
        return Score(None, "not applicable: the answer makes no checkable factual claim.")
    if not documents:
        return Score(-1, f"No documents were retrieved, so none of the answer's {len(claims.claims)} claim(s) is grounded.")
    ordered = sorted(verdicts, key=lambda v: v.index)
    failures = [v for v in ordered if v.error is not None]
    if failures or len(ordered) != len(claims.claims):
        error = failures[0].error if failures else f"{len(ordered)} verdicts for {len(claims.claims)} claims"
        return Score(None, f"could not be judged: claim check failed: {error}", error)
    unsupported = [v for v in ordered if not supported_by_documents(v, documents)]
    supported = len(ordered) - len(unsupported)
    score = 1 if not unsupported else (0 if supported else -1)
    explanation = f"{supported} of {len(ordered)} claims are supported by the documents."
    if unsupported:
        listed = "; ".join(f"{_quoted(v.claim)} ({_why_unsupported(v, documents)})" for v in unsupported[:MAX_LISTED])
        more = f" and {len(unsupported) - MAX_LISTED} more" if len(unsupported) > MAX_LISTED else ""
        explanation += f" Not supported: {listed}{more}."
    return Score(score, explanation)


@dataclass(frozen=True)
class QuoteFaithfulnessSignals:
    """What liverag's faithfulness is decided from: the documents, the extraction and the
    claims, each claim already decided (`nodes.claims.verdict.decide_verdict`)."""

    documents: list[str]
    extraction: StepOutcome[ExtractedClaims] | None
    verdicts: list[CheckedClaim] = field(default_factory=list)


def decide_liverag_faithfulness(signals: QuoteFaithfulnessSignals, parameters: None = None) -> Score:
    """`score_liverag_faithfulness`; no profile parameters act on it beyond each claim's verdict."""
    return score_liverag_faithfulness(signals.documents, signals.extraction, signals.verdicts)


def liverag_faithfulness_of_run(state: Mapping[str, Any], live: LiveRagInput, profile: Profile) -> Score:
    return decide_liverag_faithfulness(QuoteFaithfulnessSignals(
        live.passages, state.get("judgments", {}).get("extract_claims"), state.get("verdicts", [])))


LIVERAG_FAITHFULNESS = MetricDeclaration(
    spec=MetricSpec("liverag_faithfulness", kind="ordinal", scale=(-1, 1), field="faithfulness_score",
                    from_claims=True),
    entry_nodes=("extract_claims",),
    nodes=CLAIM_NODES,
    score=liverag_faithfulness_of_run,
    decide=decide_liverag_faithfulness,
    read_signals=claim_signals,
    record_signals=claim_record_signals,
    label="Faithfulness",
)
