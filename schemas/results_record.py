"""One line of a batch results file, as `report` and `compare` accept it back.

Why a model for a file judgegraph writes itself: results files are read back from disk, after
hand edits, merges, other tools and other versions. Every reader after this one formats, sums
and compares the record's fields (`usage.seconds` summed, `details.verdicts` iterated, each node's
`attempts` counted), so a field of the wrong type raised deep in the report as a traceback. The
record is checked here once, with types strict enough that a string or a bool is never read as a
number, and the first problem becomes one line naming its field.

The scores themselves are checked against their metric's scale by the reader that knows the
rubrics (`batch.results_file`): this layer knows the record's shape, not what a rubric declares.
Keys this model does not name are kept (`extra="allow"`): a newer writer may add some.
"""

from __future__ import annotations

from typing import Annotated, Any

import re

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, ValidationError

from .trace import TraceEvent

MAX_COUNT = 10**15
"""Calls and tokens above this are no run's usage; they would only overflow the report's sums."""
MAX_SECONDS = 10**9
"""About 31 years: seconds beyond this are no run's time."""

Count = Annotated[StrictInt, Field(ge=0, le=MAX_COUNT)]
Seconds = Annotated[StrictFloat, Field(ge=0, le=MAX_SECONDS)]


class RecordUsage(BaseModel):
    model_config = ConfigDict(extra="allow")

    calls: Count = 0
    input_tokens: Count = 0
    output_tokens: Count = 0
    seconds: Seconds = 0.0
    cache_hits: Count | None = None


class RecordedClaim(BaseModel):
    """A claim of `details.verdicts` as the report and the comparison read it: the fields they
    show, with their types. The metric readers need the full `CheckedClaim` (the report checks
    that too, `batch.results_file`); a comparison reads only these."""

    model_config = ConfigDict(extra="allow")

    claim: StrictStr = ""
    verdict: StrictStr | None = None
    effective_verdict: StrictStr | None = None
    evidence: StrictStr | None = None
    support: StrictFloat | None = None
    grounding: StrictFloat | None = None
    conflict: StrictStr | None = None
    critical: bool = False
    error: StrictStr | None = None


class RecordDetails(BaseModel):
    """`--details`: the item, its claims with their verdicts, and the step trace."""

    model_config = ConfigDict(extra="allow")

    item: dict[str, Any] | None = None
    verdicts: list[RecordedClaim] | None = None
    nodes: list[TraceEvent] | None = None
    profile: StrictStr | None = None
    rubrics: list[StrictStr] | None = None
    usage: dict[str, Any] | None = None


class ResultsRecord(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: StrictStr | StrictInt
    line: Annotated[StrictInt, Field(ge=0)] | None = None
    rubric: StrictStr | Annotated[list[StrictStr], Field(min_length=1)]
    result: dict[str, Any]
    usage: RecordUsage | None = None
    details: RecordDetails | None = None
    provenance: dict[str, Any] | None = None
    input_error: StrictStr | None = None
    internal_error: StrictStr | None = None


def record_shape_problem(record: dict[str, Any]) -> str | None:
    """The first field of `record` that is not a results record's, as "'usage.calls' should
    be a valid integer, got true"; None when the shape is right."""
    return model_problem(ResultsRecord, record)


def model_problem(model: type[BaseModel], value: Any, prefix: str = "") -> str | None:
    """`value` validated as `model`: its first bad field, named from `prefix`, or None."""
    try:
        model.model_validate(value)
    except ValidationError as error:
        # Of a union's errors, the deepest names the field best (`rubric[0]`, not `rubric`).
        first = max(error.errors(), key=lambda e: len(_field_path(e["loc"])))
        where = prefix + "".join(f"[{part}]" if isinstance(part, int) else f".{part}"
                                 for part in _field_path(first["loc"]))
        message = _MODEL_NAME.sub("", first["msg"]).rstrip(".").removeprefix("Input ")
        return f"'{where.lstrip('.') or 'the record'}' {message}, got {json_kind(first['input'])}"
    return None


_MODEL_NAME = re.compile(r" or instance of \w+")
"""pydantic names the model class ("a valid dictionary or instance of RecordUsage"): not the user's words."""


def json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words ("a string", "true", "an object"), for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value) if isinstance(value, float) else str(value)
        return text if len(text) <= 24 else f"a number of {len(text):,} characters"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _field_path(loc: tuple[Any, ...]) -> list[Any]:
    return [part for part in loc if not _is_union_branch(part)]


def _is_union_branch(part: Any) -> bool:
    """pydantic names the union member it tried (`int`, `list[str]`, `constrained-int`) in an
    error's location; the user's field path has no such step."""
    return isinstance(part, str) and (part in {"str", "int", "float", "list[str]"}
                                      or part.startswith(("constrained-", "function-")))
