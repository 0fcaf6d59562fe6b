"""Whole rows other tools export, recognised by their full key set and read as a rag item.

Why: a row of a LangSmith dataset or run, of an `mlflow.evaluate` table, of Phoenix's
evaluation or span frames or of DeepEval's test run file does not name its fields the way a
RAGAS row does: the question is nested (`inputs.question`), a key means another thing than its
name says (Phoenix's `reference` is the retrieved context, as `get_qa_with_reference` writes it
and its evaluators read it), the names are another tool's rubric's (DeepEval's camelCase
`actualOutput` is also the `expected_output` seed's), or the row is a span whose `context` is
the span's ids. Read by the field names alone, such a row would be refused, or judged with its
context as the reference (0.0 / 0.0, "success"). So each shape is recognised here by its keys
and rewritten into judgegraph's own names before the fields are read (`field_aliases.read_fields`).

A key that means different things in different tools is read by what else the row holds:
`input`/`output`/`reference` is Phoenix's frame (reference = the context) only beside Phoenix's
index columns; beside a `context` it is a reference answer; alone it is refused with both
readings' maps, never guessed. A trace's spans, joined by the batch (`batch.trace_spans`), are
one item: the root (or LLM) span's question and answer against the retriever spans' documents.

The rule that keeps this honest: a shape is recognised only when the row holds its required
keys and nothing but the keys that tool writes; a row that holds a shape's keys and others, or
two keys for one field, is refused with a reason naming them and the `--map` that reads it
(`ShapeReading.problem`), never read by a guess. A `--map` turns recognition off (the user's
map reads the row as written). Keys of a nested object no field reads stay in the item under
their dotted path (`inputs.user_id`), so they are reported as not read.

docs/input-fields.md lists the shapes, and tests/batch/fixtures/exports/ holds one row of each
as the tool writes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .field_aliases import ANSWER_NAMES, CONTEXT_NAMES, QUESTION_NAMES, REFERENCE_NAMES

META = frozenset({"id", "rubric"})

LANGSMITH_RUN_KEYS = frozenset({
    "id", "name", "run_type", "start_time", "end_time", "extra", "error", "serialized", "events",
    "inputs", "outputs", "reference_example_id", "parent_run_id", "tags", "attachments", "session_id",
    "child_run_ids", "child_runs", "feedback_stats", "app_path", "manifest_id", "status",
    "prompt_tokens", "completion_tokens", "total_tokens", "prompt_token_details",
    "completion_token_details", "first_token_time", "total_cost", "prompt_cost", "completion_cost",
    "parent_run_ids", "trace_id", "dotted_order", "in_dataset", "input_attachments",
    "output_attachments", "inputs_s3_urls", "outputs_s3_urls", "s3_urls", "share_token", "rubric",
})
"""`langsmith.schemas.Run`'s fields, as `Run.dict()` / the runs export writes them."""
LANGSMITH_EXAMPLE_KEYS = frozenset({
    "id", "created_at", "modified_at", "dataset_id", "inputs", "outputs", "metadata", "source_run_id",
    "attachments", "attachment_urls", "split", "rubric",
})
"""`langsmith.schemas.Example`'s fields (a dataset export): its `outputs` are the reference."""
LANGSMITH_EVALUATOR_KEYS = frozenset({
    "id", "rubric", "inputs", "outputs", "reference_outputs", "metadata", "example_id",
    "reference", "feedback", "execution_time", "error", "run_id",
})
"""An evaluator's `(inputs, outputs, reference_outputs)` as a row, and the row of
`ExperimentResults.to_pandas()` (`inputs.*`, `outputs.*`, `reference.*`, `feedback.*`,
`execution_time`, `example_id`, `id`, `error` columns)."""

MLFLOW_ANSWER = ("predictions", "outputs")
MLFLOW_REFERENCE = ("ground_truth", "targets")
MLFLOW_CONTEXT = ("context", "retrieved_context")
MLFLOW_EXTRA = re.compile(r"[\w.-]+/v\d+(/[\w-]+)?|token_count|latency")
"""`mlflow.evaluate`'s `eval_results_table`: a metric's `name/v1/score`, `/justification`..."""

