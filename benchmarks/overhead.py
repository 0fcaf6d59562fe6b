"""What the graph itself costs, with the model taken out of the picture.

    python -m benchmarks.overhead [--items 50] [--latency-ms 50] [--levels 1,2,4,8,16] [--repeats 3]
                                  [--item-latency-ms 150] [--item-latency-levels 1,4] [--judgment-latency-ms 300]
                                  [--http-levels 1,2,4,8,16,32,64] [--out-dir bench-out]

The item is a rag item with all four metrics and 3 claims, judged in 7 calls (the judge lists
the claims, checks each, and makes the three single-call judgments; no embeddings), so figures
compare across versions whatever the defaults of claim extraction and similarity become.

1. Orchestration: an instant fake judge, items run one after another, through the sync API
   (`run_evaluation`) and the async one (`arun_evaluation`, what the batch uses); ms per item
   (wall and process CPU: CPU is the figure to read on a machine shared with other work), ms
   per node (from the trace), and peak Python memory (tracemalloc, in a separate pass).
   Beside it, the frameworks' floor for the same item (`benchmarks.framework_floor`): an empty
   LangGraph graph of the same shape whose judging nodes make the same number of bare
   `BaseChatModel.ainvoke` calls; what is left of the async CPU figure is ours. Its two parts
   measured apart (the empty graph; the calls outside any graph) are shown too.
2. Throughput: a fake judge with a fixed latency per call, N items at once through
   `graph.api.arun_evaluation` with the event loop's default executor, for each N in --levels;
   4 x N items a run, the median of --repeats runs (each run is kept in the report).
   An item's critical path is two calls (extract claims, then the claim checks in parallel,
   while the other judgments run beside them), so the ideal is N / (2 x latency) items per second.
   The floor graph (calls in its nodes, the same latency) runs the same levels, its runs
   alternated with ours: what the two frameworks alone reach on this machine.
3. An item's latency: a fake judge with `--item-latency-ms` per call (default 150, a judge's
   pace rather than a server's), N items at once for each N in --item-latency-levels, each
   item timed on its own from its start to its result (`item_latency`); the median and the
   slowest against the item's critical path (two calls: the claim list, then its checks), the
   median of --repeats runs. Then again with the single-call judgments slower than the claim
   list (`--judgment-latency-ms`, default 300: `SlowJudgmentsJudge`), whose critical path is
   the slower of the claims node (2 calls) and a judgment. With the claim checks as `Send`
   tasks an item also waited for the superstep's barrier (its slowest sibling judgment, the
   other items' CPU in that superstep) before any check: 450 ms there instead of 300; the
   claims node checks its claims as soon as they are listed (docs/architecture.md).
4. Over real HTTP: the batch CLI (`judgegraph evaluate items.jsonl --out ...` as `python -m judgegraph.cli`, a child process)
   against a local OpenAI-compatible fake server (`tests.support.fault_server`, every reply after the
   same latency), for each `--concurrency` in --http-levels: items/s, against the ideal (N items
   at once, each running at most N of its steps and N claim checks at once, as the batch does:
   2 latencies per item from N = 3, 7 at N = 1; see `cli_rounds`), and the client's CPU per model call (the
   child's user+system CPU from `wait4`, less what a run that judges nothing costs, i.e.
   start-up and imports, divided by the calls served). Each level judges about 4 s of items
   at its ideal pace (`http_items`: 16 to 256 items).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from judgegraph.graph.api import arun_evaluation, default_graph, run_evaluation
from judgegraph.run.context import JudgeContext

from benchmarks.framework_floor import framework_floor, graph_of_the_same_shape, run_floor_item
from tests.support.fakes import schema_of
from tests.support.latency_judge import FixedLatencyJudge, item
from tests.support.latency_judge import replies as step_replies

ROOT = Path(__file__).resolve().parents[1]
CRITICAL_PATH_CALLS = 2
"""extract_claims, then one round of parallel check_claim calls."""
SEVEN_CALLS = {"claim_extraction": "model", "embeddings": False}
"""The judge lists the claims and rates similarity itself: 7 calls for 3 claims (module docstring)."""


JUDGMENT_SCHEMAS = ("ContextRelevanceJudgment", "AnswerRelevanceJudgment", "AnswerRelevanceLabels",
                    "SimilarityJudgment")
"""The replies of the single-call judgments that run beside the claims node."""


class SlowJudgmentsJudge(FixedLatencyJudge):
    """The fixed-latency fake, with the single-call judgments taking `judgment_latency_s`: a
    judgment slower than the claim list, as with a real judge whose relevance replies are
    longer. With the claim checks as `Send` tasks the item waited for the slowest judgment
    before any check (superstep barrier): critical path max(claim list, judgment) + checks."""

    judgment_latency_s: float = 0.0

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        if schema_of(kwargs) in JUDGMENT_SCHEMAS and self.judgment_latency_s > self.latency_s:
            await asyncio.sleep(self.judgment_latency_s - self.latency_s)
        return await super()._agenerate(messages, stop, run_manager, **kwargs)


def _context(latency_s: float, claims: int, settings: dict | None = None,
             judgment_latency_s: float | None = None) -> tuple[JudgeContext, FixedLatencyJudge]:
    """The fake judge's context; `settings` are JudgeContext fields (the CLI passes SEVEN_CALLS,
    callers that pass none get the library's defaults); `judgment_latency_s`: the single-call
    judgments' latency when it differs (`SlowJudgmentsJudge`)."""
    model = (FixedLatencyJudge(latency_s=latency_s, claims=claims) if judgment_latency_s is None
             else SlowJudgmentsJudge(latency_s=latency_s, claims=claims, judgment_latency_s=judgment_latency_s))
    return JudgeContext(model=model, model_id=f"fake:{latency_s * 1000:g}ms", **(settings or {})), model


