"""What the claim pipeline measured for one item, as the signals of a faithfulness metric.

Why: faithfulness is one number, but it rests on per-claim measurements (each claim's support
in 0..1, code's number conflicts, verified critical contradictions). Calibrating the score
against people's labels needs those, so the metric records of `rag` and `liverag` carry them,
read back from the run's recorded verdicts (`declarations.run_details`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.run_details import verdicts
from ...schemas.claims import CheckedClaim


def claim_record_signals(state: Mapping[str, Any], item: Any = None) -> dict[str, Any]:
    """Per-claim supports and the counts behind faithfulness, from the typed state; nothing
    when no claims were extracted (invalid input, a failed extraction)."""
    extracted = state.get("claims")
    if extracted is None:
        return {}
    checked = sorted(state.get("verdicts", []), key=lambda v: v.index)
    return _claim_counts(checked, extracted.declines_to_answer)


def _claim_counts(checked: list[CheckedClaim], declines_to_answer: bool) -> dict[str, Any]:
    return {
        "claims": len(checked),
        "supports": [v.support for v in checked],
        "number_conflicts": sum(1 for v in checked if v.conflict),
        "critical_contradictions": sum(v.is_verified_critical_contradiction for v in checked),
        "failed_checks": sum(1 for v in checked if v.error is not None),
        "declines_to_answer": declines_to_answer,
    }


def claim_signals(details: Mapping[str, Any] | None) -> dict[str, Any]:
    """Per-claim supports and the counts behind faithfulness, from a results file's details;
    empty without them, or when no claims were extracted."""
    extracted = (details or {}).get("claims")
    if not isinstance(extracted, dict):
        return {}
    checked = [CheckedClaim.model_validate(v) for v in verdicts(details)]
    return _claim_counts(checked, bool(extracted.get("declines_to_answer")))
