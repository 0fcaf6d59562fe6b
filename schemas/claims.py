"""Schemas of the shared claim pipeline: extraction, per-claim verdicts, checked claims."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from .text import Label, short_text

Verdict = Annotated[Literal["supported", "contradicted", "not-in-context"], Label]

LEGACY_SUPPORTED_AT = 0.5
"""Results written before calibration profiles (no `supported` field on their claims) were
decided with this threshold; only `counts_as_supported` reads it, for such old records."""


def counts_as_supported(claim: dict) -> bool:
    """The supported rule for a claim's JSON (the report reads results files): the decision the
    profile made (`supported`), or the old fixed threshold for records that predate profiles."""
    if claim.get("error") is not None:
        return False
    if "supported" in claim:
        return bool(claim["supported"])
    return (claim.get("support") or 0.0) >= LEGACY_SUPPORTED_AT


class ExtractedClaims(BaseModel):
    """Reply of the `extract_claims` step.

    Claims come first: a small model that decides the refusal flag first tends to skip the
    claims of a perfectly ordinary answer.
    """

    claims: list[short_text(200)] = Field(  # type: ignore[valid-type]
        default_factory=list,
        max_length=12,
        description="atomic, standalone factual claims made by the answer",
    )
    declines_to_answer: bool = Field(
        default=False,
        description="true when the answer says it cannot or will not answer the question",
    )


class OwnAnswer(BaseModel):
    """Reply of `answer_from_context`: the judge's own short answer to the question."""

    answer: str = Field(max_length=200, description="a few words from the context, or unknown")


class ClaimCheck(BaseModel):
    """Reply of the `check_claim` step: the verdict first, then the deciding context line.

    The verdict comes first so its log-probability is read at a fixed place (graded verdicts,
    `llm.verdict_probabilities`) and so a small model spends no generated tokens before it;
    the evidence is a *line number* of the context lines shown, which code turns back into the
    line's text (a quote that cannot be misquoted).
    """

    verdict: Verdict
    line: int = Field(default=0, ge=0, description="number of the context line that decides the verdict; 0 if none")


class NumberedClaimCheck(ClaimCheck):
    """One entry of the batch reply; `claim` is the 1-based number shown in the prompt."""

    claim: int = Field(ge=1)


class BatchClaimChecks(BaseModel):
    """Reply of the `check_claims_batch` step: every claim checked in one call."""

    checks: list[NumberedClaimCheck]


class CheckedClaim(BaseModel):
    """A claim with its verdict as the graph records it: the model's verdict and probabilities,
    the evidence line, and what code found (number conflicts, grounding)."""

    index: int
    claim: str
    verdict: Literal["supported", "contradicted", "not-in-context"] | None = None
    """The verdict that counts: the model's, unless code found a number conflict."""
    model_verdict: Literal["supported", "contradicted", "not-in-context"] | None = None
    probabilities: dict[str, float] = Field(default_factory=dict)
    """P(label) from the reply's token log-probabilities; 1/0 when the server gave none."""
    graded: bool = False
    """True when `probabilities` came from log-probabilities."""
    support: float = 0.0
    """P(supported), 0..1, as the run's calibration profile decides it from the signals below
    (`calibration.claim_decisions`; by default P(supported) x `grounding`), 0 after a code
    contradiction."""
    supported: bool = False
    """Counts as supported: `support` at the profile's `supported_at` or above."""
    evidence: str = ""
    """The context line the verdict rests on (the model's line, else the closest line)."""
    evidence_found: bool = False
    """True when the evidence is a real line of the context."""
    grounding: float = 1.0
    """How much of the claim the context holds, 0..1 (`nodes.claims.code_checks.ground_claim`: its
    words found as written, by stem, as compound parts or by number value, the rest by meaning)."""
    lexical_share: float | None = None
    """Share of the claim's new content words found in the context as written."""
    lemma_share: float | None = None
    """Share found as written, by stem, as compound parts or by number value."""
    semantic: float | None = None
    """The claim's similarity in meaning to its closest context line, 0..1 (None without embeddings)."""
    unfound_words: list[str] = Field(default_factory=list)
    """The claim's words the context holds in no form."""
    conflict: str | None = None
    """A number conflict found by code ("2007" claimed, "2005" in the context)."""
    unstated_names: list[str] = Field(default_factory=list)
    """Names (capitalised words inside a sentence) and numbers the claim states that neither the
    context nor the question states in any form (`nodes.claims.code_checks.unstated_names`)."""
    names_rule: bool = False
    """The profile's names rule decided this claim: it states a name or number the context never
    states, so it is not supported whatever the judge said."""
    critical: bool = False
    error: str | None = None
    own_answer: str | None = None
    """The judge's own answer to the question from the context, asked only for a one-claim
    answer the check did not support (`nodes.claims.second_reading`)."""
    own_answer_agreement: float | None = None
    """Token F1 between that answer and the answer under test."""
    own_answer_agrees: bool = False
    """The profile counted the claim as supported because that answer agrees (F1 at its
    `own_answer_agrees_at` or more); its support is then the F1."""

    @property
    def counts_as_supported(self) -> bool:
        return self.error is None and self.supported

    @property
    def is_verified_critical_contradiction(self) -> bool:
        return self.verdict == "contradicted" and self.critical and self.evidence_found

    @property
    def rescued_by_own_answer(self) -> bool:
        """The claim counts as supported because the judge's own answer agrees."""
        return self.own_answer_agrees and self.own_answer_agreement is not None

    @property
    def lowered_by_rule(self) -> bool:
        """Code's rules put this claim's P(supported) below the judge's own (grounding scaled
        it down under a profile that reads grounding); a number conflict is its own verdict."""
        return (self.error is None and not self.conflict and not self.rescued_by_own_answer and not self.names_rule
                and self.support < self.probabilities.get("supported", 0.0) - 0.005)

    @property
    def effective_verdict(self) -> str:
        """The verdict that counts, in words a trace reader understands: the judge's, and when a
        rule changed what it counts for, which rule, by how much and why."""
        if self.error is not None:
            return "check failed"
        if self.conflict and self.verdict == "contradicted":
            return f"contradicted ({self.conflict})"
        if self.names_rule:
            named = ", ".join(self.unstated_names)
            return (f"not-in-context (it names {named}, which the context never states; the names rule sets the "
                    f"judge's P(supported) {self.probabilities.get('supported', 0.0):.2f} to 0)")
        shown = self.verdict or "unknown"
        if self.rescued_by_own_answer:
            return (f"supported (the judge's own answer from the context, {self.own_answer!r}, "
                    f"agrees: token F1 {self.own_answer_agreement:.2f})")
        judge_p = self.probabilities.get("supported", 0.0)
        if self.graded:
            shown += f" (p_supported {judge_p:.2f})"
        if self.lowered_by_rule:
            shown += f" (lowered from the judge's {judge_p:.2f} to {self.support:.2f} by the profile's grounding rule"
            if self.grounding < 1.0:
                shown += f": only {self.grounding:.0%} of its words in the context"
                shown += f"; not found: {', '.join(self.unfound_words)})" if self.unfound_words else ")"
            else:
                shown += ")"
        return shown
