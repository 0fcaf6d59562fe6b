"""The trace explains every score: nodes, durations, tokens, attempts, errors, verdicts."""

from __future__ import annotations

import json

import pytest

from judgegraph.graph.api import run_evaluation
from tests.support import fakes
from tests.conftest import happy_scripts


def test_trace_records_each_node_with_tokens_and_attempts(rag_item):
    model = fakes.judge(**happy_scripts(judge_context_relevance=["not json", fakes.context_relevance("yes", [1])]))
    run = run_evaluation(rag_item, model=model)
    nodes = [event.node for event in run.trace]
    assert nodes[0] == "validate_input" and nodes[-1] == "finalize"
    assert nodes.count("check_claim") == 1 and nodes.count("finalize") == 1
    assert {"extract_claims", "judge_semantic_similarity"} <= set(nodes)  # recorded, though no call
    relevance = next(e for e in run.trace if e.node == "judge_context_relevance")
    assert relevance.calls == 2 and len(relevance.attempts) == 2
    assert relevance.input_tokens == 20 and relevance.output_tokens == 10
    assert relevance.attempts[0].raw_reply == "not json" and relevance.attempts[0].errors
    assert all(event.duration_s >= 0 for event in run.trace)
    assert run.usage == {"calls": len(model.calls), "input_tokens": 10 * len(model.calls),
                         "output_tokens": 5 * len(model.calls)}


def test_trace_json_holds_claims_verdicts_and_evidence(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist. It was founded in 1995."
    model = fakes.judge(**happy_scripts(check_claim=[fakes.verdict("supported", 1),
                                                     fakes.graded_verdict({"supported": 0.9, "not": 0.1}, 1)]))
    run = run_evaluation(rag_item, model=model)
    trace = json.loads(json.dumps(run.trace_json()))
    assert trace["claims"]["claims"] == ["Craig Newmark founded Craigslist.", "It was founded in 1995."]
    assert [v["index"] for v in trace["verdicts"]] == [0, 1]
    first, second = trace["verdicts"]
    assert first["evidence_found"] is True and first["evidence"] == rag_item["context"][0]
    assert first["effective_verdict"] == "supported" and first["graded"] is False
    assert second["graded"] is True and second["effective_verdict"] == "supported (p_supported 0.90)"
    assert second["probabilities"]["supported"] == pytest.approx(0.9) and second["support"] == pytest.approx(0.9)
    checks = [n for n in trace["nodes"] if n["node"] == "check_claim"]
    assert {c["label"] for c in checks} == {"claim 1", "claim 2"}
    assert all(c["detail"]["whole_context"] is True and c["detail"]["lines_shown"] == 2 for c in checks)
    extraction = next(n for n in trace["nodes"] if n["node"] == "extract_claims")
    assert extraction["detail"]["method"] == "sentences" and extraction["calls"] == 0


def test_skipped_steps_appear_in_the_trace_with_why(rag_item):
    rag_item["reference"] = None
    run = run_evaluation(rag_item, model=fakes.judge(**happy_scripts()))
    skipped = next(e for e in run.trace if e.node == "judge_semantic_similarity")
    assert skipped.outcome == "skipped" and "no reference" in skipped.note and skipped.calls == 0
