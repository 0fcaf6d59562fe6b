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

from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..declarations.rubric_spec import MetricKind, MetricSpec
from ..graph import rubrics
from .metric_table import MetricCell
from .run_file import RunFile

ABSENT = "absent"
"""The status of a metric a record does not have (another rubric, or not requested)."""


@dataclass
class ScorePairs:
    """The items judged with a number in both runs: their ids and both scores, in pairing order
    (arrays of floats, so a 100,000-item comparison holds no object per pair)."""

    ids: list[str] = field(default_factory=list)
    before: array = field(default_factory=lambda: array("d"))
    after: array = field(default_factory=lambda: array("d"))

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, item_id: str, before: float, after: float) -> None:
        self.ids.append(item_id)
        self.before.append(before)
        self.after.append(after)

    def changes(self) -> list[float]:
        """after - before of each pair, rounded to 10 decimals so that 0.51 - 0.44 is 0.07, as
        the two-decimal scores mean, not 0.07000000000000006."""
        return [round(after - before, 10) for before, after in zip(self.before, self.after, strict=True)]


@dataclass
class LabelPairs:
    """The items judged with a label in both runs: their ids and both labels, in pairing order."""

    ids: list[str] = field(default_factory=list)
    before: list[Any] = field(default_factory=list)
    after: list[Any] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, item_id: str, before: Any, after: Any) -> None:
        self.ids.append(item_id)
        self.before.append(before)
        self.after.append(after)


@dataclass
class MetricPairs:
    """One metric's items over the ids both runs hold."""

    key: str
    rubric: str
    kind: MetricKind
    scale: tuple[float, float] | None
    from_claims: bool = False
    numeric: ScorePairs = field(default_factory=ScorePairs)
    """Judged with a number in both runs."""
    labels: LabelPairs = field(default_factory=LabelPairs)
    """Judged with a label in both runs (expected_output's categorical type)."""
    status_changes: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(status before, status after) -> items, for items whose status differs; statuses are
    judged, not_applicable, failed and absent."""
    status_change_ids: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    not_judged_in_both: int = 0
    """Items not judged in either run (the same failure, or not applicable, twice)."""


def _spec(cell: MetricCell) -> MetricSpec | None:
    spec = rubrics.find(cell.rubric)
    return spec.metric(cell.key) if spec is not None else None


def _status(cell: MetricCell | None) -> str:
    if cell is None:
        return ABSENT
    if cell.status != "judged":
        return cell.status
    return "judged" if cell.score is not None or cell.value is not None else "failed"


def _new(cell: MetricCell) -> MetricPairs:
    spec = _spec(cell)
    return MetricPairs(key=cell.key, rubric=cell.rubric, kind=spec.kind if spec else "score",
                       scale=spec.scale if spec else cell.scale, from_claims=bool(spec and spec.from_claims))


def pair_metrics(before: RunFile, after: RunFile, shared: list[str]) -> list[MetricPairs]:
    """Every metric found in either run's shared records, with its pairs and status changes,
    in the order the metrics first appear (the declarations' order within a rubric).

    The records' metrics are read without their `details`: the comparison needs scores and
    statuses, not the signals the details add (and a hand-edited or foreign details object
    must not stop a comparison)."""
    by_metric: dict[str, MetricPairs] = {}
    for item_id in shared:
        first, second = before.cells(item_id), after.cells(item_id)
        for key in dict.fromkeys([*first, *second]):
            old, new = first.get(key), second.get(key)
            pairs = by_metric.get(key)
            if pairs is None:
                pairs = by_metric[key] = _new(old or new)  # type: ignore[arg-type]
            was, now = _status(old), _status(new)
            if was == now == "judged" and old is not None and new is not None:
                if old.score is not None and new.score is not None:
                    pairs.numeric.add(item_id, old.score, new.score)
                    continue
                if old.value is not None and new.value is not None and old.score is None and new.score is None:
                    pairs.labels.add(item_id, old.value, new.value)
                    continue
                was, now = ("judged (score)", "judged (label)") if old.score is not None else \
                    ("judged (label)", "judged (score)")
            if was == now:
                pairs.not_judged_in_both += 1
                continue
            pairs.status_changes[(was, now)] += 1
            pairs.status_change_ids.setdefault((was, now), []).append(item_id)
    return list(by_metric.values())
