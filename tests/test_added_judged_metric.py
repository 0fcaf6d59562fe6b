"""A rag metric that asks the judge is one module and one line too (docs/adding-a-metric.md).

The toy metric here, answer tone, asks the judge with its own prompt template (kept outside the
package: `prompts.make_environment`) for its own reply schema (`ToneJudgment`), judges the
question (`MetricDeclaration.reads_question`), and records the reply's label probability as
its signal. It is registered only for these tests, as one more line in
`nodes/rag/metrics.DECLARED` would register it: an item may then request it by name, it is
judged through the graph against a scripted fake chat model, and its metric record carries
its signals; no table beyond the rubric's tuple was edited.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Literal

import jinja2
import pytest
from pydantic import BaseModel

from judgegraph.declarations.metric_declaration import MetricDeclaration
from judgegraph.declarations.rubric_spec import MetricSpec, NodeSpec
from judgegraph.declarations.run_details import step_detail
from judgegraph.declarations.scoring import MetricScore
from judgegraph.graph import api, rubrics
from judgegraph.graph.api import evaluate
from judgegraph.llm.structured import structured_step
from judgegraph.nodes.rag.metrics import DECLARED
from judgegraph.nodes.rag.rubric import rag_rubric
from judgegraph.prompts import make_environment, template_messages
from judgegraph.run.context import resolved_context
from judgegraph.run.judgment_step import judgment_update
from judgegraph.schemas.rag import RagResult
from tests.conftest import happy_scripts
from tests.support import fakes

COMPILED_ONCE = api.default_graph

# --- the toy metric's module, as `nodes/rag/answer_tone.py` (and `prompts/judge_answer_tone.j2`) would hold it

NODE = "judge_answer_tone"
KEY = "answer_tone"
TEMPLATE = """{% block system %}You judge the tone of an answer to a question.{% endblock %}
{% block user %}Question: {{ question | data }}
Answer: {{ answer | data }}
Is the answer's tone polite, neutral or rude? Reply as JSON.{% endblock %}"""
TEMPLATES = make_environment(jinja2.DictLoader({f"{NODE}.j2": TEMPLATE}))
SCORES = {"polite": 1.0, "neutral": 0.75, "rude": 0.0}


class ToneJudgment(BaseModel):
    """The metric's own reply schema: the fake judge routes the call by its name."""

    tone: Literal["polite", "neutral", "rude"]
    reasoning: str


def judge_answer_tone(state: dict, runtime):
    """Ask the judge with the metric's own template and schema; record the reply."""
    rag = state["inputs"]["rag"]
    context = yield from resolved_context(runtime.context)
    started = time.perf_counter()
    messages = template_messages(TEMPLATES.get_template(f"{NODE}.j2"), question=rag.question, answer=rag.answer)
    outcome = yield from structured_step(context.model, messages, ToneJudgment, max_repairs=context.max_repairs,
                                         dialect=context.response_format)
    return judgment_update(NODE, outcome, started, runtime)


def decide_answer_tone(signals: ToneJudgment, parameters: None = None) -> MetricScore:
    return MetricScore(SCORES[signals.tone], f"The answer's tone is {signals.tone}: {signals.reasoning}")


def answer_tone_of_run(state: Mapping[str, Any], rag, profile) -> MetricScore:
    outcome = state.get("judgments", {}).get(NODE)
    if outcome is None or outcome.value is None:
        return MetricScore.failed("Answer tone", outcome.error if outcome else "the step did not run")
    return decide_answer_tone(outcome.value)


def tone_record_signals(details) -> dict[str, Any]:
    detail = step_detail(details, NODE)
    return {"tone": detail["tone"]} if detail else {}


ANSWER_TONE = MetricDeclaration(
    spec=MetricSpec(KEY, kind="score", scale=(0, 1), field=KEY),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, judge_answer_tone),),
    score=answer_tone_of_run,
    decide=decide_answer_tone,
    read_signals=tone_record_signals,
    reads_question=True,
)

# --- registered for these tests only ------------------------------------------------------------


@pytest.fixture
def added_metric(monkeypatch):
    """`DECLARED` plus the toy metric, as one more line there would make it."""
    rubric = rag_rubric((*DECLARED, ANSWER_TONE))
    monkeypatch.setattr(rubrics, "RUBRICS", tuple(rubric if r.name == "rag" else r for r in rubrics.RUBRICS))
    COMPILED_ONCE.cache_clear()
    yield rubric
    COMPILED_ONCE.cache_clear()


def _judge(tone: str = "rude"):
    return fakes.judge(**happy_scripts(), ToneJudgment={"tone": tone, "reasoning": "It insults the asker."})


def test_an_item_may_request_the_added_metric_and_only_declared_names(added_metric, rag_item):
    model = _judge()
    output = evaluate(rag_item | {"metrics": [KEY]}, model=model)
    assert output[KEY] == 0.0 and output[f"{KEY}_explanation"] == "The answer's tone is rude: It insults the asker."
    assert output["faithfulness_explanation"] == "Not requested."
    assert model.count("ToneJudgment") == 1 and model.count("check_claim") == 0
    prompt = model.prompts_for("ToneJudgment")[0]
    assert "Is the answer's tone polite, neutral or rude?" in prompt and rag_item["question"] in prompt

    refused = evaluate(rag_item | {"metrics": ["answer_mood"]}, model=_judge())
    assert refused["evaluation_status"] == "failed" and "'answer_tone'" in refused["reason"]
    assert "'metrics.0'" in refused["reason"]


def test_without_the_line_the_name_is_not_requestable(rag_item):
    refused = evaluate(rag_item | {"metrics": [KEY]}, model=_judge())
    assert refused["evaluation_status"] == "failed" and "'metrics.0'" in refused["reason"]
    assert list(evaluate(rag_item, model=fakes.judge(**happy_scripts()))) == list(RagResult.model_fields)


def test_its_record_carries_the_signals_its_declaration_reads(added_metric, rag_item):
    run = api.run_evaluation(rag_item | {"metrics": ["faithfulness", KEY]}, model=_judge("neutral"))
    records = {m.key: m for m in added_metric.read_metrics(run.result, None, run.trace_json())}
    assert records[KEY].status == "judged" and records[KEY].score == 0.75
    assert records[KEY].signals == {"tone": "neutral"}


def test_it_judges_the_question_so_a_lost_standalone_question_skips_it(added_metric):
    assert NODE in added_metric.question_nodes
    assert added_metric.question_nodes == ("judge_context_relevance", "judge_answer_relevance", NODE)