def _check(run) -> None:
    if run.result["evaluation_status"] != "success":
        raise RuntimeError(f"the fake judge's item did not succeed: {run.result}")


def _sequential(path: str, context: JudgeContext, items: int) -> list:
    """`items` runs one after another through the sync or the async API."""
    if path == "sync":
        return [run_evaluation(item(), model=context) for _ in range(items)]

    async def runs() -> list:
        return [await arun_evaluation(item(), model=context) for _ in range(items)]

    return asyncio.run(runs())


def _per_item_cost(path: str, context: JudgeContext, items: int, repeats: int = 5) -> dict:
    """ms per item, wall and CPU: the best of `repeats` batches (least disturbed by other work)."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        for run in _sequential(path, context, items):
            _check(run)
        walls.append((time.perf_counter() - wall) * 1000 / items)
        cpus.append((time.process_time() - cpu) * 1000 / items)
    return {"wall_ms_best": round(min(walls), 2), "wall_ms_median": round(statistics.median(walls), 2),
            "cpu_ms_best": round(min(cpus), 2), "cpu_ms_median": round(statistics.median(cpus), 2)}


def orchestration(items: int, claims: int, settings: dict | None = None) -> dict:
    """Per-item and per-node cost of the graph around an instant model."""
    context, model = _context(0.0, claims, settings)
    default_graph()
    for path in ("sync", "async"):  # warm-up: compilation, imports, template loading
        _sequential(path, context, 3)
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
        _check(run)
    paths = {path: _per_item_cost(path, context, max(10, items // 5)) for path in ("sync", "async")}
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
        "paths": paths,
        "nodes": {
            node: {"runs_per_item": round(len(values) / items, 2), "ms_mean": round(statistics.fmean(values), 3)}
            for node, values in per_node.items()
        },
        "peak_traced_memory_mb": round(peak / 2**20, 2),
        "model_calls_path": model.counts,
    }


async def items_per_s(judge_one: Callable[[], Awaitable[None]], concurrency: int, items: int) -> float:
    """Items/s of `items` runs of `judge_one`, `concurrency` at once."""
    gate = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with gate:
            await judge_one()

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(items)))
    return items / (time.perf_counter() - started)


async def _throughput(latency_s: float, claims: int, levels: list[int], executor_threads: int | None,
                      settings: dict | None, repeats: int = 1) -> dict:
    if executor_threads:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=executor_threads))
    context, model = _context(latency_s, claims, settings)
    floor = graph_of_the_same_shape(claims, FixedLatencyJudge(latency_s=latency_s, claims=claims))

    async def ours_one() -> None:
        _check(await arun_evaluation(item(), model=context))

    async def floor_one() -> None:
        await run_floor_item(floor, claims)

    await items_per_s(ours_one, 1, 2)  # warm-up
    await items_per_s(floor_one, 1, 2)
    rows = []
    for level in levels:
        items = max(8, 4 * level)
        ideal = level / (CRITICAL_PATH_CALLS * latency_s)
        ours, floors = [], []
        for _ in range(max(1, repeats)):  # alternated, so a busy minute slows both sides
            ours.append(await items_per_s(ours_one, level, items))
            floors.append(await items_per_s(floor_one, level, items))
        ours.sort()
        floors.sort()
        measured, floor_measured = statistics.median(ours), statistics.median(floors)
        rows.append({"concurrency": level, "items": items, "items_per_s": round(measured, 2),
                     "runs_items_per_s": [round(run, 2) for run in ours],
                     "ideal_items_per_s": round(ideal, 2), "efficiency": round(measured / ideal, 3),
                     "floor_items_per_s": round(floor_measured, 2),
                     "floor_runs_items_per_s": [round(run, 2) for run in floors],
                     "floor_efficiency": round(floor_measured / ideal, 3)})
        print(f"[throughput] {level} at once: {measured:.1f} items/s, median of {len(ours)} "
              f"({ours[0]:.1f}-{ours[-1]:.1f}; ideal {ideal:.1f}; the frameworks' floor "
              f"{floor_measured:.1f})", file=sys.stderr)
    return {"latency_ms": latency_s * 1000, "claims_per_item": claims, "repeats": max(1, repeats),
            "executor_threads": executor_threads or "asyncio default", "levels": rows,
            "model_calls_path": model.counts}


def throughput(latency_s: float, claims: int, levels: list[int], executor_threads: int | None = None,
               settings: dict | None = None, repeats: int = 1) -> dict:
    """Items/s for each number of items at once: the median of `repeats` runs of 4 x N items
    (a run that short is noisy on a shared machine; the runs are kept in the report)."""
    return asyncio.run(_throughput(latency_s, claims, levels, executor_threads, settings, repeats))


async def _item_latency(latency_s: float, claims: int, levels: list[int], settings: dict | None,
                        repeats: int, judgment_latency_s: float | None = None) -> dict:
    context, model = _context(latency_s, claims, settings, judgment_latency_s)
    critical_ms = max(CRITICAL_PATH_CALLS * latency_s, judgment_latency_s or 0.0) * 1000

    async def timed() -> float:
        started = time.perf_counter()
        _check(await arun_evaluation(item(), model=context))
        return (time.perf_counter() - started) * 1000

    await timed()  # warm-up
    rows = []
    for level in levels:
        medians, slowest = [], []
        for _ in range(max(1, repeats)):
            times = await asyncio.gather(*(timed() for _ in range(level)))
            medians.append(statistics.median(times))
            slowest.append(max(times))
        median_ms, slowest_ms = statistics.median(medians), statistics.median(slowest)
        rows.append({"concurrency": level, "median_ms": round(median_ms, 1), "slowest_ms": round(slowest_ms, 1),
                     "runs_median_ms": [round(value, 1) for value in sorted(medians)],
                     "critical_path_ms": round(critical_ms, 1), "ratio": round(median_ms / critical_ms, 3),
                     "slowest_ratio": round(slowest_ms / critical_ms, 3)})
        print(f"[item latency{', slow judgments' if judgment_latency_s else ''}] {level} at once: median {median_ms:.0f} ms, slowest {slowest_ms:.0f} ms "
              f"(critical path {critical_ms:.0f} ms: {median_ms / critical_ms:.3f}x)", file=sys.stderr)
    return {"latency_ms": latency_s * 1000, "judgment_latency_ms": (judgment_latency_s or latency_s) * 1000,
            "claims_per_item": claims, "repeats": max(1, repeats), "levels": rows}


def item_latency(latency_s: float, claims: int, levels: list[int], settings: dict | None = None,
                 repeats: int = 3, judgment_latency_s: float | None = None) -> dict:
    """Each item's wall time, N items at once, against its critical path (module docstring, 3):
    the claim list then its checks, or a slower single-call judgment (`judgment_latency_s`)."""
    return asyncio.run(_item_latency(latency_s, claims, levels, settings, repeats, judgment_latency_s))


# --- over real HTTP: the batch CLI against a fake OpenAI-compatible server --------------------

def _write_items(path: Path, count: int, start: int = 0) -> None:
    path.write_text("".join(json.dumps({"id": f"i{start + n}", **item()}) + "\n" for n in range(count)),
                    encoding="utf-8")


def _cli(items: Path, out: Path, base_url: str, concurrency: int) -> tuple[float, float, int]:
    """(wall s, child CPU s, exit code) of one batch CLI run."""
    command = [sys.executable, "-m", "judgegraph.cli", "evaluate", str(items), "--out", str(out),
               "--base-url", base_url, "--model", "fake-judge", "--concurrency", str(concurrency),
               "--claims", "model", "--no-embeddings", "--retries", "0"]
    env = dict(os.environ, OPENAI_API_KEY="not-needed", JUDGEGRAPH_MODEL="")
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=items.parent, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, child.returncode


FIRST_ROUND_CALLS = 4
"""Calls an item starts at once: the claim extraction and the three single-call judgments."""


def cli_rounds(concurrency: int, claims: int) -> int:
    """Latencies on an item's critical path in the batch CLI, where `--concurrency N` is also the
    item's `max_concurrency`: N of its steps at once, and N claim checks at once in the claims
    node. With N = 1, every call after the other (4 + claims). From N = 2, the slower of the
    claims node (the claim list, then ceil(claims / N) rounds of checks) and the three other
    judgments in the N - 1 slots the claims node leaves them (2 from N = 3 with 3 claims)."""
    others = FIRST_ROUND_CALLS - 1
    if concurrency == 1:
        return FIRST_ROUND_CALLS + claims
    return max(1 + -(-claims // concurrency), -(-others // (concurrency - 1)))


def cli_ideal_items_per_s(concurrency: int, claims: int, latency_s: float) -> float:
    """The batch CLI's ideal pace: `concurrency` items every `cli_rounds` latencies."""
    return concurrency / (cli_rounds(concurrency, claims) * latency_s)


