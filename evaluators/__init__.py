"""judgegraph's rubrics as LangSmith / openevals-style evaluators.

    evaluator = create_rag_evaluator(model="openai:gpt-4o-mini")   # or a chat model, or None
    rows = evaluator(inputs={"question": q}, outputs={"answer": a, "context": docs},
                     reference_outputs={"answer": ref})
    # [{"key": "faithfulness", "score": 0.5, "comment": "...", "metadata": {"status": "judged", ...}}, ...]

Each factory is keyword-only and returns `(*, inputs, outputs, reference_outputs=None, **kw)`,
the shape `langsmith.evaluate` and the openevals evaluators use; `create_async_*` return the
coroutine twin for `langsmith.aevaluate`. Parameters (all optional):

- `model`: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`, or
  a model name served at `base_url`), or None for the default judge (`JUDGEGRAPH_MODEL`,
  `OPENAI_BASE_URL`, else the embedded local model).
- `metrics` (rag only): judge only these, e.g. `["faithfulness"]`; one row per metric.
- `feedback_key_prefix`: prepended to every key (`"jg_"` -> `"jg_faithfulness"`).
- `prepare_item(inputs, outputs, reference_outputs, extra) -> dict`: build the rubric's item
  yourself when your dataset uses other field names (`extra` holds the call's other kwargs).
- `item_defaults`: fixed item fields, e.g. `{"evaluation_goal": "fact-checking"}`.
- `field_map`: read a field from another key of the dict that holds it, e.g.
  `{"answer": "generation", "context": "passages"}` (or `"answer=generation,context=passages"`);
  RAGAS, DeepEval and LangChain names (`retrieved_contexts`, `actual_output`,
  `source_documents`...) are read without it (docs/input-fields.md).
- `max_concurrency`; any other keyword (`max_repairs=`, `claim_check="batch"`) is a
  `JudgeContext` setting.

Every rubric judgegraph declares (`judgegraph.nodes.rubrics`) also has an evaluator by name:
`create_evaluator("coverage", model=...)`, `create_async_evaluator(...)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..nodes.common.input_fields import checked_field_map
from ..nodes.common.rubric_spec import ItemBuilder
from .factories import (
    AsyncEvaluator,
    FieldMap,
    ModelSpec,
    Options,
    SyncEvaluator,
    make_async_evaluator,
    make_evaluator,
)


def _options(model: ModelSpec, metrics, feedback_key_prefix: str, prepare_item, item_defaults,
             max_concurrency: int | None, base_url: str | None, field_map: FieldMap = None) -> Options:
    return Options(model=model, metrics=metrics, feedback_key_prefix=feedback_key_prefix,
                   prepare_item=prepare_item, item_defaults=item_defaults,
                   max_concurrency=max_concurrency, base_url=base_url, field_map=checked_field_map(field_map))


def create_evaluator(rubric: str, *, model: ModelSpec = None, metrics: list[str] | None = None,
                     feedback_key_prefix: str = "", prepare_item: ItemBuilder | None = None,
                     item_defaults: Mapping[str, Any] | None = None, max_concurrency: int | None = None,
                     base_url: str | None = None,
                     field_map: FieldMap = None, **settings: Any) -> SyncEvaluator:
    """The evaluator of any declared rubric, by name: one row per metric it declares.

    Args:
        rubric: the name of a declared rubric (`judgegraph.nodes.rubrics`): `rag`, `liverag`,
            `coverage`, `expected_output`...
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        metrics: judge only these of the rubric's metrics, e.g. `["faithfulness"]` (for a rubric
            whose items may pick them); None: all.
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        item_defaults: fixed item fields, e.g. `{"evaluation_goal": "fact-checking"}`.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    options = _options(model, metrics, feedback_key_prefix, prepare_item, item_defaults,
                       max_concurrency, base_url, field_map)
    return make_evaluator(rubric, options, **settings)


