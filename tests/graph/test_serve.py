"""`langgraph dev` serves the graph named in langgraph.json; a langgraph_sdk client gets a result.

The server (langgraph-cli with the in-memory runtime) runs on 127.0.0.1 and judges with the
fake OpenAI-compatible server: once chosen by the environment (`OPENAI_BASE_URL`), once by the
run's context. Skipped when langgraph-cli[inmem] is absent, unless JUDGEGRAPH_REQUIRE_SERVE=1
(CI sets it): then that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.support.child_server import free_port, wait_until_ok
from tests.support.fault_server import FaultServer

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = shutil.which("langgraph")

if LANGGRAPH is None or find_spec("langgraph_api") is None or find_spec("langgraph_sdk") is None:
    if os.environ.get("JUDGEGRAPH_REQUIRE_SERVE") == "1":
        pytest.fail("JUDGEGRAPH_REQUIRE_SERVE=1 but langgraph-cli[inmem] is not installed "
                    "(pip install -e '.[serve]')", pytrace=False)
    pytest.skip("langgraph-cli[inmem] is not installed (pip install -e '.[serve]'); CI installs it",
                allow_module_level=True)


def test_langgraph_json_names_the_compiled_graph():
    config = json.loads((ROOT / "langgraph.json").read_text())
    module, _, name = config["graphs"]["judgegraph"].partition(":")
    assert (module, name) == ("judgegraph.graph.server", "graph")
    from judgegraph.graph.server import graph

    assert set(graph.get_input_jsonschema()["properties"]) == {"item", "rubric"}
    assert "model" in graph.get_context_jsonschema()["properties"]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """(env judge, context judge, base URL of `langgraph dev`)."""
    workdir = tmp_path_factory.mktemp("langgraph-dev")  # the in-memory runtime writes .langgraph_api here
    with FaultServer() as env_judge, FaultServer() as context_judge:
        port = free_port()
        env = dict(os.environ, OPENAI_BASE_URL=env_judge.base_url, OPENAI_API_KEY="not-needed",
                   JUDGEGRAPH_MODEL="env-model", LANGSMITH_TRACING="false", LANGGRAPH_CLI_NO_ANALYTICS="1",
                   LANGSMITH_ENDPOINT="http://127.0.0.1:9", PYTHONPATH=str(ROOT))
        env.pop("LANGSMITH_API_KEY", None)
        log = (workdir / "server.log").open("w")
        process = subprocess.Popen(
            [LANGGRAPH, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port),
             "--config", str(ROOT / "langgraph.json")],
            cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_ok(f"{url}/ok", process, 120,
                          lambda reason: f"langgraph dev {reason}:\n" + (workdir / "server.log").read_text()[-3000:])
            yield env_judge, context_judge, url
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)  # the server and the workers it started
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # our own process group only
                process.wait(timeout=20)
            log.close()
    assert process.returncode is not None


ITEM = {
    "question": "Who founded Craigslist?",
    "context": ["Craigslist is a classified advertisements website founded in 1995 by Craig Newmark."],
    "answer": "Craig Newmark founded Craigslist.",
    "reference": "Craig Newmark",
}


def test_a_client_gets_the_rubric_result_judged_by_the_environment_model(servers):
    from langgraph_sdk import get_sync_client

    env_judge, context_judge, url = servers
    client = get_sync_client(url=url)
    [assistant] = client.assistants.search(graph_id="judgegraph")
    thread = client.threads.create()
    output = client.runs.wait(thread["thread_id"], assistant["assistant_id"], input={"item": ITEM})
    result = output["result"]
    assert list(result) == ["faithfulness", "faithfulness_explanation", "context_relevance",
                            "context_relevance_explanation", "answer_relevance", "answer_relevance_explanation",
                            "semantic_similarity", "semantic_similarity_explanation", "evaluation_status",
                            "reason", "error"]
    # the fake judge's fixed replies: the one claim not in context; the answer "partly" in the
    # context (recall 0.5) with its one line useful (precision 1.0): 0.5*0.5 + 0.5*1.0; similarity
    # is the embedding cosine (no model call)
    assert result["evaluation_status"] == "success"
    assert (result["faithfulness"], result["context_relevance"], result["answer_relevance"]) == (0.0, 0.75, 1.0)
    assert 0.0 < result["semantic_similarity"] <= 1.0
    assert result["semantic_similarity_explanation"].startswith("Embedding cosine")
    # one claim check, context relevance, answer relevance (the default profile asks no second
    # reading of a one-claim answer the check did not support: its second-look band is closed)
    assert output["rubrics"] == ["rag"] and output["usage"]["calls"] == 3
    assert env_judge.base_url in output["model"] and "env-model" in output["model"]
    assert env_judge.requests == 3 and context_judge.requests == 0
    assert any(node["node"] == "check_claim" for node in output["trace"]["nodes"])


def test_the_runs_context_chooses_the_judge(servers):
    from langgraph_sdk import get_sync_client

    env_judge, context_judge, url = servers
    before = env_judge.requests
    client = get_sync_client(url=url)
    output = client.runs.wait(None, "judgegraph", input={"item": ITEM, "rubric": "rag"},
                              context={"model": "context-model", "base_url": context_judge.base_url,
                                       "claim_check": "batch"})
    assert output["result"]["evaluation_status"] == "success"
    assert context_judge.base_url in output["model"] and "context-model" in output["model"]
    assert context_judge.steps["BatchClaimChecks"] == 1 and context_judge.requests == 3
    assert env_judge.requests == before
