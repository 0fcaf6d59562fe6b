"""Evaluator factories in the LangSmith / openevals convention, one per rubric.

Why this shape: LangSmith's `evaluate()` / `aevaluate()` and its pytest integration call an
evaluator as `evaluator(inputs=..., outputs=..., reference_outputs=...)` and take a list of
`{"key", "score", "comment", "metadata"}` dicts as one feedback row each; openevals builds its
evaluators the same way (a keyword-only factory that returns that callable). So a judgegraph
evaluator drops into an existing LangSmith experiment or test suite unchanged:

    from langsmith import evaluate
    from judgegraph.evaluators import create_rag_evaluator

    evaluate(my_rag_app, data="my-dataset", evaluators=[create_rag_evaluator(model="openai:gpt-4o-mini")])

Inside a `@pytest.mark.langsmith` test the evaluator also logs its rows as the test case's
feedback, as openevals evaluators do. Model faults never raise: the graph turns them into
failed metrics; only a model that cannot be set up at all raises `ModelConfigError`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pathlib import Path

from ..calibration.profile import load_profile

from ..declarations.rubric_spec import ItemBuilder, RubricSpec
from ..graph import rubrics
from ..graph.api import EvaluationRun, arun_evaluation, run_evaluation
from ..llm.steps import Step, adrive, drive
from ..run.context import JudgeContext
from ..run.judge_builder import ModelSpec, build_judge
from ..schemas.evaluator_fields import mapped
from .feedback import feedback_rows
from .langsmith_offline import untraced_when_nothing_can_be_uploaded
from .unread_keys import recording, unread_keys

Results = list[dict]
SyncEvaluator = Callable[..., Results]
AsyncEvaluator = Callable[..., Awaitable[Results]]
FieldMap = str | Mapping[str, str] | None


@contextlib.contextmanager
def _langsmith_test_feedback(name: str):
    """Inside a `@pytest.mark.langsmith` test: trace the judgement as feedback and log each row
    (openevals does the same). Elsewhere, or without langsmith, this does nothing."""
    try:
        from langsmith import testing
        from langsmith.testing._internal import _TEST_CASE
    except ImportError:
        yield None
        return
    if _TEST_CASE.get() is None:
        yield None
        return
    rows: Results = []
    with testing.trace_feedback(name=name):
        yield rows
        for row in rows:
            extra = {"value": row["value"]} if "value" in row else {}
            testing.log_feedback(key=row["key"], score=row["score"], comment=row["comment"], **extra)


def _build(rubric: RubricSpec, *, model: ModelSpec, metrics: list[str] | tuple[str, ...] | None,
           feedback_key_prefix: str, prepare_item: ItemBuilder | None, item_defaults: dict,
           max_concurrency: int | None, base_url: str | None, settings: dict,
           field_map: dict[str, str] | None = None):
    if metrics is not None and not rubric.selectable_metrics:
        selectable = " / ".join(spec.name for spec in rubrics.RUBRICS if spec.selectable_metrics)
        raise ValueError(f"metrics= selects {selectable} metrics; the {rubric.name} rubric has a fixed set")
    selected = tuple(metrics) if metrics else None
    if isinstance(settings.get("calibration"), (str, Path)):  # a bad profile file fails here, not at item 1
        settings = {**settings, "calibration": load_profile(settings["calibration"])}
    state: dict[str, JudgeContext] = {}

    def context() -> JudgeContext:
        if "context" not in state:  # resolved once, on first use: building an evaluator is free
            state["context"] = build_judge(model, base_url=base_url, **settings)
        return state["context"]

    def item_for(inputs: Any, outputs: Any, reference_outputs: Any,
                 extra: Mapping[str, Any]) -> tuple[dict, dict[str, list[str]]]:
        """The item, and the keys of the dicts the rubric's builder never read (`unread_keys`;
        none named when the caller builds the item with `prepare_item=`)."""
        if field_map:
            inputs, outputs, reference_outputs = (mapped(part, field_map) for part in (inputs, outputs, reference_outputs))
            extra = mapped(extra, field_map)
        parts = {"inputs": inputs, "outputs": outputs, "reference_outputs": reference_outputs, "context=": extra}
        if prepare_item is None:
            parts = {name: recording(part) for name, part in parts.items()}
        build = prepare_item or rubric.evaluator_item
        item = {**item_defaults, **build(*parts.values())}
        if selected:
            item["metrics"] = list(selected)
        return item, unread_keys(parts) if prepare_item is None else {}

    def rows_of(run: EvaluationRun, unread: dict[str, list[str]]) -> Results:
        return feedback_rows(rubric.name, run, selected, feedback_key_prefix, unread)

    return context, item_for, rows_of


@dataclass(frozen=True)
class Options:
    """What every factory accepts (see `judgegraph.evaluators` for each parameter)."""

    model: ModelSpec = None
    metrics: list[str] | tuple[str, ...] | None = None
    feedback_key_prefix: str = ""
    prepare_item: ItemBuilder | None = None
    item_defaults: Mapping[str, Any] | None = None
    max_concurrency: int | None = None
    base_url: str | None = None
    field_map: Mapping[str, str] | None = None
    """{field: key}, checked (`input_fields.checked_field_map`), applied to each of LangSmith's dicts."""


