"""A fifth rubric that asks the judge, added by following docs/adding-a-rubric.md step by step.

The rubric here, politeness (an agent's reply to a customer's message, polite / curt / rude),
is written as its page says: its models, its one metric (node, decision, score of a run,
record signals, declaration: docs/adding-a-metric.md), how its output is rendered from the
scores and its failure shape, all in what would be `nodes/politeness/rubric.py`, and
`RUBRIC = declared_rubric(...)`. Two steps differ only because a test must leave the package
as it is: the template is kept outside it (`prompts.make_environment`, as
`prompts/judge_politeness.j2` would hold it), and the registration is monkeypatched (as the one
line in `graph/rubrics.RUBRICS` would make it). It is judged through the public API
(`evaluate`, `run_evaluation`, `create_evaluator`) against a scripted fake chat model.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import jinja2
import pytest
from pydantic import BaseModel, ConfigDict

from judgegraph.declarations.declared_rubric import declared_rubric
from judgegraph.declarations.metric_declaration import MetricDeclaration
from judgegraph.declarations.rubric_spec import MetricSpec, NodeSpec
from judgegraph.declarations.run_details import step_detail
from judgegraph.declarations.scoring import round_half_up
from judgegraph.evaluators import create_evaluator
from judgegraph.graph import api, rubrics
from judgegraph.graph.api import evaluate, run_evaluation
from judgegraph.graph.metrics_view import rubric_metrics, run_metrics
from judgegraph.llm.structured import structured_step
from judgegraph.prompts import make_environment, template_messages
from judgegraph.run.context import resolved_context
from judgegraph.run.judgment_step import judgment_update
from judgegraph.schemas.inputs import NonBlank
from judgegraph.schemas.metrics import Score
from tests.support import fakes

COMPILED_ONCE = api.default_graph
"""The graph module's cached builder, read before the conftest wraps it for the test's run."""

# --- prompts/judge_politeness.j2 ------------------------------------------------------------------

NODE = "judge_politeness"
TEMPLATE = """{% block system %}You judge how politely an agent replied to a customer.{% endblock %}
{% block user %}<input>{{ message | data }}</input>
<answer>{{ reply | data }}</answer>
Is the answer polite, curt or rude? Reply as JSON.{% endblock %}"""
TEMPLATES = make_environment(jinja2.DictLoader({f"{NODE}.j2": TEMPLATE}))

# --- nodes/politeness/rubric.py: its models ---------------------------------------------------------


class PolitenessInput(BaseModel):
    model_config = ConfigDict(extra="ignore")
    message: NonBlank
    reply: NonBlank


class PolitenessJudgment(BaseModel):
    """The step's reply: an observation, no score."""

    reasoning: str
    politeness: Literal["polite", "curt", "rude"]


class PolitenessResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    politeness: float | None = None
    politeness_explanation: str | None = None


# --- its metric ----------------------------------------------------------------------------------

KEY = "politeness"
VALUES = {"polite": 1.0, "curt": 0.5, "rude": 0.0}


def judge_politeness(state: dict, runtime):
    """Ask the judge (in the package: `run_judgment(NODE, PolitenessJudgment, runtime, ...)`)."""
    item = state["inputs"]["politeness"]
    context = yield from resolved_context(runtime.context)
    started = time.perf_counter()
    messages = template_messages(TEMPLATES.get_template(f"{NODE}.j2"), message=item.message, reply=item.reply)
    outcome = yield from structured_step(context.model, messages, PolitenessJudgment, max_repairs=context.max_repairs,
                                         dialect=context.response_format)
    return judgment_update(NODE, outcome, started, runtime)


def decide_politeness(signals: PolitenessJudgment, parameters: None = None) -> Score:
    return Score(VALUES[signals.politeness], f"The reply is {signals.politeness}: {signals.reasoning}")


def politeness_of_run(state: Mapping[str, Any], item: PolitenessInput, profile) -> Score:
    outcome = state.get("judgments", {}).get(NODE)
    if outcome is None or outcome.value is None:
        return Score.failed("Politeness", outcome.error if outcome else "the step did not run")
    return decide_politeness(outcome.value)


def politeness_signals_of_run(state: Mapping[str, Any], item: PolitenessInput) -> dict[str, Any]:
    outcome = state.get("judgments", {}).get(NODE)
    return {"politeness": outcome.value.politeness} if outcome is not None and outcome.value else {}


def politeness_record_signals(details) -> dict[str, Any]:
    detail = step_detail(details, NODE)
    return {"politeness": detail["politeness"]} if detail else {}


