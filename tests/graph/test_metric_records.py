"""Metric records: each rubric's output read back through its declaration, with the signals
the run measured kept apart from the score and its explanation."""

from __future__ import annotations

from judgegraph.graph import rubrics
from judgegraph.graph.api import run_evaluation
from judgegraph.graph.metrics_view import record_metrics, rubric_metrics
from judgegraph.schemas.metrics import value_at
from tests.support import fakes
from tests.conftest import happy_scripts
from tests.nodes.liverag.test_liverag import FOUNDER_LINE, RELEVANCE, live_item, live_judge, relevance


def test_rag_records_carry_what_each_step_measured(rag_item):
    judge = fakes.judge(**happy_scripts(
        judge_context_relevance=fakes.context_relevance("partly", [1]),
        judge_answer_relevance=fakes.answer_relevance(parts=[True, False], directness="partial"),
        judge_semantic_similarity=fakes.similarity(4),
    ))
    run = run_evaluation(rag_item, model=judge, embeddings=False)
    metrics = {m.key: m for m in rubric_metrics("rag", run.result, details=run.trace_json())}
    context = metrics["context_relevance"].signals
    assert (context["answer_in_context"], context["p_yes"], context["p_partly"], context["p_no"]) == ("partly", 0, 1, 0)
    assert (context["useful_lines"], context["recall"]) == ([1], 0.5) and 0 < context["precision"] < 1
    assert metrics["answer_relevance"].signals["question_parts"] == 2
    assert metrics["answer_relevance"].signals["parts_answered"] == 1
    assert metrics["answer_relevance"].signals["directness"] == "partial"
    assert metrics["semantic_similarity"].signals == {"similarity_0_to_5": 4}
    faithfulness = metrics["faithfulness"].signals
    assert faithfulness["claims"] == len(run.verdicts) and faithfulness["supports"] == [v.support for v in run.verdicts]
    assert faithfulness["number_conflicts"] == 0 and faithfulness["failed_checks"] == 0
    assert [m.score for m in metrics.values()] == [run.result[k] for k in metrics]  # the scores are the output's


def test_without_the_runs_details_the_records_have_no_signals(rag_item, happy_judge):
    run = run_evaluation(rag_item, model=happy_judge)
    assert all(m.signals == {} for m in rubric_metrics("rag", run.result))
    assert all(m.signals == {} for m in record_metrics({"rubric": "rag", "result": run.result}))


def test_liverag_records_carry_the_observations_and_the_claim_supports():
    judge = live_judge(check_claim=[fakes.verdict("supported", FOUNDER_LINE), fakes.verdict("not-in-context")],
                       **{RELEVANCE: relevance(irrelevant=True)})
    run = run_evaluation(live_item(), model=judge)
    record = {"rubric": "liverag", "result": run.result, "details": run.trace_json()}
    relevance_metric, faithfulness = record_metrics(record)
    assert relevance_metric.score == 1 and relevance_metric.signals == {
        "addresses_question": True, "no_answer": False, "answers_correctly": True,
        "contains_irrelevant_content": True, "irrelevant_content_harms_usefulness": False}
    assert faithfulness.score == 0 and faithfulness.signals["supports"][0] > faithfulness.signals["supports"][1]


def test_an_undeclared_rubric_is_read_generically():
    (metric,) = rubric_metrics("someone_elses", {"quality_score": 3, "notes": "x"})
    assert (metric.key, metric.score, metric.status, metric.signals) == ("someone_elses.quality_score", 3, "judged", {})


def test_every_declared_metric_field_is_in_the_rubrics_output():
    """The batch summary reads each metric at its declared field: the judged shape has it. A
    metric for some items only (rag's citations, `MetricDeclaration.applies`) is absent from the
    failure shape, which keeps exactly the seed's keys."""
    from judgegraph.nodes.rag.metrics import DECLARED as RAG_DECLARED

    some_items_only = {("rag", m.key) for m in RAG_DECLARED if m.applies is not None}
    assert some_items_only == {("rag", "citation_recall"), ("rag", "citation_precision")}
    for spec in rubrics.RUBRICS:
        judged = spec.output_models[0]
        for metric in spec.metrics:
            head = metric.field.split(".")[0]
            assert head in judged.model_fields, (spec.name, metric.field)
            if (spec.name, metric.key) in some_items_only:
                assert not value_at(spec.failed("reason"), metric.field)[0], (spec.name, metric.field)
            elif spec.name != "expected_output":  # its failure shape is the seed's error object
                assert value_at(spec.failed("reason"), metric.field)[0], (spec.name, metric.field)


def test_the_batch_summary_reads_the_declared_fields_and_names_columns_as_the_output_does():
    from judgegraph.batch.summary import metric_values
    from judgegraph.schemas.metrics import metric_leaves

    outputs = {spec.name: spec.failed("Input parsing error: missing answer.") for spec in rubrics.RUBRICS}
    outputs["rag"] = outputs["rag"] | {"faithfulness": 0.5, "faithfulness_explanation": "1 of 2"}
    evaluation = {"evaluation_type": "numerical", "result": {"score": 7, "min_range": 1, "max_range": 10},
                  "reasoning": "r", "comparison_details": {"exact_match": False}, "confidence": 0.9}
    records = [{"rubric": name, "result": output} for name, output in outputs.items()]
    records += [
        {"rubric": "expected_output", "result": {"evaluation": evaluation}},
        {"rubric": "expected_output", "result": {"evaluation": evaluation | {"result": {"category": "yes"}}}},
        {"rubric": ["rag", "liverag"], "result": {"rag": outputs["rag"], "liverag": outputs["liverag"]}},
        {"rubric": "not_declared", "result": {"quality_score": 3, "confidence": 0.2}},
    ]
    for record in records:
        assert dict(metric_values(record)) == dict(metric_leaves(record["result"])), record["rubric"]
    assert dict(metric_values(records[-2]))["liverag.relevance_score"] is None
    assert dict(metric_values(records[-4])) == {"evaluation.result.score": 7.0}


def test_a_judged_item_whose_reason_holds_a_language_note_is_judged_not_failed(rag_item, happy_judge):
    """A language without agreement figures is judged and says so in `reason`: its metrics are
    judged (no exit 1, nothing for --retry-failed), unlike an invalid item's reason."""
    from judgegraph.batch.summary import holds_a_failure

    item = rag_item | {"question": "누가 크레이그리스트를 설립했나요?", "answer": "크레이그 뉴마크가 설립했다.",
                       "language": "sw"}
    run = run_evaluation(item, model=happy_judge)
    assert run.result["evaluation_status"] == "success" and run.result["reason"]
    record = {"rubric": "rag", "result": run.result}
    assert [m.status for m in record_metrics(record)] == ["judged"] * 4
    assert not holds_a_failure(record)
    invalid = {"rubric": "rag", "result": {**run.result, "evaluation_status": "failed", "reason": "question is missing"}}
    assert holds_a_failure(invalid) and {m.status for m in record_metrics(invalid)} == {"failed"}
