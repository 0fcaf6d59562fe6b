"""A judged run's metric records come from its typed scores (`graph.metrics_view.run_metrics`),
and say exactly what the same output says when read back from a results file with its details
(`graph.metrics_view.rubric_metrics`), and a failed one always names its cause: every example
item, judged by the demo judge and by a judge that never answers."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from judgegraph.commands.item_outcome import item_exit_code
from judgegraph.evaluators.feedback import feedback_rows
from judgegraph.graph.api import run_evaluation
from judgegraph.graph.metrics_view import rubric_metrics, run_metrics
from judgegraph.schemas.metrics import Score
from judgegraph.telemetry.attributes import item_attributes
from judgegraph.telemetry.judged_item import JudgedItem
from judgegraph.testing.thresholds import outcomes
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