def _parts(rubric: RubricSpec, options: Options, settings: dict):
    return _build(rubric, model=options.model, metrics=options.metrics,
                  feedback_key_prefix=options.feedback_key_prefix, prepare_item=options.prepare_item,
                  item_defaults=dict(options.item_defaults or {}), max_concurrency=options.max_concurrency,
                  base_url=options.base_url, settings=settings, field_map=dict(options.field_map or {}))


@dataclass(frozen=True, slots=True)
class EvaluationCall:
    """A request (`llm.steps`) to judge one item: `run_evaluation`, or awaited `arun_evaluation`."""

    item: dict
    context: JudgeContext
    rubric: str
    max_concurrency: int | None

    def run(self) -> EvaluationRun:
        return run_evaluation(self.item, model=self.context, rubric=self.rubric,
                              max_concurrency=self.max_concurrency)

    async def arun(self) -> EvaluationRun:
        return await arun_evaluation(self.item, model=self.context, rubric=self.rubric,
                                     max_concurrency=self.max_concurrency)


def _evaluator_step(rubric_name: str, options: Options, settings: dict):
    """The rubric and the evaluator's logic once, as a step: the sync and async evaluators only drive it."""
    rubric = rubrics.get(rubric_name)
    context, item_for, rows_of = _parts(rubric, options, settings)

    def judge(inputs: Any, outputs: Any, reference_outputs: Any, kw: dict) -> Step[Results]:
        item, unread = item_for(inputs, outputs, reference_outputs, kw)
        with _langsmith_test_feedback(f"judgegraph_{rubric.name}") as logged, untraced_when_nothing_can_be_uploaded():
            run = yield EvaluationCall(item, context(), rubric.name, options.max_concurrency)
            rows = rows_of(run, unread)
            if logged is not None:
                logged.extend(rows)
        return rows

    return rubric, judge


def _named(evaluator, rubric: RubricSpec, what: str):
    evaluator.__name__ = f"judgegraph_{rubric.name}"
    evaluator.__doc__ = f"judgegraph's {rubric.name} rubric as {what}."
    return evaluator


def make_evaluator(rubric_name: str, options: Options, **settings: Any) -> SyncEvaluator:
    """The sync evaluator for `rubric_name`.

    Args:
        rubric_name: a declared rubric's name (`graph.rubrics`).
        options: what every factory accepts (`Options`).
        **settings: `JudgeContext` fields, for the context built when the first item is judged.
    """
    rubric, judge = _evaluator_step(rubric_name, options, settings)

    def evaluator(*, inputs: Any = None, outputs: Any = None, reference_outputs: Any = None, **kw: Any) -> Results:
        return drive(judge(inputs, outputs, reference_outputs, kw))

    return _named(evaluator, rubric, "a LangSmith evaluator (one row per metric)")


def make_async_evaluator(rubric_name: str, options: Options, **settings: Any) -> AsyncEvaluator:
    """`make_evaluator`'s coroutine twin, for `langsmith.aevaluate`: the same arguments, each
    item judged with `arun_evaluation`.

    Args:
        rubric_name: as for `make_evaluator`.
        options: as for `make_evaluator`.
        **settings: as for `make_evaluator`.
    """
    rubric, judge = _evaluator_step(rubric_name, options, settings)

    async def evaluator(*, inputs: Any = None, outputs: Any = None, reference_outputs: Any = None,
                        **kw: Any) -> Results:
        return await adrive(judge(inputs, outputs, reference_outputs, kw))

    return _named(evaluator, rubric, "an async LangSmith evaluator")
