"""A rubric declared from its metrics: `declared_rubric` fills in what every rubric shares.

Why: a rubric's nodes, plan, question nodes, decisions, metric records and (for a rubric whose
item reads its fields by their own names) LangSmith item follow from its metric declarations
and its input model. The four seed rubrics keep their own readers and items, because their
seeds' shapes say "not judged" in their own ways (docs/adding-a-rubric.md); a new rubric
writes its models, its metric module(s) and its `rubric.py`, which renders its output from
the scores (`render`), and takes the rest from here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from pydantic import BaseModel

from ..schemas.evaluator_fields import compact
from ..schemas.metrics import MetricRecord, Score, value_at
from .metric_declaration import MetricDeclaration, declared_nodes, decided, entry_nodes, question_nodes
from .rubric_spec import RubricSpec


def decide_each(metrics: tuple[MetricDeclaration, ...], state: Mapping[str, Any], item: Any) -> dict[str, Score]:
    """Every metric decided once from the finished state, in declaration order."""
    return {metric.key: decided(metric, state, item, state.get("profile")) for metric in metrics}


def records_of_scores(rubric: str, metrics: tuple[MetricDeclaration, ...], scores: Mapping[str, Score],
                      result: dict, selected: tuple[str, ...] | None = None) -> list[MetricRecord]:
    """A judged run's records: everything from the typed scores, the value as rendered."""
    return [MetricRecord(metric.key, value_at(result, metric.spec.field)[1], score.explanation, score.status, rubric,
                         score.scale, score.error, value=score.label, signals=score.signals)
            for metric in metrics
            if (score := scores.get(metric.key)) is not None and (selected is None or metric.key in selected)]


def records_of_output(rubric: str, metrics: tuple[MetricDeclaration, ...], result: dict,
                      selected: tuple[str, ...] | None = None,
                      details: Mapping[str, Any] | None = None) -> list[MetricRecord]:
    """An output read back from a results file: a metric with a value at its field is judged,
    one without failed; its explanation at `<field>_explanation` when the output has one."""
    records = []
    for metric in metrics:
        if selected is not None and metric.key not in selected:
            continue
        value = value_at(result, metric.spec.field)[1]
        explanation = value_at(result, f"{metric.spec.field}_explanation")[1]
        records.append(MetricRecord(metric.key, value, explanation, "judged" if value is not None else "failed",
                                    rubric, metric.spec.scale, signals=metric.read_signals(details)))
    return records


def item_by_field_names(input_model: type[BaseModel], inputs: Any, outputs: Any, reference_outputs: Any,
                        extra: Mapping[str, Any]) -> dict:
    """The item from LangSmith's three dicts by the input model's own field names (a plain
    string output is the item's answer field, when it has one)."""
    found: dict[str, Any] = {}
    for source in (reference_outputs, outputs, inputs):  # the inputs win, then the app's outputs
        if isinstance(source, Mapping):
            found |= {name: source[name] for name in input_model.model_fields if source.get(name) is not None}
    if isinstance(outputs, str) and "answer" in input_model.model_fields:
        found.setdefault("answer", outputs)
    return compact(found)


def declared_rubric(name: str, metrics: tuple[MetricDeclaration, ...], *, input_model: type[BaseModel],
                    output_model: type[BaseModel], render: Callable[[Mapping[str, Score], Any, Mapping[str, Any]], BaseModel],
                    failure: Callable[[str], BaseModel], signature_keys: tuple[str, ...],
                    field_labels: Mapping[str, str], **more: Any) -> RubricSpec:
    """A `RubricSpec` whose nodes, plan, question nodes, decisions, metric records and
    LangSmith item come from `metrics` and `input_model`; `more` sets or overrides any other
    `RubricSpec` field (`build_error`, `context_fields`, `field_aliases`, `plan`, ...)."""
    defaults: dict[str, Any] = dict(
        metrics=tuple(metric.spec for metric in metrics),
        nodes=declared_nodes(metrics),
        plan=lambda _item: entry_nodes(metrics),
        decide=partial(decide_each, metrics),
        score_records=partial(records_of_scores, name, metrics),
        read_metrics=partial(records_of_output, name, metrics),
        evaluator_item=partial(item_by_field_names, input_model),
        question_nodes=question_nodes(metrics),
    )
    return RubricSpec(name=name, signature_keys=signature_keys, field_labels=field_labels, input_model=input_model,
                      output_models=(output_model,), build_result=render, build_failure=failure,
                      **(defaults | more))
