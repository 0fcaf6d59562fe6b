"""Per claim: from recorded signals to the quantities faithfulness takes, under a profile.

Why apart from the node: the check node (`nodes.claims.verdict`) measures signals and records
them on the claim; this function decides. The same function runs in the graph and when
`judgegraph calibrate` recomputes scores from recorded claims under candidate profiles, so a
refit needs no judge call and a recomputed score equals the live one.

The decision, in order (the seed's rules stay in `nodes.rag.faithfulness`):
1. a number conflict found by code -> contradicted, P(supported) 0 (unless the profile turns
   the number rule off, `numbers_contradict`); under the names rule (`names_must_be_stated`), a
   claim stating a name or a number the context never states -> not-in-context, P 0;
2. the likeliest label is the verdict, but "contradicted" only from `contradiction_at`;
3. P(supported) from the profile's support model: the judge's own P(supported) (the default
   profile), the product P(supported) x grounding (the embedded judge's), or a fitted logistic
   model over a few signals;
4. when that is below the second-look band's top (`supported_at` unless the profile widens the
   band) and the judge's own answer (second reading) agrees at token F1 >=
   `own_answer_agrees_at`, the claim is supported with P = max(P, F1). A recorded own answer
   outside the band is ignored, so a recompute decides exactly as a live run, which would not
   have asked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .calibrated_metric import CalibratedMetric
from .sections import FaithfulnessParameters, FaithfulnessSection, LogisticSupport, VerdictSupport
from .signal_hash import SHARED_PROMPTS, TEXT_RULES

VERDICTS = ("supported", "contradicted", "not-in-context")


@dataclass(frozen=True)
class ClaimSignals:
    """What was measured about one claim, as recorded on it (`schemas.claims.CheckedClaim`)."""

    probabilities: Mapping[str, float]
    """P(label) from the judge's token log-probabilities (1/0 without them)."""
    grounding: float
    """How much of the claim the context holds, 0..1 (`nodes.claims.code_checks.ground_claim`)."""
    number_conflict: bool = False
    own_answer_agreement: float | None = None
    """Token F1 of the judge's own answer against the answer, when the second reading ran."""
    unstated_names: tuple[str, ...] = ()
    """Names and numbers of the claim the context never states (`code_checks.unstated_names`)."""

    @classmethod
    def from_record(cls, claim: Mapping[str, Any]) -> ClaimSignals:
        """The signals of a recorded claim (a `CheckedClaim` or its JSON)."""
        get = claim.get if isinstance(claim, Mapping) else lambda key, default=None: getattr(claim, key, default)
        return cls(probabilities=dict(get("probabilities") or {}), grounding=float(get("grounding", 1.0)),
                   number_conflict=bool(get("conflict")), own_answer_agreement=get("own_answer_agreement"),
                   unstated_names=tuple(get("unstated_names") or ()))


@dataclass(frozen=True)
class ClaimDecision:
    verdict: str
    support: float
    """P(supported), 0..1."""
    supported: bool
    """Counts as supported: P(supported) >= `supported_at`."""
    own_answer_agrees: bool
    """Supported through the second reading."""
    names_rule: bool = False
    """Not supported by the names rule (`names_must_be_stated`)."""


def claim_features(signals: ClaimSignals) -> dict[str, float]:
    """The signals a fitted support model may read, by name (`profile.SupportFeature`)."""
    p_supported = float(signals.probabilities.get("supported", 0.0))
    return {
        "p_supported": p_supported,
        "p_contradicted": float(signals.probabilities.get("contradicted", 0.0)),
        "grounding": signals.grounding,
        "p_supported_x_grounding": p_supported * signals.grounding,
    }


def _sigmoid(value: float) -> float:
    return 1 / (1 + math.exp(-value)) if value >= 0 else math.exp(value) / (1 + math.exp(value))


def contradicted_by_numbers(signals: ClaimSignals, parameters: FaithfulnessParameters) -> bool:
    """The number rule decides this claim: code found a conflict and the profile applies it."""
    return signals.number_conflict and parameters.numbers_contradict


def unsupported_by_names(signals: ClaimSignals, parameters: FaithfulnessParameters) -> bool:
    """The names rule decides this claim: it states a name or number the context never states."""
    return parameters.names_must_be_stated and bool(signals.unstated_names)


def first_reading_support(signals: ClaimSignals, parameters: FaithfulnessParameters) -> float:
    """P(supported) from the claim check alone (before any second reading)."""
    if contradicted_by_numbers(signals, parameters) or unsupported_by_names(signals, parameters):
        return 0.0  # a claim the judge contradicts and that names the unstated is not supported either
    features = claim_features(signals)
    model = parameters.support
    if isinstance(model, LogisticSupport):
        return _sigmoid(model.intercept + sum(w * features[name] for name, w in model.coefficients.items()))
    if isinstance(model, VerdictSupport):
        return features["p_supported"]
    return features["p_supported_x_grounding"]


def wants_second_look(signals: ClaimSignals, parameters: FaithfulnessParameters) -> bool:
    """Whether the judge's own answer could change this claim's decision."""
    return (not contradicted_by_numbers(signals, parameters) and not unsupported_by_names(signals, parameters)
            and first_reading_support(signals, parameters) < parameters.second_look_band_top)


def decide(signals: ClaimSignals, parameters: FaithfulnessParameters) -> ClaimDecision:
    if contradicted_by_numbers(signals, parameters):
        return ClaimDecision("contradicted", 0.0, False, False)
    probabilities = signals.probabilities
    verdict = max(VERDICTS, key=lambda label: probabilities.get(label, 0.0))
    if verdict == "contradicted" and probabilities.get("contradicted", 0.0) < parameters.contradiction_at:
        verdict = max(("supported", "not-in-context"), key=lambda label: probabilities.get(label, 0.0))
    if unsupported_by_names(signals, parameters) and verdict != "contradicted":
        # the rule lowers a judge's "supported"; a judge's own contradiction stands (it may zero the answer)
        return ClaimDecision("not-in-context", 0.0, False, False, names_rule=True)
    support = first_reading_support(signals, parameters)
    agreement = signals.own_answer_agreement
    if (support < parameters.second_look_band_top and agreement is not None
            and agreement >= parameters.own_answer_agrees_at):
        raised = max(support, float(agreement))
        return ClaimDecision("supported", raised, raised >= parameters.supported_at, True)
    return ClaimDecision(verdict, support, support >= parameters.supported_at, False)


FAITHFULNESS_CALIBRATION = CalibratedMetric(
    key="faithfulness",
    section=FaithfulnessSection,
    signal_sources=(
        "nodes/claims/check_claim.py", "nodes/claims/verdict.py", "nodes/claims/code_checks.py", "nodes/claims/evidence.py",
        "nodes/claims/second_reading.py", "nodes/claims/extract.py", "text/segmentation.py",
        "text/quotes.py", "run/context_view.py", "llm/verdict_probabilities.py",
        "llm/embeddings.py", "text/stems.py", "text/compounds.py", *TEXT_RULES, *SHARED_PROMPTS,
        "prompts/check_claim.j2", "prompts/check_claims_batch.j2", "prompts/answer_from_context.j2",
        "prompts/extract_claims.j2", "prompts/_claim_rules.j2",
    ),
    fit=".fitting.faithfulness:FAITHFULNESS_FITTING",
)
"""Faithfulness is fitted per claim: the support model and the thresholds `decide` reads."""