POLITENESS = MetricDeclaration(
    spec=MetricSpec(KEY, kind="score", scale=(0, 1), field=KEY),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, judge_politeness),),
    score=politeness_of_run,
    decide=decide_politeness,
    read_signals=politeness_record_signals,
    record_signals=politeness_signals_of_run,
    signal_sources=("llm/structured.py",),
)

# --- its output, rendered from the scores, its failure shape, and its declaration -----------------


def politeness_result(scores: Mapping[str, Score], item: PolitenessInput, state: Mapping[str, Any]) -> PolitenessResult:
    score = scores[KEY]
    return PolitenessResult(politeness=None if score.score is None else round_half_up(score.score, 2),
                            politeness_explanation=score.explanation)


def politeness_failure(reason: str) -> PolitenessResult:
    return PolitenessResult(politeness_explanation=reason)


RUBRIC = declared_rubric(
    "politeness", (POLITENESS,),
    input_model=PolitenessInput, output_model=PolitenessResult,
    render=politeness_result, failure=politeness_failure,
    signature_keys=("message", "reply"),
    field_labels={"message": "customer message", "reply": "agent reply"},
)

# --- graph/rubrics.py: its line --------------------------------------------------------------------


@pytest.fixture
def fifth_rubric(monkeypatch):
    monkeypatch.setattr(rubrics, "RUBRICS", (RUBRIC, *rubrics.RUBRICS))
    COMPILED_ONCE.cache_clear()  # the compiled graph is built once per process
    yield RUBRIC
    COMPILED_ONCE.cache_clear()


ITEM = {"message": "My parcel never arrived.", "reply": "Not our problem."}


def judge_saying(politeness: str):
    return fakes.judge(PolitenessJudgment={"reasoning": "It dismisses the customer.", "politeness": politeness})


# --- tests/nodes/politeness/test_politeness.py ------------------------------------------------------


def test_it_is_detected_judged_and_rendered_from_its_score(fifth_rubric):
    assert evaluate(ITEM, model=judge_saying("curt")) == {
        "politeness": 0.5, "politeness_explanation": "The reply is curt: It dismisses the customer."}


def test_its_score_and_records_travel_typed(fifth_rubric):
    run = run_evaluation(ITEM, model=judge_saying("rude"))
    score = run.scores["politeness"][KEY]
    assert (score.score, score.status, score.scale, dict(score.signals)) == (0.0, "judged", (0, 1), {"politeness": "rude"})
    (typed,) = run_metrics("politeness", run.result, run.scores["politeness"])
    assert typed == rubric_metrics("politeness", run.result, details=run.trace_json())[0]


def test_a_judge_that_never_answers_fails_its_metric_with_the_cause(fifth_rubric):
    run = run_evaluation(ITEM, model=fakes.judge(PolitenessJudgment=ValueError("the judge is down")))
    assert run.result["politeness"] is None and "could not be judged" in run.result["politeness_explanation"]
    (record,) = run_metrics("politeness", run.result, run.scores["politeness"])
    assert record.status == "failed" and "the judge is down" in record.error


def test_invalid_input_gets_its_failure_shape_without_a_call(fifth_rubric):
    judge = judge_saying("polite")
    result = evaluate({"message": "Hello?", "reply": "  "}, model=judge)
    assert result["politeness"] is None and "agent reply" in result["politeness_explanation"]
    assert judge.prompts_for("PolitenessJudgment") == []


def test_its_evaluator_reads_langsmiths_dicts_by_its_field_names(fifth_rubric):
    evaluator = create_evaluator("politeness", model=judge_saying("polite"))
    (row,) = evaluator(inputs={"message": ITEM["message"]}, outputs={"reply": "We are sorry; a new one is on its way."})
    assert (row["key"], row["score"], row["metadata"]["status"], row["metadata"]["scale"]) == (
        "politeness", 1.0, "judged", "0-1")


def test_the_page_lists_six_files():
    page = (Path(__file__).resolve().parents[1] / "docs" / "adding-a-rubric.md").read_text(encoding="utf-8")
    section = page.split("## The files a new rubric needs", 1)[1].split("\n## ", 1)[0]
    steps = re.findall(r"^(\d+)\. `([^`]+)`", section, flags=re.MULTILINE)
    assert [path for _, path in steps] == [
        "nodes/<name>/__init__.py", "nodes/<name>/rubric.py", "prompts/judge_<name>.j2", "graph/rubrics.py",
        "pyproject.toml", "tests/nodes/<name>/test_<name>.py"]
