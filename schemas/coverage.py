"""Schemas of the `coverage` rubric (seed 003): its input, each step's reply, its output.

The model only enumerates the reference's elements, says whether each one is in the output,
and judges the organization; counts, ratios, the formula and the rounding are Python's
(`nodes.coverage.formula`), so the replies hold observations and no scores.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from .inputs import NonBlank
from .text import Label, short_text

Category = Literal["fact", "conclusion", "term"]
CATEGORIES: tuple[Category, ...] = ("fact", "conclusion", "term")
"""Seed order of the categories; elements are numbered in this order too."""


class CoverageInput(BaseModel):
    """Inputs of the `coverage` rubric. `input` (the question) only gives the topic, so it may
    be absent; a missing or blank reference or output is a content problem (score 0)."""

    model_config = ConfigDict(extra="ignore")

    input: StrictStr | None = None
    reference: NonBlank
    output_text: NonBlank


class ReferenceElements(BaseModel):
    """Reply of `enumerate_reference_elements`: the reference's facts, conclusions and terms.

    The caps keep a small local model's generation bounded (every token costs wall time under
    a JSON grammar) and are far above what a QA reference holds.
    """

    facts: list[short_text(200)] = Field(  # type: ignore[valid-type]
        default_factory=list, max_length=15,
        description="verifiable, objective statements of the reference, without interpretation",
    )
    conclusions: list[short_text(200)] = Field(  # type: ignore[valid-type]
        default_factory=list, max_length=8,
        description="statements that interpret or draw meaning from the facts; never a fact itself",
    )
    terms: list[short_text(60)] = Field(  # type: ignore[valid-type]
        default_factory=list, max_length=12,
        description="essential topic-specific expressions; never a number, date or amount",
    )


# The docstring below is the reply schema's description, sent to the judge with every element
# check: its words are part of the request, so they stay as measured. The quote is looked for
# by `text.quotes.quote_found`.
class ElementCheck(BaseModel):
    """Reply of `check_reference_element`: quote first, so the verdict follows evidence the
    model committed to and code can look for in the output (`nodes.common.quotes.quote_found`)."""

    quote: short_text(200, "words copied exactly from the output that state the element, or empty")  # type: ignore[valid-type]
    justification: short_text(150)  # type: ignore[valid-type]
    present: bool = Field(description="true when the output states the element with the same meaning")


class NumberedElementCheck(ElementCheck):
    """One entry of the batch reply; `element` is the 1-based number shown in the prompt."""

    element: int = Field(ge=1)


class BatchElementChecks(BaseModel):
    """Reply of `check_reference_elements_batch`: every element checked in one call."""

    checks: list[NumberedElementCheck]


Structure = Annotated[Literal["comparable", "very-different"], Label]


class OrganizationJudgment(BaseModel):
    """Reply of `judge_organization`; code maps comparable -> 1, very-different -> 0."""

    reasoning: short_text(150)  # type: ignore[valid-type]
    structure: Structure


class CheckedElement(BaseModel):
    """One reference element with its check, as the graph records it and the trace shows it."""

    index: int
    category: Category
    element: str
    present: bool | None = None
    """What the model said; None when the check failed."""
    quote: str = ""
    quote_found: bool = False
    justification: str = ""
    error: str | None = None

    @property
    def matched(self) -> bool:
        """An element counts only when the model says present AND its quote is in the output."""
        return bool(self.present) and self.quote_found

    def trace_detail(self) -> dict:
        return self.model_dump() | {"matched": self.matched}


class CoverageResult(BaseModel):
    """The seed's output: field order is the output order."""

    model_config = ConfigDict(extra="forbid")

    score: int | None = Field(ge=0, le=5)
    rationale: list[str] = Field(min_length=5, max_length=5)
