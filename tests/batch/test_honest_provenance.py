"""Issue #28, honest provenance and defaults: a profile is matched on the judge's identity, not
on how its URL is spelled; a run without the embedding model says so (stderr, summary) and its
records say `"embeddings": false`; the wrong-number cap on similarity holds without embeddings;
the served graph resolves `provider:name` as the CLI does and refuses an unknown provider."""

from __future__ import annotations

import asyncio
import json

import pytest

from judgegraph.calibration.profile import (
    ProfileMismatchError,
    check_judge,
    default_profile,
    judge_identity,
    same_judge,
    shipped_profile_for,
    write_profile,
)
from judgegraph.local_model.server import served_name
from judgegraph.commands import cli
from judgegraph.llm import embeddings
from judgegraph.llm.models import ModelConfigError
from tests.support.fakes import answer_relevance, claims, context_relevance, judge, similarity, verdict
from tests.support.fault_server import FaultServer
from tests.support.scripted_server import MODEL_NAME, ScriptedEndpoint
from tests.batch.test_batch_runner import rag_item, rag_judge, records, write_lines

# --- profile identity --------------------------------------------------------------------------------

def test_the_judge_identity_leaves_the_url_out():
    assert judge_identity("openai-compatible:qwen@http://127.0.0.1:8011/v1") == "openai-compatible:qwen"
    assert judge_identity("openai-compatible:qwen@http://localhost:8011/v1") == "openai-compatible:qwen"
    assert judge_identity("local:qwen2.5-coder-1.5b-instruct-q4_k_m") == "local:qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert judge_identity("openai:gpt-4o-mini") == "openai:gpt-4o-mini"


def test_the_embedded_judge_served_over_http_gets_its_own_profile():
    """`serve-local` names the model by its weights, so a client at its URL is the same judge as
    the in-process embedded one and gets the profile fitted for it, not the default."""
    served = served_name("/home/u/.cache/judgegraph/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    assert served == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    embedded = shipped_profile_for("local:qwen2.5-coder-1.5b-instruct-q4_k_m")
    assert embedded is not None and embedded.id != default_profile().id
    assert shipped_profile_for(f"openai-compatible:{served}@http://127.0.0.1:8090/v1") == embedded
    assert same_judge("local:/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", f"openai-compatible:{served}")
    # another served model, or a hosted one of a similar name, is not that judge
    assert shipped_profile_for("openai-compatible:local-judge@http://127.0.0.1:8090/v1") is None
    assert not same_judge("local:qwen2.5-coder-1.5b-instruct-q4_k_m", "openai:qwen2.5-coder-1.5b-instruct-q4_k_m")


def _profile_for(judge_model: str, tmp_path):
    profile = default_profile().model_copy(update={"id": "fitted-at-127", "judge_model": judge_model})
    path = tmp_path / "profile.json"
    write_profile(profile, path)
    return profile, path


def test_a_profile_fitted_at_127_0_0_1_is_accepted_at_localhost_for_the_same_model(tmp_path):
    profile, _ = _profile_for("openai-compatible:qwen@http://127.0.0.1:8011/v1", tmp_path)
    check_judge(profile, "openai-compatible:qwen@http://localhost:8011/v1")
    with pytest.raises(ProfileMismatchError, match="not openai-compatible:other@http://localhost:8011/v1"):
        check_judge(profile, "openai-compatible:other@http://localhost:8011/v1")


def test_the_cli_applies_a_profile_through_another_spelling_of_its_server(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(rag_item()), encoding="utf-8")
    trace = tmp_path / "trace.json"
    with ScriptedEndpoint(rag_judge()) as endpoint:
        _, path = _profile_for(f"openai-compatible:{MODEL_NAME}@{endpoint.base_url}", tmp_path)
        localhost = endpoint.base_url.replace("127.0.0.1", "localhost")
        code = cli.main(["evaluate", str(item), "--base-url", localhost, "--model", MODEL_NAME,
                         "--calibration", str(path), "--trace-out", str(trace)])
        assert code == 0, capsys.readouterr().err
        assert json.loads(trace.read_text())["profile"] == "fitted-at-127"
        code = cli.main(["evaluate", str(item), "--base-url", localhost, "--model", "renamed-model",
                         "--calibration", str(path)])
    assert code == 2 and "--allow-profile-mismatch" in capsys.readouterr().err


# --- without the embedding model ------------------------------------------------------------------------

@pytest.fixture
def no_embedding_package(monkeypatch):
    """The `[embeddings]` extra as if it were not installed."""
    real = embeddings.find_spec
    monkeypatch.setattr(embeddings, "find_spec",
                        lambda name: None if name == embeddings.DEFAULT_EMBEDDING_PACKAGE else real(name))
    monkeypatch.setattr(embeddings, "default_embedder", lambda: None)  # what it returns then


WRONG_YEAR = {"id": "y", "question": "When did the documentary come out?",
              "context": "24 Hours on Craigslist is a 2005 documentary.",
              "answer": "The documentary came out in 2007.", "reference": "It came out in 2005."}


def _year_judge():
    return judge(extract_claims=claims("The documentary came out in 2007."), check_claim=verdict("contradicted", 1),
                 judge_context_relevance=context_relevance("yes", [1]), judge_answer_relevance=answer_relevance(),
                 judge_semantic_similarity=similarity(5), answer_from_context={"answer": "2005"})


def test_a_batch_without_embeddings_warns_once_and_records_it(tmp_path, capsys, no_embedding_package):
    items = write_lines(tmp_path / "items.jsonl", [WRONG_YEAR])
    out = tmp_path / "out.jsonl"
    with ScriptedEndpoint(_year_judge()) as endpoint:
        assert cli.main(["evaluate", str(items), "--out", str(out), *endpoint.flags]) == 0
    err = capsys.readouterr().err
    assert err.count("the sentence-embedding model is not installed") == 2  # at the start, and in the summary
    assert "RuntimeWarning" not in err  # the library's own copy is not printed under the CLI
    [record] = records(out)
    assert record["provenance"]["settings"]["embeddings"] is False
    # the judge rated 5/5, but the answer's year is not the reference's: the cap holds here too
    assert record["result"]["semantic_similarity"] == 0.5
    assert "Capped at 0.5: the answer gives 2007 where the reference gives 2005" in \
        record["result"]["semantic_similarity_explanation"]


def test_with_embeddings_the_provenance_says_so(tmp_path):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    out = tmp_path / "out.jsonl"
    with ScriptedEndpoint(rag_judge()) as endpoint:
        assert cli.main(["evaluate", str(items), "--out", str(out), *endpoint.flags]) == 0
        assert cli.main(["evaluate", str(items), "--out", str(tmp_path / "off.jsonl"), "--no-embeddings",
                         *endpoint.flags]) == 0
    assert records(out)[0]["provenance"]["settings"]["embeddings"] is True
    assert records(tmp_path / "off.jsonl")[0]["provenance"]["settings"]["embeddings"] is False


def test_one_item_without_embeddings_warns_on_stderr(tmp_path, capsys, no_embedding_package):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(WRONG_YEAR), encoding="utf-8")
    with ScriptedEndpoint(_year_judge()) as endpoint:
        assert cli.main(["evaluate", str(item), *endpoint.flags]) == 0
    out, err = capsys.readouterr()
    assert err.count("the sentence-embedding model is not installed") == 1
    assert json.loads(out)["semantic_similarity"] == 0.5


