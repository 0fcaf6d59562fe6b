"""LangSmith / openevals-style evaluators, offline: scripted fake judges, the fake HTTP server,
and langsmith's own `evaluate(..., upload_results=False)` / `aevaluate` with no API key.

LangSmith's client still asks its endpoint for `/info` when an experiment starts, even with
`upload_results=False`; the endpoint is pointed at a recording server on 127.0.0.1, so nothing
leaves the machine and the test can show that no result was uploaded.
"""

from __future__ import annotations

import json

import asyncio
import datetime as dt
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from judgegraph.evaluators import (create_async_rag_evaluator, create_coverage_evaluator,
                                   create_expected_output_evaluator, create_liverag_evaluator,
                                   create_rag_evaluator)
from judgegraph.evaluators import factories
from tests.support import fakes
from tests.conftest import CONTEXT, happy_scripts
from tests.support.fault_server import FaultServer
from tests.support.recording_endpoint import RecordingEndpoint

langsmith = pytest.importorskip("langsmith")
ROOT = Path(__file__).resolve().parents[2]

QUESTION = "Who founded Craigslist?"
ANSWER = "Craig Newmark founded Craigslist in 1995."


def by_key(rows: list[dict]) -> dict[str, dict]:
    return {row["key"]: row for row in rows}


def test_one_row_per_metric_in_feedback_shape(rag_item):
    from judgegraph.run.context import JudgeContext

    judge = fakes.judge(**happy_scripts())
    # the judge lists the claims and rates similarity (no embeddings), as a strong judge would
    evaluator = create_rag_evaluator(model=JudgeContext(model=judge, model_id="scripted",
                                                        claim_extraction="model", embeddings=False))
    rows = evaluator(inputs={"question": QUESTION}, outputs={"answer": ANSWER, "context": CONTEXT},
                     reference_outputs={"answer": "Craig Newmark"})
    assert [row["key"] for row in rows] == ["faithfulness", "context_relevance", "answer_relevance",
                                            "semantic_similarity"]
    for row in rows:
        assert set(row) == {"key", "score", "comment", "metadata"}
        assert row["metadata"]["status"] == "judged" and row["metadata"]["rubric"] == "rag"
    rows = by_key(rows)
    assert rows["faithfulness"]["score"] == 1.0
    assert rows["semantic_similarity"]["score"] == 1.0  # scripted 5/5
    claims = rows["faithfulness"]["metadata"]["claims"]
    assert [c["claim"] for c in claims] == ["Craig Newmark founded Craigslist.", "Craigslist was founded in 1995."]
    assert all(c["counts_as_supported"] for c in claims)
    # the claims and the reference reached the judge as the rag rubric's item
    assert any(CONTEXT[0] in prompt for prompt in judge.prompts_for("check_claim"))
    assert any("Craig Newmark" in prompt for prompt in judge.prompts_for("judge_semantic_similarity"))


def test_missing_reference_is_not_applicable_and_a_failed_step_is_failed_never_zero():
    judge = fakes.judge(**happy_scripts(judge_context_relevance=["not json", "still not", "nope"]))
    rows = by_key(create_rag_evaluator(model=judge)(
        inputs={"question": QUESTION}, outputs={"answer": ANSWER, "context": CONTEXT}))
    similarity, relevance = rows["semantic_similarity"], rows["context_relevance"]
    assert similarity["score"] is None and similarity["metadata"]["status"] == "not_applicable"
    assert similarity["comment"] == "No reference answer provided."
    assert relevance["score"] is None and relevance["metadata"]["status"] == "failed"
    assert relevance["metadata"]["error"] and "context_relevance" in relevance["metadata"]["error"]
    assert rows["faithfulness"]["score"] == 1.0  # the other metrics are kept
    assert judge.count("judge_semantic_similarity") == 0


