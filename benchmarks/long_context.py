"""Long contexts: a HaluEval item judged with its gold passage alone, then hidden among others.

    python -m benchmarks.long_context [--limit 20] [--passages 100] [--part report]
        [--metrics faithfulness,context_relevance,answer_relevance] [--out-dir bench-out/long_context]
    python -m benchmarks.long_context --sweep 1,10,100,300 --limit 2     # seconds and tokens per size

Real retrieval hands a judge ten or a hundred passages. Each chosen HaluEval row is judged twice
by the same judge in one run: with its own passage (gold alone), and with that passage placed at
a seeded random position among `--passages - 1` passages taken from other HaluEval rows (the
realistic top-k). Reported: failures, balanced accuracy of faithfulness in both conditions
(paired bootstrap interval of the difference), prompt tokens and seconds per item, and the
ratio of tokens long / gold. Per-item outcomes are kept (resumable) under `--out-dir`.

Every metric that reads the context is judged by default, so a step that would outgrow the
judge's window shows up as a failure here.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

from judgegraph.stats import (
    balanced_accuracy,
    bootstrap_interval,
    paired_bootstrap_interval,
)

from benchmarks.datasets import (
    DEFAULT_DATA_ROOT,
    SETS,
    hallucinated,
    load_rows,
    sample_path,
    select_rows,
)
from benchmarks.judging import add_judge_run_options, run_method
from benchmarks.split import PARTS

SET = SETS["halueval_qa"]
THRESHOLD = 0.5
"""Faithfulness below this counts as "hallucinated" (the harness's fixed cut, not tuned here)."""
DEFAULT_METRICS = ("faithfulness", "context_relevance", "answer_relevance")
SEED = 2211


def hidden_context(row: dict, others: list[dict], passages: int, seed: int) -> list[str]:
    """`row`'s passage at a seeded position among `passages - 1` passages of other rows."""
    generator = random.Random(f"{seed}:{row['id']}")
    pool = [other["context"] for other in others if other["id"] != row["id"] and other["context"] != row["context"]]
    chosen = [pool[generator.randrange(len(pool))] for _ in range(passages - 1)] if pool else []
    chosen.insert(generator.randrange(len(chosen) + 1), row["context"])
    return chosen


def item_for(row: dict, context: str | list[str], metrics: list[str]) -> dict:
    return {"question": row["question"], "context": context, "answer": row["answer"],
            "reference": row.get("reference"), "metrics": metrics}


def build_context(args: argparse.Namespace):
    from judgegraph.commands.judge_flags import context_from_flags

    return context_from_flags(args)


def agreement(outcomes, rows) -> tuple[float | None, list[bool], list[bool]]:
    predicted = [o.score is not None and o.score < THRESHOLD for o in outcomes]
    actual = [hallucinated(row) for row in rows]
    return balanced_accuracy(predicted, actual), predicted, actual


def summarise(gold, long, rows) -> dict:
    gold_ba, gold_pred, actual = agreement(gold, rows)
    long_ba, long_pred, _ = agreement(long, rows)

    def ba_of(predicted):
        return lambda sample: balanced_accuracy([predicted[i] for i in sample], [actual[i] for i in sample])

    tokens_gold = sum(o.input_tokens for o in gold)
    tokens_long = sum(o.input_tokens for o in long)
    return {
        "n": len(rows),
        "failures": {"gold": sum(o.failed for o in gold), "long": sum(o.failed for o in long)},
        "ba": {"gold": gold_ba, "long": long_ba,
               "gold_interval": bootstrap_interval(ba_of(gold_pred), len(rows)),
               "long_interval": bootstrap_interval(ba_of(long_pred), len(rows)),
               "difference_interval": paired_bootstrap_interval(ba_of(gold_pred), ba_of(long_pred), len(rows))},
        "verdict_changes": sum(a != b for a, b in zip(gold_pred, long_pred)),
        "prompt_tokens_per_item": {"gold": tokens_gold / len(rows), "long": tokens_long / len(rows),
                                   "ratio": tokens_long / tokens_gold if tokens_gold else None},
        "calls_per_item": {"gold": sum(o.calls for o in gold) / len(rows), "long": sum(o.calls for o in long) / len(rows)},
        "seconds_per_item": {"gold": statistics.median(o.seconds for o in gold),
                             "long": statistics.median(o.seconds for o in long)},
    }


def main(argv: list[str] | None = None) -> int:

    parser = argparse.ArgumentParser(prog="python -m benchmarks.long_context", description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--passages", type=int, default=100)
    parser.add_argument("--sweep", default=None, help="comma-separated passage counts: time and tokens only")
    parser.add_argument("--part", choices=PARTS, default="report")
    parser.add_argument("--metrics", default=",".join(DEFAULT_METRICS))
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out/long_context"))
    add_judge_run_options(parser)
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    rows = load_rows(sample_path(SET.name, args.data_root))
    chosen = select_rows(rows, SET, args.limit, args.part)
    metrics = args.metrics.split(",")
    context = build_context(args)
    print(f"judge {context.model_id}, window {context.context_window}, cap {context.context_cap_tokens} tokens; "
          f"{len(chosen)} {args.part} rows", file=sys.stderr, flush=True)
    if args.sweep:
        for size in [int(n) for n in args.sweep.split(",")]:
            items = [(f"{row['id']}@{size}", item_for(row, hidden_context(row, rows, size, SEED), metrics))
                     for row in chosen]
            outcomes, _ = run_method("graph", context, "faithfulness", items, label=f"{size} passages",
                                     items_path=args.out_dir / f"sweep-{size}.jsonl")
            print(json.dumps({"passages": size, "items": len(outcomes),
                              "failures": sum(o.failed for o in outcomes),
                              "seconds_per_item": statistics.median(o.seconds for o in outcomes),
                              "prompt_tokens_per_item": statistics.mean(o.input_tokens for o in outcomes),
                              "calls_per_item": statistics.mean(o.calls for o in outcomes)}), flush=True)
        return 0
    gold_items = [(row["id"], item_for(row, row["context"], metrics)) for row in chosen]
    long_items = [(row["id"], item_for(row, hidden_context(row, rows, args.passages, SEED), metrics)) for row in chosen]
    gold, _ = run_method("graph", context, "faithfulness", gold_items, label="gold",
                         items_path=args.out_dir / f"gold-{args.part}.jsonl")
    long, _ = run_method("graph", context, "faithfulness", long_items, label=f"{args.passages} passages",
                         items_path=args.out_dir / f"long{args.passages}-{args.part}.jsonl")
    figures = summarise(gold, long, chosen) | {"passages": args.passages, "metrics": metrics,
                                                 "cap_tokens": context.context_cap_tokens,
                                                 "window": context.context_window, "judge": context.model_id}
    (args.out_dir / f"figures-{args.passages}-{args.part}.json").write_text(json.dumps(figures, indent=2))
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
