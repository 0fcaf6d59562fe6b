"""A fifth rubric is one declaration: given only its `RubricSpec` in `graph.rubrics.RUBRICS`,
the graph runs it, validation and failure shapes use it, the batch summary and records, the
metrics view and the evaluators read it. The toy rubric here needs no model (its one node
counts words), so the test is about the wiring, not about judging."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from judgegraph.batch.records import failed_shape, input_error_record
from judgegraph.batch.summary import Summary, metric_values
from judgegraph.declarations.rubric_spec import MetricSpec, NodeSpec, RubricSpec
from judgegraph.evaluators import create_evaluator
from judgegraph.graph import api
from judgegraph.graph import rubrics
from judgegraph.graph.api import run_evaluation
from judgegraph.graph.metrics_view import record_metrics
from judgegraph.llm.structured import StepOutcome
from judgegraph.schemas.evaluator_fields import ANSWER_KEYS, pick
from judgegraph.schemas.inputs import NonBlank
from judgegraph.schemas.metrics import MetricRecord, Score
from tests.support import fakes

COMPILED_ONCE = api.default_graph
"""The graph module's cached builder, read before the conftest wraps it for the test's run."""

NODE = "count_words"


class ToyInput(BaseModel):
    model_config = ConfigDict(extra="ignore")
    toy_text: NonBlank


class ToyResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    length_score: int | None = None
    note: str


def count_words(state: dict) -> dict:
    words = len(state["inputs"]["toy"].toy_text.split())
    return {"judgments": {NODE: StepOutcome(min(words, 10))}}


def toy_scores(state: dict, _: ToyInput) -> dict[str, Score]:
    return {"toy_length": Score(state["judgments"][NODE].value, "words, capped at 10", scale=(0, 10))}


def toy_result(scores: dict[str, Score], _: ToyInput, state: dict) -> ToyResult:
    length = scores["toy_length"]
    return ToyResult(length_score=length.score, note=length.explanation)


def toy_records(scores: dict[str, Score], result: dict, selected=None) -> list[MetricRecord]:
    return [MetricRecord(key, result.get("length_score"), score.explanation, score.status, "toy", score.scale,
                         score.error) for key, score in scores.items()]


def read_toy_metrics(result: dict, selected=None, details=None) -> list[MetricRecord]:
    score = result.get("length_score")
    return [MetricRecord("toy_length", score, result.get("note"), "judged" if score is not None else "failed", "toy",
                         (0, 10))]


TOY = RubricSpec(
    name="toy", signature_keys=("toy_text",), field_labels={"toy_text": "toy text"},
    input_model=ToyInput, output_models=(ToyResult,),
    metrics=(MetricSpec("toy_length", kind="ordinal", scale=(0, 10), field="length_score"),),
    nodes=(NodeSpec(NODE, count_words),), plan=lambda _: [NODE],
    decide=toy_scores, build_result=toy_result, build_failure=lambda reason: ToyResult(note=reason),
    read_metrics=read_toy_metrics, score_records=toy_records,
    evaluator_item=lambda inputs, outputs, reference_outputs, extra: {"toy_text": pick(outputs, ANSWER_KEYS)},
)


@pytest.fixture
def fifth_rubric(monkeypatch):
    monkeypatch.setattr(rubrics, "RUBRICS", (TOY, *rubrics.RUBRICS))
    COMPILED_ONCE.cache_clear()  # the compiled graph is built once per process
    yield TOY
    COMPILED_ONCE.cache_clear()


def test_the_graph_detects_validates_runs_and_finalizes_it(fifth_rubric):
    run = run_evaluation({"toy_text": "one two three"})
    assert run.rubrics == ["toy"] and run.result == {"length_score": 3, "note": "words, capped at 10"}
    invalid = run_evaluation({"toy_text": "   "})
    assert invalid.result == {"length_score": None, "note": "Input parsing error: toy text is empty."}
    both = run_evaluation({"rubric": ["toy", "coverage"], "toy_text": "a b", "reference": "N/A", "output_text": "x"})
    assert both.result["toy"]["length_score"] == 2 and both.result["coverage"]["score"] == 0


def test_batch_records_summary_metrics_and_evaluators_read_it(fifth_rubric):
    assert failed_shape("toy", "bad") == {"length_score": None, "note": "bad"}
    record = {"rubric": "toy", "result": {"length_score": 4, "note": "n"}}
    assert dict(metric_values(record)) == {"length_score": 4.0}
    summary = Summary()
    summary.add(record | {"usage": {}})
    assert summary.metrics[("toy", "length_score")].values == [4.0]
    (metric,) = record_metrics(record)
    assert (metric.key, metric.score, metric.scale) == ("toy_length", 4, (0, 10))
    (row,) = create_evaluator("toy", model=fakes.judge())(inputs={}, outputs={"answer": "a b c d e"})
    assert (row["key"], row["score"], row["metadata"]["scale"]) == ("toy_length", 5, "0-10")
    assert input_error_record("x", 1, "not JSON")["rubric"] == rubrics.DEFAULT_RUBRIC
