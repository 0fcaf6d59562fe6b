"""The `coverage` metric (seed 003): its score and rationale bullets from the steps' outcomes,
by its rules, and its declaration (`COVERAGE`).

Three outcomes, never confused:
- judged: the counts go through `nodes.coverage.formula`, score 0..5;
- content problem (missing, blank or placeholder reference or output, a reference with no
  fact): score 0 by the seed's ambiguity rule, the reason in the `Score:` bullet, and no model
  call when the problem is visible in the input;
- a judge step that never gave a valid reply: score null, and the bullets say which step
  failed and why. A broken judge is not evidence of a bad output, so it never scores 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...calibration.profile import Profile
from ...declarations.metric_declaration import MetricDeclaration, RunDetails
from ...declarations.rubric_spec import MetricSpec, NodeSpec
from ...declarations.run_details import step_detail, step_events
from ...schemas.metrics import Score
from ...llm.structured import StepOutcome
from ...schemas.coverage import (
    CATEGORIES,
    CheckedElement,
    CoverageInput,
    CoverageResult,
)
from .check import check_reference_element, check_reference_elements_batch
from .elements import (
    BATCH_NODE,
    CHECK_NODE,
    ORGANIZATION_NODE,
    check_key,
    enumerate_reference_elements,
    numbered_elements,
)
from .elements import NODE as ENUMERATE_NODE
from .formula import CoverageCounts, coverage_score, rationale
from .organization import judge_organization, organization_ratio

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


def content_failure(reason: str) -> CoverageResult:
    """Score 0 for missing or ambiguous content (seed 003), with the reason; no model involved."""
    note = "not assessed (missing or ambiguous content)."
    return CoverageResult(score=0, rationale=[
        f"Fact: {note}", f"Conclusion: {note}", f"Terminology: {note}", f"Organization: {note}",
        f"Score: 0 \u2248 0.00 = 0 (missing or ambiguous content: {reason.strip().rstrip('.')})",
    ])


def shortened(error: str | None) -> str:
    text = (error or "the step did not run").strip()
    return text if len(text) <= ERROR_KEEP else text[: ERROR_KEEP - 1] + "…"


def enumeration_failure(error: str | None) -> CoverageResult:
    bullets = [f"{BULLET_NAMES[c]}: not assessed; step {ENUMERATE_NODE} failed." for c in CATEGORIES]
    return CoverageResult(score=None, rationale=[
        *bullets,
        f"Organization: not assessed; it is judged only after step {ENUMERATE_NODE}.",
        f"Score: not computed, because step {ENUMERATE_NODE} failed: {shortened(error)}",
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
                       f"{len(broken)} of {len(mine)} {PLURALS[category]}: {shortened(broken[0].error)}")
    if organization is not None and organization.value is not None:
        bullets.append("Organization: matched" if organization_ratio(organization.value) else "Organization: mismatched")
    else:
        error = organization.error if organization else None
        first_error = first_error or error
        failed_steps.append(ORGANIZATION_NODE)
        bullets.append(f"Organization: not assessed; step {ORGANIZATION_NODE} failed: {shortened(error)}")
    bullets.append(f"Score: not computed, because step(s) {', '.join(failed_steps)} failed: {shortened(first_error)}")
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


def judged_coverage(state: Mapping[str, Any], coverage: CoverageInput) -> CoverageResult:
    """The score and its bullets by the three outcomes of the module docstring."""
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


RATIONALE = "rationale"
"""The output field holding the metric's bullets (`MetricDeclaration.output_block`)."""


def as_metric_score(result: CoverageResult) -> Score:
    """The output's score and bullets as the metric's score, its bullets joined as the
    explanation and kept whole for the output's `rationale`; no score is a failure, its cause
    the last bullet (which steps failed, and why)."""
    cause = result.rationale[-1] if result.score is None and result.rationale else None
    return Score(result.score, "\n".join(result.rationale), cause, breakdown=list(result.rationale))


def decide_coverage(signals: CoverageCounts, parameters: None = None) -> Score:
    """The formula over the judged counts (`nodes.coverage.formula`); no profile parameters act on it."""
    breakdown = coverage_score(signals)
    return as_metric_score(CoverageResult(score=breakdown.score, rationale=rationale(signals, breakdown)))


def score_coverage(state: Mapping[str, Any], coverage: CoverageInput, profile: Profile | None) -> Score:
    return as_metric_score(judged_coverage(state, coverage))


TERM_NODE = "check_term"


def coverage_record_signals(state: Mapping[str, Any], coverage: CoverageInput) -> dict[str, Any]:
    """The counts the formula used, from the steps' typed outcomes: elements per category, how
    many matched, and the organization judgment."""
    judgments = state.get("judgments", {})
    enumeration: StepOutcome | None = judgments.get(ENUMERATE_NODE)
    if enumeration is None or enumeration.value is None:
        return {}
    checks = collect_checks(state, enumeration.value)
    signals: dict[str, Any] = {}
    for category in CATEGORIES:
        plural = PLURALS[category]
        signals[plural] = len(getattr(enumeration.value, plural))
        signals[f"{plural}_matched"] = sum(1 for c in checks if c.category == category and c.matched)
    organization: StepOutcome | None = judgments.get(ORGANIZATION_NODE)
    signals["organization"] = organization.value.structure if organization is not None and organization.value else None
    return signals


def coverage_signals(details: RunDetails) -> dict[str, Any]:
    """The counts the formula used: elements per category, how many matched, and the
    organization judgment."""
    enumeration = step_detail(details, ENUMERATE_NODE)
    if not enumeration:
        return {}
    checks = [event.get("detail") or {} for node in (CHECK_NODE, TERM_NODE) for event in step_events(details, node)]
    checks += [check for event in step_events(details, BATCH_NODE)
               for check in (event.get("detail") or {}).get("elements") or []]
    signals: dict[str, Any] = {}
    for category in CATEGORIES:
        plural = PLURALS[category]
        signals[plural] = len(enumeration.get(plural) or [])
        signals[f"{plural}_matched"] = sum(1 for c in checks if c.get("category") == category and c.get("matched"))
    signals["organization"] = step_detail(details, ORGANIZATION_NODE).get("structure")
    return signals


COVERAGE = MetricDeclaration(
    spec=MetricSpec("coverage", kind="ordinal", scale=(0, 5), field="score"),
    entry_nodes=(ENUMERATE_NODE,),
    nodes=(
        NodeSpec(ENUMERATE_NODE, enumerate_reference_elements,
                 destinations=(CHECK_NODE, BATCH_NODE, ORGANIZATION_NODE, "finalize")),
        NodeSpec(CHECK_NODE, check_reference_element),
        NodeSpec(BATCH_NODE, check_reference_elements_batch),
        NodeSpec(ORGANIZATION_NODE, judge_organization),
    ),
    score=score_coverage,
    decide=decide_coverage,
    read_signals=coverage_signals,
    record_signals=coverage_record_signals,
    output_block=(RATIONALE, list[str]),
)
