"""The public evaluator factories (`judgegraph.evaluators`), built from one description.

Why one builder: every factory is `create_evaluator` with at most three things fixed: the
rubric, whether the rubric lets an item pick its metrics (`metrics=`, `item_defaults=`), and
item fields given as keywords (`evaluation_type=` becomes the item's `evaluationType`). So
each argument is described once here, each factory's docstring is one template filled with
what its rubric judges and the arguments it takes, and a sync factory and its async twin come
from the same line of `judgegraph.evaluators`.

A factory is a real function with the exact signature it documents (`inspect.signature`,
`help()`); a call is bound to that signature the way Python binds a call, so a keyword the
factory does not name lands in `**settings` (the `JudgeContext` settings), as it would in a
hand-written function.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..declarations.rubric_spec import ItemBuilder
from ..graph.every_item.input_fields import checked_field_map
from .factories import (AsyncEvaluator, FieldMap, ModelSpec, Options, SyncEvaluator, make_async_evaluator,
                        make_evaluator)


def _every_argument(rubric: str, *, evaluation_type: str, evaluation_config: Mapping[str, Any],
                    model: ModelSpec = None, metrics: list[str] | None = None, feedback_key_prefix: str = "",
                    prepare_item: ItemBuilder | None = None, item_defaults: Mapping[str, Any] | None = None,
                    max_concurrency: int | None = None, base_url: str | None = None,
                    field_map: FieldMap = None, **settings: Any) -> None:
    """Every argument a public factory may take, in the order a signature lists them; a factory's
    signature is the arguments it takes of this one, and its `Args:` their lines of this one.

    Args:
        rubric: the name of a declared rubric (`judgegraph.graph.rubrics`): `rag`, `liverag`,
            `coverage`, `expected_output`...
        evaluation_type: the item's `evaluationType`: `numerical`, `categorical` or
            `range_quality`.
        evaluation_config: the item's `evaluationConfig` for that type (scale, categories or
            range).
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
        max_concurrency: the most steps of a judged item run at once (its nodes, and its claim
            checks; docs/architecture.md, "The claims node"); None: no limit.
        base_url: the OpenAI-compatible server a model given by name is served at.
        field_map: {field: key} (or `"field=key,..."`) to read a field from another key of the
            dict that holds it.
        **settings: `JudgeContext` settings (`max_repairs=`, `claim_check="batch"`,
            `calibration=` a `Profile` or a profile file's path, `allow_profile_mismatch=`).
    """


def _argument_lines(function: Callable[..., Any]) -> dict[str, str]:
    """{argument: its lines of the `Args:` section} of a Google-style docstring."""
    section = (function.__doc__ or "").split("\n    Args:\n", 1)[1]
    lines: dict[str, list[str]] = {}
    for line in section.rstrip().splitlines():
        if not line.startswith("            "):
            lines[line.strip().split(":", 1)[0].lstrip("*")] = []
        lines[next(reversed(lines))].append(line[4:])
    return {argument: "\n".join(text) for argument, text in lines.items()}


_LINES = _argument_lines(_every_argument)
ARGUMENTS: dict[str, tuple[inspect.Parameter, str]] = {
    name: (parameter, _LINES[name]) for name, parameter in inspect.signature(_every_argument).parameters.items()}
"""{argument: (its parameter, its `Args:` lines)} for every argument a public factory may take."""

_SHARED = ("model", "feedback_key_prefix", "prepare_item", "max_concurrency", "base_url", "field_map", "settings")
_SELECTING = ("metrics", "item_defaults")

DOCSTRING = """{judges}

{role}

Args:
{arguments}
"""
"""The one docstring of every public factory: what it judges, which call it is, its arguments."""


def _role(rubric: str | None, name: str, sync_name: str) -> str:
    which = f"The `{rubric}` rubric's" if rubric else "A declared rubric's"
    if name == sync_name:
        return f"{which} LangSmith evaluator, for `langsmith.evaluate`."
    return f"{which} async LangSmith evaluator, for `langsmith.aevaluate`: the async twin of `{sync_name}`."


def _public_factory(name: str, sync_name: str, rubric: str | None, judges: str, argument_names: Sequence[str],
                    item_fields: Mapping[str, str], make: Callable[..., Any], returns: str) -> Callable[..., Any]:
    described = [ARGUMENTS[argument] for argument in ARGUMENTS if argument in argument_names]
    parameters = [parameter for parameter, _ in described]
    signature = inspect.Signature(parameters, return_annotation=returns)

    def factory(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{name}() {error}") from None
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        settings = arguments.pop("settings")
        rubric_name = arguments.pop("rubric", rubric)
        fixed = {field: arguments.pop(argument) for argument, field in item_fields.items()}
        if fixed:
            arguments["item_defaults"] = {field: dict(value) if isinstance(value, Mapping) else value
                                          for field, value in fixed.items()}
        options = Options(**{**arguments, "field_map": checked_field_map(arguments["field_map"])})
        return make(rubric_name, options, **settings)

    factory.__name__ = factory.__qualname__ = name
    factory.__module__ = "judgegraph.evaluators"
    factory.__signature__ = signature  # type: ignore[attr-defined]
    factory.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters} | {"return": returns}
    role = textwrap.fill(_role(rubric, name, sync_name), width=96)
    factory.__doc__ = DOCSTRING.format(judges=judges, role=role,
                                       arguments="\n".join(text for _, text in described))
    return factory


def factory_pair(rubric: str | None, judges: str, *, selects_metrics: bool = False,
                 item_fields: Mapping[str, str] | None = None) -> tuple[Callable[..., SyncEvaluator],
                                                                        Callable[..., AsyncEvaluator]]:
    """The sync factory of a rubric's evaluators and its async twin, named
    `create_<rubric>_evaluator` / `create_async_<rubric>_evaluator`.

    Args:
        rubric: the declared rubric both judge with; None: the rubric is the factories' first
            argument (`create_evaluator` / `create_async_evaluator`).
        judges: the docstrings' first line, what the evaluator judges.
        selects_metrics: the factories take `metrics=` and `item_defaults=` (a rubric whose items
            may pick their metrics, or any rubric by name).
        item_fields: {keyword: item field}: required keywords that become fixed item fields.
    """
    fields = dict(item_fields or {})
    arguments = (*(["rubric"] if rubric is None else []), *fields, *_SHARED, *(_SELECTING if selects_metrics else ()))
    infix = f"{rubric}_" if rubric else ""
    sync_name = f"create_{infix}evaluator"
    return (_public_factory(sync_name, sync_name, rubric, judges, arguments, fields, make_evaluator,
                            "SyncEvaluator"),
            _public_factory(f"create_async_{infix}evaluator", sync_name, rubric, judges, arguments, fields,
                            make_async_evaluator, "AsyncEvaluator"))