def test_a_run_without_retrieved_context_is_not_judged_as_an_empty_context():
    """LangSmith rows with no context anywhere: faithfulness and context relevance come back
    without a score and with the reason, never the seed's 0.0 for an empty context."""
    judge = fakes.judge(**happy_scripts())
    rows = by_key(create_rag_evaluator(model=judge)(inputs={"question": QUESTION}, outputs={"answer": ANSWER}))
    for key in ("faithfulness", "context_relevance"):
        assert rows[key]["score"] is None, rows[key]
        assert "no context given" in json.dumps(rows[key]).lower(), rows[key]
    assert rows["answer_relevance"]["score"] is not None  # judged without a context
    assert judge.count("check_claim") == 0


def test_invalid_input_fails_every_metric_without_a_model_call():
    judge = fakes.judge()
    rows = create_rag_evaluator(model=judge)(inputs={"question": QUESTION}, outputs={"answer": "  "})
    assert {row["metadata"]["status"] for row in rows} == {"failed"}
    assert all(row["score"] is None and row["comment"] for row in rows)
    assert judge.calls == []


def test_metrics_select_rows_and_steps_and_documents_become_passages():
    from langchain_core.documents import Document

    judge = fakes.judge(**happy_scripts())
    evaluator = create_rag_evaluator(model=judge, metrics=["faithfulness"], feedback_key_prefix="jg_")
    rows = evaluator(inputs={"question": QUESTION}, outputs=ANSWER,
                     context=[Document(page_content=CONTEXT[0]), {"page_content": CONTEXT[1]}])
    assert [row["key"] for row in rows] == ["jg_faithfulness"]
    assert rows[0]["score"] == 1.0
    assert judge.count("judge_context_relevance") == 0 and judge.count("judge_answer_relevance") == 0
    assert CONTEXT[1] in judge.prompts_for("check_claim")[0]  # the Document's text is a context line


def test_prepare_item_and_settings_reach_the_graph():
    judge = fakes.judge(**happy_scripts())

    def prepare(inputs, outputs, reference_outputs, extra):
        return {"question": inputs["q"], "context": inputs["docs"], "answer": outputs["a"]}

    evaluator = create_rag_evaluator(model=judge, prepare_item=prepare, claim_check="batch",
                                     metrics=["faithfulness"])
    judge.default["BatchClaimChecks"] = {"checks": [dict(fakes.verdict("supported", 1), claim=1)]}
    rows = evaluator(inputs={"q": QUESTION, "docs": CONTEXT}, outputs={"a": ANSWER})
    assert rows[0]["score"] == 1.0
    assert judge.count("BatchClaimChecks") == 1 and judge.count("check_claim") == 0


def test_async_evaluator_matches_the_sync_one():
    sync_rows = create_rag_evaluator(model=fakes.judge(**happy_scripts()))(
        inputs={"question": QUESTION}, outputs={"answer": ANSWER, "context": CONTEXT})
    async_rows = asyncio.run(create_async_rag_evaluator(model=fakes.judge(**happy_scripts()))(
        inputs={"question": QUESTION}, outputs={"answer": ANSWER, "context": CONTEXT}))
    strip = [(r["key"], r["score"], r["metadata"]["status"]) for r in sync_rows]
    assert strip == [(r["key"], r["score"], r["metadata"]["status"]) for r in async_rows]


def test_other_rubrics_over_the_fake_openai_server():
    """Model given as a name plus base_url (the string path), answered over real HTTP."""
    with FaultServer() as server:
        live = create_liverag_evaluator(model="fake-judge", base_url=server.base_url)(
            inputs={"question": QUESTION}, outputs={"answer": ANSWER, "documents": CONTEXT})
        coverage = create_coverage_evaluator(model="fake-judge", base_url=server.base_url)(
            inputs={"question": QUESTION}, outputs=ANSWER, reference_outputs="Craig Newmark founded it in 1995.")
        served = server.requests
    live = by_key(live)
    assert set(live) == {"liverag_relevance", "liverag_faithfulness"}
    # the fake server finds no quote for any claim: none supported -> -1 (judged, not failed)
    assert live["liverag_faithfulness"]["score"] == -1
    assert live["liverag_faithfulness"]["metadata"]["status"] == "judged"
    assert live["liverag_relevance"]["score"] in (-1, 0, 1, 2)
    [row] = coverage
    assert row["key"] == "coverage" and row["metadata"]["scale"] == "0-5"
    assert row["score"] in range(6) and len(row["comment"].splitlines()) == 5
    assert served > 0


