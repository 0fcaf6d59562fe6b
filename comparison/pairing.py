"""Pairing two runs' records by id, metric by metric, through the rubric declarations.

Why pairs and not two lists: the same questions judged twice differ mostly by how hard each
question is; comparing each item with itself removes that, which is what makes a 0.03 change
detectable on a few hundred items. Only items judged in both runs are paired for the
statistics. An item whose metric was judged in one run and failed, not applicable or absent
in the other changed *status*: it is counted apart, never folded into a mean (a failure is
not a score of 0). Each metric's kind (score, ordinal, label) comes from its rubric's
declaration (`MetricSpec.kind`); a rubric judgegraph does not declare is read as scores.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..nodes import rubrics
from ..nodes.common.rubric_spec import MetricKind, MetricSpec
from ..nodes.metrics_view import record_metrics
from ..schemas.metrics import Metric

ABSENT = "absent"
"""The status of a metric a record does not have (another rubric, or not requested)."""


@dataclass(frozen=True)
class Pair:
    id: str
    before: Metric
    after: Metric

    @property
    def change(self) -> float:
        """after - before, for numeric pairs; rounded to 10 decimals so that 0.51 - 0.44 is
        0.07, as the two-decimal scores mean, not 0.07000000000000006."""
        return round(float(self.after.score) - float(self.before.score), 10)  # type: ignore[arg-type]


@dataclass
class MetricPairs:
    """One metric's items over the ids both runs hold."""

    key: str
    rubric: str
    kind: MetricKind
    scale: tuple[float, float] | None
    from_claims: bool = False
    numeric: list[Pair] = field(default_factory=list)
    """Judged with a number in both runs."""
    labels: list[Pair] = field(default_factory=list)
    """Judged with a label in both runs (expected_output's categorical type)."""
    status_changes: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(status before, status after) -> items, for items whose status differs; statuses are
    judged, not_applicable, failed and absent."""
    status_change_ids: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    not_judged_in_both: int = 0
    """Items not judged in either run (the same failure, or not applicable, twice)."""


def _spec(metric: Metric) -> MetricSpec | None:
    spec = rubrics.find(metric.rubric)
    return spec.metric(metric.key) if spec is not None else None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _status(metric: Metric | None) -> str:
    if metric is None:
        return ABSENT
    if metric.status != "judged":
        return metric.status
    return "judged" if _is_number(metric.score) or metric.value is not None else "failed"


def _new(metric: Metric) -> MetricPairs:
    spec = _spec(metric)
    return MetricPairs(key=metric.key, rubric=metric.rubric, kind=spec.kind if spec else "score",
                       scale=spec.scale if spec else metric.scale, from_claims=bool(spec and spec.from_claims))


def _metrics_of(record: dict) -> dict[str, Metric]:
    """The record's metrics by key, read without its `details`: the comparison needs scores,
    statuses and explanations, not the signals the details add (and a hand-edited or foreign
    details object must not stop a comparison)."""
    return {m.key: m for m in record_metrics({k: v for k, v in record.items() if k != "details"})}


def pair_metrics(before: dict[str, dict], after: dict[str, dict], shared: list[str]) -> list[MetricPairs]:
    """Every metric found in either run's shared records, with its pairs and status changes,
    in the order the metrics first appear (the declarations' order within a rubric)."""
    by_metric: dict[str, MetricPairs] = {}
    for item_id in shared:
        first, second = _metrics_of(before[item_id]), _metrics_of(after[item_id])
        for key in dict.fromkeys([*first, *second]):
            old, new = first.get(key), second.get(key)
            pairs = by_metric.get(key)
            if pairs is None:
                pairs = by_metric[key] = _new(old or new)  # type: ignore[arg-type]
            was, now = _status(old), _status(new)
            if was == now == "judged" and old is not None and new is not None:
                if _is_number(old.score) and _is_number(new.score):
                    pairs.numeric.append(Pair(item_id, old, new))
                    continue
                if old.value is not None and new.value is not None and not _is_number(old.score) \
                        and not _is_number(new.score):
                    pairs.labels.append(Pair(item_id, old, new))
                    continue
                was, now = ("judged (score)", "judged (label)") if _is_number(old.score) else \
                    ("judged (label)", "judged (score)")
            if was == now:
                pairs.not_judged_in_both += 1
                continue
            pairs.status_changes[(was, now)] += 1
            pairs.status_change_ids.setdefault((was, now), []).append(item_id)
    return list(by_metric.values())