PHOENIX_EVAL_KEYS = frozenset({"input", "output", "reference", "context.span_id", "context.trace_id",
                               "id", "rubric"})
"""`get_qa_with_reference` as Phoenix's `phoenix.session.evaluation` wrote it: `input`, `output`
and `reference` (the retriever spans' documents joined by a blank line), indexed by
`context.span_id`."""
PHOENIX_IO_CONTEXT_KEYS = frozenset({"input", "output", "context", "metadata", "context.span_id", "context.trace_id",
                                     "id", "rubric"})
"""`phoenix.client.helpers.spans.get_input_output_context` (which `get_qa_with_reference` now
calls): the root span's `input`, `output` and `metadata`, the documents joined as `context`,
`context.trace_id` a column and `context.span_id` the index."""
PHOENIX_INDEX_KEYS = frozenset({"context.span_id", "context.trace_id"})
"""Only a Phoenix frame writes these beside `input`/`output`: they tell its `reference` apart."""
INPUT_OUTPUT_KEYS = frozenset({"input", "output", "context", "reference", "metadata", "id", "rubric"})
"""A generic `input`/`output` row (Phoenix's names, an app's log) that gives both a context and a
reference: each key means what it says."""

DEEPEVAL_TEST_CASE_KEYS = frozenset({
    "name", "input", "actualOutput", "expectedOutput", "context", "retrievalContext", "toolsCalled",
    "expectedTools", "tokenCost", "completionTime", "tags", "flaky", "imagesMapping", "success", "metricsData",
    "runDuration", "evaluationCost", "order", "metadata", "comments", "trace", "id", "rubric",
})
"""`deepeval.test_run.api.LLMApiTestCase` as a test run file holds it (`model_dump(by_alias=True,
exclude_none=True)`: camelCase), in `test_run_<time>.json`, `.deepeval/.latest_run_full.json`..."""
DEEPEVAL_FIELDS = {"input": "question", "actualOutput": "answer", "expectedOutput": "reference",
                   "retrievalContext": "context"}
DEEPEVAL_RUN_RESULTS = frozenset({"success", "metricsData", "runDuration", "evaluationCost", "order", "flaky"})
"""DeepEval's record of its own run of the case (its metrics' scores, pass or fail, cost): not
the item's data, so not read and not listed as unread."""
EXPECTED_OUTPUT_ONLY = frozenset({"evaluationType", "evaluationConfig"})
"""Keys of judgegraph's `expected_output` rubric that DeepEval never writes."""
PHOENIX_SPAN_KEYS = frozenset({
    "name", "span_kind", "parent_id", "start_time", "end_time", "status_code", "status_message",
    "events", "context", "attributes", "conversation", "span_id", "trace_id", "id", "rubric",
})
"""A span as Phoenix exports it (`get_spans_dataframe()` flattened: `context.span_id`,
`attributes.input.value`...; or nested as OpenInference JSON)."""
EXPORT_CONTEXT_COLUMNS: tuple[str, ...] = (
    "retrieved_context", "outputs.context", "outputs.documents", "attributes.retrieval.documents")
"""Table columns of these exports that hold the passages as a list (read from a CSV cell as one)."""
FLAT_ROOTS = ("attributes", "context", "inputs", "outputs", "reference_outputs", "reference", "feedback")


@dataclass(frozen=True)
class ShapeReading:
    """A row read as one of the shapes, or refused."""

    item: dict
    shape: str | None = None
    """The shape's name when the row was recognised ("LangSmith run"...), else None."""
    problem: str | None = None
    """Why a row that looks like a shape cannot be read as it (an input error)."""