def create_async_evaluator(rubric: str, *, model: ModelSpec = None, metrics: list[str] | None = None,
                           feedback_key_prefix: str = "", prepare_item: ItemBuilder | None = None,
                           item_defaults: Mapping[str, Any] | None = None, max_concurrency: int | None = None,
                           base_url: str | None = None,
                           field_map: FieldMap = None, **settings: Any) -> AsyncEvaluator:
    """The async twin of `create_evaluator`, for `langsmith.aevaluate`.

    Args:
        rubric: the name of a declared rubric (`judgegraph.nodes.rubrics`): `rag`, `liverag`,
            `coverage`, `expected_output`...
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        metrics: judge only these of the rubric's metrics, e.g. `["faithfulness"]` (for a rubric
            whose items may pick them); None: all.
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        item_defaults: fixed item fields, e.g. `{"evaluation_goal": "fact-checking"}`.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    options = _options(model, metrics, feedback_key_prefix, prepare_item, item_defaults,
                       max_concurrency, base_url, field_map)
    return make_async_evaluator(rubric, options, **settings)


def create_rag_evaluator(*, model: ModelSpec = None, metrics: list[str] | None = None,
                         feedback_key_prefix: str = "", prepare_item: ItemBuilder | None = None,
                         item_defaults: Mapping[str, Any] | None = None, max_concurrency: int | None = None,
                         base_url: str | None = None,
                         field_map: FieldMap = None, **settings: Any) -> SyncEvaluator:
    """Faithfulness, context relevance, answer relevance and semantic similarity, one row each.

    Args:
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        metrics: judge only these of the rubric's metrics, e.g. `["faithfulness"]` (for a rubric
            whose items may pick them); None: all.
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        item_defaults: fixed item fields, e.g. `{"evaluation_goal": "fact-checking"}`.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    options = _options(model, metrics, feedback_key_prefix, prepare_item, item_defaults,
                       max_concurrency, base_url, field_map)
    return make_evaluator("rag", options, **settings)


def create_async_rag_evaluator(*, model: ModelSpec = None, metrics: list[str] | None = None,
                               feedback_key_prefix: str = "", prepare_item: ItemBuilder | None = None,
                               item_defaults: Mapping[str, Any] | None = None, max_concurrency: int | None = None,
                               base_url: str | None = None,
                               field_map: FieldMap = None, **settings: Any) -> AsyncEvaluator:
    """The async twin of `create_rag_evaluator`, for `langsmith.aevaluate`.

    Args:
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        metrics: judge only these of the rubric's metrics, e.g. `["faithfulness"]` (for a rubric
            whose items may pick them); None: all.
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        item_defaults: fixed item fields, e.g. `{"evaluation_goal": "fact-checking"}`.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    options = _options(model, metrics, feedback_key_prefix, prepare_item, item_defaults,
                       max_concurrency, base_url, field_map)
    return make_async_evaluator("rag", options, **settings)


def create_liverag_evaluator(*, model: ModelSpec = None, feedback_key_prefix: str = "",
                             prepare_item: ItemBuilder | None = None, max_concurrency: int | None = None,
                             base_url: str | None = None,
                             field_map: FieldMap = None, **settings: Any) -> SyncEvaluator:
    """LiveRAG's relevance (-1..2) and faithfulness (-1..1), one row each.

    Args:
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    options = _options(model, None, feedback_key_prefix, prepare_item, None,
                       max_concurrency, base_url, field_map)
    return make_evaluator("liverag", options, **settings)


def create_async_liverag_evaluator(*, model: ModelSpec = None, feedback_key_prefix: str = "",
                                   prepare_item: ItemBuilder | None = None, max_concurrency: int | None = None,
                                   base_url: str | None = None,
                                   field_map: FieldMap = None, **settings: Any) -> AsyncEvaluator:
    """The async twin of `create_liverag_evaluator`, for `langsmith.aevaluate`.

    Args:
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    options = _options(model, None, feedback_key_prefix, prepare_item, None,
                       max_concurrency, base_url, field_map)
    return make_async_evaluator("liverag", options, **settings)


def create_coverage_evaluator(*, model: ModelSpec = None, feedback_key_prefix: str = "",
                              prepare_item: ItemBuilder | None = None, max_concurrency: int | None = None,
                              base_url: str | None = None,
                              field_map: FieldMap = None, **settings: Any) -> SyncEvaluator:
    """How much of the reference the output covers, 0..5, with the seed's five rationale bullets.

    Args:
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    options = _options(model, None, feedback_key_prefix, prepare_item, None,
                       max_concurrency, base_url, field_map)
    return make_evaluator("coverage", options, **settings)


