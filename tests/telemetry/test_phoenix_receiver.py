"""`evaluate --otel` into Arize Phoenix: the CLI exports a 3-item batch over OTLP/HTTP to a
Phoenix server on 127.0.0.1, and the test reads back from Phoenix's REST API what it stored.

Phoenix runs from a virtualenv of its own, named by JUDGEGRAPH_PHOENIX_PYTHON
(`tests.support.phoenix_server`; `.ci/run` builds it). Skipped when that is unset or has no
Phoenix, unless JUDGEGRAPH_REQUIRE_PHOENIX=1 (CI sets it): then that is a failure.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict

import pytest

from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer
from tests.support.otel_cli import read_records, run_cli, write_batch
from tests.support.phoenix_server import PYTHON_ENV, REQUIRE_ENV, PhoenixServer, phoenix_version

PROJECT = "judgegraph-ci"
SETUP_HINT = f"python3 -m venv VENV && VENV/bin/pip install arize-phoenix, then {PYTHON_ENV}=VENV/bin/python"


def phoenix_python() -> str:
    """The python to run Phoenix with; skips (fails under JUDGEGRAPH_REQUIRE_PHOENIX=1) without one."""
    python = os.environ.get(PYTHON_ENV, "")
    if python and phoenix_version(python):
        return python
    reason = (f"{PYTHON_ENV}={python} has no arize-phoenix" if python else f"{PYTHON_ENV} is not set") + f" ({SETUP_HINT})"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but {reason}", pytrace=False)
    pytest.skip(f"{reason}; CI sets it")


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    python = phoenix_python()
    with PhoenixServer(python, tmp_path_factory.mktemp("phoenix")) as server:
        yield server


@pytest.fixture(scope="module")
def judge():
    with FaultServer(reply=demo_reply) as server:
        yield server


def test_phoenix_holds_one_trace_per_item_with_the_records_token_counts(phoenix, judge, tmp_path):
    out = tmp_path / "out.jsonl"
    child = run_cli(["evaluate", str(write_batch(tmp_path / "batch.jsonl")), "--out", str(out),
                     "--base-url", judge.base_url, "--model", "demo", "--no-embeddings", "--otel", "--concurrency", "3"],
                    OTEL_EXPORTER_OTLP_ENDPOINT=phoenix.endpoint,
                    OTEL_RESOURCE_ATTRIBUTES=f"openinference.project.name={PROJECT}")
    assert child.returncode in (0, 1), child.stderr
    assert "failed to export" not in child.stderr.lower(), child.stderr
    records = read_records(out)
    calls = sum(r["usage"]["calls"] for r in records.values())
    spans = phoenix.wait_for_spans(PROJECT, until=lambda stored: _kinds(stored)["EVALUATOR"] >= len(records)
                                   and _kinds(stored)["LLM"] >= calls)

    traces = defaultdict(list)
    for span in spans:
        traces[span["context"]["trace_id"]].append(span)
    assert len(traces) == len(records) == 3, phoenix.log_tail()
    totals = {t["trace_id"]: t for t in phoenix.traces(PROJECT)}  # Phoenix's own sums over each trace
    seen = set()
    for trace_id, trace in traces.items():
        root, = [s for s in trace if s["parent_id"] is None]
        assert root["span_kind"] == "EVALUATOR"
        record = records[root["attributes"]["judgegraph.item.id"]]
        seen.add(record["id"])
        llm = [s for s in trace if s["span_kind"] == "LLM"]
        assert llm and len(llm) == record["usage"]["calls"]
        prompt = sum(s["attributes"]["llm.token_count.prompt"] for s in llm)
        completion = sum(s["attributes"]["llm.token_count.completion"] for s in llm)
        assert (prompt, completion) == (record["usage"]["input_tokens"], record["usage"]["output_tokens"])
        assert (totals[trace_id]["token_count_prompt"], totals[trace_id]["token_count_completion"]) == (prompt, completion)
        assert root["attributes"]["judgegraph.score.faithfulness"] == record["result"]["faithfulness"]
    assert seen == set(records)


def _kinds(spans: list[dict]) -> Counter:
    return Counter(span["span_kind"] for span in spans)
