"""Model faults over real HTTP: the OpenAI SDK's retries (via ChatOpenAI's `max_retries`) and
clean failures, against the fault-injecting server in `tests.support.fault_server`.

These verify, rather than re-implement, what the SDK promises: timeouts, dropped connections,
429 and 5xx are retried with back-off, Retry-After is honoured, and when retries run out the
step fails cleanly (no exception, no hang). Every test keeps its wall time small.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from langchain_core.messages import HumanMessage

from judgegraph.commands import cli
from judgegraph.llm.models import openai_compatible
from judgegraph.llm.loop_local_http import batch_http_pool
from judgegraph.llm.steps import adrive
from judgegraph.llm.structured import run_structured_step, structured_step
from judgegraph.schemas.rag import ContextRelevanceJudgment, RagResult
from tests.support.fault_server import FaultServer, instance_for

MESSAGES = [HumanMessage(content="Judge the context relevance.")]


def ask(server: FaultServer, *, timeout: float = 2.0, retries: int = 2):
    model = openai_compatible(server.base_url, "fault-model", timeout=timeout, max_retries=retries).model
    started = time.monotonic()
    outcome = run_structured_step(model, MESSAGES, ContextRelevanceJudgment, max_repairs=0)
    return outcome, time.monotonic() - started


def ask_in_a_batch_loop(server: FaultServer, *, timeout: float = 2.0, retries: int = 2):
    """`ask`, awaited inside the batch's HTTP pool: the call goes through aiohttp."""
    model = openai_compatible(server.base_url, "fault-model", timeout=timeout, max_retries=retries).model

    async def call():
        async with batch_http_pool():
            return await adrive(structured_step(model, MESSAGES, ContextRelevanceJudgment, max_repairs=0))

    started = time.monotonic()
    outcome = asyncio.run(call())
    return outcome, time.monotonic() - started


def gaps(server: FaultServer) -> list[float]:
    times = [t for t, _ in server.arrivals]
    return [b - a for a, b in zip(times, times[1:])]


def test_429_is_retried_honouring_retry_after():
    # The SDK's own first back-off is 0.375-0.5 s; a wait of at least 0.85 s can only come from
    # the server's 900 ms (a lower bound only, so a loaded machine cannot make it flaky).
    with FaultServer(script=["429", "ok"], retry_after_ms=900) as server:
        outcome, _ = ask(server)
    assert outcome.ok and server.counts == {"429": 1, "ok": 1}
    assert gaps(server)[0] >= 0.85


def test_5xx_are_retried_until_they_pass():
    with FaultServer(script=["500", "503", "ok"], retry_after_ms=10) as server:
        outcome, seconds = ask(server, retries=2)
    assert outcome.ok and server.requests == 3 and seconds < 2


def test_dropped_connections_are_retried():
    with FaultServer(script=["drop", "ok"]) as server:
        outcome, seconds = ask(server, retries=1)
    assert outcome.ok and server.requests == 2 and seconds < 2


def test_slow_replies_time_out_retry_then_fail_cleanly():
    with FaultServer(script=["slow", "slow"], slow_seconds=3.0) as server:
        outcome, seconds = ask(server, timeout=0.3, retries=1)
    assert not outcome.ok and server.requests == 2
    assert "model call failed" in outcome.error and "Timeout" in outcome.error
    assert seconds < 2.0  # two 0.3 s timeouts and one back-off: never a hang


def test_retries_run_out_into_a_clean_failure():
    with FaultServer(script=["500"] * 3, retry_after_ms=10) as server:
        outcome, _ = ask(server, retries=2)
    assert not outcome.ok and server.requests == 3 and "500" in outcome.error


def test_a_malformed_body_is_a_clean_failure_not_a_crash():
    with FaultServer(script=["malformed"]) as server:
        outcome, _ = ask(server, retries=2)
    assert not outcome.ok and outcome.attempts[0].errors
    assert server.requests == 1  # a 200 with a broken body is not a transport fault: no retry


def test_prose_content_goes_through_repair():
    with FaultServer(script=["prose", "ok"]) as server:
        model = openai_compatible(server.base_url, "m", timeout=2, max_retries=0).model
        outcome = run_structured_step(model, MESSAGES, ContextRelevanceJudgment, max_repairs=1)
    assert outcome.ok and outcome.calls == 2


def test_unknown_schemas_get_a_minimal_valid_reply():
    schema = RagResult.model_json_schema()
    RagResult.model_validate(instance_for(schema))
    ContextRelevanceJudgment.model_validate(instance_for(ContextRelevanceJudgment.model_json_schema()))


def test_a_batch_against_a_faulty_server_writes_every_id_once(tmp_path, capsys):
    items = tmp_path / "items.jsonl"
    lines = [json.dumps({"id": f"q{i}", "question": f"What is {i}?", "context": f"{i} is a number.",
                         "answer": f"{i} is a number.", "reference": "a number"}) for i in range(16)]
    lines.insert(5, "{broken")
    items.write_text("\n".join(lines) + "\n")
    out = tmp_path / "results.jsonl"
    with FaultServer(fault_rate=0.3, seed=7, slow_seconds=1.5, retry_after_ms=5) as server:
        started = time.monotonic()
        code = cli.main(["evaluate", str(items), "--out", str(out), "--base-url", server.base_url,
                         "--model", "fault-model", "--timeout", "0.4", "--retries", "2",
                         "--concurrency", "4"])
        seconds = time.monotonic() - started
    assert code == 1  # a record failed: docs/exit-codes.md
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["id"] for r in got) == sorted([f"q{i}" for i in range(16)] + ["line-6"])
    for record in got:
        RagResult.model_validate(record["result"])
    assert sum(server.counts[m] for m in server.counts if m != "ok") > 0
    assert seconds < 30
    assert "Metrics over all 17 records" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["slow", "drop", "429", "500", "malformed"])
def test_every_fault_mode_ends_in_an_answer_or_a_clean_failure(mode):
    with FaultServer(script=[mode] * 2, slow_seconds=2.0, retry_after_ms=5) as server:
        outcome, seconds = ask(server, timeout=0.3, retries=1)
    assert seconds < 2.0 and server.counts["ok"] == 0
    assert not outcome.ok and outcome.error.startswith("model call failed")


@pytest.mark.parametrize("mode", ["slow", "drop", "429", "500", "malformed"])
def test_every_fault_mode_ends_the_same_way_through_the_batch_transport(mode):
    """The batch's aiohttp transport keeps the SDK's timeouts, retries and error mapping: the
    same requests, the same outcome and the same error as httpx, for a fault that persists and
    one that passes (a dropped connection too: `llm.loop_local_http._named_for_what_happened`)."""
    for script in ([mode] * 2, [mode, "ok"]):
        ends = []
        for asker in (ask, ask_in_a_batch_loop):
            with FaultServer(script=script, slow_seconds=2.0, retry_after_ms=5) as server:
                outcome, seconds = asker(server, timeout=0.3, retries=1)
                url = server.base_url
            assert seconds < 2.0
            # the error names the URL it was sent to (issue #28): each transport had its own server
            ends.append((outcome.ok, dict(server.counts), outcome.error and outcome.error.replace(url, "<server>")))
        assert ends[0] == ends[1], (script, ends)