# --- the served graph -----------------------------------------------------------------------------------

@pytest.fixture
def env_server(monkeypatch):
    from judgegraph.graph.server import _resolved

    _resolved.cache_clear()  # one chat model per choice and process: this test's env is new
    with FaultServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "not-needed")
        monkeypatch.delenv("JUDGEGRAPH_MODEL", raising=False)
        yield server


def test_the_served_context_sends_another_provider_to_that_provider(env_server):
    from judgegraph.graph.server import judge_context

    with pytest.raises(ModelConfigError, match="anthropic:claude-test"):  # the provider, not the env's server
        judge_context({"model": "anthropic:claude-test"})
    with pytest.raises(ModelConfigError, match="nosuchprovider:model-x"):
        judge_context({"model": "nosuchprovider:model-x"})
    assert env_server.requests == 0
    plain = judge_context({"model": "env-model"})
    assert plain.model_id == f"openai-compatible:env-model@{env_server.base_url}"
    named = judge_context({"model": "llama3:8b", "base_url": env_server.base_url})  # a colon in a served name
    assert named.model_id == f"openai-compatible:llama3:8b@{env_server.base_url}"


def test_the_served_graph_refuses_an_unknown_provider(env_server):
    from judgegraph.graph.server import graph

    with pytest.raises(ModelConfigError, match="nosuchprovider"):
        asyncio.run(graph.ainvoke({"item": rag_item()}, context={"model": "nosuchprovider:model-x"}))
    assert env_server.requests == 0
    output = asyncio.run(graph.ainvoke({"item": rag_item()}, context={"model": "env-model"}))
    assert env_server.base_url in output["model"] and env_server.requests > 0, output["result"]


def test_the_cli_sends_another_provider_to_that_provider_too(env_server, tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(rag_item()), encoding="utf-8")
    assert cli.main(["evaluate", str(item), "--model", "nosuchprovider:model-x"]) == 2
    assert "nosuchprovider:model-x" in capsys.readouterr().err and env_server.requests == 0
