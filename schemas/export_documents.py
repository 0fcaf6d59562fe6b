"""Whole files other tools write whose items are not a JSON array: a table in one of pandas'
JSON orientations (MLflow's logged `eval_results_table.json`) and DeepEval's test run file.

Why: `judgegraph evaluate FILE.json` reads an object as one item and an array as a batch. But
`mlflow.log_table` (and so `mlflow.evaluate`'s `eval_results_table.json`) writes its frame as
`df.to_json(orient="split", index=False)`: `{"columns": [...], "data": [[...], ...]}`, one
object for the whole table. Read as one item it was refused for keys no rubric reads. A frame
saved by hand with `to_json()` is in pandas' other orientations (`columns`, the default, `index`,
`table`). DeepEval's `deepeval test run` / `evaluate()` writes its `TestRun` (`testCases`,
`conversationalTestCases`, `metricsScores`, ...), under `testRunData` in
`.deepeval/.latest_test_run.json`. Each of these is a batch: its rows are the items, read then
like any row (`schemas.export_shapes`: an MLflow row, a DeepEval test case).

A document is taken as a table only when its whole shape says so (every row as long as the
columns, every column the same index), so an ordinary item is never cut into rows; a table that
is broken (a row of another length) is refused with the reason, not read as one item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DEEPEVAL_TEST_RUN_KEYS = frozenset({
    "testFile", "testCases", "conversationalTestCases", "metricsScores", "traceMetricsScores", "identifier",
    "hyperparameters", "prompts", "testPassed", "testFailed", "runDuration", "evaluationCost", "datasetAlias",
    "datasetId", "official", "testRunId",
})
"""`deepeval.test_run.test_run.TestRun` (and `RemainingTestRun`) as `model_dump(by_alias=True)` writes it."""
DEEPEVAL_WRAPPER = "testRunData"
"""The key `.deepeval/.latest_test_run.json` holds the test run under."""
SPLIT_KEYS = frozenset({"columns", "data", "index"})
TABLE_KEYS = frozenset({"schema", "data"})


@dataclass(frozen=True)
class DocumentRows:
    """A JSON document read as the rows of a batch."""

    shape: str
    """What the document is ("MLflow/pandas table (split)", "DeepEval test run")."""
    rows: list[Any] = field(default_factory=list)
    problem: str | None = None
    """Why the document looks like the shape but cannot be read as it (the whole file's error)."""


def _split(value: Mapping[str, Any]) -> DocumentRows | None:
    columns, data = value.get("columns"), value.get("data")
    if not (isinstance(columns, list) and isinstance(data, list) and all(isinstance(c, str) for c in columns)):
        return None
    shape = "pandas table (split orientation, as mlflow.log_table writes it)"
    if len(set(columns)) != len(columns):
        return DocumentRows(shape, problem="the table's 'columns' repeat a name")
    rows = []
    for number, row in enumerate(data, start=1):
        if not isinstance(row, list) or len(row) != len(columns):
            return DocumentRows(shape, problem=f"row {number} of the table's 'data' is not a list of "
                                               f"{len(columns)} values, one per column")
        rows.append({name: cell for name, cell in zip(columns, row) if cell is not None})
    return DocumentRows(shape, rows)


def _table(value: Mapping[str, Any]) -> DocumentRows | None:
    schema, data = value.get("schema"), value.get("data")
    if not (isinstance(schema, Mapping) and isinstance(schema.get("fields"), list) and isinstance(data, list)):
        return None
    index = schema.get("primaryKey") or []
    rows = [{key: cell for key, cell in row.items() if cell is not None and key not in index}
            if isinstance(row, Mapping) else row for row in data]
    return DocumentRows("pandas table (table orientation)", rows)


def _nested(value: Mapping[str, Any]) -> DocumentRows | None:
    """`orient="columns"` ({column: {index: value}}) or `orient="index"` ({index: {column: value}})."""
    if not value or not all(isinstance(inner, Mapping) and inner for inner in value.values()):
        return None
    labels = [set(inner) for inner in value.values()]
    if all(isinstance(key, str) and key.isdigit() for key in value) and len(value) > 0:
        rows = [{column: cell for column, cell in inner.items() if cell is not None} for inner in value.values()]
        return DocumentRows("pandas table (index orientation)", rows)
    first = labels[0]
    if all(label == first for label in labels) and all(isinstance(key, str) and key.isdigit() for key in first):
        order = sorted(first, key=int)
        rows = [{column: inner[label] for column, inner in value.items() if inner[label] is not None}
                for label in order]
        return DocumentRows("pandas table (columns orientation)", rows)
    return None


def _deepeval(value: Mapping[str, Any]) -> DocumentRows | None:
    run = value.get(DEEPEVAL_WRAPPER) if set(value) <= {DEEPEVAL_WRAPPER, "testRunLink"} else value
    if not isinstance(run, Mapping) or not isinstance(run.get("testCases", []), list):
        return None
    if not ({"testCases", "conversationalTestCases"} & set(run)) or not set(run) <= DEEPEVAL_TEST_RUN_KEYS:
        return None
    conversations = [_conversation(case) for case in run.get("conversationalTestCases") or []]
    return DocumentRows("DeepEval test run", [*(run.get("testCases") or []), *conversations])


CONVERSATION_RUN_RESULTS = frozenset({"success", "metricsData", "runDuration", "evaluationCost", "order", "flaky"})
"""DeepEval's record of its own run of a conversation (as `export_shapes.DEEPEVAL_RUN_RESULTS`)."""


def _conversation(case: Any) -> Any:
    """A `ConversationalApiTestCase` as a conversation line (`batch.conversations`): its turns'
    `retrievalContext` under DeepEval's Python name, which a turn's context is read from; a
    turn's `order` (its place, already its position) and the run's results left out."""
    if not isinstance(case, Mapping) or not isinstance(case.get("turns"), list):
        return case
    turns = [{("retrieval_context" if key == "retrievalContext" else key): value
              for key, value in turn.items() if key != "order"} if isinstance(turn, Mapping) else turn
             for turn in case["turns"]]
    return {key: value for key, value in case.items() if key not in CONVERSATION_RUN_RESULTS} | {"turns": turns}


def document_rows(value: Any) -> DocumentRows | None:
    """The rows of `value` when it is one of the documents above; None when it is not (an
    object is then one item, as before)."""
    if not isinstance(value, Mapping):
        return None
    keys = set(value)
    if {"columns", "data"} <= keys and keys <= SPLIT_KEYS:
        return _split(value)
    if keys == TABLE_KEYS:
        return _table(value)
    return _deepeval(value) or _nested(value)
