"""A judged run's metric records come from its typed scores (`graph.metrics_view.run_metrics`),
and say exactly what the same output says when read back from a results file with its details
(`graph.metrics_view.rubric_metrics`), and a failed one always names its cause: every example
item, judged by the demo judge and by a judge that never answers."""

from __future__ import annotations

import io
import json
from dataclasses import fields, is_dataclass, replace
from pathlib import Path

import pytest

from judgegraph.calibration import default_profile
from judgegraph.commands.item_outcome import item_exit_code
from judgegraph.evaluators.feedback import feedback_rows
from judgegraph.graph.api import default_graph, graph_input, run_evaluation
from judgegraph.graph.metrics_view import rubric_metrics, run_metrics
from judgegraph.nodes.rag import answer_relevance, context_relevance
from judgegraph.run.context import JudgeContext
from judgegraph.run.escalation import fixed_band
from judgegraph.run.judge_builder import build_judge
from judgegraph.run.state import MeasuredSignals
from judgegraph.schemas.metrics import Score
from judgegraph.telemetry.attributes import item_attributes
from judgegraph.telemetry.judged_item import JudgedItem
from judgegraph.testing.thresholds import outcomes
from tests.conftest import happy_scripts
from tests.support import fakes
from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example_items() -> list[tuple[str, dict]]:
    items = []
    for path in sorted(EXAMPLES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        items += [(f"{path.name}#{n}", item) for n, item in enumerate(data if isinstance(data, list) else [data])]
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip().startswith("{")]
        items += [(f"{path.name}:{n}", json.loads(line)) for n, line in enumerate(lines, start=1)]
    return [(name, item) for name, item in items if isinstance(item, dict)] + INVALID


INVALID = [
    ("invalid rag", {"question": "Who?", "answer": "   ", "context": ["A text."]}),
    ("invalid liverag", {"question": "Who?", "answer": "   ", "documents": ["A text."]}),
    ("invalid coverage", {"rubric": "coverage", "reference": "   ", "output_text": "An output."}),
    ("invalid expected_output", {"actualOutput": "5", "evaluationType": "numerical"}),
]
"""Items each rubric's validation refuses: judged by no model, in each rubric's failure shape."""


def no_reply(step: str, schema: dict, body: dict):
    raise ValueError("the judge is down")


@pytest.fixture(scope="module", params=["demo judge", "judge down"])
def judge_server(request):
    with FaultServer(reply=demo_reply if request.param == "demo judge" else no_reply) as server:
        yield server


@pytest.mark.parametrize(("name", "item"), example_items(), ids=[name for name, _ in example_items()])
def test_typed_records_match_the_file_reading(name, item, judge_server):
    run = run_evaluation(item, model="demo", base_url=judge_server.base_url, embeddings=False, max_retries=0)
    for rubric in run.rubrics:
        result = run.results.get(rubric, run.result)
        typed = run_metrics(rubric, result, run.scores[rubric])
        filed = rubric_metrics(rubric, result, details=run.trace_json())
        # a file names the cause only where the output does (rag's `error`); the scores always do
        assert [replace(record, error=None) for record in typed] == [replace(record, error=None) for record in filed]
        for typed_record, filed_record in zip(typed, filed):
            assert filed_record.error in (None, typed_record.error)
            assert (typed_record.status == "failed") == bool(typed_record.error)


def test_a_failed_score_reaches_every_consumer_of_the_run_typed(judge_server):
    """The scores, not the output's text, say which metric failed and why: with the output left
    as judged and only its Score failed, the evaluator's feedback, the OpenTelemetry span, the
    pytest outcome and the one-item exit code all report the Score's cause."""
    item = json.loads((EXAMPLES / "rag_item.json").read_text(encoding="utf-8"))
    judged = run_evaluation(item, model="demo", base_url=judge_server.base_url, embeddings=False, max_retries=0)
    cause = "the cause the deciding step gave"
    scores = {**judged.scores["rag"], "faithfulness": Score.failed("Faithfulness", cause)}
    run = replace(judged, scores={"rag": scores})
    assert run.result == judged.result  # the rendered output is not what the consumers read

    (row,) = [row for row in feedback_rows("rag", run, None, "") if row["key"] == "faithfulness"]
    assert row["metadata"]["status"] == "failed" and cause in row["metadata"]["error"]
    record = {"id": 1, "rubric": "rag", "result": run.result, "usage": {}}
    span = item_attributes(JudgedItem(record=record, item=item, run=run, model_id="openai:demo",
                                      started_ns=0, ended_ns=1))
    assert "faithfulness" in span["judgegraph.metrics.failed"]
    (outcome,) = outcomes(run, {"faithfulness": 0.1})
    assert (outcome.status, outcome.passed) == ("failed", False)
    stderr = io.StringIO()
    assert item_exit_code(run, None, stderr, probe=False) == 1
    assert cause in stderr.getvalue()


