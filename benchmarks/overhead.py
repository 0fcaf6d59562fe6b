"""What the graph itself costs, with the model taken out of the picture.

    python -m benchmarks.overhead [--items 50] [--latency-ms 50] [--levels 1,2,4,8,16] [--out-dir bench-out]

1. Orchestration: an instant fake judge, items run one after another; ms per item, ms per node
   (from the trace), and peak Python memory (tracemalloc, in a separate pass because tracing
   allocations slows everything down).
2. Throughput: a fake judge with a fixed latency per call, N items at once through
   `graph.api.arun_evaluation`, for each N in --levels. An item's critical path is two calls
   (extract claims, then the claim checks in parallel, while the other judgments run beside
   them), so the ideal is N / (2 x latency) items per second.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import tracemalloc
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from judgegraph.benchmarks.fake_models import FixedLatencyJudge, item
from judgegraph.graph.api import arun_evaluation, default_graph, run_evaluation
from judgegraph.graph.context import JudgeContext

CRITICAL_PATH_CALLS = 2
"""extract_claims, then one round of parallel check_claim calls."""


def _context(latency_s: float, claims: int) -> tuple[JudgeContext, FixedLatencyJudge]:
    model = FixedLatencyJudge(latency_s=latency_s, claims=claims)
    return JudgeContext(model=model, model_id=f"fake:{latency_s * 1000:g}ms"), model


def orchestration(items: int, claims: int) -> dict:
    """Per-item and per-node cost of the graph around an instant model."""
    context, model = _context(0.0, claims)
    default_graph()
    for _ in range(3):  # warm-up: compilation, imports, template loading
        run_evaluation(item(), model=context)
    per_item: list[float] = []
    per_node: dict[str, list[float]] = defaultdict(list)
    calls = 0
    for _ in range(items):
        started = time.perf_counter()
        run = run_evaluation(item(), model=context)
        per_item.append((time.perf_counter() - started) * 1000)
        calls += run.usage["calls"]
        for event in run.trace:
            per_node[event.node].append(event.duration_s * 1000)
        if run.result["evaluation_status"] != "success":
            raise RuntimeError(f"the fake judge's item did not succeed: {run.result}")
    tracemalloc.start()
    for _ in range(min(items, 10)):
        run_evaluation(item(), model=context)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "items": items,
        "claims_per_item": claims,
        "calls_per_item": calls / items,
        "ms_per_item_mean": round(statistics.fmean(per_item), 2),
        "ms_per_item_median": round(statistics.median(per_item), 2),
        "ms_per_item_p95": round(sorted(per_item)[int(0.95 * (len(per_item) - 1))], 2),
        "nodes": {
            node: {"runs_per_item": round(len(values) / items, 2), "ms_mean": round(statistics.fmean(values), 3)}
            for node, values in per_node.items()
        },
        "peak_traced_memory_mb": round(peak / 2**20, 2),
        "model_calls_path": model.counts,
    }


async def _run_level(context: JudgeContext, concurrency: int, items: int) -> float:
    gate = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with gate:
            run = await arun_evaluation(item(), model=context)
            if run.result["evaluation_status"] != "success":
                raise RuntimeError(f"the fake judge's item did not succeed: {run.result}")

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(items)))
    return time.perf_counter() - started


async def _throughput(latency_s: float, claims: int, levels: list[int], executor_threads: int | None) -> dict:
    if executor_threads:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=executor_threads))
    context, model = _context(latency_s, claims)
    await _run_level(context, 1, 2)  # warm-up
    rows = []
    for level in levels:
        items = max(8, 4 * level)
        seconds = await _run_level(context, level, items)
        ideal = level / (CRITICAL_PATH_CALLS * latency_s)
        measured = items / seconds
        rows.append({"concurrency": level, "items": items, "items_per_s": round(measured, 2),
                     "ideal_items_per_s": round(ideal, 2), "efficiency": round(measured / ideal, 3)})
        print(f"[throughput] {level} at once: {measured:.1f} items/s (ideal {ideal:.1f})", file=sys.stderr)
    return {"latency_ms": latency_s * 1000, "claims_per_item": claims,
            "executor_threads": executor_threads or "asyncio default", "levels": rows,
            "model_calls_path": model.counts}


def throughput(latency_s: float, claims: int, levels: list[int], executor_threads: int | None = None) -> dict:
    return asyncio.run(_throughput(latency_s, claims, levels, executor_threads))


def markdown(report: dict) -> str:
    orch = report["orchestration"]
    lines = [
        f"Date: {report['generated_at']} · command: `{report['command']}`",
        "",
        f"**Orchestration** (instant fake judge, {orch['items']} rag items, all four metrics, "
        f"{orch['claims_per_item']} claims, {orch['calls_per_item']:g} calls per item): "
        f"{orch['ms_per_item_mean']:.1f} ms per item (median {orch['ms_per_item_median']:.1f}, "
        f"p95 {orch['ms_per_item_p95']:.1f}); peak traced memory {orch['peak_traced_memory_mb']:.1f} MB.",
        "",
        "| node | runs per item | ms per run |",
        "|---|---|---|",
        *(f"| {node} | {v['runs_per_item']:g} | {v['ms_mean']:.2f} |" for node, v in orch["nodes"].items()),
    ]
    for run in report["throughput"]:
        lines += [
            "",
            f"**Throughput** (fake judge with {run['latency_ms']:g} ms per call, default executor: "
            f"{run['executor_threads']}; model call path {run['model_calls_path']}):",
            "",
            "| items at once | items/s | ideal items/s | efficiency |",
            "|---|---|---|---|",
            *(f"| {r['concurrency']} | {r['items_per_s']:.1f} | {r['ideal_items_per_s']:.1f} | {r['efficiency']:.0%} |"
              for r in run["levels"]),
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=50, help="items for the orchestration pass (default 50)")
    parser.add_argument("--claims", type=int, default=3, help="claims per item (default 3)")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="fake latency per call (default 50)")
    parser.add_argument("--levels", default="1,2,4,8,16", help="items at once (default 1,2,4,8,16)")
    parser.add_argument("--executor-threads", type=int, default=None,
                        help="also measure with a default executor of this many threads")
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out"))
    args = parser.parse_args(argv)
    levels = [int(level) for level in args.levels.split(",") if level.strip()]
    latency = args.latency_ms / 1000
    report = {
        "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python -m benchmarks.overhead " + " ".join(argv),
        "orchestration": orchestration(args.items, args.claims),
        "throughput": [throughput(latency, args.claims, levels)],
    }
    if args.executor_threads:
        report["throughput"].append(throughput(latency, args.claims, levels, args.executor_threads))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "overhead.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (args.out_dir / "overhead.md").write_text(markdown(report), encoding="utf-8")
    sys.stdout.write(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