def _unflattened(item: Mapping[str, Any]) -> dict:
    """Columns a frame flattened (`attributes.input.value`, `inputs.question`) nested again:
    spans' attributes down to the last dot, LangSmith's roots one level (the rest is the
    user's own key). Other keys as they are."""
    nested: dict = {}
    for key, value in item.items():
        root, dot, rest = key.partition(".") if isinstance(key, str) else (key, "", "")
        if not dot or root not in FLAT_ROOTS or (root in nested and not isinstance(nested[root], dict)):
            nested[key] = value
            continue
        target = nested.setdefault(root, {})
        parts = rest.split(".") if root == "attributes" else [rest]
        for part in parts[:-1]:
            target = target.setdefault(part, {}) if isinstance(target.get(part, {}), dict) else target
        target[parts[-1]] = value
    return nested


def _attribute(attributes: Mapping[str, Any], path: str) -> Any:
    """An OpenInference attribute, flat (`"input.value"`) or nested (`{"input": {"value"}}`)."""
    if path in attributes:
        return attributes[path]
    head, _, rest = path.partition(".")
    inner = attributes.get(head)
    return _attribute(inner, rest) if rest and isinstance(inner, Mapping) else None


def _one(source: Mapping[str, Any], names: tuple[str, ...], where: str, field: str) -> tuple[Any, str | None, str | None]:
    """(value, key, problem): the one key of `names` holding a value in `source`."""
    present = [key for key in names if source.get(key) is not None]
    if len(present) > 1:
        keys = ", ".join(f"'{where}.{key}'" for key in present)
        return None, None, f"{keys} all give the {field}; keep one, or choose with --map {field}={where}.{present[-1]}"
    return (source[present[0]], present[0], None) if present else (None, None, None)


def _leftover(source: Any, used: set[str], where: str) -> dict:
    if not isinstance(source, Mapping):
        return {}
    return {f"{where}.{key}": value for key, value in source.items() if key not in used and value is not None}


def _langsmith(row: Mapping[str, Any], shape: str, reference_key: str | None) -> ShapeReading:
    inputs, outputs = row.get("inputs"), row.get("outputs")
    item: dict = {key: row[key] for key in META if key in row}
    used: dict[str, set[str]] = {"inputs": set(), "outputs": set(), reference_key or "": set()}
    question, key, problem = _one(inputs, (*QUESTION_NAMES, "messages"), "inputs", "question")
    if problem:
        return ShapeReading(dict(row), shape, problem)
    if key:
        item["question"] = question
        used["inputs"].add(key)
    history, key, problem = _one(inputs, ("history", "chat_history"), "inputs", "history")
    if problem:
        return ShapeReading(dict(row), shape, problem)
    if key:
        item["history"] = history
        used["inputs"].add(key)
    if shape == "LangSmith dataset example":
        reference_source, reference_where = outputs, "outputs"
    else:
        reference_source, reference_where = (row.get(reference_key) if reference_key else None), reference_key
        if isinstance(outputs, str):
            item["answer"] = outputs
        elif isinstance(outputs, Mapping):
            for field, names in (("answer", (*ANSWER_NAMES, "output")), ("context", CONTEXT_NAMES)):
                value, key, problem = _one(outputs, names, "outputs", field)
                if problem:
                    return ShapeReading(dict(row), shape, problem)
                if key:
                    item[field] = value
                    used["outputs"].add(key)
    if isinstance(reference_source, str):
        item["reference"] = reference_source
    elif isinstance(reference_source, Mapping):
        value, key, problem = _one(reference_source, (*REFERENCE_NAMES, *ANSWER_NAMES, "output"),
                                   reference_where or "", "reference")
        if problem:
            return ShapeReading(dict(row), shape, problem)
        if key:
            item["reference"] = value
            used.setdefault(reference_where or "", set()).add(key)
    if isinstance(inputs, Mapping) and isinstance(inputs.get("context"), (str, list)) and "context" not in item:
        item["context"] = inputs["context"]  # a dataset whose inputs carry the passages
        used["inputs"].add("context")
    item |= _leftover(inputs, used["inputs"], "inputs")
    if shape != "LangSmith dataset example":
        item |= _leftover(outputs, used["outputs"], "outputs")
    if reference_where and isinstance(reference_source, Mapping):
        item |= _leftover(reference_source, used.get(reference_where, set()), reference_where)
    return ShapeReading(item, shape)


