"""The `liverag` output (seed 002) read back as metric records: relevance and faithfulness.

A null score is a metric that could not be judged; `evaluation_notes` says why, for both.
With the run's details, relevance carries the judge's observations and faithfulness the
claim pipeline's measurements.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.rubric_spec import MetricSpec
from ...declarations.run_details import step_detail
from ...schemas.metrics import MetricRecord
from ..claims.metric_signals import claim_signals
from .relevance import NODE as RELEVANCE

RELEVANCE_METRIC = MetricSpec("liverag_relevance", kind="ordinal", scale=(-1, 2), field="relevance_score")
FAITHFULNESS_METRIC = MetricSpec("liverag_faithfulness", kind="ordinal", scale=(-1, 1), field="faithfulness_score",
                                 from_claims=True)
METRICS = (RELEVANCE_METRIC, FAITHFULNESS_METRIC)


def relevance_signals(details: Mapping[str, Any] | None) -> dict[str, Any]:
    """The judge's yes/no observations the four-point scale is computed from."""
    detail = step_detail(details, RELEVANCE)
    return {key: value for key, value in detail.items() if key != "reasoning"}


def read_liverag_metrics(result: dict, selected: tuple[str, ...] | None = None,
                         details: Mapping[str, Any] | None = None) -> list[MetricRecord]:
    notes = result.get("evaluation_notes")
    signals = {RELEVANCE_METRIC.key: relevance_signals(details), FAITHFULNESS_METRIC.key: claim_signals(details)}
    return [
        MetricRecord(spec.key, result.get(spec.field), notes,
                     "judged" if result.get(spec.field) is not None else "failed",
                     "liverag", spec.scale, signals=signals[spec.key])
        for spec in METRICS
    ]
