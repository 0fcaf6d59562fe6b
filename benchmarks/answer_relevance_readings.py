"""Answer relevance under each reading, recomputed from one judging: graded vs written labels.

    python -m benchmarks.answer_relevance_readings \\
        bench-out/wikiqa_relevance/items-wikiqa_answer_relevance-tune-graph.jsonl --part tune

The graph's per-item file keeps each item's answer-relevance reply and its label probabilities
(`judge_answer_relevance` detail). This recomputes every item's score under the default profile
(parts answered and directness as expectations under P(answered) and P(direct / partial /
evasive)) and under `answered_from: labels` (the written labels, the rule before the graded
reading), through the node's own `score_from_signals`, with no judge call: the two readings
are compared on the very same replies (paired), with pairwise accuracy and AUROC over WikiQA's
question pairs and the paired interval of the difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from judgegraph.calibration.profile import AnswerRelevanceParameters, default_profile
from judgegraph.nodes.rag.answer_relevance import recorded_signals, score_from_signals
from judgegraph.schemas.rag import AnswerRelevanceJudgment
from judgegraph.stats import paired_bootstrap_interval

from benchmarks.datasets import select_rows
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.figures import query_pairs, ranking_figures
from benchmarks.split import PARTS
from benchmarks.wikiqa_relevance import BENCH, load_rows

NODE = "judge_answer_relevance"


def readings() -> dict[str, AnswerRelevanceParameters]:
    graded = default_profile().answer_relevance_parameters
    return {"graded (default)": graded, "written labels": graded.model_copy(update={"answered_from": "labels"})}


def recomputed(detail: dict, parameters: AnswerRelevanceParameters) -> float | None:
    """The item's score under `parameters` from its recorded reply (the WikiQA items' contexts
    are never empty)."""
    reply = detail.get(NODE)
    if not isinstance(reply, dict):
        return None
    judgment = AnswerRelevanceJudgment.model_validate(reply)
    return score_from_signals(judgment, recorded_signals(reply, judgment), False, parameters).score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.answer_relevance_readings",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("items", type=Path, help="the graph method's per-item file of a wikiqa_relevance run")
    parser.add_argument("--part", choices=PARTS, required=True)
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT)
    args = parser.parse_args(argv)
    outcomes = {record["id"]: record for record in map(json.loads, args.items.read_text(encoding="utf-8").splitlines())
                if record.get("detail")}
    rows = [row for row in select_rows(load_rows(args.mirror_root), BENCH, None, args.part) if row["id"] in outcomes]
    scored: dict[str, list[float | None]] = {
        name: [recomputed(outcomes[row["id"]]["detail"], parameters) for row in rows]
        for name, parameters in readings().items()}
    keep = [i for i in range(len(rows)) if all(scores[i] is not None for scores in scored.values())]
    kept_rows = [rows[i] for i in keep]
    report = {"items": str(args.items), "part": args.part, "judged": len(kept_rows), "readings": {}}
    pair_scores = {}
    for name, scores in scored.items():
        kept = [float(scores[i]) for i in keep]
        figures = ranking_figures(kept_rows, kept)
        ties = sum(1 for a, b in query_pairs(kept_rows, kept) if a == b)
        report["readings"][name] = {**figures, "tied_pairs": ties, "distinct_scores": len(set(kept))}
        pair_scores[name] = [1.0 if a > b else 0.5 if a == b else 0.0 for a, b in query_pairs(kept_rows, kept)]
    graded, labels = list(pair_scores)

    def mean_over(name):
        return lambda sample: sum(pair_scores[name][i] for i in sample) / len(sample)

    report["pairwise_difference"] = {
        "of": f"{graded} - {labels}",
        "value": round(sum(pair_scores[graded]) / len(pair_scores[graded])
                       - sum(pair_scores[labels]) / len(pair_scores[labels]), 4) if pair_scores[graded] else None,
        "ci": paired_bootstrap_interval(mean_over(labels), mean_over(graded), len(pair_scores[graded]))}
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
