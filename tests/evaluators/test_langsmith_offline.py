"""With no LangSmith key, the evaluators and the LangSmith example never try the network; with
a key, LangSmith is left as it is.

The LangSmith endpoint is a loopback server that counts every request: langsmith's client asks
it for `GET /info` as soon as it starts its background uploader, so any client made for the
graph's runs (LangChain's tracer) or by `evaluate` shows up there."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgegraph.evaluators import create_rag_evaluator
from judgegraph.evaluators.langsmith_offline import local_client, untraced_when_nothing_can_be_uploaded
from tests.conftest import CONTEXT, happy_scripts
from tests.support import demo_judge, fakes
from tests.support.fault_server import FaultServer
from tests.support.recording_endpoint import RecordingEndpoint

ROOT = Path(__file__).resolve().parents[2]
KEYS = ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY")


@pytest.fixture
def langsmith_endpoint(monkeypatch):
    """A counting LangSmith endpoint, no key, tracing on, and no client cached by earlier tests."""
    from langsmith import run_trees

    endpoint = RecordingEndpoint()
    for name in (*KEYS, "LANGCHAIN_TRACING_V2"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGSMITH_ENDPOINT", endpoint.url)
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setattr(run_trees, "_CLIENT", None)
    yield endpoint
    endpoint.close()


@pytest.fixture
def uploaders(monkeypatch) -> list[bool]:
    """Every langsmith Client made, as whether it started the background uploader (which asks
    the endpoint for `/info` at once)."""
    from langsmith import client

    made: list[bool] = []
    original = client.Client.__init__

    def counting(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self.tracing_queue is not None)

    monkeypatch.setattr(client.Client, "__init__", counting)
    return made


def test_the_evaluator_called_without_a_key_makes_no_client_and_no_request(langsmith_endpoint, uploaders):
    rows = create_rag_evaluator(model=fakes.judge(**happy_scripts()))(
        inputs={"question": "Who founded Craigslist?"},
        outputs={"answer": "Craig Newmark founded Craigslist.", "context": CONTEXT})
    assert {row["key"]: row["score"] for row in rows}["faithfulness"] == 1.0
    time.sleep(0.5)  # time for an uploader's first request, had one been started
    assert uploaders == [] and langsmith_endpoint.requests == []


def test_evaluate_with_the_local_client_reaches_no_endpoint(langsmith_endpoint, uploaders):
    from langsmith import evaluate
    from langsmith.schemas import Example
    import datetime as dt
    import uuid

    examples = [Example(id=uuid.uuid4(), dataset_id=uuid.uuid4(), created_at=dt.datetime.now(dt.timezone.utc),
                        inputs={"question": "Who founded Craigslist?"}, outputs={"answer": "Craig Newmark"})]
    evaluator = create_rag_evaluator(model=fakes.judge(**happy_scripts()), metrics=["faithfulness"])
    results = list(evaluate(lambda inputs: {"answer": "Craig Newmark founded Craigslist.", "context": CONTEXT},
                            data=examples, evaluators=[evaluator], upload_results=False, client=local_client(),
                            max_concurrency=0))
    assert [(r.key, r.score) for r in results[0]["evaluation_results"]["results"]] == [("faithfulness", 1.0)]
    time.sleep(0.5)
    assert uploaders == [False]  # the local client only: no background uploader
    assert langsmith_endpoint.requests == []


def test_with_a_key_tracing_and_the_client_are_langsmiths_own(monkeypatch):
    from langsmith import run_helpers

    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-test-key")
    assert local_client() is None
    with run_helpers.tracing_context(enabled=True), untraced_when_nothing_can_be_uploaded():
        assert run_helpers.get_tracing_context()["enabled"] is True
    with run_helpers.tracing_context(enabled="local"), untraced_when_nothing_can_be_uploaded():
        assert run_helpers.get_tracing_context()["enabled"] is False  # evaluate(upload_results=False)
    monkeypatch.delenv("LANGSMITH_API_KEY")
    monkeypatch.setenv("LANGCHAIN_API_KEY", " ")  # blank: no key
    with run_helpers.tracing_context(enabled=True), untraced_when_nothing_can_be_uploaded():
        assert run_helpers.get_tracing_context()["enabled"] is False


def test_the_langsmith_example_runs_offline_without_touching_the_endpoint(langsmith_endpoint):
    env = {name: value for name, value in os.environ.items() if name not in (*KEYS, "LANGSMITH_TRACING")}
    env["LANGSMITH_ENDPOINT"] = os.environ["LANGSMITH_ENDPOINT"]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT.parent)]))
    with FaultServer(reply=demo_judge.reply) as judge:
        started = time.perf_counter()
        child = subprocess.run([sys.executable, str(ROOT / "examples" / "langsmith_evaluate.py"),
                                "--base-url", judge.base_url, "--model", "demo"],
                               capture_output=True, text=True, env=env, timeout=300, check=False)
        seconds = time.perf_counter() - started
    assert child.returncode == 0, child.stderr[-2000:]
    assert "Who founded Craigslist?" in child.stdout and "faithfulness" in child.stdout
    assert langsmith_endpoint.requests == [], langsmith_endpoint.requests
    assert "Failed to get info" not in child.stderr
    print(f"example: {seconds:.1f} s")
