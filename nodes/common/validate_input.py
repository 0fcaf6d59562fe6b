"""First node: pick the rubric(s) and validate the item, without any model call.

A bad item is the user's data problem, not a crash: each failing rubric gets its own seed
failure shape with a reason that names the field and what is wrong with it. That includes what
JSON or a Python caller can hand over but no step can use (`schemas.untrusted_json`: a lone
surrogate, which no HTTP request can carry, NaN, a 5,000-digit integer, deep nesting): such an
item fails here, with no model call, instead of every step failing as "model call failed".
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import ValidationError

from ...graph.state import JudgeState
from ...schemas.untrusted_json import value_problem
from .. import rubrics
from .tracing import plain_event

PREFIX = "Input parsing error"


def choose_rubrics(item: Any, requested: str | list[str] | None) -> tuple[list[str], str | None]:
    """Rubric names for the item, and a reason when they cannot be chosen.

    Precedence: the item's own `"rubric"` key, then the caller's request (`--rubric`), then the
    item's keys. When nothing fits, the default rubric is returned with a reason, so the
    failure still has a seed shape.
    """
    explicit = item.get("rubric") if isinstance(item, dict) else None
    choice = explicit if explicit not in (None, "") else requested
    if choice not in (None, ""):
        wanted = [choice] if isinstance(choice, str) else choice
        if not isinstance(wanted, list) or not all(isinstance(w, str) for w in wanted) or not wanted:
            return [rubrics.DEFAULT_RUBRIC], f"{PREFIX}: 'rubric' must be a rubric name or a list of names."
        unknown = [w for w in wanted if w not in rubrics.names()]
        if unknown:
            known = ", ".join(rubrics.names())
            return [rubrics.DEFAULT_RUBRIC], f"{PREFIX}: unknown rubric {unknown[0]!r} (known: {known})."
        return list(dict.fromkeys(wanted)), None
    if not isinstance(item, dict):
        kind = type(item).__name__ if item is not None else "null"
        return [rubrics.DEFAULT_RUBRIC], f"{PREFIX}: the item must be a JSON object, got {kind}."
    detected = rubrics.detect(item)
    if detected is None:
        return [rubrics.DEFAULT_RUBRIC], (
            f"{PREFIX}: cannot tell the rubric from the item's keys; "
            "give a 'rubric' key or --rubric."
        )
    return [detected], None


_JSON_TYPES = {"str": "a string", "int": "a number", "float": "a number", "bool": "a boolean",
               "list": "a list", "dict": "an object", "NoneType": "null"}


def describe_input_error(error: ValidationError, item: dict, labels: dict[str, str]) -> str:
    """The first problem of an invalid item, in the seed's "Input parsing error: ..." style."""
    first = error.errors(include_url=False)[0]
    field = str(first["loc"][0]) if first["loc"] else "item"
    label = labels.get(field, f"'{field}'")
    if first["type"] == "missing":
        return f"{PREFIX}: missing {label}."
    value = item.get(field)
    if isinstance(value, str) and not value.strip():
        return f"{PREFIX}: {label} is empty."
    if first["type"] in ("string_type", "list_type", "dict_type", "int_type", "float_type",
                         "bool_type", "model_type"):
        where = ".".join(str(p) for p in first["loc"])
        got = _JSON_TYPES.get(type(first.get("input")).__name__, type(first.get("input")).__name__)
        return f"{PREFIX}: '{where}' has the wrong type ({got}); {first['msg'].lower()}."
    where = ".".join(str(p) for p in first["loc"])
    message = str(first["msg"]).removeprefix("Value error, ").rstrip(".")
    return f"{PREFIX}: '{where}': {message}." if where else f"{PREFIX}: {message}."


def validate_input(state: JudgeState) -> dict:
    started = time.perf_counter()
    item = state.get("item")
    names, reason = choose_rubrics(item, state.get("rubric"))
    if reason is None and isinstance(item, dict):
        problem = value_problem(item)
        reason = f"{PREFIX}: {problem}." if problem else None
    inputs: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name in names:
        if reason is not None:
            errors[name] = reason
            continue
        if not isinstance(item, dict):
            kind = type(item).__name__ if item is not None else "null"
            errors[name] = f"{PREFIX}: the item must be a JSON object, got {kind}."
            continue
        spec = rubrics.get(name)
        try:
            inputs[name] = spec.input_model.model_validate(item)
        except ValidationError as error:
            errors[name] = describe_input_error(error, item, spec.field_labels)
        except (ValueError, OverflowError) as error:  # rubric checks raised outside pydantic's types
            errors[name] = f"{PREFIX}: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
    event = plain_event(
        "validate_input", started,
        outcome="failed" if errors else "ok",
        note="; ".join(errors.values()) or None,
        rubrics=names,
    )
    return {"rubrics": names, "inputs": inputs, "input_errors": errors, "trace": [event]}


def route_after_validation(state: JudgeState) -> list[str]:
    """Every node the valid rubrics plan to run, in parallel; straight to finalize otherwise."""
    planned: list[str] = []
    for name, validated in state.get("inputs", {}).items():
        planned += rubrics.get(name).plan(validated)
    return list(dict.fromkeys(planned)) or ["finalize"]
