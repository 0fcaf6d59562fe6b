"""Input schemas: what an item must look like for each rubric.

Validation happens before any model call; a violation becomes the rubric's own failure shape
with a reason naming the field, never an exception.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictStr


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("is empty")
    return value


NonBlank = Annotated[StrictStr, AfterValidator(_not_blank)]
"""A string with at least one non-whitespace character; never coerced from a number."""


RagMetric = Literal["faithfulness", "context_relevance", "answer_relevance", "semantic_similarity"]
RAG_METRICS: tuple[str, ...] = get_args(RagMetric)
"""The rag rubric's metrics, in the seed's output order."""


class RagInput(BaseModel):
    """Inputs of the `rag` rubric (seed 000)."""

    model_config = ConfigDict(extra="ignore")

    question: NonBlank
    answer: NonBlank
    context: StrictStr | list[StrictStr] | None = None
    reference: StrictStr | None = None
    evaluation_goal: StrictStr | None = None
    metrics: Annotated[list[RagMetric], Field(min_length=1)] | None = None
    """Optional: judge only these metrics. The output keeps all 11 keys; the others are null
    with "Not requested.", and their model calls are never made (a pipeline that only needs
    faithfulness should not pay for three more judgments)."""

    @property
    def passages(self) -> list[str]:
        return to_passages(self.context)

    @property
    def selected_metrics(self) -> tuple[str, ...]:
        """The metrics to judge, in output order; all of them when `metrics` is not given."""
        if self.metrics is None:
            return RAG_METRICS
        return tuple(name for name in RAG_METRICS if name in self.metrics)

    def claim_subject(self) -> "ClaimSubject":
        """What the shared claim pipeline checks: the answer against the context."""
        return ClaimSubject(question=self.question, answer=self.answer, passages=self.passages)


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
