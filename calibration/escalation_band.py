"""The escalation band: which of the first judge's decisions go to the second judge.

Why a band on one probability per decision: every decision escalation covers already has one
probability that says which way it goes (a claim's support under the judge's profile, context relevance's
P(yes) + P(partly)/2, answer relevance's mean P(answered), all read from the first judge's token
log-probabilities; `run.escalation` reads them). A decision whose probability sits near 0.5 is
the one a cheap judge is unsure of; one near 0 or 1 it is sure of. So a band (1 - c, c) around
0.5, one confidence c per kind of decision, is the whole rule: inside it the second judge
decides. The kinds get their own c because the probabilities are not equally well calibrated
(a 1.5B judge's P(supported) and its P(yes) err differently).

Where c comes from:
- a fit (`judgegraph escalation-fit`, fixed-sequence testing as in Jung et al. 2024, "Trust or
  Escalate", `stats.fixed_sequence`) on items both judges decided, kept in the first judge's
  profile as an `EscalationSection`, one fit per agreement target (`--agreement 0.95`);
- else `DEFAULT_CONFIDENCE` (0.8: band (0.2, 0.8)), a documented guess, said so in every record;
- `--escalate-band all` (`JURY`): every decision goes to the second judge (the jury).

A decision without a probability (a first judge that returns no log-probabilities, the batch
claim check) is escalated: with nothing to say how sure the first judge is, it is not trusted.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from .sections import FIGURE_BOUND, Share, _Strict, numbers_in

Decision = Literal["claim_verdict", "context_relevance", "answer_relevance"]
DECISIONS: tuple[Decision, ...] = ("claim_verdict", "context_relevance", "answer_relevance")
"""The decisions that can be escalated (a citation is decided from its claims' verdicts)."""

DEFAULT_CONFIDENCE = 0.8
"""Without a fit: escalate a decision whose probability is inside (0.2, 0.8)."""
JURY_CONFIDENCE = 1.0
"""`--escalate-band all`: every probability is inside (0, 1) or at its ends, all escalated."""


class EscalationFit(_Strict):
    """One agreement target's fit: the confidence per decision, and what it was fitted on."""

    target: Share
    """The agreement with the second judge alone that the kept decisions reach (1 - alpha)."""
    delta: Share
    """The chance the guarantee fails (the fit holds with probability at least 1 - delta)."""
    confidence: dict[Decision, Share]
    """Per decision: escalate when max(p, 1 - p) is below it (1.0: always)."""
    second_judge: str | None = None
    """The second judge's model id the fit compared against."""
    data_sha256: str | None = None
    """The results file the fit read (both judges on every decision)."""
    figures: dict[str, Any] = Field(default_factory=dict)
    """Per decision: n, kept, disagreeing, the test's p-value, the share kept."""

    @field_validator("figures")
    @classmethod
    def _finite(cls, value: Any) -> Any:
        for path, number in numbers_in(value, "figures"):
            if not abs(number) <= FIGURE_BOUND:
                raise ValueError(f"{path} is {number!r}: a figure must be a finite number")
        return value


class EscalationSection(_Strict):
    """A profile's escalation fits, keyed by target ("0.95")."""

    fits: dict[str, EscalationFit] = Field(default_factory=dict)

    def for_target(self, target: float) -> EscalationFit | None:
        return self.fits.get(target_key(target))


def target_key(target: float) -> str:
    """How a target names its fit: "0.95"."""
    return f"{target:g}"


class EscalationBand(_Strict):
    """The band a run escalates with, and where it came from (named in every record)."""

    confidence: dict[Decision, Share]
    source: str
    """"default", "jury", "fit 0.95 (profile <id>)" or "--escalate-band 0.9"."""
    target: Share | None = None
    delta: Share | None = None
    """A fitted band's promise: its kept decisions agree with the second judge at `target` or
    more, with probability 1 - `delta` (None: no promise, the band was not fitted)."""

    def confidence_for(self, decision: Decision) -> float:
        return self.confidence.get(decision, DEFAULT_CONFIDENCE)

    def bounds(self, decision: Decision) -> tuple[float, float]:
        """The band as probabilities: (1 - c, c)."""
        c = self.confidence_for(decision)
        return round(1 - c, 6), c

    def escalates(self, decision: Decision, probability: float | None) -> bool:
        """Inside the band (or no probability): the second judge decides. At c = 1 (the jury)
        every decision is escalated, a probability of exactly 0 or 1 too."""
        if probability is None:
            return True
        c = self.confidence_for(decision)
        return c >= JURY_CONFIDENCE or max(probability, 1 - probability) < c


def uniform_band(confidence: float, source: str) -> EscalationBand:
    return EscalationBand(confidence={decision: confidence for decision in DECISIONS}, source=source)


DEFAULT_BAND = uniform_band(DEFAULT_CONFIDENCE, "default")
JURY_BAND = uniform_band(JURY_CONFIDENCE, "jury")
