"""**Where rag's faithfulness is computed**: from the claim pipeline's claims and verdicts
(`nodes/claims/`), by explicit rules, in Python. (liverag's quote-based faithfulness is
`nodes/liverag/quote_faithfulness.py`.)

The order of the rules is the contract:
1. extraction failed -> null, with the error;
2. empty context -> 1.0 if the answer says it cannot answer, else 0.0 (seed 000);
3. no checkable claims -> 1.0 for an answer that only declines to answer (it asserts nothing
   the context could contradict), null for anything else: never 1.0 by accident;
4. any claim check failed -> null, with the error;
5. a contradiction of a critical claim (by the model's most likely verdict, or a number
   conflict found by code) -> 0.0, naming the conflict and the context line;
6. otherwise supported / total, where each claim counts with its support in 0..1 (the
   probability that it is supported, from the judge's token log-probabilities and code's
   checks, `nodes.claims.verdict`, or the agreement of the judge's own answer for a one-claim
   answer, `nodes.claims.second_reading`): the expected share of supported claims. Without
   log-probabilities every support is 0 or 1 and this is the plain share.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...calibration.profile import FaithfulnessParameters, Profile
from ...calibration.claim_decisions import FAITHFULNESS_CALIBRATION
from ...declarations.metric_declaration import MetricDeclaration
from ...declarations.rubric_spec import MetricSpec
from ...llm.structured import StepOutcome
from ...schemas.claims import CheckedClaim, ExtractedClaims
from ...schemas.metrics import Score
from ...schemas.rag import RagInput
from ..claims.check_claim import CLAIM_NODES
from ..claims.metric_signals import claim_record_signals, claim_signals

METRIC = "Faithfulness"


def _quoted(claim: str, limit: int = 80) -> str:
    return f"'{claim if len(claim) <= limit else claim[: limit - 1] + '…'}'"


@dataclass(frozen=True)
class FaithfulnessSignals:
    """What rag's faithfulness is decided from: the context, the extraction and the claims,
    each claim already decided (`nodes.claims.verdict.decide_verdict`)."""

    passages: list[str]
    extraction: StepOutcome[ExtractedClaims] | None
    verdicts: list[CheckedClaim] = field(default_factory=list)


def _listed(claims: list[CheckedClaim], shown: int = 4) -> str:
    listed = "; ".join(f"{_quoted(v.claim)} ({v.effective_verdict})" for v in claims[:shown])
    return listed + (f" and {len(claims) - shown} more" if len(claims) > shown else "")


def _share_sentence(claims: list[CheckedClaim], score: float) -> str:
    """The score in words that agree with it: a count when every claim counts wholly or not at
    all (the score is that count's share), else the expected share and each claim's part in it,
    so "1 of 1 supported" never stands beside 0.60."""
    total = len(claims)
    whole = sum(v.support >= 0.995 for v in claims)
    if all(v.support >= 0.995 or v.support <= 0.005 for v in claims):
        return f"{whole} of {total} claims are supported by the context."
    if total == 1:
        return f"Expected share of claims supported by the context: {score:.2f}, its one claim's P(supported)."
    parts = ", ".join(f"{v.support:.2f}" for v in claims[:8]) + (", ..." if total > 8 else "")
    return (f"Expected share of claims supported by the context: {score:.2f}, the mean of the "
            f"{total} claims' P(supported) ({parts}).")


def decide_faithfulness(signals: FaithfulnessSignals, parameters: FaithfulnessParameters | None = None) -> Score:
    """The seed's rules (module docstring) over decided claims. The profile's parameters act
    per claim, where each verdict is decided; a refit decides the recorded claims again first
    (`fitting.recompute.faithfulness_score`)."""
    passages, extraction, verdicts = signals.passages, signals.extraction, signals.verdicts
    if extraction is None or extraction.value is None:
        error = extraction.error if extraction else "claim extraction did not run"
        return Score.failed(METRIC, f"claim extraction failed: {error}")
    claims = extraction.value
    if not passages:
        if claims.declines_to_answer:
            return Score(1.0, "The context is empty and the answer states that it cannot answer from it.")
        return Score(0.0, "The context is empty, so nothing the answer states is supported by it.")
    if not claims.claims:
        if claims.declines_to_answer:
            return Score(1.0, "The answer declines to answer and makes no factual claim that the context could contradict.")
        return Score(None, "The answer makes no checkable factual claim, so faithfulness does not apply.")
    ordered = sorted(verdicts, key=lambda v: v.index)
    failures = [v for v in ordered if v.error is not None]
    if failures or len(ordered) != len(claims.claims):
        first = failures[0].error if failures else f"{len(ordered)} verdicts for {len(claims.claims)} claims"
        return Score.failed(METRIC, f"claim check failed: {first}")
    critical = [v for v in ordered if v.is_verified_critical_contradiction]
    if critical:
        first = critical[0]
        why = f" ({first.conflict})" if first.conflict else ""
        return Score(
            0.0,
            f"The answer contradicts the context on a critical fact: {_quoted(first.claim)}{why} "
            f"(context: {_quoted(first.evidence, 160)}).",
        )
    total = len(ordered)
    score = sum(v.support for v in ordered) / total
    explanation = _share_sentence(ordered, score)
    unsupported = [v for v in ordered if not v.counts_as_supported]
    if unsupported:
        explanation += f" Not supported: {_listed(unsupported)}."
    lowered = [v for v in ordered if v.counts_as_supported and v.lowered_by_rule]
    if lowered:
        explanation += f" Counted below the judge's verdict: {_listed(lowered)}."
    return Score(score, explanation)


def score_faithfulness(state: Mapping[str, Any], rag: RagInput, profile: Profile) -> Score:
    return decide_faithfulness(FaithfulnessSignals(rag.passages, state.get("judgments", {}).get("extract_claims"),
                                                   state.get("verdicts", [])), profile.faithfulness_parameters)


FAITHFULNESS = MetricDeclaration(
    spec=MetricSpec("faithfulness", kind="score", scale=(0, 1), field="faithfulness", from_claims=True),
    entry_nodes=("extract_claims",),
    nodes=CLAIM_NODES,
    score=score_faithfulness,
    decide=decide_faithfulness,
    read_signals=claim_signals,
    record_signals=claim_record_signals,
    calibration=FAITHFULNESS_CALIBRATION,
    needs_context=True,
)
