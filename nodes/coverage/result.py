"""The `coverage` rubric (seed 003): its plan, its `{"score", "rationale"}` output, its rules.

Three outcomes, never confused:
- judged: the counts go through `nodes.coverage.formula`, score 0..5;
- content problem (missing, blank or placeholder reference or output, a reference with no
  fact): score 0 by the seed's ambiguity rule, the reason in the `Score:` bullet, and no model
  call when the problem is visible in the input;
- a judge step that never gave a valid reply: score null, and the bullets say which step
  failed and why. A broken judge is not evidence of a bad output, so it never scores 0.
"""

from __future__ import annotations

from ...llm.structured import StepOutcome
from ...schemas.coverage import (
    CATEGORIES,
    CheckedElement,
    CoverageInput,
    CoverageResult,
)
from .elements import (
    BATCH_NODE,
    CHECK_NODE,
    ORGANIZATION_NODE,
    check_key,
    numbered_elements,
)
from .elements import NODE as ENUMERATE_NODE
from .formula import CoverageCounts, coverage_score, rationale
from .organization import organization_ratio

BULLET_NAMES = {"fact": "Fact", "conclusion": "Conclusion", "term": "Terminology"}
PLURALS = {"fact": "facts", "conclusion": "conclusions", "term": "terms"}
NO_FACTS = "the reference states no verifiable fact to match"
_PLACEHOLDERS = frozenset({"none", "null", "nil", "n/a", "na", "nan", "undefined", "tbd", "todo", "unknown"})
ERROR_KEEP = 300
"""Characters of a step's error kept in a bullet: the full text is in the trace."""


def content_problem(coverage: CoverageInput) -> str | None:
    """Why the reference or output cannot be judged although it is a non-blank string:
    a placeholder ("N/A", "none") or text without a single letter or digit ("...")."""
    for label, text in (("reference answer", coverage.reference), ("model output", coverage.output_text)):
        trimmed = text.strip()
        if trimmed.casefold() in _PLACEHOLDERS:
            return f"the {label} is a placeholder ({trimmed!r}), not content"
        if not any(ch.isalnum() for ch in trimmed):
            return f"the {label} has no words or numbers ({trimmed[:20]!r})"
    return None


def plan_coverage(coverage: CoverageInput) -> list[str]:
    """Nothing to run for content the rules already score; otherwise enumeration, which then
    fans out the element checks and the organization judgment itself."""
    return [] if content_problem(coverage) else [ENUMERATE_NODE]


def content_failure(reason: str) -> CoverageResult:
    """Score 0 for missing or ambiguous content (seed 003), with the reason; no model involved."""
    note = "not assessed (missing or ambiguous content)."
    return CoverageResult(score=0, rationale=[
        f"Fact: {note}", f"Conclusion: {note}", f"Terminology: {note}", f"Organization: {note}",
        f"Score: 0 \u2248 0.00 = 0 (missing or ambiguous content: {reason.strip().rstrip('.')})",
    ])


def _short(error: str | None) -> str:
    text = (error or "the step did not run").strip()
    return text if len(text) <= ERROR_KEEP else text[: ERROR_KEEP - 1] + "…"


def enumeration_failure(error: str | None) -> CoverageResult:
    bullets = [f"{BULLET_NAMES[c]}: not assessed; step {ENUMERATE_NODE} failed." for c in CATEGORIES]
    return CoverageResult(score=None, rationale=[
        *bullets,
        f"Organization: not assessed; it is judged only after step {ENUMERATE_NODE}.",
        f"Score: not computed, because step {ENUMERATE_NODE} failed: {_short(error)}",
    ])


def step_failure(checks: list[CheckedElement], organization: StepOutcome | None, check_step: str) -> CoverageResult:
    """Null score; each bullet gives its count when its checks succeeded, else the failure."""
    bullets, failed_steps, first_error = [], [], None
    for category in CATEGORIES:
        mine = [c for c in checks if c.category == category]
        broken = [c for c in mine if c.error is not None]
        matched = sum(c.matched for c in mine)
        if not broken:
            terms = " terms" if category == "term" else ""
            bullets.append(f"{BULLET_NAMES[category]}: {matched} of {len(mine)}{terms} correctly matched.")
            continue
        first_error = first_error or broken[0].error
        failed_steps.append(f"{check_step} ({len(broken)} {PLURALS[category]})")
        bullets.append(f"{BULLET_NAMES[category]}: not assessed; step {check_step} failed for "
                       f"{len(broken)} of {len(mine)} {PLURALS[category]}: {_short(broken[0].error)}")
    if organization is not None and organization.value is not None:
        bullets.append("Organization: matched" if organization_ratio(organization.value) else "Organization: mismatched")
    else:
        error = organization.error if organization else None
        first_error = first_error or error
        failed_steps.append(ORGANIZATION_NODE)
        bullets.append(f"Organization: not assessed; step {ORGANIZATION_NODE} failed: {_short(error)}")
    bullets.append(f"Score: not computed, because step(s) {', '.join(failed_steps)} failed: {_short(first_error)}")
    return CoverageResult(score=None, rationale=bullets)


def collect_checks(state: dict, elements) -> list[CheckedElement]:
    """Every element's check, in element order; a missing or failed one carries its error."""
    judgments = state.get("judgments", {})
    checks = []
    for index, category, text in numbered_elements(elements):
        outcome: StepOutcome | None = judgments.get(check_key(index))
        if outcome is not None and outcome.value is not None:
            checks.append(outcome.value)
        else:
            error = outcome.error if outcome is not None else "the check did not run"
            checks.append(CheckedElement(index=index, category=category, element=text, error=error))
    return checks


def counts_from(checks: list[CheckedElement], organization: int) -> CoverageCounts:
    def count(category: str) -> tuple[int, int]:
        mine = [c for c in checks if c.category == category]
        return sum(c.matched for c in mine), len(mine)

    (fm, ft), (cm, ct), (tm, tt) = count("fact"), count("conclusion"), count("term")
    return CoverageCounts(fm, ft, cm, ct, tm, tt, organization)


def coverage_result(state: dict, coverage: CoverageInput) -> CoverageResult:
    problem = content_problem(coverage)
    if problem:
        return content_failure(problem)
    judgments = state.get("judgments", {})
    enumeration: StepOutcome | None = judgments.get(ENUMERATE_NODE)
    if enumeration is None or enumeration.value is None:
        return enumeration_failure(enumeration.error if enumeration else None)
    if not enumeration.value.facts:
        return content_failure(NO_FACTS)
    checks = collect_checks(state, enumeration.value)
    organization: StepOutcome | None = judgments.get(ORGANIZATION_NODE)
    if any(c.error is not None for c in checks) or organization is None or organization.value is None:
        return step_failure(checks, organization, BATCH_NODE if BATCH_NODE in judgments else CHECK_NODE)
    counts = counts_from(checks, organization_ratio(organization.value))
    breakdown = coverage_score(counts)
    return CoverageResult(score=breakdown.score, rationale=rationale(counts, breakdown))


def coverage_error(error: str) -> CoverageResult:
    """Judging broke (an internal error, not the content): score null, the error in the bullets.
    Never the content rule's 0: a crash is not evidence that the output misses the reference."""
    note = "not assessed; judging failed."
    return CoverageResult(score=None, rationale=[
        f"Fact: {note}", f"Conclusion: {note}", f"Terminology: {note}", f"Organization: {note}",
        f"Score: not computed, because judging failed: {_short(error)}",
    ])


def coverage_failure(reason: str) -> CoverageResult:
    """Invalid input (missing, blank or mistyped reference or output): content problem, score 0."""
    return content_failure(reason)

