"""First node: pick the rubric(s), read the item's fields and validate them, without any model call.

The item is read under each rubric's own field names first (`input_fields.read_item`: RAGAS,
DeepEval and LangChain names, `Document`s as text, the user's `--map`); what was read under
another name, what no field read and where the rubric came from go in this node's trace event,
so every entry point can say it (a warning line, a batch record's `input_fields`).

A bad item is the user's data problem, not a crash: each failing rubric gets its own seed
failure shape with a reason that names the field and what is wrong with it. That includes what
JSON or a Python caller can hand over but no step can use (`schemas.untrusted_json`: a lone
surrogate, which no HTTP request can carry, NaN, a 5,000-digit integer, deep nesting): such an
item fails here, with no model call, instead of every step failing as "model call failed".
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ValidationError

from ...run.state import JudgeState
from ...run.tracing import plain_event
from ...schemas.export_shapes import read_export
from ...schemas.field_aliases import FieldMapError, apply_field_map, passage_problem
from ...schemas.untrusted_json import value_problem
from .. import rubrics
from .input_fields import ItemReading, checked_field_map, infer_rubric, keys_text, read_item
from .standalone_question import NODE as STANDALONE_NODE
from .standalone_question import conversational

PREFIX = "Input parsing error"
MAX_LISTED_KEYS = 100
"""Unused keys a trace (and a batch record) lists; an item is bounded, its key count too, but a
record stays readable."""


def choose_rubrics(item: Any, requested: str | list[str] | None) -> tuple[list[str], str | None]:
    """Rubric names for the item, and a reason when they cannot be chosen.

    Precedence: the item's own `"rubric"` key, then the caller's request (`--rubric`), then the
    item's keys (`input_fields.infer_rubric`). When nothing fits, the default rubric is
    returned with a reason that lists the keys found, so the failure still has a seed shape.
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
        return [rubrics.DEFAULT_RUBRIC], not_an_object(item)
    detected, reason = infer_rubric(item)
    if detected is None:
        return [rubrics.DEFAULT_RUBRIC], reason
    return [detected], None


def not_an_object(item: Any) -> str:
    """The reason an item that is not an object is refused; a pandas object (a DataFrame, a
    row of one) is a batch or a part of one, and the reason says what judges it."""
    kind = type(item).__name__ if item is not None else "null"
    hint = ""
    if (type(item).__module__ or "").startswith("pandas"):
        hint = "; judge a DataFrame's rows with judgegraph.evaluate_batch(frame)"
    return f"{PREFIX}: the item must be a JSON object, got {kind}{hint}."


RubricSource = Literal["item", "requested", "keys"]


def rubric_source(item: Any, requested: str | list[str] | None) -> RubricSource:
    """Where the rubric came from: the item's `"rubric"` key, the caller (`--rubric`), or the
    item's keys (`choose_rubrics`'s precedence), so a run can say it."""
    if isinstance(item, dict) and item.get("rubric") not in (None, ""):
        return "item"
    return "requested" if requested not in (None, "") else "keys"


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
    map_notes: tuple[str, ...] = ()
    map_applied: dict[str, str] = {}
    map_problem = shape_problem = None
    shape = None
    if isinstance(item, dict) and state.get("field_map"):
        try:
            mapped = apply_field_map(item, checked_field_map(state.get("field_map")))
            item, map_notes, map_applied = mapped.item, mapped.notes, mapped.applied
            if mapped.missing:
                map_problem = f"{PREFIX}: {mapped.missing[0]}; a mapped field is never left absent."
        except FieldMapError as error:
            map_problem = f"{PREFIX}: {error}."
    elif isinstance(item, dict) and reads_exports(item, state.get("rubric")):
        export = read_export(item)
        item, shape = export.item, export.shape
        shape_problem = f"{PREFIX}: {export.problem}." if export.problem else None
    names, reason = choose_rubrics(item, state.get("rubric"))
    if shape_problem and rubric_source(item, state.get("rubric")) == "keys":
        names = ["rag"]  # an export refused in part fails as the rag item it would have been read as
    reason = shape_problem or reason or map_problem
    if reason is None and isinstance(item, dict):
        problem = value_problem(item)
        reason = f"{PREFIX}: {problem}." if problem else None
    reading = read_item(item, names, map_applied) if reason is None and isinstance(item, dict) else None
    inputs: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name in names:
        if reason is not None:
            errors[name] = reason
            continue
        if not isinstance(item, dict) or reading is None:
            errors[name] = not_an_object(item)
            continue
        if name in reading.errors:
            errors[name] = reading.errors[name]
            continue
        spec = rubrics.get(name)
        fields = reading.readings[name].item
        problem = value_problem(fields)  # text read out of Documents is checked like any other
        problem = problem or next((f"'{f}' ({spec.field_labels.get(f, f)}): {p}" for f in spec.context_fields
                                   if fields.get(f) is not None and (p := passage_problem(fields[f]))), None)
        if problem:
            errors[name] = f"{PREFIX}: {problem}."
            continue
        try:
            inputs[name] = spec.input_model.model_validate(fields)
        except ValidationError as error:
            errors[name] = describe_input_error(error, fields, spec.field_labels) + \
                where_looked(error, spec.field_aliases, reading.readings[name].unused)
        except (ValueError, OverflowError) as error:  # rubric checks raised outside pydantic's types
            errors[name] = f"{PREFIX}: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
    source = rubric_source(item, state.get("rubric"))
    detail = reading_detail(names, source, reading, map_notes, map_applied)
    if shape is not None:
        detail["shape"] = shape
    absent = absent_context_notes(inputs, item)
    if absent:
        detail["notes"] = absent
    event = plain_event(
        "validate_input", started,
        outcome="failed" if errors else "ok",
        note="; ".join(errors.values()) or announcement(detail),
        **detail,
    )
    return {"rubrics": names, "inputs": inputs, "input_errors": errors, "trace": [event]}


