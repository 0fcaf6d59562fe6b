"""Field types shared by the step schemas.

Free-text fields are capped because, on a small local model, every generated token of a
rationale costs wall time under a JSON grammar; the cap is advertised to the model through
`maxLength` in the JSON schema and enforced by trimming, so a verbose hosted model is not sent
round a repair loop for an over-long explanation.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field


def _trimmer(limit: int):
    def trim(value: str) -> str:
        value = value.strip()
        return value if len(value) <= limit else value[: limit - 1].rstrip() + "…"

    return trim


def short_text(limit: int, description: str | None = None) -> Any:
    """A stripped string advertised to the model as at most `limit` characters."""
    return Annotated[
        str,
        AfterValidator(_trimmer(limit)),
        Field(description=description, json_schema_extra={"maxLength": limit}),
    ]


def _normalise_label(value: Any) -> Any:
    """Forgive the harmless ways graders misspell a label: case, markdown, `_` vs `-`, spaces."""
    if not isinstance(value, str):
        return value
    label = value.strip().strip("*`'\".").strip().lower()
    return re.sub(r"[\s_]+", "-", label)


Label = BeforeValidator(_normalise_label)
"""Attach to a `Literal[...]` of lower-case, hyphenated labels."""