def scores_in(value: object) -> list[Score]:
    """Every decided `Score` inside a state update: in dicts, lists, tuples and dataclasses."""
    if isinstance(value, Score):
        return [value]
    if isinstance(value, dict):
        return [score for item in value.values() for score in scores_in(item)]
    if isinstance(value, list | tuple):
        return [score for item in value for score in scores_in(item)]
    if is_dataclass(value) and not isinstance(value, type):
        return [score for field in fields(value) for score in scores_in(getattr(value, field.name))]
    return []


def _updates(item: dict, context) -> list[tuple[str, dict]]:
    """Each node's state update, in the order the graph wrote them."""
    return [(node, written or {}) for update in default_graph().stream(graph_input(item, None, None), context=context,
                                                                      stream_mode="updates")
            for node, written in update.items()]


@pytest.mark.parametrize(("name", "item"), example_items(), ids=[name for name, _ in example_items()])
def test_every_metric_is_decided_at_finalize_and_no_step_before_it_hands_on_a_score(name, item, judge_server):
    """One decision path (issue 56): the judging steps write signals, and `finalize` decides
    every metric of every rubric from them; no node hands a decided `Score` through the state."""
    context = build_judge("demo", base_url=judge_server.base_url, embeddings=False, max_retries=0)
    updates = _updates(item, context)
    early = {node: scores_in(written) for node, written in updates if node != "finalize"}
    assert {node: found for node, found in early.items() if found} == {}
    assert [node for node, written in updates if "metric_scores" in written] == ["finalize"]


def test_the_relevance_nodes_record_typed_signals_and_the_deciding_judges_parameters_not_a_score(rag_item):
    """Context and answer relevance's nodes record their typed signals with the parameters of
    the profile of the judge that decided (with `--escalate-to`, the second judge's), and the
    metric decided at `finalize` is what `decide_*` makes of them."""
    first_profile = default_profile()
    section = first_profile.section("context_relevance")
    worth = section.parameters.model_copy(update={"answer_in_context_value": {"yes": 1.0, "partly": 0.9, "no": 0.0}})
    second_profile = first_profile.model_copy(
        update={"id": "second", "context_relevance": section.model_copy(update={"parameters": worth})})
    scripts = happy_scripts(judge_context_relevance=fakes.context_relevance("partly", [1]))
    second = JudgeContext(model=fakes.judge(**scripts), model_id="second", embeddings=False, calibration=second_profile)
    context = JudgeContext(model=fakes.judge(**scripts), model_id="first", embeddings=False, calibration=first_profile,
                           escalate_to=second, escalation_band=fixed_band(None, jury=True))
    updates = dict(_updates(rag_item | {"metrics": ["context_relevance", "answer_relevance"]}, context))

    recorded = updates[context_relevance.NODE]["measured"][context_relevance.METRIC_KEY]
    assert isinstance(recorded, MeasuredSignals) and isinstance(recorded.signals, context_relevance.ContextRelevanceSignals)
    assert recorded.parameters == worth
    answered = updates[answer_relevance.NODE]["measured"][answer_relevance.METRIC_KEY]
    assert isinstance(answered.signals, answer_relevance.AnswerRelevanceSignals)
    assert answered.parameters == second_profile.answer_relevance_parameters

    decided = updates["finalize"]["metric_scores"]["rag"]
    expected = context_relevance.decide_context_relevance(recorded.signals, worth)
    assert (decided["context_relevance"].score, decided["context_relevance"].explanation) == (
        expected.score, expected.explanation)
    assert decided["context_relevance"].signals["recall"] == pytest.approx(0.9)
    expected = answer_relevance.decide_answer_relevance(answered.signals, answered.parameters)
    assert (decided["answer_relevance"].score, decided["answer_relevance"].explanation) == (
        expected.score, expected.explanation)