def create_async_coverage_evaluator(*, model: ModelSpec = None, feedback_key_prefix: str = "",
                                    prepare_item: ItemBuilder | None = None, max_concurrency: int | None = None,
                                    base_url: str | None = None,
                                    field_map: FieldMap = None, **settings: Any) -> AsyncEvaluator:
    """The async twin of `create_coverage_evaluator`, for `langsmith.aevaluate`.

    Args:
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    options = _options(model, None, feedback_key_prefix, prepare_item, None,
                       max_concurrency, base_url, field_map)
    return make_async_evaluator("coverage", options, **settings)


def create_expected_output_evaluator(*, evaluation_type: str, evaluation_config: Mapping[str, Any],
                                     model: ModelSpec = None, feedback_key_prefix: str = "",
                                     prepare_item: ItemBuilder | None = None, max_concurrency: int | None = None,
                                     base_url: str | None = None,
                                     field_map: FieldMap = None, **settings: Any) -> SyncEvaluator:
    """The output against the expected output on your scale: numerical, categorical or range_quality.

    Args:
        evaluation_type: the item's `evaluationType`: `numerical`, `categorical` or
            `range_quality`.
        evaluation_config: the item's `evaluationConfig` for that type (scale, categories or
            range).
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    defaults = {"evaluationType": evaluation_type, "evaluationConfig": dict(evaluation_config)}
    options = _options(model, None, feedback_key_prefix, prepare_item, defaults,
                       max_concurrency, base_url, field_map)
    return make_evaluator("expected_output", options, **settings)


def create_async_expected_output_evaluator(*, evaluation_type: str, evaluation_config: Mapping[str, Any],
                                           model: ModelSpec = None, feedback_key_prefix: str = "",
                                           prepare_item: ItemBuilder | None = None,
                                           max_concurrency: int | None = None, base_url: str | None = None,
                                           field_map: FieldMap = None, **settings: Any) -> AsyncEvaluator:
    """The async twin of `create_expected_output_evaluator`, for `langsmith.aevaluate`.

    Args:
        evaluation_type: the item's `evaluationType`: `numerical`, `categorical` or
            `range_quality`.
        evaluation_config: the item's `evaluationConfig` for that type (scale, categories or
            range).
        model: a LangChain chat model, a `JudgeContext`, a string (`"provider:name"`, `"local"`,
            or a model name served at `base_url`), or None for the default judge
            (`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, else the embedded local model).
        feedback_key_prefix: prepended to every row's key (`"jg_"` -> `"jg_faithfulness"`).
        prepare_item: `(inputs, outputs, reference_outputs, extra) -> dict`: builds the rubric's
            item yourself (`extra` holds the call's other keywords); None: the rubric's own
            reader.
        max_concurrency: the most model calls in flight per judged item; None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """
    defaults = {"evaluationType": evaluation_type, "evaluationConfig": dict(evaluation_config)}
    options = _options(model, None, feedback_key_prefix, prepare_item, defaults,
                       max_concurrency, base_url, field_map)
    return make_async_evaluator("expected_output", options, **settings)


__all__ = [
    "create_evaluator", "create_async_evaluator",
    "create_rag_evaluator", "create_async_rag_evaluator",
    "create_liverag_evaluator", "create_async_liverag_evaluator",
    "create_coverage_evaluator", "create_async_coverage_evaluator",
    "create_expected_output_evaluator", "create_async_expected_output_evaluator",
]
