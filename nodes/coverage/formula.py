"""The coverage formula of seed 003, in exact arithmetic, and the rationale that shows it.

Precedence, as the seed states it and as `coverage_score` applies it (first match wins):

1. fewer than 1 fact matched:  5 * (facts_ratio * 0.7 + terms_ratio * 0.21)
2. the reference has conclusions: 5 * (facts_ratio * 0.4 + conclusions_ratio * 0.3
                                        + terms_ratio * 0.21 + organization_ratio * 0.09)
3. otherwise:                  5 * (facts_ratio * 0.7 + terms_ratio * 0.21 + organization_ratio * 0.09)

terms_ratio is 1 when the reference has no terms. The seed lists rule 1 last, but it can only
ever apply if checked first (rules 2 and 3 between them cover every reference), so "less than
1 fact matched" overrides both. The result is rounded half up (2.5 -> 3), never banker's.

Ratios and weights are `Fraction`s, so 5 * (0.7 + 0.21 + 0.09) is exactly 5 and a value on a
.5 boundary is exactly on it; float sums would land on 4.999... or 2.5000000000000004.
The `Score:` bullet writes the calculation with the ratios as matched/total fractions and
ASCII operators, so anyone can recompute it from the other four bullets.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Literal

from ...declarations.scoring import round_half_up_int

Branch = Literal["no-fact-matched", "with-conclusions", "no-conclusions"]

SCALE = 5
WEIGHTS: dict[Branch, tuple[tuple[str, str], ...]] = {
    "no-fact-matched": (("facts", "0.7"), ("terms", "0.21")),
    "with-conclusions": (("facts", "0.4"), ("conclusions", "0.3"), ("terms", "0.21"), ("organization", "0.09")),
    "no-conclusions": (("facts", "0.7"), ("terms", "0.21"), ("organization", "0.09")),
}
"""Each branch's (ratio, weight) terms, weights as decimal strings exactly as the seed writes them."""


@dataclass(frozen=True)
class CoverageCounts:
    """What the checks found; the formula needs nothing else."""

    facts_matched: int
    facts_total: int
    conclusions_matched: int
    conclusions_total: int
    terms_matched: int
    terms_total: int
    organization: int
    """organization_ratio: 1 comparable, 0 very different."""

    def __post_init__(self) -> None:
        if self.facts_total < 1:
            raise ValueError("the formula needs at least one reference fact (no facts scores 0 by rule)")
        for matched, total in ((self.facts_matched, self.facts_total),
                               (self.conclusions_matched, self.conclusions_total),
                               (self.terms_matched, self.terms_total)):
            if not 0 <= matched <= total:
                raise ValueError(f"matched count {matched} outside 0..{total}")
        if self.organization not in (0, 1):
            raise ValueError("organization_ratio is 0 or 1")


@dataclass(frozen=True)
class ScoreBreakdown:
    branch: Branch
    exact: Fraction
    score: int
    calculation: str
    """e.g. "5 * (2/3 * 0.4 + 1/2 * 0.3 + 1 * 0.21 + 1 * 0.09)"."""


def branch_for(counts: CoverageCounts) -> Branch:
    """The seed's precedence: "less than 1 fact matched" first, then conclusions or not."""
    if counts.facts_matched < 1:
        return "no-fact-matched"
    if counts.conclusions_total > 0:
        return "with-conclusions"
    return "no-conclusions"


def ratios(counts: CoverageCounts) -> dict[str, tuple[Fraction, str]]:
    """Each ratio, exact and as written in the calculation ("2/3"; terms "1" when there are none)."""
    def ratio(matched: int, total: int) -> tuple[Fraction, str]:
        return Fraction(matched, total), f"{matched}/{total}"

    return {
        "facts": ratio(counts.facts_matched, counts.facts_total),
        "conclusions": (ratio(counts.conclusions_matched, counts.conclusions_total)
                        if counts.conclusions_total else (Fraction(0), "0")),
        "terms": (ratio(counts.terms_matched, counts.terms_total)
                  if counts.terms_total else (Fraction(1), "1")),
        "organization": (Fraction(counts.organization), str(counts.organization)),
    }


def coverage_score(counts: CoverageCounts) -> ScoreBreakdown:
    branch = branch_for(counts)
    values = ratios(counts)
    terms = WEIGHTS[branch]
    exact = SCALE * sum((values[name][0] * Fraction(weight) for name, weight in terms), Fraction(0))
    calculation = f"{SCALE} * (" + " + ".join(f"{values[name][1]} * {weight}" for name, weight in terms) + ")"
    return ScoreBreakdown(branch, exact, round_half_up_int(float(exact)), calculation)


def exact_text(exact: Fraction, score: int) -> str:
    """The exact value with 2 decimals, or more when 2 would round across a .5 boundary
    (2.4996 shown as "2.50" would read as a 3)."""
    value = Decimal(exact.numerator) / Decimal(exact.denominator)
    for places in range(2, 12):
        shown = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
        if round_half_up_int(float(shown)) == score:
            return str(shown)
    return str(value)


def rationale(counts: CoverageCounts, breakdown: ScoreBreakdown) -> list[str]:
    """The seed's five bullets; a category the reference lacks is noted after its count."""
    conclusion = f"Conclusion: {counts.conclusions_matched} of {counts.conclusions_total} correctly matched."
    if counts.conclusions_total == 0:
        conclusion += " The reference has no conclusions."
    terminology = f"Terminology: {counts.terms_matched} of {counts.terms_total} terms correctly matched."
    if counts.terms_total == 0:
        terminology += " The reference has no key terms, so terms_ratio = 1."
    return [
        f"Fact: {counts.facts_matched} of {counts.facts_total} correctly matched.",
        conclusion,
        terminology,
        "Organization: matched" if counts.organization else "Organization: mismatched",
        f"Score: {breakdown.score} \u2248 {exact_text(breakdown.exact, breakdown.score)} = {breakdown.calculation}",
    ]