def _mlflow(row: Mapping[str, Any]) -> ShapeReading:
    item: dict = {key: row[key] for key in META if key in row}
    item["question"] = row["inputs"]
    for field, names in (("answer", MLFLOW_ANSWER), ("reference", MLFLOW_REFERENCE), ("context", MLFLOW_CONTEXT)):
        present = [key for key in names if row.get(key) is not None]
        if len(present) > 1:
            return ShapeReading(dict(row), "MLflow evaluate table",
                                f"{present[0]!r} and {present[1]!r} both give the {field}; keep one, "
                                f"or choose with --map {field}={present[1]}")
        if present:
            item[field] = row[present[0]]
    return ShapeReading(item, "MLflow evaluate table")


SPAN_READ = ("input.value", "output.value", "retrieval.documents")
"""The span attributes read as the question, the answer and the context."""
SPAN_BOOKKEEPING = frozenset({"openinference.span.kind", "input.mime_type", "output.mime_type"})
"""Attributes that describe the span or a value read, not data of their own (never reported)."""


def _attribute_leaves(attributes: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every attribute under its full dotted name (`{"llm": {"model_name": ...}}` and a flat
    `"llm.model_name"` both give `llm.model_name`); a list is one value."""
    leaves: dict[str, Any] = {}
    for key, value in attributes.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            leaves |= _attribute_leaves(value, name + ".")
        else:
            leaves[name] = value
    return leaves


def _phoenix_span(row: Mapping[str, Any]) -> ShapeReading:
    """A span's question, answer and context; its other attributes (`metadata.*`, `llm.*`,
    `session.id`...) stay in the item as `attributes.<name>`, so they are reported as not read."""
    attributes = row["attributes"]
    item: dict = {key: row[key] for key in META if key in row}
    question = _attribute(attributes, "input.value")
    answer = _attribute(attributes, "output.value")
    documents = _attribute(attributes, "retrieval.documents")
    if question is not None:
        item["question"] = question
    if answer is not None:
        item["answer"] = answer
    if documents is not None:
        item["context"] = documents
    item |= {f"attributes.{name}": value for name, value in _attribute_leaves(attributes).items()
             if value is not None and name not in SPAN_READ and name not in SPAN_BOOKKEEPING}
    return ShapeReading(item, "Phoenix span")


TRACE_KEYS = frozenset({"trace_id", "spans", "id", "rubric"})
"""A trace as the batch joins its spans (`batch.trace_spans`), or as a user writes one."""


def _is_span(row: Any) -> bool:
    return isinstance(row, Mapping) and isinstance(row.get("attributes"), Mapping) and (
        "span_kind" in row or isinstance(row.get("context"), Mapping))


def _as_span(row: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The row as a nested span when it is one (a frame's flat columns nested again), else None."""
    if _is_span(row):
        return row
    if any(isinstance(key, str) and key.partition(".")[0] in ("attributes", "context") for key in row):
        nested = _unflattened(row)
        return nested if _is_span(nested) else None
    return None


def span_trace_id(row: Any) -> str | None:
    """The trace a Phoenix span row belongs to (its `context.trace_id`, nested or a frame's
    column), so a batch can join a trace's spans into one item; None for any other row."""
    if not isinstance(row, Mapping) or row.get("rubric") not in (None, "", "rag"):
        return None
    span = _as_span(row)
    if span is None:
        return None
    context = span.get("context")
    trace = context.get("trace_id") if isinstance(context, Mapping) else None
    trace = trace if trace is not None else span.get("trace_id")
    return str(trace) if isinstance(trace, (str, int)) and not isinstance(trace, bool) and str(trace) else None