HTTP_RUN_SECONDS = 4.0
"""Each --concurrency level judges about this long at its ideal pace (at most 256 items), so
one-off costs of a run's first calls (the HTTP client, TLS context, schema caches) do not
dominate the low levels, as they did with 16 items."""


def http_items(concurrency: int, claims: int, latency_s: float) -> int:
    """Items for one --concurrency level: at least 16 and 4 per slot, about HTTP_RUN_SECONDS of
    judging at the ideal pace, at most 256 (or 4 per slot, when that is more)."""
    ideal = cli_ideal_items_per_s(concurrency, claims, latency_s)
    return max(16, 4 * concurrency, min(256, round(HTTP_RUN_SECONDS * ideal)))


def http_batch(latency_s: float, claims: int, levels: list[int]) -> dict:
    """Batch CLI items/s and client CPU per call, per --concurrency, over HTTP (module docstring)."""
    sys.path.insert(0, str(ROOT))
    from tests.support.fault_server import FaultServer

    work = Path(tempfile.mkdtemp(prefix="judgegraph-overhead-"))
    rows = []
    replies = step_replies(claims)  # the in-process fake's replies: the same 7-call item
    with FaultServer(fault_rate=1.0, fault_modes=("slow",), slow_seconds=latency_s,
                     reply=lambda step, schema, body: replies[step]) as server:
        idle_items, idle_out = work / "idle.jsonl", work / "idle-out.jsonl"
        _write_items(idle_items, 1)
        _cli(idle_items, idle_out, server.base_url, 1)  # judged once: later runs of it judge nothing
        idle = [_cli(idle_items, idle_out, server.base_url, 1) for _ in range(2)]
        idle_wall, idle_cpu = min(w for w, _, _ in idle), min(c for _, c, _ in idle)
        for level in levels:
            count = http_items(level, claims, latency_s)
            items, out = work / f"items-{level}.jsonl", work / f"out-{level}.jsonl"
            _write_items(items, count)
            before = server.requests
            wall, cpu, code = _cli(items, out, server.base_url, level)
            calls = server.requests - before
            judged = sum(1 for line in out.read_text(encoding="utf-8").splitlines()
                         if json.loads(line)["result"].get("evaluation_status") == "success")
            if code != 0 or judged != count:
                raise RuntimeError(f"--concurrency {level}: exit {code}, {judged} of {count} items judged")
            seconds = max(1e-9, wall - idle_wall)
            ideal = cli_ideal_items_per_s(level, claims, latency_s)
            rows.append({"concurrency": level, "items": count, "calls": calls,
                         "items_per_s": round(count / seconds, 2), "ideal_items_per_s": round(ideal, 2),
                         "efficiency": round(count / seconds / ideal, 3),
                         "client_cpu_ms_per_call": round((cpu - idle_cpu) * 1000 / max(1, calls), 3)})
            print(f"[http] --concurrency {level}: {count / seconds:.1f} items/s (ideal {ideal:.1f}), "
                  f"{rows[-1]['client_cpu_ms_per_call']:.2f} ms client CPU per call", file=sys.stderr)
    return {"latency_ms": latency_s * 1000, "startup_wall_s": round(idle_wall, 2),
            "startup_cpu_s": round(idle_cpu, 2), "levels": rows}


