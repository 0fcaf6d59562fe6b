"""A rag metric that asks the judge is one module and one line too (docs/adding-a-metric.md).

The toy metric here, answer tone, asks the judge with its own prompt template (kept outside the
package: `prompts.make_environment`) for its own reply schema (`ToneJudgment`), judges the
question (`MetricDeclaration.reads_question`), and records the reply's label probability as
its signal. It is registered only for these tests, as one more line in
`nodes/rag/metrics.DECLARED` would register it: an item may then request it by name, it is
judged through the graph against a scripted fake chat model, and its metric record carries
its signals; no table beyond the rubric's tuple was edited.

It is calibrated too, as a metric is by declaring it (`calibration.calibrated_metric`) next to
its decision and listing it in `calibration/calibrated_metrics.CALIBRATED`: its section class
(the tone values its decision reads), its signal sources and its fit (`fit`, a reference to its
`MetricFitting`, here in this module). The profile model and the fitted metrics are built from
a tuple of declarations (`profile_model`, `fitted_metrics`), so these tests pass them
`CALIBRATED` plus the toy metric, as the one more line would: no table is edited and nothing is
monkeypatched. The command line's `--metric` choices are the one names list kept apart (its
parser must not load pydantic); a test holds it equal to `CALIBRATED`'s keys.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any, Literal

import jinja2
import pytest
from pydantic import BaseModel, ConfigDict, Field

from judgegraph.calibration.calibrated_metric import CalibratedMetric
from judgegraph.calibration.calibrated_metrics import CALIBRATED
from judgegraph.calibration.profile import SHIPPED_DIR, FitRecord, ProfileError, parse_profile, profile_model
from judgegraph.fitting.cross_validation import MetricFit, cross_validate
from judgegraph.fitting.fitted_metrics import FITTED_METRICS, fitted_metrics
from judgegraph.fitting.metric_fitting import MetricFitting

from judgegraph.declarations.metric_declaration import MetricDeclaration
from judgegraph.declarations.rubric_spec import MetricSpec, NodeSpec
from judgegraph.declarations.run_details import step_detail
from judgegraph.schemas.metrics import Score
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


Tone = Literal["polite", "neutral", "rude"]


class ToneParameters(BaseModel):
    """What the metric's decision reads from a profile: each tone's score."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tone_value: dict[Tone, float] = Field(default_factory=lambda: dict(SCORES))