def _kind(span: Mapping[str, Any]) -> str:
    kind = span.get("span_kind") or _attribute(span["attributes"], "openinference.span.kind") or ""
    return str(kind).upper()


def _phoenix_trace(row: Mapping[str, Any]) -> ShapeReading:
    """One item from a trace's spans: the question and the answer from the root span (the
    first span without a parent), or from its LLM span when the root lacks them; the context
    from every retriever span's documents, in span order. The root's other attributes are
    listed as not read; the other spans' (an LLM span's prompt repeats the question and the
    passages) are not."""
    shape = "Phoenix trace"
    spans = [_as_span(span) if isinstance(span, Mapping) else None for span in row["spans"]]
    if not spans or any(span is None for span in spans):
        return ShapeReading(dict(row), shape, "the trace's 'spans' must be a list of Phoenix spans")
    extra = next((set(span) - PHOENIX_SPAN_KEYS for span in spans if set(span) - PHOENIX_SPAN_KEYS), None)
    if extra:
        return _refused(row, shape, extra)
    roots = [span for span in spans if span.get("parent_id") in (None, "")]
    root = roots[0] if roots else spans[0]
    llm = next((span for span in spans if _kind(span) == "LLM"), None)
    item: dict = {key: row[key] for key in META if key in row}
    for field, path in (("question", "input.value"), ("answer", "output.value")):
        value = _attribute(root["attributes"], path)
        if value is None and llm is not None:
            value = _attribute(llm["attributes"], path)
        if value is not None:
            item[field] = value
    retrievers = [span for span in spans if _kind(span) == "RETRIEVER"] or spans
    documents = [document for span in retrievers
                 for document in (_attribute(span["attributes"], "retrieval.documents") or [])]
    if documents:
        item["context"] = documents
    item |= {f"attributes.{name}": value for name, value in _attribute_leaves(root["attributes"]).items()
             if value is not None and name not in SPAN_READ and name not in SPAN_BOOKKEEPING}
    return ShapeReading(item, shape)


def _refused(row: Mapping[str, Any], shape: str, extra: set[str]) -> ShapeReading:
    keys = ", ".join(repr(key) for key in sorted(map(str, extra))[:6])
    return ShapeReading(dict(row), shape, (
        f"the item looks like a {shape} but also holds {keys}, which that export does not write; "
        "read it with --map (e.g. --map question=inputs.question,answer=outputs.answer; docs/input-fields.md)"))


def _deepeval(row: Mapping[str, Any]) -> ShapeReading:
    """A DeepEval test case in judgegraph's names. DeepEval's `context` is its *ideal* context
    and `retrievalContext` what was retrieved: both given is a choice the user makes."""
    shape = "DeepEval test case"
    if row.get("context") is not None and row.get("retrievalContext") is not None:
        return ShapeReading(dict(row), shape, (
            "'context' (DeepEval's ideal context) and 'retrievalContext' (what was retrieved) both give the context; "
            "keep one, or choose with --map question=input,answer=actualOutput,reference=expectedOutput,"
            "context=retrievalContext"))
    item: dict = {}
    for key, value in row.items():
        if key in DEEPEVAL_RUN_RESULTS:
            continue
        item[DEEPEVAL_FIELDS.get(key, key)] = value
    return ShapeReading(item, shape)


