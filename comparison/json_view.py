"""`judgegraph compare --json`: the comparison as one JSON document, for machines.

Why a view of its own rather than `dataclasses.asdict`: tuples keyed dicts (transition
matrices, status changes) are not JSON, and the metric records inside the pairs are internal;
this module names every figure once, the way the table and the page show it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .compare_runs import Comparison, MetricComparison
from .gate import GateVerdict
from .moved import MovedItem


def _moved(item: MovedItem) -> dict[str, Any]:
    return {
        "id": item.id, "before": item.before, "after": item.after, "change": item.change,
        "explanation_before": item.explanation_before, "explanation_after": item.explanation_after,
        "claims_flipped": [asdict(flip) for flip in item.flips],
        "claims_only_before": item.claims_only_before, "claims_only_after": item.claims_only_after,
        "fields_changed": [{"field": key, "before": old, "after": new} for key, old, new in item.fields],
    }


def _metric(metric: MetricComparison) -> dict[str, Any]:
    pairs = metric.pairs
    data: dict[str, Any] = {
        "metric": pairs.key, "rubric": pairs.rubric, "kind": pairs.kind,
        "scale": list(pairs.scale) if pairs.scale else None,
        "paired": len(pairs.numeric) + len(pairs.labels),
        "status_changes": [{"before": was, "after": now, "items": count, "ids": pairs.status_change_ids[(was, now)]}
                           for (was, now), count in pairs.status_changes.items()],
        "not_judged_in_both": pairs.not_judged_in_both,
    }
    if metric.score is not None:
        stats = metric.score
        data["score"] = asdict(stats) | {"interval": list(stats.interval) if stats.interval else None}
    if metric.ordinal is not None:
        stats = metric.ordinal
        data["ordinal"] = {
            "n": stats.n, "up": stats.up, "down": stats.down, "same": stats.same, "wilcoxon_p": stats.wilcoxon_p,
            "net_share_improved": stats.net_share_improved,
            "interval": list(stats.interval) if stats.interval else None,
            "transitions": [{"before": b, "after": a, "items": n} for (b, a), n in sorted(stats.transitions.items())],
        }
    if metric.labels is not None:
        stats = metric.labels
        data["labels"] = {
            "n": stats.n, "changed": stats.changed, "labels": stats.labels,
            "transitions": [{"before": b, "after": a, "items": n} for (b, a), n in stats.transitions.items()],
            "mcnemar": [asdict(test) for test in stats.tests],
        }
    if metric.corrected is not None:
        data["corrected"] = metric.corrected.as_json()
    data["moved"] = [_moved(item) for item in metric.moved]
    return data


def comparison_json(comparison: Comparison, gate: list[GateVerdict] | None = None) -> dict[str, Any]:
    return {
        "before": {"file": str(comparison.before.path), "records": len(comparison.before.ids),
                   "provenance": comparison.before.provenances},
        "after": {"file": str(comparison.after.path), "records": len(comparison.after.ids),
                  "provenance": comparison.after.provenances},
        "shared": len(comparison.shared),
        "only_before": comparison.only_before,
        "only_after": comparison.only_after,
        "judge_differences": comparison.judge_differences,
        "notes": comparison.notes,
        "metrics": [_metric(metric) for metric in comparison.metrics],
        "conversations": [{"id": c.id, "turns_before": c.turns_before, "turns_after": c.turns_after,
                           "metrics": [asdict(m) | {"change": m.change} for m in c.metrics]}
                          for c in comparison.conversations],
        "gate": [{"metric": v.metric, "margin": v.margin, "outcome": v.outcome,
                  "interval": list(v.interval) if v.interval else None, "message": v.message, "fails": v.fails,
                  **({"more_to_decide": v.more_to_decide} if v.outcome == "inconclusive" else {})}
                 for v in gate or []],
    }