class ToneSection(BaseModel):
    """The metric's profile section, shaped as every calibrated metric's."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    parameters: ToneParameters
    signal_hash: str | None = None
    fit: FitRecord | None = None


def decide_answer_tone(signals: ToneJudgment, parameters: ToneParameters | None = None) -> Score:
    values = (parameters or ToneParameters()).tone_value
    return Score(values[signals.tone], f"The answer's tone is {signals.tone}: {signals.reasoning}")


def answer_tone_of_run(state: Mapping[str, Any], rag, profile) -> Score:
    outcome = state.get("judgments", {}).get(NODE)
    if outcome is None or outcome.value is None:
        return Score.failed("Answer tone", outcome.error if outcome else "the step did not run")
    return decide_answer_tone(outcome.value)


def tone_record_signals(details) -> dict[str, Any]:
    detail = step_detail(details, NODE)
    return {"tone": detail["tone"]} if detail else {}


TONE_CALIBRATION = CalibratedMetric(
    key=KEY,
    section=ToneSection,
    signal_sources=("llm/structured.py", "run/judgment_step.py"),
    fit=f"{__name__}:TONE_FITTING",
)


def recorded_tone(record: dict) -> Tone | None:
    """A batch record written with `--details` -> the tone its judge wrote (None without it)."""
    detail = step_detail(record.get("details"), NODE)
    return detail["tone"] if detail else None


def tone_score(tone: Tone, parameters: ToneParameters) -> float:
    return parameters.tone_value[tone]


def fit_tone(items, labels, kind, start: ToneParameters, levels, groups) -> ToneParameters:
    """Each tone's value is the mean label of the items judged with it (the start's when none)."""
    values = dict(start.tone_value)
    for tone in values:
        seen = [label for item, label in zip(items, labels) if item == tone]
        if seen:
            values[tone] = sum(seen) / len(seen)
    return ToneParameters(tone_value=values)


TONE_FITTING = MetricFitting(recorded_tone, MetricFit(tone_score, fit_tone))

ANSWER_TONE = MetricDeclaration(
    spec=MetricSpec(KEY, kind="score", scale=(0, 1), field=KEY),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, judge_answer_tone),),
    score=answer_tone_of_run,
    decide=decide_answer_tone,
    read_signals=tone_record_signals,
    reads_question=True,
    calibration=TONE_CALIBRATION,
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


# --- calibrated: its declaration, in the tuple the profile and the fitted metrics loop over --------

WITH_TONE = (*CALIBRATED, TONE_CALIBRATION)
"""`CALIBRATED` plus the toy metric, as one more line there would make it."""


def test_its_declaration_names_its_calibration_and_so_its_signal_sources():
    assert ANSWER_TONE.calibrated and ANSWER_TONE.calibration is TONE_CALIBRATION
    assert ANSWER_TONE.signal_sources == TONE_CALIBRATION.signal_sources
    assert len(TONE_CALIBRATION.signal_hash) == 16
    assert KEY not in FITTED_METRICS  # registered for these tests only


def test_a_profile_with_its_section_loads_dumps_and_is_hash_checked():
    model = profile_model(WITH_TONE)
    assert list(model.model_fields)[-4:] == ["faithfulness", "context_relevance", "answer_relevance", KEY]
    assert KEY in model.model_json_schema()["properties"]
    shipped = json.loads((SHIPPED_DIR / "default.json").read_text(encoding="utf-8"))
    fitted = {"parameters": {"tone_value": {"polite": 0.9, "neutral": 0.6, "rude": 0.1}},
              "signal_hash": TONE_CALIBRATION.signal_hash}
    profile = parse_profile(shipped | {"id": "toned", KEY: fitted}, model=model)
    assert profile.section(KEY).parameters.tone_value["neutral"] == 0.6
    assert parse_profile(json.loads(json.dumps(profile.model_dump(mode="json"))), model=model) == profile
    assert decide_answer_tone(ToneJudgment(tone="rude", reasoning="."), profile.section(KEY).parameters).score == 0.1

    with pytest.raises(ProfileError, match=f"fitted on {KEY} signals that have changed"):
        parse_profile(shipped | {"id": "stale", KEY: fitted | {"signal_hash": "0" * 16}}, model=model)
    with pytest.raises(ProfileError, match=KEY):  # the shipped model has no such section
        parse_profile(shipped | {"id": "toned", KEY: fitted})


def test_the_fitting_loop_sees_it_and_fits_it_on_recorded_runs(added_metric, rag_item):
    fitted = fitted_metrics(WITH_TONE)
    assert list(fitted) == [*FITTED_METRICS, KEY]
    tone = fitted[KEY]
    assert tone.section is ToneSection and tone.signal_hash == TONE_CALIBRATION.signal_hash

    # judged records, as a batch run with --details writes them, read back by the declared reader
    records = []
    for judged in ("polite", "neutral", "rude", "neutral") * 4:
        run = api.run_evaluation(rag_item | {"metrics": [KEY]}, model=_judge(judged))
        records.append({"details": run.trace_json()})
    items = [tone.read(record) for record in records]
    assert items[:4] == ["polite", "neutral", "rude", "neutral"]

    # people found the "neutral" answers fine: the fit raises neutral, and held out it beats the start
    labels = [{"polite": 1.0, "neutral": 1.0, "rude": 0.0}[item] for item in items]
    start = ToneParameters()
    parameters = tone.fitting.fit(items, labels, "binary", start, (0.0, 1.0), None)
    assert parameters.tone_value == {"polite": 1.0, "neutral": 1.0, "rude": 0.0}
    held = cross_validate(tone.fitting, items, labels, "binary", start, folds=2)
    assert held.after == held.labels and held.before != held.labels  # held-out, in fold order
    section = tone.section(parameters=parameters, signal_hash=tone.signal_hash)
    assert parse_profile({"id": "fitted", KEY: section.model_dump(mode="json")}, model=profile_model(WITH_TONE))
