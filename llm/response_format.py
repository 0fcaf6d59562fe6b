"""The one place that decides how a step's JSON schema is sent to the server.

Servers with constrained decoding (OpenAI, vLLM, llama.cpp) enforce the schema while
generating, which makes small models' replies parse. They disagree on the request shape:
OpenAI takes `{"type": "json_schema", "json_schema": {...}}`, while llama-cpp-python's server
(0.3.x) answers that with HTTP 500 and wants `{"type": "json_object", "schema": {...}}`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pydantic import BaseModel

Dialect = Literal["json_schema", "json_object", "none"]
DIALECTS: tuple[Dialect, ...] = ("json_schema", "json_object", "none")


@lru_cache(maxsize=256)
def response_format_for(schema: type[BaseModel], dialect: Dialect) -> dict[str, Any] | None:
    """The `response_format` request field for `schema`, or None to send no constraint.

    Cached: pydantic builds the JSON schema in Python on every call (about a millisecond for the
    larger step schemas), and every model call needs it. The dict is shared, so read it only."""
    json_schema = schema.model_json_schema()
    if dialect == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": json_schema, "strict": False},
        }
    if dialect == "json_object":
        return {"type": "json_object", "schema": json_schema}
    return None


def fallback_dialect(error: BaseException, dialect: Dialect) -> Dialect | None:
    """The dialect to retry with when a server rejected this one, else None.

    llama-cpp-python's server answers `json_schema` with HTTP 500 and a validation message
    naming `response_format`; rather than failing every step, switch to `json_object`.
    """
    text = str(error)
    if dialect == "json_schema" and "response_format" in text and "json_object" in text:
        return "json_object"
    return None
