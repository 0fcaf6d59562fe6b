"""Running one method (the graph, or the single-prompt baseline) over a set's items.

Each item yields an `ItemOutcome`: the score, whether it failed and why, and what it cost
(calls, tokens, seconds). A failure is data for the report, so nothing here lets one bad item
stop a run.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from judgegraph.batch.writer import ResultWriter, end_last_line, iter_records
from judgegraph.graph.api import run_evaluation
from judgegraph.run.context import JudgeContext

from benchmarks.baseline import run_baseline

Method = Literal["graph", "graph-labels", "baseline"]
METHODS: tuple[Method, ...] = ("graph", "graph-labels", "baseline")
"""`graph-labels` is the graph with answer relevance's labels reply read by its probabilities
(`with_labels_reply`), so the two replies can be judged side by side in one run."""


@dataclass
class ItemOutcome:
    """One item judged by one method."""

    id: str
    score: float | None
    failed: bool
    error: str | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    detail: dict | None = None
    """The signals behind the score (claim probabilities, support, grounding, conflicts,
    cosines...), so a combination rule can be studied on tune rows without new model calls."""

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, record: dict) -> "ItemOutcome":
        fields = {name: record.get(name) for name in cls.__dataclass_fields__ if name in record}
        return cls(**fields)


def add_judge_run_options(parser) -> None:
    """The judge's flags shared by the benchmarks that judge items themselves: the CLI's model
    and method options, and the repair / claim-check knobs `context_from_flags` reads."""
    from judgegraph.commands.cli import add_judge_method_options, add_model_options

    parser.add_argument("--max-repairs", type=int, default=2)
    parser.add_argument("--claim-check", default="per-claim")
    add_model_options(parser)
    add_judge_method_options(parser)


def _graph_detail(run) -> dict:
    """What the graph's nodes recorded, minus the bulky parts (no dataset text beyond claims)."""
    detail: dict = {}
    if run.verdicts:
        detail["claims"] = [
            {key: v.model_dump().get(key) for key in (
                "claim", "verdict", "model_verdict", "probabilities", "graded", "support", "grounding",
                "conflict", "critical", "error", "own_answer_agreement", "unstated_names", "names_rule")}
            for v in run.verdicts
        ]
    for event in run.trace:
        if event.node in ("judge_context_relevance", "judge_answer_relevance", "judge_semantic_similarity") and event.detail:
            detail[event.node] = event.detail
    return detail


def judge_with_graph(context: JudgeContext, metric: str, item_id: str, item: dict,
                     max_concurrency: int | None) -> ItemOutcome:
    started = time.perf_counter()
    try:
        run = run_evaluation(item, model=context, max_concurrency=max_concurrency)
    except Exception as error:  # noqa: BLE001 - a graph bug on one item is a counted failure
        return ItemOutcome(item_id, None, True, f"{type(error).__name__}: {error}",
                           seconds=time.perf_counter() - started)
    seconds = time.perf_counter() - started
    result = run.result
    score = result.get(metric)
    failed = score is None or result.get("evaluation_status") != "success"
    error = None
    if failed:
        error = result.get("error") or result.get("reason") or result.get(f"{metric}_explanation")
    usage = run.usage
    detail = _graph_detail(run)
    return ItemOutcome(item_id, score, failed, error, usage["calls"], usage["input_tokens"],
                       usage["output_tokens"], seconds, detail)


def with_labels_reply(context: JudgeContext) -> JudgeContext:
    """`context` under its own profile, but with answer relevance asking the labels reply and
    scoring from its probabilities (`reply: labels`, `answered_from: probabilities`), under the
    profile id `<id>+labels`; every other decision is the profile's."""
    profile = context.profile
    section = profile.section("answer_relevance")
    parameters = section.parameters.model_copy(update={"reply": "labels", "answered_from": "probabilities"})
    labels_profile = profile.model_copy(update={
        "id": f"{profile.id}+labels", "answer_relevance": section.model_copy(update={"parameters": parameters})})
    return replace(context, calibration=labels_profile)


def judge_with_graph_labels(context: JudgeContext, metric: str, item_id: str, item: dict,
                            max_concurrency: int | None) -> ItemOutcome:
    """`judge_with_graph` under `with_labels_reply(context)`: the same items, the other reply."""
    return judge_with_graph(with_labels_reply(context), metric, item_id, item, max_concurrency)


def judge_with_baseline(context: JudgeContext, metric: str, item_id: str, item: dict,
                        max_concurrency: int | None = None) -> ItemOutcome:
    """One call (plus repairs); `max_concurrency` only mirrors the graph judge's signature."""
    started = time.perf_counter()
    outcome = run_baseline(context, metric, item)
    seconds = time.perf_counter() - started
    score = outcome.value.score if outcome.value is not None else None
    return ItemOutcome(item_id, score, score is None, outcome.error, outcome.calls,
                       outcome.input_tokens, outcome.output_tokens, seconds)


JUDGES: dict[Method, Callable[..., ItemOutcome]] = {
    "graph": judge_with_graph,
    "graph-labels": judge_with_graph_labels,
    "baseline": judge_with_baseline,
}


def _finished(path: Path | None) -> dict[str, ItemOutcome]:
    """Outcomes already in a per-item file (a resumed run skips them); a partial last line
    left by a kill is cut away first (`batch.writer.end_last_line`)."""
    if path is None or not path.exists():
        return {}
    end_last_line(path, record_start=b'{"method": ')
    return {record["id"]: ItemOutcome.from_json(record) for _, record in iter_records(path)
            if record is not None and "id" in record}


def run_method(
    method: Method,
    context: JudgeContext,
    metric: str,
    items: list[tuple[str, dict]],
    *,
    concurrency: int = 1,
    graph_concurrency: int | None = None,
    label: str = "",
    items_path: Path | None = None,
) -> tuple[list[ItemOutcome], float]:
    """Judge every (id, item) with `method`; returns the outcomes in item order and wall seconds.

    `concurrency` items run at once (1 for a local model: its two cores are already busy);
    `graph_concurrency` bounds the parallel calls inside one graph run. With `items_path`,
    each outcome is appended there (fsync'd) as soon as it is known, and outcomes already in
    the file are reused: a run stopped after hours continues where it stopped.
    """
    judge = JUDGES[method]
    started = time.perf_counter()
    done = _finished(items_path)
    todo = [(n, item_id, item) for n, (item_id, item) in enumerate(items, 1) if item_id not in done]
    if done:
        print(f"[{label} {method}] resuming: {len(items) - len(todo)} of {len(items)} items already judged",
              file=sys.stderr, flush=True)
    writer = ResultWriter(items_path) if items_path is not None else None
    lock = threading.Lock()

    def one(position: int, item_id: str, item: dict) -> ItemOutcome:
        outcome = judge(context, metric, item_id, item, graph_concurrency)
        shown = "failed" if outcome.failed else f"{outcome.score:.2f}"
        print(f"[{label} {method} {position}/{len(items)}] {item_id}: {shown} "
              f"({outcome.calls} calls, {outcome.seconds:.1f}s)", file=sys.stderr, flush=True)
        if writer is not None:
            with lock:
                writer.write({"method": method, **outcome.to_json()})
        return outcome

    try:
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            futures = {item_id: pool.submit(one, n, item_id, item) for n, item_id, item in todo}
            fresh = {item_id: future.result() for item_id, future in futures.items()}
    finally:
        if writer is not None:
            writer.close()
    outcomes = [done.get(item_id) or fresh[item_id] for item_id, _ in items]
    return outcomes, time.perf_counter() - started
