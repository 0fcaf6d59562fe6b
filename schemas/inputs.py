"""Input schemas shared by the rubrics: non-blank text, language tags, passages, the claim
pipeline's subject. Each rubric's own input model sits beside its output (`schemas/rag.py`'s
`RagInput`, `schemas/liverag.py`'s `LiveRagInput`, ...).

Validation happens before any model call; a violation becomes the rubric's own failure shape
with a reason naming the field, never an exception.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, StrictStr

from ..text.languages import ItemLanguage, primary_subtag


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("is empty")
    return value


NonBlank = Annotated[StrictStr, AfterValidator(_not_blank)]
"""A string with at least one non-whitespace character; never coerced from a number."""


def _language_tag(value: str) -> str:
    primary_subtag(value)  # raises ValueError with a one-line reason
    return value.strip()


LanguageTag = Annotated[StrictStr, AfterValidator(_language_tag)]
"""An optional `language` field: a BCP-47-ish tag ("de", "zh-Hans", "pt_BR"). When absent the
language is detected from the question and answer (`judgegraph.text.languages`)."""


def to_passages(context: str | list[str] | None) -> list[str]:
    """A context as non-blank passages; an empty list means "no context"."""
    if context is None:
        return []
    items = [context] if isinstance(context, str) else context
    return [p for p in items if p.strip()]


class ClaimSubject(BaseModel):
    """What the shared claim pipeline needs, whichever rubric asked for it."""

    question: str
    answer: str
    passages: list[str] = Field(default_factory=list)
    language: str | None = None
    """The item's language (a primary subtag such as "de"); None when no letter tells it."""

    @property
    def prompt_language(self) -> str | None:
        """The language as the prompts name it ("German (de)"), None when unknown."""
        return prompt_language(self.language)


def prompt_language(code: str | None) -> str | None:
    """"German (de)" for "de"; the code alone for a language without a name here. None for
    English and an unknown language: English prompts stay as they were when every figure of
    docs/benchmarks.md was measured, and the judge reads English by default."""
    if code is None or code == "en":
        return None
    name = ItemLanguage(code, "item").name
    return f"{name} ({code})" if name != code else code
