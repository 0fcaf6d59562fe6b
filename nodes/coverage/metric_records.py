"""The `coverage` output (seed 003) read back as its one metric record, 0..5.

A null score means a judge step never gave a valid reply (the rationale says which); content
problems score 0 and count as judged. With the run's details, the record carries the counts
the formula used: elements per category, how many matched, and the organization judgment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.rubric_spec import MetricSpec
from ...declarations.run_details import step_detail, step_events
from ...schemas.coverage import CATEGORIES
from ...schemas.metrics import MetricRecord
from .elements import BATCH_NODE, CHECK_NODE, ORGANIZATION_NODE
from .elements import NODE as ENUMERATE_NODE

METRICS = (MetricSpec("coverage", kind="ordinal", scale=(0, 5), field="score"),)
TERM_NODE = "check_term"
_PLURALS = {"fact": "facts", "conclusion": "conclusions", "term": "terms"}


def coverage_signals(details: Mapping[str, Any] | None) -> dict[str, Any]:
    enumeration = step_detail(details, ENUMERATE_NODE)
    if not enumeration:
        return {}
    checks = [event.get("detail") or {} for node in (CHECK_NODE, TERM_NODE) for event in step_events(details, node)]
    checks += [check for event in step_events(details, BATCH_NODE)
               for check in (event.get("detail") or {}).get("elements") or []]
    signals: dict[str, Any] = {}
    for category in CATEGORIES:
        plural = _PLURALS[category]
        signals[plural] = len(enumeration.get(plural) or [])
        signals[f"{plural}_matched"] = sum(1 for c in checks if c.get("category") == category and c.get("matched"))
    signals["organization"] = step_detail(details, ORGANIZATION_NODE).get("structure")
    return signals


def read_coverage_metrics(result: dict, selected: tuple[str, ...] | None = None,
                          details: Mapping[str, Any] | None = None) -> list[MetricRecord]:
    (spec,) = METRICS
    score = result.get(spec.field)
    return [MetricRecord(spec.key, score, "\n".join(result.get("rationale") or []),
                         "judged" if score is not None else "failed", "coverage", spec.scale,
                         signals=coverage_signals(details))]
