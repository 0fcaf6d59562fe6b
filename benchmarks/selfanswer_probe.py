"""Probe: does the judge's own answer to the question help catch HaluEval hallucinations?

Why: the graph's weak HaluEval stratum is "the hallucinated answer is another entity of the
context" (BA ~0.6): a claim check sees the wrong entity in the context and calls it supported.
A QA-consistency signal (QAGS-style) asks the judge to answer the question from the context
itself, then compares that answer with the one under test in code (token F1, as SQuAD scores
answers). This probe measured the signal on tune rows beside the graph's stored per-item
outputs (`items-halueval_qa-tune-graph.jsonl`) before it was built into the graph
(`nodes/claims/second_reading.py`); it now uses the graph's own prompt, `prompts/answer_from_context.j2`.

    python -m benchmarks.selfanswer_probe --limit 100 --graph-items bench-out/tune/items-halueval_qa-tune-graph.jsonl

Resumable: items already in `--out` are skipped. Tune rows only, by construction.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from judgegraph.llm.models import resolve_model
from judgegraph.llm.structured import run_structured_step
from judgegraph.nodes.claims.second_reading import NODE, token_f1
from judgegraph.nodes.common.segmentation import context_lines
from judgegraph.prompts import render_messages
from judgegraph.schemas.claims import OwnAnswer
from judgegraph.stats import auroc, balanced_accuracy, bootstrap_interval

from benchmarks.datasets import (
    hallucinated,
    load_rows,
    sample_path,
    select_rows,
    set_for_path,
)


def own_answer(model, row: dict) -> dict:
    messages = render_messages(NODE, lines=context_lines([row["context"]]), question=row["question"])
    started = time.perf_counter()
    outcome = run_structured_step(model, messages, OwnAnswer)
    own = outcome.value.answer if outcome.value is not None else None
    return {"id": row["id"], "own_answer": own, "error": outcome.error,
            "f1": None if own is None else round(token_f1(own, row["answer"]), 4),
            "seconds": round(time.perf_counter() - started, 2),
            "input_tokens": outcome.input_tokens, "output_tokens": outcome.output_tokens}


def summarise(records: list[dict], rows: dict[str, dict], graph_items: Path | None) -> None:
    graph = {}
    if graph_items and graph_items.exists():
        for line in graph_items.open(encoding="utf-8"):
            item = json.loads(line)
            claims = (item.get("detail") or {}).get("claims") or []
            if claims:
                graph[item["id"]] = min(claim.get("support") or 0.0 for claim in claims)
    usable = [r for r in records if r["f1"] is not None and r["id"] in graph]
    labels = [hallucinated(rows[r["id"]]) for r in usable]
    signals = {
        "graph: min support < 0.5": [graph[r["id"]] < 0.5 for r in usable],
        "own answer: F1 < 0.5": [r["f1"] < 0.5 for r in usable],
        "graph OR own answer": [graph[r["id"]] < 0.5 or r["f1"] < 0.5 for r in usable],
        "graph AND own answer": [graph[r["id"]] < 0.5 and r["f1"] < 0.5 for r in usable],
    }
    print(f"{len(usable)} tune items with both signals ({sum(labels)} hallucinated)")
    for name, flags in signals.items():
        interval = bootstrap_interval(
            lambda s: balanced_accuracy([flags[i] for i in s], [labels[i] for i in s]), len(usable))
        shown = f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else ""
        print(f"  {name:28s} BA {balanced_accuracy(flags, labels):.3f}{shown}")
    for name, scores in {"min support": [graph[r["id"]] for r in usable],
                         "own-answer F1": [r["f1"] for r in usable],
                         "min support + F1": [graph[r["id"]] + r["f1"] for r in usable]}.items():
        print(f"  AUROC {name:18s} {auroc(scores, [not y for y in labels]):.3f}")
    by_stratum: dict[str, list[int]] = {}
    for index, record in enumerate(usable):
        by_stratum.setdefault(rows[record["id"]]["meta"]["stratum"], []).append(index)
    for stratum, members in by_stratum.items():
        ys = [labels[i] for i in members]
        for name in ("graph: min support < 0.5", "graph OR own answer"):
            value = balanced_accuracy([signals[name][i] for i in members], ys)
            print(f"  {stratum} ({len(members)}): {name} BA {value if value is None else round(value, 3)}")
    seconds = sum(r["seconds"] for r in records) / max(1, len(records))
    tokens = sum(r["input_tokens"] for r in records) / max(1, len(records))
    print(f"  cost of the own-answer call: {seconds:.1f} s and {tokens:.0f} tokens in per item")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--model", default="local")
    parser.add_argument("--out", type=Path, default=Path("bench-out/tune/selfanswer-halueval.jsonl"))
    parser.add_argument("--graph-items", type=Path,
                        default=Path("bench-out/tune/items-halueval_qa-tune-graph.jsonl"))
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args(argv)
    path = sample_path("halueval_qa")
    rows = select_rows(load_rows(path), set_for_path(path), args.limit, "tune")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = {json.loads(line)["id"] for line in args.out.open()} if args.out.exists() else set()
    if not args.summary_only:
        model = resolve_model(args.model).model
        with args.out.open("a", encoding="utf-8") as out:
            for row in rows:
                if row["id"] not in done:
                    out.write(json.dumps(own_answer(model, row)) + "\n")
                    out.flush()
    wanted = {row["id"]: row for row in rows}
    records = [r for r in map(json.loads, args.out.open()) if r["id"] in wanted]
    summarise(records, wanted, args.graph_items)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
