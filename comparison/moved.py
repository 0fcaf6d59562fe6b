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
from .pairing import MetricPairs, Pair


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


def _moved(pair: Pair, change: float | None, before: dict[str, dict], after: dict[str, dict],
           from_claims: bool) -> MovedItem:
    old_record, new_record = before[pair.id], after[pair.id]
    item = MovedItem(
        id=pair.id, before=pair.before.score if change is not None else pair.before.value,
        after=pair.after.score if change is not None else pair.after.value, change=change,
        explanation_before=pair.before.comment or "", explanation_after=pair.after.comment or "",
    )
    if from_claims:
        item.flips, item.claims_only_before, item.claims_only_after = claim_changes(old_record, new_record)
    item.fields, item.same_fields = field_changes(old_record, new_record)
    return item


def moved_items(pairs: MetricPairs, before: dict[str, dict], after: dict[str, dict], top: int) -> list[MovedItem]:
    """Up to `top` items whose score moved most (largest |after - before| first, then by id),
    then up to `top` whose label changed; items that did not move are left out."""
    numeric = sorted((p for p in pairs.numeric if p.change != 0), key=lambda p: (-abs(p.change), p.id))[:top]
    labels = [p for p in pairs.labels if p.before.value != p.after.value][:top]
    return ([_moved(p, p.change, before, after, pairs.from_claims) for p in numeric]
            + [_moved(p, None, before, after, pairs.from_claims) for p in labels])
