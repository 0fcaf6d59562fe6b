"""Hostile judges (issue #29): a reply that trickles, inflates, repeats a key, lies about its
types, refuses, or lists claims the answer never made.

Every case goes through the real CLI (in process) and real HTTP against the fake server on
127.0.0.1 (`tests.support.fault_server`), in single-item mode (the blocking httpx client) and
in batch mode (aiohttp on the batch's loop). docs/untrusted-input.md ("Replies from the judge")
says what each case becomes.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from judgegraph.commands import cli
from judgegraph.llm.bounded_http import MAX_REPLY_BYTES
from tests.support.fault_server import FaultServer, RawReply, default_reply

ITEM = {"question": "Capital of France?", "context": "Paris is the capital of France.",
        "answer": "Paris is the capital of France.", "reference": "Paris", "metrics": ["context_relevance"]}
"""One metric, one model call: each test's server serves exactly that call."""

CEILING_S = 60.0
"""A generous bound that only a deadline that never fires can exceed (each trickled reply below
would take minutes to arrive)."""


def _run(tmp_path: Path, server: FaultServer, *extra: str, batch: bool = False) -> tuple[dict, float]:
    item = tmp_path / ("items.jsonl" if batch else "item.json")
    item.write_text(json.dumps(dict(ITEM, id="one")) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = ["evaluate", str(item), "--base-url", server.base_url, "--model", "hostile", "--no-embeddings",
            "--retries", "0", "--max-repairs", "0", *extra]
    if batch:
        args += ["--out", str(out)]
    started = time.monotonic()
    code = cli.main(args)
    elapsed = time.monotonic() - started
    assert code == 0
    return (json.loads(out.read_text(encoding="utf-8").splitlines()[0]) if batch else None), elapsed


def _single(tmp_path, server, capsys, *extra) -> tuple[dict, float]:
    _, elapsed = _run(tmp_path, server, *extra)
    return json.loads(capsys.readouterr().out), elapsed


def _batch_metrics(record: dict) -> dict:
    return record.get("result", record)


@pytest.mark.parametrize("mode", ["trickle", "trickle_headers"])
def test_a_trickling_reply_fails_at_the_total_deadline_in_one_item_mode(tmp_path, capsys, mode):
    with FaultServer(script=[mode] * 10, trickle_seconds=0.3) as server:
        result, elapsed = _single(tmp_path, server, capsys, "--timeout", "1")
    assert result["context_relevance"] is None
    assert "timed out" in result["context_relevance_explanation"]
    assert server.requests == 1  # one attempt (--retries 0), ended by the deadline
    assert elapsed < CEILING_S


def test_a_trickling_reply_fails_at_the_total_deadline_in_a_batch(tmp_path):
    with FaultServer(script=["trickle"] * 10, trickle_seconds=0.3) as server:
        record, elapsed = _run(tmp_path, server, "--timeout", "1", batch=True)
    metrics = _batch_metrics(record)
    assert metrics["context_relevance"] is None
    assert "timed out" in json.dumps(record)
    assert server.requests == 1
    assert elapsed < CEILING_S


def test_a_gzip_reply_is_decoded(tmp_path, capsys):
    with FaultServer(script=["gzip"] * 10) as server:
        result, _ = _single(tmp_path, server, capsys)
    assert result["context_relevance"] is not None


@pytest.mark.parametrize("mode", ["gzip_bomb", "oversized"])
@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_a_reply_larger_than_the_limit_is_a_failed_call(tmp_path, capsys, mode, batch):
    with FaultServer(script=[mode] * 10, bomb_bytes=MAX_REPLY_BYTES + 1024) as server:
        record, _ = _run(tmp_path, server, batch=batch)
    text = json.dumps(record) if batch else capsys.readouterr().out
    assert "ReplyTooLarge" in text and f"{MAX_REPLY_BYTES:,} bytes" in text
    assert server.requests == 1  # not retried: the same server would send the same reply