def test_expected_output_bad_config_is_failed_with_the_seed_message():
    judge = fakes.judge()
    evaluator = create_expected_output_evaluator(
        model=judge, evaluation_type="categorical",
        evaluation_config={"available_categories": ["good", "good"]})
    [row] = evaluator(inputs={"input": "2+2?"}, outputs="4", reference_outputs="4")
    assert row["key"] == "expected_output" and row["score"] is None
    assert row["metadata"]["status"] == "failed" and "categor" in row["comment"].lower()
    assert judge.calls == []


def test_metrics_only_select_rag_metrics():
    with pytest.raises(ValueError, match="rag metrics"):
        factories.make_evaluator("coverage", factories.Options(metrics=["faithfulness"]))


# --- inside LangSmith ------------------------------------------------------------------------

@pytest.fixture
def offline_langsmith(monkeypatch):
    """No API key, tracing off, and the endpoint on a recording loopback server."""
    endpoint = RecordingEndpoint()
    for name in ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGSMITH_ENDPOINT", endpoint.url)
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    yield endpoint.requests
    endpoint.close()


def uploads(seen: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """What reached the LangSmith endpoint besides `/info`, after its background queue drained."""
    from langsmith.run_trees import get_cached_client

    get_cached_client().flush()
    return [request for request in seen if request != ("GET", "/info")]


def examples() -> list:
    from langsmith.schemas import Example

    rows = [
        ({"question": QUESTION, "context": CONTEXT}, {"answer": "Craig Newmark"}),
        ({"question": "When was the documentary released?", "context": CONTEXT}, None),
    ]
    return [Example(id=uuid.uuid4(), dataset_id=uuid.uuid4(), created_at=dt.datetime.now(dt.timezone.utc),
                    inputs=inputs, outputs=outputs) for inputs, outputs in rows]


def rag_app(inputs: dict) -> dict:
    """The system under test: a RAG app that answers from its retrieved context."""
    return {"answer": ANSWER, "context": inputs["context"]}


def test_runs_inside_langsmith_evaluate_offline(offline_langsmith):
    from langsmith import evaluate

    evaluator = create_rag_evaluator(model=fakes.judge(**happy_scripts()))
    results = list(evaluate(rag_app, data=examples(), evaluators=[evaluator], upload_results=False,
                            max_concurrency=0))
    assert len(results) == 2
    feedback = [{r.key: (r.score, (r.metadata or {}).get("status")) for r in res["evaluation_results"]["results"]}
                for res in results]
    by_question = {res["example"].inputs["question"]: fb for res, fb in zip(results, feedback)}
    with_reference = by_question[QUESTION]
    without = by_question["When was the documentary released?"]
    assert with_reference["faithfulness"] == (1.0, "judged")
    assert with_reference["semantic_similarity"][1] == "judged"  # embedding cosine (the fake embedder)
    assert 0.0 < with_reference["semantic_similarity"][0] <= 1.0
    assert without["semantic_similarity"] == (None, "not_applicable")
    assert uploads(offline_langsmith) == []  # nothing uploaded


def test_async_evaluator_runs_inside_langsmith_aevaluate_offline(offline_langsmith):
    from langsmith import aevaluate

    async def app(inputs: dict) -> dict:
        return rag_app(inputs)

    evaluator = create_async_rag_evaluator(model=fakes.judge(**happy_scripts()), metrics=["faithfulness"])

    async def run() -> list:
        results = await aevaluate(app, data=examples(), evaluators=[evaluator], upload_results=False,
                                  max_concurrency=1)
        return [res async for res in results]

    results = asyncio.run(run())
    scores = sorted((r.key, r.score) for res in results for r in res["evaluation_results"]["results"])
    assert scores == [("faithfulness", 1.0), ("faithfulness", 1.0)]
    assert uploads(offline_langsmith) == []


def test_logs_each_row_as_feedback_inside_a_langsmith_test_case(monkeypatch):
    """The pytest-integration branch: rows go to `testing.log_feedback` inside `trace_feedback`."""
    import contextlib

    from langsmith import testing
    from langsmith.testing import _internal

    logged, traced = [], []

    @contextlib.contextmanager
    def trace_feedback(*, name):
        traced.append(name)
        yield None

    monkeypatch.setattr(testing, "log_feedback", lambda **kw: logged.append(kw))
    monkeypatch.setattr(testing, "trace_feedback", trace_feedback)
    token = _internal._TEST_CASE.set(object())
    try:
        rows = create_rag_evaluator(model=fakes.judge(**happy_scripts()))(
            inputs={"question": QUESTION}, outputs={"answer": ANSWER, "context": CONTEXT})
    finally:
        _internal._TEST_CASE.reset(token)
    assert traced == ["judgegraph_rag"]
    assert [(f["key"], f["score"], f["comment"]) for f in logged] == [
        (r["key"], r["score"], r["comment"]) for r in rows]


def test_works_unchanged_in_langsmiths_pytest_plugin(tmp_path):
    """A `@pytest.mark.langsmith` test file using the evaluator passes (tracking off: offline)."""
    test_file = tmp_path / "test_with_langsmith.py"
    test_file.write_text(textwrap.dedent(f"""
        import pytest
        from judgegraph.evaluators import create_rag_evaluator
        from tests.support import fakes
        from tests.conftest import happy_scripts

        @pytest.mark.langsmith
        def test_answer_is_faithful():
            rows = create_rag_evaluator(model=fakes.judge(**happy_scripts()))(
                inputs={{"question": {QUESTION!r}}},
                outputs={{"answer": {ANSWER!r}, "context": {CONTEXT!r}}})
            assert {{r["key"]: r["score"] for r in rows}}["faithfulness"] == 1.0
    """))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANGSMITH_TEST_TRACKING": "false",
           "LANGSMITH_TRACING": "false", "LANGSMITH_ENDPOINT": "http://127.0.0.1:9", "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(test_file)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout


def test_keys_no_field_reads_are_named_in_the_feedback():
    """A key under a name the rubric does not know (`prompt` for the question) is not dropped in
    silence: every row's metadata lists it per dict, and a failed metric's comment names it and
    points at `field_map=`; with the map, it is read and nothing is listed."""
    judge = fakes.judge(**happy_scripts())
    rows = by_key(create_rag_evaluator(model=judge)(
        inputs={"prompt": QUESTION, "user_id": "u1", "notes": None},
        outputs={"answer": ANSWER, "context": CONTEXT}))
    for row in rows.values():
        assert row["metadata"]["keys_not_read"] == {"inputs": ["prompt", "user_id"]}
    faithfulness = rows["faithfulness"]
    assert faithfulness["metadata"]["status"] == "failed" and faithfulness["score"] is None
    assert "keys not read: inputs 'prompt', 'user_id'; name a field's key with field_map=" in faithfulness["comment"]
    assert judge.calls == []  # the item failed validation: no call for a question it never had
    rows = by_key(create_rag_evaluator(model=judge, field_map={"question": "prompt"})(
        inputs={"prompt": QUESTION}, outputs={"answer": ANSWER, "context": CONTEXT}))
    assert all("keys_not_read" not in row["metadata"] for row in rows.values())
    assert rows["faithfulness"]["metadata"]["status"] == "judged"


def test_a_prepared_item_names_no_unread_keys():
    """With `prepare_item=`, the caller builds the item from the dicts: what it reads is its own."""
    judge = fakes.judge(**happy_scripts())
    rows = create_rag_evaluator(model=judge, prepare_item=lambda inputs, outputs, reference_outputs, extra: {
        "question": inputs["prompt"], "answer": outputs["answer"], "context": CONTEXT})(
        inputs={"prompt": QUESTION, "user_id": "u1"}, outputs={"answer": ANSWER})
    assert all("keys_not_read" not in row["metadata"] for row in rows)
