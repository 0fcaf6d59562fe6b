"""Schemas of the shared claim pipeline: extraction, per-claim verdicts, checked claims."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from judgegraph.schemas.text import Label, short_text

Verdict = Annotated[Literal["supported", "contradicted", "not-in-context"], Label]


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


class ClaimCheck(BaseModel):
    """Reply of the `check_claim` step: evidence first, then reasoning, then the verdict.

    Evidence comes first so the verdict is conditioned on a quote the model has already
    committed to, and which code can then look for in the context.
    """

    evidence: short_text(200, "exact quote copied from the context, or empty")  # type: ignore[valid-type]
    reasoning: short_text(150)  # type: ignore[valid-type]
    verdict: Verdict
    critical: bool = Field(description="true when the claim is the core of the answer to the question")


class NumberedClaimCheck(ClaimCheck):
    """One entry of the batch reply; `claim` is the 1-based number shown in the prompt."""

    claim: int = Field(ge=1)


class BatchClaimChecks(BaseModel):
    """Reply of the `check_claims_batch` step: every claim checked in one call."""

    checks: list[NumberedClaimCheck]


class CheckedClaim(BaseModel):
    """A claim with its verdict as the graph records it, after code verified the evidence."""

    index: int
    claim: str
    verdict: Literal["supported", "contradicted", "not-in-context"] | None = None
    evidence: str = ""
    evidence_found: bool = False
    numbers_missing: list[str] = Field(default_factory=list)
    """Numbers of the claim absent from a supporting quote (then the support does not count)."""
    critical: bool = False
    reasoning: str = ""
    error: str | None = None

    @property
    def counts_as_supported(self) -> bool:
        """Support counts only when the quoted evidence really occurs in the context and
        carries the numbers the claim states."""
        return self.verdict == "supported" and self.evidence_found and not self.numbers_missing

    @property
    def is_verified_critical_contradiction(self) -> bool:
        return self.verdict == "contradicted" and self.critical and self.evidence_found

    @property
    def effective_verdict(self) -> str:
        """The verdict that counts, in words a trace reader understands."""
        if self.error is not None:
            return "check failed"
        if self.verdict in ("supported", "contradicted") and not self.evidence_found:
            return f"{self.verdict} (quote not found in context)"
        if self.verdict == "supported" and self.numbers_missing:
            return f"supported (quote lacks {', '.join(self.numbers_missing)})"
        return self.verdict or "unknown"