def _floor_lines(floor: dict | None, orch: dict) -> list[str]:
    if not floor:
        return []
    cpu = orch["paths"]["async"]["cpu_ms_best"]
    return [
        f"**Frameworks' floor** for the same item (`benchmarks.framework_floor`, CPU ms, best of 5): "
        f"an empty LangGraph graph of the same shape ({floor['tasks_per_item']} tasks) whose judging "
        f"nodes make the item's {floor['calls_per_item']} `ainvoke` calls on the instant fake: "
        f"**{floor['floor_cpu_ms']:.2f}**; ours: {cpu:.2f}, **{cpu / floor['floor_cpu_ms']:.2f}x** "
        f"(ours less the floor: {cpu - floor['floor_cpu_ms']:.2f}).",
        f"Its parts measured apart: LangGraph alone (empty nodes) {floor['langgraph_cpu_ms']:.2f} + "
        f"LangChain alone (the same calls, bare, outside a graph) {floor['langchain_cpu_ms']:.2f} = "
        f"{floor['separate_cpu_ms']:.2f} (the floor older figures in docs/benchmarks.md use; ours "
        f"{cpu / floor['separate_cpu_ms']:.2f}x that).",
        "",
    ]


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
        "| API | wall ms per item (best, median) | CPU ms per item (best, median) |",
        "|---|---|---|",
        *(f"| {path} | {v['wall_ms_best']:.1f}, {v['wall_ms_median']:.1f} | {v['cpu_ms_best']:.1f}, {v['cpu_ms_median']:.1f} |"
          for path, v in orch.get("paths", {}).items()),
        "",
        *_floor_lines(report.get("framework_floor"), orch),
        "| node | runs per item | ms per run |",
        "|---|---|---|",
        *(f"| {node} | {v['runs_per_item']:g} | {v['ms_mean']:.2f} |" for node, v in orch["nodes"].items()),
    ]
    for run in report["throughput"]:
        lines += [
            "",
            f"**Throughput** (fake judge with {run['latency_ms']:g} ms per call, default executor: "
            f"{run['executor_threads']}; median of {run.get('repeats', 1)} run(s) per level; "
            f"model call path {run['model_calls_path']}):",
            "",
            "| items at once | items/s (median) | runs | ideal items/s | efficiency | the frameworks' floor: items/s, efficiency |",
            "|---|---|---|---|---|---|",
            *(f"| {r['concurrency']} | {r['items_per_s']:.1f} | "
              f"{' / '.join(f'{x:.1f}' for x in r.get('runs_items_per_s', [r['items_per_s']]))} | "
              f"{r['ideal_items_per_s']:.1f} | {r['efficiency']:.0%} | "
              f"{r['floor_items_per_s']:.1f}, {r['floor_efficiency']:.0%} |" for r in run["levels"]),
        ]
    for run in report.get("item_latency", []):
        lines += [
            "",
            f"**An item's latency** (fake judge with {run['latency_ms']:g} ms per call, the single-call "
            f"judgments {run['judgment_latency_ms']:g} ms, {run['claims_per_item']} "
            f"claims; each item timed from its start to its result; median of {run['repeats']} run(s)):",
            "",
            "| items at once | median ms | slowest ms | critical path ms | median / critical path | slowest / critical path |",
            "|---|---|---|---|---|---|",
            *(f"| {r['concurrency']} | {r['median_ms']:.0f} | {r['slowest_ms']:.0f} | {r['critical_path_ms']:.0f} | "
              f"{r['ratio']:.3f} | {r['slowest_ratio']:.3f} |" for r in run["levels"]),
        ]
    if report.get("http"):
        run = report["http"]
        lines += [
            "",
            f"**Batch CLI over HTTP** (fake OpenAI-compatible server, {run['latency_ms']:g} ms per call; "
            f"start-up of a run that judges nothing, subtracted: {run['startup_wall_s']:.1f} s wall, "
            f"{run['startup_cpu_s']:.1f} s CPU):",
            "",
            "| --concurrency | items | items/s | ideal items/s | efficiency | client CPU ms per call |",
            "|---|---|---|---|---|---|",
            *(f"| {r['concurrency']} | {r['items']} | {r['items_per_s']:.1f} | {r['ideal_items_per_s']:.1f} | "
              f"{r['efficiency']:.0%} | {r['client_cpu_ms_per_call']:.2f} |" for r in run["levels"]),
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=50, help="items for the orchestration pass (default 50)")
    parser.add_argument("--claims", type=int, default=3, help="claims per item (default 3)")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="fake latency per call (default 50)")
    parser.add_argument("--levels", default="1,2,4,8,16", help="items at once (default 1,2,4,8,16)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs per throughput level; the median is reported (default 3)")
    parser.add_argument("--executor-threads", type=int, default=None,
                        help="also measure with a default executor of this many threads")
    parser.add_argument("--item-latency-ms", type=float, default=150.0,
                        help="fake latency per call for an item's latency (default 150; 0 skips)")
    parser.add_argument("--item-latency-levels", default="1,4",
                        help="items at once for an item's latency (default 1,4)")
    parser.add_argument("--judgment-latency-ms", type=float, default=300.0,
                        help="also an item's latency with the single-call judgments this slow (default 300; 0 skips)")
    parser.add_argument("--http-levels", default="1,2,4,8,16,32,64",
                        help="batch CLI --concurrency values over HTTP (default 1,2,4,8,16,32,64; '' skips)")
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out"))
    args = parser.parse_args(argv)
    levels = [int(level) for level in args.levels.split(",") if level.strip()]
    latency = args.latency_ms / 1000
    report = {
        "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python -m benchmarks.overhead " + " ".join(argv),
        "orchestration": orchestration(args.items, args.claims, SEVEN_CALLS),
        "throughput": [throughput(latency, args.claims, levels, settings=SEVEN_CALLS, repeats=args.repeats)],
    }
    report["framework_floor"] = framework_floor(args.claims, round(report["orchestration"]["calls_per_item"]))
    latency_levels = [int(level) for level in args.item_latency_levels.split(",") if level.strip()]
    if args.item_latency_ms and latency_levels:
        report["item_latency"] = [item_latency(args.item_latency_ms / 1000, args.claims, latency_levels, SEVEN_CALLS,
                                               args.repeats)]
        if args.judgment_latency_ms:
            report["item_latency"].append(item_latency(args.item_latency_ms / 1000, args.claims, latency_levels,
                                                       SEVEN_CALLS, args.repeats, args.judgment_latency_ms / 1000))
    if args.executor_threads:
        report["throughput"].append(throughput(latency, args.claims, levels, args.executor_threads, SEVEN_CALLS,
                                               args.repeats))
    http_levels = [int(level) for level in args.http_levels.split(",") if level.strip()]
    if http_levels:
        report["http"] = http_batch(latency, args.claims, http_levels)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "overhead.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (args.out_dir / "overhead.md").write_text(markdown(report), encoding="utf-8")
    sys.stdout.write(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
