"""Why faithfulness "points the wrong way" on FaithBench: its binary label against the seed's.

    python -m benchmarks.faithbench_labels bench-out/items-faithbench-tune-graph.jsonl

Reads a per-item file of the agreement harness (`benchmarks.agreement`, graph method) and the
sample's human annotations, and prints the graph's score per FaithBench `worst_label` and its
AUROC under two readings of the same annotations:

- FaithBench's binary label, where a summary whose worst span is "Benign" (content not in the
  source, judged harmless) or better is faithful;
- the seed's rule (faithfulness is the share of claims the context supports), where any
  unsupported content, benign or not, lowers the score: "Consistent" against the rest.

No judge call: this only re-reads recorded outcomes.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from benchmarks.datasets import DEFAULT_DATA_ROOT, load_rows, sample_path
from judgegraph.stats import auroc, bootstrap_interval


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.faithbench_labels", description=__doc__.splitlines()[0])
    parser.add_argument("items", type=Path, help="a graph per-item file of the faithbench set")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    args = parser.parse_args(argv)
    labels = {row["id"]: row["human"] for row in load_rows(sample_path("faithbench", args.data_root))}
    outcomes = [json.loads(line) for line in args.items.read_text(encoding="utf-8").splitlines() if line.strip()]
    judged = [(labels[o["id"]], o["score"]) for o in outcomes if not o.get("failed") and o.get("score") is not None]
    print(f"{len(judged)} judged items")
    by_label: dict[str, list[float]] = {}
    for human, score in judged:
        by_label.setdefault(human["worst_label"], []).append(score)
    for label, scores in sorted(by_label.items()):
        print(f"  {label:<13} n={len(scores):>3}  mean {statistics.mean(scores):.2f}  median {statistics.median(scores):.2f}")

    def report(name: str, rows: list[tuple[dict, float]], unfaithful) -> None:
        scores = [-score for _, score in rows]  # a lower faithfulness predicts "unfaithful"
        actual = [unfaithful(human) for human, _ in rows]
        figure = auroc(scores, actual)
        interval = bootstrap_interval(lambda s: auroc([scores[i] for i in s], [actual[i] for i in s]), len(rows))
        shown = "n/a" if figure is None else f"{figure:.2f}"
        print(f"AUROC, {name} (n={len(rows)}): {shown} {interval}")

    report("FaithBench binary label", judged, lambda h: h["binary_faithful"] == 0)
    report("binary label, Benign summaries left out", [j for j in judged if j[0]["worst_label"] != "Benign"],
           lambda h: h["binary_faithful"] == 0)
    report("seed reading: Consistent vs any unsupported span", judged, lambda h: h["worst_label"] != "Consistent")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