def _phoenix_frame(row: Mapping[str, Any], keys: set[str]) -> ShapeReading | None:
    """The `input`/`output` rows: Phoenix's two Q&A frames, a row with both a context and a
    reference, and the one row nothing tells apart (refused with the two readings' maps)."""
    if not {"input", "output"} <= keys:
        return None
    item = {key: row[key] for key in META if key in row}
    item |= {"question": row["input"], "answer": row["output"]}
    if {"reference", "context"} <= keys and keys <= INPUT_OUTPUT_KEYS:
        rest = {key: row[key] for key in ("metadata",) if key in row}
        return ShapeReading(item | {"context": row["context"], "reference": row["reference"]} | rest,
                            "input/output row with context and reference")
    if "context" in keys and "reference" not in keys and keys <= PHOENIX_IO_CONTEXT_KEYS:
        rest = {key: row[key] for key in ("metadata",) if key in row}
        return ShapeReading(item | {"context": row["context"]} | rest, "Phoenix input/output/context frame")
    if "reference" in keys and keys <= PHOENIX_EVAL_KEYS | {"metadata"}:
        if keys & PHOENIX_INDEX_KEYS and keys <= PHOENIX_EVAL_KEYS:
            return ShapeReading(item | {"context": row["reference"]}, "Phoenix evaluation frame")
        return ShapeReading(dict(row), "input/output/reference row", (
            "the item's 'reference' may be a reference answer or the retrieved context (Phoenix's "
            "get_qa_with_reference writes the context there), and nothing else in the row tells which; "
            "--map answer=output reads it as the reference answer, --map answer=output,context=reference as the context"))
    return None


def read_export(row: Mapping[str, Any]) -> ShapeReading:
    """The row in judgegraph's own names when it is one of the exports above; as it is
    (shape None) when it is none of them; refused (`problem`) when it is one only in part."""
    keys = set(row)
    if {"trace_id", "spans"} <= keys and keys <= TRACE_KEYS and isinstance(row["spans"], list):
        return _phoenix_trace(row)
    frame = _phoenix_frame(row, keys)  # before nesting: a frame's `context` column is not a span's
    if frame is not None:
        return frame
    if {"input", "actualOutput"} <= keys and not keys & EXPECTED_OUTPUT_ONLY and keys <= DEEPEVAL_TEST_CASE_KEYS:
        return _deepeval(row)
    if any(isinstance(key, str) and "." in key and key.partition(".")[0] in FLAT_ROOTS for key in keys):
        flat = _unflattened(row)
        reading = read_export(flat) if set(flat) != keys else None
        if reading is not None and reading.shape is not None:
            return reading
    inputs = row.get("inputs")
    if isinstance(row.get("attributes"), Mapping) and ("span_kind" in keys or isinstance(row.get("context"), Mapping)):
        extra = keys - PHOENIX_SPAN_KEYS
        return _refused(row, "Phoenix span", extra) if extra else _phoenix_span(row)
    if isinstance(inputs, Mapping) and "outputs" in keys:
        if "run_type" in keys:
            extra = keys - LANGSMITH_RUN_KEYS
            return _refused(row, "LangSmith run", extra) if extra else _langsmith(row, "LangSmith run", None)
        if "dataset_id" in keys:
            extra = keys - LANGSMITH_EXAMPLE_KEYS
            return _refused(row, "LangSmith dataset example", extra) if extra else \
                _langsmith(row, "LangSmith dataset example", None)
        reference_key = "reference_outputs" if "reference_outputs" in keys else \
            "reference" if isinstance(row.get("reference"), Mapping) else None
        if reference_key is None:
            return ShapeReading(dict(row), "LangSmith inputs/outputs", (
                "the item holds LangSmith's 'inputs' and 'outputs' but no 'reference_outputs': a run's outputs "
                "are its answer, a dataset example's its reference; give 'reference_outputs' (or the run's "
                "'run_type'), or read it with --map (e.g. --map question=inputs.question,answer=outputs.answer)"))
        extra = keys - LANGSMITH_EVALUATOR_KEYS
        return _refused(row, "LangSmith run with its reference", extra) if extra else \
            _langsmith(row, "LangSmith run with its reference", reference_key)
    if isinstance(inputs, str) and any(row.get(key) is not None for key in MLFLOW_ANSWER):
        extra = {key for key in keys - {"inputs", *MLFLOW_ANSWER, *MLFLOW_REFERENCE, *MLFLOW_CONTEXT, *META}
                 if not (isinstance(key, str) and MLFLOW_EXTRA.fullmatch(key))}
        return _refused(row, "MLflow evaluate table", extra) if extra else _mlflow(row)
    return ShapeReading(dict(row))
