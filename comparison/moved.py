"""The items that moved most between two runs, with what each run said about them.

Why: a mean difference says whether things got better; the items that moved say why. Each
moved item carries both runs' explanations, the item fields that differ between the runs
(usually the answer), and, for metrics scored from claims (faithfulness), the claims whose
verdict flipped. Claims and item fields need `--details` on the batch runs; without them the
explanations are still there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..schemas.claims import counts_as_supported
from .metric_table import record_metrics_by_key
from .pairing import MetricPairs
from .run_file import RunFile


@dataclass(frozen=True)
class ClaimFlip:
    claim: str
    before: str
    """The verdict before (`supported`, `contradicted`, ...)."""
    after: str
    now_counts: bool
    """Whether the claim counts as supported after (it did not before, or the other way)."""


@dataclass
class MovedItem:
    id: str
    before: Any
    """The metric's score before (or label)."""
    after: Any
    change: float | None
    """after - before; None for labels."""
    explanation_before: str
    explanation_after: str
    flips: list[ClaimFlip] = field(default_factory=list)
    claims_only_before: list[str] = field(default_factory=list)
    claims_only_after: list[str] = field(default_factory=list)
    fields: list[tuple[str, str, str]] = field(default_factory=list)
    """(item key, text before, text after) for the item fields that differ between the runs."""
    same_fields: list[tuple[str, str]] = field(default_factory=list)
    """(item key, text) for the fields both runs share (the question, usually)."""


def _details(record: dict) -> dict:
    details = record.get("details")
    return details if isinstance(details, dict) else {}


def _verdicts(record: dict) -> dict[str, dict]:
    """Claim text -> its verdict record, from the run's details."""
    verdicts = _details(record).get("verdicts") or []
    return {str(v.get("claim", "")).strip(): v for v in verdicts if isinstance(v, dict)}


def _verdict(v: dict) -> str:
    return str(v.get("effective_verdict") or v.get("verdict") or "")


def _counts(v: dict) -> bool:
    return counts_as_supported(v)


def claim_changes(before: dict, after: dict) -> tuple[list[ClaimFlip], list[str], list[str]]:
    """(claims in both runs whose verdict changed, claims only before, claims only after)."""
    first, second = _verdicts(before), _verdicts(after)
    flips = [ClaimFlip(claim, _verdict(first[claim]), _verdict(second[claim]), _counts(second[claim]))
             for claim in first if claim in second
             and (_verdict(first[claim]) != _verdict(second[claim]) or _counts(first[claim]) != _counts(second[claim]))]
    return flips, [c for c in first if c not in second], [c for c in second if c not in first]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def field_changes(before: dict, after: dict) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """The item's fields, side by side where the runs differ, once where they agree."""
    first = _details(before).get("item")
    second = _details(after).get("item")
    first = first if isinstance(first, dict) else {}
    second = second if isinstance(second, dict) else {}
    differ, same = [], []
    for key in dict.fromkeys([*first, *second]):
        old, new = _text(first.get(key, "")), _text(second.get(key, ""))
        if old == new:
            same.append((key, old))
        else:
            differ.append((key, old, new))
    return differ, same


def _moved(item_id: str, key: str, change: float | None, before: RunFile, after: RunFile,
           from_claims: bool) -> MovedItem:
    """The item's entry, from both runs' records read again (the pairing kept no explanation)."""
    old_record, new_record = before.record(item_id), after.record(item_id)
    old, new = record_metrics_by_key(old_record)[key], record_metrics_by_key(new_record)[key]
    item = MovedItem(
        id=item_id, before=old.score if change is not None else old.value,
        after=new.score if change is not None else new.value, change=change,
        explanation_before=old.comment or "", explanation_after=new.comment or "",
    )
    if from_claims:
        item.flips, item.claims_only_before, item.claims_only_after = claim_changes(old_record, new_record)
    item.fields, item.same_fields = field_changes(old_record, new_record)
    return item


def moved_items(pairs: MetricPairs, before: RunFile, after: RunFile, top: int) -> list[MovedItem]:
    """Up to `top` items whose score moved most (largest |after - before| first, then by id),
    then up to `top` whose label changed; items that did not move are left out."""
    changes, ids = pairs.numeric.changes(), pairs.numeric.ids
    numeric = sorted((i for i, change in enumerate(changes) if change != 0),
                     key=lambda i: (-abs(changes[i]), ids[i]))[:top]
    labels = pairs.labels
    changed = [i for i in range(len(labels)) if labels.before[i] != labels.after[i]][:top]
    return ([_moved(ids[i], pairs.key, changes[i], before, after, pairs.from_claims) for i in numeric]
            + [_moved(labels.ids[i], pairs.key, None, before, after, pairs.from_claims) for i in changed])
