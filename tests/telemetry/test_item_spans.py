"""Judged items recorded as OpenTelemetry traces, read back from the SDK's in-memory exporter.

The judge is the demo judge (a real HTTP server on 127.0.0.1 with word-overlap replies and
token counts in `usage`); the spans are compared with what the records and `--details` traces
say, never with hard-coded figures.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from judgegraph.batch.item_judging import judge_entry
from judgegraph.commands import batch as batch_command
from judgegraph.commands.cli import main
from judgegraph.run.judge_builder import build_judge
from judgegraph.telemetry import exporter as exporter_module
from judgegraph.telemetry.exporter import ItemTracer
from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer

ROOT = Path(__file__).resolve().parents[2]
ITEMS = [json.loads(line) for line in (ROOT / "examples" / "batch.jsonl").read_text().splitlines()[:3]]


@pytest.fixture(scope="module")
def judge():
    with FaultServer(reply=demo_reply) as server:
        yield server


def by_trace(spans) -> dict[str, list]:
    traces = defaultdict(list)
    for span in spans:
        traces[format(span.context.trace_id, "032x")].append(span)
    return traces


def kind(span) -> str:
    return span.attributes["openinference.span.kind"]


def test_one_item_is_one_trace_with_a_span_per_step_and_an_llm_span_per_call(judge):
    spans_out = InMemorySpanExporter()
    tracer = ItemTracer(spans_out)
    context = build_judge("demo", base_url=judge.base_url, embeddings=False)
    item = ITEMS[0]  # craigslist: one of its claims is contradicted by the context
    record = asyncio.run(judge_entry(item["id"], 1, item, context, rubric=None, concurrency=4, details=True,
                                     telemetry=tracer))
    tracer.close()
    spans = spans_out.get_finished_spans()
    assert len(by_trace(spans)) == 1

    roots = [s for s in spans if s.parent is None]
    assert len(roots) == 1
    root = roots[0]
    assert kind(root) == "EVALUATOR" and root.name == "judgegraph.evaluate"
    assert root.attributes["judgegraph.item.id"] == "craigslist"
    assert root.attributes["judgegraph.item.line"] == 1
    assert tuple(root.attributes["judgegraph.rubric"]) == ("rag",)
    for metric in ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity"):
        assert root.attributes[f"judgegraph.score.{metric}"] == record["result"][metric]
    assert json.loads(root.attributes["output.value"]) == record["result"]
    assert json.loads(root.attributes["input.value"])["question"] == item["question"]

    nodes = record["details"]["nodes"]
    steps = [s for s in spans if s.parent is not None and s.parent.span_id == root.context.span_id]
    assert sorted(s.name for s in steps) == sorted(n["node"] for n in nodes)
    assert all(kind(s) == "CHAIN" for s in steps)
    llm = [s for s in spans if kind(s) == "LLM"]
    assert len(llm) == record["usage"]["calls"] == sum(len(n["attempts"]) for n in nodes)
    step_ids = {s.context.span_id for s in steps}
    assert all(s.parent.span_id in step_ids for s in llm)

    usage = record["usage"]
    assert sum(s.attributes["gen_ai.usage.input_tokens"] for s in llm) == usage["input_tokens"]
    assert sum(s.attributes["gen_ai.usage.output_tokens"] for s in llm) == usage["output_tokens"]
    assert sum(s.attributes["llm.token_count.prompt"] for s in llm) == usage["input_tokens"]
    assert sum(s.attributes["llm.token_count.completion"] for s in llm) == usage["output_tokens"]
    assert root.attributes["judgegraph.usage.input_tokens"] == usage["input_tokens"]
    for span in llm:
        assert span.attributes["gen_ai.operation.name"] == "chat"
        assert span.attributes["gen_ai.request.model"] == span.attributes["llm.model_name"] == "demo"
        assert span.attributes["llm.token_count.total"] == (span.attributes["llm.token_count.prompt"]
                                                           + span.attributes["llm.token_count.completion"])
        assert span.attributes["output.value"]  # the raw reply
        assert span.name == "chat demo"

    unsupported = [v for v in record["details"]["verdicts"] if not v["supported"]]
    assert unsupported  # the item was chosen for its contradicted claim
    events = [e for e in root.events if e.name == "judgegraph.claim.failed"]
    assert [e.attributes["judgegraph.claim.text"] for e in events] == [v["claim"] for v in unsupported]
    assert root.attributes["judgegraph.claims.failed"] == len(unsupported)

    for span in spans:  # every span inside its item's time, each step as long as its node ran
        assert root.start_time <= span.start_time <= span.end_time <= root.end_time
    claim_checks = [s for s in steps if s.name == "check_claim"]
    assert {s.attributes["judgegraph.claim"] for s in claim_checks} == {v["claim"] for v in record["details"]["verdicts"]}


def test_three_items_judged_at_once_are_three_separate_traces(judge, tmp_path, monkeypatch):
    spans_out = InMemorySpanExporter()
    monkeypatch.setattr(batch_command, "open_item_tracer", lambda: ItemTracer(spans_out))
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code = main(["evaluate", str(batch), "--out", str(out), "--base-url", judge.base_url, "--model", "demo",
                 "--no-embeddings", "--otel", "--concurrency", "3"])
    assert code in (0, 1)
    records = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    traces = by_trace(spans_out.get_finished_spans())
    assert len(traces) == 3

    roots = {}
    for spans in traces.values():
        root, = [s for s in spans if s.parent is None]
        item_id = root.attributes["judgegraph.item.id"]
        roots[item_id] = root
        ids = {s.context.span_id for s in spans}
        assert all(s.parent.span_id in ids for s in spans if s.parent is not None)  # no parent in another trace
        llm = [s for s in spans if kind(s) == "LLM"]
        assert sum(s.attributes["gen_ai.usage.input_tokens"] for s in llm) == records[item_id]["usage"]["input_tokens"]
        assert sum(s.attributes["gen_ai.usage.output_tokens"] for s in llm) == records[item_id]["usage"]["output_tokens"]
        item = next(i for i in ITEMS if i["id"] == item_id)
        for check in (s for s in spans if s.name == "check_claim"):  # its claims come from its own answer
            assert check.attributes["judgegraph.claim"].rstrip(".") in item["answer"]
    assert set(roots) == {item["id"] for item in ITEMS}
    first_end = min(r.end_time for r in roots.values())
    assert sum(r.start_time < first_end for r in roots.values()) >= 2  # they were judged at the same time


def test_a_fault_while_building_spans_is_a_warning_and_the_record_is_unchanged(judge, monkeypatch, caplog):
    context = build_judge("demo", base_url=judge.base_url, embeddings=False)
    item = ITEMS[1]
    plain = asyncio.run(judge_entry(item["id"], 2, item, context, rubric=None, concurrency=4))

    def broken(*_args, **_kwargs):
        raise RuntimeError("collector exploded")

    monkeypatch.setattr(exporter_module, "record_item", broken)
    tracer = ItemTracer(InMemorySpanExporter())
    with caplog.at_level(logging.WARNING, logger="judgegraph.telemetry"):
        traced = asyncio.run(judge_entry(item["id"], 2, item, context, rubric=None, concurrency=4, telemetry=tracer))
    tracer.close()
    assert {k: v for k, v in traced.items() if k != "usage"} == {k: v for k, v in plain.items() if k != "usage"}
    assert {k: v for k, v in traced["usage"].items() if k != "seconds"} == \
        {k: v for k, v in plain["usage"].items() if k != "seconds"}
    assert "collector exploded" in caplog.text


def test_an_item_whose_judging_raised_is_a_root_span_with_an_error_status(judge, monkeypatch):
    from judgegraph.graph import api

    async def crash(*_args, **_kwargs):
        raise ValueError("a bug in a node")

    monkeypatch.setattr(api, "arun_evaluation", crash)
    spans_out = InMemorySpanExporter()
    tracer = ItemTracer(spans_out)
    context = build_judge("demo", base_url=judge.base_url, embeddings=False)
    record = asyncio.run(judge_entry("x", 1, ITEMS[0], context, rubric=None, concurrency=1, telemetry=tracer))
    tracer.close()
    root, = spans_out.get_finished_spans()
    assert "internal_error" in record
    assert root.status.status_code == StatusCode.ERROR
    assert root.attributes["judgegraph.internal_error"] == record["internal_error"]


def test_every_text_attribute_is_bounded_for_a_huge_id_and_huge_binary_text(judge):
    """The id is the user's text too: a 100,000-character id is cut like any other text."""
    from judgegraph.telemetry.attributes import LIST_LIMIT, TEXT_LIMIT

    spans_out = InMemorySpanExporter()
    tracer = ItemTracer(spans_out)
    context = build_judge("demo", base_url=judge.base_url, embeddings=False)
    item = {**ITEMS[0], "answer": ITEMS[0]["answer"] + " \x00\x1b[31m\x07" * 20_000, "extra": ["\ufeff"] * 1_000}
    huge_id = "i" * 100_000
    record = asyncio.run(judge_entry(huge_id, 1, item, context, rubric=None, concurrency=4, telemetry=tracer))
    tracer.close()
    assert record["id"] == huge_id
    spans = spans_out.get_finished_spans()
    values = [value for span in spans for value in span.attributes.values()]
    values += [value for span in spans for event in span.events for value in event.attributes.values()]
    texts = [text for value in values for text in (value if isinstance(value, tuple) else (value,))
             if isinstance(text, str)]
    assert max(len(text) for text in texts) <= TEXT_LIMIT
    assert all(len(value) <= LIST_LIMIT for value in values if isinstance(value, tuple))
    root = next(span for span in spans if kind(span) == "EVALUATOR")
    assert root.attributes["judgegraph.item.id"].startswith("iiii")


def test_claim_check_spans_start_when_the_extraction_ended(judge):
    """The claims node lists the claims, then checks them (one node run, several steps): each
    check's span starts when the extraction's ended, not with the node (docs/tracing.md)."""
    spans_out = InMemorySpanExporter()
    tracer = ItemTracer(spans_out)
    context = build_judge("demo", base_url=judge.base_url, embeddings=False, claim_extraction="model")
    item = ITEMS[0]
    asyncio.run(judge_entry(item["id"], 1, item, context, rubric=None, concurrency=4, details=True,
                            telemetry=tracer))
    tracer.close()
    spans = spans_out.get_finished_spans()
    extraction = next(s for s in spans if s.name == "extract_claims")
    checks = [s for s in spans if s.name == "check_claim"]
    assert checks and extraction.end_time > extraction.start_time
    assert all(check.start_time >= extraction.end_time for check in checks)
