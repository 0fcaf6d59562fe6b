"""judgegraph's side: each (item, metric) judged by the graph with its defaults, in its own venv.

    python -m benchmarks.peers.judgegraph_side --items ... --scores ... --proxy-url URL --model NAME

The judge is the server behind the proxy, named as the CLI names it (`--base-url`, `--model`),
so it gets judgegraph's own defaults for a served model; embeddings come from the packaged
embedder in this process (the proxy serves the same model to the peers). Each metric is its
own graph run (`metrics: [m]`), as each peer metric is its own call, so every metric's calls,
tokens and seconds are its own; a run of all four at once shares work and costs less.
"""

from __future__ import annotations

import sys

from judgegraph.graph.api import run_evaluation
from judgegraph.llm.embeddings import context_embedder
from judgegraph.run.judge_builder import build_judge

from benchmarks.peers.records import METRICS, Metric, PeerItem
from benchmarks.peers.worker import chosen_metrics, read_items, run_side, set_session, worker_parser

METRIC_NAMES: dict[str, str] = {metric: metric for metric in METRICS}


def graph_item(item: PeerItem, metric: Metric) -> dict:
    graph = {"rubric": "rag", "question": item["question"], "context": item["context"], "answer": item["answer"],
             "metrics": [metric]}
    if item["reference"]:
        graph["reference"] = item["reference"]
    return graph


def main(argv: list[str] | None = None) -> int:
    args = worker_parser("python -m benchmarks.peers.judgegraph_side").parse_args(argv)
    set_session(args.proxy_url, {"item": "(setup)", "metric": None, "attempt": "setup-judgegraph"})
    context = build_judge(args.model, base_url=args.proxy_url)
    embedder = context_embedder(context)
    if embedder is not None:  # loaded before the first item, as the proxy's is: not in its seconds
        embedder.embed(["warm-up"])

    def score(item: PeerItem, metric: Metric) -> object:
        result = run_evaluation(graph_item(item, metric), model=context).result
        if result.get("evaluation_status") != "success":
            raise RuntimeError(str(result.get("error") or result.get("reason") or result.get("evaluation_status")))
        return result.get(metric)

    run_side("judgegraph", read_items(args.items), chosen_metrics(args.metrics), score, args.scores,
             args.proxy_url, METRIC_NAMES, show_tracebacks=args.traceback)
    return 0


if __name__ == "__main__":
    sys.exit(main())
