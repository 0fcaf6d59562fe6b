"""`evaluate --otel` against a real OTLP/HTTP receiver on 127.0.0.1, in a child process as a
user runs it: the spans travel as protobuf over HTTP to `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`
and are read back decoded (`tests.support.otlp_receiver`, on `opentelemetry-proto`)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer
from tests.support.otel_cli import ROOT, read_records, run_cli, write_batch
from tests.support.otlp_receiver import OtlpReceiver


@pytest.fixture(scope="module")
def judge():
    with FaultServer(reply=demo_reply) as server:
        yield server


def traces_of(spans: list[dict]) -> dict[str, list[dict]]:
    traces = defaultdict(list)
    for span in spans:
        traces[span["trace_id"]].append(span)
    return traces


def test_a_three_item_batch_arrives_as_three_traces_with_the_records_token_counts(judge, tmp_path):
    batch = write_batch(tmp_path / "batch.jsonl")
    out = tmp_path / "out.jsonl"
    with OtlpReceiver() as receiver:
        child = run_cli(["evaluate", str(batch), "--out", str(out), "--base-url", judge.base_url, "--model", "demo",
                         "--no-embeddings", "--otel", "--concurrency", "3"],
                        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint, OTEL_EXPORTER_OTLP_HEADERS="x-team=judges",
                        OTEL_SERVICE_NAME="judge-ci")
        spans = list(receiver.spans)  # the command flushed before it exited
        headers = list(receiver.headers)
    assert child.returncode in (0, 1), child.stderr
    records = read_records(out)
    traces = traces_of(spans)
    assert len(traces) == 3
    assert headers and all(h["x-team"] == "judges" for h in headers)  # OTEL_EXPORTER_OTLP_HEADERS honoured
    seen = set()
    for trace in traces.values():
        root, = [s for s in trace if s["parent_span_id"] is None]
        assert root["attributes"]["openinference.span.kind"] == "EVALUATOR"
        assert root["resource"]["service.name"] == "judge-ci"
        record = records[root["attributes"]["judgegraph.item.id"]]
        seen.add(record["id"])
        llm = [s for s in trace if s["attributes"]["openinference.span.kind"] == "LLM"]
        assert len(llm) == record["usage"]["calls"]
        assert sum(s["attributes"]["gen_ai.usage.input_tokens"] for s in llm) == record["usage"]["input_tokens"]
        assert sum(s["attributes"]["gen_ai.usage.output_tokens"] for s in llm) == record["usage"]["output_tokens"]
        assert root["attributes"]["judgegraph.score.faithfulness"] == record["result"]["faithfulness"]
    assert seen == set(records)


def test_one_item_with_the_environment_switch_is_one_trace(judge):
    with OtlpReceiver() as receiver:
        child = run_cli(["evaluate", str(ROOT / "examples" / "rag_item.json"), "--base-url", judge.base_url,
                         "--model", "demo", "--no-embeddings"],
                        JUDGEGRAPH_OTEL="1", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"{receiver.endpoint}/v1/traces")
        spans = list(receiver.spans)
    assert child.returncode == 0, child.stderr
    result = json.loads(child.stdout)
    traces = traces_of(spans)
    assert len(traces) == 1
    root, = [s for s in spans if s["parent_span_id"] is None]
    assert root["attributes"]["judgegraph.item.id"] == "rag_item.json"
    assert root["attributes"]["judgegraph.score.context_relevance"] == result["context_relevance"]


def test_an_unreachable_collector_changes_no_result_and_is_a_warning(judge, tmp_path):
    batch = write_batch(tmp_path / "batch.jsonl")
    with OtlpReceiver() as closed:
        dead = closed.endpoint  # a port nothing listens on once the receiver stopped
    outputs = {}
    for name, extra in (("plain", []), ("otel", ["--otel"])):
        out = tmp_path / f"{name}.jsonl"
        child = run_cli(["evaluate", str(batch), "--out", str(out), "--base-url", judge.base_url, "--model", "demo",
                         "--no-embeddings", "--concurrency", "3", *extra],
                        OTEL_EXPORTER_OTLP_ENDPOINT=dead, OTEL_EXPORTER_OTLP_TIMEOUT="1")
        outputs[name] = (child.returncode, _without_timing(out))
        if name == "otel":  # issue 54: one line of ours, not the SDK's retries (was: its warnings)
            assert _receiver_lines(child.stderr) == [
                f"judgegraph: OpenTelemetry receiver {dead}/v1/traces cannot be reached (connection refused): no "
                "spans are exported this run (docs/tracing.md)"], child.stderr
    assert outputs["otel"] == outputs["plain"]


def _receiver_lines(stderr: str) -> list[str]:
    """The lines of stderr about the export: ours, and any raw OpenTelemetry or urllib3 text."""
    raw = ("opentelemetry", "transient error", "httpconnectionpool", "urllib3", "failed to export", "retrying")
    return [line for line in stderr.splitlines() if "OpenTelemetry receiver" in line or any(
        word in line.lower() for word in raw)]


def test_a_down_receiver_is_one_line_and_the_item_is_still_judged(judge):
    """Issue 54: a one-item run with the receiver down says so once and exports nothing, without
    the exporter's retries (some 20 s) or its raw urllib3 messages."""
    with OtlpReceiver() as closed:
        dead = f"{closed.endpoint}/v1/traces"
    child = run_cli(["evaluate", str(ROOT / "examples" / "rag_item.json"), "--base-url", judge.base_url,
                     "--model", "demo", "--no-embeddings", "--otel"], OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=dead)
    assert child.returncode == 0, child.stderr
    assert json.loads(child.stdout)["evaluation_status"] == "success"
    assert _receiver_lines(child.stderr) == [
        f"judgegraph: OpenTelemetry receiver {dead} cannot be reached (connection refused): no spans are exported "
        "this run (docs/tracing.md)"], child.stderr


def _without_timing(path: Path) -> list[dict]:
    records = []
    for record in map(json.loads, path.read_text().splitlines()):
        record["usage"].pop("seconds")
        records.append(record)
    return sorted(records, key=lambda r: r["id"])


def test_a_receiver_that_goes_down_during_the_run_is_one_line(monkeypatch, caplog):
    """Issue 54: the exporter's retries and raw messages are held back while the tracer is open;
    the first failure is one judgegraph line, and the SDK's loggers are left as they were."""
    import logging

    from judgegraph.telemetry.exporter import EXPORTER_LOGGERS, ItemTracer

    with OtlpReceiver() as receiver:
        endpoint = f"{receiver.endpoint}/v1/traces"
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
        tracer = ItemTracer()  # the receiver is there when the run starts
    with tracer.tracer.start_as_current_span("judged item"):
        pass
    with caplog.at_level(logging.DEBUG):
        tracer.close()  # ... and gone when the spans are flushed
    lines = [(record.name, record.getMessage()) for record in caplog.records if record.levelno >= logging.WARNING]
    assert lines == [("judgegraph.telemetry", f"judgegraph: OpenTelemetry export to {endpoint} failed; spans may "
                      "be missing (later export failures are not repeated)")]
    assert all(not logging.getLogger(name).filters for name in EXPORTER_LOGGERS)
