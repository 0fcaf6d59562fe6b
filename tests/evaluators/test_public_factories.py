"""Every public `create_*` factory of `judgegraph.evaluators`, held to what it was when each was
written by hand: the same names, the same signature (keywords, order, defaults, annotations),
a docstring that says which rubric it judges with, and evaluators that give the same feedback
keys, the async twin the same rows as the sync one, on the scripted fake judge."""

from __future__ import annotations

import asyncio
import inspect
import typing

import pytest

import judgegraph.evaluators as evaluators
from judgegraph.run.context import JudgeContext
from tests.conftest import CONTEXT, happy_scripts
from tests.support import fakes

_TAIL = ("feedback_key_prefix: 'str' = '', prepare_item: 'ItemBuilder | None' = None, {defaults}"
         "max_concurrency: 'int | None' = None, base_url: 'str | None' = None, field_map: 'FieldMap' = None, "
         "**settings: 'Any'")
FIXED = "*, model: 'ModelSpec' = None, " + _TAIL.format(defaults="")
SELECTING = ("*, model: 'ModelSpec' = None, metrics: 'list[str] | None' = None, "
             + _TAIL.format(defaults="item_defaults: 'Mapping[str, Any] | None' = None, "))
EXPECTED_OUTPUT = "*, evaluation_type: 'str', evaluation_config: 'Mapping[str, Any]', model: 'ModelSpec' = None, " \
    + _TAIL.format(defaults="")
RAG_KEYS = ["faithfulness", "context_relevance", "answer_relevance", "semantic_similarity"]
ITEM_FIELDS = {"evaluation_type": "numerical", "evaluation_config": {"scale": [1, 5]}}

PAIRS = {
    # sync name: (async twin, rubric, parameters before `) -> ...`, positional and keyword arguments, feedback keys)
    "create_evaluator": ("create_async_evaluator", "rag", "rubric: 'str', " + SELECTING, ("rag",), {}, RAG_KEYS),
    "create_rag_evaluator": ("create_async_rag_evaluator", "rag", SELECTING, (), {}, RAG_KEYS),
    "create_liverag_evaluator": ("create_async_liverag_evaluator", "liverag", FIXED, (), {},
                                 ["liverag_relevance", "liverag_faithfulness"]),
    "create_coverage_evaluator": ("create_async_coverage_evaluator", "coverage", FIXED, (), {}, ["coverage"]),
    "create_expected_output_evaluator": ("create_async_expected_output_evaluator", "expected_output",
                                         EXPECTED_OUTPUT, (), ITEM_FIELDS, ["expected_output"]),
}
"""Today's public factories, as each was when written by hand."""

NAMES = [name for sync, (twin, *_) in PAIRS.items() for name in (sync, twin)]


def expectation(name: str):
    sync = next(sync for sync, (twin, *_) in PAIRS.items() if name in (sync, twin))
    twin, rubric, parameters, args, kwargs, keys = PAIRS[sync]
    return sync, rubric, parameters, args, kwargs, keys


def test_the_public_names_are_the_factories_of_today():
    assert sorted(evaluators.__all__) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_factory_keeps_its_signature(name):
    factory = getattr(evaluators, name)
    _, _, parameters, _, _, _ = expectation(name)
    returns = "AsyncEvaluator" if "_async_" in name else "SyncEvaluator"
    assert inspect.isfunction(factory) and factory.__name__ == name and factory.__module__ == "judgegraph.evaluators"
    assert str(inspect.signature(factory)) == f"({parameters}) -> '{returns}'"
    hints = typing.get_type_hints(factory)  # the annotations resolve, as an IDE or a type checker reads them
    assert hints["return"] == getattr(evaluators.factories, returns) and hints["settings"] is typing.Any


@pytest.mark.parametrize("name", NAMES)
def test_a_factory_docstring_says_what_it_judges_with(name):
    doc = inspect.getdoc(getattr(evaluators, name))
    sync, rubric, _, args, _, _ = expectation(name)
    assert (f"`{rubric}` rubric" in doc) if not args else ("any declared rubric" in doc)
    if name != sync:
        assert "async" in doc and f"`{sync}`" in doc.replace("\n", " ")
    for parameter in inspect.signature(getattr(evaluators, name)).parameters.values():
        assert f"\n    {'**' if parameter.kind is parameter.VAR_KEYWORD else ''}{parameter.name}: " in doc


def rows_of(evaluator, call: dict) -> list[dict]:
    rows = asyncio.run(evaluator(**call)) if inspect.iscoroutinefunction(evaluator) else evaluator(**call)
    return [{"key": row["key"], "score": row["score"], "status": row["metadata"]["status"]} for row in rows]


@pytest.mark.parametrize("sync", list(PAIRS))
def test_a_factory_and_its_async_twin_give_todays_feedback_keys(sync):
    twin, rubric, _, args, kwargs, keys = PAIRS[sync]
    call = {"inputs": {"question": "Who founded Craigslist?"},
            "outputs": {"answer": "Craig Newmark founded Craigslist in 1995.", "context": CONTEXT},
            "reference_outputs": {"answer": "Craig Newmark"}}

    def judge():  # a fresh scripted judge per evaluator, so both meet the same replies
        return JudgeContext(model=fakes.judge(**happy_scripts()), model_id="scripted", embeddings=False)

    rows = rows_of(getattr(evaluators, sync)(*args, model=judge(), **kwargs), call)
    assert [row["key"] for row in rows] == keys
    assert rows_of(getattr(evaluators, twin)(*args, model=judge(), **kwargs), call) == rows
    prefixed = rows_of(getattr(evaluators, sync)(*args, model=judge(), feedback_key_prefix="jg_", **kwargs), call)
    assert [row["key"] for row in prefixed] == [f"jg_{key}" for key in keys]


def test_a_keyword_a_factory_does_not_name_is_a_judge_setting_as_in_a_written_function():
    evaluator = evaluators.create_rag_evaluator(model=fakes.judge(**happy_scripts()), metrics=["faithfulness"],
                                                max_repairs=0, embeddings=False)
    call = {"inputs": {"question": "Who founded Craigslist?"},
            "outputs": {"answer": "Craig Newmark founded Craigslist.", "context": CONTEXT}}
    assert [row["key"] for row in evaluator(**call)] == ["faithfulness"]
    with pytest.raises(TypeError, match="metrics"):  # liverag picks no metrics: `metrics=` is no judge setting
        evaluators.create_liverag_evaluator(model=fakes.judge(), metrics=["faithfulness"])(**call)


def test_a_call_a_written_function_would_refuse_is_refused_naming_the_factory():
    with pytest.raises(TypeError, match=r"create_expected_output_evaluator\(\) missing .*evaluation_type"):
        evaluators.create_expected_output_evaluator(model=fakes.judge())
    with pytest.raises(TypeError, match=r"create_rag_evaluator\(\) .*positional"):
        evaluators.create_rag_evaluator("rag")
    with pytest.raises(TypeError, match=r"create_async_evaluator\(\) missing .*rubric"):
        evaluators.create_async_evaluator(model=fakes.judge())