def reads_exports(item: dict, requested: str | list[str] | None) -> bool:
    """Whether whole-row exports are recognised (`schemas.export_shapes`): they are read as rag
    items, so not for an item sent to another rubric (its own `rubric` key or `--rubric`)."""
    choice = item.get("rubric") if item.get("rubric") not in (None, "") else requested
    return choice in (None, "", "rag") or (isinstance(choice, list) and "rag" in choice)


NO_CONTEXT = "no context given"
"""The reason of a metric that judges the answer against a context the item does not give."""


def absent_context_notes(inputs: Mapping[str, Any], item: Any) -> list[str]:
    """A warning per rubric input whose context field the item does not hold at all: such an
    item is not judged as having an empty context (`RagInput.context_given`), and the user
    is told which keys it has and how to read one as its context."""
    notes = []
    for name, validated in inputs.items():
        spec = rubrics.get(name)
        for field in spec.context_fields:
            if field in type(validated).model_fields and field not in validated.model_fields_set:
                keys = keys_text(key for key in (item if isinstance(item, dict) else {}) if key not in ("id", "rubric"))
                notes.append(f"{NO_CONTEXT}: the item's keys are {keys}; the metrics judged against a context "
                             f"are null (--map {field}=KEY reads a key as the {spec.field_labels.get(field, field)})")
    return notes


def where_looked(error: ValidationError, field_aliases: Mapping[str, tuple[str, ...]],
                 unused: tuple[str, ...]) -> str:
    """For a missing field while the item holds keys nothing read: the names the field was
    looked for under, the keys left over, and how to map one. Empty otherwise, so an item in
    judgegraph's own names keeps the seed's short reason."""
    first = error.errors(include_url=False)[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    if first["type"] != "missing" or not unused or field not in field_aliases:
        return ""
    names = " / ".join(repr(name) for name in field_aliases[field])
    return (f" Looked for {names}; the item's keys not read: {keys_text(unused)}; "
            f"--map {field}=KEY reads another key.")


def reading_detail(names: list[str], source: str, reading: ItemReading | None,
                   map_notes: tuple[str, ...], map_applied: dict[str, str]) -> dict[str, Any]:
    """The validate_input event's detail: the rubric and where it came from, and, when there is
    anything to say, the keys read under another name, the keys no field read, the map's notes."""
    detail: dict[str, Any] = {"rubrics": names, "rubric_from": source}
    read_as = reading.read_as(map_applied) if reading is not None else {}
    if read_as:
        detail["read_as"] = read_as
    if reading is not None and reading.unused:
        detail["unused_keys"] = list(reading.unused[:MAX_LISTED_KEYS])
    if map_notes:
        detail["map_notes"] = list(map_notes)
    return detail


def announcement(detail: dict[str, Any]) -> str | None:
    """One line for the trace when the item was not read exactly as written; None otherwise."""
    parts = []
    if detail.get("read_as") or detail.get("unused_keys") or detail.get("map_notes") or detail.get("shape"):
        how = {"keys": "from the item's keys", "item": "from its 'rubric' key",
               "requested": "as requested"}[detail["rubric_from"]]
        parts.append(f"rubric {'+'.join(detail['rubrics'])} {how}")
    if detail.get("shape"):
        parts.append(f"read as a {detail['shape']} row")
    if detail.get("read_as"):
        parts.append("read " + ", ".join(f"{keys_text([key])} as {field}"
                                          for field, key in detail["read_as"].items()))
    if detail.get("unused_keys"):
        parts.append(f"keys not used: {keys_text(detail['unused_keys'])}")
    parts.extend(detail.get("map_notes", []))
    parts.extend(detail.get("notes", []))
    return "; ".join(parts) or None


def planned_nodes(state: JudgeState) -> list[str]:
    """Every node the valid rubrics plan to run, once each, in plan order. When a conversation's
    standalone question could not be written (`state["standalone"].error`), the nodes that judge
    the question (`RubricSpec.question_nodes`) are left out for the inputs with history: their
    metrics fail with the reason instead (`graph.every_item.standalone_question`)."""
    standalone = state.get("standalone")
    failed = standalone is not None and standalone.error is not None
    planned: list[str] = []
    for name, validated in state.get("inputs", {}).items():
        spec = rubrics.get(name)
        skipped = set(spec.question_nodes) if failed and getattr(validated, "history", None) else set()
        planned += [node for node in spec.plan(validated) if node not in skipped]
    return list(dict.fromkeys(planned))


def route_after_validation(state: JudgeState) -> list[str]:
    """A valid item goes to `embed_item` (which embeds what the planned nodes will need, then
    sends them off in parallel: `graph.every_item.item_embeddings`); an invalid one to finalize. An
    item with a conversation's history first gets its standalone question
    (`write_standalone_question`, then `embed_item`), so that what is embedded and judged is the
    standalone question, never the bare follow-up."""
    if not planned_nodes(state):
        return ["finalize"]
    if conversational(state.get("inputs", {})) is not None:
        return [STANDALONE_NODE]
    return ["embed_item"]
