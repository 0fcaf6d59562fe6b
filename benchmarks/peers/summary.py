"""Per side x set x metric: what each side spent and how well it agreed with people.

Reads the sides' scores files and the proxy's call logs in an output folder (`run` writes
them as scores-<side>-<set>.jsonl and calls-<side>-<set>.jsonl) and joins them on `attempt`.
Costs are per judged (item, metric), failed and NaN ones included (a failure still cost its
calls); agreement is over the `ok` scores only, with `failed`, `nan` and `not_computed`
counted apart beside it, so no side looks better by failing quietly. Figures come from
`benchmarks.figures`, as the agreement benchmarks compute them:

- HaluEval faithfulness: balanced accuracy at score < 0.5 (every side's decision rule, claims
  are not comparable across libraries) and AUROC, against the hallucination label;
- HaluEval similarity: the same, against the same label (the reference is the gold answer);
- WikiQA answer relevance, MS MARCO context relevance: pairwise accuracy and AUROC over the
  pairs whose both sides scored.
HaluEval answer and context relevance have no human label: cost only.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import TypedDict

from benchmarks.figures import binary_figures, ranking_figures
from benchmarks.peers.records import SIDES, PeerItem, read_jsonl


class Row(TypedDict):
    side: str
    set: str
    metric: str
    peer_metric: str
    items: int
    ok: int
    failed: int
    nan: int
    not_computed: int
    calls_per_item: float | None
    embedding_calls_per_item: float | None
    prompt_tokens_per_item: float | None
    completion_tokens_per_item: float | None
    cached_tokens_per_item: float | None
    calls_without_usage: int
    seconds_per_item: float | None
    model_seconds_per_item: float | None
    agreement: dict | None
    agreement_label: str | None


def _mean(total: float, n: int, places: int = 2) -> float | None:
    return round(total / n, places) if n else None


def agreement_of(set_name: str, metric: str, items: dict[str, PeerItem], scored: list[tuple[str, float]]) -> tuple[dict | None, str | None]:
    """(figures, what they compare with) for the ok scores of one side, set and metric."""
    rows = [items[item_id] for item_id, _ in scored if item_id in items]
    scores = [score for item_id, score in scored if item_id in items]
    if set_name == "halueval" and metric in ("faithfulness", "semantic_similarity"):
        if not rows or len({row["human"].get("hallucination") for row in rows}) < 2:
            return None, "hallucination label (both classes needed)"
        figures = binary_figures(rows, scores)  # type: ignore[arg-type]
        keep = ("n", "hallucinated", "balanced_accuracy_05", "balanced_accuracy_05_ci", "auroc", "auroc_ci")
        return {key: figures[key] for key in keep}, "hallucination label: BA at score < 0.5, AUROC"
    if set_name in ("wikiqa", "msmarco"):
        if not rows:
            return None, "pairs"
        return ranking_figures(rows, scores), "pairs: pairwise accuracy, AUROC"  # type: ignore[arg-type]
    return None, None


def summarise(out_dir: Path) -> list[Row]:
    """One row per side, set and metric found in `out_dir` (sides in SIDES order)."""
    rows: list[Row] = []
    for items_path in sorted(out_dir.glob("items-*.jsonl")):
        set_name = items_path.stem.removeprefix("items-")
        items = {record["id"]: record for record in read_jsonl(items_path)}
        for side in SIDES:
            scores = read_jsonl(out_dir / f"scores-{side}-{set_name}.jsonl")
            if not scores:
                continue
            calls = read_jsonl(out_dir / f"calls-{side}-{set_name}.jsonl")
            rows.extend(side_rows(side, set_name, items, scores, calls))  # type: ignore[arg-type]
    return rows


def side_rows(side: str, set_name: str, items: dict[str, PeerItem], scores: list[dict], calls: list[dict]) -> list[Row]:
    by_attempt: dict[str, list[dict]] = {}
    for call in calls:
        by_attempt.setdefault(call.get("attempt") or "", []).append(call)
    latest: dict[tuple[str, str], dict] = {}
    for record in scores:  # a pair judged twice (a re-run): its last record counts
        latest[(record["item"], record["metric"])] = record
    metrics = list(dict.fromkeys(record["metric"] for record in latest.values()))
    result: list[Row] = []
    for metric in metrics:
        records = [r for r in latest.values() if r["metric"] == metric]
        judged = [r for r in records if r["status"] != "not_computed"]
        spent = [call for r in judged for call in by_attempt.get(r["attempt"], [])]
        chat = [call for call in spent if call["kind"] == "chat"]
        n = len(judged)
        scored = [(r["item"], float(r["score"])) for r in records if r["status"] == "ok"]
        figures, label = agreement_of(set_name, metric, items, scored) if scored else (None, None)
        result.append({
            "side": side, "set": set_name, "metric": metric, "peer_metric": records[0].get("peer_metric") or "",
            "items": len(records),
            "ok": sum(r["status"] == "ok" for r in records),
            "failed": sum(r["status"] == "failed" for r in records),
            "nan": sum(r["status"] == "nan" for r in records),
            "not_computed": sum(r["status"] == "not_computed" for r in records),
            "calls_per_item": _mean(len(chat), n),
            "embedding_calls_per_item": _mean(sum(call["kind"] == "embeddings" for call in spent), n),
            "prompt_tokens_per_item": _mean(sum(call.get("prompt_tokens") or 0 for call in chat), n, 1),
            "completion_tokens_per_item": _mean(sum(call.get("completion_tokens") or 0 for call in chat), n, 1),
            "cached_tokens_per_item": _mean(sum(call.get("cached_tokens") or 0 for call in chat), n, 1),
            "calls_without_usage": sum(call.get("prompt_tokens") is None for call in chat),
            "seconds_per_item": round(statistics.fmean(r["seconds"] for r in judged), 3) if judged else None,
            "model_seconds_per_item": _mean(sum(call["seconds"] for call in chat), n, 3),
            "agreement": figures, "agreement_label": label,
        })
    return result


def _figure(row: Row) -> str:
    figures = row["agreement"]
    if not figures:
        return "n/a (no label)" if row["agreement_label"] is None else f"n/a ({row['agreement_label']})"

    def with_ci(name: str, key: str) -> str:
        value, ci = figures.get(key), figures.get(f"{key}_ci")
        if value is None:
            return f"{name} n/a"
        return f"{name} {value:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")

    if "pairwise_accuracy" in figures:
        return f"{with_ci('pairwise', 'pairwise_accuracy')}; {with_ci('AUROC', 'auroc')} ({figures['pairs']} pairs)"
    return f"{with_ci('BA', 'balanced_accuracy_05')}; {with_ci('AUROC', 'auroc')} (n {figures['n']})"


def _cell(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"


def markdown(rows: list[Row]) -> str:
    """The peer table: one line per set, metric and side."""
    lines = [
        "| set | metric | side (its metric) | items | model calls/item | tokens in / out per item | s/item "
        "| failed | NaN | not computed | agreement with people |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = {side: n for n, side in enumerate(SIDES)}
    for row in sorted(rows, key=lambda r: (r["set"], r["metric"], order.get(r["side"], 9))):
        peer = f"{row['side']} ({row['peer_metric']})" if row["peer_metric"] else row["side"]
        tokens = f"{_cell(row['prompt_tokens_per_item'])} / {_cell(row['completion_tokens_per_item'])}"
        if row["calls_without_usage"]:
            tokens += f" ({row['calls_without_usage']} calls without usage)"
        calls = _cell(row["calls_per_item"])
        if row["embedding_calls_per_item"]:
            calls += f" (+{row['embedding_calls_per_item']:g} embedding)"
        lines.append(f"| {row['set']} | {row['metric']} | {peer} | {row['items']} | {calls} "
                     f"| {tokens} | {_cell(row['seconds_per_item'])} | {row['failed']} | {row['nan']} "
                     f"| {row['not_computed']} | {_figure(row)} |")
    return "\n".join(lines) + "\n"


def write_summary(out_dir: Path) -> tuple[list[Row], Path, Path]:
    rows = summarise(out_dir)
    json_path, md_path = out_dir / "summary.json", out_dir / "summary.md"
    json_path.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    md_path.write_text(markdown(rows), encoding="utf-8")
    return rows, json_path, md_path
